/* test_train_reg.c: the first-order loop on regression models (algorithms/train.c,
 * dp_train_linear_reg): squared and Huber losses (Zhang17 §5's Huber regression) on real
 * targets.
 *
 * Probes: full-batch GD on the squared loss with l2 converges to the ridge solution,
 * which the test computes from the normal equations; sgd == dp_sgd with sigma = 0 and
 * C = inf bit for bit; one private step minus one plain step is exactly the noise
 * -eta N(0, (sigma C)^2 I) / b (chi-square over the coordinates, 5 sd).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/linear.h"
#include "algorithms/train.h"
#include "tests/unit/test_util.h"

enum { D = 3, NTR = 200, NTE = 50 };

typedef struct regdata {
    double xtr[NTR * D], ttr[NTR], xte[NTE * D], tte[NTE];
} regdata;

/* t = 0.5 x0 - 0.25 x1 + 0.1 x2 + 0.2 + noise, x uniform in [-0.5, 0.5]^3 (rows in the
 * unit ball). */
static void make(regdata *r, uint64_t seed)
{
    dp_rng g;
    dp_rng_init(&g, seed, DP_STREAM_TEST);
    const double w[D] = {0.5, -0.25, 0.1};
    for (int i = 0; i < NTR + NTE; i++) {
        double *x = i < NTR ? r->xtr + i * D : r->xte + (i - NTR) * D;
        double t = 0.2 + 0.05 * dp_rng_gaussian(&g);
        for (int j = 0; j < D; j++) {
            x[j] = dp_rng_uniform(&g) - 0.5;
            t += w[j] * x[j];
        }
        if (i < NTR) r->ttr[i] = t;
        else r->tte[i - NTR] = t;
    }
}

static dp_train_cfg cfg(dp_algorithm a, size_t b, int epochs)
{
    return (dp_train_cfg){.algorithm = a, .epochs = epochs, .batch_size = b,
                          .sampling = DP_SAMPLING_SHUFFLE, .lr_schedule = DP_LR_CONSTANT,
                          .lr = 0.5, .clip = 1.0, .eval_every = 1, .seed = 4};
}

static dp_train_result train(dp_linear *m, dp_loss_kind loss, double l2, const dp_train_cfg *c,
                             const regdata *r)
{
    ck_assert_int_eq(dp_linear_init_regression(m, loss, D, 0.1, l2, NULL), DP_OK);
    dp_train_result res;
    dp_err e;
    dp_err_clear(&e);
    int rc = dp_train_linear_reg(m, c, r->xtr, r->ttr, NTR, r->xte, r->tte, NTE, &res, &e);
    ck_assert_msg(rc == DP_OK, "%s", e.msg);
    return res;
}

/* reg-1.1: GD on the squared loss with l2 mu reaches the ridge solution: w* solves
 * (X1^T X1 / n + mu I) w = X1^T t / n, X1 = [X 1] (the bias is regularized too, as
 * linear.h says). Solved here by Gaussian elimination on the 4 x 4 system; 3000 steps
 * of rate 1 contract the error far below the 1e-9 tolerance (the system is well
 * conditioned: eigenvalues between ~0.08 and ~1.1). The curve reports rmse, not
 * accuracy. */
START_TEST(test_gd_reaches_ridge)
{
    regdata r;
    make(&r, 1);
    const double mu = 1e-2;
    double A[4][5] = {{0}};
    for (int i = 0; i < NTR; i++) {
        double x1[4] = {r.xtr[i * D], r.xtr[i * D + 1], r.xtr[i * D + 2], 1.0};
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) A[a][b] += x1[a] * x1[b] / NTR;
            A[a][4] += x1[a] * r.ttr[i] / NTR;
        }
    }
    for (int a = 0; a < 4; a++) A[a][a] += mu;
    for (int p = 0; p < 4; p++)
        for (int q = p + 1; q < 4; q++) {
            double f = A[q][p] / A[p][p];
            for (int c = p; c < 5; c++) A[q][c] -= f * A[p][c];
        }
    double w[4];
    for (int p = 3; p >= 0; p--) {
        double v = A[p][4];
        for (int c = p + 1; c < 4; c++) v -= A[p][c] * w[c];
        w[p] = v / A[p][p];
    }
    dp_train_cfg c = cfg(DP_ALGO_SGD, NTR, 3000);
    c.sampling = DP_SAMPLING_FULL;
    c.lr = 1.0;
    c.eval_every = 1000;
    dp_linear m;
    dp_train_result res = train(&m, DP_LOSS_SQUARED, mu, &c, &r);
    for (int j = 0; j < 4; j++) ck_assert_double_eq_tol(m.w[j], w[j], 1e-9);
    ck_assert(isnan(res.final.test_accuracy));
    ck_assert(isfinite(res.final.test_rmse) && res.final.test_rmse < 0.1);
    ck_assert_double_lt(res.final.grad_norm, 1e-9);
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
}
END_TEST

/* reg-1.2: Huber: sgd and dp_sgd with sigma = 0, C = inf are bit-identical; and one
 * private step differs from the plain one by exactly the noise: with P = 4 coordinates a
 * single step says little, so 400 seeds are pooled: sum of squared differences /
 * (v0 P) ~ chi-square(400 P) / (400 P), accepted within 5 sd of 1. */
START_TEST(test_huber_sgd_dpsgd)
{
    regdata r;
    make(&r, 2);
    dp_train_cfg a = cfg(DP_ALGO_SGD, 20, 3);
    dp_train_cfg b = a;
    b.algorithm = DP_ALGO_DP_SGD;
    b.clip = INFINITY;
    dp_linear ma, mb;
    dp_train_result ra = train(&ma, DP_LOSS_HUBER, 1e-3, &a, &r);
    dp_train_result rb = train(&mb, DP_LOSS_HUBER, 1e-3, &b, &r);
    ck_assert_int_eq(memcmp(ma.w, mb.w, sizeof ma.w[0] * ma.n_params), 0);
    dp_train_result_destroy(&ra), dp_train_result_destroy(&rb);
    dp_linear_destroy(&ma), dp_linear_destroy(&mb);

    double ss = 0.0, v0 = pow(0.5 * 0.8 * 10.0 / 20.0, 2);
    const int seeds = 400;
    for (int sd = 0; sd < seeds; sd++) {
        dp_train_cfg p = cfg(DP_ALGO_SGD, 20, 1);
        p.seed = 100 + (uint64_t)sd;
        dp_train_cfg q = p;
        q.algorithm = DP_ALGO_DP_SGD;
        q.clip = 10.0; /* above every per-example norm: |residual clamp| <= 0.1 */
        q.noise_multiplier = 0.8;
        /* one step: an epoch of b = n */
        p.batch_size = q.batch_size = NTR;
        dp_linear mp, mq;
        dp_train_result rp = train(&mp, DP_LOSS_HUBER, 0.0, &p, &r);
        dp_train_result rq = train(&mq, DP_LOSS_HUBER, 0.0, &q, &r);
        for (size_t j = 0; j < mp.n_params; j++) ss += pow(mq.w[j] - mp.w[j], 2);
        dp_train_result_destroy(&rp), dp_train_result_destroy(&rq);
        dp_linear_destroy(&mp), dp_linear_destroy(&mq);
    }
    v0 = pow(0.5 * 0.8 * 10.0 / NTR, 2);
    double k = seeds * 4.0, ratio = ss / (v0 * k);
    ck_assert_msg(fabs(ratio - 1.0) < 5.0 * sqrt(2.0 / k), "noise ratio %g", ratio);
}
END_TEST

/* reg-1.3: a classifier is refused by the regression entry point and the other way
 * round, and a non-finite target is named. */
START_TEST(test_validation)
{
    regdata r;
    make(&r, 3);
    dp_train_cfg c = cfg(DP_ALGO_SGD, 10, 1);
    dp_linear m;
    dp_train_result res;
    dp_err e;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, D, 2, 0.0, NULL), DP_OK);
    ck_assert_int_eq(dp_train_linear_reg(&m, &c, r.xtr, r.ttr, NTR, r.xte, r.tte, NTE, &res, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "regression model"));
    dp_linear_destroy(&m);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_SQUARED, D, 0, 0.0, NULL), DP_OK);
    int y[NTR] = {0};
    ck_assert_int_eq(dp_train_linear(&m, &c, r.xtr, y, NTR, r.xte, y, NTE, &res, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "dp_train_linear_reg"));
    r.ttr[17] = NAN;
    ck_assert_int_eq(dp_train_linear_reg(&m, &c, r.xtr, r.ttr, NTR, r.xte, r.tte, NTE, &res, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "training target t[17]"));
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("train_reg");
    test_add_case(s, "reg-1.1", test_gd_reaches_ridge, 60);
    test_add_case(s, "reg-1.2", test_huber_sgd_dpsgd, 60);
    test_add_case(s, "reg-1.3", test_validation, 60);
    return test_run_suite(s);
}
