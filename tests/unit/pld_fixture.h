/* pld_fixture.h: what the Check programs of the two PLD accountants share (test_pld.c
 * for dp_pld_epsilon/dp_pld_delta, test_pld_wor.c for dp_pld_wor_epsilon/_delta): the
 * normal CDF of their closed forms, a checked call of either function, the compensated
 * mass of a PMF, a PMF's delta against a closed form, and the property and input checks
 * both suites make with their own settings (monotone sweeps, delta falling in eps, bad
 * inputs, extreme inputs). The two accountants take the same arguments, so each helper
 * takes the function under test; the settings stay in the test that owns them.
 * Both tests include the accountant's .c file (white box): the names here start with
 * pld_test_ (or are Phi) so they cannot meet its static ones.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_PLD_FIXTURE_H
#define DPERM_PLD_FIXTURE_H

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/privacy/pld.h"

/* dp_pld_epsilon or dp_pld_wor_epsilon, and dp_pld_delta or dp_pld_wor_delta. */
typedef int (*pld_test_epsilon_fn)(double q, double sigma, long steps, double delta,
                                   double interval, double *eps, dp_err *err);
typedef int (*pld_test_delta_fn)(double q, double sigma, long steps, double eps,
                                 double interval, double *delta, dp_err *err);

/* The standard normal CDF, in the form both files' closed forms are written with. */
static inline double Phi(double x) { return 0.5 * erfc(-x / M_SQRT2); }

/* f's epsilon; fails the case unless the status is 0 and epsilon is a number >= 0. */
static inline double pld_test_eps(pld_test_epsilon_fn f, double q, double s, long T,
                                  double delta, double interval)
{
    dp_err err;
    double e = NAN;
    int rc = f(q, s, T, delta, interval, &e, &err);
    ck_assert_msg(rc == 0, "q %g sigma %g steps %ld: rc %d: %s", q, s, T, rc, err.msg);
    ck_assert_msg(!isnan(e) && e >= 0, "q %g sigma %g steps %ld: eps %g", q, s, T, e);
    return e;
}

/* f's delta at the default interval; fails the case unless the status is 0 and delta is
 * in [0, 1]. */
static inline double pld_test_delta(pld_test_delta_fn f, double q, double s, long T,
                                    double eps)
{
    dp_err err;
    double d = NAN;
    int rc = f(q, s, T, eps, 0.0, &d, &err);
    ck_assert_msg(rc == 0, "q %g sigma %g steps %ld: rc %d: %s", q, s, T, rc, err.msg);
    ck_assert_msg(d >= 0 && d <= 1, "q %g sigma %g steps %ld eps %g: delta %g", q, s, T, eps,
                  d);
    return d;
}

/* inf + p[0] + ... + p[n-1], Kahan-compensated: a PMF's total mass to ~1e-16, so the
 * 1e-12 the tests allow is all error of the PMF, none of the sum. */
static inline double pld_test_mass(double inf, const double *p, size_t n)
{
    double m = inf, comp = 0;
    for (size_t i = 0; i < n; i++) {
        double y = p[i] - comp, t = m + y;
        comp = (t - m) - y;
        m = t;
    }
    return m;
}

/* A PMF's delta `got` against the closed form `want` at one eps: never below it (1e-9
 * relative, 1e-15 absolute: the closed forms' CDF differences lose ~1e-17 absolute, the
 * tail budget is 1e-15), and equal to it at grid points (on_grid), where the discretized
 * loss is exact. `what` names the case in a failure. */
static inline void pld_test_delta_vs(double got, double want, int on_grid, const char *what)
{
    ck_assert_msg(got >= want * (1 - 1e-9) - 1e-15, "%s: PLD %.17g below %.17g", what, got,
                  want);
    if (on_grid)
        ck_assert_msg(fabs(got - want) <= 1e-9 * want + 1e-15, "%s: PLD %.17g vs %.17g", what,
                      got, want);
}

/* The settings of pld_test_monotone: the steps rise at (q, sigma), q rises at (sigma_q,
 * steps_q), sigma rises at (q_s, steps_s). */
typedef struct pld_test_sweeps {
    double q, sigma;
    const long *steps;
    size_t n_steps;
    double sigma_q;
    long steps_q;
    const double *qs;
    size_t n_q;
    double q_s;
    long steps_s;
    const double *sigmas;
    size_t n_sigmas;
} pld_test_sweeps;

/* More steps or a larger q raise epsilon strictly, a larger sigma lowers it strictly. */
static inline void pld_test_monotone(pld_test_epsilon_fn f, double delta,
                                     const pld_test_sweeps *w)
{
    double prev = -1;
    for (size_t i = 0; i < w->n_steps; i++) {
        double e = pld_test_eps(f, w->q, w->sigma, w->steps[i], delta, 0);
        ck_assert_msg(e > prev, "steps %ld: %g after %g", w->steps[i], e, prev);
        prev = e;
    }
    prev = -1;
    for (size_t i = 0; i < w->n_q; i++) {
        double e = pld_test_eps(f, w->qs[i], w->sigma_q, w->steps_q, delta, 0);
        ck_assert_msg(e > prev, "q %g: %g after %g", w->qs[i], e, prev);
        prev = e;
    }
    prev = INFINITY;
    for (size_t i = 0; i < w->n_sigmas; i++) {
        double e = pld_test_eps(f, w->q_s, w->sigmas[i], w->steps_s, delta, 0);
        ck_assert_msg(e < prev, "sigma %g: %g after %g", w->sigmas[i], e, prev);
        prev = e;
    }
}

/* delta never rises as eps goes from 0 up to (not including) eps_end in steps of by. */
static inline void pld_test_delta_falls(pld_test_delta_fn f, double q, double sigma, long T,
                                        double eps_end, double by)
{
    double prev = 2;
    for (double e = 0; e < eps_end; e += by) {
        double d = pld_test_delta(f, q, sigma, T, e);
        ck_assert_msg(d <= prev, "q %g steps %ld eps %g: delta %g after %g", q, T, e, d, prev);
        prev = d;
    }
}

/* f refuses the arguments with DP_EINVAL, a message holding `word`, eps untouched. */
static inline void pld_test_einval_eps(pld_test_epsilon_fn f, double q, double s, long T,
                                       double delta, double interval, const char *word)
{
    dp_err err;
    double e = -7;
    int rc = f(q, s, T, delta, interval, &e, &err);
    ck_assert_msg(rc == DP_EINVAL && strstr(err.msg, word) && e == -7,
                  "q %g sigma %g steps %ld delta %g: rc %d msg '%s' (want '%s')", q, s, T, delta,
                  rc, err.msg, word);
}

/* The same for delta. */
static inline void pld_test_einval_delta(pld_test_delta_fn f, double q, double s, long T,
                                         double eps, const char *word)
{
    dp_err err;
    double d = -7;
    int rc = f(q, s, T, eps, 0, &d, &err);
    ck_assert_msg(rc == DP_EINVAL && strstr(err.msg, word) && d == -7,
                  "q %g sigma %g steps %ld eps %g: rc %d msg '%s' (want '%s')", q, s, T, eps, rc,
                  err.msg, word);
}

/* The bad arguments both accountants refuse alike, each naming its parameter: q outside
 * (0, 1], sigma not positive and finite, steps < 1, delta outside (0, 1), eps negative or
 * NaN, a NaN or infinite interval, a NULL output; and a NULL err still gets the status.
 * delta is a valid target for the other calls. */
static inline void pld_test_bad_inputs(pld_test_epsilon_fn fe, pld_test_delta_fn fd,
                                       double delta)
{
    const double bad_q[] = {0.0, -0.1, 1.5, NAN, INFINITY};
    for (int i = 0; i < 5; i++) {
        pld_test_einval_eps(fe, bad_q[i], 1, 10, delta, 0, "q =");
        pld_test_einval_delta(fd, bad_q[i], 1, 10, 1, "q =");
    }
    const double bad_s[] = {0.0, -1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
        pld_test_einval_eps(fe, 0.01, bad_s[i], 10, delta, 0, "sigma");
        pld_test_einval_delta(fd, 0.01, bad_s[i], 10, 1, "sigma");
    }
    pld_test_einval_eps(fe, 0.01, 1, 0, delta, 0, "steps");
    pld_test_einval_eps(fe, 0.01, 1, -5, delta, 0, "steps");
    pld_test_einval_delta(fd, 0.01, 1, 0, 1, "steps");
    const double bad_d[] = {0.0, 1.0, -1e-5, 2.0, NAN};
    for (int i = 0; i < 5; i++) pld_test_einval_eps(fe, 0.01, 1, 10, bad_d[i], 0, "delta");
    pld_test_einval_delta(fd, 0.01, 1, 10, -0.5, "eps");
    pld_test_einval_delta(fd, 0.01, 1, 10, NAN, "eps");
    pld_test_einval_eps(fe, 0.01, 1, 10, delta, NAN, "interval");
    pld_test_einval_eps(fe, 0.01, 1, 10, delta, INFINITY, "interval");
    dp_err err;
    ck_assert_int_eq(fe(0.01, 1, 10, delta, 0, NULL, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "eps"));
    ck_assert_int_eq(fd(0.01, 1, 10, 1.0, 0, NULL, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "delta"));
    double e;
    ck_assert_int_eq(fe(0.0, 1, 10, delta, 0, &e, NULL), DP_EINVAL); /* err NULL */
}

/* Extreme but valid inputs, every stride-th of the grid of q (from the smallest positive
 * double's neighbourhood to 1) x sig x steps: status 0 with eps >= 0 (inf allowed) and
 * delta in [0, 1], never NaN; or DP_EPRIVACY from both when there are too many steps
 * (LONG_MAX) to compose at q < 1 (sigma 1e-300 answers inf / 1 before that). */
static inline void pld_test_no_nan(pld_test_epsilon_fn fe, pld_test_delta_fn fd,
                                   const double *sig, size_t n_s, const long *steps,
                                   size_t n_t, size_t stride)
{
    const double qs[] = {1e-300, 1e-9, 0.5, 1.0 - 1e-15, 1.0};
    const size_t n_q = sizeof qs / sizeof qs[0];
    size_t k = 0;
    for (size_t a = 0; a < n_q; a++)
        for (size_t b = 0; b < n_s; b++)
            for (size_t c = 0; c < n_t; c++) {
                if (k++ % stride) continue;
                dp_err err;
                double e = NAN, d = NAN;
                int rc = fe(qs[a], sig[b], steps[c], 0.5, 0, &e, &err);
                int rd = fd(qs[a], sig[b], steps[c], 1.0, 0, &d, &err);
                if (steps[c] == LONG_MAX && qs[a] < 1 && rc == DP_EPRIVACY && rd == DP_EPRIVACY)
                    continue;
                ck_assert_msg(rc == 0 && rd == 0, "q %g sigma %g steps %ld: rc %d %d (%s)",
                              qs[a], sig[b], steps[c], rc, rd, err.msg);
                ck_assert_msg(!isnan(e) && e >= 0 && !isnan(d) && d >= 0 && d <= 1,
                              "q %g sigma %g steps %ld: eps %g delta %g", qs[a], sig[b],
                              steps[c], e, d);
            }
}

#endif
