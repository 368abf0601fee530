/* test_pexgrad_smooth.c: the DPlis gradient of algorithms/models/pexgrad_smooth.c (eq. 6,
 * Alg. 2) against a brute-force per-example, per-copy loop, and its reductions to
 * dp_model_clipped_grad.
 *
 * Reference: the K perturbed parameter vectors theta + z_k are rebuilt here from the
 * convention of model.h (a copy of the generator sought to p0 + k, dp_rng_add_gaussian_par
 * on one thread), loaded into a second model of the same architecture, and each example's
 * gradient at each copy comes from dp_model_loss_grad on a batch of one (checked against
 * finite differences in test_model.c); they are averaged over the copies, clipped to C
 * and summed. Both sides are exact algebra up to rounding, but every model's products
 * are float (dense.c, conv.c) and the two sides round different sums, so norms and sums
 * agree to a relative 1e-5 (test_layers.c says why that bound), losses to 1e-12.
 * Reductions: K = 1 with sigma_s = 0 is dp_model_clipped_grad bit for bit (memcmp) for a
 * model without convolutions, and so is K = 1 at sigma_s > 0 against
 * dp_model_clipped_grad at theta + z_0: the same float products of the same rows in the
 * same lanes. sigma_s = 0 with K = 3 (identical copies) agrees to 1e-5: each copy's rows
 * enter the float products scaled by c_i / 3, rounded apart from c_i, and the copies'
 * cross terms take the inputs as rounded to float. With convolutions, which
 * dp_model_clipped_grad sums lane by lane and the smoothed gradient over the whole
 * chunk, every reduction holds to 1e-5.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "tests/unit/conv_blocks.h"
#include "tests/unit/pexgrad_fixture.h"
#include "tests/unit/test_util.h"

#define FLOAT_TOL 1e-5
#define LOSS_TOL 1e-12
#define SIGMA_S 0.05 /* perturbation std: changes every gradient at the 10% level */

/* Brute force: sq (B), sum (n_params, zeroed here) and the smoothed loss, from per-example
 * gradients of ref (same architecture as the model under test) at each copy. */
static double brute(dp_model *ref, const double *theta, const batch *b, double clip, int K,
                    double sigma_s, const dp_rng *r0, double *sq, double *sum)
{
    size_t P = ref->n_params;
    double *pert = malloc((size_t)K * P * sizeof *pert);
    double *g = malloc(P * sizeof *g), *avg = malloc(P * sizeof *avg);
    ck_assert(pert && g && avg);
    for (int k = 0; k < K; k++) perturbed(pert + (size_t)k * P, theta, P, r0, k, sigma_s);
    memset(sum, 0, P * sizeof *sum);
    double loss = 0.0;
    for (size_t i = 0; i < b->B; i++) {
        memset(avg, 0, P * sizeof *avg);
        for (int k = 0; k < K; k++) {
            memcpy(ref->params, pert + (size_t)k * P, P * sizeof *g);
            memset(g, 0, P * sizeof *g);
            loss += dp_model_loss_grad(ref, b->x + i * b->d, b->y + i, 1, g) / K;
            for (size_t j = 0; j < P; j++) avg[j] += g[j];
        }
        for (size_t j = 0; j < P; j++) avg[j] /= K;
        add_clipped(avg, P, clip, &sq[i], sum);
    }
    free(pert), free(g), free(avg);
    return loss;
}

static int has_conv(const dp_model *m)
{
    for (size_t l = 0; l < m->n_layers; l++)
        if (m->layers[l].spec.kind == DP_LAYER_CONV) return 1;
    return 0;
}

/* For K in {1, 3} and C in {median, tiny (all clipped), inf}: norms, sums and loss against
 * the brute force; theta untouched bit for bit; the generator at p0 + K; accumulation. */
static void check_smooth(dp_model *m, dp_model *ref, size_t B, uint64_t seed)
{
    size_t P = m->n_params;
    const double tol = FLOAT_TOL;
    ck_assert_uint_eq(ref->n_params, P);
    batch b = make_batch(m, B, seed);
    double *sq = malloc(B * sizeof *sq), *sq_ref = malloc(B * sizeof *sq);
    double *sum = malloc(P * sizeof *sum), *ref_sum = malloc(P * sizeof *sum);
    double *theta = malloc(P * sizeof *theta);
    ck_assert(sq && sq_ref && sum && ref_sum && theta);
    memcpy(theta, m->params, P * sizeof *theta);
    dp_model_smooth s;
    ck_assert_int_eq(dp_model_smooth_init(&s, m, 3, NULL), DP_OK);

    const int Ks[2] = {1, 3};
    for (int ki = 0; ki < 2; ki++) {
        int K = Ks[ki];
        dp_rng r0 = noise_rng(seed + 17 * (uint64_t)K);
        brute(ref, theta, &b, INFINITY, K, SIGMA_S, &r0, sq_ref, ref_sum);
        const double tiny = 1e-3 * sqrt(sq_ref[0]);
        const double clips[3] = {median_norm(sq_ref, B), tiny, INFINITY};
        for (int ci = 0; ci < 3; ci++) {
            double loss_ref =
                brute(ref, theta, &b, clips[ci], K, SIGMA_S, &r0, sq_ref, ref_sum);
            dp_rng r = r0;
            memset(sum, 0, P * sizeof *sum);
            double loss = dp_model_smoothed_clipped_grad(m, &s, b.x, b.y, B, clips[ci], K,
                                                         SIGMA_S, &r, sum, sq);
            ck_assert_msg(memcmp(theta, m->params, P * sizeof *theta) == 0,
                          "theta changed (K %d, C %g)", K, clips[ci]);
            for (size_t l = 0; l < m->n_layers; l++)
                if (m->layers[l].n_w)
                    ck_assert_ptr_eq(m->layers[l].w, m->params + m->layers[l].w_off);
            ck_assert_uint_eq(r.position, r0.position + (uint64_t)K);
            for (size_t i = 0; i < B; i++)
                ck_assert_msg(fabs(sq[i] - sq_ref[i]) <= tol * sq_ref[i],
                              "K %d C %g example %zu: sqnorm %.17g, brute force %.17g", K,
                              clips[ci], i, sq[i], sq_ref[i]);
            double e = test_rel_err(sum, ref_sum, P);
            ck_assert_msg(e <= tol, "K %d C %g: clipped sum relative error %g", K,
                          clips[ci], e);
            ck_assert_double_eq_tol(loss, loss_ref, LOSS_TOL * loss_ref);
            if (ci == 1) /* every example clipped: the sum is at most B C long */
                for (size_t i = 0; i < B; i++) ck_assert_double_gt(sqrt(sq[i]), tiny);
        }
        /* accumulates: a second call with the same generator state doubles the sum (to
         * rounding: the second one adds onto a non-zero sum) */
        double *once = malloc(P * sizeof *once);
        ck_assert_ptr_nonnull(once);
        memset(sum, 0, P * sizeof *sum);
        dp_rng r = r0;
        dp_model_smoothed_clipped_grad(m, &s, b.x, b.y, B, clips[0], K, SIGMA_S, &r, sum,
                                       NULL);
        memcpy(once, sum, P * sizeof *once);
        r = r0;
        dp_model_smoothed_clipped_grad(m, &s, b.x, b.y, B, clips[0], K, SIGMA_S, &r, sum,
                                       NULL);
        for (size_t j = 0; j < P; j++) once[j] *= 2.0;
        ck_assert_double_le(test_rel_err(sum, once, P), 1e-13);
        free(once);
    }
    dp_model_smooth_destroy(&s);
    free(sq), free(sq_ref), free(sum), free(ref_sum), free(theta);
    free_batch(&b);
}

/* Sums, norms and losses the same: bit for bit when exact, else to FLOAT_TOL (loss 1e-12). */
static void check_same(const double *sum, const double *ref_sum, size_t P, const double *sq,
                       const double *sq_ref, size_t B, double loss, double loss_ref,
                       int exact, const char *what, double clip)
{
    if (exact) {
        ck_assert_msg(memcmp(sum, ref_sum, P * sizeof *sum) == 0,
                      "%s, C %g: clipped sum differs (relative %g)", what, clip,
                      test_rel_err(sum, ref_sum, P));
        ck_assert_msg(memcmp(sq, sq_ref, B * sizeof *sq) == 0, "C %g: norms differ", clip);
        ck_assert(loss == loss_ref);
        return;
    }
    ck_assert_msg(test_rel_err(sum, ref_sum, P) <= FLOAT_TOL, "%s, C %g: clipped sum relative %g",
                  what, clip, test_rel_err(sum, ref_sum, P));
    for (size_t i = 0; i < B; i++)
        ck_assert_double_le(fabs(sq[i] - sq_ref[i]), FLOAT_TOL * sq_ref[i]);
    ck_assert_double_eq_tol(loss, loss_ref, LOSS_TOL * loss_ref);
}

/* K = 1, sigma_s = 0 against dp_model_clipped_grad: sums, norms and loss bit for bit at
 * C = median, tiny and inf. Then K = 1 at sigma_s > 0 against dp_model_clipped_grad of
 * ref holding theta + z_0 (ref built with the same max_batch), again bit for bit.
 * Then sigma_s = 0, K = 3: the same to 1e-5. With convolutions: all to 1e-5 (file
 * header). */
static void check_reductions(dp_model *m, dp_model *ref, size_t B, uint64_t seed)
{
    size_t P = m->n_params;
    const int exact = !has_conv(m);
    batch b = make_batch(m, B, seed);
    double *sq = malloc(B * sizeof *sq), *sq_ref = malloc(B * sizeof *sq);
    double *sum = malloc(P * sizeof *sum), *ref_sum = malloc(P * sizeof *sum);
    ck_assert(sq && sq_ref && sum && ref_sum);
    dp_model_smooth s;
    ck_assert_int_eq(dp_model_smooth_init(&s, m, 3, NULL), DP_OK);
    ck_assert_uint_eq(s.chunk, m->max_batch); /* the chunks of dp_model_clipped_grad */

    memset(ref_sum, 0, P * sizeof *ref_sum);
    dp_model_clipped_grad(m, b.x, b.y, B, INFINITY, ref_sum, sq_ref);
    const double clips[3] = {median_norm(sq_ref, B), 1e-3 * sqrt(sq_ref[0]), INFINITY};
    dp_rng r0 = noise_rng(seed);
    for (int ci = 0; ci < 3; ci++) {
        double clip = clips[ci];
        memset(ref_sum, 0, P * sizeof *ref_sum);
        double loss_ref = dp_model_clipped_grad(m, b.x, b.y, B, clip, ref_sum, sq_ref);
        memset(sum, 0, P * sizeof *sum);
        dp_rng r = r0;
        double loss = dp_model_smoothed_clipped_grad(m, &s, b.x, b.y, B, clip, 1, 0.0, &r,
                                                     sum, sq);
        ck_assert_uint_eq(r.position, r0.position + 1);
        check_same(sum, ref_sum, P, sq, sq_ref, B, loss, loss_ref, exact, "K 1, sigma 0", clip);

        /* sigma 0, K 3: identical copies */
        memset(sum, 0, P * sizeof *sum);
        r = r0;
        loss = dp_model_smoothed_clipped_grad(m, &s, b.x, b.y, B, clip, 3, 0.0, &r, sum, sq);
        ck_assert_uint_eq(r.position, r0.position + 3);
        ck_assert_double_le(test_rel_err(sum, ref_sum, P), FLOAT_TOL);
        for (size_t i = 0; i < B; i++)
            ck_assert_double_le(fabs(sq[i] - sq_ref[i]), FLOAT_TOL * sq_ref[i]);
        ck_assert_double_eq_tol(loss, loss_ref, 1e-12 * loss_ref);

        /* K 1 at sigma_s > 0 is DP-SGD at theta + z_0 */
        perturbed(ref->params, m->params, P, &r0, 0, SIGMA_S);
        memset(ref_sum, 0, P * sizeof *ref_sum);
        loss_ref = dp_model_clipped_grad(ref, b.x, b.y, B, clip, ref_sum, sq_ref);
        memset(sum, 0, P * sizeof *sum);
        r = r0;
        loss = dp_model_smoothed_clipped_grad(m, &s, b.x, b.y, B, clip, 1, SIGMA_S, &r, sum,
                                              sq);
        check_same(sum, ref_sum, P, sq, sq_ref, B, loss, loss_ref, exact, "K 1 at theta + z_0",
                   clip);
    }
    dp_model_smooth_destroy(&s);
    free(sq), free(sq_ref), free(sum), free(ref_sum);
    free_batch(&b);
}

/* The small net of test_pexgrad.c (pexgrad_fixture.h), its second conv padded by 1. */
static const dp_layer_spec small_cnn[] = PEX_SMALL_CNN(1);

/* cnn_mnist's layer list scaled down (fewer channels, 16x16 input): the same kinds,
 * kernels, strides and paddings. */
static const dp_layer_spec mini_mnist[] = {
    {.kind = DP_LAYER_CONV, .units = 4, .kernel = 8, .stride = 2, .padding = DP_PAD_SAME},
    {.kind = DP_LAYER_ACT, .act = {DP_ACT_RELU, 0, 0, 0}},
    {.kind = DP_LAYER_MAXPOOL, .kernel = 2, .stride = 1},
    {.kind = DP_LAYER_CONV, .units = 6, .kernel = 4, .stride = 2, .padding = 0},
    {.kind = DP_LAYER_ACT, .act = {DP_ACT_RELU, 0, 0, 0}},
    {.kind = DP_LAYER_MAXPOOL, .kernel = 2, .stride = 1},
    {.kind = DP_LAYER_FLATTEN},
    {.kind = DP_LAYER_DENSE, .units = 8},
    {.kind = DP_LAYER_ACT, .act = {DP_ACT_TANH, 0, 0, 0}},
    {.kind = DP_LAYER_DENSE, .units = 10},
};

// ---- pexs-1: dense-only models --------------------------------------------------------------

START_TEST(test_mlp_tanh)
{
    dp_model m, ref;
    build_mlp(&m, "tanh", 16);
    build_mlp(&ref, "tanh", 1);
    check_smooth(&m, &ref, 13, 201);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

START_TEST(test_mlp_relu_chunks)
{
    /* B = 13 over max_batch 4: four chunks, each regenerating the same perturbations */
    dp_model m, ref;
    build_mlp(&m, "relu", 4);
    build_mlp(&ref, "relu", 1);
    check_smooth(&m, &ref, 13, 202);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

START_TEST(test_mlp_act_on_input)
{
    /* an activation straight on the input: the first dense layer's input is still shared */
    static const dp_layer_spec l[] = {
        {.kind = DP_LAYER_ACT, .act = {DP_ACT_TANH, 0, 0, 0}},
        {.kind = DP_LAYER_DENSE, .units = 5},
        {.kind = DP_LAYER_ACT, .act = {DP_ACT_RELU, 0, 0, 0}},
        {.kind = DP_LAYER_DENSE, .units = 3},
    };
    dp_model m, ref;
    ck_assert_int_eq(dp_model_build(&m, l, 4, 7, 1, 1, 3, 8, 3, NULL), DP_OK);
    ck_assert_int_eq(dp_model_build(&ref, l, 4, 7, 1, 1, 3, 1, 3, NULL), DP_OK);
    check_smooth(&m, &ref, 9, 203);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

// ---- pexs-2: convolutional models -----------------------------------------------------------

static void check_small_cnn(int method)
{
    dp_model m, ref;
    ck_assert_int_eq(dp_model_build(&m, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
    ck_assert_int_eq(dp_model_build(&ref, small_cnn, 9, 3, 9, 8, 4, 1, 3, NULL), DP_OK);
    set_conv(&m, method, method != DP_CONV_PEX_STORED);
    test_conv_small_blocks(&m);
    check_smooth(&m, &ref, 11, 204);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}

START_TEST(test_small_cnn_stored) { check_small_cnn(DP_CONV_PEX_STORED); }
END_TEST

START_TEST(test_small_cnn_direct) { check_small_cnn(DP_CONV_PEX_DIRECT); }
END_TEST

START_TEST(test_small_cnn_gram) { check_small_cnn(DP_CONV_PEX_GRAM); }
END_TEST

START_TEST(test_mini_mnist)
{
    dp_model m, ref;
    ck_assert_int_eq(dp_model_build(&m, mini_mnist, 10, 1, 16, 16, 10, 8, 4, NULL), DP_OK);
    ck_assert_int_eq(dp_model_build(&ref, mini_mnist, 10, 1, 16, 16, 10, 1, 4, NULL), DP_OK);
    check_smooth(&m, &ref, 7, 205);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

START_TEST(test_cnn_cifar)
{
    /* the full CIFAR net (DPlis Table 11's tempered sigmoid) in chunks of 2; its third
     * conv without a stored buffer, so the workspace's own per-example buffer is used */
    dp_model m, ref;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_cifar", NULL, 0, "tempered_sigmoid", 3, 32,
                                          32, 10, 2, 5, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&ref, "cnn_cifar", NULL, 0, "tempered_sigmoid", 3,
                                          32, 32, 10, 1, 5, NULL),
                     DP_OK);
    size_t third = 0;
    for (size_t l = 0, n = 0; l < m.n_layers; l++)
        if (m.layers[l].spec.kind == DP_LAYER_CONV && ++n == 3) third = l;
    m.layers[third].pex_g = NULL;
    m.layers[third].pex_method = DP_CONV_PEX_DIRECT;
    check_smooth(&m, &ref, 3, 206);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

// ---- pexs-3: reductions to dp_model_clipped_grad ---------------------------------------------

START_TEST(test_reduce_mlp)
{
    dp_model m, ref;
    build_mlp(&m, "tanh", 16);
    build_mlp(&ref, "tanh", 16);
    check_reductions(&m, &ref, 13, 301);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

/* Few outputs at a large max_batch: both dense layers' gradients split by examples
 * between the lanes (model.c), against the brute force and in the reductions. */
START_TEST(test_mlp_split_examples)
{
    dp_model m, ref, ref1;
    int hid[1] = {7};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, "tanh", 1, 4, 5, 6, 200, 1, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&ref, "mlp", hid, 1, "tanh", 1, 4, 5, 6, 1, 1, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&ref1, "mlp", hid, 1, "tanh", 1, 4, 5, 6, 200, 1,
                                          NULL),
                     DP_OK);
    ck_assert(!m.layers[1].split_rows && !m.layers[3].split_rows);
    check_smooth(&m, &ref, 13, 209);
    check_reductions(&m, &ref1, 13, 309);
    dp_model_destroy(&m), dp_model_destroy(&ref), dp_model_destroy(&ref1);
}
END_TEST

START_TEST(test_reduce_mlp_chunks)
{
    dp_model m, ref;
    build_mlp(&m, "relu", 4);
    build_mlp(&ref, "relu", 4);
    check_reductions(&m, &ref, 13, 302);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

START_TEST(test_reduce_small_cnn)
{
    /* STORED (the default here) and, for the shared first conv, DIRECT and GRAM */
    const int first[3] = {DP_CONV_PEX_STORED, DP_CONV_PEX_DIRECT, DP_CONV_PEX_GRAM};
    for (int t = 0; t < 3; t++) {
        dp_model m, ref;
        ck_assert_int_eq(dp_model_build(&m, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
        ck_assert_int_eq(dp_model_build(&ref, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
        ck_assert_int_eq(m.layers[3].pex_method, DP_CONV_PEX_STORED);
        m.layers[0].pex_method = ref.layers[0].pex_method = first[t];
        check_reductions(&m, &ref, 11, 303 + (uint64_t)t);
        dp_model_destroy(&m), dp_model_destroy(&ref);
    }
}
END_TEST

START_TEST(test_reduce_cnn_mnist)
{
    dp_model m, ref;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", NULL, 0, NULL, 1, 28, 28, 10, 6, 4,
                                          NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&ref, "cnn_mnist", NULL, 0, NULL, 1, 28, 28, 10, 6,
                                          4, NULL),
                     DP_OK);
    check_reductions(&m, &ref, 6, 306);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

START_TEST(test_reduce_unstored)
{
    /* second conv without a stored buffer: K = 1 agrees with DIRECT to float rounding */
    dp_model m;
    ck_assert_int_eq(dp_model_build(&m, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
    set_conv(&m, DP_CONV_PEX_DIRECT, 1);
    test_conv_small_blocks(&m);
    size_t P = m.n_params, B = 11;
    batch b = make_batch(&m, B, 307);
    double *sum = calloc(P, sizeof *sum), *ref = calloc(P, sizeof *ref);
    double sq[11], sq_ref[11];
    ck_assert(sum && ref);
    dp_model_smooth s;
    ck_assert_int_eq(dp_model_smooth_init(&s, &m, 1, NULL), DP_OK);
    ck_assert_ptr_nonnull(s.layer[3].g);
    dp_rng r = noise_rng(9);
    dp_model_clipped_grad(&m, b.x, b.y, B, 0.05, ref, sq_ref);
    dp_model_smoothed_clipped_grad(&m, &s, b.x, b.y, B, 0.05, 1, 0.0, &r, sum, sq);
    ck_assert_double_le(test_rel_err(sum, ref, P), FLOAT_TOL);
    for (size_t i = 0; i < B; i++)
        ck_assert_double_le(fabs(sq[i] - sq_ref[i]), FLOAT_TOL * sq_ref[i]);
    dp_model_smooth_destroy(&s);
    free(sum), free(ref);
    free_batch(&b);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_threads)
{
    /* 50,890 parameters: the perturbations span two noise chunks, drawn on two threads;
     * K = 1 must still be DP-SGD at the one-thread theta + z_0, bit for bit */
    dp_model m, ref;
    int hid[1] = {64};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, "relu", 1, 28, 28, 10, 8, 1, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&ref, "mlp", hid, 1, "relu", 1, 28, 28, 10, 8, 1,
                                          NULL),
                     DP_OK);
    ck_assert_uint_gt(m.n_params, DP_NOISE_CHUNK);
    int saved = dp_threads();
    dp_set_threads(2);
    check_reductions(&m, &ref, 8, 308);
    dp_set_threads(saved);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

// ---- pexs-4: the workspace --------------------------------------------------------------------

START_TEST(test_workspace)
{
    dp_model m;
    build_mlp(&m, "relu", 8);
    dp_model_smooth s;
    dp_err e;
    dp_err_clear(&e);
    ck_assert_int_eq(dp_model_smooth_init(&s, &m, 0, &e), DP_EINVAL);
    ck_assert_ptr_null(s.mem);
    ck_assert_ptr_nonnull(strstr(e.msg, "K >= 1"));
    dp_model_smooth_destroy(NULL);
    ck_assert_int_eq(dp_model_smooth_init(&s, &m, 4, &e), DP_OK);
    ck_assert_uint_eq(s.chunk, 8); /* tiny model: the whole max_batch fits the budget */
    ck_assert_int_eq(s.max_k, 4);
    dp_model_smooth_destroy(&s);
    dp_model_smooth_destroy(&s); /* zeroed: a no-op */
    ck_assert_ptr_null(s.mem);
    dp_model_destroy(&m);

    /* a model whose per-example workspace exceeds the budget goes in smaller chunks (K
     * copies of a 4096-wide input in float: 20,480 doubles' worth per example) */
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", (int[]){4096}, 1, "relu", 1, 28, 28, 10,
                                          512, 1, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_smooth_init(&s, &m, 10, &e), DP_OK);
    ck_assert_uint_lt(s.chunk, 512);
    ck_assert_uint_ge(s.chunk, 1);
    dp_model_smooth_destroy(&s);
    dp_model_destroy(&m);
}
END_TEST

static Suite *pexgrad_smooth_suite(void)
{
    Suite *s = suite_create("pexgrad_smooth");
    test_add_case(s, "pexs-1.1", test_mlp_tanh, 120);
    test_add_case(s, "pexs-1.2", test_mlp_relu_chunks, 120);
    test_add_case(s, "pexs-1.3", test_mlp_act_on_input, 120);
    test_add_case(s, "pexs-2.1", test_small_cnn_stored, 120);
    test_add_case(s, "pexs-2.2", test_small_cnn_direct, 120);
    test_add_case(s, "pexs-2.3", test_small_cnn_gram, 120);
    test_add_case(s, "pexs-2.4", test_mini_mnist, 120);
    test_add_case(s, "pexs-2.5", test_cnn_cifar, 300);
    test_add_case(s, "pexs-3.1", test_reduce_mlp, 120);
    test_add_case(s, "pexs-3.2", test_reduce_mlp_chunks, 120);
    test_add_case(s, "pexs-3.3", test_reduce_small_cnn, 120);
    test_add_case(s, "pexs-3.4", test_reduce_cnn_mnist, 120);
    test_add_case(s, "pexs-3.5", test_reduce_unstored, 120);
    test_add_case(s, "pexs-3.6", test_threads, 120);
    test_add_case(s, "pexs-3.7", test_mlp_split_examples, 120);
    test_add_case(s, "pexs-4.1", test_workspace, 120);
    return s;
}

int main(void) { return test_run_suite(pexgrad_smooth_suite()); }
