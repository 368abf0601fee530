/* test_pld.c: Check suite "pld" for algorithms/privacy/pld.c.
 *
 * pld-1.*  against Google dp_accounting's PLDAccountant (value_discretization_interval
 *          1e-4): every case of reference_eps.json with an eps_pld_dpaccounting, and the
 *          seed-paper settings of seed_paper_checks.md (DPlis epochs, Abadi et al.). The
 *          directory comes from $DPERM_REFERENCE, else tests/fixtures/privacy (relative to
 *          the repository root, where `make` runs the tests); a missing file fails.
 * pld-2.*  independent closed forms: q = 1 against the exact Gaussian delta(eps) of Balle &
 *          Wang 2018 (Thm 8), one and many steps; q < 1, one step, each direction's PMF
 *          (remove and add separately) against the hockey stick of the subsampled Gaussian
 *          written as dp_accounting's privacy_loss_mechanism.py does (CDF differences).
 * pld-3.*  properties: monotonicity, PLD <= RDP (improved conversion), delta/epsilon
 *          consistency, bit-identical reruns, coarser grids never tighter.
 * pld-4.*  bad inputs (DP_EINVAL naming the parameter), extreme inputs (no NaN, status 0
 *          or DP_EPRIVACY for astronomically many steps).
 *
 * White box: the remove direction dominates the add direction in every case tried (one
 * step, as dp_accounting notes, and composed), so the public max() never shows the add
 * PMF. To check it, this file includes pld.c itself and reaches the per-direction PMFs
 * (pld-2.3); the linker then takes dp_pld_* from here and never pulls pld.o out of
 * libdperm.a (nothing else linked here refers to it).
 */
#include "tests/unit/test_util.h"
#include "tests/unit/pld_fixture.h"
#include "algorithms/privacy/pld.c"
#include "algorithms/privacy/rdp.h"

#include <check.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELTA 1e-5

// ---- helpers --------------------------------------------------------------------------

/* Balle & Wang 2018, Thm 8: delta(eps) of the Gaussian mechanism, sensitivity 1, noise s. */
static double bw_delta(double eps, double s)
{
    return Phi(-eps * s + 0.5 / s) - exp(eps) * Phi(-eps * s - 0.5 / s);
}

/* The eps solving bw_delta(eps, s) = delta, by bisection (delta decreases in eps). */
static double bw_eps(double delta, double s)
{
    double lo = 0.0, hi = 1e3;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (bw_delta(mid, s) > delta) lo = mid;
        else hi = mid;
    }
    return hi;
}

/* One step of the Poisson-subsampled Gaussian, the naive way (dp_accounting's
 * AdditiveNoisePrivacyLoss.get_delta_for_epsilon: mu_upper_cdf(x) - e^eps mu_lower_cdf(x)
 * at the inverse privacy loss x). remove: upper (1-q)N(0)+qN(-1), lower N(0); add: upper
 * N(0), lower (1-q)N(0)+qN(1). */
static double naive_delta(double q, double s, double eps, int add)
{
    if (!add) {
        if (eps <= log1p(-q)) return 1 - exp(eps);
        double l = log(1 + (exp(eps) - 1) / q), x = -0.5 - l * s * s;
        return (1 - q) * Phi(x / s) + q * Phi((x + 1) / s) - exp(eps) * Phi(x / s);
    }
    if (eps >= -log1p(-q)) return 0;
    double l = -log(1 + (exp(-eps) - 1) / q), x = 0.5 - l * s * s;
    return Phi(x / s) - exp(eps) * ((1 - q) * Phi(x / s) + q * Phi((x - 1) / s));
}

static double pld_eps(double q, double s, long T, double delta, double interval)
{
    return pld_test_eps(dp_pld_epsilon, q, s, T, delta, interval);
}

static double pld_delta(double q, double s, long T, double eps)
{
    return pld_test_delta(dp_pld_delta, q, s, T, eps);
}

// ---- pld-1: dp_accounting -------------------------------------------------------------

/* Every reference case with a dp_accounting PLD epsilon: dperm's default within -1% / +2%
 * (the bar), and in practice within ~1e-6 (same construction, same interval). */
START_TEST(test_reference)
{
    json_t *root = test_load_reference("reference_eps.json", "pld-1.1");
    double lo = 0.0, hi = 0.0;
    size_t k, n = 0, stride = test_case_stride();
    json_t *c;
    json_array_foreach(root, k, c) {
        if (k % stride) continue;
        json_t *ref_v = json_object_get(c, "eps_pld_dpaccounting");
        if (json_is_null(ref_v)) continue;
        ck_assert_msg(json_is_number(ref_v), "case %zu: eps_pld_dpaccounting not a number", k);
        double q = test_num(c, "q"), s = test_num(c, "sigma"), d = test_num(c, "delta");
        long T = (long)test_num(c, "steps");
        double ref = json_number_value(ref_v), e = pld_eps(q, s, T, d, 0.0);
        double rel = (e - ref) / ref;
        ck_assert_msg(rel >= -0.01 && rel <= 0.02,
                      "q %g sigma %g steps %ld: dperm %.10g vs dp_accounting %.10g (%+.3g%%)", q,
                      s, T, e, ref, 100 * rel);
        if (rel < lo) lo = rel;
        if (rel > hi) hi = rel;
        n++;
    }
    /* the file holds ~200 such cases; guard against a bad load */
    ck_assert_uint_ge(n * stride, 100);
    printf("pld-1.1: %zu dp_accounting PLD cases: worst deviation %+.2e below, %+.2e above\n", n,
           lo, hi);
    json_decref(root);
}
END_TEST

/* seed_paper_checks.md (dp_accounting PLD at 1e-4, printed to 4 decimals), sigma 1.1:
 * DPlis's MNIST (q 256/60000) and CIFAR-10 (q 256/50000) training lengths, beyond the
 * 10000 steps of reference_eps.json; Abadi et al.'s q 0.01, sigma 4, 10000 steps. */
START_TEST(test_seed_papers)
{
    static const struct { double q, s; long T; double ref; } c[] = {
        {256.0 / 60000, 1.1, 6084, 1.5145},  {256.0 / 60000, 1.1, 37440, 4.1117},
        {256.0 / 60000, 1.1, 69030, 5.8464}, {256.0 / 60000, 1.1, 129636, 8.4918},
        {256.0 / 50000, 1.1, 4095, 1.5012},  {256.0 / 50000, 1.1, 25740, 4.0995},
        {256.0 / 50000, 1.1, 47580, 5.8316}, {256.0 / 50000, 1.1, 89700, 8.4830},
        {0.01, 4.0, 10000, 0.9470},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        double e = pld_eps(c[i].q, c[i].s, c[i].T, DELTA, 0.0);
        /* 5e-5 is the rounding of the printed value; 5e-5 more for the rest */
        ck_assert_msg(fabs(e - c[i].ref) <= 1e-4, "q %g sigma %g steps %ld: %.6f vs %.4f",
                      c[i].q, c[i].s, c[i].T, e, c[i].ref);
    }
}
END_TEST

// ---- pld-2: closed forms --------------------------------------------------------------

/* q = 1, one step: delta(eps) equals the exact Gaussian at grid points and bounds it from
 * above between them; "never below" up to 1e-12 relative, the floating-point rounding of
 * either side (the closed form cancels two terms). Measured: <= 1e-8 above for delta >=
 * 1e-10, plus <= ~1e-14 absolute (infinity mass and tail budget). */
START_TEST(test_q1_delta)
{
    const double sig[] = {0.5, 1.0, 2.0, 5.0, 20.0};
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 30; k++) {
            /* alternate on-grid (multiples of 1e-4) and off-grid epsilons */
            double eps = k % 2 ? 0.2 * k : 0.0137 + 0.1997 * k;
            double d = pld_delta(1.0, sig[i], 1, eps), x = bw_delta(eps, sig[i]);
            ck_assert_msg(d >= x * (1 - 1e-12),
                          "sigma %g eps %g: PLD delta %.17g below exact %.17g", sig[i], eps, d, x);
            ck_assert_msg(d <= x * (1 + 1e-6) + 1e-13,
                          "sigma %g eps %g: PLD delta %.17g vs exact %.17g", sig[i], eps, d, x);
        }
}
END_TEST

/* q = 1: epsilon is the exact Gaussian epsilon or above it by less than one default
 * interval (1e-6 relative more where the grid is coarsened: sigma/sqrt(T) = 0.05 spans
 * ~800 loss units), for one step and for T steps (exactly one Gaussian of noise
 * sigma/sqrt(T)). Measured: above by <= 1e-7 at the default interval. */
START_TEST(test_q1_epsilon)
{
    const double sig[] = {0.5, 1.0, 2.0, 5.0, 20.0};
    const double del[] = {1e-3, 1e-5, 1e-8};
    const long steps[] = {1, 7, 100};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
            for (int t = 0; t < 3; t++) {
                double s_eff = sig[i] / sqrt((double)steps[t]);
                double x = bw_eps(del[j], s_eff), e = pld_eps(1.0, sig[i], steps[t], del[j], 0);
                ck_assert_msg(e >= x - 1e-12 && e <= x + DP_PLD_DEFAULT_INTERVAL + 1e-6 * x,
                              "sigma %g steps %ld delta %g: PLD %.12g vs exact %.12g", sig[i],
                              steps[t], del[j], e, x);
            }
}
END_TEST

/* q < 1, one step, each direction on its own (white box): at grid points the PMF's delta
 * equals the naive formula (1e-9 relative, 1e-15 absolute: the naive CDF differences lose
 * ~1e-17 absolute, the tail budget is 1e-15) and bounds it in between; the mass sums to 1
 * (1e-12, compensated sum); the public delta is the larger direction. */
START_TEST(test_subsampled_one_step)
{
    const double qs[] = {0.004, 0.05, 0.5};
    const double sig[] = {0.8, 2.0, 5.0};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            pmf x[2];
            int nd = 0;
            double d = 0;
            dp_err err;
            ck_assert_int_eq(compose_both(qs[a], sig[b], 1, 0.0, 0, x, &nd, &d, &err), 0);
            ck_assert_int_eq(nd, 2);
            ck_assert(d == DP_PLD_DEFAULT_INTERVAL);
            for (int dir = 0; dir < 2; dir++) {
                double m = pld_test_mass(x[dir].inf, x[dir].p, x[dir].n);
                ck_assert_msg(fabs(m - 1) <= 1e-12, "q %g sigma %g dir %d: mass %.17g", qs[a],
                              sig[b], dir, m);
            }
            for (int k = 0; k < 40; k++) {
                double eps = k % 2 ? 1e-4 * (97 * k) : 0.00123 + 0.0617 * k;
                double dr = pmf_delta(&x[0], d, eps), da = pmf_delta(&x[1], d, eps);
                double nr = naive_delta(qs[a], sig[b], eps, 0), na = naive_delta(qs[a], sig[b], eps, 1);
                const double got[2] = {dr, da}, want[2] = {nr, na};
                for (int dir = 0; dir < 2; dir++) {
                    char what[96];
                    snprintf(what, sizeof what, "q %g sigma %g eps %g dir %d", qs[a], sig[b],
                             eps, dir);
                    pld_test_delta_vs(got[dir], want[dir], k % 2 /* on the grid */, what);
                }
                if (k % 8 == 1)
                    ck_assert(pld_delta(qs[a], sig[b], 1, eps) == fmax(dr, da));
            }
            pmf_free(&x[0]);
            pmf_free(&x[1]);
        }
}
END_TEST

// ---- pld-3: properties ----------------------------------------------------------------

START_TEST(test_monotone)
{
    const long steps[] = {1, 10, 100, 1000, 10000};
    const double qs[] = {0.001, 256.0 / 60000, 0.01, 0.05, 0.1, 1.0};
    const double sig[] = {0.6, 0.8, 1.0, 1.5, 2.0, 4.0, 8.0};
    pld_test_monotone(dp_pld_epsilon, DELTA,
                      &(pld_test_sweeps){.q = 0.01, .sigma = 1.1, .steps = steps, .n_steps = 5,
                                         .sigma_q = 1.1, .steps_q = 1000, .qs = qs, .n_q = 6,
                                         .q_s = 0.01, .steps_s = 1000, .sigmas = sig,
                                         .n_sigmas = 7});
}
END_TEST

/* The PLD is the tight accountant: never above RDP with the improved conversion. */
START_TEST(test_below_rdp)
{
    const double qs[] = {256.0 / 60000, 0.01, 0.1, 1.0};
    const double sig[] = {0.8, 1.1, 2.0, 4.0, 10.0};
    const long steps[] = {1, 100, 3000};
    double worst = 0;
    dp_err err;
    size_t stride = test_case_stride(), k = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 3; c++) {
                if (k++ % stride) continue;
                double r, p = pld_eps(qs[a], sig[b], steps[c], DELTA, 0);
                ck_assert_int_eq(dp_rdp_epsilon(qs[a], sig[b], steps[c], DELTA,
                                                DP_RDP_CONVERT_IMPROVED, &r, NULL, &err), 0);
                ck_assert_msg(p <= r, "q %g sigma %g steps %ld: PLD %g > RDP %g", qs[a], sig[b],
                              steps[c], p, r);
                if (p / r > worst) worst = p / r;
            }
    printf("pld-3.2: 60 cases, largest PLD/RDP epsilon ratio %.4f\n", worst);
}
END_TEST

/* delta(eps(delta)) = delta (eps is solved exactly between grid points), and delta falls
 * as eps grows. */
START_TEST(test_consistent)
{
    const double qs[] = {0.004, 0.05, 1.0};
    const long steps[] = {1, 500};
    size_t stride = test_case_stride() > 1 ? 3 : 1, k = 0;
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 2; c++) {
            if (k++ % stride) continue;
            for (double del = 1e-3; del > 1e-9; del /= 100) {
                double e = pld_eps(qs[a], 1.0, steps[c], del, 0);
                if (e == 0) continue;
                double d = pld_delta(qs[a], 1.0, steps[c], e);
                ck_assert_msg(fabs(d - del) <= 1e-7 * del, "q %g steps %ld: delta %g -> eps %g "
                              "-> delta %.12g", qs[a], steps[c], del, e, d);
            }
            pld_test_delta_falls(dp_pld_delta, qs[a], 1.0, steps[c], 8, 1.0);
        }
}
END_TEST

/* Reruns are bit-identical (FFTW_ESTIMATE plans), and the default equals an explicit 1e-4
 * when no coarsening is needed. */
START_TEST(test_reproducible)
{
    double a = pld_eps(256.0 / 60000, 1.1, 10000, DELTA, 0);
    double b = pld_eps(256.0 / 60000, 1.1, 10000, DELTA, 0);
    double c = pld_eps(256.0 / 60000, 1.1, 10000, DELTA, DP_PLD_DEFAULT_INTERVAL);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    ck_assert(memcmp(&a, &c, sizeof a) == 0);
}
END_TEST

/* Coarser nested grids never give a smaller epsilon (connect-the-dots on a sub-grid is a
 * post-processing of the finer PLD); an interval needing too many points is refused. */
START_TEST(test_intervals)
{
    const struct { double q, s; long T; } c[] = {{0.01, 1.1, 1000}, {0.05, 2.0, 100},
                                                 {1.0, 1.0, 1}, {0.004, 4.0, 10}};
    for (int i = 0; i < 4; i++) {
        double e1 = pld_eps(c[i].q, c[i].s, c[i].T, DELTA, 1e-4);
        double e2 = pld_eps(c[i].q, c[i].s, c[i].T, DELTA, 5e-4);
        double e3 = pld_eps(c[i].q, c[i].s, c[i].T, DELTA, 5e-3);
        ck_assert_msg(e1 <= e2 * (1 + 1e-9) && e2 <= e3 * (1 + 1e-9), "q %g sigma %g steps %ld: "
                      "%g %g %g", c[i].q, c[i].s, c[i].T, e1, e2, e3);
    }
    dp_err err;
    double e = -1;
    ck_assert_int_eq(dp_pld_epsilon(0.05, 0.5, 10000, DELTA, 1e-7, &e, &err), DP_EINVAL);
    ck_assert_msg(strstr(err.msg, "interval") != NULL, "%s", err.msg);
    ck_assert(e == -1);
}
END_TEST

/* pld-3.6: the coarse grid of estimates (dp_pld_epsilon_coarse): at DP_PLD_MAX_POINTS it
 * is dp_pld_epsilon with interval 0 bit for bit; at 2^16 points it stays above it (a
 * coarser pessimistic grid only loosens the bound) and, where the epsilon is large enough
 * for the default grid to be coarsened (tens), within 1e-4 of it (measured 2e-5 to 8e-5,
 * pld.h); a budget outside [DP_PLD_MIN_COARSE_POINTS, DP_PLD_MAX_POINTS] is refused. */
START_TEST(test_coarse)
{
    const struct { double q, s; long T; } c[] = {{0.05, 0.3, 20}, {0.01, 1.1, 1000}};
    dp_err err;
    for (int i = 0; i < 2; i++) {
        double full = pld_eps(c[i].q, c[i].s, c[i].T, DELTA, 0.0), same = -1, coarse = -1;
        ck_assert_int_eq(dp_pld_epsilon_coarse(c[i].q, c[i].s, c[i].T, DELTA,
                                               DP_PLD_MAX_POINTS, &same, &err), DP_OK);
        ck_assert_msg(memcmp(&same, &full, sizeof full) == 0, "case %d: %.17g != %.17g", i,
                      same, full);
        ck_assert_int_eq(dp_pld_epsilon_coarse(c[i].q, c[i].s, c[i].T, DELTA, 1L << 16,
                                               &coarse, &err), DP_OK);
        ck_assert_msg(coarse >= full && coarse <= full * (1 + 1e-4), "case %d: %.10g vs %.10g",
                      i, coarse, full);
        if (i == 0) ck_assert_msg(full > 10 && coarse > full, "case 0 not coarsened: %g", full);
    }
    double e = -1;
    const long bad[] = {DP_PLD_MIN_COARSE_POINTS - 1, DP_PLD_MAX_POINTS + 1, 0};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(dp_pld_epsilon_coarse(0.01, 1.0, 10, DELTA, bad[i], &e, &err),
                         DP_EINVAL);
        ck_assert_msg(strstr(err.msg, "max_points") != NULL, "%s", err.msg);
    }
    ck_assert(e == -1);
}
END_TEST

// ---- pld-4: inputs --------------------------------------------------------------------

START_TEST(test_bad_inputs)
{
    pld_test_bad_inputs(dp_pld_epsilon, dp_pld_delta, DELTA);
}
END_TEST

/* Extreme but valid inputs: status 0 with eps >= 0 (inf allowed) and delta in [0, 1],
 * never NaN; or DP_EPRIVACY when there are too many steps to compose (q < 1 only). */
START_TEST(test_no_nan)
{
    const double sig[] = {1e-300, 0.05, 1e3, 1e300};
    const long steps[] = {1, 1000, LONG_MAX};
    /* every case, also in the sanitizer tier (stride 1) */
    pld_test_no_nan(dp_pld_epsilon, dp_pld_delta, sig, 4, steps, 3, 1);
}
END_TEST

// ---- runner ---------------------------------------------------------------------------


static Suite *pld_suite(void)
{
    Suite *s = suite_create("pld");
    test_add_case(s, "pld-1.1", test_reference, 900);
    test_add_case(s, "pld-1.2", test_seed_papers, 300);
    test_add_case(s, "pld-2.1", test_q1_delta, 120);
    test_add_case(s, "pld-2.2", test_q1_epsilon, 120);
    test_add_case(s, "pld-2.3", test_subsampled_one_step, 300);
    test_add_case(s, "pld-3.1", test_monotone, 300);
    test_add_case(s, "pld-3.2", test_below_rdp, 300);
    test_add_case(s, "pld-3.3", test_consistent, 120);
    test_add_case(s, "pld-3.4", test_reproducible, 120);
    test_add_case(s, "pld-3.5", test_intervals, 120);
    test_add_case(s, "pld-3.6", test_coarse, 120);
    test_add_case(s, "pld-4.1", test_bad_inputs, 30);
    test_add_case(s, "pld-4.2", test_no_nan, 300);
    return s;
}

int main(void) { return test_run_suite(pld_suite()); }
