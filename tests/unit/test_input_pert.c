/* test_input_pert.c: Check suite "input_pert" for algorithms/input_pert.c (InputPert
 * Alg. 1, Thm 1).
 *
 * ip-1.*  the plan: Thm 1's sigma^2 with dperm's c, evaluated with Python's math module
 *         (relative 1e-12); preconditions.
 * ip-2.*  noise off is dperm's gd on the clean data bit for bit.
 * ip-3.*  the feature noise has variance sigma^2, is independent of the row, and touches
 *         the features only.
 * ip-4.*  the released model's clean training loss falls as epsilon grows.
 * ip-5.*  Huber regression: noise off is dperm's regression gd bit for bit; with noise
 *         the final point is evaluated on the clean rows.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/convex_fixture.h"

#include <stdlib.h>

#include "algorithms/input_pert.h"

static dp_input_pert_cfg base_cfg(void)
{
    return (dp_input_pert_cfg){.eps = 1.0, .delta = 1e-5, .feature_bound = 1.0,
                               .iterations = 50, .eval_every = 10, .noise = 1, .seed = 1};
}

START_TEST(test_plan)
{
    /* G = sqrt 2 (B = 1), Delta = 0.1, T = 50, n = 1000, eps 1, delta 1e-5:
     * c = 2 ln(1.25e5) / ln(1e5) = 2.0387640052032223,
     * sigma^2 = c G^2 T ln(1/delta) / (n (n-1) sqrt(Delta) eps^2) = 0.007429971745423535 */
    dp_linear m = fixture_logistic(5, 0.1);
    dp_input_pert_cfg c = base_cfg();
    dp_input_pert_plan p;
    ck_assert_int_eq(dp_input_pert_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(REL(p.c, 2.0387640052032223) <= 1e-12);
    ck_assert(REL(p.sigma2, 0.007429971745423535) <= 1e-12);
    ck_assert(REL(p.sigma * p.sigma, p.sigma2) <= 1e-15);
    ck_assert(REL(p.step, 1.0 / 0.6) <= 1e-15 && p.step_default); /* 1/(1/2 + 0.1) */
    /* sigma^2 is linear in c and T */
    c.c = 4.0;
    c.iterations = 100;
    dp_input_pert_plan q;
    ck_assert_int_eq(dp_input_pert_make_plan(&m, &c, 1000, &q, NULL), 0);
    ck_assert(REL(q.sigma2, p.sigma2 * 2.0 * 4.0 / p.c) <= 1e-12);
    dp_err e;
    ck_assert_int_eq(dp_input_pert_make_plan(&m, &c, 1, &q, &e), DP_EPRIVACY);
    dp_linear_destroy(&m);
    m = fixture_logistic(5, 0.0);
    ck_assert_int_eq(dp_input_pert_make_plan(&m, &c, 1000, &q, &e), DP_EINVAL);
    ck_assert(strstr(e.msg, "strongly convex") != NULL);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_noise_off_is_gd)
{
    fixture f;
    fixture_make(&f, 500, 400, 4, 8);
    dp_linear a = fixture_logistic(4, 0.05), b = fixture_logistic(4, 0.05);
    dp_input_pert_cfg c = base_cfg();
    c.noise = 0;
    dp_input_pert_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_input_pert_train(&a, &c, &f.tr, &f.te, &p, &ra, NULL), 0);
    dp_train_cfg gd = fixture_gd_cfg(f.train.n, 50, p.step, 10, 1);
    fixture_train_linear(&b, &gd, &f, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    train_pair_free(&a, &b, &ra, &rb);
    fixture_free(&f);
}
END_TEST

START_TEST(test_feature_noise)
{
    /* 10000 rows of 5 features: x + Z - x has variance sigma^2; rows are not
     * correlated (the lag-one products of row means average to 0 within 5 standard
     * errors); x itself is untouched when xp differs */
    const size_t n = 10000, d = 5;
    double *x = malloc(n * d * sizeof *x), *xp = malloc(n * d * sizeof *xp);
    for (size_t i = 0; i < n * d; i++) x[i] = (double)(i % 7) / 7.0;
    dp_noise r;
    dp_noise_init(&r, 5, DP_STREAM_NOISE, 0, NULL);
    dp_input_pert_perturb(&r, xp, x, n, d, 0.3);
    for (size_t i = 0; i < n * d; i++) xp[i] -= x[i];
    assert_variance(xp, n * d, 0.09, "ip-3.1 feature noise");
    double lag = 0;
    for (size_t i = 1; i < n; i++) lag += xp[(i - 1) * d] * xp[i * d];
    lag /= (double)(n - 1);
    ck_assert_msg(fabs(lag) <= 5 * 0.09 / sqrt((double)n), "lag-one product %g", lag);
    ck_assert(x[8] == 1.0 / 7.0);
    free(x);
    free(xp);
}
END_TEST

/* One run at eps with seed on m (convex_fixture.h's sweep: the released model is
 * evaluated on the clean rows). */
static void train_at(dp_linear *m, const fixture *f, double eps, uint64_t seed, int noise,
                     dp_train_result *r)
{
    dp_input_pert_cfg c = base_cfg();
    c.eps = eps;
    c.seed = seed;
    c.eval_every = 1000;
    c.noise = noise;
    dp_input_pert_plan p;
    ck_assert_int_eq(dp_input_pert_train(m, &c, &f->tr, &f->te, &p, r, NULL), 0);
}

START_TEST(test_loss_falls_with_eps)
{
    /* Mean over 8 seeds of the released model's clean regularized training loss at eps
     * 0.1, 0.5, 2.5 (sigma ~ 1/eps): strictly decreasing, and at eps 2.5 within 0.01 of
     * GD on the clean data (the first run's config with the noise off) */
    fixture f;
    fixture_make(&f, 1200, 1000, 5, 12);
    const fixture_sweep sw = {.train = train_at, .d = 5, .l2 = 0.1, .eps = {0.1, 0.5, 2.5},
                              .seeds = 8, .seed0 = 300};
    double mean[3];
    fixture_assert_falls_with_eps(&f, &sw, mean);
    double clean = fixture_sweep_run(&f, &sw, sw.eps[0], 300, 0);
    ck_assert_msg(fabs(mean[2] - clean) < 0.01, "eps 2.5: %g vs clean %g", mean[2], clean);
    fixture_free(&f);
}
END_TEST

START_TEST(test_huber)
{
    double *x, *t;
    dp_cvx_set tr, te;
    fixture_regression(300, 250, 3, 3, &x, &t, &tr, &te);
    dp_linear a = fixture_huber(3, 0.5, 0.5), b = fixture_huber(3, 0.5, 0.5);
    dp_input_pert_cfg c = base_cfg();
    c.noise = 0;
    dp_input_pert_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_input_pert_train(&a, &c, &tr, &te, &p, &ra, NULL), 0);
    ck_assert(REL(p.step, 1.0 / 2.5) <= 1e-15); /* 1/(B^2 + 1 + mu) */
    dp_train_cfg gd = fixture_gd_cfg(tr.n, 50, p.step, 10, 1);
    fixture_train_reg(&b, &gd, &tr, &te, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    /* with noise: the released point is on the clean rows, as dp_cvx_evaluate gives it */
    dp_linear_destroy(&a);
    a = fixture_huber(3, 0.5, 0.5);
    c.noise = 1;
    ck_assert_int_eq(dp_input_pert_train(&a, &c, &tr, &te, &p, &ra, NULL), 0);
    dp_curve_point pt = {0};
    ck_assert_int_eq(dp_cvx_evaluate(&a, &tr, &te, &pt, NULL), 0);
    ck_assert(pt.train_loss == ra.final.train_loss && pt.test_rmse == ra.final.test_rmse);
    dp_train_result_destroy(&ra);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    free(x);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("input_pert");
    test_add_case(s, "ip-1.1", test_plan, 10);
    test_add_case(s, "ip-2.1", test_noise_off_is_gd, 30);
    test_add_case(s, "ip-3.1", test_feature_noise, 30);
    test_add_case(s, "ip-4.1", test_loss_falls_with_eps, 60);
    test_add_case(s, "ip-5.1", test_huber, 30);
    return test_run_suite(s);
}
