/* test_erm_exact.c: the exact ERM solver of algorithms/erm_exact.c.
 *
 * Cases:
 *   erm-1.x  ||grad F(w*)|| <= 1e-10 for each loss (the solver's contract), checked by an
 *            independent call of dp_erm_objective at the returned point.
 *   erm-2.1  agreement with 20000 steps of plain gradient descent (step 1/L, L the
 *            smoothness bound): GD's error contracts by (1 - mu/L) per step, so after
 *            20000 steps at mu/L ~ 0.08 it is at rounding level; tolerance 1e-8 on w.
 *   erm-2.2  squared loss: the normal equations (X~^T X~ / n + mu I) w = X~^T t / n
 *            solved by naive Gaussian elimination with partial pivoting; condition
 *            number ~ 10, so both agree to ~1e-14; tolerance 1e-10.
 *   erm-3.1  the gradient with the extra terms (b . w / n, Delta/2 ||w||^2) against
 *            central differences (relative 1e-6: see test_linear.c for the error budget).
 *   erm-3.2  the minimizer with extra terms is stationary for the perturbed objective.
 *   erm-4.x  failures: separable data with l2 = 0 has no minimizer (DP_EDIVERGED);
 *            an iteration cap too small (DP_ESTATE, the message says what was reached);
 *            l2 = 0 least squares (full rank) still converges.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/erm_exact.h"
#include "tests/unit/test_util.h"

static double sqsum(const double *g, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += g[i] * g[i];
    return s;
}

/* x (n,d) Gaussian / sqrt(d); labels from a random linear rule with `flip` label noise
 * (classification, n_classes >= 2) or targets t = x.v + 0.3 N(0,1) plus a few outliers
 * of size 5 (regression). */
static void make_data(uint64_t seed, size_t n, size_t d, int n_classes, double flip,
                      double *x, int *y, double *t)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    double v[64 * 10];
    int k = n_classes > 2 ? n_classes : 1;
    for (size_t j = 0; j < d * (size_t)k; j++) v[j] = dp_rng_gaussian(&r);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < d; j++) x[i * d + j] = dp_rng_gaussian(&r) / sqrt((double)d);
        if (n_classes == 0) {
            double s = 0.0;
            for (size_t j = 0; j < d; j++) s += v[j] * x[i * d + j];
            t[i] = s + 0.3 * dp_rng_gaussian(&r) + (i % 10 == 0 ? 5.0 : 0.0);
            continue;
        }
        int best = 0;
        double bs = -INFINITY;
        for (int a = 0; a < k; a++) {
            double s = 0.0;
            for (size_t j = 0; j < d; j++) s += v[(size_t)a * d + j] * x[i * d + j];
            if (s > bs) bs = s, best = a;
        }
        y[i] = n_classes == 2 ? (bs > 0.0) : best;
        if (dp_rng_uniform(&r) < flip) y[i] = (int)dp_rng_below(&r, (uint64_t)n_classes);
    }
}

typedef struct {
    dp_linear m;
    double *x, *t;
    int *y;
    dp_erm_data D;
} problem;

static void problem_make(problem *P, dp_loss_kind loss, size_t n, size_t d, int n_classes,
                         double l2, double flip, uint64_t seed)
{
    dp_err err;
    P->x = malloc(n * d * sizeof *P->x);
    P->y = malloc(n * sizeof *P->y);
    P->t = malloc(n * sizeof *P->t);
    ck_assert(P->x && P->y && P->t);
    int cls = loss == DP_LOSS_LOGISTIC || loss == DP_LOSS_SOFTMAX;
    make_data(seed, n, d, cls ? n_classes : 0, flip, P->x, P->y, P->t);
    int rc = cls ? dp_linear_init(&P->m, loss, d, n_classes, l2, &err)
                 : dp_linear_init_regression(&P->m, loss, d, 0.5, l2, &err);
    ck_assert_int_eq(rc, 0);
    P->D = (dp_erm_data){P->x, cls ? P->y : NULL, cls ? NULL : P->t, n};
}

static void problem_free(problem *P)
{
    dp_linear_destroy(&P->m);
    free(P->x);
    free(P->y);
    free(P->t);
}

/* Solve and check the gradient norm independently. */
static void solve_and_check(dp_loss_kind loss, int n_classes, const char *id)
{
    problem P;
    problem_make(&P, loss, 400, 8, n_classes, 1e-2, 0.1, 11);
    dp_err err;
    dp_erm_result res;
    int rc = dp_erm_solve(&P.m, &P.D, NULL, 0, 0, &res, &err);
    ck_assert_msg(rc == 0, "%s: %s", id, err.msg);
    double f, g[64 * 10];
    ck_assert_int_eq(dp_erm_objective(&P.m, &P.D, NULL, &f, g, &err), 0);
    double gn = sqrt(sqsum(g, P.m.n_params));
    ck_assert_msg(gn <= 1e-10, "%s: ||grad|| = %g", id, gn);
    ck_assert_double_eq_tol(f, res.f, 1e-15);
    ck_assert_msg(res.iterations >= 1 && res.iterations < 50, "%s: %d Newton steps", id,
                  res.iterations);
    problem_free(&P);
}

START_TEST(erm_1_1_logistic) { solve_and_check(DP_LOSS_LOGISTIC, 2, "erm-1.1"); }
END_TEST
START_TEST(erm_1_2_softmax) { solve_and_check(DP_LOSS_SOFTMAX, 4, "erm-1.2"); }
END_TEST
START_TEST(erm_1_3_squared) { solve_and_check(DP_LOSS_SQUARED, 0, "erm-1.3"); }
END_TEST
START_TEST(erm_1_4_huber)
{
    /* delta = 0.5 with outliers of size 5: both branches are active at the optimum. */
    solve_and_check(DP_LOSS_HUBER, 0, "erm-1.4");
}
END_TEST

START_TEST(erm_2_1_gd_agreement)
{
    problem P;
    const size_t n = 40, d = 3;
    const double mu = 0.1;
    problem_make(&P, DP_LOSS_LOGISTIC, n, d, 2, mu, 0.2, 5);
    dp_err err;
    dp_erm_result res;
    ck_assert_int_eq(dp_erm_solve(&P.m, &P.D, NULL, 0, 0, &res, &err), 0);
    double w_star[4];
    memcpy(w_star, P.m.w, sizeof w_star);
    /* L = (1/4) max ||x~||^2 + mu bounds the Hessian. */
    double L = 0.0;
    for (size_t i = 0; i < n; i++) {
        double s = 1.0;
        for (size_t j = 0; j < d; j++) s += P.x[i * d + j] * P.x[i * d + j];
        if (s > L) L = s;
    }
    L = 0.25 * L + mu;
    memset(P.m.w, 0, sizeof w_star);
    double g[4], f;
    for (int s = 0; s < 20000; s++) {
        ck_assert_int_eq(dp_erm_objective(&P.m, &P.D, NULL, &f, g, &err), 0);
        for (int j = 0; j < 4; j++) P.m.w[j] -= g[j] / L;
    }
    for (int j = 0; j < 4; j++) ck_assert_double_eq_tol(P.m.w[j], w_star[j], 1e-8);
    ck_assert_double_eq_tol(f, res.f, 1e-12);
    problem_free(&P);
}
END_TEST

/* Solve A z = b (p x p, row-major, overwritten) by Gaussian elimination with partial
 * pivoting: the naive reference. */
static void gauss_solve(double *A, double *b, size_t p)
{
    for (size_t c = 0; c < p; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < p; r++)
            if (fabs(A[r * p + c]) > fabs(A[piv * p + c])) piv = r;
        for (size_t j = 0; j < p; j++) {
            double tmp = A[c * p + j];
            A[c * p + j] = A[piv * p + j];
            A[piv * p + j] = tmp;
        }
        double tb = b[c];
        b[c] = b[piv];
        b[piv] = tb;
        for (size_t r = c + 1; r < p; r++) {
            double f = A[r * p + c] / A[c * p + c];
            for (size_t j = c; j < p; j++) A[r * p + j] -= f * A[c * p + j];
            b[r] -= f * b[c];
        }
    }
    for (size_t c = p; c-- > 0;) {
        double s = b[c];
        for (size_t j = c + 1; j < p; j++) s -= A[c * p + j] * b[j];
        b[c] = s / A[c * p + c];
    }
}

START_TEST(erm_2_2_normal_equations)
{
    problem P;
    const size_t n = 300, d = 6, p = d + 1;
    const double mu = 0.05;
    problem_make(&P, DP_LOSS_SQUARED, n, d, 0, mu, 0, 3);
    dp_err err;
    dp_erm_result res;
    ck_assert_int_eq(dp_erm_solve(&P.m, &P.D, NULL, 0, 0, &res, &err), 0);
    double A[7 * 7] = {0}, b[7] = {0};
    for (size_t i = 0; i < n; i++) {
        double xt[7];
        for (size_t j = 0; j < d; j++) xt[j] = P.x[i * d + j];
        xt[d] = 1.0;
        for (size_t a = 0; a < p; a++) {
            b[a] += xt[a] * P.t[i] / (double)n;
            for (size_t c = 0; c < p; c++) A[a * p + c] += xt[a] * xt[c] / (double)n;
        }
    }
    for (size_t a = 0; a < p; a++) A[a * p + a] += mu;
    gauss_solve(A, b, p);
    for (size_t j = 0; j < p; j++) ck_assert_double_eq_tol(P.m.w[j], b[j], 1e-10);
    problem_free(&P);
}
END_TEST

START_TEST(erm_3_1_extra_gradient)
{
    problem P;
    problem_make(&P, DP_LOSS_SOFTMAX, 50, 4, 3, 1e-3, 0.1, 9);
    size_t p = P.m.n_params;
    double lin[15], g[15], fp, fm;
    dp_rng r;
    dp_rng_init(&r, 4, DP_STREAM_TEST);
    for (size_t j = 0; j < p; j++) lin[j] = dp_rng_gaussian(&r), P.m.w[j] = dp_rng_gaussian(&r);
    dp_erm_extra ex = {lin, 0.7};
    dp_err err;
    ck_assert_int_eq(dp_erm_objective(&P.m, &P.D, &ex, NULL, g, &err), 0);
    double num = 0.0, den = 0.0, h = 1e-5;
    for (size_t j = 0; j < p; j++) {
        double w = P.m.w[j];
        P.m.w[j] = w + h;
        dp_erm_objective(&P.m, &P.D, &ex, &fp, NULL, &err);
        P.m.w[j] = w - h;
        dp_erm_objective(&P.m, &P.D, &ex, &fm, NULL, &err);
        P.m.w[j] = w;
        double fd = (fp - fm) / (2 * h);
        num += (fd - g[j]) * (fd - g[j]);
        den += g[j] * g[j];
    }
    ck_assert_msg(sqrt(num / den) <= 1e-6, "erm-3.1: relative error %g", sqrt(num / den));
    problem_free(&P);
}
END_TEST

START_TEST(erm_3_2_extra_stationary)
{
    problem P;
    problem_make(&P, DP_LOSS_LOGISTIC, 200, 5, 2, 0.0, 0.1, 8);
    double lin[6] = {3, -2, 1, 0.5, -1, 2};
    dp_erm_extra ex = {lin, 0.05}; /* the extra l2 alone makes it strongly convex */
    dp_err err;
    dp_erm_result res;
    ck_assert_msg(dp_erm_solve(&P.m, &P.D, &ex, 0, 0, &res, &err) == 0, "%s", err.msg);
    double g[6];
    dp_erm_objective(&P.m, &P.D, &ex, NULL, g, &err);
    ck_assert_double_le(sqrt(sqsum(g, 6)), 1e-10);
    /* without the extra terms the same point is not stationary */
    dp_erm_objective(&P.m, &P.D, NULL, NULL, g, &err);
    ck_assert_double_gt(sqrt(sqsum(g, 6)), 1e-3);
    problem_free(&P);
}
END_TEST

START_TEST(erm_4_1_separable_no_minimizer)
{
    problem P;
    problem_make(&P, DP_LOSS_LOGISTIC, 100, 3, 2, 0.0, 0.0, 2); /* clean labels: separable */
    dp_err err;
    dp_erm_result res;
    int rc = dp_erm_solve(&P.m, &P.D, NULL, 0, 0, &res, &err);
    ck_assert_int_eq(rc, DP_EDIVERGED);
    ck_assert_ptr_nonnull(strstr(err.msg, "no minimizer"));
    problem_free(&P);
}
END_TEST

START_TEST(erm_4_2_iteration_cap)
{
    problem P;
    problem_make(&P, DP_LOSS_LOGISTIC, 200, 5, 2, 1e-3, 0.1, 2);
    dp_err err;
    dp_erm_result res;
    int rc = dp_erm_solve(&P.m, &P.D, NULL, 0, 1, &res, &err);
    ck_assert_int_eq(rc, DP_ESTATE);
    ck_assert_ptr_nonnull(strstr(err.msg, "not converged in 1 Newton steps"));
    ck_assert_ptr_nonnull(strstr(err.msg, "||grad F||"));
    ck_assert_int_eq(res.iterations, 1);
    problem_free(&P);
}
END_TEST

START_TEST(erm_4_3_least_squares_no_l2)
{
    problem P;
    problem_make(&P, DP_LOSS_SQUARED, 100, 4, 0, 0.0, 0, 6);
    dp_err err;
    dp_erm_result res;
    ck_assert_msg(dp_erm_solve(&P.m, &P.D, NULL, 0, 0, &res, &err) == 0, "%s", err.msg);
    ck_assert_double_le(res.grad_norm, 1e-10);
    problem_free(&P);
}
END_TEST

static Suite *erm_suite(void)
{
    Suite *s = suite_create("erm_exact");
    test_add_case(s, "erm-1.1", erm_1_1_logistic, 10);
    test_add_case(s, "erm-1.2", erm_1_2_softmax, 10);
    test_add_case(s, "erm-1.3", erm_1_3_squared, 10);
    test_add_case(s, "erm-1.4", erm_1_4_huber, 10);
    test_add_case(s, "erm-2.1", erm_2_1_gd_agreement, 20);
    test_add_case(s, "erm-2.2", erm_2_2_normal_equations, 10);
    test_add_case(s, "erm-3.1", erm_3_1_extra_gradient, 10);
    test_add_case(s, "erm-3.2", erm_3_2_extra_stationary, 10);
    test_add_case(s, "erm-4.1", erm_4_1_separable_no_minimizer, 10);
    test_add_case(s, "erm-4.2", erm_4_2_iteration_cap, 10);
    test_add_case(s, "erm-4.3", erm_4_3_least_squares_no_l2, 10);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(erm_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
