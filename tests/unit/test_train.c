/* test_train.c: SGD and DP-SGD on linear models (algorithms/train.c).
 *
 * Besides end-to-end properties (sgd == dp_sgd with sigma = 0 and C = inf bit for bit,
 * learning on separable data, determinism, divergence handling), two probes make the
 * inside of a step observable through the weights alone:
 *   - the "indicator" problem: x_i = e_i (d = n), every label 1, w = 0 and a tiny rate.
 *     Example i's gradient touches only coordinate i (and the bias) with residual
 *     -sigmoid(0) = -1/2, so after training w_i = (eta / 2b) (times i was in a batch) up
 *     to O(eta) drift: the batches can be counted from the weights.
 *   - one step from the same weights with sgd and with dp_sgd: same batch (separate
 *     streams), so the difference of the weights is exactly -eta * noise / b.
 * Statistical tolerances are 5 standard errors (chi-square tolerances likewise from its
 * normal approximation), stated at each check; all draws are seeded.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/train_fixture.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/linear.h"
#include "algorithms/train.h"

static int train(dp_linear *m, const dp_train_cfg *c, const train_data *D,
                 dp_train_result *res, dp_err *e)
{
    return dp_train_linear(m, c, D->train.x, D->train.y, D->train.n, D->test.x, D->test.y,
                           D->test.n, res, e);
}

static void new_model(dp_linear *m, dp_loss_kind loss, size_t d, int classes, double l2)
{
    ck_assert_int_eq(dp_linear_init(m, loss, d, classes, l2, NULL), DP_OK);
}

// ---- train-1: validation, curve layout, schedules ---------------------------------------

static void expect_invalid(const dp_train_cfg *c, const train_data *D, const char *field)
{
    dp_linear m;
    new_model(&m, DP_LOSS_LOGISTIC, D->train.d, 2, 0.0);
    dp_train_result res;
    dp_err e;
    dp_err_clear(&e);
    train_expect_einval(train(&m, c, D, &res, &e), &e, &res, field);
    dp_linear_destroy(&m);
}

START_TEST(test_validation)
{
    train_data D;
    train_data_make(&D, 200, 4, 2, 0.0, 3); /* 150 train, 50 test */
    /* each dp_sgd config of train_fixture.h with one field broken fails naming it */
    dp_train_cfg c;
    const char *field;
    for (int i = 0; train_broken_cfg(i, &c, &field); i++) expect_invalid(&c, &D, field);

    /* sgd ignores clip and noise entirely. */
    c = train_base_cfg(DP_ALGO_SGD, 10, 1);
    c.clip = -3.0;
    c.noise_multiplier = NAN;
    dp_linear m;
    new_model(&m, DP_LOSS_LOGISTIC, D.train.d, 2, 0.0);
    dp_train_result res;
    ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
    ck_assert_double_eq(res.noise_std, 0.0);
    dp_train_result_destroy(&res);

    /* Labels out of range, empty test set. */
    c = train_base_cfg(DP_ALGO_SGD, 10, 1);
    int y17 = D.train.y[17];
    D.train.y[17] = 2;
    expect_invalid(&c, &D, "y[17]");
    D.train.y[17] = y17;
    dp_err e;
    ck_assert_int_eq(dp_train_linear(&m, &c, D.train.x, D.train.y, D.train.n, D.test.x,
                                     D.test.y, 0, &res, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "test set"));
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    train_data_free(&D);
}
END_TEST

START_TEST(test_curve_layout)
{
    train_data D;
    train_data_make(&D, 400, 5, 2, 0.0, 4); /* 300 train: 7 steps per epoch with b = 40 */
    size_t n_cases;
    const train_curve_case *cases = train_curve_cases(&n_cases);
    for (size_t t = 0; t < n_cases; t++) {
        dp_linear m;
        new_model(&m, DP_LOSS_LOGISTIC, 5, 2, 0.01);
        dp_train_cfg c = train_base_cfg(DP_ALGO_SGD, 40, cases[t].epochs);
        c.eval_every = cases[t].every;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
        train_assert_curve(&res, &cases[t], 40, D.train.n);
        ck_assert_double_eq_tol(res.curve[0].train_loss, log(2.0), 1e-13); /* mean of 300 log 2 */
        dp_train_result_destroy(&res);
        dp_linear_destroy(&m);
    }
    train_data_free(&D);
}
END_TEST

/* The indicator problem of the header comment: n examples x_i = e_i in R^n, labels 1. */
static void indicator_data(size_t n, double **x, int **y)
{
    *x = calloc(n * n, sizeof **x);
    *y = malloc(n * sizeof **y);
    ck_assert(*x && *y);
    for (size_t i = 0; i < n; i++) {
        (*x)[i * n + i] = 1.0;
        (*y)[i] = 1;
    }
}

START_TEST(test_lr_schedules)
{
    /* b = n: one full-batch step per epoch; every coordinate moves by eta_t / (2n) per
     * step (tiny rates keep the residual at -1/2 to ~1e-8 relative). */
    enum { N = 8 };
    double *x;
    int *y;
    indicator_data(N, &x, &y);
    static const struct {
        dp_lr_schedule s;
        double expect; /* sum of eta_t / 1e-8 over 3 steps */
    } cases[] = {{DP_LR_CONSTANT, 3.0}, {DP_LR_INVERSE_T, 1.0 + 0.5 + 1.0 / 3.0},
                 {DP_LR_STEP, 1.0 + 1.0 + 0.1},
                 {DP_LR_INVERSE_SQRT_T, 1.0 + 1.0 / sqrt(2.0) + 1.0 / sqrt(3.0)}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        dp_linear m;
        new_model(&m, DP_LOSS_LOGISTIC, N, 2, 0.0);
        dp_train_cfg c = train_base_cfg(DP_ALGO_SGD, N, 3);
        c.lr_schedule = cases[t].s;
        c.lr = 1e-8;
        c.lr_a = 1e-8;
        c.lr_step_at = 2; /* factor applies from t = 3 */
        c.lr_step_factor = 0.1;
        dp_train_result res;
        ck_assert_int_eq(dp_train_linear(&m, &c, x, y, N, x, y, N, &res, NULL), DP_OK);
        for (size_t i = 0; i < N; i++)
            ck_assert_double_eq_tol(m.w[i] * 2.0 * N / 1e-8, cases[t].expect, 1e-6);
        dp_train_result_destroy(&res);
        dp_linear_destroy(&m);
    }
    free(x);
    free(y);
}
END_TEST

// ---- train-2: sgd == dp_sgd(sigma 0, C inf), noise, clipping ----------------------------

START_TEST(test_sgd_equals_dpsgd)
{
    train_data D;
    train_data_make(&D, 600, 6, 3, 0.0, 5);
    dp_sampling samplings[2] = {DP_SAMPLING_SHUFFLE, DP_SAMPLING_POISSON};
    for (int s = 0; s < 2; s++) {
        dp_linear a, b;
        new_model(&a, DP_LOSS_SOFTMAX, 6, 3, 1e-3);
        new_model(&b, DP_LOSS_SOFTMAX, 6, 3, 1e-3);
        dp_train_cfg ca, cb;
        train_sgd_and_dpsgd(samplings[s], 32, 4, 2.0, &ca, &cb);
        dp_train_result ra, rb;
        ck_assert_int_eq(train(&a, &ca, &D, &ra, NULL), DP_OK);
        ck_assert_int_eq(train(&b, &cb, &D, &rb, NULL), DP_OK);
        train_assert_sgd_is_dpsgd(a.w, b.w, a.n_params, &ra, &rb);
        train_pair_free(&a, &b, &ra, &rb);
    }
    train_data_free(&D);
}
END_TEST

START_TEST(test_noise_variance)
{
    /* One step from w = 0 with the same batch: dp_sgd's weights minus sgd's are
     * -eta N(0, (sigma C)^2 I) / b, each coordinate of variance v0 = (eta sigma C / b)^2.
     * C = 100 exceeds every per-example norm (<= 2 here), so nothing is clipped.
     * With P = 10 x 1000 coordinates, sum(diff^2) / v0 ~ chi-square(P): mean P, sd
     * sqrt(2P). Accept within 5 sd, i.e. a ratio in 1 +- 0.071: dropping the noise
     * (ratio 0), doubling it (4) or using sigma instead of sigma C all fail (dividing by
     * |B| instead of b is caught by train-3.2). The mean of the differences must be 0
     * within 5 sd, sqrt(v0 / P). */
    enum { N = 40, DIM = 999, K = 10 };
    train_data D;
    train_data_make(&D, N, DIM, K, 0.0, 6); /* 30 train */
    dp_sampling samplings[2] = {DP_SAMPLING_SHUFFLE, DP_SAMPLING_POISSON};
    /* One step each: shuffle with b = n = 30; Poisson with b = 16, q = 16/30 and
     * floor(30 / 16) = 1 step, whose batch (the same for both runs) has random size. */
    size_t batches[2] = {30, 16};
    for (int s = 0; s < 2; s++) {
        dp_linear a, b;
        new_model(&a, DP_LOSS_SOFTMAX, DIM, K, 0.1);
        new_model(&b, DP_LOSS_SOFTMAX, DIM, K, 0.1);
        dp_train_cfg ca = train_base_cfg(DP_ALGO_SGD, batches[s], 1);
        ca.sampling = samplings[s];
        ca.lr = 0.5;
        ca.seed = 1234 + (uint64_t)s;
        dp_train_cfg cb = ca;
        cb.algorithm = DP_ALGO_DP_SGD;
        cb.clip = 100.0;
        cb.noise_multiplier = 0.7;
        dp_train_result ra, rb;
        ck_assert_int_eq(train(&a, &ca, &D, &ra, NULL), DP_OK);
        ck_assert_int_eq(train(&b, &cb, &D, &rb, NULL), DP_OK);
        ck_assert_int_eq(ra.iterations, 1);
        ck_assert_int_eq(rb.iterations, 1);
        double b_size = (double)ca.batch_size;
        ck_assert_double_eq_tol(rb.noise_std, 70.0, 1e-12);
        double v0 = pow(ca.lr * 0.7 * 100.0 / b_size, 2);
        train_assert_noise_step(a.w, b.w, a.n_params, v0, s);
        train_pair_free(&a, &b, &ra, &rb);
    }
    train_data_free(&D);
}
END_TEST

START_TEST(test_clipping)
{
    /* One full-batch step (b = n) from random weights with C far below every per-example
     * norm: the step must equal the brute-force clipped step, and its data part is at
     * most eta C |B| / b = eta C in norm. Reference: each example's gradient formed
     * explicitly from its residual, clipped, summed; rel. error <= 1e-10. */
    train_data D;
    train_data_make(&D, 160, 7, 4, 0.0, 7); /* 120 train */
    size_t n = D.train.n, d = 7;
    const double C = 1e-3, eta = 0.3, mu = 0.05;
    for (int pass = 0; pass < 2; pass++) {
        dp_linear m;
        new_model(&m, DP_LOSS_SOFTMAX, d, 4, pass == 0 ? 0.0 : mu);
        dp_rng r;
        dp_rng_init(&r, 55, DP_STREAM_TEST);
        for (size_t j = 0; j < m.n_params; j++) m.w[j] = dp_rng_gaussian(&r);
        size_t P = m.n_params, k = (size_t)m.k;
        double *w0 = train_weights_copy(m.w, P), *ref = calloc(P, sizeof *ref);
        ck_assert(ref);
        double rr[4];
        for (size_t i = 0; i < n; i++) {
            const double *xi = D.train.x + i * d;
            dp_linear_residuals(&m, xi, D.train.y + i, 1, rr);
            double nn = 0.0;
            for (size_t j = 0; j < k; j++) nn += rr[j] * rr[j];
            nn = sqrt(nn * (dp_dot(xi, xi, d) + 1.0));
            ck_assert_double_gt(nn, C); /* every example is clipped */
            double sc = C / nn;
            for (size_t j = 0; j < k; j++)
                for (size_t c = 0; c <= d; c++)
                    ref[j * (d + 1) + c] += sc * rr[j] * (c < d ? xi[c] : 1.0);
        }
        for (size_t j = 0; j < P; j++) ref[j] = w0[j] - eta * (ref[j] / n + m.l2 * w0[j]);

        dp_train_cfg c = train_base_cfg(DP_ALGO_DP_SGD, n, 1);
        c.lr = eta;
        c.clip = C;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
        ck_assert_int_eq(res.iterations, 1);
        /* Not vacuous: the clipped sum of 120 unit-norm directions keeps a good part. */
        train_assert_clipped_step(m.w, w0, ref, P, eta, m.l2, C);
        dp_train_result_destroy(&res);
        free(w0);
        free(ref);
        dp_linear_destroy(&m);
    }
    train_data_free(&D);
}
END_TEST

// ---- train-3: sampling ------------------------------------------------------------------

/* Train sgd on the indicator problem and return per-example inclusion counts. */
static void inclusion_counts(size_t n, size_t b, int epochs, dp_sampling s, uint64_t seed,
                             double *count)
{
    double *x;
    int *y;
    indicator_data(n, &x, &y);
    dp_linear m;
    new_model(&m, DP_LOSS_LOGISTIC, n, 2, 0.0);
    dp_train_cfg c = train_base_cfg(DP_ALGO_SGD, b, epochs);
    c.sampling = s;
    c.lr = 1e-8;
    c.seed = seed;
    c.eval_every = epochs;
    dp_train_result res;
    ck_assert_int_eq(dp_train_linear(&m, &c, x, y, n, x, y, n, &res, NULL), DP_OK);
    for (size_t i = 0; i < n; i++) {
        count[i] = m.w[i] * 2.0 * (double)b / 1e-8;
        /* Whole numbers up to the O(1e-6) drift of the residual. */
        ck_assert_double_eq_tol(count[i], round(count[i]), 1e-3);
        count[i] = round(count[i]);
    }
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    free(x);
    free(y);
}

START_TEST(test_shuffle_batches)
{
    /* n = 50, b = 7: 7 disjoint batches per epoch, the 1 leftover example skipped, so
     * every example is used 0 or 1 times per epoch and exactly 49 per epoch overall. */
    enum { N = 50, EPOCHS = 6 };
    double count[N];
    inclusion_counts(N, 7, EPOCHS, DP_SAMPLING_SHUFFLE, 8, count);
    double total = 0.0;
    for (int i = 0; i < N; i++) {
        ck_assert(count[i] >= 0.0 && count[i] <= EPOCHS);
        total += count[i];
    }
    ck_assert_double_eq(total, 49.0 * EPOCHS);
}
END_TEST

START_TEST(test_poisson_rate)
{
    /* n = 200, b = 2: q = 0.01, 100 steps per epoch, 10 epochs. Counts c_i ~ Bin(1000, q)
     * independently: total mean n T q = 2000, sd sqrt(n T q (1 - q)) = 44.5; the sample
     * variance of the c_i estimates T q (1 - q) = 9.9 with se ~ 9.9 sqrt(2 / 199) = 0.99.
     * About 13% of the steps have an empty batch (0.99^200). */
    enum { N = 200 };
    double count[N];
    inclusion_counts(N, 2, 10, DP_SAMPLING_POISSON, 9, count);
    double total = 0.0, ss = 0.0;
    for (int i = 0; i < N; i++) total += count[i];
    double mean = total / N;
    for (int i = 0; i < N; i++) ss += (count[i] - mean) * (count[i] - mean);
    ck_assert_double_eq_tol(total, 2000.0, 5.0 * 44.5);
    ck_assert_double_eq_tol(ss / (N - 1), 9.9, 5.0 * 0.99);
}
END_TEST

START_TEST(test_wor_batches)
{
    /* n = 200, b = 20: 10 steps per epoch, 10 epochs, each step an independent uniform
     * 20-subset. Every step uses exactly b examples (total 2000), and each count is
     * Bin(100, 0.1) marginally: sample variance near 9 (se ~ 9 sqrt(2 / 199) = 0.9),
     * unlike shuffle where no example can be used twice in an epoch. */
    enum { N = 200, EPOCHS = 10 };
    double count[N];
    inclusion_counts(N, 20, EPOCHS, DP_SAMPLING_WOR, 11, count);
    double total = 0.0, ss = 0.0, max = 0.0;
    for (int i = 0; i < N; i++) {
        total += count[i];
        if (count[i] > max) max = count[i];
    }
    ck_assert_double_eq(total, 2000.0);
    for (int i = 0; i < N; i++) ss += (count[i] - 10.0) * (count[i] - 10.0);
    ck_assert_double_eq_tol(ss / (N - 1), 9.0, 5.0 * 0.9);
    ck_assert(max > EPOCHS); /* some example is drawn twice within an epoch */
}
END_TEST

/* train-3.5: a chunk whose indices are consecutive is read in place, any other is
 * copied (train.c batch_rows). On the indicator problem both must use exactly the rows
 * of the batch: shuffled passes with b = 1 (every batch a single row, read where it lies)
 * and b = 2 (some pairs consecutive, the others copied), and the full batch (all rows in
 * place, one step per epoch), use every example once per epoch. */
START_TEST(test_rows_in_place)
{
    enum { N = 40, EPOCHS = 3 };
    double count[N];
    const struct { size_t b; dp_sampling s; } cases[] = {
        {1, DP_SAMPLING_SHUFFLE}, {2, DP_SAMPLING_SHUFFLE}, {N, DP_SAMPLING_FULL}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        inclusion_counts(N, cases[k].b, EPOCHS, cases[k].s, 12, count);
        for (int i = 0; i < N; i++)
            ck_assert_msg(count[i] == EPOCHS, "b = %zu: example %d used %g times in %d epochs",
                          cases[k].b, i, count[i], (int)EPOCHS);
    }
}
END_TEST

START_TEST(test_poisson_tiny_q)
{
    /* q = 1/1000: about 37% of the 2000 steps have an empty batch (noise-only steps for
     * dp_sgd, pure weight decay for sgd). Nothing may crash or go non-finite. */
    train_data D;
    train_data_make(&D, 1334, 5, 2, 0.0, 10); /* 1000 train */
    for (int algo = 0; algo < 2; algo++) {
        dp_linear m;
        new_model(&m, DP_LOSS_LOGISTIC, 5, 2, 0.01);
        dp_train_cfg c = train_base_cfg(algo ? DP_ALGO_DP_SGD : DP_ALGO_SGD, 1, 2);
        c.sampling = DP_SAMPLING_POISSON;
        c.lr = 0.05;
        c.noise_multiplier = 1.0;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
        ck_assert_int_eq(res.iterations, 2000);
        ck_assert(!res.diverged);
        ck_assert(dp_all_finite(m.w, m.n_params));
        ck_assert(isfinite(res.final.train_loss) && isfinite(res.final.test_accuracy));
        dp_train_result_destroy(&res);
        dp_linear_destroy(&m);
    }
    train_data_free(&D);
}
END_TEST

// ---- train-4: divergence, learning, determinism -----------------------------------------

START_TEST(test_divergence)
{
    /* lr = 1e306 with mu = 1: the first step lands near 1e306, the second overflows.
     * Training stops, the weights are the last finite ones, and the reported metrics are
     * finite (here the initial point: the last finite weights' loss overflows too). */
    train_data D;
    train_data_make(&D, 200, 4, 2, 0.0, 11);
    dp_linear m;
    new_model(&m, DP_LOSS_LOGISTIC, 4, 2, 1.0);
    dp_train_cfg c = train_base_cfg(DP_ALGO_SGD, 10, 5);
    c.lr = 1e306;
    dp_train_result res;
    ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
    train_assert_diverged(&res, m.w, m.n_params);
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    train_data_free(&D);
}
END_TEST

START_TEST(test_learns_separable)
{
    train_data D;
    train_data_make(&D, 2000, 10, 2, 0.1, 12); /* 1500 train, 500 test, margin 0.1 */
    dp_linear m;
    new_model(&m, DP_LOSS_LOGISTIC, 10, 2, 0.0);
    dp_train_cfg c = train_base_cfg(DP_ALGO_SGD, 50, 20);
    c.lr = 2.0;
    c.eval_every = 5;
    dp_train_result res;
    ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
    ck_assert(!res.diverged);
    ck_assert_double_ge(res.final.test_accuracy, 0.97);
    for (size_t i = 1; i < res.n_curve; i++)
        ck_assert_double_lt(res.curve[i].train_loss, res.curve[i - 1].train_loss);
    ck_assert_double_lt(res.final.train_loss, 0.5 * log(2.0));
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    train_data_free(&D);

    /* Softmax, 4 classes, DP-SGD with mild noise still learns. */
    train_data_make(&D, 2000, 5, 4, 0.1, 13);
    new_model(&m, DP_LOSS_SOFTMAX, 5, 4, 1e-4);
    c = train_base_cfg(DP_ALGO_DP_SGD, 100, 20);
    c.lr = 2.0;
    c.clip = 1.0;
    c.noise_multiplier = 0.5;
    c.sampling = DP_SAMPLING_POISSON;
    c.eval_every = 10;
    ck_assert_int_eq(train(&m, &c, &D, &res, NULL), DP_OK);
    ck_assert_double_ge(res.final.test_accuracy, 0.9);
    ck_assert_double_lt(res.final.train_loss, res.curve[0].train_loss);
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    train_data_free(&D);
}
END_TEST

START_TEST(test_determinism)
{
    train_data D;
    train_data_make(&D, 500, 6, 3, 0.0, 14);
    dp_train_result r1, r2, r3;
    dp_linear a, b, e;
    new_model(&a, DP_LOSS_SOFTMAX, 6, 3, 1e-3);
    new_model(&b, DP_LOSS_SOFTMAX, 6, 3, 1e-3);
    new_model(&e, DP_LOSS_SOFTMAX, 6, 3, 1e-3);
    dp_train_cfg c = train_base_cfg(DP_ALGO_DP_SGD, 25, 3);
    c.sampling = DP_SAMPLING_POISSON;
    c.clip = 0.5;
    c.noise_multiplier = 1.1;
    ck_assert_int_eq(train(&a, &c, &D, &r1, NULL), DP_OK);
    ck_assert_int_eq(train(&b, &c, &D, &r2, NULL), DP_OK);
    c.seed = 2;
    ck_assert_int_eq(train(&e, &c, &D, &r3, NULL), DP_OK);
    train_assert_deterministic(a.w, b.w, e.w, a.n_params, &r1, &r2, &r3);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    dp_linear_destroy(&e);
    train_data_free(&D);
}
END_TEST

/* Read-outs (cfg.eval_epochs) add curve points at the end of the listed epochs and
 * change nothing else: the same weights and final point, bit for bit, as without them. */
START_TEST(test_readout_epochs)
{
    train_data D;
    train_data_make(&D, 400, 5, 2, 0.0, 4); /* 300 train: 7 steps per epoch with b = 40 */
    dp_linear a, b;
    new_model(&a, DP_LOSS_LOGISTIC, 5, 2, 0.01);
    new_model(&b, DP_LOSS_LOGISTIC, 5, 2, 0.01);
    dp_train_cfg c = train_base_cfg(DP_ALGO_DP_SGD, 40, 7);
    c.sampling = DP_SAMPLING_POISSON;
    c.noise_multiplier = 1.1;
    c.eval_every = 100;
    dp_train_result plain, read;
    ck_assert_int_eq(train(&a, &c, &D, &plain, NULL), DP_OK);
    static const int epochs[] = {2, 5, 7};
    c.eval_epochs = epochs;
    c.n_eval_epochs = 3;
    ck_assert_int_eq(train(&b, &c, &D, &read, NULL), DP_OK);
    ck_assert_int_eq(memcmp(a.w, b.w, a.n_params * sizeof *a.w), 0);
    ck_assert_int_eq(memcmp(&plain.final, &read.final, sizeof plain.final), 0);
    ck_assert_uint_eq(plain.n_curve, 2); /* iteration 0 and the end */
    ck_assert_uint_eq(read.n_curve, 4);  /* 0, epochs 2 and 5, the end (epoch 7, once) */
    ck_assert_int_eq(read.curve[1].iteration, 14);
    ck_assert_int_eq(read.curve[2].iteration, 35);
    ck_assert_int_eq(read.curve[3].iteration, 49);
    dp_train_result_destroy(&plain);
    dp_train_result_destroy(&read);
    /* a list that does not ascend within 1..epochs is refused */
    static const int bad[][2] = {{5, 2}, {3, 8}, {0, 2}};
    for (size_t k = 0; k < 3; k++) {
        c.eval_epochs = bad[k];
        c.n_eval_epochs = 2;
        expect_invalid(&c, &D, "read-out epoch");
    }
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    train_data_free(&D);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("train");
    test_add_case(s, "train-1.1", test_validation, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-1.2", test_curve_layout, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-1.3", test_lr_schedules, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-2.1", test_sgd_equals_dpsgd, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-2.2", test_noise_variance, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-2.3", test_clipping, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-3.1", test_shuffle_batches, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-3.2", test_poisson_rate, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-3.3", test_poisson_tiny_q, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-3.4", test_wor_batches, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-3.5", test_rows_in_place, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-4.1", test_divergence, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-4.2", test_learns_separable, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-4.3", test_determinism, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "train-4.4", test_readout_epochs, TRAIN_CASE_TIMEOUT);
    return test_run_suite(s);
}
