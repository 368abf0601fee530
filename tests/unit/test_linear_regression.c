/* test_linear_regression.c: the squared and Huber regression losses of
 * algorithms/models/linear.c against naive references (the classification losses are in
 * test_linear.c; case ids continue its numbering).
 *
 * References: the Huber loss as printed in Zhang17 §4,
 *   h_delta(u) = u^2/2 for |u| <= delta, delta (|u| - delta/2) otherwise, u = <w,x> - y,
 * written out in a textbook per-example loop; central finite differences of the mean loss
 * (h = 1e-5; the residuals are kept at least 0.1 delta away from the kink, farther than
 * any perturbation moves them, so the loss is smooth on the stencil and a relative error
 * <= 1e-6 has ample room, as in test_linear.c); exact algebra for the per-example norms
 * and the scaled sum (relative error <= 1e-10).
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/linear.h"
#include "tests/unit/linear_fixture.h"
#include "tests/unit/test_util.h"

static void new_model(dp_linear *m, dp_loss_kind loss, size_t d, double delta)
{
    ck_assert_int_eq(dp_linear_init_regression(m, loss, d, delta, 0.0, NULL), DP_OK);
}

/* Textbook score s = w[:d] . x + w[d]. */
static double naive_score(const dp_linear *m, const double *x)
{
    double s = m->w[m->d];
    for (size_t c = 0; c < m->d; c++) s += m->w[c] * x[c];
    return s;
}

/* Zhang17 §4 as printed (Huber) or u^2/2 (squared); *r = dloss/du. */
static double naive_loss(const dp_linear *m, double u, double *r)
{
    if (m->loss == DP_LOSS_SQUARED) {
        *r = u;
        return u * u / 2.0;
    }
    double delta = m->huber_delta;
    if (u > delta) {
        *r = delta;
        return delta * (u - delta / 2.0);
    }
    if (u < -delta) {
        *r = -delta;
        return delta * (-u - delta / 2.0);
    }
    *r = u;
    return u * u / 2.0;
}

/* Residuals in units of delta: both sides of the kink, none closer to it than 0.1. */
static const double U_PATTERN[] = {-4.0, -1.7, -0.8, -0.35, -0.05, 0.1, 0.45,
                                   0.9,  1.3,  2.5,  6.0,   -12.0, 0.65};
#define N_PATTERN (sizeof U_PATTERN / sizeof U_PATTERN[0])

/* Random x (B,d) and w, then targets t_i = s_i - u_i with u_i = U_PATTERN[i] * unit, so
 * the residuals are known (up to a rounding of the score) and straddle the kink. */
static void random_problem(dp_rng *r, dp_linear *m, double *x, double *t, size_t B,
                           double wscale, double unit)
{
    for (size_t i = 0; i < B * m->d; i++) x[i] = dp_rng_gaussian(r);
    for (size_t j = 0; j < m->n_params; j++) m->w[j] = wscale * dp_rng_gaussian(r);
    for (size_t i = 0; i < B; i++)
        t[i] = naive_score(m, x + i * m->d) - U_PATTERN[i % N_PATTERN] * unit;
}

/* The loss and residual at a residual u given exactly: w = 0 makes s = 0 and t = -u. */
static double loss_at(const dp_linear *m, double u, double *r)
{
    double x[3] = {0.5, -2.0, 1.0}, t = -u;
    ck_assert_uint_eq(m->d, 3);
    return dp_linear_residuals_reg(m, x, &t, 1, r);
}

// ---- linear-5: construction and bad inputs ----------------------------------------------

START_TEST(test_init_regression)
{
    dp_linear m;
    dp_err e;
    dp_err_clear(&e);
    static const double bad_delta[] = {0.0, -1.0, -0.0, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad_delta / sizeof bad_delta[0]; i++) {
        ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, 5, bad_delta[i], 0.0,
                                                   &e),
                         DP_EINVAL);
        ck_assert_ptr_nonnull(strstr(e.msg, "model.huber_delta"));
        ck_assert_ptr_null(m.w);
    }
    /* A classification loss to the regression constructor, and vice versa. */
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_LOGISTIC, 5, 1.0, 0.0, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model.type logistic"));
    ck_assert_ptr_nonnull(strstr(e.msg, "classification"));
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_SOFTMAX, 5, 1.0, 0.0, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model.type softmax"));
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_HUBER, 5, 2, 0.0, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model.type huber"));
    ck_assert_ptr_nonnull(strstr(e.msg, "regression"));
    ck_assert_ptr_null(m.w);
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SQUARED, 5, 2, 0.0, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model.type squared"));
    ck_assert_int_eq(dp_linear_init_regression(&m, (dp_loss_kind)7, 5, 1.0, 0.0, &e),
                     DP_EINVAL);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, 0, 1.0, 0.0, &e),
                     DP_EINVAL);
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, 5, 1.0, -1.0, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model.l2"));
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_SQUARED, 5, 0.0, NAN, NULL),
                     DP_EINVAL);
    ck_assert_ptr_null(m.w);

    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, 5, 1.35, 0.1, &e), DP_OK);
    ck_assert_int_eq(m.k, 1);
    ck_assert_int_eq(m.n_classes, 0);
    ck_assert_uint_eq(m.n_params, 6);
    ck_assert(m.huber_delta == 1.35 && m.l2 == 0.1);
    for (size_t j = 0; j < m.n_params; j++) ck_assert(m.w[j] == 0.0);

    /* Each evaluate refuses the other kind and leaves its outputs alone. */
    double x[5] = {0}, t = 1.0, a = 7.0, b = 8.0;
    int y = 1;
    ck_assert_int_eq(dp_linear_evaluate(&m, x, &y, 1, &a, &b), DP_EINVAL);
    ck_assert(a == 7.0 && b == 8.0);
    dp_linear_destroy(&m);
    ck_assert_ptr_null(m.w);

    /* The squared loss ignores huber_delta, whatever it is. */
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_SQUARED, 5, -3.0, 0.0, &e), DP_OK);
    ck_assert(m.huber_delta == 0.0 && m.k == 1 && m.n_params == 6);
    dp_linear_destroy(&m);

    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 5, 2, 0.0, &e), DP_OK);
    ck_assert(m.huber_delta == 0.0);
    ck_assert_int_eq(dp_linear_evaluate_reg(&m, x, &t, 1, &a, &b), DP_EINVAL);
    ck_assert(a == 7.0 && b == 8.0);
    dp_linear_destroy(&m);
}
END_TEST

// ---- linear-6: gradients against finite differences -------------------------------------

static void check_gradient_fd(dp_loss_kind loss, double delta, uint64_t seed)
{
    enum { B = 26, D = 7 };
    dp_linear m;
    new_model(&m, loss, D, delta);
    double x[B * D], t[B], R[B], ws[B];
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    /* For the squared loss any unit will do; 1.35 gives residuals of a few units. */
    random_problem(&r, &m, x, t, B, 0.5, loss == DP_LOSS_HUBER ? delta : 1.35);

    double g[D + 1], fd[D + 1];
    ck_assert_uint_eq(m.n_params, D + 1); /* what g and fd hold */
    dp_linear_residuals_reg(&m, x, t, B, R);
    /* Both branches of the Huber loss are exercised. */
    if (loss == DP_LOSS_HUBER) {
        int inside = 0, outside = 0;
        for (int i = 0; i < B; i++) {
            if (fabs(R[i]) < delta) inside++;
            if (fabs(R[i]) == delta) outside++;
        }
        ck_assert_int_ge(inside, 8);
        ck_assert_int_ge(outside, 8);
    }
    char what[32];
    snprintf(what, sizeof what, " (delta %g)", delta);
    linear_check_fd(&m, x, NULL, t, B, R, ws, g, fd, what);
    dp_linear_destroy(&m);
}

START_TEST(test_grad_fd_squared) { check_gradient_fd(DP_LOSS_SQUARED, 0.0, 501); }
END_TEST

START_TEST(test_grad_fd_huber)
{
    /* 1.35: the usual statistical choice; 0.05 and 30: far smaller and larger scales. */
    check_gradient_fd(DP_LOSS_HUBER, 1.35, 502);
    check_gradient_fd(DP_LOSS_HUBER, 0.05, 503);
    check_gradient_fd(DP_LOSS_HUBER, 30.0, 504);
}
END_TEST

// ---- linear-7: per-example algebra against the brute-force loop -------------------------

static void check_per_example(dp_loss_kind loss, double delta, uint64_t seed)
{
    enum { B = 13, D = 6 };
    dp_linear m;
    new_model(&m, loss, D, delta);
    double x[B * D], t[B], R[B], ws[B], sq[B], scale[B], gi[D + 1];
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    random_problem(&r, &m, x, t, B, 0.7, loss == DP_LOSS_HUBER ? delta : 0.8);
    for (int i = 0; i < B; i++) scale[i] = dp_rng_uniform_pos(&r);

    size_t P = m.n_params;
    double g[D + 1], ref[D + 1];
    /* g and ref start equal and non-zero: grad_accumulate must add, not overwrite. */
    ck_assert_uint_eq(P, D + 1); /* what g and ref hold */
    double total = linear_pex_run(&m, x, NULL, t, B, scale, R, sq, ws, g, ref);

    double naive_total = 0.0;
    for (int i = 0; i < B; i++) {
        double rn, u = naive_score(&m, x + i * D) - t[i];
        naive_total += naive_loss(&m, u, &rn);
        ck_assert_double_eq_tol(R[i], rn, 1e-10 * fabs(rn));
        double nn = 0.0;
        for (size_t c = 0; c <= D; c++) {
            gi[c] = rn * (c < D ? x[i * D + c] : 1.0);
            nn += gi[c] * gi[c];
        }
        ck_assert_double_eq_tol(sq[i], nn, 1e-10 * nn);
        for (size_t j = 0; j < P; j++) ref[j] += scale[i] * gi[j];
    }
    ck_assert_double_eq_tol(total, naive_total, 1e-10 * fabs(naive_total));
    ck_assert_double_le(linear_rel_err(g, ref, P), 1e-10);
    dp_linear_destroy(&m);
}

START_TEST(test_per_example_squared) { check_per_example(DP_LOSS_SQUARED, 0.0, 601); }
END_TEST

START_TEST(test_per_example_huber)
{
    check_per_example(DP_LOSS_HUBER, 1.35, 602);
    check_per_example(DP_LOSS_HUBER, 0.05, 603);
}
END_TEST

// ---- linear-8: the shape of the Huber loss ----------------------------------------------

static const double DELTAS[] = {0.05, 1.0, 1.35, 30.0};
#define N_DELTAS (sizeof DELTAS / sizeof DELTAS[0])

/* Zhang17's h_delta is the squared loss on |u| <= delta and affine with slope +-delta
 * outside; h_delta / delta is the normalized form u^2/(2 delta), |u| - delta/2 (slope 1).
 * Both branches meet at |u| = delta in value and slope. */
START_TEST(test_huber_shape)
{
    dp_linear sq;
    new_model(&sq, DP_LOSS_SQUARED, 3, 0.0);
    for (size_t k = 0; k < N_DELTAS; k++) {
        double delta = DELTAS[k], rh, rs;
        dp_linear hu;
        new_model(&hu, DP_LOSS_HUBER, 3, delta);

        /* Quadratic zone, both ends included: equal to the squared loss bit for bit.
         * (+ DBL_MIN below: Check's tolerance test is strict and u = 0 is on the grid.) */
        for (int j = -40; j <= 40; j++) {
            double u = delta * j / 40.0;
            double h = loss_at(&hu, u, &rh), s = loss_at(&sq, u, &rs);
            ck_assert(h == s && rh == rs && rh == u);
            ck_assert_double_eq_tol(h / delta, u * u / (2 * delta),
                                    1e-14 * u * u / (2 * delta) + DBL_MIN);
        }

        /* Linear zone: h(u) = delta |u| - delta^2/2, so slope +-delta between any two
         * points on one side, slope 1 after dividing by delta; below the squared loss. */
        for (int side = -1; side <= 1; side += 2) {
            double u0 = side * delta * 1.001, h0 = loss_at(&hu, u0, &rh);
            ck_assert(rh == side * delta);
            for (int j = 1; j <= 50; j++) {
                double u = side * delta * (1.001 + 0.37 * j * j);
                double h = loss_at(&hu, u, &rh);
                ck_assert(rh == side * delta);
                double slope = (h - h0) / (u - u0);
                ck_assert_double_eq_tol(slope, side * delta, 1e-12 * delta);
                ck_assert_double_eq_tol((h / delta - h0 / delta) / (u - u0), side, 1e-12);
                ck_assert_double_eq_tol(h / delta, fabs(u) - delta / 2, 1e-14 * fabs(u));
                ck_assert_double_lt(h, loss_at(&sq, u, &rs));
            }
        }

        /* The kink: the neighbouring doubles on either side agree in value and slope. */
        for (int side = -1; side <= 1; side += 2) {
            double u_in = side * delta, u_out = nextafter(u_in, side * INFINITY);
            double h_in = loss_at(&hu, u_in, &rh), h_out = loss_at(&hu, u_out, &rs);
            ck_assert(rh == side * delta && rs == side * delta);
            ck_assert_double_eq_tol(h_in, delta * delta / 2, 1e-15 * delta * delta);
            ck_assert_double_eq_tol(h_out - h_in, delta * fabs(u_out - u_in),
                                    4 * DBL_EPSILON * h_in);
        }
        dp_linear_destroy(&hu);
    }
    dp_linear_destroy(&sq);
}
END_TEST

/* The privacy analysis of Zhang17 (Lemmas 2, 3; Thms 2, 3) needs f(w, xi) to be
 * L-Lipschitz and beta-smooth in w. With Zhang17's h_delta: |dh/du| <= delta and
 * |h(a) - h(b)| <= delta |a - b| (so the normalized h/delta is 1-Lipschitz), dh/du is
 * 1-Lipschitz, and every example's gradient norm is <= delta sqrt(||x||^2 + 1). */
START_TEST(test_huber_lipschitz)
{
    static const double mags[] = {0.0,  1e-300, 1e-8,  0.5,    1.0,     2.0,
                                  1e3,  1e150,  1e300, DBL_MAX, INFINITY};
    dp_rng r;
    dp_rng_init(&r, 701, DP_STREAM_TEST);
    for (size_t k = 0; k < N_DELTAS; k++) {
        double delta = DELTAS[k], ra, rb;
        dp_linear hu;
        new_model(&hu, DP_LOSS_HUBER, 3, delta);
        for (size_t j = 0; j < sizeof mags / sizeof mags[0]; j++)
            for (int side = -1; side <= 1; side += 2) {
                loss_at(&hu, side * mags[j] * (mags[j] < 1e100 ? delta : 1.0), &ra);
                ck_assert_double_le(fabs(ra), delta);
            }
        for (int j = 0; j < 2000; j++) {
            double a = 3 * delta * dp_rng_gaussian(&r), b = 3 * delta * dp_rng_gaussian(&r);
            double ha = loss_at(&hu, a, &ra), hb = loss_at(&hu, b, &rb);
            double slack = 4 * DBL_EPSILON * (ha + hb); /* roundings of ha and hb */
            ck_assert_double_le(fabs(ha - hb), delta * fabs(a - b) + slack);
            ck_assert_double_le(fabs(ra - rb), fabs(a - b));
            ck_assert_double_le(fabs(ra), delta);
        }

        /* Per-example gradient norms of a badly fitting model on large inputs. */
        enum { B = 64, D = 3 };
        double x[B * D], t[B], R[B], sq[B];
        for (size_t i = 0; i < B * D; i++) x[i] = 1e3 * dp_rng_gaussian(&r);
        for (size_t i = 0; i < B; i++) t[i] = 1e4 * dp_rng_gaussian(&r);
        for (size_t j = 0; j < hu.n_params; j++) hu.w[j] = dp_rng_gaussian(&r);
        dp_linear_residuals_reg(&hu, x, t, B, R);
        dp_linear_pex_sqnorms(sq, x, R, B, D, hu.k);
        for (int i = 0; i < B; i++) {
            double xx = 1.0;
            for (int c = 0; c < D; c++) xx += x[i * D + c] * x[i * D + c];
            ck_assert_double_le(sq[i], delta * delta * xx * (1 + 1e-12));
        }
        dp_linear_destroy(&hu);
    }
}
END_TEST

// ---- linear-9: numerical stability and evaluation ---------------------------------------

START_TEST(test_stability_regression)
{
    dp_linear hu, sq;
    double delta = 1.35, r;
    new_model(&hu, DP_LOSS_HUBER, 3, delta);
    new_model(&sq, DP_LOSS_SQUARED, 3, 0.0);

    /* Huber never squares a large residual: finite where the value is representable. */
    for (int side = -1; side <= 1; side += 2) {
        double h = loss_at(&hu, side * 1e300, &r);
        ck_assert_double_eq_tol(h, delta * 1e300, 1e-15 * delta * 1e300);
        ck_assert(r == side * delta);
        h = loss_at(&hu, side * DBL_MAX, &r); /* delta DBL_MAX > DBL_MAX: inf is exact */
        ck_assert(isinf(h) && h > 0 && r == side * delta);
        h = loss_at(&hu, side * INFINITY, &r);
        ck_assert(isinf(h) && h > 0 && r == side * delta);
    }
    /* Squared: (u/2) u is finite up to |u| = sqrt(2 DBL_MAX) ~ 1.9e154, as the value is. */
    ck_assert_double_eq_tol(loss_at(&sq, 1.5e154, &r), 1.125e308, 1e-15 * 1.125e308);
    ck_assert(r == 1.5e154);
    ck_assert(isinf(loss_at(&sq, -2e154, &r)) && r == -2e154);
    ck_assert(loss_at(&sq, 1e-200, &r) == 0.0 && r == 1e-200);

    /* NaN reaches both the loss and the residual, so the step-boundary check sees it. */
    ck_assert(isnan(loss_at(&hu, NAN, &r)) && isnan(r));
    ck_assert(isnan(loss_at(&sq, NAN, &r)) && isnan(r));

    /* Inputs of size 1e150 through the GEMMs: residuals clipped, norms finite. */
    enum { B = 8, D = 3 };
    double x[B * D], t[B], R[B], ns[B], g[D + 1] = {0}, ws[B];
    dp_rng rng;
    dp_rng_init(&rng, 801, DP_STREAM_TEST);
    for (size_t i = 0; i < B * D; i++) x[i] = 1e150 * dp_rng_gaussian(&rng);
    for (size_t i = 0; i < B; i++) t[i] = 1e150 * dp_rng_gaussian(&rng);
    for (size_t j = 0; j < hu.n_params; j++) hu.w[j] = dp_rng_gaussian(&rng);
    double total = dp_linear_residuals_reg(&hu, x, t, B, R);
    ck_assert(isfinite(total) && total > 0.0);
    dp_linear_pex_sqnorms(ns, x, R, B, D, hu.k);
    dp_linear_grad_accumulate(g, x, R, NULL, B, D, hu.k, ws);
    for (int i = 0; i < B; i++) ck_assert(fabs(R[i]) == delta && isfinite(ns[i]));
    for (int j = 0; j <= D; j++) ck_assert(isfinite(g[j]));
    dp_linear_destroy(&hu);
    dp_linear_destroy(&sq);
}
END_TEST

/* evaluate_reg over several blocks (n > 1024) agrees with a naive loop. */
static void check_evaluate(dp_loss_kind loss, double delta, uint64_t seed)
{
    enum { N = 2600, D = 5 };
    dp_linear m;
    new_model(&m, loss, D, delta);
    double *x = malloc(N * D * sizeof *x), *t = malloc(N * sizeof *t),
           *R = malloc(N * sizeof *R);
    ck_assert(x && t && R);
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    random_problem(&r, &m, x, t, N, 1.0, delta > 0 ? delta : 1.0);

    double loss_ref = 0.0, ss = 0.0, rn;
    for (int i = 0; i < N; i++) {
        double u = naive_score(&m, x + i * D) - t[i];
        loss_ref += naive_loss(&m, u, &rn);
        ss += u * u;
    }
    loss_ref /= N;
    double rmse_ref = sqrt(ss / N), ml, rmse;
    ck_assert_int_eq(dp_linear_evaluate_reg(&m, x, t, N, &ml, &rmse), DP_OK);
    ck_assert_double_eq_tol(ml, loss_ref, 1e-10 * loss_ref);
    ck_assert_double_eq_tol(rmse, rmse_ref, 1e-10 * rmse_ref);
    ck_assert_double_eq_tol(ml, dp_linear_residuals_reg(&m, x, t, N, R) / N, 1e-12 * ml);
    ck_assert_int_eq(dp_linear_evaluate_reg(&m, x, t, N, NULL, NULL), DP_OK);
    ck_assert_int_eq(dp_linear_evaluate_reg(&m, x, t, 0, &ml, &rmse), DP_OK);
    ck_assert(isnan(ml) && isnan(rmse));

    /* One non-finite target poisons both results. */
    t[1500] = NAN;
    ck_assert_int_eq(dp_linear_evaluate_reg(&m, x, t, N, &ml, &rmse), DP_OK);
    ck_assert(isnan(ml) && isnan(rmse));
    t[1500] = INFINITY;
    ck_assert_int_eq(dp_linear_evaluate_reg(&m, x, t, N, &ml, &rmse), DP_OK);
    ck_assert(isinf(ml) && isinf(rmse));
    free(x);
    free(t);
    free(R);
    dp_linear_destroy(&m);
}

START_TEST(test_evaluate_squared) { check_evaluate(DP_LOSS_SQUARED, 0.0, 901); }
END_TEST

START_TEST(test_evaluate_huber) { check_evaluate(DP_LOSS_HUBER, 1.35, 902); }
END_TEST

/* Residuals whose squares or sums leave the double range: w = 0, x = 0, t = -u. */
START_TEST(test_evaluate_scaled)
{
    enum { N = 2600, D = 3 };
    static double x[N * D], t[N];
    dp_linear sq, hu;
    new_model(&sq, DP_LOSS_SQUARED, D, 0.0);
    new_model(&hu, DP_LOSS_HUBER, D, 1.0);
    double ml, rmse;

    /* Sum of u^2 = 2.6e309 overflows; the mean square 1e306 does not. */
    for (int i = 0; i < N; i++) t[i] = (i % 2 ? 1.0 : -1.0) * 1e153;
    ck_assert_int_eq(dp_linear_evaluate_reg(&sq, x, t, N, &ml, &rmse), DP_OK);
    ck_assert_double_eq_tol(rmse, 1e153, 1e-13 * 1e153);
    ck_assert_double_eq_tol(ml, 5e305, 1e-13 * 5e305);

    /* u^2 = 1e-400 underflows to 0; the RMSE 1e-200 is representable. */
    for (int i = 0; i < N; i++) t[i] = 1e-200;
    ck_assert_int_eq(dp_linear_evaluate_reg(&sq, x, t, N, &ml, &rmse), DP_OK);
    ck_assert_double_eq_tol(rmse, 1e-200, 1e-13 * 1e-200);

    /* Mixed sizes: half 3e200, half 4e200 -> sqrt(12.5) e200. */
    for (int i = 0; i < N; i++) t[i] = (i < N / 2 ? 3.0 : -4.0) * 1e200;
    ck_assert_int_eq(dp_linear_evaluate_reg(&sq, x, t, N, NULL, &rmse), DP_OK);
    ck_assert_double_eq_tol(rmse, sqrt(12.5) * 1e200, 1e-13 * sqrt(12.5) * 1e200);

    /* Huber: the sum of losses 2.6e308 overflows, the mean 1e305 - 1/2 does not. */
    for (int i = 0; i < N; i++) t[i] = -1e305;
    ck_assert_int_eq(dp_linear_evaluate_reg(&hu, x, t, N, &ml, &rmse), DP_OK);
    ck_assert_double_eq_tol(ml, 1e305, 1e-12 * 1e305);
    ck_assert_double_eq_tol(rmse, 1e305, 1e-13 * 1e305);
    dp_linear_destroy(&sq);
    dp_linear_destroy(&hu);
}
END_TEST

static Suite *linear_regression_suite(void)
{
    Suite *s = suite_create("linear-regression");
    test_add_case(s, "linear-5.1", test_init_regression, 60);
    test_add_case(s, "linear-6.1", test_grad_fd_squared, 60);
    test_add_case(s, "linear-6.2", test_grad_fd_huber, 60);
    test_add_case(s, "linear-7.1", test_per_example_squared, 60);
    test_add_case(s, "linear-7.2", test_per_example_huber, 60);
    test_add_case(s, "linear-8.1", test_huber_shape, 60);
    test_add_case(s, "linear-8.2", test_huber_lipschitz, 60);
    test_add_case(s, "linear-9.1", test_stability_regression, 60);
    test_add_case(s, "linear-9.2", test_evaluate_squared, 60);
    test_add_case(s, "linear-9.3", test_evaluate_huber, 60);
    test_add_case(s, "linear-9.4", test_evaluate_scaled, 60);
    return s;
}

int main(void) { return test_run_suite(linear_regression_suite()); }
