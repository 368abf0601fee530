/* test_composition.c: Check suite "composition" for algorithms/privacy/composition.c.
 *
 * comp-1.*  the theorems on hand-computed values (40-digit mpmath evaluations of the
 *           printed formulas, quoted at each check): basic, advanced (DPlis Thm 1),
 *           Lecture15 Lemma 15.2 (and that its per-step budget really composes back to
 *           the target), Lecture15 Lemma 15.4 amplification (values, monotonicity, no
 *           overflow or lost digits at the extremes).
 * comp-2.*  the schedule accountants: monotone in sigma, steps and q; never below the
 *           RDP epsilon (rdp.h, improved conversion) once there are >= 100 steps (with
 *           few steps RDP's conversion is the looser one, see comp-2.3); the delta split
 *           no worse than a dense scan; per-step outputs consistent with the total.
 * comp-3.*  bad inputs: DP_EINVAL / DP_EPRIVACY with the parameter named.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/privacy_fixture.h"
#include "algorithms/privacy/composition.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/privacy/mechanisms.h"
#include "algorithms/privacy/rdp.h"

// ---- comp-1: theorems -----------------------------------------------------------------

START_TEST(test_basic)
{
    double e = 0, d = 0;
    ck_assert_int_eq(dp_composition_basic(0.1, 1e-6, 10, &e, &d, NULL), 0);
    ck_assert_double_eq_tol(e, 1.0, 1e-15);
    ck_assert_double_eq_tol(d, 1e-5, 1e-20);
    ck_assert_int_eq(dp_composition_basic(0.5, 0.3, 10, &e, &d, NULL), 0);
    ck_assert(d == 1.0); /* capped */
}
END_TEST

START_TEST(test_advanced)
{
    double e = 0, d = 0;
    /* sqrt(200 ln 1e5) 0.1 + 100 0.1 (e^0.1 - 1) = 5.850235092944557455684... */
    ck_assert_int_eq(dp_composition_advanced(0.1, 1e-7, 100, 1e-5, &e, &d, NULL), 0);
    ck_assert_msg(REL(e, 5.8502350929445574557) <= 1e-14, "eps %.17g", e);
    ck_assert_msg(REL(d, 2e-5) <= 1e-14, "delta %.17g", d);
    /* k = 1, eps = 0 */
    ck_assert_int_eq(dp_composition_advanced(0.0, 0.0, 1, 0.5, &e, &d, NULL), 0);
    ck_assert(e == 0.0 && d == 0.5);
}
END_TEST

START_TEST(test_per_step)
{
    double es = 0, ds = 0;
    /* 0.5 / (2 sqrt(200 ln(2e5))) = 0.005059842932064511416 */
    ck_assert_int_eq(dp_composition_advanced_per_step(0.5, 1e-5, 100, &es, &ds, NULL), 0);
    ck_assert_msg(REL(es, 0.005059842932064511416) <= 1e-14, "eps' %.17g", es);
    ck_assert_double_eq_tol(ds, 5e-8, 1e-22);
    /* Composed with slack delta/2 the per-step budget meets the target exactly in delta
     * and within it in eps, over a grid (eps < 1 is what makes the second term <= eps/2). */
    const double eps[] = {0.01, 0.1, 0.5, 0.9, 0.999};
    const double deltas[] = {0.5, 1e-3, 1e-5, 1e-10};
    const long ks[] = {1, 2, 10, 1000, 1000000};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 5; k++) {
                double e, d, et, dt;
                ck_assert_int_eq(dp_composition_advanced_per_step(eps[i], deltas[j], ks[k], &e,
                                                                  &d, NULL), 0);
                ck_assert_int_eq(dp_composition_advanced(e, d, ks[k], deltas[j] / 2, &et, &dt,
                                                         NULL), 0);
                ck_assert_msg(et <= eps[i] && REL(dt, deltas[j]) <= 1e-12,
                              "eps %g delta %g k %ld: composes to (%g, %g)", eps[i], deltas[j],
                              ks[k], et, dt);
            }
}
END_TEST

START_TEST(test_subsample)
{
    double e = 0, d = 0;
    /* ln(1 + 0.01 (e - 1)) = 0.01703686323617654978638... */
    ck_assert_int_eq(dp_composition_subsample(1.0, 1e-5, 0.01, &e, &d, NULL), 0);
    ck_assert_msg(REL(e, 0.017036863236176549786) <= 1e-14, "eps' %.17g", e);
    ck_assert_double_eq_tol(d, 1e-7, 1e-21);
    /* q = 1 is the identity */
    ck_assert_int_eq(dp_composition_subsample(0.7, 1e-5, 1.0, &e, &d, NULL), 0);
    ck_assert(e == 0.7 && d == 1e-5);
    /* tiny eps keeps its digits: ln(1 + q (e^x - 1)) ~ q x (1 + (1-q) x/2) */
    ck_assert_int_eq(dp_composition_subsample(1e-12, 0.0, 0.1, &e, &d, NULL), 0);
    ck_assert_msg(REL(e, 1e-13 * (1 + 0.45e-12)) <= 1e-15, "eps' %.17g", e);
    /* huge eps does not overflow: eps + ln(q + (1 - q) e^-eps) */
    ck_assert_int_eq(dp_composition_subsample(1000.0, 0.0, 0.5, &e, &d, NULL), 0);
    ck_assert_msg(REL(e, 1000.0 + log(0.5)) <= 1e-15, "eps' %.17g", e);
    ck_assert_int_eq(dp_composition_subsample(INFINITY, 0.0, 0.5, &e, &d, NULL), 0);
    ck_assert(isinf(e));
    /* monotone in q and in eps, never above eps */
    double prev = 0.0;
    for (double q = 1e-4; q <= 1.0; q *= 1.5) {
        ck_assert_int_eq(dp_composition_subsample(2.0, 1e-5, q, &e, &d, NULL), 0);
        ck_assert(e > prev && e <= 2.0);
        prev = e;
    }
    prev = 0.0;
    for (double x = 0.01; x <= 50.0; x *= 1.7) {
        ck_assert_int_eq(dp_composition_subsample(x, 1e-5, 0.05, &e, &d, NULL), 0);
        ck_assert(e > prev && e <= x);
        prev = e;
    }
}
END_TEST

// ---- comp-2: schedule accountants -----------------------------------------------------

static double sched(int adv, double q, double sigma, long steps, double delta)
{
    double e = NAN;
    dp_err err;
    int rc = dp_composition_schedule_epsilon(adv, q, sigma, steps, delta, &e, NULL, NULL, &err);
    ck_assert_msg(rc == 0, "schedule: %s", err.msg);
    ck_assert(!isnan(e));
    return e;
}

START_TEST(test_schedule_monotone)
{
    for (int adv = 0; adv <= 1; adv++) {
        double prev = INFINITY;
        for (double s = 0.6; s < 60.0; s *= 1.5) { /* decreasing in sigma */
            double e = sched(adv, 0.01, s, 1000, 1e-5);
            ck_assert_msg(e < prev, "adv %d: eps %g at sigma %g not below %g", adv, e, s, prev);
            prev = e;
        }
        prev = 0.0;
        for (long k = 1; k <= 100000; k *= 3) { /* increasing in steps */
            double e = sched(adv, 0.01, 2.0, k, 1e-5);
            ck_assert_msg(e > prev, "adv %d: eps %g at %ld steps not above %g", adv, e, k, prev);
            prev = e;
        }
        prev = 0.0;
        for (double q = 1e-4; q <= 1.0; q *= 2.5) { /* increasing in q */
            double e = sched(adv, q, 2.0, 1000, 1e-5);
            ck_assert_msg(e > prev, "adv %d: eps %g at q %g not above %g", adv, e, q, prev);
            prev = e;
        }
        prev = INFINITY;
        for (double d = 1e-12; d < 0.5; d *= 10) { /* decreasing in delta */
            double e = sched(adv, 0.01, 2.0, 1000, d);
            ck_assert_msg(e < prev, "adv %d: eps %g at delta %g not below %g", adv, e, d, prev);
            prev = e;
        }
    }
}
END_TEST

/* Advanced composition of per-step (eps, delta) guarantees is looser than RDP's
 * composition of the whole curve once steps are many: check it on a grid. */
START_TEST(test_schedule_vs_rdp)
{
    const double qs[] = {0.001, 0.01, 0.1, 1.0};
    const double sig[] = {0.8, 1.0, 2.0, 5.0, 20.0};
    const long ks[] = {100, 1000, 10000};
    const double deltas[] = {1e-5, 1e-8};
    double min_ratio = INFINITY;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 3; c++)
                for (int d = 0; d < 2; d++) {
                    double er = NAN;
                    ck_assert_int_eq(dp_rdp_epsilon(qs[a], sig[b], ks[c], deltas[d],
                                                    DP_RDP_CONVERT_IMPROVED, &er, NULL, NULL), 0);
                    for (int adv = 0; adv <= 1; adv++) {
                        double e = sched(adv, qs[a], sig[b], ks[c], deltas[d]);
                        ck_assert_msg(e >= er, "%s q %g sigma %g steps %ld delta %g: %g < rdp %g",
                                      adv ? "advanced" : "basic", qs[a], sig[b], ks[c],
                                      deltas[d], e, er);
                        if (e / er < min_ratio) min_ratio = e / er;
                    }
                }
    printf("comp-2.2: advanced/basic >= rdp on 240 cases (>= 100 steps); smallest ratio %.3f\n",
           min_ratio);
}
END_TEST

/* One full-batch step: basic is the exact analytic-Gaussian epsilon, which beats RDP's
 * conversion (lossy by construction), so the RDP ordering is not a law for few steps. */
START_TEST(test_schedule_one_step)
{
    const double sig[] = {0.8, 1.0, 2.0, 5.0};
    for (int b = 0; b < 4; b++) {
        double e_exact, er;
        ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(sig[b], 1e-5, 1.0, &e_exact, NULL), 0);
        double e = sched(0, 1.0, sig[b], 1, 1e-5);
        ck_assert_msg(REL(e, e_exact) <= 1e-14, "sigma %g: %.17g vs %.17g", sig[b], e, e_exact);
        ck_assert_int_eq(dp_rdp_epsilon(1.0, sig[b], 1, 1e-5, DP_RDP_CONVERT_IMPROVED, &er, NULL,
                                        NULL), 0);
        ck_assert_msg(e < er, "sigma %g: exact %g not below rdp %g", sig[b], e, er);
    }
}
END_TEST

/* The advanced guarantee at split f (fraction of delta spent by the steps), from the
 * public building blocks: an independent re-computation of what the accountant does. */
static double advanced_at(double q, double sigma, long k, double delta, double f)
{
    double e0, e1, d1, et, dt;
    double d0 = f * delta / ((double)k * q);
    ck_assert(d0 < 1.0);
    ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(sigma, d0, 1.0, &e0, NULL), 0);
    ck_assert_int_eq(dp_composition_subsample(e0, d0, q, &e1, &d1, NULL), 0);
    ck_assert_int_eq(dp_composition_advanced(e1, d1, k, (1 - f) * delta, &et, &dt, NULL), 0);
    ck_assert(REL(dt, delta) <= 1e-12);
    return et;
}

START_TEST(test_schedule_split)
{
    const double cases[][4] = {{0.01, 2.0, 1000, 1e-5}, {0.1, 5.0, 100, 1e-6},
                               {1.0, 20.0, 50, 1e-5}, {0.001, 1.0, 10000, 1e-8}};
    for (int c = 0; c < 4; c++) {
        double q = cases[c][0], s = cases[c][1], delta = cases[c][3];
        long k = (long)cases[c][2];
        double es = NAN, ds = NAN, e = NAN;
        ck_assert_int_eq(dp_composition_schedule_epsilon(1, q, s, k, delta, &e, &es, &ds, NULL), 0);
        /* dense scan of the split: the search must be at least as good */
        double best = INFINITY;
        for (int i = 1; i < 2000; i++) {
            double v = advanced_at(q, s, k, delta, i / 2000.0);
            if (v < best) best = v;
        }
        ck_assert_msg(e <= best * (1 + 1e-9), "case %d: %.12g above the scan's %.12g", c, e, best);
        /* per-step outputs reproduce the total */
        double et, dt;
        double slack = delta - (double)k * ds;
        ck_assert(slack > 0);
        ck_assert_int_eq(dp_composition_advanced(es, ds, k, slack, &et, &dt, NULL), 0);
        ck_assert_msg(REL(et, e) <= 1e-12, "case %d: per-step outputs give %.17g, not %.17g", c,
                      et, e);
        /* basic: all of delta per step */
        ck_assert_int_eq(dp_composition_schedule_epsilon(0, q, s, k, delta, &e, &es, &ds, NULL), 0);
        ck_assert(REL(e, (double)k * es) <= 1e-15 && REL(ds, delta / (double)k) <= 1e-14);
    }
}
END_TEST

/* Extremes: status 0, never NaN (inf allowed when the per-step eps overflows). */
START_TEST(test_schedule_extremes)
{
    const double qs[] = {1e-12, 1e-6, 0.5, 1.0};
    const double sig[] = {1e-3, 0.3, 1.0, 1e4};
    const long ks[] = {1, 1000000};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 2; c++)
                for (int adv = 0; adv <= 1; adv++) {
                    double e = sched(adv, qs[a], sig[b], ks[c], 1e-5);
                    ck_assert(e >= 0.0);
                }
    /* q below delta / steps: the steps' total variation fits in delta, eps = 0 */
    ck_assert(sched(0, 1e-12, 1.0, 1000, 1e-5) == 0.0);
}
END_TEST

// ---- comp-3: bad inputs ---------------------------------------------------------------

/* The error filled by the call under test (file scope so EXPECT_ERR can read it). */
static dp_err e_;

START_TEST(test_bad_inputs)
{
    double a = 9, b = 9;
    EXPECT_ERR(dp_composition_basic(-1.0, 0.0, 3, &a, &b, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_composition_basic(1.0, 2.0, 3, &a, &b, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_composition_basic(1.0, 0.0, 0, &a, &b, &e_), DP_EINVAL, "k");
    EXPECT_ERR(dp_composition_advanced(1.0, 0.0, 3, 0.0, &a, &b, &e_), DP_EINVAL, "slack");
    EXPECT_ERR(dp_composition_advanced(NAN, 0.0, 3, 0.1, &a, &b, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_composition_advanced_per_step(1.0, 1e-5, 10, &a, &b, &e_), DP_EPRIVACY,
               "Lemma 15.2");
    EXPECT_ERR(dp_composition_advanced_per_step(0.5, 1.0, 10, &a, &b, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_composition_subsample(1.0, 0.0, 0.0, &a, &b, &e_), DP_EINVAL, "q");
    EXPECT_ERR(dp_composition_subsample(1.0, 0.0, 1.5, &a, &b, &e_), DP_EINVAL, "q");
    EXPECT_ERR(dp_composition_subsample(1.0, 0.0, 0.5, NULL, &b, &e_), DP_EINVAL, "NULL");
    EXPECT_ERR(dp_composition_schedule_epsilon(1, 0.0, 1.0, 10, 1e-5, &a, NULL, NULL, &e_),
               DP_EINVAL, "q");
    EXPECT_ERR(dp_composition_schedule_epsilon(1, 0.1, 0.0, 10, 1e-5, &a, NULL, NULL, &e_),
               DP_EINVAL, "sigma");
    EXPECT_ERR(dp_composition_schedule_epsilon(1, 0.1, INFINITY, 10, 1e-5, &a, NULL, NULL, &e_),
               DP_EINVAL, "sigma");
    EXPECT_ERR(dp_composition_schedule_epsilon(1, 0.1, 1.0, 0, 1e-5, &a, NULL, NULL, &e_),
               DP_EINVAL, "steps");
    EXPECT_ERR(dp_composition_schedule_epsilon(0, 0.1, 1.0, 10, 1.0, &a, NULL, NULL, &e_),
               DP_EINVAL, "delta");
    EXPECT_ERR(dp_composition_schedule_epsilon(0, 0.1, 1.0, 10, 1e-5, NULL, NULL, NULL, &e_),
               DP_EINVAL, "NULL");
    ck_assert(a == 9 && b == 9);
}
END_TEST

// ---- runner ---------------------------------------------------------------------------


static Suite *composition_suite(void)
{
    Suite *s = suite_create("composition");
    test_add_case(s, "comp-1.1", test_basic, 30);
    test_add_case(s, "comp-1.2", test_advanced, 30);
    test_add_case(s, "comp-1.3", test_per_step, 30);
    test_add_case(s, "comp-1.4", test_subsample, 30);
    test_add_case(s, "comp-2.1", test_schedule_monotone, 60);
    test_add_case(s, "comp-2.2", test_schedule_vs_rdp, 120);
    test_add_case(s, "comp-2.3", test_schedule_one_step, 30);
    test_add_case(s, "comp-2.4", test_schedule_split, 120);
    test_add_case(s, "comp-2.5", test_schedule_extremes, 60);
    test_add_case(s, "comp-3.1", test_bad_inputs, 30);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(composition_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
