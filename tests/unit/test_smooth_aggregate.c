/* test_smooth_aggregate.c: the two aggregations of DPlis's K perturbed gradients in
 * algorithms/models/pexgrad_smooth.c and linear_smooth.c: the paper's average (eq. 6;
 * dp_model_smooth.sum 0, sum argument 0) and the authors' code's sum (1: g_i = sum_k
 * grad L(theta + z_k; x_i), clipped to C; shared/reference/authors-code.md, "DPlis"),
 * and dp_train_cfg.dplis_sum reaching both through the trainers.
 *
 * References: a brute-force per-example, per-copy loop as in test_pexgrad_smooth.c (each
 * gradient from dp_model_loss_grad on a batch of one at theta + z_k rebuilt from
 * model.h's convention), summed over the copies, clipped to C and summed over the batch;
 * the algebra of the two aggregations against each other:
 *   - no clip binds (C = inf): the sum's clipped sum is K times the average's, and its
 *     squared norms K^2 times;
 *   - K = 1: the sum is the average, bit for bit (memcmp), at any C;
 *   - clip_C(sum) = K clip_{C/K}(average), and a clipped example's contribution has norm
 *     exactly C in both (each example alone in its batch).
 * Training (agg-4): with K = 1 dplis_sum trains to the same weights bit for bit, with
 * K = 3 to different ones, on a linear and on a deep model.
 * Tolerances: 1e-5 relative (test_layers.c says why that bound): every deep model's
 * products are float (dense.c, conv.c), and the two aggregations scale the errors by
 * c_i / K or c_i before they are rounded, so even sum against K x average differs by
 * float rounding. The squared norms are double on both sides: 1e-12.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"
#include "datasets/dataset.h"
#include "tests/unit/pexgrad_fixture.h"
#include "tests/unit/test_util.h"

#define FLOAT_TOL 1e-5
#define SIGMA_S 0.05

static double norm2(const double *a, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * a[i];
    return sqrt(s);
}

/* Brute force of the summed aggregation: sq (B) = ||sum_k g_ik||^2, sum (n_params,
 * zeroed here) = sum_i clip_C(sum_k g_ik), g_ik from ref (same architecture) at
 * theta + z_k. */
static void brute_sum(dp_model *ref, const double *theta, const batch *b, double clip, int K,
                      double sigma_s, const dp_rng *r0, double *sq, double *sum)
{
    size_t P = ref->n_params;
    double *g = malloc(P * sizeof *g), *gi = malloc(P * sizeof *gi);
    ck_assert(g && gi);
    memset(sum, 0, P * sizeof *sum);
    for (size_t i = 0; i < b->B; i++) {
        memset(gi, 0, P * sizeof *gi);
        for (int k = 0; k < K; k++) {
            perturbed(ref->params, theta, P, r0, k, sigma_s);
            memset(g, 0, P * sizeof *g);
            dp_model_loss_grad(ref, b->x + i * b->d, b->y + i, 1, g);
            for (size_t j = 0; j < P; j++) gi[j] += g[j];
        }
        add_clipped(gi, P, clip, &sq[i], sum);
    }
    free(g), free(gi);
}

/* One call of dp_model_smoothed_clipped_grad with aggregation `sum` into a zeroed out
 * (n_params) and sq (B), from generator state r0; checks the generator moved K blocks. */
static double run(dp_model *m, dp_model_smooth *s, const batch *b, double clip, int K, int sum,
                  const dp_rng *r0, double *out, double *sq)
{
    dp_rng r = *r0;
    s->sum = sum;
    memset(out, 0, m->n_params * sizeof *out);
    double loss = dp_model_smoothed_clipped_grad(m, s, b->x, b->y, b->B, clip, K, SIGMA_S, &r,
                                                 out, sq);
    ck_assert_uint_eq(r.position, r0->position + (uint64_t)K);
    return loss;
}

// ---- agg-1: the sum against the brute force --------------------------------------------------

/* K = 3, C in {median, tiny (all clipped), inf}: norms and sums against brute_sum; theta
 * untouched; the loss is the copies' average whichever the aggregation. */
static void check_brute(dp_model *m, dp_model *ref, size_t B, uint64_t seed)
{
    enum { K = 3 };
    size_t P = m->n_params;
    const double tol = FLOAT_TOL;
    batch b = make_batch(m, B, seed);
    double *sq = malloc(B * sizeof *sq), *sq_ref = malloc(B * sizeof *sq);
    double *sum = malloc(P * sizeof *sum), *ref_sum = malloc(P * sizeof *sum);
    double *theta = malloc(P * sizeof *theta), *mean = malloc(P * sizeof *mean);
    ck_assert(sq && sq_ref && sum && ref_sum && theta && mean);
    memcpy(theta, m->params, P * sizeof *theta);
    dp_model_smooth s;
    ck_assert_int_eq(dp_model_smooth_init(&s, m, K, NULL), DP_OK);
    ck_assert_int_eq(s.sum, 0); /* the paper's average unless asked */
    dp_rng r0 = noise_rng(seed);
    brute_sum(ref, theta, &b, INFINITY, K, SIGMA_S, &r0, sq_ref, ref_sum);
    double min_sq = sq_ref[0]; /* the smallest norm: 1e-3 of it clips every example */
    for (size_t i = 1; i < B; i++) min_sq = fmin(min_sq, sq_ref[i]);
    const double clips[3] = {median_norm(sq_ref, B), 1e-3 * sqrt(min_sq), INFINITY};
    for (int ci = 0; ci < 3; ci++) {
        brute_sum(ref, theta, &b, clips[ci], K, SIGMA_S, &r0, sq_ref, ref_sum);
        double loss = run(m, &s, &b, clips[ci], K, 1, &r0, sum, sq);
        double loss_mean = run(m, &s, &b, clips[ci], K, 0, &r0, mean, NULL);
        ck_assert_msg(memcmp(theta, m->params, P * sizeof *theta) == 0, "theta changed");
        for (size_t i = 0; i < B; i++)
            ck_assert_msg(fabs(sq[i] - sq_ref[i]) <= tol * sq_ref[i],
                          "C %g example %zu: sqnorm %.17g, brute force %.17g", clips[ci], i,
                          sq[i], sq_ref[i]);
        double e = test_rel_err(sum, ref_sum, P);
        ck_assert_msg(e <= tol, "C %g: clipped sum relative error %g", clips[ci], e);
        ck_assert(loss == loss_mean);
    }
    dp_model_smooth_destroy(&s);
    free(sq), free(sq_ref), free(sum), free(ref_sum), free(theta), free(mean);
    free_batch(&b);
}

/* Every layer kind on a 3-channel input (test_pexgrad_smooth.c's small net). */
static const dp_layer_spec small_cnn[] = PEX_SMALL_CNN(1);

START_TEST(test_brute_mlp)
{
    /* max_batch 4 for B = 13: four chunks, each regenerating the same perturbations */
    const size_t max_batch[2] = {16, 4};
    for (int t = 0; t < 2; t++) {
        dp_model m, ref;
        build_mlp(&m, t ? "relu" : "tanh", max_batch[t]);
        build_mlp(&ref, t ? "relu" : "tanh", 1);
        check_brute(&m, &ref, 13, 401 + (uint64_t)t);
        dp_model_destroy(&m), dp_model_destroy(&ref);
    }
}
END_TEST

START_TEST(test_brute_small_cnn)
{
    const int methods[3] = {DP_CONV_PEX_STORED, DP_CONV_PEX_DIRECT, DP_CONV_PEX_GRAM};
    for (int t = 0; t < 3; t++) {
        dp_model m, ref;
        ck_assert_int_eq(dp_model_build(&m, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
        ck_assert_int_eq(dp_model_build(&ref, small_cnn, 9, 3, 9, 8, 4, 1, 3, NULL), DP_OK);
        set_conv(&m, methods[t], methods[t] != DP_CONV_PEX_STORED);
        check_brute(&m, &ref, 11, 411 + (uint64_t)t);
        dp_model_destroy(&m), dp_model_destroy(&ref);
    }
}
END_TEST

START_TEST(test_brute_cifar_small)
{
    /* the DPlis code's CIFAR-10 net with its CIFAR aggregation, in chunks of 2 */
    dp_model m, ref;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_cifar_small", NULL, 0, NULL, 3, 32, 32, 10,
                                          2, 5, NULL),
                     DP_OK);
    ck_assert_int_eq(dp_model_build_named(&ref, "cnn_cifar_small", NULL, 0, NULL, 3, 32, 32, 10,
                                          1, 5, NULL),
                     DP_OK);
    check_brute(&m, &ref, 3, 421);
    dp_model_destroy(&m), dp_model_destroy(&ref);
}
END_TEST

// ---- agg-2: the sum against the average -------------------------------------------------------

/* On model m (B examples): (a) C = inf: sum = K x average, sqnorms K^2 x; (b) K = 1: the
 * same bit for bit at C = median, tiny, inf; (c) clip_C(sum) = K clip_{C/K}(average);
 * (d) each example alone with a binding clip contributes a vector of norm C in both. */
static void check_algebra(dp_model *m, size_t B, uint64_t seed, double scale_tol)
{
    enum { K = 3 }; /* not a power of two: 1/K and 1/K^2 round */
    size_t P = m->n_params;
    const double tol = FLOAT_TOL;
    batch b = make_batch(m, B, seed);
    double *sq = malloc(B * sizeof *sq), *sq_mean = malloc(B * sizeof *sq);
    double *sum = malloc(P * sizeof *sum), *mean = malloc(P * sizeof *mean);
    ck_assert(sq && sq_mean && sum && mean);
    dp_model_smooth s;
    ck_assert_int_eq(dp_model_smooth_init(&s, m, K, NULL), DP_OK);
    dp_rng r0 = noise_rng(seed);

    /* (a) no clip binds: the data term of a step differs by exactly K */
    run(m, &s, &b, INFINITY, K, 1, &r0, sum, sq);
    run(m, &s, &b, INFINITY, K, 0, &r0, mean, sq_mean);
    for (size_t j = 0; j < P; j++) mean[j] *= K;
    ck_assert_double_le(test_rel_err(sum, mean, P), scale_tol);
    for (size_t i = 0; i < B; i++)
        ck_assert_double_le(fabs(sq[i] - K * K * sq_mean[i]), 1e-12 * sq[i]);

    /* (b) K = 1: one copy, nothing to sum or average */
    double med = sqrt(sq_mean[B / 2]);
    const double clips[3] = {med, 1e-3 * med, INFINITY};
    for (int ci = 0; ci < 3; ci++) {
        double l1 = run(m, &s, &b, clips[ci], 1, 1, &r0, sum, sq);
        double l0 = run(m, &s, &b, clips[ci], 1, 0, &r0, mean, sq_mean);
        ck_assert_msg(memcmp(sum, mean, P * sizeof *sum) == 0, "K 1, C %g: sums differ",
                      clips[ci]);
        ck_assert_msg(memcmp(sq, sq_mean, B * sizeof *sq) == 0, "K 1, C %g: norms differ",
                      clips[ci]);
        ck_assert(l1 == l0);
    }

    /* (c) clip_C(sum) = K clip_{C/K}(average), at a C that binds for some examples */
    double C = K * med;
    run(m, &s, &b, C, K, 1, &r0, sum, sq);
    run(m, &s, &b, C / K, K, 0, &r0, mean, NULL);
    for (size_t j = 0; j < P; j++) mean[j] *= K;
    ck_assert_double_le(test_rel_err(sum, mean, P), scale_tol);

    /* (d) every example clipped: its contribution has norm C in both aggregations */
    C = 1e-3 * med;
    for (size_t i = 0; i < B; i++) {
        batch one = {b.x + i * b.d, b.y + i, 1, b.d};
        for (int agg = 0; agg < 2; agg++) {
            double sqi;
            run(m, &s, &one, C, K, agg, &r0, sum, &sqi);
            ck_assert_double_gt(sqrt(sqi), C);
            ck_assert_double_le(fabs(norm2(sum, P) - C), tol * C);
        }
    }
    dp_model_smooth_destroy(&s);
    free(sq), free(sq_mean), free(sum), free(mean);
    free_batch(&b);
}

START_TEST(test_algebra_mlp)
{
    dp_model m;
    build_mlp(&m, "tanh", 16);
    check_algebra(&m, 13, 501, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_algebra_small_cnn)
{
    /* STORED: both aggregations scale the same stored conv gradients (double), but the
     * dense layers' products round errors scaled by c_i / K or c_i; DIRECT and GRAM redo
     * the first conv's weight gradient in float the same way: float rounding apart. */
    const int methods[3] = {DP_CONV_PEX_STORED, DP_CONV_PEX_DIRECT, DP_CONV_PEX_GRAM};
    for (int t = 0; t < 3; t++) {
        dp_model m;
        ck_assert_int_eq(dp_model_build(&m, small_cnn, 9, 3, 9, 8, 4, 5, 3, NULL), DP_OK);
        set_conv(&m, methods[t], methods[t] != DP_CONV_PEX_STORED);
        check_algebra(&m, 11, 511 + (uint64_t)t, FLOAT_TOL);
        dp_model_destroy(&m);
    }
}
END_TEST

START_TEST(test_algebra_cifar_small)
{
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "cnn_cifar_small", NULL, 0, "tanh", 3, 32, 32, 10,
                                          4, 6, NULL),
                     DP_OK);
    check_algebra(&m, 4, 521, FLOAT_TOL);
    dp_model_destroy(&m);
}
END_TEST

// ---- agg-3: linear models ------------------------------------------------------------------

/* One call of the linear DPlis gradient: aggregation agg, K copies, clip C, on examples
 * [i0, i0 + n) of the fixture, into a zeroed out (n_params) and sq (n, may be NULL). */
typedef struct {
    dp_linear m;
    double x[15 * 6], t[15];
    int y[15];
    double *ws;
} lin_fixture;

static void lin_call(lin_fixture *f, size_t i0, size_t n, double clip, int K, int agg,
                     const dp_rng *r0, double *out, double *sq)
{
    dp_rng r = *r0;
    memset(out, 0, f->m.n_params * sizeof *out);
    if (f->m.n_classes == 0)
        dp_linear_smoothed_clipped_grad_reg(&f->m, f->x + i0 * 6, f->t + i0, n, clip, K, agg,
                                            SIGMA_S, &r, out, sq, f->ws);
    else
        dp_linear_smoothed_clipped_grad(&f->m, f->x + i0 * 6, f->y + i0, n, clip, K, agg,
                                        SIGMA_S, &r, out, sq, f->ws);
    ck_assert_uint_eq(r.position, r0->position + (uint64_t)K);
}

/* The algebra of agg-2 for dp_linear_smoothed_clipped_grad(_reg) on a softmax and a
 * squared-loss model (d = 6, B = 15, K = 3): all in double, 1e-12. */
START_TEST(test_linear)
{
    enum { D = 6, NB = 15, K = 3 };
    for (int t = 0; t < 2; t++) {
        lin_fixture f;
        ck_assert_int_eq(t ? dp_linear_init_regression(&f.m, DP_LOSS_SQUARED, D, 1.0, 0.0, NULL)
                           : dp_linear_init(&f.m, DP_LOSS_SOFTMAX, D, 4, 0.0, NULL),
                         DP_OK);
        dp_rng r;
        dp_rng_init(&r, 601 + (uint64_t)t, DP_STREAM_TEST);
        for (size_t j = 0; j < f.m.n_params; j++) f.m.w[j] = 0.5 * dp_rng_gaussian(&r);
        for (size_t i = 0; i < NB * D; i++) f.x[i] = dp_rng_gaussian(&r);
        for (size_t i = 0; i < NB; i++) {
            f.y[i] = (int)dp_rng_below(&r, 4);
            f.t[i] = dp_rng_gaussian(&r);
        }
        size_t P = f.m.n_params;
        double sq[NB], sq_mean[NB];
        double *sum = malloc(P * sizeof *sum), *mean = malloc(P * sizeof *mean);
        f.ws = malloc(dp_linear_smooth_ws(&f.m, NB) * sizeof *f.ws);
        ck_assert(sum && mean && f.ws);
        const dp_rng r0 = noise_rng(611 + (uint64_t)t);

        /* no clip binds: K times the average, K^2 times its squared norms */
        lin_call(&f, 0, NB, INFINITY, K, 1, &r0, sum, sq);
        lin_call(&f, 0, NB, INFINITY, K, 0, &r0, mean, sq_mean);
        for (size_t j = 0; j < P; j++) mean[j] *= K;
        ck_assert_double_le(test_rel_err(sum, mean, P), 1e-12);
        for (size_t i = 0; i < NB; i++)
            ck_assert_double_le(fabs(sq[i] - K * K * sq_mean[i]), 1e-12 * sq[i]);
        /* K = 1: the same bit for bit */
        double med = sqrt(sq_mean[NB / 2]);
        const double clips[3] = {med, 1e-3 * med, INFINITY};
        for (int ci = 0; ci < 3; ci++) {
            lin_call(&f, 0, NB, clips[ci], 1, 1, &r0, sum, sq);
            lin_call(&f, 0, NB, clips[ci], 1, 0, &r0, mean, sq_mean);
            ck_assert(memcmp(sum, mean, P * sizeof *sum) == 0);
            ck_assert(memcmp(sq, sq_mean, NB * sizeof *sq) == 0);
        }
        /* clip_C(sum) = K clip_{C/K}(average) */
        lin_call(&f, 0, NB, K * med, K, 1, &r0, sum, NULL);
        lin_call(&f, 0, NB, med, K, 0, &r0, mean, NULL);
        for (size_t j = 0; j < P; j++) mean[j] *= K;
        ck_assert_double_le(test_rel_err(sum, mean, P), 1e-12);
        /* a clipped example contributes norm C in both */
        const double C = 1e-3 * med;
        for (size_t i = 0; i < NB; i++)
            for (int agg = 0; agg < 2; agg++) {
                double sqi;
                lin_call(&f, i, 1, C, K, agg, &r0, sum, &sqi);
                ck_assert_double_gt(sqrt(sqi), C);
                ck_assert_double_le(fabs(norm2(sum, P) - C), 1e-12 * C);
            }
        free(sum), free(mean), free(f.ws);
        dp_linear_destroy(&f.m);
    }
}
END_TEST

// ---- agg-4: through the trainers ----------------------------------------------------------

/* DPlis on synthetic data (300 x 10, 3 classes), Poisson batches of 24, two epochs:
 * dplis_sum with K = 1 gives the average's weights bit for bit, with K = 3 other ones. */
START_TEST(test_train)
{
    dp_synthetic_params p = {.n = 300, .d = 10, .n_classes = 3, .seed = 13};
    dp_dataset all, tr, te;
    dp_err e;
    ck_assert_int_eq(dp_synthetic_make(&all, &p, &e), DP_OK);
    ck_assert_int_eq(dp_dataset_split(&all, 225, 13, &tr, &te, &e), DP_OK);
    dp_dataset_destroy(&all);
    for (int deep = 0; deep < 2; deep++)
        for (int K = 1; K <= 3; K += 2) {
            double *w[2] = {NULL, NULL};
            size_t P = 0;
            for (int agg = 0; agg < 2; agg++) {
                dp_train_cfg c = {.algorithm = DP_ALGO_DP_SGD, .epochs = 2, .batch_size = 24,
                                  .sampling = DP_SAMPLING_POISSON,
                                  .lr_schedule = DP_LR_CONSTANT, .lr = 0.2, .clip = 1.0,
                                  .noise_multiplier = 1.0, .eval_every = 1, .seed = 3,
                                  .dplis_samples = K, .dplis_radius = 10.0, .dplis_sum = agg};
                dp_train_result r;
                if (deep) {
                    dp_model m;
                    int hid[1] = {6};
                    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hid, 1, "tanh", 1, 1, 10,
                                                          3, 16, 5, &e),
                                     DP_OK);
                    ck_assert_msg(dp_train_model(&m, &c, 0.0, tr.x, tr.y, tr.n, te.x, te.y,
                                                 te.n, &r, &e) == DP_OK,
                                  "%s", e.msg);
                    P = m.n_params;
                    w[agg] = malloc(P * sizeof *w[agg]);
                    memcpy(w[agg], m.params, P * sizeof *w[agg]);
                    dp_model_destroy(&m);
                } else {
                    dp_linear m;
                    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 10, 3, 1e-3, NULL),
                                     DP_OK);
                    ck_assert_msg(dp_train_linear(&m, &c, tr.x, tr.y, tr.n, te.x, te.y, te.n,
                                                  &r, &e) == DP_OK,
                                  "%s", e.msg);
                    P = m.n_params;
                    w[agg] = malloc(P * sizeof *w[agg]);
                    memcpy(w[agg], m.w, P * sizeof *w[agg]);
                    dp_linear_destroy(&m);
                }
                ck_assert(!r.diverged && isfinite(r.final.test_loss));
                dp_train_result_destroy(&r);
            }
            if (K == 1)
                ck_assert_msg(memcmp(w[0], w[1], P * sizeof *w[0]) == 0,
                              "deep %d: K = 1, sum and average differ", deep);
            else
                ck_assert_msg(test_rel_err(w[1], w[0], P) > 1e-3,
                              "deep %d: K = 3, the sum changed nothing", deep);
            free(w[0]), free(w[1]);
        }
    dp_dataset_destroy(&tr), dp_dataset_destroy(&te);
}
END_TEST

static Suite *smooth_aggregate_suite(void)
{
    Suite *s = suite_create("smooth_aggregate");
    test_add_case(s, "agg-1.1", test_brute_mlp, 120);
    test_add_case(s, "agg-1.2", test_brute_small_cnn, 120);
    test_add_case(s, "agg-1.3", test_brute_cifar_small, 300);
    test_add_case(s, "agg-2.1", test_algebra_mlp, 120);
    test_add_case(s, "agg-2.2", test_algebra_small_cnn, 120);
    test_add_case(s, "agg-2.3", test_algebra_cifar_small, 300);
    test_add_case(s, "agg-3.1", test_linear, 120);
    test_add_case(s, "agg-4.1", test_train, 120);
    return s;
}

int main(void) { return test_run_suite(smooth_aggregate_suite()); }
