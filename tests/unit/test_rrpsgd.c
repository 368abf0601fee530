/* test_rrpsgd.c: Check suite "rrpsgd" for algorithms/rrpsgd.c (Zhang17 Alg. 2).
 *
 * rr-1.*  the plan against Alg. 2 / Thm 5 evaluated with Python's math module (relative
 *         1e-12); preconditions (eps > 1, rounds > n^2, eta >= 2/beta).
 * rr-2.*  R: the same draw as dp_thm_zhang17_rrpsgd_draw_round_const for m = n^2, and
 *         uniform on {1..m} (chi-square over 20000 seeds).
 * rr-3.*  noise off for R = 3n rounds is dperm's sgd (wor batches of one) bit for bit.
 * rr-4.*  one round's noise has variance sigma^2 (over 400 seeds).
 * rr-5.*  the final loss falls as epsilon grows (mean over seeds, fixed R).
 * rr-6.*  Huber regression: noise off is dperm's sgd for regression bit for bit; Thm 5's
 *         step needs D_F, so a regression plan without a step is refused.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/convex_fixture.h"

#include <stdlib.h>

#include "algorithms/privacy/theorems.h"
#include "algorithms/rrpsgd.h"

static dp_rrpsgd_cfg base_cfg(void)
{
    return (dp_rrpsgd_cfg){.eps = 0.5, .delta = 1e-3, .feature_bound = 1.0, .eval_every = 100,
                           .noise = 1, .seed = 1};
}

START_TEST(test_plan)
{
    /* logistic d = 5 (p = 6), B = 1, mu = 0.01, n = 1000, eps 0.5, delta 1e-3:
     * s = sqrt(4 L^2 ln(3n/delta) ln(2/delta)) / eps = 60.22910738887128,
     * Thm 5 sigma^2 = 4 L^2 + p s^2 = 21773.27226116113,
     * D_F = sqrt(2 ln 2 / 0.51) = 1.6487038052633898,
     * eta = min(1/0.51, D_F / (sigma n)) = 1.1173282739529085e-05 */
    dp_linear m = fixture_logistic(5, 0.01);
    dp_rrpsgd_cfg c = base_cfg();
    dp_rrpsgd_plan p;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(REL(p.sigma, 60.22910738887128) <= 1e-12);
    ck_assert(REL(p.sigma2_thm5, 21773.27226116113) <= 1e-12);
    ck_assert(REL(p.D_F, 1.6487038052633898) <= 1e-12);
    ck_assert(REL(p.eta, 1.1173282739529085e-05) <= 1e-12);
    ck_assert(p.m == 1000000 && p.step_from_theorem);
    dp_err e;
    c.eps = 1.5;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 1000, &p, &e), DP_EPRIVACY);
    c.eps = 0.5;
    c.rounds = 1000001;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 1000, &p, &e), DP_EPRIVACY);
    c.rounds = 5000;
    c.step = 2.0 / 0.51;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 1000, &p, &e), DP_EPRIVACY);
    c.step = 0.1;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(p.m == 5000 && p.eta == 0.1 && !p.step_from_theorem);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_round)
{
    dp_linear m = fixture_logistic(2, 0.0);
    dp_rrpsgd_cfg c = base_cfg();
    dp_rrpsgd_plan p;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 300, &p, NULL), 0);
    for (uint64_t seed = 1; seed < 50; seed++) {
        dp_rng r;
        long R2;
        dp_rng_init(&r, seed, DP_STREAM_ALGO);
        ck_assert_int_eq(dp_thm_zhang17_rrpsgd_draw_round_const(&r, 300, &R2, NULL), 0);
        ck_assert_int_eq(dp_rrpsgd_draw_round(seed, &p), R2);
    }
    /* m = 10: counts over 20000 seeds against uniform; chi-square with 9 degrees of
     * freedom stays below 33.7 with probability 0.9999 */
    c.rounds = 10;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&m, &c, 300, &p, NULL), 0);
    long cnt[10] = {0};
    for (uint64_t seed = 0; seed < 20000; seed++) {
        long R = dp_rrpsgd_draw_round(seed, &p);
        ck_assert(R >= 1 && R <= 10);
        cnt[R - 1]++;
    }
    double chi = 0;
    for (int k = 0; k < 10; k++) chi += pow((double)cnt[k] - 2000.0, 2) / 2000.0;
    ck_assert_msg(chi < 33.7, "chi-square %g", chi);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_noise_off_is_sgd)
{
    fixture f;
    fixture_make(&f, 400, 300, 4, 3);
    dp_linear a = fixture_logistic(4, 0.05), b = fixture_logistic(4, 0.05);
    dp_rrpsgd_cfg c = base_cfg();
    c.noise = 0;
    c.step = 0.3;
    dp_rrpsgd_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&a, &c, f.train.n, &p, NULL), 0);
    ck_assert_int_eq(dp_rrpsgd_run(&a, &c, &p, 3 * (long)f.train.n, &f.tr, &f.te, &ra, NULL), 0);
    dp_train_cfg t = fixture_sgd_cfg(DP_SAMPLING_WOR, 1, 3, 0.3, 1, 1);
    fixture_train_linear(&b, &t, &f, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    ck_assert_int_eq(ra.iterations, 900);
    train_pair_free(&a, &b, &ra, &rb);
    fixture_free(&f);
}
END_TEST

/* R = 1: w_1(noise) - w_1(clean) = -eta z_0, so z_0 = -(difference)/eta */
static double round_noise(const fixture *f, size_t k, double *z, size_t P)
{
    dp_rrpsgd_cfg c = base_cfg();
    c.seed = 900 + k;
    c.step = 0.01;
    dp_linear a = fixture_logistic(3, 0.1), b = fixture_logistic(3, 0.1);
    dp_rrpsgd_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&a, &c, f->train.n, &p, NULL), 0);
    ck_assert_int_eq(dp_rrpsgd_run(&a, &c, &p, 1, &f->tr, &f->te, &ra, NULL), 0);
    c.noise = 0;
    ck_assert_int_eq(dp_rrpsgd_run(&b, &c, &p, 1, &f->tr, &f->te, &rb, NULL), 0);
    for (size_t j = 0; j < P; j++) z[j] = -(a.w[j] - b.w[j]) / 0.01;
    ck_assert(ra.noise_std == p.sigma);
    train_pair_free(&a, &b, &ra, &rb);
    return p.sigma;
}

START_TEST(test_round_noise)
{
    /* 400 seeds of one round's 4 coordinates */
    fixture f;
    fixture_make(&f, 100, 80, 3, 9);
    fixture_assert_noise(&f, 400, 4, round_noise, "rr-4.1 round noise");
    fixture_free(&f);
}
END_TEST

/* R = 5000 rounds of Thm 5's step at eps with seed on m (convex_fixture.h's sweep). */
static void train_at(dp_linear *m, const fixture *f, double eps, uint64_t seed, int noise,
                     dp_train_result *r)
{
    dp_rrpsgd_cfg c = base_cfg();
    c.eps = eps;
    c.seed = seed;
    c.eval_every = 100000;
    c.noise = noise;
    dp_rrpsgd_plan p;
    ck_assert_int_eq(dp_rrpsgd_make_plan(m, &c, f->train.n, &p, NULL), 0);
    ck_assert_int_eq(dp_rrpsgd_run(m, &c, &p, 5000, &f->tr, &f->te, r, NULL), 0);
}

START_TEST(test_loss_falls_with_eps)
{
    /* n = 500, R = 5000 rounds of Thm 5's step, mean over 10 seeds of ||grad F(w_R)||^2,
     * Zhang17's measure for Alg. 2 (Thm 5: it scales like 1/eps), at eps 0.05, 0.2 and 1:
     * strictly decreasing */
    fixture f;
    fixture_make(&f, 600, 500, 4, 6);
    const fixture_sweep sw = {.train = train_at, .d = 4, .l2 = 0.05, .eps = {0.05, 0.2, 1.0},
                              .seeds = 10, .seed0 = 40, .grad2 = 1};
    double mean[3];
    fixture_assert_falls_with_eps(&f, &sw, mean);
    fixture_free(&f);
}
END_TEST

START_TEST(test_huber)
{
    const size_t n = 200, d = 3;
    double *x = malloc(n * d * sizeof *x), *t = malloc(n * sizeof *t);
    dp_rng r;
    dp_rng_init(&r, 8, DP_STREAM_TEST);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++) x[i * d + j] = 0.5 * (dp_rng_uniform(&r) - 0.5);
        t[i] = x[i * d] + 0.3 + 0.1 * dp_rng_gaussian(&r);
    }
    dp_cvx_set tr = {x, NULL, t, 160}, te = {x + 160 * d, NULL, t + 160, 40};
    dp_linear a = fixture_huber(d, 1.0, 0.1), b = fixture_huber(d, 1.0, 0.1);
    dp_rrpsgd_cfg c = base_cfg();
    dp_rrpsgd_plan p;
    dp_err e;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&a, &c, 160, &p, &e), DP_EINVAL);
    ck_assert(strstr(e.msg, "D_F") != NULL);
    c.step = 0.2;
    c.noise = 0;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&a, &c, 160, &p, NULL), 0);
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_rrpsgd_run(&a, &c, &p, 320, &tr, &te, &ra, NULL), 0);
    dp_train_cfg s = fixture_sgd_cfg(DP_SAMPLING_WOR, 1, 2, 0.2, 1, 1);
    fixture_train_reg(&b, &s, &tr, &te, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    ck_assert(isfinite(ra.final.test_rmse));
    train_pair_free(&a, &b, &ra, &rb);
    free(x);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rrpsgd");
    test_add_case(s, "rr-1.1", test_plan, 10);
    test_add_case(s, "rr-2.1", test_round, 30);
    test_add_case(s, "rr-3.1", test_noise_off_is_sgd, 30);
    test_add_case(s, "rr-4.1", test_round_noise, 60);
    test_add_case(s, "rr-5.1", test_loss_falls_with_eps, 60);
    test_add_case(s, "rr-6.1", test_huber, 30);
    return test_run_suite(s);
}
