/* test_output_pert.c: Check suite "output_pert" for algorithms/output_pert.c (Zhang17
 * Alg. 1) and the shared constants of algorithms/convex_common.c.
 *
 * Hand values are the papers' formulas evaluated in double precision with Python's math
 * module (quoted at each check; relative tolerance 1e-12, a few ulps of the chain of
 * logs and roots).
 * op-1.*  constants (convex_common.c) and plans: Thm 2 (mu > 0) and Thm 3 (mu = 0),
 *         overrides, preconditions.
 * op-2.*  noise off is dperm's gd bit for bit.
 * op-3.*  the noise: Gaussian variance sigma^2 per coordinate; the high-dimensional
 *         Laplace's norm Gamma(p, Delta/eps); end to end, w_priv - w_T has the plan's
 *         variance.
 * op-4.*  the released model's loss falls as epsilon grows (mean over seeds).
 * op-5.*  rows outside the feature bound are refused.
 * op-6.*  Huber regression (Zhang17 §4): noise off is dperm's gd for regression bit for
 *         bit, and the plan uses the Huber constants.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/convex_fixture.h"

#include <stdlib.h>

#include "algorithms/output_pert.h"

static dp_output_pert_cfg base_cfg(void)
{
    return (dp_output_pert_cfg){.eps = 1.0, .delta = 1e-3, .mechanism = DP_OUTPUT_GAUSSIAN,
                                .feature_bound = 1.0, .eval_every = 1, .noise = 1, .seed = 1};
}

START_TEST(test_constants)
{
    double L, beta;
    dp_linear m = fixture_logistic(3, 0.0);
    /* logistic, B = 2: L = sqrt(5), beta = 5/4 */
    ck_assert_int_eq(dp_cvx_constants(&m, 2.0, &L, &beta, NULL), 0);
    ck_assert(REL(L, sqrt(5.0)) <= 1e-15 && REL(beta, 1.25) <= 1e-15);
    dp_linear_destroy(&m);
    m = fixture_linear(DP_LOSS_SOFTMAX, 3, 4, 0.0);
    /* softmax, B = 1: L = sqrt(2 * 2) = 2, beta = 2/2 = 1 */
    ck_assert_int_eq(dp_cvx_constants(&m, 1.0, &L, &beta, NULL), 0);
    ck_assert(REL(L, 2.0) <= 1e-15 && REL(beta, 1.0) <= 1e-15);
    double F0;
    ck_assert_int_eq(dp_cvx_zero_loss(&m, &F0, NULL), 0);
    ck_assert(REL(F0, log(4.0)) <= 1e-15);
    dp_linear_destroy(&m);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, 3, 0.5, 0.0, NULL), 0);
    /* Huber delta 0.5, B = 1: L = 0.5 sqrt(2), beta = 2 (linear.h) */
    ck_assert_int_eq(dp_cvx_constants(&m, 1.0, &L, &beta, NULL), 0);
    ck_assert(REL(L, 0.5 * sqrt(2.0)) <= 1e-15 && REL(beta, 2.0) <= 1e-15);
    ck_assert_int_eq(dp_cvx_zero_loss(&m, &F0, NULL), DP_EINVAL);
    dp_linear_destroy(&m);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_SQUARED, 3, 0.0, 0.0, NULL), 0);
    dp_err e;
    ck_assert_int_eq(dp_cvx_constants(&m, 1.0, &L, &beta, &e), DP_EINVAL);
    ck_assert(strstr(e.msg, "not Lipschitz") != NULL);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_plan_thm2)
{
    /* logistic, d = 5 (p = 6), B = 1, mu = 0.1, n = 1000, eps 1, delta 1e-3:
     * L = sqrt 2, beta = 0.5 + 0.1, D = sqrt(2 ln 2 / 0.1) = 3.723297411059034,
     * eta = 1/(mu + beta) = 1.4285714285714286, Delta = 5 L (1 + beta/mu)/(n beta)
     * = 0.08249579113843053, T = ceil(7.1666 * log(mu^2 n^2 D^2 / (2 * 6 ln 1000))) = 46,
     * sigma = Delta sqrt(2 ln 2000) = 0.32164689944338803. */
    dp_linear m = fixture_logistic(5, 0.1);
    dp_output_pert_cfg c = base_cfg();
    dp_output_pert_plan p;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert_int_eq(p.theorem, 2);
    ck_assert(REL(p.D, 3.723297411059034) <= 1e-12);
    ck_assert(REL(p.eta, 1.4285714285714286) <= 1e-12);
    ck_assert(REL(p.sens, 0.08249579113843053) <= 1e-12);
    ck_assert_int_eq(p.T, 46);
    ck_assert(REL(p.noise_scale, 0.32164689944338803) <= 1e-12);
    ck_assert(p.T_from_theorem && p.eta_from_theorem);
    /* eps-DP: p^2 in the log gives T = 47, the Gamma scale is Delta/eps and the
     * per-coordinate std sqrt(p + 1) Delta/eps = 0.21826334756181323 */
    c.mechanism = DP_OUTPUT_LAPLACE;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert_int_eq(p.T, 47);
    ck_assert(REL(p.noise_scale, 0.08249579113843053) <= 1e-12);
    ck_assert(REL(p.noise_std, 0.21826334756181323) <= 1e-12);
    /* Lemma 3 needs eta <= 1/(beta + mu) = 1/0.7 */
    c.step = 1.0 / 0.69;
    dp_err e;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, &e), DP_EPRIVACY);
    c.step = 0.5;
    c.iterations = 7;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(!p.T_from_theorem && !p.eta_from_theorem && p.T == 7 && p.eta == 0.5);
    /* Lemma 3's Delta does not depend on T or eta */
    ck_assert(REL(p.sens, 0.08249579113843053) <= 1e-12);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_plan_thm3)
{
    /* mu = 0, D = 3, otherwise as op-1.2: eta = 1/beta = 2, T = ceil((0.25 n^2 9 /
     * (2 * 6 ln 1000))^(1/3)) = 31, Delta = 3 L T / (beta n) = 0.2630437226013957,
     * sigma = Delta sqrt(2 ln 2000) = 1.0255941136537745 */
    dp_linear m = fixture_logistic(5, 0.0);
    dp_output_pert_cfg c = base_cfg();
    dp_output_pert_plan p;
    dp_err e;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, &e), DP_EINVAL);
    ck_assert(strstr(e.msg, "norm_bound") != NULL);
    c.norm_bound = 3.0;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert_int_eq(p.theorem, 3);
    ck_assert_int_eq(p.T, 31);
    ck_assert(REL(p.eta, 2.0) <= 1e-15);
    ck_assert(REL(p.sens, 0.2630437226013957) <= 1e-12);
    ck_assert(REL(p.noise_scale, 1.0255941136537745) <= 1e-12);
    /* Lemma 2's Delta grows with the T actually run: 3 L 62 eta / n */
    c.iterations = 62;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(REL(p.sens, 2 * 0.2630437226013957) <= 1e-12);
    c.step = 2.1; /* > 1/beta */
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, &e), DP_EPRIVACY);
    c.step = 0;
    c.delta = 0; /* the Gaussian needs delta */
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 1000, &p, &e), DP_EINVAL);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_noise_off_is_gd)
{
    fixture f;
    fixture_make(&f, 600, 500, 4, 7);
    dp_linear a = fixture_logistic(4, 0.05), b = fixture_logistic(4, 0.05);
    dp_output_pert_cfg c = base_cfg();
    c.noise = 0;
    c.iterations = 25;
    c.eval_every = 5;
    dp_output_pert_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_output_pert_train(&a, &c, &f.tr, &f.te, &p, &ra, NULL), 0);
    dp_train_cfg gd = fixture_gd_cfg(f.train.n, 25, p.eta, 5, 1);
    fixture_train_linear(&b, &gd, &f, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    ck_assert_int_eq(ra.n_curve, rb.n_curve);
    train_pair_free(&a, &b, &ra, &rb);
    fixture_free(&f);
}
END_TEST

START_TEST(test_noise_moments)
{
    /* 20000 draws of p = 4: the Gaussian's 80000 coordinates have variance sigma^2 */
    dp_linear m = fixture_logistic(3, 0.1);
    dp_output_pert_cfg c = base_cfg();
    dp_output_pert_plan p;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 500, &p, NULL), 0);
    const size_t N = 20000, P = 4;
    double *v = malloc(N * P * sizeof *v), *nr = malloc(N * sizeof *nr);
    dp_noise r;
    dp_noise_init(&r, 3, DP_STREAM_TEST, 0, NULL);
    for (size_t i = 0; i < N; i++)
        ck_assert_int_eq(dp_output_pert_noise(&r, &c, &p, v + i * P, P, NULL), 0);
    assert_variance(v, N * P, p.noise_scale * p.noise_scale, "op-3.1 gaussian");
    /* Laplace: ||z|| ~ Gamma(P, s), mean P s and variance P s^2 (5 standard errors), and
     * each coordinate has variance (P + 1) s^2 = noise_std^2 (the tolerance of a
     * non-normal variance: its kurtosis is larger, so 10 standard errors of the normal
     * case still catch a wrong scale by 10%) */
    c.mechanism = DP_OUTPUT_LAPLACE;
    ck_assert_int_eq(dp_output_pert_make_plan(&m, &c, 500, &p, NULL), 0);
    double s = p.noise_scale;
    for (size_t i = 0; i < N; i++) {
        ck_assert_int_eq(dp_output_pert_noise(&r, &c, &p, v + i * P, P, NULL), 0);
        double q = 0;
        for (size_t j = 0; j < P; j++) q += v[i * P + j] * v[i * P + j];
        nr[i] = sqrt(q);
    }
    double mean, var;
    sample_moments(nr, N, &mean, &var);
    ck_assert_msg(fabs(mean - 4 * s) <= 5 * sqrt(4.0 / N) * s, "norm mean %g vs %g", mean, 4 * s);
    ck_assert_msg(fabs(var / (4 * s * s) - 1) <= 5 * sqrt(2.0 / N) * 1.5, "norm var %g", var);
    sample_moments(v, N * P, &mean, &var);
    ck_assert_msg(fabs(var / (p.noise_std * p.noise_std) - 1) <= 0.1, "coord var %g vs %g", var,
                  p.noise_std * p.noise_std);
    free(v);
    free(nr);
    dp_linear_destroy(&m);
}
END_TEST

/* One seed's w_priv - w_T, T = 3 */
static double released_noise(const fixture *f, size_t k, double *z, size_t P)
{
    dp_linear a = fixture_logistic(3, 0.1), b = fixture_logistic(3, 0.1);
    dp_output_pert_cfg c = base_cfg();
    c.iterations = 3;
    c.seed = 100 + k;
    dp_output_pert_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_output_pert_train(&a, &c, &f->tr, &f->te, &p, &ra, NULL), 0);
    c.noise = 0;
    ck_assert_int_eq(dp_output_pert_train(&b, &c, &f->tr, &f->te, &p, &rb, NULL), 0);
    for (size_t j = 0; j < P; j++) z[j] = a.w[j] - b.w[j];
    ck_assert(ra.noise_std == p.noise_std && rb.noise_std == 0.0);
    train_pair_free(&a, &b, &ra, &rb);
    return p.noise_scale;
}

START_TEST(test_end_to_end_noise)
{
    /* w_priv - w_T over 300 seeds (4 coordinates each) has the plan's variance */
    fixture f;
    fixture_make(&f, 300, 250, 3, 11);
    fixture_assert_noise(&f, 300, 4, released_noise, "op-3.2 w_priv - w_T");
    fixture_free(&f);
}
END_TEST

/* One run at eps with seed on m (convex_fixture.h's sweep). */
static void train_at(dp_linear *m, const fixture *f, double eps, uint64_t seed, int noise,
                     dp_train_result *r)
{
    dp_output_pert_cfg c = base_cfg();
    c.eps = eps;
    c.seed = seed;
    c.eval_every = 1000;
    c.noise = noise;
    dp_output_pert_plan p;
    ck_assert_int_eq(dp_output_pert_train(m, &c, &f->tr, &f->te, &p, r, NULL), 0);
}

START_TEST(test_loss_falls_with_eps)
{
    /* Mean over 12 seeds of the released model's regularized training loss at eps 0.5,
     * 2, 8 (Thm 2's excess ~ beta p sigma^2 / 2 ~ 1/eps^2): strictly decreasing, and at
     * eps 8 within 0.02 of the noise-free GD's loss (excess ~ 0.6 * 6 * 0.02^2 / 2; the
     * config of eps 8's first seed with the noise off). */
    fixture f;
    fixture_make(&f, 2400, 2000, 5, 5);
    const fixture_sweep sw = {.train = train_at, .d = 5, .l2 = 0.1, .eps = {0.5, 2.0, 8.0},
                              .seeds = 12, .seed0 = 1000};
    double mean[3];
    fixture_assert_falls_with_eps(&f, &sw, mean);
    double clean = fixture_sweep_run(&f, &sw, sw.eps[2], 1000, 0);
    ck_assert_msg(mean[2] - clean < 0.02 && mean[2] >= clean - 1e-3, "eps 8: %g vs clean %g",
                  mean[2], clean);
    fixture_free(&f);
}
END_TEST

START_TEST(test_rows_outside_bound)
{
    fixture f;
    fixture_make(&f, 100, 80, 3, 2);
    f.train.x[5 * 3] = 1.5; /* row 5 leaves the unit ball */
    dp_linear m = fixture_logistic(3, 0.1);
    dp_output_pert_cfg c = base_cfg();
    dp_output_pert_plan p;
    dp_train_result r;
    dp_err e;
    ck_assert_int_eq(dp_output_pert_train(&m, &c, &f.tr, &f.te, &p, &r, &e), DP_EINVAL);
    ck_assert_msg(strstr(e.msg, "row 5") && strstr(e.msg, "feature bound"), "%s", e.msg);
    dp_train_result_destroy(&r);
    c.feature_bound = 2.0; /* a larger public bound admits it */
    ck_assert_int_eq(dp_output_pert_train(&m, &c, &f.tr, &f.te, &p, &r, NULL), 0);
    ck_assert(REL(p.L, sqrt(5.0)) <= 1e-15);
    dp_train_result_destroy(&r);
    dp_linear_destroy(&m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_huber)
{
    /* convex_fixture.h's regression problem, Huber delta 0.5, mu 0.5 */
    const size_t d = 3;
    double *x, *t;
    dp_cvx_set tr, te;
    fixture_regression(300, 250, d, 4, &x, &t, &tr, &te);
    dp_linear a = fixture_huber(d, 0.5, 0.5), b = fixture_huber(d, 0.5, 0.5);
    dp_output_pert_cfg c = base_cfg();
    c.norm_bound = 2.0; /* F(0) depends on the targets: D given */
    c.noise = 0;
    dp_output_pert_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_output_pert_train(&a, &c, &tr, &te, &p, &ra, NULL), 0);
    /* Huber, B = 1: L = 0.5 sqrt 2, beta = 2 + 0.5 */
    ck_assert(REL(p.L, 0.5 * sqrt(2.0)) <= 1e-15 && REL(p.beta, 2.5) <= 1e-15);
    dp_train_cfg gd = fixture_gd_cfg(250, (int)p.T, p.eta, 1, 1);
    fixture_train_reg(&b, &gd, &tr, &te, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    ck_assert(isfinite(ra.final.test_rmse) && isnan(ra.final.test_accuracy));
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    dp_linear_destroy(&a);
    a = fixture_huber(d, 0.5, 0.5);
    c.noise = 1;
    ck_assert_int_eq(dp_output_pert_train(&a, &c, &tr, &te, &p, &ra, NULL), 0);
    ck_assert(isfinite(ra.final.test_rmse) && ra.noise_std == p.noise_std);
    dp_train_result_destroy(&ra);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    free(x);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("output_pert");
    test_add_case(s, "op-1.1", test_constants, 10);
    test_add_case(s, "op-1.2", test_plan_thm2, 10);
    test_add_case(s, "op-1.3", test_plan_thm3, 10);
    test_add_case(s, "op-2.1", test_noise_off_is_gd, 30);
    test_add_case(s, "op-3.1", test_noise_moments, 30);
    test_add_case(s, "op-3.2", test_end_to_end_noise, 60);
    test_add_case(s, "op-4.1", test_loss_falls_with_eps, 60);
    test_add_case(s, "op-5.1", test_rows_outside_bound, 10);
    test_add_case(s, "op-6.1", test_huber, 30);
    return test_run_suite(s);
}
