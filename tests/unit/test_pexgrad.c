/* test_pexgrad.c: per-example gradient norms and clipped gradient sums of
 * algorithms/models/pexgrad.c against a brute-force per-example loop.
 *
 * Reference: for each example alone, its full gradient from dp_model_loss_grad (itself
 * checked against finite differences in test_model.c), its norm, the clip factor
 * min(1, C / ||g_i||) and the sum (Abadi et al. 2016, Alg. 1). Both sides are exact
 * algebra up to rounding, but every model's products are float (dense.c, conv.c) and the
 * two sides round different sums (one example's gradient, or the batch's in one GEMM),
 * so norms and sums agree to a relative 1e-5 (test_layers.c says why that bound).
 * Invariance: with C = inf the clipped sum is the plain batch gradient bit for bit (the
 * same passes and calls: no factor is applied when none clips), and the gradient split
 * between double and float adds up to the unsplit one bit for bit.
 * Lanes (model.h): the thread count changes no bit of a result.
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

/* Brute force: sq (B) and sum (n_params, zeroed here) of the clipped gradients. */
static void brute(dp_model *m, const batch *b, double clip, double *sq, double *sum)
{
    size_t P = m->n_params;
    double *g = malloc(P * sizeof *g);
    ck_assert_ptr_nonnull(g);
    memset(sum, 0, P * sizeof *sum);
    for (size_t i = 0; i < b->B; i++) {
        memset(g, 0, P * sizeof *g);
        dp_model_loss_grad(m, b->x + i * b->d, b->y + i, 1, g);
        add_clipped(g, P, clip, &sq[i], sum);
    }
    free(g);
}

/* The gradient split between double and float (dp_model_clipped_grad_split,
 * dp_model_loss_grad_split), from zero: grad[j] + (double)gf[j] is the unsplit call's
 * grad[j] bit for bit (the sum the plain step's update forms, train_step.c). gf receives
 * something exactly when the call is one chunk and a dense layer splits its gradient by
 * rows; then those layers' weights are in gf alone. */
static void check_split(dp_model *m, const batch *b, double clip)
{
    size_t P = m->n_params;
    double *g0 = calloc(P, sizeof *g0), *g1 = calloc(P, sizeof *g1);
    float *gf = calloc(P, sizeof *gf);
    ck_assert(g0 && g1 && gf);
    int rows = 0;
    for (size_t i = 0; i < m->n_layers; i++)
        rows |= m->layers[i].spec.kind == DP_LAYER_DENSE && m->layers[i].split_rows;
    int expect = rows && b->B <= m->max_batch;
    for (int plain = 0; plain < 2; plain++) {
        memset(g0, 0, P * sizeof *g0), memset(g1, 0, P * sizeof *g1);
        memset(gf, 0, P * sizeof *gf);
        double l0, l1;
        if (plain) {
            l0 = dp_model_loss_grad(m, b->x, b->y, b->B, g0);
            l1 = dp_model_loss_grad_split(m, b->x, b->y, b->B, g1, gf);
        } else {
            l0 = dp_model_clipped_grad(m, b->x, b->y, b->B, clip, g0, NULL);
            l1 = dp_model_clipped_grad_split(m, b->x, b->y, b->B, clip, g1, gf, NULL);
        }
        ck_assert_mem_eq(&l0, &l1, sizeof l0);
        size_t in_gf = 0;
        for (size_t j = 0; j < P; j++) {
            in_gf += gf[j] != 0.0f;
            if (gf[j] != 0.0f) ck_assert(g1[j] == 0.0);
            g1[j] += (double)gf[j];
        }
        ck_assert_mem_eq(g1, g0, P * sizeof *g0);
        if (expect)
            ck_assert_uint_gt(in_gf, 0);
        else
            ck_assert_uint_eq(in_gf, 0);
    }
    free(g0), free(g1), free(gf);
}

/* Norms and clipped sums at C = median, C tiny (all clipped) and C = inf, to relative
 * error tol; the split gradient at the median. */
static void check_model(dp_model *m, size_t B, uint64_t seed, double tol)
{
    size_t P = m->n_params;
    batch b = make_batch(m, B, seed);
    double *sq = malloc(B * sizeof *sq), *sq_ref = malloc(B * sizeof *sq);
    double *sum = malloc(P * sizeof *sum), *ref = malloc(P * sizeof *ref);
    ck_assert(sq && sq_ref && sum && ref);

    brute(m, &b, INFINITY, sq_ref, ref);
    const double clips[3] = {median_norm(sq_ref, B), 1e-3, INFINITY};
    check_split(m, &b, clips[0]);
    for (int k = 0; k < 3; k++) {
        brute(m, &b, clips[k], sq_ref, ref);
        memset(sum, 0, P * sizeof *sum);
        double loss = dp_model_clipped_grad(m, b.x, b.y, B, clips[k], sum, sq);
        for (size_t i = 0; i < B; i++)
            ck_assert_double_le(fabs(sq[i] - sq_ref[i]), tol * sq_ref[i]);
        ck_assert_double_le(test_rel_err(sum, ref, P), tol);
        double ml;
        dp_model_evaluate(m, b.x, b.y, B, &ml, NULL);
        ck_assert_double_eq_tol(loss, ml * B, 1e-12 * loss);
    }
    /* all clipped to C: the sum is at most B C long */
    memset(sum, 0, P * sizeof *sum);
    dp_model_clipped_grad(m, b.x, b.y, B, 1e-3, sum, NULL);
    double nrm = 0.0;
    for (size_t j = 0; j < P; j++) nrm += sum[j] * sum[j];
    ck_assert_double_le(sqrt(nrm), B * 1e-3 * (1 + 1e-12));

    /* invariance: C = inf is the plain batch gradient, and both accumulate */
    double *plain = calloc(P, sizeof *plain);
    dp_model_loss_grad(m, b.x, b.y, B, plain);
    memset(sum, 0, P * sizeof *sum);
    dp_model_clipped_grad(m, b.x, b.y, B, INFINITY, sum, NULL);
    ck_assert_mem_eq(sum, plain, P * sizeof *sum);
    dp_model_clipped_grad(m, b.x, b.y, B, INFINITY, sum, NULL);
    dp_model_loss_grad(m, b.x, b.y, B, plain);
    ck_assert_mem_eq(sum, plain, P * sizeof *sum);

    free(plain), free(sq), free(sq_ref), free(sum), free(ref);
    free_batch(&b);
}

/* The small net (pexgrad_fixture.h), its second conv padded by 1. */
static const dp_layer_spec small_cnn[] = PEX_SMALL_CNN(1);

// ---- pex-1: dense-only models ------------------------------------------------------------

START_TEST(test_mlp)
{
    dp_model m;
    int hid[2] = {9, 7};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 2, "tanh", 1, 4, 5, 6, 16, 1, NULL),
                     DP_OK);
    check_model(&m, 13, 101, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_mlp_split_examples)
{
    /* few outputs at a large max_batch: both dense gradients split by examples */
    dp_model m;
    int hid[1] = {7};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, "tanh", 1, 4, 5, 6, 200, 1, NULL),
                     DP_OK);
    ck_assert(!m.layers[1].split_rows && !m.layers[3].split_rows);
    check_model(&m, 13, 112, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_mlp_chunks)
{
    /* B = 13 over max_batch 4: four chunks, the last one short */
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "mlp_inputpert", NULL, 0, "relu", 12, 1, 1, 2, 4,
                                          2, NULL),
                     DP_OK);
    check_model(&m, 13, 102, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

// ---- pex-2: convolutional models -------------------------------------------------------------

static void check_small_cnn(int method)
{
    dp_model m;
    ck_assert_int_eq(dp_model_build(&m, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
    test_conv_small_blocks(&m);
    set_conv(&m, method, 0);
    check_model(&m, 11, 103, FLOAT_TOL);
    dp_model_destroy(&m);
}

START_TEST(test_small_cnn_direct) { check_small_cnn(DP_CONV_PEX_DIRECT); }
END_TEST

START_TEST(test_small_cnn_gram) { check_small_cnn(DP_CONV_PEX_GRAM); }
END_TEST

START_TEST(test_small_cnn_stored) { check_small_cnn(DP_CONV_PEX_STORED); }
END_TEST

START_TEST(test_cnn_mnist)
{
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", NULL, 0, NULL, 1, 28, 28, 10, 8, 4,
                                          NULL),
                     DP_OK);
    /* per-example conv gradients fit the budget: stored */
    ck_assert_int_eq(m.layers[0].pex_method, DP_CONV_PEX_STORED);
    ck_assert_int_eq(m.layers[3].pex_method, DP_CONV_PEX_STORED);
    check_model(&m, 8, 104, FLOAT_TOL);
    m.layers[0].pex_method = DP_CONV_PEX_DIRECT;
    m.layers[3].pex_method = DP_CONV_PEX_GRAM;
    check_model(&m, 8, 105, FLOAT_TOL);
    m.layers[0].pex_method = DP_CONV_PEX_GRAM;
    m.layers[3].pex_method = DP_CONV_PEX_DIRECT;
    check_model(&m, 8, 106, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_cnn_cifar)
{
    /* the full CIFAR net, tempered sigmoid (DPlis Table 11), in chunks of 2 */
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_cifar", NULL, 0, "tempered_sigmoid", 3, 32,
                                          32, 10, 2, 5, NULL),
                     DP_OK);
    check_model(&m, 3, 107, FLOAT_TOL);
    /* and with norms only (what larger batches use): DIRECT or GRAM by flop count */
    for (size_t l = 0; l < m.n_layers; l++)
        if (m.layers[l].spec.kind == DP_LAYER_CONV)
            m.layers[l].pex_method = dp_conv_pex_choose(&m.layers[l].conv);
    check_model(&m, 3, 108, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

// ---- pex-3: lanes -----------------------------------------------------------------------------

/* The plain and clipped gradients, the norms and the losses of m are the same bits
 * whether its two lanes run on one thread or two (model.h, Lanes), for B examples (13:
 * in chunks of 8 and 5 at max_batch 8, lanes of 4 + 4, then 2 + 3). */
static void check_threads(dp_model *m, size_t B, uint64_t seed)
{
    size_t P = m->n_params;
    batch b = make_batch(m, B, seed);
    int saved = dp_threads();
    double *g[2], *s[2], *sq[2], loss[2], closs[2];
    for (int t = 0; t < 2; t++) {
        dp_set_threads(t + 1);
        g[t] = calloc(P, sizeof *g[t]), s[t] = calloc(P, sizeof *s[t]);
        sq[t] = calloc(B, sizeof *sq[t]);
        ck_assert(g[t] && s[t] && sq[t]);
        loss[t] = dp_model_loss_grad(m, b.x, b.y, B, g[t]);
        closs[t] = dp_model_clipped_grad(m, b.x, b.y, B, 0.5, s[t], sq[t]);
    }
    dp_set_threads(saved);
    ck_assert_mem_eq(&loss[0], &loss[1], sizeof loss[0]);
    ck_assert_mem_eq(&closs[0], &closs[1], sizeof closs[0]);
    ck_assert_mem_eq(g[0], g[1], P * sizeof *g[0]);
    ck_assert_mem_eq(s[0], s[1], P * sizeof *s[0]);
    ck_assert_mem_eq(sq[0], sq[1], B * sizeof *sq[0]);
    for (int t = 0; t < 2; t++) free(g[t]), free(s[t]), free(sq[t]);
    free_batch(&b);
}

/* cnn_mnist, with kept patches and with blocks. */
START_TEST(test_lanes_threads)
{
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_mnist", NULL, 0, NULL, 1, 28, 28, 10, 8, 4,
                                          NULL),
                     DP_OK);
    ck_assert_int_eq(m.lanes, DP_MODEL_LANES);
    check_threads(&m, 13, 109);
    test_conv_small_blocks(&m);
    check_threads(&m, 13, 109);
    dp_model_destroy(&m);
}
END_TEST

/* An MLP large enough that even the chunk of 5 runs on two threads (model_run.c: at
 * least 2^20 example-parameters): each lane forms its rows of the dense weight
 * gradients over the whole chunk. */
START_TEST(test_lanes_threads_mlp)
{
    dp_model m;
    int hid[1] = {300};
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, "relu", 1, 28, 28, 10, 8, 4,
                                          NULL),
                     DP_OK);
    ck_assert_uint_ge(5 * m.n_params, (size_t)1 << 20);
    check_threads(&m, 13, 110);
    batch b = make_batch(&m, 5, 113); /* one chunk of 5 on two threads */
    check_split(&m, &b, 0.5);
    free_batch(&b);
    dp_model_destroy(&m);
}
END_TEST

/* linear_784_10 at batch 256 (flatten, dense 10): its few outputs split the weight
 * gradient between the lanes by examples (model.c); 300 examples: a chunk of 256 on two
 * threads, then one of 44 on one. */
START_TEST(test_lanes_threads_linear)
{
    dp_model m;
    dp_layer_spec layers[2] = {{.kind = DP_LAYER_FLATTEN}, {.kind = DP_LAYER_DENSE, .units = 10}};
    ck_assert_int_eq(dp_model_build(&m, layers, 2, 1, 28, 28, 10, 256, 4, NULL), DP_OK);
    ck_assert(!m.layers[1].split_rows);
    check_threads(&m, 300, 111);
    dp_model_destroy(&m);
}
END_TEST

static Suite *pexgrad_suite(void)
{
    Suite *s = suite_create("pexgrad");
    test_add_case(s, "pex-1.1", test_mlp, 120);
    test_add_case(s, "pex-1.2", test_mlp_chunks, 120);
    test_add_case(s, "pex-1.3", test_mlp_split_examples, 120);
    test_add_case(s, "pex-2.1", test_small_cnn_direct, 120);
    test_add_case(s, "pex-2.2", test_small_cnn_gram, 120);
    test_add_case(s, "pex-2.3", test_small_cnn_stored, 120);
    test_add_case(s, "pex-2.4", test_cnn_mnist, 120);
    test_add_case(s, "pex-2.5", test_cnn_cifar, 120);
    test_add_case(s, "pex-3.1", test_lanes_threads, 120);
    test_add_case(s, "pex-3.2", test_lanes_threads_mlp, 120);
    test_add_case(s, "pex-3.3", test_lanes_threads_linear, 120);
    return s;
}

int main(void) { return test_run_suite(pexgrad_suite()); }
