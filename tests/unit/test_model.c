/* test_model.c: building, initializing and differentiating the layered models of
 * algorithms/models/model.h.
 *
 * References: parameter counts worked out by hand from the published architectures
 * (model_zoo.c); central finite differences of the summed loss over every parameter
 * (h = 1e-6, relative error <= 1e-6 over the whole gradient, see test_layers.c; for the
 * 37K-parameter cnn_cifar_small, every bias and every 97th weight), the loss
 * computed in double throughout (ref_loss), which holds models with float convolutions
 * to conv.c's 1e-5; a one-chunk run as the reference for chunked runs (<= 1e-12 in
 * double, 1e-6 with float convolutions, whose weight-gradient sums are cut by chunk).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/model.h"
#include "tests/unit/pexgrad_fixture.h"
#include "tests/unit/test_util.h"

static void random_data(dp_rng *r, double *x, int *y, size_t n, size_t d, int K)
{
    for (size_t i = 0; i < n * d; i++) x[i] = dp_rng_gaussian(r);
    for (size_t i = 0; i < n; i++) y[i] = (int)dp_rng_below(r, (uint64_t)K);
}

// ---- model-1: construction ------------------------------------------------------------------

START_TEST(test_named_counts)
{
    static const struct {
        const char *name;
        int c, h, w, K;
        size_t n_params;
    } cases[] = {
        {"cnn_mnist", 1, 28, 28, 10, 26010},
        {"cnn_cifar", 3, 32, 32, 10, 550570},
        /* 16*(8*8*3) + 16, 32*(4*4*16) + 32, 800*32 + 32, 32*10 + 10 */
        {"cnn_cifar_small", 3, 32, 32, 10, 3088 + 8224 + 25632 + 330},
        {"mlp", 1, 28, 28, 10, 784 * 512 + 512 + 512 * 128 + 128 + 1290},
        {"mlp", 3, 32, 32, 10, 3072 * 1536 + 1536 + 1536 * 128 + 128 + 1290},
        {"mlp_inputpert", 14, 1, 1, 2, 14 * 14 + 14 + 15 * 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dp_model m;
        dp_err e;
        dp_err_clear(&e);
        ck_assert_int_eq(dp_model_build_named(&m, cases[i].name, NULL, 0, NULL, cases[i].c,
                                              cases[i].h, cases[i].w, cases[i].K, 4, 1, &e),
                         DP_OK);
        ck_assert_uint_eq(m.n_params, cases[i].n_params);
        ck_assert_str_eq(m.name, cases[i].name);
        ck_assert_int_eq(dp_model_fits(&m, cases[i].c, cases[i].h, cases[i].w, cases[i].K, &e),
                         DP_OK);
        dp_model_destroy(&m);
    }
    /* cnn_mnist shapes: 14x14x16 -> 13x13x16 -> 5x5x32 -> 4x4x32 = 512 -> 32 -> 10 */
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", NULL, 0, NULL, 1, 28, 28, 10, 4, 1,
                                          NULL),
                     DP_OK);
    ck_assert_int_eq(m.layers[0].out_h, 14);
    ck_assert_int_eq(m.layers[2].out_h, 13);
    ck_assert_int_eq(m.layers[3].out_h, 5);
    ck_assert_int_eq(m.layers[5].out_h, 4);
    ck_assert_uint_eq(m.layers[7].in_size, 512);
    dp_model_destroy(&m);
    /* cnn_cifar_small (the DPlis code's CIFAR-10 net): padding 2 gives
     * (32 + 4 - 8) / 2 + 1 = 15, then 14, (14 - 4) / 2 + 1 = 6, 5: 15x15x16 -> 14x14x16 ->
     * 6x6x32 -> 5x5x32 = 800 -> 32 -> 10; 37,274 parameters, whatever the activation */
    static const char *acts[] = {NULL, "tanh"};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(dp_model_build_named(&m, "cnn_cifar_small", NULL, 0, acts[k], 3, 32,
                                              32, 10, 4, 1, NULL),
                         DP_OK);
        ck_assert_uint_eq(m.n_params, 37274);
        ck_assert_uint_eq(m.n_layers, 10);
        const int oh[6] = {15, 15, 14, 6, 6, 5}, oc[6] = {16, 16, 16, 32, 32, 32};
        for (int l = 0; l < 6; l++) {
            ck_assert_int_eq(m.layers[l].out_h, oh[l]);
            ck_assert_int_eq(m.layers[l].out_w, oh[l]);
            ck_assert_int_eq(m.layers[l].out_c, oc[l]);
        }
        ck_assert_int_eq(m.layers[0].conv.pad_t, 2);
        ck_assert_int_eq(m.layers[0].conv.pad_l, 2);
        ck_assert_int_eq(m.layers[3].conv.pad_t, 0);
        ck_assert_int_eq(m.layers[1].spec.act.kind, k ? DP_ACT_TANH : DP_ACT_RELU);
        ck_assert_uint_eq(m.layers[7].in_size, 800);
        ck_assert_uint_eq(m.layers[9].out_size, 10);
        dp_model_destroy(&m);
    }
    /* explicit hidden sizes, and none (softmax regression) */
    int hid[3] = {7, 5, 3};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 3, "tanh", 2, 3, 1, 4, 4, 1, NULL),
                     DP_OK);
    ck_assert_uint_eq(m.n_params, 6 * 7 + 7 + 7 * 5 + 5 + 5 * 3 + 3 + 3 * 4 + 4);
    dp_model_destroy(&m);
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 0, NULL, 2, 3, 1, 4, 4, 1, NULL),
                     DP_OK);
    ck_assert_uint_eq(m.n_params, 6 * 4 + 4);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_build_errors)
{
    dp_model m;
    dp_err e;
    dp_err_clear(&e);
    /* class count mismatch names both */
    dp_layer_spec two[] = {{.kind = DP_LAYER_FLATTEN}, {.kind = DP_LAYER_DENSE, .units = 10}};
    ck_assert_int_eq(dp_model_build(&m, two, 2, 1, 4, 4, 3, 8, 1, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "10 values"));
    ck_assert_ptr_nonnull(strstr(e.msg, "3 classes"));
    ck_assert_ptr_null(m.params);
    ck_assert_ptr_null(m.layers);
    /* an input too small for the net names the layer's input and the data shape */
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", NULL, 0, NULL, 1, 6, 6, 10, 8, 1,
                                          &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "conv 32 4x4"));
    ck_assert_ptr_nonnull(strstr(e.msg, "16x2x2"));
    ck_assert_ptr_nonnull(strstr(e.msg, "1x6x6"));
    /* image layers after flatten */
    dp_layer_spec bad[] = {{.kind = DP_LAYER_FLATTEN},
                           {.kind = DP_LAYER_CONV, .units = 2, .kernel = 1, .stride = 1},
                           {.kind = DP_LAYER_DENSE, .units = 2}};
    ck_assert_int_eq(dp_model_build(&m, bad, 3, 1, 4, 4, 2, 8, 1, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "flat"));
    /* malformed layers and arguments */
    dp_layer_spec z[] = {{.kind = DP_LAYER_DENSE, .units = 0}};
    ck_assert_int_eq(dp_model_build(&m, z, 1, 1, 4, 4, 2, 8, 1, &e), DP_EINVAL);
    dp_layer_spec ts[] = {{.kind = DP_LAYER_ACT, .act = {DP_ACT_TSIGMOID, 0, 1, 0}},
                          {.kind = DP_LAYER_DENSE, .units = 2}};
    ck_assert_int_eq(dp_model_build(&m, ts, 2, 1, 4, 4, 2, 8, 1, &e), DP_EINVAL);
    dp_layer_spec noparam[] = {{.kind = DP_LAYER_FLATTEN}};
    ck_assert_int_eq(dp_model_build(&m, noparam, 1, 2, 1, 1, 2, 8, 1, &e), DP_EINVAL);
    ck_assert_int_eq(dp_model_build(&m, two, 2, 1, 4, 4, 10, 0, 1, &e), DP_EINVAL);
    ck_assert_int_eq(dp_model_build(&m, two, 2, 0, 4, 4, 10, 8, 1, &e), DP_EINVAL);
    ck_assert_int_eq(dp_model_build(&m, two, 0, 1, 4, 4, 10, 8, 1, &e), DP_EINVAL);
    ck_assert_int_eq(dp_model_build_named(&m, "resnet", NULL, 0, NULL, 1, 4, 4, 2, 8, 1, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "resnet"));
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", NULL, 0, "gelu", 1, 28, 28, 10, 8, 1, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "gelu"));
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", NULL, 0, NULL, 1, 5, 5, 10, 8, 1, &e),
                     DP_EINVAL);
    int h1 = 4;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", &h1, 1, NULL, 1, 28, 28, 10, 8, 1,
                                          &e),
                     DP_EINVAL);
    /* a built model against other data */
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", NULL, 0, NULL, 1, 28, 28, 10, 8, 1,
                                          &e),
                     DP_OK);
    ck_assert_int_eq(dp_model_fits(&m, 3, 32, 32, 10, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "1x28x28"));
    ck_assert_ptr_nonnull(strstr(e.msg, "3x32x32"));
    dp_model_destroy(&m);
    dp_model_destroy(&m); /* twice: a zeroed model is fine */
    dp_model_destroy(NULL);
}
END_TEST

START_TEST(test_init)
{
    dp_model a, b, c;
    int hid[1] = {50};
    ck_assert_int_eq(dp_model_build_named(&a, "mlp", hid, 1, "relu", 1, 1, 30, 10, 4, 7, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&b, "mlp", hid, 1, "relu", 1, 1, 30, 10, 4, 7, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&c, "mlp", hid, 1, "relu", 1, 1, 30, 10, 4, 8, NULL),
                     DP_OK);
    ck_assert_int_eq(memcmp(a.params, b.params, a.n_params * sizeof *a.params), 0);
    ck_assert_int_ne(memcmp(a.params, c.params, a.n_params * sizeof *a.params), 0);
    /* layer 1 (dense 50, then ReLU): He limit sqrt(6/30); layer 3 (dense 10, the logits):
     * Glorot limit sqrt(6/60); biases zero. The maxima come close to the limits. */
    const dp_layer *l1 = &a.layers[1], *l3 = &a.layers[3];
    double lim1 = sqrt(6.0 / 30), lim3 = sqrt(6.0 / 60), mx1 = 0, mx3 = 0;
    for (size_t j = 0; j < l1->n_w; j++) mx1 = fmax(mx1, fabs(l1->w[j]));
    for (size_t j = 0; j < l3->n_w; j++) mx3 = fmax(mx3, fabs(l3->w[j]));
    ck_assert(mx1 <= lim1 && mx1 > 0.95 * lim1);
    ck_assert(mx3 <= lim3 && mx3 > 0.95 * lim3);
    for (size_t j = 0; j < l1->n_b; j++) ck_assert_double_eq(l1->b[j], 0.0);
    dp_model_destroy(&a), dp_model_destroy(&b), dp_model_destroy(&c);
}
END_TEST

// ---- model-2: gradients ---------------------------------------------------------------------

/* A small net with every layer kind, on a 3-channel input (exercises CHW -> HWC): the
 * gradient tests' net (pexgrad_fixture.h) with its second conv unpadded. */
static const dp_layer_spec small_cnn[] = PEX_SMALL_CNN(0);

/* A net whose first layer is an activation (the input is copied, not written). */
static const dp_layer_spec act_first[] = {
    {.kind = DP_LAYER_ACT, .act = {DP_ACT_TANH, 0, 0, 0}},
    {.kind = DP_LAYER_DENSE, .units = 5},
    {.kind = DP_LAYER_ACT, .act = {DP_ACT_RELU, 0, 0, 0}},
    {.kind = DP_LAYER_DENSE, .units = 4},
};

/* The summed loss of the model computed in double throughout: the layers' double
 * kernels, with the 7-loop convolution in place of the float im2col one. The reference
 * of the finite differences below, so a model with convolutions is held to the float
 * tolerance of conv.c against exact derivatives (differences of the float forward itself
 * would be dominated by its rounding divided by the step). */
static double ref_loss(const dp_model *m, const double *x, const int *y, size_t B)
{
    double *cur = malloc(B * m->in_size * sizeof *cur);
    ck_assert_ptr_nonnull(cur);
    if (m->input_mode == 2) { /* CHW -> HWC, as the model does */
        size_t C = (size_t)m->in_c, HW = (size_t)m->in_h * m->in_w;
        for (size_t n = 0; n < B; n++)
            for (size_t c = 0; c < C; c++)
                for (size_t p = 0; p < HW; p++)
                    cur[n * m->in_size + p * C + c] = x[n * m->in_size + c * HW + p];
    } else {
        memcpy(cur, x, B * m->in_size * sizeof *cur);
    }
    for (size_t i = 0; i < m->n_layers; i++) {
        const dp_layer *l = &m->layers[i];
        double *next = NULL;
        switch (l->spec.kind) {
        case DP_LAYER_DENSE:
            next = malloc(B * l->out_size * sizeof *next);
            dp_dense_forward_ref(next, cur, l->w, l->b, B, l->in_size, l->out_size);
            break;
        case DP_LAYER_CONV:
            next = malloc(B * l->out_size * sizeof *next);
            dp_conv2d_forward_naive(next, cur, l->w, l->b, B, &l->conv);
            break;
        case DP_LAYER_MAXPOOL: {
            next = malloc(B * l->out_size * sizeof *next);
            int *am = malloc(B * l->out_size * sizeof *am);
            dp_maxpool_forward(next, am, cur, B, &l->pool);
            free(am);
            break;
        }
        case DP_LAYER_ACT: dp_act_forward(cur, cur, B * l->out_size, &l->spec.act); break;
        case DP_LAYER_FLATTEN: break;
        }
        if (next) free(cur), cur = next;
    }
    double loss = dp_softmax_ce_forward(NULL, cur, y, B, m->n_classes);
    free(cur);
    return loss;
}

/* The model's gradient against central differences (h = 1e-6) of ref_loss. */
static void check_fd(const dp_layer_spec *spec, size_t n, int c, int h, int w, double tol)
{
    enum { B = 3, K = 4 };
    dp_model m;
    ck_assert_int_eq(dp_model_build(&m, spec, n, c, h, w, K, 8, 5, NULL), DP_OK);
    size_t d = m.in_size, P = m.n_params;
    double *x = malloc(B * d * sizeof *x), *x0 = malloc(B * d * sizeof *x);
    double *g = calloc(P, sizeof *g), *fd = calloc(P, sizeof *fd);
    int y[B];
    dp_rng r;
    dp_rng_init(&r, 77, DP_STREAM_TEST);
    random_data(&r, x, y, B, d, K);
    for (size_t j = 0; j < P; j++) m.params[j] += 0.1 * dp_rng_gaussian(&r); /* nonzero biases */
    memcpy(x0, x, B * d * sizeof *x);
    double loss = dp_model_loss_grad(&m, x, y, B, g);
    ck_assert_int_eq(memcmp(x, x0, B * d * sizeof *x), 0); /* input untouched */
    double ml;
    ck_assert_int_eq(dp_model_evaluate(&m, x, y, B, &ml, NULL), DP_OK);
    ck_assert_double_eq_tol(loss, ml * B, 1e-12 * loss); /* the same forward */
    ck_assert_double_le(fabs(ref_loss(&m, x, y, B) - loss), tol * loss);
    const double h6 = 1e-6;
    for (size_t j = 0; j < P; j++) {
        double keep = m.params[j];
        m.params[j] = keep + h6;
        double lp = ref_loss(&m, x, y, B);
        m.params[j] = keep - h6;
        double lm = ref_loss(&m, x, y, B);
        m.params[j] = keep;
        fd[j] = (lp - lm) / (2 * h6);
    }
    ck_assert_double_le(test_rel_err(g, fd, P), tol);
    free(x), free(x0), free(g), free(fd);
    dp_model_destroy(&m);
}

/* A built model's gradient at every stride-th weight and every bias against central
 * differences of ref_loss (too many parameters for all of them: each difference is two
 * forward passes of the 7-loop convolution). */
static void check_fd_sampled(dp_model *m, size_t stride, double tol)
{
    enum { B = 2 };
    size_t d = m->in_size, P = m->n_params, n = 0;
    double *x = malloc(B * d * sizeof *x), *g = calloc(P, sizeof *g);
    double *gs = malloc(P * sizeof *gs), *fd = malloc(P * sizeof *fd);
    int y[B];
    ck_assert(x && g && gs && fd);
    dp_rng r;
    dp_rng_init(&r, 81, DP_STREAM_TEST);
    random_data(&r, x, y, B, d, m->n_classes);
    for (size_t j = 0; j < P; j++) m->params[j] += 0.1 * dp_rng_gaussian(&r);
    double loss = dp_model_loss_grad(m, x, y, B, g);
    ck_assert_double_le(fabs(ref_loss(m, x, y, B) - loss), tol * loss);
    for (size_t l = 0; l < m->n_layers; l++) {
        const dp_layer *L = &m->layers[l];
        for (size_t j = L->w_off; L->n_w && j < L->b_off + L->n_b; j++) {
            if (j < L->b_off && (j - L->w_off) % stride != 0) continue;
            double keep = m->params[j];
            m->params[j] = keep + 1e-6;
            double lp = ref_loss(m, x, y, B);
            m->params[j] = keep - 1e-6;
            double lm = ref_loss(m, x, y, B);
            m->params[j] = keep;
            gs[n] = g[j];
            fd[n++] = (lp - lm) / 2e-6;
        }
    }
    ck_assert_uint_gt(n, P / stride);
    ck_assert_double_le(test_rel_err(gs, fd, n), tol);
    free(x), free(g), free(gs), free(fd);
}

/* float dense layers and convolutions (dense.c, conv.c): 1e-5 */
START_TEST(test_fd_small_cnn) { check_fd(small_cnn, 9, 3, 9, 8, 1e-5); }
END_TEST

START_TEST(test_fd_act_first) { check_fd(act_first, 4, 2, 3, 1, 1e-5); }
END_TEST

START_TEST(test_fd_named)
{
    /* the named nets on shrunken inputs with each activation */
    enum { B = 2 };
    static const char *acts[] = {"relu", "tanh", "tempered_sigmoid", "sigmoid"};
    for (int k = 0; k < 4; k++) {
        dp_model m;
        int hid[2] = {6, 5};
        ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 2, acts[k], 2, 2, 2, 3, 8, 3,
                                              NULL),
                         DP_OK);
        size_t P = m.n_params, d = m.in_size;
        double x[B * 8], *g = calloc(P, sizeof *g), *fd = calloc(P, sizeof *fd);
        int y[B];
        dp_rng r;
        dp_rng_init(&r, 90 + (uint64_t)k, DP_STREAM_TEST);
        random_data(&r, x, y, B, d, 3);
        /* nonzero biases: with zero ones a unit whose inputs are all cut by ReLU would sit
         * exactly on the kink, where central differences see half a derivative */
        for (size_t j = 0; j < P; j++) m.params[j] += 0.1 * dp_rng_gaussian(&r);
        dp_model_loss_grad(&m, x, y, B, g);
        for (size_t j = 0; j < P; j++) {
            double keep = m.params[j];
            m.params[j] = keep + 1e-6;
            double lp = ref_loss(&m, x, y, B);
            m.params[j] = keep - 1e-6;
            double lm = ref_loss(&m, x, y, B);
            m.params[j] = keep;
            fd[j] = (lp - lm) / 2e-6;
        }
        ck_assert_double_le(test_rel_err(g, fd, P), 1e-5);
        free(g), free(fd);
        dp_model_destroy(&m);
    }
}
END_TEST

/* cnn_cifar_small at its real input shape, both activations: every bias and every 97th
 * weight against central differences, to conv.c's float tolerance. */
START_TEST(test_fd_cifar_small)
{
    static const char *acts[] = {"relu", "tanh"};
    for (int k = 0; k < 2; k++) {
        dp_model m;
        ck_assert_int_eq(dp_model_build_named(&m, "cnn_cifar_small", NULL, 0, acts[k], 3, 32,
                                              32, 10, 2, 6 + (uint64_t)k, NULL),
                         DP_OK);
        check_fd_sampled(&m, 97, 1e-5);
        dp_model_destroy(&m);
    }
}
END_TEST

/* Chunks of max_batch give the one-chunk result; the gradient accumulates. */
START_TEST(test_chunks)
{
    enum { N = 11, K = 4 };
    dp_model a, b;
    ck_assert_int_eq(dp_model_build(&a, small_cnn, 9, 3, 9, 8, K, N, 5, NULL), DP_OK);
    ck_assert_int_eq(dp_model_build(&b, small_cnn, 9, 3, 9, 8, K, 3, 5, NULL), DP_OK);
    size_t d = a.in_size, P = a.n_params;
    double *x = malloc(N * d * sizeof *x), *ga = calloc(P, sizeof *ga), *gb = calloc(P, sizeof *gb);
    int y[N];
    dp_rng r;
    dp_rng_init(&r, 78, DP_STREAM_TEST);
    random_data(&r, x, y, N, d, K);
    double la = dp_model_loss_grad(&a, x, y, N, ga);
    double lb = dp_model_loss_grad(&b, x, y, N, gb);
    ck_assert_double_eq_tol(la, lb, 1e-12 * la); /* per-example forwards: the same */
    ck_assert_double_le(test_rel_err(gb, ga, P), 1e-6); /* float weight-gradient sums */
    dp_model_loss_grad(&b, x, y, N, gb);
    for (size_t j = 0; j < P; j++) ga[j] *= 2.0;
    ck_assert_double_le(test_rel_err(gb, ga, P), 1e-6); /* accumulated, not overwritten */
    free(x), free(ga), free(gb);
    dp_model_destroy(&a), dp_model_destroy(&b);
}
END_TEST

/* model-2.6: the float parameters a caller declares fresh (dp_model_float_params_fresh).
 * Written as params rounded, they give the bits of the model's own rounding; declared
 * fresh while they differ, they are what the dense layers compute with (so the shortcut
 * is live, and a caller that forgot to clear it would be caught); cleared, the model
 * rounds again. DPlis's perturbed copies clear the flag and round themselves. */
START_TEST(test_float_params_fresh)
{
    enum { N = 13, K = 3 };
    dp_model m;
    int hid[1] = {20};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, "relu", 1, 4, 5, K, 16, 3, NULL),
                     DP_OK);
    size_t P = m.n_params, d = m.in_size;
    double x[N * 20], *g0 = calloc(P, sizeof *g0), *g = calloc(P, sizeof *g);
    int y[N];
    dp_rng r;
    dp_rng_init(&r, 80, DP_STREAM_TEST);
    random_data(&r, x, y, N, d, K);
    ck_assert(g0 && g);
    ck_assert_int_eq(m.wf_fresh, 0); /* as built */
    double l0 = dp_model_loss_grad(&m, x, y, N, g0);
    float *pf = dp_model_float_params(&m);
    for (size_t j = 0; j < P; j++) pf[j] = (float)m.params[j];
    dp_model_float_params_fresh(&m, 1);
    double l = dp_model_loss_grad(&m, x, y, N, g);
    ck_assert_mem_eq(&l, &l0, sizeof l);
    ck_assert_mem_eq(g, g0, P * sizeof *g);
    ck_assert_int_eq(m.wf_fresh, 1); /* a pass leaves it */
    for (size_t j = 0; j < P; j++) pf[j] *= 2.0f; /* stale: no longer params */
    memset(g, 0, P * sizeof *g);
    l = dp_model_loss_grad(&m, x, y, N, g);
    ck_assert(l != l0);
    dp_model_float_params_fresh(&m, 0);
    memset(g, 0, P * sizeof *g);
    l = dp_model_loss_grad(&m, x, y, N, g);
    ck_assert_mem_eq(&l, &l0, sizeof l);
    ck_assert_mem_eq(g, g0, P * sizeof *g);

    /* DPlis at sigma_s > 0: the same with stale float parameters declared fresh */
    dp_model_smooth s;
    ck_assert_int_eq(dp_model_smooth_init(&s, &m, 2, NULL), DP_OK);
    double sums[2][500];
    ck_assert_uint_le(P, 500);
    for (int stale = 0; stale < 2; stale++) {
        if (stale) {
            for (size_t j = 0; j < P; j++) pf[j] = 2.0f * (float)m.params[j];
            dp_model_float_params_fresh(&m, 1);
        }
        dp_rng nr = noise_rng(81);
        memset(sums[stale], 0, sizeof sums[stale]);
        dp_model_smoothed_clipped_grad(&m, &s, x, y, N, 0.5, 2, 0.1, &nr, sums[stale], NULL);
        ck_assert_int_eq(m.wf_fresh, 0);
    }
    ck_assert_mem_eq(sums[0], sums[1], P * sizeof sums[0][0]);
    dp_model_smooth_destroy(&s);
    free(g0), free(g);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_evaluate)
{
    enum { N = 23, K = 5 };
    dp_model m;
    int hid[1] = {8};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, NULL, 1, 1, 6, K, 4, 9, NULL),
                     DP_OK);
    double x[N * 6], ml, acc;
    int y[N];
    dp_rng r;
    dp_rng_init(&r, 79, DP_STREAM_TEST);
    random_data(&r, x, y, N, 6, K);
    ck_assert_int_eq(dp_model_evaluate(&m, x, y, N, &ml, &acc), DP_OK);
    /* reference: per-example forward through evaluate on one example at a time; the
     * prediction is the label whose one-example loss is smallest */
    double tot = 0.0;
    int correct = 0, pred[N];
    dp_model_predict(&m, x, N, pred); /* PATE's teachers vote with it */
    for (int i = 0; i < N; i++) {
        double li[K], l;
        int best = 0;
        for (int k = 0; k < K; k++) {
            dp_model_evaluate(&m, x + 6 * i, &k, 1, &li[k], NULL);
            if (li[k] < li[best]) best = k;
        }
        ck_assert_int_eq(pred[i], best);
        dp_model_evaluate(&m, x + 6 * i, &y[i], 1, &l, NULL);
        tot += l;
        correct += best == y[i];
    }
    ck_assert_double_eq_tol(ml, tot / N, 1e-12);
    ck_assert_double_eq_tol(acc, (double)correct / N, 1e-15);
    y[3] = K;
    ck_assert_int_eq(dp_model_evaluate(&m, x, y, N, &ml, &acc), DP_EINVAL);
    ck_assert_int_eq(dp_model_evaluate(&m, x, y, 0, &ml, &acc), DP_OK);
    ck_assert(isnan(ml) && isnan(acc));
    dp_model_destroy(&m);
}
END_TEST

static Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    test_add_case(s, "model-1.1", test_named_counts, 60);
    test_add_case(s, "model-1.2", test_build_errors, 60);
    test_add_case(s, "model-1.3", test_init, 60);
    test_add_case(s, "model-2.1", test_fd_small_cnn, 60);
    test_add_case(s, "model-2.2", test_fd_act_first, 60);
    test_add_case(s, "model-2.3", test_fd_named, 60);
    test_add_case(s, "model-2.4", test_chunks, 60);
    test_add_case(s, "model-2.5", test_fd_cifar_small, 60);
    test_add_case(s, "model-2.6", test_float_params_fresh, 60);
    test_add_case(s, "model-3.1", test_evaluate, 60);
    return s;
}

int main(void) { return test_run_suite(model_suite()); }
