/* conv.c: 2-D convolution (stride, zero padding) by im2col + GEMM in single precision, and
 * its exact per-example gradient norms.
 *
 * Sources: im2col lowering as in Caffe (Jia et al. 2014; Chellapilla et al. 2006), laid out
 * for NHWC like TensorFlow's Conv2D, whose "same"/"valid" padding rule dp_conv_shape_init
 * reproduces (tf.nn.convolution docs: out = ceil(in / stride), the extra padding row or
 * column goes at the bottom/right). Per-example norms: Goodfellow (2015) for the direct
 * per-example product; Li et al. 2022 ("Large language models can be strong
 * differentially private learners", ghost clipping) for the Gram-matrix form.
 *
 * Layout: a block of nb examples becomes cols (nb*P, K), one row per output pixel
 * (P = OH*OW), columns ordered (ky, kx, c) so each kernel tap reads C contiguous input
 * values. Then out = cols W^T (one GEMM), dW += dout^T cols, dcols = dout W followed by
 * a scatter-add (col2im). Blocks bound the workspace; the caller picks the block size
 * (dp_conv_ws) from a memory budget.
 *
 * Precision (house rule 11, "float where speed matters"; DESIGN.md, Performance): the
 * layer's interface is double (inputs, weights, outputs, errors, gradients), its products
 * are single precision: patches, weights and errors are rounded to float where they
 * enter a GEMM (im2col does it while copying), every GEMM is sgemm, and each result is
 * added to the double output or gradient. sgemm runs at twice dgemm's rate and the float
 * patches are half the memory traffic; on cnn_mnist this layer is most of a step. The
 * cost is float rounding of the products: about 1e-7 relative per entry, and a weight
 * gradient summed over at most DP_CONV_SUM_ROWS patches in float before it goes into
 * double, so a large batch does not lengthen the float sums. Tests hold the layer to
 * 1e-5 relative error against double references (the 7-loop convolution, central
 * finite differences of it, per-example brute force). The dense layer does the same
 * (dense.c); pooling, activations, the loss and the norms stay double.
 *
 * Per-example methods (exact up to that rounding; each tested against a brute-force
 * per-example loop): example i's weight gradient is G_i = dout_i^T U_i (OC,K) with
 * dout_i (P,OC) and its patches U_i (P,K) contiguous rows of dout and cols.
 *   DIRECT forms G_i with one GEMM per example (2 OC K P flops, the flops of its share of
 *     the batch dW) and takes its norm;
 *   GRAM uses ||G_i||^2 = <dout_i dout_i^T, U_i U_i^T>, 2 P^2 (OC + K) flops;
 *   STORED (dp_conv2d_pex_grads) is DIRECT keeping every G_i, so the clipped sum is one
 *     GEMV over them instead of a second dW pass; the model uses it while the stored
 *     gradients fit its memory budget (model.c).
 * Measured on cnn_mnist, batch 256, OpenBLAS Haswell kernels, 2 threads, time of a
 * clipped step over a plain one (double version of this file): STORED 1.11, DIRECT 1.32,
 * GRAM 1.87 (its first layer, P = 196, K = 64, makes the P x P Gram products 3.5x the
 * direct flops; on the second, P = 25, they tie). GRAM wins by flops only on late CIFAR
 * layers (P = 64, OC = 128, K = 1152); dp_conv_pex_choose picks DIRECT or GRAM by flops.
 */
#include "algorithms/models/layers.h"

#include <assert.h>
#include <string.h>

#include "algorithms/base/vec.h"

/* Patch rows whose products one float GEMM sums before the result is added into a double
 * weight gradient: bounds the float summation length whatever the batch. */
#define DP_CONV_SUM_ROWS DP_CONV_SUM_TERMS

int dp_conv_shape_init(dp_conv_shape *s, int c, int h, int w, int oc, int kh, int kw,
                       int stride, int pad)
{
    memset(s, 0, sizeof *s);
    if (c < 1 || h < 1 || w < 1 || oc < 1 || kh < 1 || kw < 1 || stride < 1) return -1;
    s->c = c, s->h = h, s->w = w, s->oc = oc, s->kh = kh, s->kw = kw, s->stride = stride;
    if (pad < 0) {
        /* TensorFlow "same": out = ceil(in / stride); the odd padding element goes last. */
        s->oh = (h + stride - 1) / stride;
        s->ow = (w + stride - 1) / stride;
        int th = (s->oh - 1) * stride + kh - h, tw = (s->ow - 1) * stride + kw - w;
        s->pad_t = th > 0 ? th / 2 : 0;
        s->pad_l = tw > 0 ? tw / 2 : 0;
    } else {
        s->pad_t = s->pad_l = pad;
        int eh = h + 2 * pad - kh, ew = w + 2 * pad - kw;
        if (eh < 0 || ew < 0) return -1;
        s->oh = eh / stride + 1;
        s->ow = ew / stride + 1;
    }
    return s->oh >= 1 && s->ow >= 1 ? 0 : -1;
}

size_t dp_conv_patches(const dp_conv_shape *s) { return (size_t)s->oh * (size_t)s->ow; }

size_t dp_conv_k(const dp_conv_shape *s) { return (size_t)s->kh * (size_t)s->kw * (size_t)s->c; }

// ---- workspace ------------------------------------------------------------------------------

/* Floats of the per-example product: G_i (OC,K) for DIRECT, two P x P Grams for GRAM; the
 * batch dW (OC,K) uses its start. */
static size_t g_floats(const dp_conv_shape *s)
{
    size_t P = dp_conv_patches(s), gk = (size_t)s->oc * dp_conv_k(s);
    return 2 * P * P > gk ? 2 * P * P : gk;
}

size_t dp_conv_ws_floats(const dp_conv_shape *s, size_t block)
{
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    return block * P * (2 * K + OC) + OC * K + g_floats(s);
}

void dp_conv_ws_init(dp_conv_ws *ws, float *mem, const dp_conv_shape *s, size_t block)
{
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    ws->block = block;
    ws->cols = mem, mem += block * P * K;
    ws->dcols = mem, mem += block * P * K;
    ws->d = mem, mem += block * P * OC;
    ws->w = mem, mem += OC * K;
    ws->g = mem;
}

static void to_float(float *dst, const double *src, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = (float)src[i];
}

/* dst (n) += src, float into double */
static void add_float(double *dst, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] += (double)src[i];
}

static double dot_float(const float *x, const float *y, size_t n)
{
    double acc = 0.0;
    for (size_t i = 0; i < n; i++) acc += (double)x[i] * (double)y[i];
    return acc;
}

// ---- im2col / col2im ----------------------------------------------------------------------

/* cols (nb*P, K) <- patches of inp (nb,H,W,C) rounded to float; zeros where the window
 * leaves the input. A kernel row inside the input is KW*C contiguous values (HWC). */
static void im2col(float *cols, const double *inp, size_t nb, const dp_conv_shape *s)
{
    size_t C = (size_t)s->c, K = dp_conv_k(s), in_sz = (size_t)s->h * s->w * C;
    size_t run = (size_t)s->kw * C;
    for (size_t n = 0; n < nb; n++) {
        const double *x = inp + n * in_sz;
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++) {
                float *row = cols + ((n * s->oh + oy) * s->ow + ox) * K;
                int ix0 = ox * s->stride - s->pad_l;
                int inside = ix0 >= 0 && ix0 + s->kw <= s->w;
                for (int ky = 0; ky < s->kh; ky++) {
                    int iy = oy * s->stride - s->pad_t + ky;
                    float *dst = row + (size_t)ky * run;
                    if (iy < 0 || iy >= s->h) {
                        memset(dst, 0, run * sizeof *dst);
                    } else if (inside) {
                        to_float(dst, x + ((size_t)iy * s->w + ix0) * C, run);
                    } else {
                        for (int kx = 0; kx < s->kw; kx++) {
                            int ix = ix0 + kx;
                            if (ix < 0 || ix >= s->w)
                                memset(dst + kx * C, 0, C * sizeof *dst);
                            else
                                to_float(dst + kx * C, x + ((size_t)iy * s->w + ix) * C, C);
                        }
                    }
                }
            }
    }
}

/* dinp (nb,H,W,C) += the patches of cols (nb*P, K) added back where they came from. */
static void col2im(double *dinp, const float *cols, size_t nb, const dp_conv_shape *s)
{
    size_t C = (size_t)s->c, K = dp_conv_k(s), in_sz = (size_t)s->h * s->w * C;
    size_t run = (size_t)s->kw * C;
    for (size_t n = 0; n < nb; n++) {
        double *dx = dinp + n * in_sz;
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++) {
                const float *row = cols + ((n * s->oh + oy) * s->ow + ox) * K;
                int ix0 = ox * s->stride - s->pad_l;
                /* the in-range part of each kernel row is one contiguous run */
                int kx0 = ix0 < 0 ? -ix0 : 0;
                int kx1 = ix0 + s->kw > s->w ? s->w - ix0 : s->kw;
                if (kx1 <= kx0) continue;
                for (int ky = 0; ky < s->kh; ky++) {
                    int iy = oy * s->stride - s->pad_t + ky;
                    if (iy < 0 || iy >= s->h) continue;
                    add_float(dx + ((size_t)iy * s->w + ix0 + kx0) * C,
                              row + (size_t)ky * run + (size_t)kx0 * C,
                              (size_t)(kx1 - kx0) * C);
                }
            }
    }
}

// ---- forward / backward -------------------------------------------------------------------

void dp_conv2d_forward(double *out, dp_conv_ws *ws, const double *inp, const double *w,
                       const double *b, size_t B, const dp_conv_shape *s, int have_cols)
{
    // inp is (B,H,W,C), w is (OC,K), b is (OC), out is (B,OH,OW,OC)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c;
    assert(!have_cols || B <= ws->block);
    to_float(ws->w, w, OC * K);
    for (size_t n0 = 0; n0 < B; n0 += ws->block) {
        size_t nb = B - n0 < ws->block ? B - n0 : ws->block, rows = nb * P;
        double *o = out + n0 * P * OC;
        if (!have_cols) im2col(ws->cols, inp + n0 * in_sz, nb, s);
        dp_sgemm(0, 1, rows, OC, K, 1.0f, ws->cols, K, ws->w, K, 0.0f, ws->d, OC);
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < OC; c++) o[r * OC + c] = b[c] + (double)ws->d[r * OC + c];
    }
}

void dp_conv2d_backward(double *dinp, double *dw, double *db, dp_conv_ws *ws,
                        const double *dout, const double *inp, const double *w, size_t B,
                        const dp_conv_shape *s, int have_cols)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), w (OC,K); dinp (B,H,W,C), dw (OC,K), db (OC)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c;
    assert(!have_cols || B <= ws->block);
    assert(!dinp || (ws->w && ws->dcols));
    if (dinp) to_float(ws->w, w, OC * K);
    for (size_t n0 = 0; n0 < B; n0 += ws->block) {
        size_t nb = B - n0 < ws->block ? B - n0 : ws->block, rows = nb * P;
        const double *d = dout + n0 * P * OC;
        if (dw || dinp) to_float(ws->d, d, rows * OC);
        if (dw) {
            if (!have_cols) im2col(ws->cols, inp + n0 * in_sz, nb, s);
            for (size_t r0 = 0; r0 < rows; r0 += DP_CONV_SUM_ROWS) {
                size_t nr = rows - r0 < DP_CONV_SUM_ROWS ? rows - r0 : DP_CONV_SUM_ROWS;
                dp_sgemm(1, 0, OC, K, nr, 1.0f, ws->d + r0 * OC, OC, ws->cols + r0 * K, K,
                         0.0f, ws->g, K);
                add_float(dw, ws->g, OC * K);
            }
        }
        if (db)
            for (size_t r = 0; r < rows; r++)
                for (size_t o = 0; o < OC; o++) db[o] += d[r * OC + o];
        if (dinp) {
            dp_sgemm(0, 0, rows, K, OC, 1.0f, ws->d, OC, ws->w, K, 0.0f, ws->dcols, K);
            col2im(dinp + n0 * in_sz, ws->dcols, nb, s);
        }
    }
}

// ---- per-example norms ----------------------------------------------------------------------

int dp_conv_pex_choose(const dp_conv_shape *s)
{
    double P = (double)dp_conv_patches(s), K = (double)dp_conv_k(s), OC = s->oc;
    return P * P * (OC + K) < OC * K * P ? DP_CONV_PEX_GRAM : DP_CONV_PEX_DIRECT;
}

/* bias (OC) = sum over the P pixels of example i's error d (P, OC), in double */
/* bias (OC) = (add: +=) the sum over the P pixels of d (P, OC). */
static void bias_grad(double *bias, const double *d, size_t P, size_t OC, int add)
{
    if (!add) memset(bias, 0, OC * sizeof *bias);
    for (size_t p = 0; p < P; p++)
        for (size_t o = 0; o < OC; o++) bias[o] += d[p * OC + o];
}

void dp_conv2d_pex_sqnorm(double *sqnorm, dp_conv_ws *ws, const double *dout,
                          const double *inp, size_t B, const dp_conv_shape *s, int method,
                          int have_cols)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), sqnorm (B)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c;
    assert(!have_cols || B <= ws->block);
    for (size_t n0 = 0; n0 < B; n0 += ws->block) {
        size_t nb = B - n0 < ws->block ? B - n0 : ws->block;
        if (!have_cols) im2col(ws->cols, inp + n0 * in_sz, nb, s);
        to_float(ws->d, dout + n0 * P * OC, nb * P * OC);
        for (size_t n = 0; n < nb; n++) {
            const float *d = ws->d + n * P * OC; /* (P, OC) */
            const float *u = ws->cols + n * P * K; /* (P, K) */
            double sq, bsq = 0.0;
            if (method == DP_CONV_PEX_GRAM) {
                float *gu = ws->g, *gd = ws->g + P * P;
                dp_sgemm(0, 1, P, P, K, 1.0f, u, K, u, K, 0.0f, gu, P);
                dp_sgemm(0, 1, P, P, OC, 1.0f, d, OC, d, OC, 0.0f, gd, P);
                sq = dot_float(gu, gd, P * P);
            } else {
                dp_sgemm(1, 0, OC, K, P, 1.0f, d, OC, u, K, 0.0f, ws->g, K);
                sq = dot_float(ws->g, ws->g, OC * K);
            }
            const double *dd = dout + (n0 + n) * P * OC;
            for (size_t o = 0; o < OC; o++) {
                double acc = 0.0;
                for (size_t p = 0; p < P; p++) acc += dd[p * OC + o];
                bsq += acc * acc;
            }
            sqnorm[n0 + n] += sq + bsq;
        }
    }
}

void dp_conv2d_pex_grads(double *g, double *sqnorm, dp_conv_ws *ws, const double *dout,
                         const double *inp, size_t B, const dp_conv_shape *s, int have_cols)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), g (B, OC*K + OC)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c, row = OC * K + OC;
    assert(!have_cols || B <= ws->block);
    for (size_t n0 = 0; n0 < B; n0 += ws->block) {
        size_t nb = B - n0 < ws->block ? B - n0 : ws->block;
        if (!have_cols) im2col(ws->cols, inp + n0 * in_sz, nb, s);
        to_float(ws->d, dout + n0 * P * OC, nb * P * OC);
        for (size_t n = 0; n < nb; n++) {
            double *gi = g + (n0 + n) * row;
            dp_sgemm(1, 0, OC, K, P, 1.0f, ws->d + n * P * OC, OC, ws->cols + n * P * K, K,
                     0.0f, ws->g, K);
            double sq = 0.0;
            for (size_t j = 0; j < OC * K; j++) {
                gi[j] = (double)ws->g[j];
                sq += gi[j] * gi[j];
            }
            bias_grad(gi + OC * K, dout + (n0 + n) * P * OC, P, OC, 0);
            for (size_t o = 0; o < OC; o++) sq += gi[OC * K + o] * gi[OC * K + o];
            if (sqnorm) sqnorm[n0 + n] += sq; /* while the row is in cache */
        }
    }
}

void dp_conv2d_pex_grads_sum(float *gw, double *g, dp_conv_ws *ws, const double *dout,
                             const double *inp, size_t B, const dp_conv_shape *s, int have_cols,
                             int first)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), gw (B, OC*K), g (B, OC*K + OC)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c, row = OC * K + OC;
    assert(!have_cols || B <= ws->block);
    for (size_t n0 = 0; n0 < B; n0 += ws->block) {
        size_t nb = B - n0 < ws->block ? B - n0 : ws->block;
        if (!have_cols) im2col(ws->cols, inp + n0 * in_sz, nb, s);
        to_float(ws->d, dout + n0 * P * OC, nb * P * OC);
        for (size_t n = 0; n < nb; n++) {
            dp_sgemm(1, 0, OC, K, P, 1.0f, ws->d + n * P * OC, OC, ws->cols + n * P * K, K,
                     first ? 0.0f : 1.0f, gw + (n0 + n) * OC * K, K);
            bias_grad(g + (n0 + n) * row + OC * K, dout + (n0 + n) * P * OC, P, OC, !first);
        }
    }
}

void dp_conv2d_pex_grads_finish(double *g, const float *gw, size_t B, const dp_conv_shape *s)
{
    size_t OK = (size_t)s->oc * dp_conv_k(s), row = OK + (size_t)s->oc;
    for (size_t n = 0; n < B; n++) dp_to_double(g + n * row, gw + n * OK, OK);
}

// ---- reference ------------------------------------------------------------------------------

void dp_conv2d_forward_naive(double *out, const double *inp, const double *w,
                             const double *b, size_t B, const dp_conv_shape *s)
{
    // inp is (B,H,W,C), w is (OC,KH,KW,C), b (OC), out (B,OH,OW,OC)
    size_t C = (size_t)s->c, in_sz = (size_t)s->h * s->w * C;
    for (size_t n = 0; n < B; n++)
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++)
                for (int o = 0; o < s->oc; o++) {
                    double acc = b[o];
                    for (int ky = 0; ky < s->kh; ky++)
                        for (int kx = 0; kx < s->kw; kx++) {
                            int iy = oy * s->stride - s->pad_t + ky;
                            int ix = ox * s->stride - s->pad_l + kx;
                            if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w) continue;
                            for (size_t c = 0; c < C; c++)
                                acc += w[(((size_t)o * s->kh + ky) * s->kw + kx) * C + c] *
                                       inp[n * in_sz + ((size_t)iy * s->w + ix) * C + c];
                        }
                    out[((n * s->oh + oy) * s->ow + ox) * s->oc + o] = acc;
                }
}
