/* test_layers.c: the kernels of algorithms/models/layers.h against naive references.
 *
 * References: central finite differences of the scalar L = <R, forward(.)> for a random
 * R, so the backward pass is fed dout = R (h = 1e-6 on O(1) values: truncation ~1e-12,
 * rounding ~1e-10, so a relative error <= 1e-6 over the whole gradient has ample room and
 * still catches any wrong term); the textbook 7-loop convolution for the im2col forward;
 * explicit per-example gradients for the per-example norms (<= 1e-10).
 * The dense layer and the convolution compute their products in float (dense.c,
 * conv.c), so they are held to 1e-5 relative error against double references: the
 * dense layer's double GEMMs (themselves checked by finite differences), the 7-loop
 * forward, central differences of that double forward (not of the float one, whose
 * rounding the step would amplify), and a double brute-force loop over each example's
 * pixels for the per-example gradients. 1e-5 is a hundred times the rounding of a float
 * product (6e-8) summed over at most 1024 terms in float (dense.c's longest float sum)
 * on random data, where errors add like a random walk; a term wrong by one factor would
 * miss it by orders of magnitude. The dense per-example norms are double throughout and
 * keep 1e-10.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/layers.h"

#define FD_H 1e-6
#define FD_TOL 1e-6

static double rel_err(const double *a, const double *b, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

static double *gauss(dp_rng *r, size_t n, double scale)
{
    double *x = malloc(n * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++) x[i] = scale * dp_rng_gaussian(r);
    return x;
}

static double *zeros(size_t n)
{
    double *x = calloc(n ? n : 1, sizeof *x);
    ck_assert_ptr_nonnull(x);
    return x;
}

// ---- a generic finite-difference harness ------------------------------------------------------

/* A layer as a function of one of its arrays: fills out from the current state. */
typedef void (*fwd_fn)(void *ctx, double *out);

/* Central FD of L = <R, f> with respect to every entry of v (n). */
static void fd_grad(double *g, fwd_fn f, void *ctx, double *v, size_t n, const double *R,
                    double *out, size_t n_out)
{
    for (size_t j = 0; j < n; j++) {
        double keep = v[j], lp = 0.0, lm = 0.0;
        v[j] = keep + FD_H;
        f(ctx, out);
        for (size_t k = 0; k < n_out; k++) lp += R[k] * out[k];
        v[j] = keep - FD_H;
        f(ctx, out);
        for (size_t k = 0; k < n_out; k++) lm += R[k] * out[k];
        v[j] = keep;
        g[j] = (lp - lm) / (2 * FD_H);
    }
}

// ---- layers-1: dense ----------------------------------------------------------------------------

typedef struct {
    double *x, *w, *b;
    size_t B, I, O;
} dense_ctx;

static void dense_fwd(void *p, double *out)
{
    dense_ctx *c = p;
    dp_dense_forward_ref(out, c->x, c->w, c->b, c->B, c->I, c->O);
}

/* The double reference against central differences. */
START_TEST(test_dense_fd)
{
    enum { B = 4, I = 7, O = 5 };
    dp_rng r;
    dp_rng_init(&r, 11, DP_STREAM_TEST);
    dense_ctx c = {gauss(&r, B * I, 1), gauss(&r, O * I, 0.5), gauss(&r, O, 0.5), B, I, O};
    double *R = gauss(&r, B * O, 1), *out = zeros(B * O);
    double *dx = zeros(B * I), *dw = zeros(O * I), *db = zeros(O);
    double *fx = zeros(B * I), *fw = zeros(O * I), *fb = zeros(O);
    dp_dense_backward_ref(dx, dw, db, R, c.x, c.w, B, I, O);
    fd_grad(fx, dense_fwd, &c, c.x, B * I, R, out, B * O);
    fd_grad(fw, dense_fwd, &c, c.w, O * I, R, out, B * O);
    fd_grad(fb, dense_fwd, &c, c.b, O, R, out, B * O);
    ck_assert_double_le(rel_err(dx, fx, B * I), FD_TOL);
    ck_assert_double_le(rel_err(dw, fw, O * I), FD_TOL);
    ck_assert_double_le(rel_err(db, fb, O), FD_TOL);

    /* backward accumulates: a second call doubles every output */
    double *dw2 = zeros(O * I);
    memcpy(dw2, dw, O * I * sizeof *dw);
    dp_dense_backward_ref(NULL, dw2, NULL, R, c.x, c.w, B, I, O);
    for (size_t j = 0; j < O * I; j++) ck_assert_double_eq_tol(dw2[j], 2 * dw[j], 1e-14);

    /* per-example norms (double throughout): one-example backward calls give each
     * gradient explicitly */
    double sq[B] = {0}, asq[B];
    float af[B * I];
    dp_dense_input(af, asq, c.x, B, I);
    dp_dense_pex_sqnorm(sq, R, asq, B, O);
    for (size_t i = 0; i < B; i++) {
        double *gw = zeros(O * I), *gb = zeros(O);
        dp_dense_backward_ref(NULL, gw, gb, R + i * O, c.x + i * I, c.w, 1, I, O);
        double ref = 0.0;
        for (size_t j = 0; j < O * I; j++) ref += gw[j] * gw[j];
        for (size_t j = 0; j < O; j++) ref += gb[j] * gb[j];
        ck_assert_double_le(fabs(sq[i] - ref), 1e-10 * ref);
        free(gw);
        free(gb);
    }
    free(c.x), free(c.w), free(c.b), free(R), free(out), free(dx), free(dw), free(db);
    free(fx), free(fw), free(fb), free(dw2);
}
END_TEST

#define DENSE_TOL 1e-5

/* The float layer against the double reference: forward, errors of the input, weight
 * gradient with and without clip factors, by row ranges and row blocks, on shapes whose
 * float sums need one piece and several (I, O or B above dense.c's 1024). */
START_TEST(test_dense_float)
{
    static const size_t shapes[][3] = {{5, 7, 3}, {37, 300, 70}, {9, 2500, 4}, {1300, 6, 5},
                                       {3, 11, 1200}};
    dp_rng r;
    dp_rng_init(&r, 12, DP_STREAM_TEST);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        size_t B = shapes[t][0], I = shapes[t][1], O = shapes[t][2];
        double *x = gauss(&r, B * I, 1), *w = gauss(&r, O * I, 0.5), *b = gauss(&r, O, 0.5);
        double *R = gauss(&r, B * O, 1), *cf = gauss(&r, B, 1);
        double *out = zeros(B * O), *ref = zeros(B * O), asq[1300];
        float *af = malloc(B * I * sizeof *af), *wf = malloc(O * I * sizeof *wf);
        size_t wsz = dp_dense_input_grad_ws(B, I, O);
        if (B * O > wsz) wsz = B * O;
        if (dp_dense_weight_grad_ws(O, I) > wsz) wsz = dp_dense_weight_grad_ws(O, I);
        float *ws = malloc(wsz * sizeof *ws);
        ck_assert(af && wf && ws);
        dp_to_float(wf, w, O * I);
        dp_dense_input(af, asq, x, B, I);
        for (size_t i = 0; i < B; i++) {
            double s = 0.0;
            for (size_t k = 0; k < I; k++) {
                s += x[i * I + k] * x[i * I + k];
                ck_assert(af[i * I + k] == (float)x[i * I + k]);
            }
            ck_assert_double_le(fabs(asq[i] - s), 1e-13 * s);
        }
        dp_dense_forward(out, ws, af, wf, b, B, I, O);
        dp_dense_forward_ref(ref, x, w, b, B, I, O);
        ck_assert_msg(rel_err(out, ref, B * O) <= DENSE_TOL, "forward %zux%zux%zu: %g", B, I,
                      O, rel_err(out, ref, B * O));

        /* errors of the input accumulate into dinp, or overwrite it */
        double *dx = gauss(&r, B * I, 1), *dxr = malloc(B * I * sizeof *dxr);
        memcpy(dxr, dx, B * I * sizeof *dx);
        dp_dense_backward_input(dx, ws, R, wf, B, I, O, 1);
        dp_dense_backward_ref(dxr, NULL, NULL, R, x, w, B, I, O);
        ck_assert_msg(rel_err(dx, dxr, B * I) <= DENSE_TOL, "dinp %zux%zux%zu: %g", B, I, O,
                      rel_err(dx, dxr, B * I));
        for (size_t k = 0; k < B * I; k++) dx[k] = NAN, dxr[k] = 0.0;
        dp_dense_backward_input(dx, ws, R, wf, B, I, O, 0);
        dp_dense_backward_ref(dxr, NULL, NULL, R, x, w, B, I, O);
        ck_assert_msg(rel_err(dx, dxr, B * I) <= DENSE_TOL, "dinp = %zux%zux%zu: %g", B, I, O,
                      rel_err(dx, dxr, B * I));

        /* weight gradient: every row at once, and in row ranges of blocks of 2 rows; with
         * clip factors c (reference: the rows of R scaled in double) */
        double *Rc = malloc(B * O * sizeof *Rc);
        for (size_t i = 0; i < B; i++)
            for (size_t o = 0; o < O; o++) Rc[i * O + o] = cf[i] * R[i * O + o];
        for (int scaled = 0; scaled < 2; scaled++) {
            double *dw = zeros(O * I), *db = zeros(O), *dw2 = zeros(O * I), *db2 = zeros(O);
            double *rw = zeros(O * I), *rb = zeros(O);
            const double *c = scaled ? cf : NULL;
            dp_dense_backward_weights(dw, db, ws, R, c, af, B, I, O, 0, O, O);
            size_t cut = O / 3;
            dp_dense_backward_weights(dw2, db2, ws, R, c, af, B, I, O, 0, cut, 2);
            dp_dense_backward_weights(dw2, db2, ws, R, c, af, B, I, O, cut, O, 2);
            dp_dense_backward_ref(NULL, rw, rb, scaled ? Rc : R, x, w, B, I, O);
            ck_assert_msg(rel_err(dw, rw, O * I) <= DENSE_TOL, "dW %zux%zux%zu: %g", B, I, O,
                          rel_err(dw, rw, O * I));
            ck_assert_double_le(rel_err(db, rb, O), 1e-13);
            ck_assert_double_le(rel_err(dw2, rw, O * I), DENSE_TOL);
            ck_assert_mem_eq(db, db2, O * sizeof *db);
            free(dw), free(db), free(dw2), free(db2), free(rw), free(rb);
        }
        /* c_i = 1 is c == NULL, bit for bit (the model passes either) */
        double *ones = malloc(B * sizeof *ones), *g1 = zeros(O * I + O), *g2 = zeros(O * I + O);
        for (size_t i = 0; i < B; i++) ones[i] = 1.0;
        dp_dense_backward_weights(g1, g1 + O * I, ws, R, ones, af, B, I, O, 0, O, O);
        dp_dense_backward_weights(g2, g2 + O * I, ws, R, NULL, af, B, I, O, 0, O, O);
        ck_assert_mem_eq(g1, g2, (O * I + O) * sizeof *g1);
        free(ones), free(g1), free(g2);
        free(x), free(w), free(b), free(R), free(cf), free(out), free(ref), free(af), free(wf);
        free(ws), free(dx), free(dxr), free(Rc);
    }
}
END_TEST

/* layers-1.3: dp_dense_forward_relu is dp_dense_forward, the ReLU in place and
 * dp_dense_input of the result, bit for bit: outputs, the next layer's floats and squared
 * norms (NULL norms allowed), for one-piece products (I <= 1024) and, through its
 * fallback, for several pieces (I = 2500). */
START_TEST(test_dense_forward_relu)
{
    static const size_t shapes[][3] = {{5, 7, 3}, {37, 300, 70}, {16, 784, 512}, {9, 2500, 4}};
    dp_rng r;
    dp_rng_init(&r, 13, DP_STREAM_TEST);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        size_t B = shapes[t][0], I = shapes[t][1], O = shapes[t][2];
        double *x = gauss(&r, B * I, 1), *w = gauss(&r, O * I, 0.5), *b = gauss(&r, O, 0.5);
        double *out = zeros(B * O), *ref = zeros(B * O), asq[40], asq_ref[40];
        float *af = malloc(B * I * sizeof *af), *wf = malloc(O * I * sizeof *wf);
        float *of = malloc(B * O * sizeof *of), *an = malloc(B * O * sizeof *an);
        float *an_ref = malloc(B * O * sizeof *an_ref);
        ck_assert(af && wf && of && an && an_ref);
        dp_to_float(wf, w, O * I);
        dp_dense_input(af, NULL, x, B, I);
        dp_dense_forward(ref, of, af, wf, b, B, I, O);
        dp_keep_positive(ref, ref, ref, B * O);
        dp_dense_input(an_ref, asq_ref, ref, B, O);
        dp_dense_forward_relu(out, of, af, wf, b, B, I, O, an, asq);
        ck_assert_mem_eq(out, ref, B * O * sizeof *out);
        ck_assert_mem_eq(an, an_ref, B * O * sizeof *an);
        ck_assert_mem_eq(asq, asq_ref, B * sizeof *asq);
        size_t dropped = 0;
        for (size_t k = 0; k < B * O; k++) dropped += out[k] == 0.0;
        ck_assert_uint_gt(dropped, 0); /* the ReLU did cut */
        dp_dense_forward_relu(out, of, af, wf, b, B, I, O, an, NULL);
        ck_assert_mem_eq(out, ref, B * O * sizeof *out);
        free(x), free(w), free(b), free(out), free(ref), free(af), free(wf), free(of), free(an);
        free(an_ref);
    }
}
END_TEST

/* layers-1.4: dp_dense_backward_input_relu is dp_dense_backward_input (overwriting), the
 * ReLU's derivative in place and dp_dense_pex_sqnorm added onto the norms so far, bit for
 * bit, for one-piece products (O <= 1024) and the several-piece fallback (O = 1100);
 * sqnorm NULL computes the errors alone. */
START_TEST(test_dense_backward_relu)
{
    static const size_t shapes[][3] = {{5, 7, 3}, {37, 300, 70}, {16, 512, 128}, {4, 9, 1100}};
    dp_rng r;
    dp_rng_init(&r, 14, DP_STREAM_TEST);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        size_t B = shapes[t][0], I = shapes[t][1], O = shapes[t][2];
        double *keep = gauss(&r, B * I, 1), *w = gauss(&r, O * I, 0.5), *dout = gauss(&r, B * O, 1);
        double *asq = gauss(&r, B, 1), *sq = gauss(&r, B, 1), *sq_ref = malloc(B * sizeof *sq);
        double *dx = zeros(B * I), *dx_ref = zeros(B * I);
        float *wf = malloc(O * I * sizeof *wf), *ws = malloc(dp_dense_input_grad_ws(B, I, O) * sizeof *ws);
        ck_assert(wf && ws && sq_ref);
        for (size_t i = 0; i < B; i++) asq[i] = fabs(asq[i]);
        memcpy(sq_ref, sq, B * sizeof *sq);
        dp_to_float(wf, w, O * I);
        dp_dense_backward_input(dx_ref, ws, dout, wf, B, I, O, 0);
        dp_keep_positive(dx_ref, keep, dx_ref, B * I);
        dp_dense_pex_sqnorm(sq_ref, dx_ref, asq, B, I);
        for (size_t k = 0; k < B * I; k++) dx[k] = NAN; /* overwritten */
        dp_dense_backward_input_relu(dx, ws, dout, wf, B, I, O, keep, sq, asq);
        ck_assert_mem_eq(dx, dx_ref, B * I * sizeof *dx);
        ck_assert_mem_eq(sq, sq_ref, B * sizeof *sq);
        for (size_t k = 0; k < B * I; k++) dx[k] = NAN;
        dp_dense_backward_input_relu(dx, ws, dout, wf, B, I, O, keep, NULL, asq);
        ck_assert_mem_eq(dx, dx_ref, B * I * sizeof *dx);
        free(keep), free(w), free(dout), free(asq), free(sq), free(sq_ref), free(dx);
        free(dx_ref), free(wf), free(ws);
    }
}
END_TEST

/* layers-1.5: dp_dense_backward_weights_float adds into a zero float gradient exactly
 * what dp_dense_backward_weights adds into a zero double one (the same product, in place
 * instead of in scratch), bit for bit, and the same bias gradient: every row in blocks of
 * all rows, a row range in blocks of 2 (several products), with and without clip
 * factors, on shapes small enough for OpenBLAS's small-matrix kernels and on the MLP's
 * (a lane's half of 512 rows and 128 rows over 256 examples). A second call adds. */
START_TEST(test_dense_weights_float)
{
    static const size_t shapes[][3] = {{5, 7, 3}, {37, 300, 70}, {256, 784, 512}, {256, 512, 128}};
    dp_rng r;
    dp_rng_init(&r, 15, DP_STREAM_TEST);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        size_t B = shapes[t][0], I = shapes[t][1], O = shapes[t][2];
        size_t o0 = O / 5, o1 = O - O / 3; /* a row range */
        double *x = gauss(&r, B * I, 1), *R = gauss(&r, B * O, 1), *cf = gauss(&r, B, 1);
        float *af = malloc(B * I * sizeof *af);
        float *ws = malloc(dp_dense_weight_grad_ws(O, I) * sizeof *ws);
        float *gf = calloc(O * I, sizeof *gf);
        ck_assert(af && ws && gf);
        dp_dense_input(af, NULL, x, B, I);
        for (int scaled = 0; scaled < 2; scaled++)
            for (int range = 0; range < 2; range++) {
                const double *c = scaled ? cf : NULL;
                size_t lo = range ? o0 : 0, hi = range ? o1 : O, rows = range ? 2 : hi - lo;
                double *dw = zeros(O * I), *db = zeros(O), *db2 = zeros(O), *g = zeros(O * I);
                memset(gf, 0, O * I * sizeof *gf);
                dp_dense_backward_weights(dw, db, ws, R, c, af, B, I, O, lo, hi, rows);
                dp_dense_backward_weights_float(gf, db2, ws, R, c, af, B, I, O, lo, hi, rows);
                for (size_t k = 0; k < O * I; k++) g[k] = 0.0 + (double)gf[k];
                ck_assert_mem_eq(g, dw, O * I * sizeof *g);
                ck_assert_mem_eq(db2, db, O * sizeof *db);
                size_t nonzero = 0;
                for (size_t k = lo * I; k < hi * I; k++) nonzero += dw[k] != 0.0;
                ck_assert_uint_eq(nonzero, (hi - lo) * I); /* not an empty comparison */
                /* a second call adds in float: twice the first, exactly */
                dp_dense_backward_weights_float(gf, db2, ws, R, c, af, B, I, O, lo, hi, rows);
                for (size_t k = 0; k < O * I; k++) ck_assert(gf[k] == (float)(2.0 * dw[k]));
                free(dw), free(db), free(db2), free(g);
            }
        free(x), free(R), free(cf), free(af), free(ws), free(gf);
    }
}
END_TEST

// ---- layers-2: conv2d ---------------------------------------------------------------------------

START_TEST(test_conv_shapes)
{
    dp_conv_shape s;
    /* TF Privacy MNIST: 28x28, 8x8 stride 2 same -> 14x14, total padding 6 -> 3 before */
    ck_assert_int_eq(dp_conv_shape_init(&s, 1, 28, 28, 16, 8, 8, 2, -1), 0);
    ck_assert_int_eq(s.oh, 14);
    ck_assert_int_eq(s.ow, 14);
    ck_assert_int_eq(s.pad_t, 3);
    /* 13x13, 4x4 stride 2 valid -> 5x5 (floor) */
    ck_assert_int_eq(dp_conv_shape_init(&s, 16, 13, 13, 32, 4, 4, 2, 0), 0);
    ck_assert_int_eq(s.oh, 5);
    ck_assert_int_eq(s.pad_l, 0);
    /* odd total padding goes after: 7 wide, 4 kernel, stride 1 same -> pad 1 before */
    ck_assert_int_eq(dp_conv_shape_init(&s, 2, 5, 7, 3, 4, 4, 1, -1), 0);
    ck_assert_int_eq(s.ow, 7);
    ck_assert_int_eq(s.pad_l, 1);
    ck_assert_int_eq(dp_conv_shape_init(&s, 1, 3, 3, 1, 4, 4, 1, 0), -1);
    ck_assert_int_eq(dp_conv_shape_init(&s, 1, 3, 3, 1, 4, 4, 1, 1), 0);
    ck_assert_int_eq(s.oh, 2);
    ck_assert_int_eq(dp_conv_shape_init(&s, 1, 3, 3, 1, 3, 3, 0, 0), -1);
}
END_TEST

/* Float products against double references (conv.c's precision). */
#define CONV_TOL 1e-5

typedef struct {
    double *x, *w, *b;
    float *mem;
    dp_conv_ws ws;
    size_t B;
    dp_conv_shape s;
} conv_ctx;

static void conv_fwd(void *p, double *out)
{
    conv_ctx *c = p;
    dp_conv2d_forward(out, &c->ws, c->x, c->w, c->b, c->B, &c->s, 0);
}

/* the double reference: the 7-loop convolution */
static void conv_fwd_naive(void *p, double *out)
{
    conv_ctx *c = p;
    dp_conv2d_forward_naive(out, c->x, c->w, c->b, c->B, &c->s);
}

/* Geometries: (C,H,W, OC, k, stride, pad) covering same/valid/explicit, strides 1-3,
 * kernels wider than the stride and narrower, and a kernel as large as the input. */
static const int geoms[][7] = {
    {3, 9, 7, 4, 4, 2, -1}, {2, 6, 6, 3, 3, 1, -1}, {2, 9, 8, 3, 4, 2, 0},
    {1, 7, 7, 2, 3, 3, 1},  {2, 5, 5, 2, 5, 1, 0},  {3, 8, 8, 2, 2, 3, -1},
};

static void conv_setup(conv_ctx *c, dp_rng *r, const int *g, size_t B, size_t block)
{
    ck_assert_int_eq(dp_conv_shape_init(&c->s, g[0], g[1], g[2], g[3], g[4], g[4], g[5], g[6]),
                     0);
    c->B = B;
    c->x = gauss(r, B * g[0] * g[1] * g[2], 1);
    c->w = gauss(r, (size_t)g[3] * dp_conv_k(&c->s), 0.5);
    c->b = gauss(r, (size_t)g[3], 0.5);
    c->mem = calloc(dp_conv_ws_floats(&c->s, block), sizeof *c->mem);
    ck_assert_ptr_nonnull(c->mem);
    dp_conv_ws_init(&c->ws, c->mem, &c->s, block);
}

static void conv_free(conv_ctx *c) { free(c->x), free(c->w), free(c->b), free(c->mem); }

/* Brute force in double: example n's weight gradient gw (OC,KH,KW,C) and bias gradient
 * gb (OC) for output error R (B,OH,OW,OC), one output pixel and tap at a time. */
static void conv_grad_naive(double *gw, double *gb, const double *R, const double *x, size_t n,
                            const dp_conv_shape *s)
{
    size_t C = (size_t)s->c, in_sz = (size_t)s->h * s->w * C, OC = (size_t)s->oc;
    size_t P = dp_conv_patches(s);
    memset(gw, 0, OC * dp_conv_k(s) * sizeof *gw);
    memset(gb, 0, OC * sizeof *gb);
    for (int oy = 0; oy < s->oh; oy++)
        for (int ox = 0; ox < s->ow; ox++)
            for (size_t o = 0; o < OC; o++) {
                double r = R[n * P * OC + ((size_t)oy * s->ow + ox) * OC + o];
                gb[o] += r;
                for (int ky = 0; ky < s->kh; ky++)
                    for (int kx = 0; kx < s->kw; kx++) {
                        int iy = oy * s->stride - s->pad_t + ky;
                        int ix = ox * s->stride - s->pad_l + kx;
                        if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w) continue;
                        for (size_t c = 0; c < C; c++)
                            gw[((o * s->kh + ky) * s->kw + kx) * C + c] +=
                                r * x[n * in_sz + ((size_t)iy * s->w + ix) * C + c];
                    }
            }
}

START_TEST(test_conv_naive)
{
    dp_rng r;
    dp_rng_init(&r, 21, DP_STREAM_TEST);
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++)
        for (size_t block = 1; block <= 5; block += 2) {
            conv_ctx c;
            conv_setup(&c, &r, geoms[gi], 5, block);
            size_t n_out = 5 * dp_conv_patches(&c.s) * (size_t)c.s.oc;
            double *o1 = zeros(n_out), *o2 = zeros(n_out);
            conv_fwd(&c, o1);
            conv_fwd_naive(&c, o2);
            ck_assert_double_le(rel_err(o1, o2, n_out), CONV_TOL);
            free(o1), free(o2);
            conv_free(&c);
        }
}
END_TEST

START_TEST(test_conv_fd)
{
    dp_rng r;
    dp_rng_init(&r, 22, DP_STREAM_TEST);
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        enum { B = 3 };
        conv_ctx c;
        conv_setup(&c, &r, geoms[gi], B, 2); /* two blocks: 2 + 1 examples */
        size_t nx = B * (size_t)c.s.c * c.s.h * c.s.w, nw = (size_t)c.s.oc * dp_conv_k(&c.s);
        size_t no = B * dp_conv_patches(&c.s) * (size_t)c.s.oc, nb = (size_t)c.s.oc;
        double *R = gauss(&r, no, 1), *out = zeros(no);
        double *dx = zeros(nx), *dw = zeros(nw), *db = zeros(nb);
        double *fx = zeros(nx), *fw = zeros(nw), *fb = zeros(nb);
        dp_conv2d_backward(dx, dw, db, &c.ws, R, c.x, c.w, B, &c.s, 0);
        fd_grad(fx, conv_fwd_naive, &c, c.x, nx, R, out, no);
        fd_grad(fw, conv_fwd_naive, &c, c.w, nw, R, out, no);
        fd_grad(fb, conv_fwd_naive, &c, c.b, nb, R, out, no);
        ck_assert_double_le(rel_err(dx, fx, nx), CONV_TOL);
        ck_assert_double_le(rel_err(dw, fw, nw), CONV_TOL);
        ck_assert_double_le(rel_err(db, fb, nb), FD_TOL);
        free(R), free(out), free(dx), free(dw), free(db), free(fx), free(fw), free(fb);
        conv_free(&c);
    }
}
END_TEST

/* have_cols: the patches a forward left behind give bit for bit what a fresh im2col gives,
 * for the backward, the norms and the per-example gradients. */
START_TEST(test_conv_have_cols)
{
    dp_rng r;
    dp_rng_init(&r, 24, DP_STREAM_TEST);
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        enum { B = 4 };
        conv_ctx c;
        conv_setup(&c, &r, geoms[gi], B, B);
        size_t nx = B * (size_t)c.s.c * c.s.h * c.s.w, nw = (size_t)c.s.oc * dp_conv_k(&c.s);
        size_t no = B * dp_conv_patches(&c.s) * (size_t)c.s.oc, row = nw + (size_t)c.s.oc;
        double *R = gauss(&r, no, 1), *out = zeros(no);
        double *dx[2], *dw[2], *db[2], *g[2], sq[2][B];
        for (int have = 0; have < 2; have++) {
            dx[have] = zeros(nx), dw[have] = zeros(nw), db[have] = zeros((size_t)c.s.oc);
            g[have] = zeros(B * row);
            memset(sq[have], 0, sizeof sq[have]);
            conv_fwd(&c, out); /* fills the patches; have = 0 recomputes them */
            dp_conv2d_backward(dx[have], dw[have], db[have], &c.ws, R, c.x, c.w, B, &c.s, have);
            dp_conv2d_pex_sqnorm(sq[have], &c.ws, R, c.x, B, &c.s, DP_CONV_PEX_GRAM, have);
            dp_conv2d_pex_grads(g[have], NULL, &c.ws, R, c.x, B, &c.s, have);
        }
        ck_assert_mem_eq(dx[0], dx[1], nx * sizeof *dx[0]);
        ck_assert_mem_eq(dw[0], dw[1], nw * sizeof *dw[0]);
        ck_assert_mem_eq(db[0], db[1], (size_t)c.s.oc * sizeof *db[0]);
        ck_assert_mem_eq(sq[0], sq[1], sizeof sq[0]);
        ck_assert_mem_eq(g[0], g[1], B * row * sizeof *g[0]);
        for (int have = 0; have < 2; have++)
            free(dx[have]), free(dw[have]), free(db[have]), free(g[have]);
        free(R), free(out);
        conv_free(&c);
    }
}
END_TEST

/* Both norm methods and the stored per-example gradients against the double brute force. */
START_TEST(test_conv_pex)
{
    dp_rng r;
    dp_rng_init(&r, 23, DP_STREAM_TEST);
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        enum { B = 5 };
        conv_ctx c;
        conv_setup(&c, &r, geoms[gi], B, 2);
        size_t P = dp_conv_patches(&c.s), K = dp_conv_k(&c.s), OC = (size_t)c.s.oc;
        size_t row = OC * K + OC;
        double *R = gauss(&r, B * P * OC, 1), ref[B];
        double *gref = zeros(B * row), *g = zeros(B * row);
        for (size_t i = 0; i < B; i++) {
            double *gi_ = gref + i * row;
            conv_grad_naive(gi_, gi_ + OC * K, R, c.x, i, &c.s);
            ref[i] = 0.0;
            for (size_t j = 0; j < row; j++) ref[i] += gi_[j] * gi_[j];
        }
        for (int method = DP_CONV_PEX_DIRECT; method <= DP_CONV_PEX_GRAM; method++) {
            double sq[B] = {0};
            dp_conv2d_pex_sqnorm(sq, &c.ws, R, c.x, B, &c.s, method, 0);
            for (size_t i = 0; i < B; i++)
                ck_assert_double_le(fabs(sq[i] - ref[i]), CONV_TOL * ref[i]);
        }
        double sqg[B] = {0};
        dp_conv2d_pex_grads(g, sqg, &c.ws, R, c.x, B, &c.s, 0);
        for (size_t i = 0; i < B; i++) {
            ck_assert_double_le(rel_err(g + i * row, gref + i * row, row), CONV_TOL);
            ck_assert_double_le(fabs(sqg[i] - ref[i]), CONV_TOL * ref[i]);
        }
        free(R), free(gref), free(g);
        conv_free(&c);
    }
}
END_TEST

START_TEST(test_conv_choose)
{
    dp_conv_shape s;
    /* by flop count P (OC + K) against OC K: MNIST conv1 (P 196, OC 16, K 64) DIRECT,
     * conv2 (P 25, OC 32, K 256) GRAM, late CIFAR layer (P 64, OC 128, K 1152) GRAM */
    dp_conv_shape_init(&s, 1, 28, 28, 16, 8, 8, 2, -1);
    ck_assert_int_eq(dp_conv_pex_choose(&s), DP_CONV_PEX_DIRECT);
    dp_conv_shape_init(&s, 16, 13, 13, 32, 4, 4, 2, 0);
    ck_assert_int_eq(dp_conv_pex_choose(&s), DP_CONV_PEX_GRAM);
    dp_conv_shape_init(&s, 128, 8, 8, 128, 3, 3, 1, -1);
    ck_assert_int_eq(dp_conv_pex_choose(&s), DP_CONV_PEX_GRAM);
}
END_TEST

// ---- layers-3: max-pool ------------------------------------------------------------------------

typedef struct {
    double *x;
    int *arg;
    size_t B;
    dp_pool_shape s;
} pool_ctx;

static void pool_fwd(void *p, double *out)
{
    pool_ctx *c = p;
    dp_maxpool_forward(out, c->arg, c->x, c->B, &c->s);
}

START_TEST(test_pool_fd)
{
    static const int pg[][5] = {{3, 6, 6, 2, 1}, {2, 7, 5, 2, 2}, {2, 7, 7, 3, 2}};
    dp_rng r;
    dp_rng_init(&r, 31, DP_STREAM_TEST);
    for (size_t gi = 0; gi < 3; gi++) {
        enum { B = 3 };
        pool_ctx c;
        ck_assert_int_eq(dp_pool_shape_init(&c.s, pg[gi][0], pg[gi][1], pg[gi][2], pg[gi][3],
                                            pg[gi][4]),
                         0);
        c.B = B;
        size_t nx = B * (size_t)c.s.c * c.s.h * c.s.w, no = B * (size_t)c.s.c * c.s.oh * c.s.ow;
        c.x = gauss(&r, nx, 1); /* continuous values: no ties, no kink within FD_H */
        c.arg = malloc(no * sizeof *c.arg);
        double *R = gauss(&r, no, 1), *out = zeros(no), *dx = zeros(nx), *fx = zeros(nx);
        pool_fwd(&c, out);
        dp_maxpool_backward(dx, R, c.arg, B, &c.s);
        fd_grad(fx, pool_fwd, &c, c.x, nx, R, out, no);
        ck_assert_double_le(rel_err(dx, fx, nx), FD_TOL);
        free(c.x), free(c.arg), free(R), free(out), free(dx), free(fx);
    }
    dp_pool_shape s;
    ck_assert_int_eq(dp_pool_shape_init(&s, 1, 28, 28, 2, 1), 0);
    ck_assert_int_eq(s.oh, 27);
    ck_assert_int_eq(dp_pool_shape_init(&s, 1, 1, 4, 2, 1), -1);
}
END_TEST

/* Ties go to the first maximum in the window, rows then columns (the branch-free
 * selects of pool.c keep that order), with overlapping windows sharing an input. */
START_TEST(test_pool_ties)
{
    dp_pool_shape s;
    ck_assert_int_eq(dp_pool_shape_init(&s, 2, 3, 3, 2, 1), 0);
    /* channel 0: all equal; channel 1: maximum 5 twice, at (1,0) and (1,1) */
    double x[18];
    for (int p = 0; p < 9; p++) x[2 * p] = 1.0, x[2 * p + 1] = (p == 3 || p == 4) ? 5.0 : -1.0;
    double out[8];
    int arg[8];
    dp_maxpool_forward(out, arg, x, 1, &s);
    static const int first0[4] = {0, 1, 3, 4}; /* top-left pixel of each window */
    for (int o = 0; o < 4; o++) {
        ck_assert_double_eq(out[2 * o], 1.0);
        ck_assert_int_eq(arg[2 * o], 2 * first0[o]);
        ck_assert_double_eq(out[2 * o + 1], 5.0);
    }
    ck_assert_int_eq(arg[1], 2 * 3 + 1); /* window (0,0): (1,0) before (1,1) */
    ck_assert_int_eq(arg[3], 2 * 4 + 1); /* window (0,1) holds only (1,1) */
    ck_assert_int_eq(arg[5], 2 * 3 + 1);
    ck_assert_int_eq(arg[7], 2 * 4 + 1);
}
END_TEST

/* layers-3.3: against a plain scan of each window (rows, then columns, the first maximum
 * wins), on channel counts that use the eight-channel vector blocks (up to four AVX-512
 * registers at once, then fewer), the scalar rest, or both, with values from a set of
 * five so that ties are everywhere, and a NaN. */
START_TEST(test_pool_scan)
{
    static const int shapes[][5] = {{8, 6, 6, 2, 1},  {10, 5, 7, 2, 1}, {16, 14, 14, 2, 1},
                                    {3, 6, 6, 3, 2},  {17, 7, 5, 3, 2}, {32, 5, 5, 2, 1},
                                    {40, 5, 4, 2, 1}, {33, 4, 4, 2, 1}, {26, 4, 5, 3, 1}};
    dp_rng r;
    dp_rng_init(&r, 33, DP_STREAM_TEST);
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        enum { B = 2 };
        const int *g = shapes[t];
        dp_pool_shape s;
        ck_assert_int_eq(dp_pool_shape_init(&s, g[0], g[1], g[2], g[3], g[4]), 0);
        size_t C = (size_t)s.c, in_sz = C * s.h * s.w, out_sz = C * s.oh * s.ow;
        double *x = malloc(B * in_sz * sizeof *x), *out = malloc(B * out_sz * sizeof *out);
        int *arg = malloc(B * out_sz * sizeof *arg);
        for (size_t i = 0; i < B * in_sz; i++) x[i] = (double)dp_rng_below(&r, 5);
        x[3] = NAN;
        dp_maxpool_forward(out, arg, x, B, &s);
        int wrong = 0;
        for (size_t n = 0; n < B; n++)
            for (int oy = 0; oy < s.oh; oy++)
                for (int ox = 0; ox < s.ow; ox++)
                    for (size_t c = 0; c < C; c++) {
                        int base = (oy * s.stride * s.w + ox * s.stride) * s.c + (int)c;
                        int best = base;
                        const double *xn = x + n * in_sz;
                        for (int ky = 0; ky < s.k; ky++)
                            for (int kx = 0; kx < s.k; kx++) {
                                int i = base + (ky * s.w + kx) * s.c;
                                if (xn[i] > xn[best]) best = i;
                            }
                        size_t o = n * out_sz + ((size_t)oy * s.ow + ox) * C + c;
                        wrong += arg[o] != best ||
                                 memcmp(&out[o], &xn[best], sizeof out[o]) != 0;
                    }
        ck_assert_msg(wrong == 0, "shape %zu: %d outputs differ from the scan", t, wrong);
        free(x), free(out), free(arg);
    }
}
END_TEST

// ---- layers-4: activations ---------------------------------------------------------------------

typedef struct {
    double *x;
    size_t n;
    dp_act a;
} act_ctx;

static void act_fwd(void *p, double *out)
{
    act_ctx *c = p;
    dp_act_forward(out, c->x, c->n, &c->a);
}

START_TEST(test_act_fd)
{
    enum { N = 40 };
    const dp_act acts[] = {{DP_ACT_RELU, 0, 0, 0},
                           {DP_ACT_TANH, 0, 0, 0},
                           {DP_ACT_TSIGMOID, 2, 2, 1},
                           {DP_ACT_TSIGMOID, 1.5, 0.7, 0.2}};
    dp_rng r;
    dp_rng_init(&r, 41, DP_STREAM_TEST);
    for (size_t k = 0; k < 4; k++) {
        act_ctx c = {gauss(&r, N, 2), N, acts[k]};
        double *R = gauss(&r, N, 1), *out = zeros(N), *dx = zeros(N), *fx = zeros(N);
        act_fwd(&c, out);
        dp_act_backward(dx, R, out, N, &c.a);
        fd_grad(fx, act_fwd, &c, c.x, N, R, out, N);
        ck_assert_double_le(rel_err(dx, fx, N), FD_TOL);
        /* in place forward and backward agree with the out-of-place ones */
        double *y = zeros(N), *d = zeros(N);
        memcpy(y, c.x, N * sizeof *y);
        memcpy(d, R, N * sizeof *d);
        dp_act_forward(y, y, N, &c.a);
        act_fwd(&c, out);
        dp_act_backward(d, d, y, N, &c.a);
        for (size_t i = 0; i < N; i++) {
            ck_assert_double_eq(y[i], out[i]);
            ck_assert_double_eq(d[i], dx[i]);
        }
        free(c.x), free(R), free(out), free(dx), free(fx), free(y), free(d);
    }
    /* ReLU on the bits: +0.0 (not -0.0) for x <= 0 and NaN, x itself above; the error
     * passes where the output is positive, +0.0 elsewhere (0 at the kink, as TF) */
    {
        dp_act relu = {DP_ACT_RELU, 0, 0, 0};
        double xs[5] = {-2.0, -0.0, 0.0, NAN, 3.5}, ys[5], ds[5], dd[5] = {1, 2, 3, 4, -5};
        dp_act_forward(ys, xs, 5, &relu);
        dp_act_backward(ds, dd, ys, 5, &relu);
        for (int i = 0; i < 4; i++) {
            ck_assert(ys[i] == 0.0 && !signbit(ys[i]));
            ck_assert(ds[i] == 0.0 && !signbit(ds[i]));
        }
        ck_assert_double_eq(ys[4], 3.5);
        ck_assert_double_eq(ds[4], -5.0);
    }
    /* s = 2, T = 2, o = 1 is tanh (Papernot et al.'s default); no overflow at +-1000 */
    dp_act ts = {DP_ACT_TSIGMOID, 2, 2, 1};
    double x[5] = {-1000, -3, 0.1, 4, 1000}, y[5];
    dp_act_forward(y, x, 5, &ts);
    for (int i = 0; i < 5; i++) ck_assert_double_eq_tol(y[i], tanh(x[i]), 1e-15);
}
END_TEST

// ---- layers-5: softmax cross-entropy -----------------------------------------------------------

typedef struct {
    double *s;
    const int *y;
    size_t B;
    int K;
} ce_ctx;

static void ce_fwd(void *p, double *out)
{
    ce_ctx *c = p;
    out[0] = dp_softmax_ce_forward(NULL, c->s, c->y, c->B, c->K);
}

START_TEST(test_softmax_ce)
{
    enum { B = 4, K = 6 };
    const int y[B] = {0, 5, 2, 2};
    dp_rng r;
    dp_rng_init(&r, 51, DP_STREAM_TEST);
    ce_ctx c = {gauss(&r, B * K, 2), y, B, K};
    double one = 1.0, out, *ds = zeros(B * K), *fs = zeros(B * K), loss[B];
    dp_softmax_ce_backward(ds, c.s, y, B, K);
    fd_grad(fs, ce_fwd, &c, c.s, B * K, &one, &out, 1);
    ck_assert_double_le(rel_err(ds, fs, B * K), FD_TOL);

    /* per-example losses against the textbook formula; their sum is returned */
    double total = dp_softmax_ce_forward(loss, c.s, y, B, K), sum = 0.0;
    for (size_t i = 0; i < B; i++) {
        double z = 0.0;
        for (int j = 0; j < K; j++) z += exp(c.s[i * K + j]);
        ck_assert_double_eq_tol(loss[i], log(z) - c.s[i * K + y[i]], 1e-13);
        sum += loss[i];
    }
    ck_assert_double_eq_tol(total, sum, 1e-13);

    /* huge logits: finite loss and gradient (log-sum-exp) */
    double big[3] = {1000.0, -1000.0, 999.0}, db[3] = {0};
    int yb = 2;
    double l = dp_softmax_ce_forward(NULL, big, &yb, 1, 3);
    dp_softmax_ce_backward(db, big, &yb, 1, 3);
    ck_assert_double_eq_tol(l, 1.0 + log1p(exp(-1.0)), 1e-12);
    for (int j = 0; j < 3; j++) ck_assert(isfinite(db[j]));
    free(c.s), free(ds), free(fs);
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test);
    return tc;
}

static Suite *layers_suite(void)
{
    Suite *s = suite_create("layers");
    suite_add_tcase(s, tcase("layers-1.1", test_dense_fd));
    suite_add_tcase(s, tcase("layers-1.2", test_dense_float));
    suite_add_tcase(s, tcase("layers-1.3", test_dense_forward_relu));
    suite_add_tcase(s, tcase("layers-1.4", test_dense_backward_relu));
    suite_add_tcase(s, tcase("layers-1.5", test_dense_weights_float));
    suite_add_tcase(s, tcase("layers-2.1", test_conv_shapes));
    suite_add_tcase(s, tcase("layers-2.2", test_conv_naive));
    suite_add_tcase(s, tcase("layers-2.3", test_conv_fd));
    suite_add_tcase(s, tcase("layers-2.4", test_conv_pex));
    suite_add_tcase(s, tcase("layers-2.5", test_conv_choose));
    suite_add_tcase(s, tcase("layers-2.6", test_conv_have_cols));
    suite_add_tcase(s, tcase("layers-3.1", test_pool_fd));
    suite_add_tcase(s, tcase("layers-3.2", test_pool_ties));
    suite_add_tcase(s, tcase("layers-3.3", test_pool_scan));
    suite_add_tcase(s, tcase("layers-4.1", test_act_fd));
    suite_add_tcase(s, tcase("layers-5.1", test_softmax_ce));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(layers_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
