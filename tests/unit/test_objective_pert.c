/* test_objective_pert.c: objective perturbation (algorithms/objective_pert.c).
 *
 * Cases:
 *   op-1.1  noise off: the released weights equal dp_erm_solve's minimizer bit for bit.
 *   op-1.2  calibration against the formulas of objective_pert.h computed by hand here
 *           (relative 1e-14: the same few roundings in a different order).
 *   op-2.1  Gaussian b (Kifer et al. Thm 2): over M = 4000 draws of p = 6 coordinates,
 *           S = sum b_j^2 / beta^2 is chi-square with Mp dof (mean Mp, sd sqrt(2 Mp)):
 *           |S - Mp| <= 5 sd; each coordinate's mean within 5 beta / sqrt(M).
 *   op-2.2  laplace-type b (Chaudhuri et al. Alg. 2): ||b|| ~ Gamma(p, 2 rho / eps'), mean
 *           p 2 rho / eps' within 5 sd of the sample mean (sd of one norm sqrt(p) scale);
 *           direction uniform: M p ||mean of b/||b|| ||^2 ~ chi-square(p) approximately,
 *           below 30 (P(chi2_6 > 30) ~ 4e-5), and E[u_j^2] = 1/p within 5 sd.
 *   op-3.1  on a small well-conditioned problem the optimality gap averaged over 12 seeds
 *           shrinks as epsilon grows over {0.1, 1, 10}, each step by a factor >= 3 (the
 *           expected gap scales like 1/eps^2, so 3 leaves a wide margin for seed noise).
 *   op-4.x  refusals: softmax, squared and huber models (message says why); a row outside
 *           the feature bound (message names the row).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/objective_pert.h"
#include "tests/unit/test_util.h"

#define N 300
#define D 5

/* Rows Gaussian/sqrt(d) projected into the unit ball, labels from a noisy linear rule. */
static void make_data(double *x, int *y, size_t n, size_t d, uint64_t seed)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    double v[16];
    for (size_t j = 0; j < d; j++) v[j] = dp_rng_gaussian(&r);
    for (size_t i = 0; i < n; i++) {
        double nn = 0.0, s = 0.0;
        for (size_t j = 0; j < d; j++) {
            x[i * d + j] = dp_rng_gaussian(&r) / sqrt((double)d);
            nn += x[i * d + j] * x[i * d + j];
        }
        if (nn > 1.0)
            for (size_t j = 0; j < d; j++) x[i * d + j] /= sqrt(nn);
        for (size_t j = 0; j < d; j++) s += v[j] * x[i * d + j];
        y[i] = (s + 0.5 * dp_rng_gaussian(&r)) > 0.0;
    }
}

static dp_objpert_cfg cfg(dp_objpert_mechanism mech, double eps, uint64_t seed)
{
    return (dp_objpert_cfg){.mechanism = mech, .eps = eps, .delta = 1e-5, .feature_bound = 1.0,
                            .noise = 1, .replace_one = 1, .seed = seed};
}

START_TEST(op_1_1_noise_off_is_erm)
{
    static double x[N * D];
    static int y[N];
    make_data(x, y, N, D, 1);
    dp_erm_data Dt = {x, y, NULL, N};
    dp_linear a, b;
    dp_err err;
    ck_assert_int_eq(dp_linear_init(&a, DP_LOSS_LOGISTIC, D, 2, 1e-2, &err), 0);
    ck_assert_int_eq(dp_linear_init(&b, DP_LOSS_LOGISTIC, D, 2, 1e-2, &err), 0);
    dp_objpert_cfg c = cfg(DP_OBJPERT_GAUSSIAN, 1.0, 7);
    c.noise = 0;
    dp_objpert_plan plan;
    dp_erm_result ra, rb;
    ck_assert_int_eq(dp_objpert_train(&a, &Dt, &c, &plan, &ra, &err), 0);
    ck_assert_int_eq(dp_erm_solve(&b, &Dt, NULL, 0, 0, &rb, &err), 0);
    ck_assert_int_eq(memcmp(a.w, b.w, a.n_params * sizeof *a.w), 0);
    ck_assert(isinf(plan.eps_spent));
    ck_assert_double_eq(plan.extra_l2, 0.0);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
}
END_TEST

START_TEST(op_1_2_calibration)
{
    dp_linear m;
    dp_err err;
    dp_objpert_plan p;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 4, 2, 1e-3, &err), 0);
    double n = 1000, rho2 = 2.0, eps = 1.0;
    /* Laplace, first branch: eps' = eps - log(1 + 2a + a^2), a = c rho^2 / (n mu) = 0.5 */
    dp_objpert_cfg c = cfg(DP_OBJPERT_LAPLACE, eps, 1);
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, (size_t)n, &p, &err), 0);
    double a = 0.25 * rho2 / (n * 1e-3), ep = eps - log(1 + 2 * a + a * a);
    ck_assert_double_eq_tol(p.eps_prime, ep, 1e-14 * ep);
    ck_assert_double_eq(p.extra_l2, 0.0);
    ck_assert_double_eq_tol(p.noise_scale, 2 * sqrt(rho2) / ep, 1e-14 * p.noise_scale);
    ck_assert_double_eq(p.delta_spent, 0.0);
    /* Laplace, second branch (eps' <= 0 at eps = 0.5): Delta = c rho^2 / (n (e^{eps/4} - 1)) - mu */
    c.eps = 0.5;
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, (size_t)n, &p, &err), 0);
    double Dl = 0.25 * rho2 / (n * (exp(0.125) - 1)) - 1e-3;
    ck_assert_double_eq_tol(p.extra_l2, Dl, 1e-14 * Dl);
    ck_assert_double_eq(p.eps_prime, 0.25);
    /* Gaussian, add/remove: beta = rho sqrt(8 log(2/delta) + 4 eps) / eps, Delta = 2
     * (rho^2/4) / (eps n): Kifer et al. Thm 2 as stated */
    c = cfg(DP_OBJPERT_GAUSSIAN, 2.0, 1);
    c.replace_one = 0;
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, (size_t)n, &p, &err), 0);
    double beta = sqrt(rho2) * sqrt(8 * log(2 / 1e-5) + 8.0) / 2.0;
    ck_assert_double_eq_tol(p.noise_scale, beta, 1e-14 * beta);
    ck_assert_double_eq_tol(p.extra_l2, 0.5 * rho2 / (2.0 * n), 1e-18);
    ck_assert_double_eq(p.eps_spent, 2.0);
    ck_assert_double_eq(p.delta_spent, 1e-5);
    dp_linear_destroy(&m);
}
END_TEST

/* op-1.3: under replace-one neighbours the Gaussian's sensitivity is 2 zeta (one gradient
 * swapped for another), twice add/remove's zeta, with the same extra l2; Laplace (Chaudhuri
 * et al.) is replace-one only. */
START_TEST(op_1_3_replace_one_doubles)
{
    dp_linear m;
    dp_err err;
    dp_objpert_plan ar, ro;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 4, 2, 1e-3, &err), 0);
    const double rho = sqrt(2.0), eps[] = {0.05, 0.5, 1.0, 4.0};
    for (size_t i = 0; i < sizeof eps / sizeof eps[0]; i++) {
        dp_objpert_cfg c = cfg(DP_OBJPERT_GAUSSIAN, eps[i], 1);
        ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 1000, &ro, &err), 0);
        c.replace_one = 0;
        ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 1000, &ar, &err), 0);
        double beta = 2.0 * rho * sqrt(8 * log(2 / 1e-5) + 4.0 * eps[i]) / eps[i];
        ck_assert_msg(fabs(ro.noise_scale - beta) <= 1e-14 * beta,
                      "op-1.3: replace-one beta %.17g, want 2 zeta ... = %.17g", ro.noise_scale,
                      beta);
        ck_assert_double_eq_tol(ro.sensitivity, 2.0 * rho, 1e-15);
        ck_assert_double_eq_tol(ar.sensitivity, rho, 1e-15);
        ck_assert_double_eq_tol(ro.noise_scale, 2.0 * ar.noise_scale, 1e-14 * ro.noise_scale);
        ck_assert_double_eq(ro.extra_l2, ar.extra_l2);
    }
    dp_objpert_cfg c = cfg(DP_OBJPERT_LAPLACE, 1.0, 1);
    c.replace_one = 0;
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 1000, &ro, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "replace-one"));
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(op_2_1_gaussian_moments)
{
    const size_t M = 4000, p = 6;
    dp_objpert_cfg c = cfg(DP_OBJPERT_GAUSSIAN, 0.7, 3);
    dp_objpert_plan plan;
    dp_linear m;
    dp_err err;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, p - 1, 2, 1e-2, &err), 0);
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 500, &plan, &err), 0);
    dp_rng r;
    dp_rng_init(&r, 3, DP_STREAM_NOISE);
    double b[6], S = 0.0, mean[6] = {0};
    for (size_t t = 0; t < M; t++) {
        ck_assert_int_eq(dp_objpert_noise(&r, &c, &plan, b, p, &err), 0);
        for (size_t j = 0; j < p; j++) {
            S += (b[j] / plan.noise_scale) * (b[j] / plan.noise_scale);
            mean[j] += b[j] / (double)M;
        }
    }
    double dof = (double)(M * p);
    ck_assert_msg(fabs(S - dof) <= 5 * sqrt(2 * dof), "op-2.1: chi2 %g vs %g dof", S, dof);
    for (size_t j = 0; j < p; j++)
        ck_assert_double_le(fabs(mean[j]), 5 * plan.noise_scale / sqrt((double)M));
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(op_2_2_laplace_norm_direction)
{
    const size_t M = 4000, p = 6;
    dp_objpert_cfg c = cfg(DP_OBJPERT_LAPLACE, 2.0, 5);
    dp_objpert_plan plan;
    dp_linear m;
    dp_err err;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, p - 1, 2, 1e-2, &err), 0);
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 500, &plan, &err), 0);
    ck_assert(plan.eps_prime > 0 && plan.eps_prime < 2.0);
    dp_rng r;
    dp_rng_init(&r, 5, DP_STREAM_NOISE);
    double b[6], norm_mean = 0.0, u_mean[6] = {0}, u2[6] = {0};
    for (size_t t = 0; t < M; t++) {
        ck_assert_int_eq(dp_objpert_noise(&r, &c, &plan, b, p, &err), 0);
        double nb = 0.0;
        for (size_t j = 0; j < p; j++) nb += b[j] * b[j];
        nb = sqrt(nb);
        norm_mean += nb / (double)M;
        for (size_t j = 0; j < p; j++) {
            u_mean[j] += b[j] / nb / (double)M;
            u2[j] += (b[j] / nb) * (b[j] / nb) / (double)M;
        }
    }
    double theta = 2.0 * sqrt(2.0) / plan.eps_prime; /* 2 rho / eps' */
    ck_assert_double_eq_tol(plan.noise_scale, theta, 1e-14 * theta);
    double sd = sqrt((double)p) * theta / sqrt((double)M);
    ck_assert_msg(fabs(norm_mean - (double)p * theta) <= 5 * sd,
                  "op-2.2: mean norm %g vs %g (sd %g)", norm_mean, (double)p * theta, sd);
    double chi = 0.0;
    for (size_t j = 0; j < p; j++) chi += u_mean[j] * u_mean[j];
    chi *= (double)(M * p);
    ck_assert_msg(chi < 30.0, "op-2.2: direction mean chi2 %g", chi);
    /* Var(u_j^2) = E u^4 - 1/p^2 = 3/(p(p+2)) - 1/p^2 for a uniform direction. */
    double sd2 = sqrt((3.0 / (p * (p + 2.0)) - 1.0 / (p * p)) / (double)M);
    for (size_t j = 0; j < p; j++)
        ck_assert_double_le(fabs(u2[j] - 1.0 / (double)p), 5 * sd2);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(op_3_1_gap_shrinks_with_epsilon)
{
    static double x[N * D];
    static int y[N];
    make_data(x, y, N, D, 2);
    dp_erm_data Dt = {x, y, NULL, N};
    dp_linear m;
    dp_err err;
    dp_erm_result res;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, D, 2, 0.05, &err), 0);
    ck_assert_int_eq(dp_erm_solve(&m, &Dt, NULL, 0, 0, &res, &err), 0);
    double fstar = res.f;
    const double eps[3] = {0.1, 1.0, 10.0};
    double gap[3];
    for (int e = 0; e < 3; e++) {
        gap[e] = 0.0;
        for (uint64_t seed = 1; seed <= 12; seed++) {
            dp_objpert_cfg c = cfg(DP_OBJPERT_GAUSSIAN, eps[e], seed);
            dp_objpert_plan plan;
            ck_assert_int_eq(dp_objpert_train(&m, &Dt, &c, &plan, &res, &err), 0);
            double f;
            ck_assert_int_eq(dp_erm_objective(&m, &Dt, NULL, &f, NULL, &err), 0);
            ck_assert_double_ge(f - fstar, -1e-12);
            gap[e] += (f - fstar) / 12.0;
        }
    }
    ck_assert_msg(gap[0] >= 3 * gap[1] && gap[1] >= 3 * gap[2],
                  "op-3.1: gaps %g %g %g at eps 0.1 1 10", gap[0], gap[1], gap[2]);
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(op_4_1_refusals)
{
    dp_linear m;
    dp_err err;
    dp_objpert_plan p;
    dp_objpert_cfg c = cfg(DP_OBJPERT_GAUSSIAN, 1.0, 1);
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 3, 3, 1e-2, &err), 0);
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 100, &p, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "rank"));
    dp_linear_destroy(&m);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_SQUARED, 3, 0, 1e-2, &err), 0);
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 100, &p, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "gradient bound"));
    dp_linear_destroy(&m);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, 3, 1.0, 1e-2, &err), 0);
    ck_assert_int_eq(dp_objpert_make_plan(&m, &c, 100, &p, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "twice differentiable"));
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(op_4_2_row_outside_ball)
{
    static double x[N * D];
    static int y[N];
    make_data(x, y, N, D, 4);
    x[7 * D] = 3.0; /* row 7 now has norm > 1 */
    dp_erm_data Dt = {x, y, NULL, N};
    dp_linear m;
    dp_err err;
    dp_objpert_plan p;
    dp_erm_result res;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, D, 2, 1e-2, &err), 0);
    dp_objpert_cfg c = cfg(DP_OBJPERT_GAUSSIAN, 1.0, 1);
    ck_assert_int_eq(dp_objpert_train(&m, &Dt, &c, &p, &res, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "7"));
    dp_linear_destroy(&m);
}
END_TEST

static Suite *op_suite(void)
{
    Suite *s = suite_create("objective_pert");
    test_add_case(s, "op-1.1", op_1_1_noise_off_is_erm, 10);
    test_add_case(s, "op-1.2", op_1_2_calibration, 10);
    test_add_case(s, "op-1.3", op_1_3_replace_one_doubles, 10);
    test_add_case(s, "op-2.1", op_2_1_gaussian_moments, 10);
    test_add_case(s, "op-2.2", op_2_2_laplace_norm_direction, 10);
    test_add_case(s, "op-3.1", op_3_1_gap_shrinks_with_epsilon, 20);
    test_add_case(s, "op-4.1", op_4_1_refusals, 10);
    test_add_case(s, "op-4.2", op_4_2_row_outside_ball, 10);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(op_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
