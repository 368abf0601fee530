/* test_theorems.c: Check suite "theorems" for algorithms/privacy/theorems.c.
 *
 * Hand-computed values are 40-digit mpmath evaluations of the papers' printed formulas
 * (quoted at each check); preconditions are violated on purpose and must give
 * DP_EPRIVACY with the precondition named.
 * thm-1.*  DP-LSSGD: Thm 1 nu, its inverse, the noise-multiplier mapping; Props 1-2
 *          against tests/fixtures/privacy/ls_constants.json (direct sums; the folder is
 *          $DPERM_REFERENCE if set, else relative to the repository root where `make`
 *          runs; a missing file fails), against Tables 3-4, and closed vs direct forms.
 * thm-2.*  Zhang17: Lemmas 2-3, Thms 2-3, Alg. 2 noise and Thm 5's round distribution.
 * thm-3.*  Lecture15: Lemmas 15.1 and 15.5, and their guarantee recomputed with the
 *          exact analytic Gaussian, Lemma 15.4 and advanced composition.
 * thm-4.*  InputPert: Thms 1 and 3, dperm's choice of c.
 * thm-5.*  bad inputs: DP_EINVAL naming the parameter, outputs untouched.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/privacy_fixture.h"
#include "algorithms/privacy/theorems.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/privacy/composition.h"
#include "algorithms/privacy/mechanisms.h"

/* The error filled by the call under test (file scope so EXPECT_ERR can read it). */
static dp_err e_;

// ---- thm-1: DP-LSSGD ------------------------------------------------------------------

START_TEST(test_lssgd_nu)
{
    double nu = 0, eps = 0;
    /* eps 1, delta 1e-5, T 100, n 1000, b 100, G 1: alpha = 2 ln(1e5) + 1,
     * nu = sqrt(800 alpha / 1e6) = 0.13863866972801046562 */
    ck_assert_int_eq(dp_thm_lssgd_nu(1.0, 1e-5, 100, 1000, 100, 1.0, &nu, NULL), 0);
    ck_assert_msg(REL(nu, 0.13863866972801046562) <= 1e-14, "nu %.17g", nu);
    /* G scales nu linearly */
    double nu3;
    ck_assert_int_eq(dp_thm_lssgd_nu(1.0, 1e-5, 100, 1000, 100, 3.0, &nu3, NULL), 0);
    ck_assert(REL(nu3, 3 * nu) <= 1e-15);
    /* inverse: nu 0.5 -> eps = (K + sqrt(K^2 + 8 K ln(1e5) 0.25))/0.5, K = 8e-4:
     * 0.27305033242899051917 */
    ck_assert_int_eq(dp_thm_lssgd_epsilon(0.5, 1e-5, 100, 1000, 100, 1.0, &eps, NULL), 0);
    ck_assert_msg(REL(eps, 0.27305033242899051917) <= 1e-14, "eps %.17g", eps);
    /* round trips over a grid */
    const double es[] = {0.05, 0.5, 1.0, 3.0};
    const double ds[] = {1e-3, 1e-5, 1e-10};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) {
            double v, back;
            ck_assert_int_eq(dp_thm_lssgd_nu(es[i], ds[j], 100, 1000, 100, 1.0, &v, NULL), 0);
            ck_assert_int_eq(dp_thm_lssgd_epsilon(v, ds[j], 100, 1000, 100, 1.0, &back, NULL), 0);
            ck_assert_msg(REL(back, es[i]) <= 1e-13, "eps %g -> nu %g -> %.17g", es[i], v, back);
        }
    /* the precondition: 5 T b^2 log(1/delta)/n^2 = 5 * 100 * 0.01 * ln(1e5) = 57.56 */
    double keep = 42;
    EXPECT_ERR(dp_thm_lssgd_nu(7.6, 1e-5, 100, 1000, 100, 1.0, &keep, &e_), DP_EPRIVACY,
               "eps^2 <= 5 T b^2 log(1/delta) / n^2");
    ck_assert_int_eq(dp_thm_lssgd_nu(7.58, 1e-5, 100, 1000, 100, 1.0, &keep, NULL), 0);
    keep = 42;
    EXPECT_ERR(dp_thm_lssgd_epsilon(1e-4, 1e-5, 100, 1000, 100, 1.0, &keep, &e_), DP_EPRIVACY,
               "DP-LSSGD Thm 1");
    ck_assert(keep == 42);
    EXPECT_ERR(dp_thm_lssgd_nu(1.0, 1e-5, 100, 1000, 2000, 1.0, &keep, &e_), DP_EINVAL, "b");
}
END_TEST

START_TEST(test_lssgd_multiplier)
{
    double zc = 0, zr = 0;
    ck_assert_int_eq(dp_thm_lssgd_noise_multiplier(0.05, 100, 2.0, &zc, &zr, NULL), 0);
    ck_assert_double_eq_tol(zc, 2.5, 1e-15);  /* b nu / G */
    ck_assert_double_eq_tol(zr, 1.25, 1e-15); /* b nu / (2G) */
    ck_assert_int_eq(dp_thm_lssgd_noise_multiplier(0.05, 100, 2.0, NULL, &zr, NULL), 0);
    /* The proof's condition nu^2/Delta(q)^2 >= 1/1.25 (Delta = 2G/b) follows from the
     * stated one: at the boundary eps, z_replace >= sqrt(0.8). */
    double eps = sqrt(5.0 * 100 * 0.01 * log(1e5)), nu;
    ck_assert_int_eq(dp_thm_lssgd_nu(eps, 1e-5, 100, 1000, 100, 1.0, &nu, NULL), 0);
    ck_assert_int_eq(dp_thm_lssgd_noise_multiplier(nu, 100, 1.0, NULL, &zr, NULL), 0);
    ck_assert_msg(zr >= sqrt(0.8), "z_replace %g below sqrt(1/1.25)", zr);
}
END_TEST



START_TEST(test_ls_constants_fixture)
{
    json_t *root = test_load_reference("ls_constants.json", "thm-1.3");
    size_t k;
    json_t *c;
    double worst = 0.0;
    int seen[4] = {0};
    json_array_foreach(root, k, c) {
        double s = test_num(c, "smoothing"), g_ref = test_num(c, "gamma"), b_ref = test_num(c, "beta");
        long d = (long)test_num(c, "d");
        double g = NAN, b = NAN, gd = NAN, bd = NAN;
        ck_assert_int_eq(dp_thm_lssgd_constants(s, d, &g, &b, NULL), 0);
        ck_assert_msg(REL(g, g_ref) <= 1e-12 && REL(b, b_ref) <= 1e-12,
                      "s %g d %ld: gamma %.17g (ref %.17g) beta %.17g (ref %.17g)", s, d, g,
                      g_ref, b, b_ref);
        worst = fmax(worst, fmax(REL(g, g_ref), REL(b, b_ref)));
        ck_assert_int_eq(dp_thm_lssgd_constants_direct(s, d, &gd, &bd, NULL), 0);
        ck_assert(REL(gd, g_ref) <= 1e-12 && REL(bd, b_ref) <= 1e-12);
        if (s >= 1 && s <= 3) seen[(int)s] = 1;
    }
    ck_assert_msg(seen[1] && seen[2] && seen[3], "fixture lacks smoothing 1, 2 or 3");
    printf("thm-1.3: DP-LSSGD Props 1-2 vs ls_constants.json (%zu rows): worst relative %.2e\n",
           json_array_size(root), worst);
    json_decref(root);
}
END_TEST

/* Tables 3 and 4 print three digits (rounded) for s = 1..5 and d = 1e3, 1e4, 1e5. */
START_TEST(test_ls_tables)
{
    static const double gamma_t[5] = {0.447, 0.333, 0.277, 0.243, 0.218};
    static const double beta_t[5] = {0.268, 0.185, 0.149, 0.128, 0.114};
    const long ds[] = {1000, 10000, 100000};
    for (int s = 1; s <= 5; s++)
        for (int j = 0; j < 3; j++) {
            double g, b;
            ck_assert_int_eq(dp_thm_lssgd_constants(s, ds[j], &g, &b, NULL), 0);
            ck_assert_msg(fabs(g - gamma_t[s - 1]) <= 5e-4 + 1e-12, "gamma(%d, %ld) %g", s, ds[j],
                          g);
            ck_assert_msg(fabs(b - beta_t[s - 1]) <= 5e-4 + 1e-12, "beta(%d, %ld) %g", s, ds[j],
                          b);
        }
}
END_TEST

/* Closed forms vs direct sums where a^d is not negligible (small d, large s) and at the
 * extremes of s; s = 0 is the identity. */
START_TEST(test_ls_closed_vs_direct)
{
    const double ss[] = {1e-9, 1e-3, 0.1, 0.5, 1.0, 3.0, 10.0, 1e3, 1e6};
    const long ds[] = {1, 2, 3, 5, 8, 30, 100, 1000};
    double worst = 0.0;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 8; j++) {
            double g, b, gd, bd;
            ck_assert_int_eq(dp_thm_lssgd_constants(ss[i], ds[j], &g, &b, NULL), 0);
            ck_assert_int_eq(dp_thm_lssgd_constants_direct(ss[i], ds[j], &gd, &bd, NULL), 0);
            ck_assert_msg(REL(g, gd) <= 1e-13 && REL(b, bd) <= 1e-13,
                          "s %g d %ld: gamma %.17g vs %.17g, beta %.17g vs %.17g", ss[i], ds[j], g,
                          gd, b, bd);
            worst = fmax(worst, fmax(REL(g, gd), REL(b, bd)));
            /* 0 < lambda <= 1, so sum lambda^2 <= sum lambda <= d (to rounding) */
            ck_assert(b <= g * (1 + 1e-14) && g <= 1.0 + 1e-14);
        }
    double g = 0, b = 0;
    ck_assert_int_eq(dp_thm_lssgd_constants(0.0, 7, &g, &b, NULL), 0);
    ck_assert(g == 1.0 && b == 1.0);
    ck_assert_int_eq(dp_thm_lssgd_constants(2.0, 1, &g, &b, NULL), 0);
    ck_assert(REL(g, 1.0) <= 1e-15 && REL(b, 1.0) <= 1e-15); /* d = 1: A = [1] */
    /* limits: gamma -> 1/sqrt(1+4s), beta -> (1+2s)/(1+4s)^1.5 */
    ck_assert_int_eq(dp_thm_lssgd_constants(2.0, 1000000, &g, &b, NULL), 0);
    ck_assert(REL(g, 1.0 / 3.0) <= 1e-15 && REL(b, 5.0 / 27.0) <= 1e-15);
    printf("thm-1.5: closed forms vs direct sums, 72 cases: worst relative %.2e\n", worst);
}
END_TEST

// ---- thm-2: Zhang17 -------------------------------------------------------------------

START_TEST(test_zhang17_sensitivity)
{
    double s = 0;
    ck_assert_int_eq(dp_thm_zhang17_sens_convex(1.0, 2.0, 0.5, 100, 1000, &s, NULL), 0);
    ck_assert_double_eq_tol(s, 0.15, 1e-16); /* 3 L T eta / n */
    EXPECT_ERR(dp_thm_zhang17_sens_convex(1.0, 2.0, 0.51, 100, 1000, &s, &e_), DP_EPRIVACY,
               "Lemma 2");
    ck_assert_int_eq(dp_thm_zhang17_sens_strongly_convex(1.0, 0.1, 1.0, 0.5, 1000, &s, NULL), 0);
    ck_assert_double_eq_tol(s, 0.055, 1e-16); /* 5 L (mu + beta)/(n mu beta) */
    EXPECT_ERR(dp_thm_zhang17_sens_strongly_convex(1.0, 0.1, 1.0, 0.95, 1000, &s, &e_),
               DP_EPRIVACY, "Lemma 3");
    EXPECT_ERR(dp_thm_zhang17_sens_strongly_convex(1.0, 2.0, 1.0, 0.1, 1000, &s, &e_), DP_EINVAL,
               "mu");
}
END_TEST

START_TEST(test_zhang17_thm2_thm3)
{
    double eta = 0, s = 0;
    long T = 0;
    /* L 1, mu 0.1, beta 1, n 1000, d 10, D 1, eps 1:
     * (eps, delta = 1e-3): 10.1 ln(1e4 / (10 ln 1e3)) = 50.2486... -> 51
     * eps-DP:              10.1 ln(1e4 / 100) = 46.512... -> 47 */
    ck_assert_int_eq(dp_thm_zhang17_thm2(1.0, 0.1, 1.0, 1000, 10, 1.0, 1.0, 1e-3, &eta, &s, &T,
                                         NULL), 0);
    ck_assert_int_eq(T, 51);
    ck_assert_double_eq_tol(eta, 1.0 / 1.1, 1e-15);
    ck_assert_double_eq_tol(s, 0.055, 1e-15); /* 5 L (1 + beta/mu) / (n beta) */
    ck_assert_int_eq(dp_thm_zhang17_thm2(1.0, 0.1, 1.0, 1000, 10, 1.0, 1.0, 0.0, NULL, NULL, &T,
                                         NULL), 0);
    ck_assert_int_eq(T, 47);
    /* noise-dominated: log argument < 1 gives T = 1 */
    ck_assert_int_eq(dp_thm_zhang17_thm2(1.0, 0.1, 1.0, 10, 1000, 1.0, 0.1, 0.0, NULL, NULL, &T,
                                         NULL), 0);
    ck_assert_int_eq(T, 1);
    /* Thm 3, beta 1: (1e6 / (10 ln 1e3))^(1/3) = 24.37 -> 25, Delta = 3 * 25 / 1000;
     * eps-DP: (1e6 / 100)^(1/3) = 21.54 -> 22 */
    ck_assert_int_eq(dp_thm_zhang17_thm3(1.0, 1.0, 1000, 10, 1.0, 1.0, 1e-3, &eta, &s, &T, NULL),
                     0);
    ck_assert_int_eq(T, 25);
    ck_assert_double_eq_tol(eta, 1.0, 1e-16);
    ck_assert_double_eq_tol(s, 0.075, 1e-16);
    ck_assert_int_eq(dp_thm_zhang17_thm3(1.0, 1.0, 1000, 10, 1.0, 1.0, 0.0, NULL, NULL, &T, NULL),
                     0);
    ck_assert_int_eq(T, 22);
    /* Thm 3's Delta is Lemma 2's at eta = 1/beta */
    double s2;
    ck_assert_int_eq(dp_thm_zhang17_sens_convex(1.0, 1.0, 1.0, 22, 1000, &s2, NULL), 0);
    ck_assert_int_eq(dp_thm_zhang17_thm3(1.0, 1.0, 1000, 10, 1.0, 1.0, 0.0, NULL, &s, NULL, NULL),
                     0);
    ck_assert(REL(s, s2) <= 1e-15);
}
END_TEST

START_TEST(test_zhang17_rrpsgd)
{
    double s = 0, s2 = 0, eta = 0;
    /* eps 0.5, delta 1e-3, L 1, n 1000: sqrt(4 ln(3e6) ln(2e3) / 0.25) = 42.588410259483666 */
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_noise(0.5, 1e-3, 1.0, 1000, &s, NULL), 0);
    ck_assert_msg(REL(s, 42.588410259483666018) <= 1e-14, "sigma %.17g", s);
    /* Thm 5 with d 10: 4 + 10 s^2 = 18141.726884300935807 */
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_step(0.5, 1e-3, 1.0, 2.0, 1000, 10, 3.0, &s2, &eta,
                                                NULL), 0);
    ck_assert_msg(REL(s2, 18141.726884300935807) <= 1e-14, "sigma^2 %.17g", s2);
    ck_assert_msg(REL(eta, 3.0 / (sqrt(s2) * 1000)) <= 1e-15, "eta %g", eta); /* D_F/(sigma n) */
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_step(0.5, 1e-3, 1.0, 2.0, 1000, 10, 1e9, NULL, &eta,
                                                NULL), 0);
    ck_assert_double_eq_tol(eta, 0.5, 1e-16); /* capped at 1/beta */
    EXPECT_ERR(dp_thm_zhang17_rrpsgd_noise(1.5, 1e-3, 1.0, 1000, &s, &e_), DP_EPRIVACY, "Thm 4");
    EXPECT_ERR(dp_thm_zhang17_rrpsgd_step(2.0, 1e-3, 1.0, 1.0, 10, 1, 1.0, &s, &eta, &e_),
               DP_EPRIVACY, "eps in (0, 1]");
}
END_TEST

START_TEST(test_zhang17_rounds)
{
    enum { M = 6 };
    double eta[M] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, p[M];
    /* beta = 2: weights 2 eta - 2 eta^2 = eta (2 - 2 eta) */
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_round_pmf(eta, M, 2.0, p, NULL), 0);
    double w[M], tot = 0, sum = 0;
    for (int k = 0; k < M; k++) tot += (w[k] = 2 * eta[k] - 2 * eta[k] * eta[k]);
    for (int k = 0; k < M; k++) {
        ck_assert(REL(p[k], w[k] / tot) <= 1e-15);
        sum += p[k];
    }
    ck_assert_double_eq_tol(sum, 1.0, 1e-15);
    /* constant steps: uniform */
    double c[M] = {0.3, 0.3, 0.3, 0.3, 0.3, 0.3};
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_round_pmf(c, M, 2.0, p, NULL), 0);
    for (int k = 0; k < M; k++) ck_assert_double_eq_tol(p[k], 1.0 / M, 1e-16);
    /* eta_k >= 2/beta violates Thm 5 */
    eta[3] = 1.0;
    EXPECT_ERR(dp_thm_zhang17_rrpsgd_round_pmf(eta, M, 2.0, p, &e_), DP_EPRIVACY, "eta_3");
    /* draws follow p: frequencies within 5 standard errors over 1e5 draws */
    double q[M] = {0.05, 0.1, 0.15, 0.2, 0.25, 0.25};
    long cnt[M + 1] = {0};
    dp_rng r;
    dp_rng_init(&r, 9, DP_STREAM_TEST);
    int bad = 0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        long R = 0;
        bad |= dp_thm_zhang17_rrpsgd_draw_round(&r, q, M, &R, NULL) != 0;
        bad |= R < 1 || R > M;
        if (!bad) cnt[R]++;
    }
    ck_assert(!bad);
    for (int k = 0; k < M; k++)
        ck_assert_double_eq_tol((double)cnt[k + 1] / n, q[k], 5 * sqrt(q[k] * (1 - q[k]) / n));
    /* constant step over {1..n^2}: in range, mean (n^2 + 1)/2 */
    double mean = 0;
    for (int i = 0; i < n; i++) {
        long R = 0;
        bad |= dp_thm_zhang17_rrpsgd_draw_round_const(&r, 100, &R, NULL) != 0;
        bad |= R < 1 || R > 10000;
        mean += (double)R;
    }
    ck_assert(!bad);
    ck_assert_double_eq_tol(mean / n, 5000.5, 5 * sqrt((1e8 - 1) / 12.0 / n));
    double qbad[2] = {0.5, 0.6};
    long R;
    EXPECT_ERR(dp_thm_zhang17_rrpsgd_draw_round(&r, qbad, 2, &R, &e_), DP_EINVAL, "sum");
}
END_TEST

// ---- thm-3: Lecture15 -----------------------------------------------------------------

START_TEST(test_lecture15_values)
{
    double s = 0;
    /* Lemma 15.1: eps 0.5, delta 1e-5, L 1, T 100, n 1000:
     * 8 sqrt(100 ln(2e5) ln(2.5e7)) / 500 = 2.3071254227108262523 */
    ck_assert_int_eq(dp_thm_lecture15_gd_sigma(0.5, 1e-5, 1.0, 100, 1000, &s, NULL), 0);
    ck_assert_msg(REL(s, 2.3071254227108262523) <= 1e-14, "sigma %.17g", s);
    /* Lemma 15.5: T 1e6: 8 sqrt(1e6 ln(2e5) ln(2.5e6/(1e-5 1e3)))/500 = 245.81149386489585 */
    ck_assert_int_eq(dp_thm_lecture15_sgd_sigma(0.5, 1e-5, 1.0, 1000000, 1000, &s, NULL), 0);
    ck_assert_msg(REL(s, 245.81149386489585243) <= 1e-14, "sigma %.17g", s);
    EXPECT_ERR(dp_thm_lecture15_gd_sigma(1.0, 1e-5, 1.0, 100, 1000, &s, &e_), DP_EPRIVACY,
               "eps < 1");
    EXPECT_ERR(dp_thm_lecture15_sgd_sigma(1.2, 1e-5, 1.0, 1000000, 1000, &s, &e_), DP_EPRIVACY,
               "Lemma 15.2");
    /* n eps / (2 sqrt(2 T ln(2/delta))) >= 1: too few steps for Lemma 15.3 on the sum */
    EXPECT_ERR(dp_thm_lecture15_sgd_sigma(0.5, 1e-5, 1.0, 1000, 1000, &s, &e_), DP_EPRIVACY,
               "Lemma 15.3");
}
END_TEST

/* The lemmas' sigma recomputed into a guarantee with exact tools: per step the analytic
 * Gaussian's eps at the per-step delta, Lemma 15.4 exactly (not linearized), advanced
 * composition with slack delta/2. The lemmas must deliver (<= eps, delta). */
START_TEST(test_lecture15_guarantee)
{
    const double eps[] = {0.1, 0.5, 0.9};
    const double deltas[] = {1e-3, 1e-5};
    const long ns[] = {100, 1000, 10000};
    int checked = 0;
    double worst = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 3; k++) {
                long n = ns[k], T = n * n;
                double s, e0, e1, d1, et, dt;
                /* Lemma 15.1: sensitivity 2L/n, per-step delta delta/(2T), no sampling */
                ck_assert_int_eq(dp_thm_lecture15_gd_sigma(eps[i], deltas[j], 1.0, T, n, &s,
                                                           NULL), 0);
                double dstep = deltas[j] / (2.0 * T);
                ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(s, dstep, 2.0 / n, &e0, NULL),
                                 0);
                ck_assert_int_eq(dp_composition_advanced(e0, dstep, T, deltas[j] / 2, &et, &dt,
                                                         NULL), 0);
                ck_assert_msg(et <= eps[i] && dt <= deltas[j] * (1 + 1e-12),
                              "Lemma 15.1 eps %g delta %g n %ld: (%g, %g)", eps[i], deltas[j], n,
                              et, dt);
                /* Lemma 15.5: the full sum (sensitivity 2L) at delta n delta/(2T), sampled
                 * with q = 1/n */
                ck_assert_int_eq(dp_thm_lecture15_sgd_sigma(eps[i], deltas[j], 1.0, T, n, &s,
                                                            NULL), 0);
                double dfull = n * deltas[j] / (2.0 * T);
                ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(s, dfull, 2.0, &e0, NULL), 0);
                ck_assert_int_eq(dp_composition_subsample(e0, dfull, 1.0 / n, &e1, &d1, NULL), 0);
                ck_assert_int_eq(dp_composition_advanced(e1, d1, T, deltas[j] / 2, &et, &dt,
                                                         NULL), 0);
                ck_assert_msg(et <= eps[i] && dt <= deltas[j] * (1 + 1e-12),
                              "Lemma 15.5 eps %g delta %g n %ld: (%g, %g)", eps[i], deltas[j], n,
                              et, dt);
                worst = fmax(worst, et / eps[i]);
                checked++;
            }
    printf("thm-3.2: Lecture15 Lemmas 15.1/15.5 hold by exact recomputation on %d cases "
           "(T = n^2); Lemma 15.5's largest achieved/target eps %.3f\n", checked, worst);
}
END_TEST

// ---- thm-4: InputPert -----------------------------------------------------------------

START_TEST(test_inputpert)
{
    double v = 0, c = 0;
    /* eps 0.1, delta 1e-5, G 1, Delta 0.01, T 50, n 1000, c 2:
     * 2 * 50 ln(1e5) / (1000 * 999 * 0.1 * 0.01) = 1.1524449914885113534 */
    ck_assert_int_eq(dp_thm_inputpert_sigma2(0.1, 1e-5, 1.0, 0.01, 50, 1000, 2.0, &v, NULL), 0);
    ck_assert_msg(REL(v, 1.1524449914885113534) <= 1e-14, "sigma^2 %.17g", v);
    ck_assert_int_eq(dp_thm_inputpert_pl_sigma2(0.1, 1e-5, 1.0, 50, 1000, 2.0, &v, NULL), 0);
    ck_assert_msg(REL(v, 0.11524449914885113534) <= 1e-14, "sigma^2 %.17g", v);
    /* c = 2 ln(1.25e5)/ln(1e5) = 2.0387640052032225657 */
    ck_assert_int_eq(dp_thm_inputpert_c_classic(1e-5, &c, NULL), 0);
    ck_assert_msg(REL(c, 2.0387640052032225657) <= 1e-14, "c %.17g", c);
    /* with that c, c log(1/delta) is the classic 2 ln(1.25/delta) */
    ck_assert(REL(c * log(1e5), 2 * log(1.25e5)) <= 1e-15);
    EXPECT_ERR(dp_thm_inputpert_sigma2(0.1, 1e-5, 1.0, 0.01, 50, 1, 2.0, &v, &e_), DP_EPRIVACY,
               "n >= 2");
    EXPECT_ERR(dp_thm_inputpert_sigma2(0.1, 1e-5, 1.0, 0.0, 50, 100, 2.0, &v, &e_), DP_EINVAL,
               "strong convexity");
    EXPECT_ERR(dp_thm_inputpert_sigma2(0.1, 1e-5, 1.0, 0.01, 50, 100, 0.0, &v, &e_), DP_EINVAL,
               "constant c");
}
END_TEST

// ---- thm-5: bad inputs ----------------------------------------------------------------

START_TEST(test_bad_inputs)
{
    double out = 17;
    long T = 17;
    EXPECT_ERR(dp_thm_lssgd_nu(0.0, 1e-5, 100, 1000, 100, 1.0, &out, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_thm_lssgd_nu(1.0, 1.0, 100, 1000, 100, 1.0, &out, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_thm_lssgd_nu(1.0, 1e-5, 0, 1000, 100, 1.0, &out, &e_), DP_EINVAL, "T");
    EXPECT_ERR(dp_thm_lssgd_nu(1.0, 1e-5, 100, 1000, 100, NAN, &out, &e_), DP_EINVAL, "G");
    EXPECT_ERR(dp_thm_lssgd_epsilon(-1.0, 1e-5, 100, 1000, 100, 1.0, &out, &e_), DP_EINVAL, "nu");
    EXPECT_ERR(dp_thm_lssgd_noise_multiplier(1.0, 0, 1.0, &out, NULL, &e_), DP_EINVAL, "b");
    EXPECT_ERR(dp_thm_lssgd_constants(-1.0, 10, &out, NULL, &e_), DP_EINVAL, "smoothing");
    EXPECT_ERR(dp_thm_lssgd_constants(1.0, 0, &out, NULL, &e_), DP_EINVAL, "dimension");
    EXPECT_ERR(dp_thm_zhang17_sens_convex(1.0, 0.0, 0.1, 10, 10, &out, &e_), DP_EINVAL, "beta");
    EXPECT_ERR(dp_thm_zhang17_thm2(1.0, 0.1, 1.0, 1000, 10, 1.0, 1.0, 1.0, NULL, NULL, &T, &e_),
               DP_EINVAL, "delta");
    EXPECT_ERR(dp_thm_zhang17_thm3(1.0, 1.0, 1000, 0, 1.0, 1.0, 0.0, NULL, NULL, &T, &e_),
               DP_EINVAL, "dimension");
    EXPECT_ERR(dp_thm_zhang17_rrpsgd_noise(0.0, 1e-3, 1.0, 10, &out, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_thm_zhang17_rrpsgd_draw_round_const(NULL, 10, &T, &e_), DP_EINVAL, "rng");
    EXPECT_ERR(dp_thm_lecture15_gd_sigma(0.5, 1e-5, 1.0, 10, 0, &out, &e_), DP_EINVAL, "n");
    EXPECT_ERR(dp_thm_lecture15_sgd_sigma(0.5, 0.0, 1.0, 10, 10, &out, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_thm_inputpert_c_classic(0.0, &out, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_thm_inputpert_pl_sigma2(0.1, 1e-5, 1.0, 10, 10, 1.0, NULL, &e_), DP_EINVAL,
               "NULL");
    ck_assert(out == 17 && T == 17);
}
END_TEST

// ---- runner ---------------------------------------------------------------------------


static Suite *theorems_suite(void)
{
    Suite *s = suite_create("theorems");
    test_add_case(s, "thm-1.1", test_lssgd_nu, 30);
    test_add_case(s, "thm-1.2", test_lssgd_multiplier, 30);
    test_add_case(s, "thm-1.3", test_ls_constants_fixture, 60);
    test_add_case(s, "thm-1.4", test_ls_tables, 30);
    test_add_case(s, "thm-1.5", test_ls_closed_vs_direct, 30);
    test_add_case(s, "thm-2.1", test_zhang17_sensitivity, 30);
    test_add_case(s, "thm-2.2", test_zhang17_thm2_thm3, 30);
    test_add_case(s, "thm-2.3", test_zhang17_rrpsgd, 30);
    test_add_case(s, "thm-2.4", test_zhang17_rounds, 30);
    test_add_case(s, "thm-3.1", test_lecture15_values, 30);
    test_add_case(s, "thm-3.2", test_lecture15_guarantee, 60);
    test_add_case(s, "thm-4.1", test_inputpert, 30);
    test_add_case(s, "thm-5.1", test_bad_inputs, 30);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(theorems_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
