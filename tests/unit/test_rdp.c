/* test_rdp.c: Check suite "rdp" for algorithms/privacy/rdp.c.
 *
 * rdp-1.*  against shared/reference/privacy/reference_eps.json (Opacus v1.4.0 and
 *          Google dp_accounting RDP, 252 cases) and the seed-paper figures of
 *          seed_paper_checks.md. The directory comes from $DPERM_REFERENCE, else
 *          tests/fixtures/privacy (copies of shared/reference/privacy, relative to the repo root, where `make` runs);
 *          a missing file fails the case.
 * rdp-2.*  noise calibration against reference_sigma.json (Opacus get_noise_multiplier).
 * rdp-3.*  properties and independent re-computations: monotonicity, q = 1 closed form,
 *          integer vs fractional path near integers, a naive lgamma binomial sum at every
 *          integer order of the grid, direct numerical integration at fractional orders.
 * rdp-4.*  bad inputs (DP_EINVAL naming the parameter, DP_EPRIVACY), no NaN with status 0.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/privacy_fixture.h"
#include "algorithms/privacy/rdp.h"

#include <check.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- reference grids and files --------------------------------------------------------

/* Opacus v1.4.0 RDPAccountant.DEFAULT_ALPHAS: 1 + x/10 (x = 1..99) and 12..63. */
static size_t opacus_orders(double *o)
{
    size_t n = 0;
    for (int x = 1; x < 100; x++) o[n++] = 1.0 + x / 10.0;
    for (int a = 12; a < 64; a++) o[n++] = a;
    return n;
}

/* dp_accounting DEFAULT_RDP_ORDERS: 1 + x/10 (x = 1..99), 11..63, 128, 256, 512, 1024. */
static size_t dpaccounting_orders(double *o)
{
    size_t n = 0;
    for (int x = 1; x < 100; x++) o[n++] = 1.0 + x / 10.0;
    for (int a = 11; a < 64; a++) o[n++] = a;
    o[n++] = 128;
    o[n++] = 256;
    o[n++] = 512;
    o[n++] = 1024;
    return n;
}

static int in_grid(double a, const double *o, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(o[i] - a) < 1e-12) return 1;
    return 0;
}

/* eps of `steps` compositions on a caller-given order grid. */
static double eps_on_grid(const double *o, size_t n, double q, double sigma, long steps,
                          double delta, dp_rdp_conversion conv, double *best)
{
    double rdp[256];
    dp_err err;
    ck_assert_uint_le(n, 256);
    ck_assert_int_eq(dp_rdp_subsampled_gaussian(q, sigma, o, n, rdp, &err), 0);
    for (size_t i = 0; i < n; i++) rdp[i] *= (double)steps;
    double eps = NAN;
    ck_assert_int_eq(dp_rdp_to_epsilon(o, rdp, n, delta, conv, &eps, best, &err), 0);
    return eps;
}



// ---- rdp-1: epsilon against the references --------------------------------------------

/* dperm's RDP evaluated on Opacus's own grid reproduces Opacus (same formulas; Opacus
 * v1.4.0's get_privacy_spent is the improved conversion, not the classic one). */
START_TEST(test_opacus_grid)
{
    json_t *root = test_load_reference("reference_eps.json", "rdp-1.1");
    if (!root) return;
    double o[256];
    size_t n = opacus_orders(o), k;
    double worst = 0.0;
    json_t *c;
    json_array_foreach(root, k, c) {
        double q = test_num(c, "q"), s = test_num(c, "sigma"), d = test_num(c, "delta");
        long T = (long)test_num(c, "steps");
        double ref = test_num(c, "eps_rdp_opacus");
        double e = eps_on_grid(o, n, q, s, T, d, DP_RDP_CONVERT_IMPROVED, NULL);
        ck_assert_msg(REL(e, ref) <= 1e-8, "q %g sigma %g steps %ld: %.10g vs Opacus %.10g", q,
                      s, T, e, ref);
        if (REL(e, ref) > worst) worst = REL(e, ref);
    }
    ck_assert_uint_eq(json_array_size(root), 252);
    printf("rdp-1.1: Opacus grid vs Opacus v1.4.0, 252 cases: worst relative deviation %.2e\n",
           worst);
    json_decref(root);
}
END_TEST

/* On dp_accounting's grid: equal to dp_accounting, except where its optimum is at a
 * fractional order, whose series dp_accounting overestimates (docs/privacy.md); there dperm must
 * be below it and equal to Opacus. */
START_TEST(test_dpaccounting_grid)
{
    json_t *root = test_load_reference("reference_eps.json", "rdp-1.2");
    if (!root) return;
    double o[256];
    size_t n = dpaccounting_orders(o), k;
    double worst = 0.0;
    int n_frac = 0;
    json_t *c;
    json_array_foreach(root, k, c) {
        double q = test_num(c, "q"), s = test_num(c, "sigma"), d = test_num(c, "delta");
        long T = (long)test_num(c, "steps");
        double ref = test_num(c, "eps_rdp_dpaccounting"), opa = test_num(c, "eps_rdp_opacus"), best;
        double e = eps_on_grid(o, n, q, s, T, d, DP_RDP_CONVERT_IMPROVED, &best);
        if (best == floor(best)) {
            ck_assert_msg(REL(e, ref) <= 1e-8, "q %g sigma %g steps %ld: %.10g (order %g) vs "
                          "dp_accounting %.10g", q, s, T, e, best, ref);
            if (REL(e, ref) > worst) worst = REL(e, ref);
            continue;
        }
        n_frac++;
        ck_assert_msg(e <= ref * (1 + 1e-12) && REL(e, opa) <= 1e-8,
                      "q %g sigma %g steps %ld: %.10g (order %g) vs dp_accounting %.10g, "
                      "Opacus %.10g", q, s, T, e, best, ref, opa);
    }
    printf("rdp-1.2: dp_accounting grid vs dp_accounting, 252 cases: worst relative deviation "
           "%.2e where the optimum is an integer order; %d cases with a fractional optimum are "
           "at or below dp_accounting (its series is high there) and equal Opacus\n", worst, n_frac);
    json_decref(root);
}
END_TEST

/* The accountant as shipped (default grid, improved conversion), against the issue's
 * bar on every case: never above either reference, never below both, and within 0.5%
 * (relative) of one of them or between them. */
START_TEST(test_default_accountant)
{
    json_t *root = test_load_reference("reference_eps.json", "rdp-1.3");
    if (!root) return;
    double worst_o = 0.0, worst_d = 0.0, worst_near = 0.0;
    size_t k;
    json_t *c;
    json_array_foreach(root, k, c) {
        double q = test_num(c, "q"), s = test_num(c, "sigma"), d = test_num(c, "delta");
        long T = (long)test_num(c, "steps");
        double eo = test_num(c, "eps_rdp_opacus"), ed = test_num(c, "eps_rdp_dpaccounting");
        double e = NAN, best = NAN;
        dp_err err;
        ck_assert_int_eq(dp_rdp_epsilon(q, s, T, d, DP_RDP_CONVERT_IMPROVED, &e, &best, &err), 0);
        double lo = fmin(eo, ed), hi = fmax(eo, ed);
        ck_assert_msg(e <= lo * (1 + 1e-8), "q %g sigma %g steps %ld: %.10g above both (%.10g, "
                      "%.10g)", q, s, T, e, eo, ed);
        double near = fmin(REL(e, eo), REL(e, ed));
        int between = e >= lo && e <= hi;
        ck_assert_msg(near <= 0.005 || between,
                      "q %g sigma %g steps %ld: %.10g (order %g) is not within 0.5%% of Opacus "
                      "%.10g or dp_accounting %.10g, nor between them", q, s, T, e, best, eo, ed);
        if (REL(e, eo) > worst_o) worst_o = REL(e, eo);
        if (REL(e, ed) > worst_d) worst_d = REL(e, ed);
        if (!between && near > worst_near) worst_near = near;
    }
    printf("rdp-1.3: default accountant, 252 cases: worst relative deviation from Opacus "
           "%.2e, from dp_accounting %.2e; every case within 0.5%% of one or between them "
           "(worst distance to the nearer one, when outside: %.2e)\n", worst_o, worst_d,
           worst_near);
    json_decref(root);
}
END_TEST

/* seed_paper_checks.md: Abadi et al. (q 0.01, sigma 4, 10000 steps): classic 1.2586,
 * improved 1.0355; DPlis MNIST (q 256/60000, sigma 1.1) at 26/160/295/554 epochs of 234
 * steps: classic (Opacus v0.13) 1.9942/5.0159/6.9890/9.9502, dp_accounting
 * 1.6632/4.4560/6.3136/9.1379. Tolerance: half a unit of the last printed digit. */
START_TEST(test_seed_papers)
{
    dp_err err;
    double e;
    ck_assert_int_eq(dp_rdp_epsilon(0.01, 4, 10000, 1e-5, DP_RDP_CONVERT_CLASSIC, &e, NULL, &err), 0);
    ck_assert_double_eq_tol(e, 1.2586, 5e-5);
    ck_assert_int_eq(dp_rdp_epsilon(0.01, 4, 10000, 1e-5, DP_RDP_CONVERT_IMPROVED, &e, NULL, &err), 0);
    ck_assert_double_eq_tol(e, 1.0355, 5e-5);
    const long steps[] = {26 * 234, 160 * 234, 295 * 234, 554 * 234};
    const double classic[] = {1.9942, 5.0159, 6.9890, 9.9502};
    const double improved[] = {1.6632, 4.4560, 6.3136, 9.1379};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(dp_rdp_epsilon(256.0 / 60000, 1.1, steps[i], 1e-5,
                                        DP_RDP_CONVERT_CLASSIC, &e, NULL, &err), 0);
        ck_assert_double_eq_tol(e, classic[i], 5e-5);
        ck_assert_int_eq(dp_rdp_epsilon(256.0 / 60000, 1.1, steps[i], 1e-5,
                                        DP_RDP_CONVERT_IMPROVED, &e, NULL, &err), 0);
        ck_assert_double_eq_tol(e, improved[i], 5e-5);
    }
}
END_TEST

// ---- rdp-2: calibration ---------------------------------------------------------------

/* Within 0.5% of Opacus's noise multiplier wherever Opacus has one; everywhere (also the
 * eps 0.1 targets Opacus refuses) the result meets the target and 0.1% less noise does not. */
START_TEST(test_calibrate_reference)
{
    json_t *root = test_load_reference("reference_sigma.json", "rdp-2.1");
    if (!root) return;
    size_t k;
    json_t *c;
    double worst = 0.0;
    int n_ref = 0, n_null = 0;
    json_array_foreach(root, k, c) {
        double q = test_num(c, "q"), d = test_num(c, "delta"), target = test_num(c, "target_epsilon");
        long T = (long)test_num(c, "steps");
        json_t *ref = json_object_get(c, "sigma_opacus_rdp");
        double sigma = NAN, e = NAN, e_less = NAN;
        dp_err err;
        ck_assert_int_eq(dp_rdp_calibrate_sigma(q, T, d, target, DP_RDP_CONVERT_IMPROVED,
                                                &sigma, &err), 0);
        ck_assert_int_eq(dp_rdp_epsilon(q, sigma, T, d, DP_RDP_CONVERT_IMPROVED, &e, NULL, &err), 0);
        ck_assert_int_eq(dp_rdp_epsilon(q, sigma * 0.999, T, d, DP_RDP_CONVERT_IMPROVED, &e_less,
                                        NULL, &err), 0);
        ck_assert_msg(e <= target && e_less > target, "q %g steps %ld target %g: sigma %g gives "
                      "%g, sigma*0.999 gives %g", q, T, target, sigma, e, e_less);
        if (json_is_null(ref)) {
            n_null++;
            continue;
        }
        n_ref++;
        double r = json_number_value(ref);
        ck_assert_msg(REL(sigma, r) <= 0.005, "q %g steps %ld target %g: sigma %.6g vs Opacus "
                      "%.6g", q, T, target, sigma, r);
        if (REL(sigma, r) > worst) worst = REL(sigma, r);
    }
    printf("rdp-2.1: calibration vs Opacus get_noise_multiplier, %d cases: worst relative "
           "deviation %.2e; %d targets Opacus cannot reach are met\n", n_ref, worst, n_null);
    json_decref(root);
}
END_TEST

START_TEST(test_calibrate_unreachable)
{
    dp_err err;
    double sigma = -1.0;
    dp_err_clear(&err);
    ck_assert_int_eq(dp_rdp_calibrate_sigma(0.01, 1000, 1e-5, 1e-6, DP_RDP_CONVERT_IMPROVED,
                                            &sigma, &err), DP_EPRIVACY);
    ck_assert_int_eq(err.code, DP_EPRIVACY);
    ck_assert_ptr_nonnull(strstr(err.msg, "unreachable"));
    ck_assert_double_eq(sigma, -1.0); /* output untouched on failure */
    /* an absurdly loose target is met by a tiny sigma without error */
    ck_assert_int_eq(dp_rdp_calibrate_sigma(1.0, 1, 1e-5, 1e9, DP_RDP_CONVERT_IMPROVED,
                                            &sigma, &err), 0);
    ck_assert(sigma > 0 && sigma < 1e-3);
}
END_TEST

// ---- rdp-3: properties and independent re-computations --------------------------------

static double eps_default(double q, double sigma, long steps)
{
    double e = NAN;
    dp_err err;
    ck_assert_int_eq(dp_rdp_epsilon(q, sigma, steps, 1e-5, DP_RDP_CONVERT_IMPROVED, &e, NULL,
                                    &err), 0);
    return e;
}

START_TEST(test_monotone)
{
    const long steps[] = {1, 10, 100, 1000, 10000, 100000};
    const double qs[] = {1e-4, 0.004, 0.01, 0.1, 0.5, 1.0};
    const double sigmas[] = {0.5, 0.8, 1.0, 2.0, 4.0, 10.0, 50.0};
    for (int i = 0; i < 5; i++) /* strictly increasing in steps */
        ck_assert(eps_default(0.01, 1.0, steps[i]) < eps_default(0.01, 1.0, steps[i + 1]));
    for (int i = 0; i < 5; i++) /* strictly increasing in q */
        ck_assert(eps_default(qs[i], 1.0, 1000) < eps_default(qs[i + 1], 1.0, 1000));
    for (int i = 0; i < 6; i++) /* strictly decreasing in sigma */
        ck_assert(eps_default(0.01, sigmas[i], 1000) > eps_default(0.01, sigmas[i + 1], 1000));
}
END_TEST

/* q = 1: rdp = alpha/(2 sigma^2) exactly, and T steps compose to T alpha/(2 sigma^2). */
START_TEST(test_q_one)
{
    const double *o;
    size_t n = dp_rdp_default_orders(&o);
    double rdp[256];
    dp_err err;
    ck_assert_int_eq(dp_rdp_subsampled_gaussian(1.0, 1.7, o, n, rdp, &err), 0);
    for (size_t i = 0; i < n; i++)
        ck_assert_double_eq_tol(rdp[i], o[i] / (2 * 1.7 * 1.7), 1e-15 * o[i]);
    const long T = 250;
    const double delta = 1e-6, sigma = 3.0;
    double best = INFINITY, e = NAN;
    for (size_t i = 0; i < n; i++) {
        double a = o[i], r = T * a / (2 * sigma * sigma);
        if (a <= 1.01) continue;
        double ei = r + log1p(-1 / a) - log(delta * a) / (a - 1);
        if (ei < best) best = ei;
    }
    ck_assert_int_eq(dp_rdp_epsilon(1.0, sigma, T, delta, DP_RDP_CONVERT_IMPROVED, &e, NULL, &err), 0);
    ck_assert_double_eq_tol(e, best, 1e-12 * best);
}
END_TEST

/* The fractional series and the binomial sum meet at integers: rdp is smooth in alpha,
 * so alpha = k and k +- 1e-7 agree to ~1e-6 relative. */
START_TEST(test_int_frac_agree)
{
    const double qs[] = {0.004, 0.01, 0.1, 0.5};
    const double sigmas[] = {0.5, 1.0, 2.0, 10.0};
    const double ks[] = {2, 3, 5, 10};
    dp_err err;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                double o[3] = {ks[c], ks[c] + 1e-7, ks[c] - 1e-7}, r[3];
                ck_assert_int_eq(dp_rdp_subsampled_gaussian(qs[a], sigmas[b], o, 3, r, &err), 0);
                ck_assert_msg(REL(r[1], r[0]) < 1e-5 && REL(r[2], r[0]) < 1e-5,
                              "q %g sigma %g order %g: %.12g / %.12g / %.12g", qs[a],
                              sigmas[b], ks[c], r[0], r[1], r[2]);
            }
}
END_TEST

/* Naive reference for integer orders (house rule 4): Opacus's form log sum_i p_i e^{c_i}
 * with log C from lgamma, summed in two passes (max, then exp). */
static double naive_rdp_int(double q, double sigma, int alpha)
{
    double mx = -INFINITY, s = 0.0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i <= alpha; i++) {
            double t = lgamma(alpha + 1.0) - lgamma(i + 1.0) - lgamma(alpha - i + 1.0) +
                       i * log(q) + (alpha - i) * log1p(-q) +
                       ((double)i * i - i) / (2 * sigma * sigma);
            if (pass == 0) mx = fmax(mx, t);
            else s += exp(t - mx);
        }
    return (mx + log(s)) / (alpha - 1);
}

START_TEST(test_int_naive)
{
    const double qs[] = {0.004, 0.05, 0.5};
    const double sigmas[] = {0.5, 1.1, 4.0, 10.0};
    const double *o;
    size_t n = dp_rdp_default_orders(&o);
    double rdp[256];
    dp_err err;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++) {
            ck_assert_int_eq(dp_rdp_subsampled_gaussian(qs[a], sigmas[b], o, n, rdp, &err), 0);
            for (size_t i = 0; i < n; i++) {
                if (o[i] != floor(o[i])) continue;
                double ref = naive_rdp_int(qs[a], sigmas[b], (int)o[i]);
                /* lgamma(8193) ~ 6.5e4 carries ~1e-11 absolute, hence the second term */
                ck_assert_msg(fabs(rdp[i] - ref) <= 1e-9 * ref + 1e-10 / (o[i] - 1),
                              "q %g sigma %g order %g: %.15g vs naive %.15g", qs[a],
                              sigmas[b], o[i], rdp[i], ref);
            }
        }
}
END_TEST

/* Direct numerical integration of A_alpha = E_{z~N(0,s^2)} [((1-q) + q e^{(2z-1)/(2s^2)})^alpha]
 * (Mironov et al. 2019, Sec. 3.3) by the trapezoid rule in log space, step s/100 over
 * [-40 s, alpha + 40 s]; spectrally accurate for this smooth, fast-decaying integrand. */
static double integrated_rdp(double q, double s, double alpha)
{
    double h = s / 100, z_lo = -40 * s, z_hi = alpha + 40 * s;
    long m = (long)ceil((z_hi - z_lo) / h);
    double mx = -INFINITY, sum = 0.0;
    for (int pass = 0; pass < 2; pass++)
        for (long k = 0; k <= m; k++) {
            double z = z_lo + k * h, u = log(q) + (2 * z - 1) / (2 * s * s), v = log1p(-q);
            double lr = fmax(u, v) + log1p(exp(-fabs(u - v)));
            double t = -z * z / (2 * s * s) + alpha * lr;
            if (pass == 0) mx = fmax(mx, t);
            else sum += exp(t - mx);
        }
    double log_a = mx + log(sum * h) - log(s * sqrt(2 * M_PI));
    return log_a / (alpha - 1);
}

START_TEST(test_frac_integral)
{
    const double cases[][2] = {{0.004, 0.5}, {0.01, 1.0}, {0.1, 0.8}, {0.05, 2.0}, {0.5, 1.1}};
    const double orders[] = {1.1, 1.5, 2.5, 4.3, 7.7, 10.9};
    double r[6];
    dp_err err;
    for (int c = 0; c < 5; c++) {
        ck_assert_int_eq(dp_rdp_subsampled_gaussian(cases[c][0], cases[c][1], orders, 6, r, &err), 0);
        for (int i = 0; i < 6; i++) {
            double ref = integrated_rdp(cases[c][0], cases[c][1], orders[i]);
            ck_assert_msg(REL(r[i], ref) <= 1e-6, "q %g sigma %g order %g: %.12g vs integral "
                          "%.12g", cases[c][0], cases[c][1], orders[i], r[i], ref);
        }
    }
}
END_TEST

START_TEST(test_default_orders)
{
    const double *o = NULL;
    size_t n = dp_rdp_default_orders(&o);
    ck_assert_uint_eq(dp_rdp_default_orders(NULL), n);
    ck_assert_ptr_nonnull(o);
    for (size_t i = 1; i < n; i++) ck_assert(o[i] > o[i - 1]);
    /* exactly dp_accounting's grid, which contains Opacus's */
    double og[256], dg[256];
    size_t no = opacus_orders(og), nd = dpaccounting_orders(dg);
    ck_assert_uint_eq(n, nd);
    for (size_t i = 0; i < nd; i++) ck_assert_msg(o[i] == dg[i], "order %zu: %g vs %g", i, o[i], dg[i]);
    for (size_t i = 0; i < no; i++) ck_assert_msg(in_grid(og[i], o, n), "Opacus order %g", og[i]);
    /* small epsilons are reachable: Opacus's grid floors near 0.103 at delta 1e-5 */
    ck_assert(eps_default(0.004, 100.0, 1) < 0.01);
}
END_TEST

// ---- rdp-4: bad inputs ----------------------------------------------------------------

START_TEST(test_bad_inputs)
{
    const dp_rdp_conversion IMP = DP_RDP_CONVERT_IMPROVED;
    dp_err err;
    double e, s, r[2];
    const double o2[2] = {2.0, 3.5};
    const double bad_q[] = {0.0, -0.1, 1.5, NAN, INFINITY};
    const double bad_sigma[] = {0.0, -1.0, INFINITY, NAN};
    const double bad_delta[] = {0.0, 1.0, -1e-5, NAN};
    const double bad_target[] = {0.0, -1.0, INFINITY, NAN};
    for (int i = 0; i < 5; i++) {
        expect_einval(dp_rdp_epsilon(bad_q[i], 1.0, 10, 1e-5, IMP, &e, NULL, &err), &err, "q");
        expect_einval(dp_rdp_subsampled_gaussian(bad_q[i], 1.0, o2, 2, r, &err), &err, "q");
        expect_einval(dp_rdp_calibrate_sigma(bad_q[i], 10, 1e-5, 1.0, IMP, &s, &err), &err, "q");
    }
    for (int i = 0; i < 4; i++) {
        expect_einval(dp_rdp_epsilon(0.01, bad_sigma[i], 10, 1e-5, IMP, &e, NULL, &err), &err,
                      "sigma");
        expect_einval(dp_rdp_subsampled_gaussian(0.01, bad_sigma[i], o2, 2, r, &err), &err,
                      "sigma");
        expect_einval(dp_rdp_epsilon(0.01, 1.0, 10, bad_delta[i], IMP, &e, NULL, &err), &err,
                      "delta");
        expect_einval(dp_rdp_calibrate_sigma(0.01, 10, bad_delta[i], 1.0, IMP, &s, &err), &err,
                      "delta");
        expect_einval(dp_rdp_calibrate_sigma(0.01, 10, 1e-5, bad_target[i], IMP, &s, &err),
                      &err, "epsilon");
    }
    expect_einval(dp_rdp_epsilon(0.01, 1.0, 0, 1e-5, IMP, &e, NULL, &err), &err, "steps");
    expect_einval(dp_rdp_epsilon(0.01, 1.0, -5, 1e-5, IMP, &e, NULL, &err), &err, "steps");
    expect_einval(dp_rdp_calibrate_sigma(0.01, 0, 1e-5, 1.0, IMP, &s, &err), &err, "steps");
    expect_einval(dp_rdp_epsilon(0.01, 1.0, 10, 1e-5, (dp_rdp_conversion)0, &e, NULL, &err),
                  &err, "conversion");
    expect_einval(dp_rdp_epsilon(0.01, 1.0, 10, 1e-5, (dp_rdp_conversion)3, &e, NULL, &err),
                  &err, "conversion");
    expect_einval(dp_rdp_epsilon(0.01, 1.0, 10, 1e-5, IMP, NULL, NULL, &err), &err, "eps");
    expect_einval(dp_rdp_calibrate_sigma(0.01, 10, 1e-5, 1.0, IMP, NULL, &err), &err, "sigma");

    const double bad_orders[] = {1.0, 0.5, NAN, INFINITY, 2e6};
    for (int i = 0; i < 5; i++) {
        double o[2] = {2.0, bad_orders[i]}, rr[2] = {0.1, 0.2};
        expect_einval(dp_rdp_subsampled_gaussian(0.01, 1.0, o, 2, r, &err), &err, "order");
        expect_einval(dp_rdp_to_epsilon(o, rr, 2, 1e-5, IMP, &e, NULL, &err), &err, "order");
    }
    const double bad_rdp[] = {-1e-3, NAN};
    for (int i = 0; i < 2; i++) {
        double rr[2] = {0.1, bad_rdp[i]};
        expect_einval(dp_rdp_to_epsilon(o2, rr, 2, 1e-5, IMP, &e, NULL, &err), &err, "rdp");
    }
    double rr[2] = {0.1, 0.2};
    expect_einval(dp_rdp_to_epsilon(o2, rr, 0, 1e-5, IMP, &e, NULL, &err), &err, "n = 0");
    expect_einval(dp_rdp_to_epsilon(o2, rr, 2, 1.0, IMP, &e, NULL, &err), &err, "delta");
    expect_einval(dp_rdp_subsampled_gaussian(0.01, 1.0, o2, 2, NULL, &err), &err, "rdp");
    /* a NULL dp_err is allowed: the code still comes back */
    ck_assert_int_eq(dp_rdp_epsilon(0.0, 1.0, 10, 1e-5, IMP, &e, NULL, NULL), DP_EINVAL);
}
END_TEST

/* Extreme but valid inputs: status 0, eps never NaN (inf allowed), best order on the grid. */
START_TEST(test_no_nan)
{
    const double qs[] = {1e-300, 1e-9, 0.5, 1.0 - 1e-15, 1.0};
    const double sigmas[] = {1e-300, 1e-8, 0.05, 1e3, 1e300};
    const long steps[] = {1, LONG_MAX};
    const dp_rdp_conversion convs[] = {DP_RDP_CONVERT_CLASSIC, DP_RDP_CONVERT_IMPROVED};
    const double *o;
    size_t n = dp_rdp_default_orders(&o);
    dp_err err;
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 2; c++)
                for (int v = 0; v < 2; v++) {
                    double e = NAN, best = NAN;
                    ck_assert_int_eq(dp_rdp_epsilon(qs[a], sigmas[b], steps[c], 0.5, convs[v],
                                                    &e, &best, &err), 0);
                    ck_assert_msg(!isnan(e) && e >= 0 && in_grid(best, o, n),
                                  "q %g sigma %g steps %ld: eps %g order %g", qs[a], sigmas[b],
                                  steps[c], e, best);
                }
    /* every order infinite: eps = inf, status 0 */
    double rr[2] = {INFINITY, INFINITY}, o2[2] = {2, 3}, e = 0, best = 0;
    ck_assert_int_eq(dp_rdp_to_epsilon(o2, rr, 2, 1e-5, DP_RDP_CONVERT_IMPROVED, &e, &best, &err), 0);
    ck_assert(isinf(e) && best == 2);
}
END_TEST

// ---- runner ---------------------------------------------------------------------------


static Suite *rdp_suite(void)
{
    Suite *s = suite_create("rdp");
    test_add_case(s, "rdp-1.1", test_opacus_grid, 120);
    test_add_case(s, "rdp-1.2", test_dpaccounting_grid, 120);
    test_add_case(s, "rdp-1.3", test_default_accountant, 120);
    test_add_case(s, "rdp-1.4", test_seed_papers, 30);
    test_add_case(s, "rdp-2.1", test_calibrate_reference, 240);
    test_add_case(s, "rdp-2.2", test_calibrate_unreachable, 30);
    test_add_case(s, "rdp-3.1", test_monotone, 60);
    test_add_case(s, "rdp-3.2", test_q_one, 30);
    test_add_case(s, "rdp-3.3", test_int_frac_agree, 30);
    test_add_case(s, "rdp-3.4", test_int_naive, 120);
    test_add_case(s, "rdp-3.5", test_frac_integral, 60);
    test_add_case(s, "rdp-3.6", test_default_orders, 30);
    test_add_case(s, "rdp-4.1", test_bad_inputs, 30);
    test_add_case(s, "rdp-4.2", test_no_nan, 120);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rdp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
