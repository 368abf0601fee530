/* test_mechanisms.c: Check suite "mechanisms" for algorithms/privacy/mechanisms.c.
 *
 * mech-1.*  the Gaussian mechanism: Phi against long double erfcl; the analytic delta
 *           against a direct long double evaluation of Balle & Wang's Thm 8; calibration
 *           round trips (delta(eps, sigma(eps, delta)) = delta to 1e-9 relative) and
 *           minimality; analytic <= classic for eps < 1; sigma against an independent
 *           long double implementation of Balle & Wang's Alg. 1 (its v/u variables),
 *           and the widely quoted sigma(1, 1e-5) = 3.7306.
 * mech-2.*  the samplers: Laplace moments, the high-dimensional Laplace's norm
 *           (Gamma(d, Delta/eps): mean d b, variance d b^2) and direction (uniform on
 *           the sphere: E u_i = 0, E u_i^2 = 1/d), Zhang17's Gaussian, determinism.
 *           Statistical checks allow 5 standard errors (computed from the distribution's
 *           own higher moments), N = 1e5 seeded draws: reproducible, not luck.
 * mech-3.*  bad inputs: DP_EINVAL / DP_EPRIVACY with the parameter named, outputs kept.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/privacy_fixture.h"
#include "algorithms/privacy/mechanisms.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_DRAWS 100000
#define N_SE 5.0

static long double phil(long double x) { return 0.5L * erfcl(-x / sqrtl(2.0L)); }

// ---- mech-1: Gaussian mechanism -------------------------------------------------------

START_TEST(test_normal_cdf)
{
    double worst = 0.0;
    for (double x = -37.5; x <= 8.0; x += 0.0625) {
        double p = dp_mech_normal_cdf(x);
        double ref = (double)phil(x);
        if (REL(p, ref) > worst) worst = REL(p, ref);
    }
    ck_assert_msg(worst <= 2e-15, "Phi vs erfcl: worst relative %.3g", worst);
    printf("mech-1.1: Phi vs long double erfcl on [-37.5, 8]: worst relative %.2e\n", worst);
    ck_assert(dp_mech_normal_cdf(-INFINITY) == 0.0 && dp_mech_normal_cdf(INFINITY) == 1.0);
    ck_assert_double_eq_tol(dp_mech_normal_cdf(0.0), 0.5, 1e-16);
}
END_TEST

/* Direct evaluation of Thm 8 in long double, used only where its cancellation leaves at
 * least ~13 correct digits (the ratio of the subtracted terms is checked). */
static int delta_ref(double eps, double t, double *out)
{
    long double a = 0.5L / t - (long double)eps * t, b = -0.5L / t - (long double)eps * t;
    long double p = phil(a), m = expl((long double)eps) * phil(b);
    if (!(p > 0) || p - m < 1e-290L) return 0;
    if (m / (p - m) > 1e5L) return 0; /* >5 digits cancel: 64-bit mantissa too short */
    *out = (double)(p - m);
    return 1;
}

START_TEST(test_delta_direct)
{
    const double eps[] = {0.0, 1e-3, 0.05, 0.3, 1.0, 2.0, 5.0, 10.0, 30.0};
    const double ts[] = {0.02, 0.1, 0.5, 1.0, 2.0, 4.0, 10.0, 40.0};
    /* small eps, large sigma: the two arguments are close (the R' quadrature path) */
    const double close[][2] = {{0.01, 100}, {0.01, 300}, {0.01, 1000}, {1e-3, 1000},
                               {1e-3, 3000}, {1e-4, 1e4}, {0.1, 50}};
    double worst = 0.0;
    int n = 0;
    size_t ne = sizeof eps / sizeof *eps, nt = sizeof ts / sizeof *ts;
    for (size_t i = 0; i < ne * nt + sizeof close / sizeof *close; i++) {
        double e = i < ne * nt ? eps[i / nt] : close[i - ne * nt][0];
        double t = i < ne * nt ? ts[i % nt] : close[i - ne * nt][1];
        double ref, d = NAN;
        dp_err err;
        ck_assert_int_eq(dp_mech_gaussian_delta(e, t * 2.5, 2.5, &d, &err), 0);
        ck_assert(d >= 0.0 && d <= 1.0);
        if (!delta_ref(e, t, &ref)) {
            ck_assert_msg(i < ne * nt, "eps %g sigma/sens %g: no reference", e, t);
            continue;
        }
        n++;
        ck_assert_msg(REL(d, ref) <= 1e-12, "eps %g sigma/sens %g: %.17g vs %.17g", e, t, d, ref);
        if (REL(d, ref) > worst) worst = REL(d, ref);
    }
    ck_assert_int_ge(n, 45);
    printf("mech-1.2: analytic delta vs long double Thm 8 on %d points: worst relative %.2e\n",
           n, worst);
}
END_TEST

START_TEST(test_calibrate_roundtrip)
{
    const double eps[] = {1e-3, 0.01, 0.1, 0.5, 0.99, 1.0, 2.0, 5.0, 10.0, 50.0};
    const double deltas[] = {1e-2, 1e-5, 1e-10, 1e-20, 1e-100};
    const double sens[] = {1.0, 0.1, 3.0};
    double worst = 0.0;
    for (size_t i = 0; i < sizeof eps / sizeof *eps; i++)
        for (size_t j = 0; j < sizeof deltas / sizeof *deltas; j++)
            for (size_t k = 0; k < 3; k++) {
                double s = NAN, d = NAN, d_lo = NAN, e = NAN;
                dp_err err;
                ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(eps[i], deltas[j], sens[k], &s,
                                                                 &err), 0);
                ck_assert_int_eq(dp_mech_gaussian_delta(eps[i], s, sens[k], &d, &err), 0);
                ck_assert_msg(d <= deltas[j] && REL(d, deltas[j]) <= 1e-9,
                              "eps %g delta %g sens %g: sigma %.17g gives delta %.17g", eps[i],
                              deltas[j], sens[k], s, d);
                if (REL(d, deltas[j]) > worst) worst = REL(d, deltas[j]);
                /* minimal: a hair less noise misses the target */
                ck_assert_int_eq(dp_mech_gaussian_delta(eps[i], s * (1 - 1e-10), sens[k], &d_lo,
                                                        &err), 0);
                ck_assert_msg(d_lo > deltas[j], "sigma %.17g is not minimal", s);
                /* inverse: eps(sigma(eps)) = eps */
                ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(s, deltas[j], sens[k], &e,
                                                                   &err), 0);
                ck_assert_msg(REL(e, eps[i]) <= 1e-9, "eps %g -> sigma %.17g -> eps %.17g",
                              eps[i], s, e);
            }
    printf("mech-1.3: delta(eps, sigma(eps, delta)) / delta - 1: worst %.2e over 150 cases\n",
           worst);
}
END_TEST

START_TEST(test_epsilon_roundtrip)
{
    const double sig[] = {0.3, 0.7, 1.0, 2.0, 5.0, 30.0, 1000.0};
    const double deltas[] = {0.3, 1e-3, 1e-5, 1e-12, 1e-50};
    for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 5; j++) {
            double e = NAN, d = NAN;
            dp_err err;
            ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(sig[i], deltas[j], 1.0, &e, &err),
                             0);
            ck_assert(e >= 0.0 && isfinite(e));
            ck_assert_int_eq(dp_mech_gaussian_delta(e, sig[i], 1.0, &d, &err), 0);
            if (e == 0.0) {
                ck_assert(d <= deltas[j]); /* already private enough at eps = 0 */
                continue;
            }
            ck_assert_msg(d <= deltas[j] && REL(d, deltas[j]) <= 1e-9,
                          "sigma %g delta %g: eps %.17g gives %.17g", sig[i], deltas[j], e, d);
        }
    /* eps = 0 case: sigma so large that the total variation is below delta */
    double e = -1;
    ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(1e6, 0.3, 1.0, &e, NULL), 0);
    ck_assert(e == 0.0);
}
END_TEST

START_TEST(test_monotone)
{
    double prev_s = 2.0;
    for (double s = 0.05; s < 50.0; s *= 1.3) { /* delta decreasing in sigma at eps = 1 */
        double d;
        ck_assert_int_eq(dp_mech_gaussian_delta(1.0, s, 1.0, &d, NULL), 0);
        ck_assert_msg(d < prev_s || d == 0.0, "delta not decreasing at sigma %g", s);
        prev_s = d;
    }
    double prev_e = 2.0;
    for (double e = 0.0; e < 20.0; e += 0.25) { /* and in eps at sigma = 2 */
        double d;
        ck_assert_int_eq(dp_mech_gaussian_delta(e, 2.0, 1.0, &d, NULL), 0);
        ck_assert_msg(d < prev_e || d == 0.0, "delta not decreasing at eps %g", e);
        prev_e = d;
    }
}
END_TEST

START_TEST(test_analytic_below_classic)
{
    const double eps[] = {1e-3, 0.01, 0.1, 0.3, 0.5, 0.8, 0.999};
    const double deltas[] = {1e-2, 1e-5, 1e-8, 1e-12};
    for (size_t i = 0; i < 7; i++)
        for (size_t j = 0; j < 4; j++) {
            double sa, sc, d;
            ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(eps[i], deltas[j], 1.5, &sa, NULL), 0);
            ck_assert_int_eq(dp_mech_gaussian_sigma_classic(eps[i], deltas[j], 1.5, &sc, NULL), 0);
            ck_assert_msg(sa < sc, "eps %g delta %g: analytic %g >= classic %g", eps[i],
                          deltas[j], sa, sc);
            /* the classic sigma is private by the exact profile too (Thm A.1 holds) */
            ck_assert_int_eq(dp_mech_gaussian_delta(eps[i], sc, 1.5, &d, NULL), 0);
            ck_assert(d <= deltas[j]);
        }
    double sc;
    ck_assert_int_eq(dp_mech_gaussian_sigma_classic(0.5, 1e-5, 1.0, &sc, NULL), 0);
    ck_assert_double_eq_tol(sc, sqrt(2.0 * log(1.25e5)) / 0.5, 1e-12);
}
END_TEST

/* Balle & Wang 2018 Alg. 1, in long double, with its own variables: delta_0 =
 * Phi(0) - e^eps Phi(-sqrt(2 eps)); above it B+(v) = Phi(sqrt(eps v)) - e^eps
 * Phi(-sqrt(eps (v + 2))) and alpha = sqrt(1 + v/2) - sqrt(v/2) at v* = sup{B+ <= delta};
 * below it B-(u) = Phi(-sqrt(eps u)) - e^eps Phi(-sqrt(eps (u + 2))) and alpha =
 * sqrt(1 + u/2) + sqrt(u/2) at u* = inf{B- <= delta}; sigma = alpha Delta / sqrt(2 eps). */
static double bw_alg1(double eps_d, double delta_d, double sens)
{
    long double eps = eps_d, delta = delta_d, ee = expl(eps);
    long double d0 = phil(0) - ee * phil(-sqrtl(2 * eps));
    int plus = delta >= d0;
    long double lo = 0, hi = 1;
#define BW_B(v) (plus ? phil(sqrtl(eps * (v))) - ee * phil(-sqrtl(eps * ((v) + 2)))              \
                      : phil(-sqrtl(eps * (v))) - ee * phil(-sqrtl(eps * ((v) + 2))))
    if (plus) while (BW_B(hi) <= delta) hi *= 2; /* B+ increases */
    else while (BW_B(hi) > delta) hi *= 2;       /* B- decreases */
    for (int i = 0; i < 200; i++) {
        long double mid = 0.5L * (lo + hi);
        int below = BW_B(mid) <= delta;
        if (plus == below) lo = mid;
        else hi = mid;
    }
#undef BW_B
    long double v = 0.5L * (lo + hi);
    long double alpha = plus ? sqrtl(1 + v / 2) - sqrtl(v / 2) : sqrtl(1 + v / 2) + sqrtl(v / 2);
    return (double)(alpha * sens / sqrtl(2 * eps));
}

START_TEST(test_balle_wang_alg1)
{
    const double eps[] = {0.01, 0.1, 0.5, 1.0, 2.0, 4.0};
    const double deltas[] = {0.1, 1e-3, 1e-5, 1e-8};
    double worst = 0.0;
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 4; j++) {
            double s;
            ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(eps[i], deltas[j], 1.0, &s, NULL), 0);
            double ref = bw_alg1(eps[i], deltas[j], 1.0);
            ck_assert_msg(REL(s, ref) <= 1e-9, "eps %g delta %g: %.15g vs Alg. 1 %.15g", eps[i],
                          deltas[j], s, ref);
            if (REL(s, ref) > worst) worst = REL(s, ref);
        }
    double s;
    ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(1.0, 1e-5, 1.0, &s, NULL), 0);
    ck_assert_double_eq_tol(s, 3.7306, 5e-5); /* the commonly quoted value (classic: 4.8448) */
    printf("mech-1.6: sigma vs Balle & Wang Alg. 1 (long double), 24 cases: worst relative "
           "%.2e; sigma(1, 1e-5) = %.10f\n", worst, s);
}
END_TEST

// ---- mech-2: samplers -----------------------------------------------------------------

START_TEST(test_laplace)
{
    double b = 0;
    ck_assert_int_eq(dp_mech_laplace_scale(0.5, 2.0, &b, NULL), 0);
    ck_assert_double_eq_tol(b, 4.0, 1e-15);
    dp_rng r;
    dp_rng_init(&r, 11, DP_STREAM_TEST);
    static double x[N_DRAWS];
    ck_assert_int_eq(dp_mech_laplace_sample(&r, x, N_DRAWS, 0.5, 2.0, NULL), 0);
    double m = 0, m2 = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        m += x[i];
        m2 += x[i] * x[i];
    }
    m /= N_DRAWS;
    m2 /= N_DRAWS;
    /* Var X = 2 b^2; Var X^2 = E X^4 - (E X^2)^2 = 24 b^4 - 4 b^4 */
    ck_assert_double_eq_tol(m, 0.0, N_SE * sqrt(2 * b * b / N_DRAWS));
    ck_assert_double_eq_tol(m2, 2 * b * b, N_SE * sqrt(20 * pow(b, 4) / N_DRAWS));
}
END_TEST

START_TEST(test_hdlaplace)
{
    enum { D = 5 };
    const double eps = 0.7, sens = 1.3, b = sens / eps;
    dp_rng r;
    dp_rng_init(&r, 7, DP_STREAM_TEST);
    double z[D], s1 = 0, s2 = 0, u1[D] = {0}, u2[D] = {0};
    int bad = 0; /* Check logs every passing assert: count failures, assert once */
    for (int i = 0; i < N_DRAWS; i++) {
        bad |= dp_mech_hdlaplace_sample(&r, z, D, eps, sens, NULL) != 0;
        double nr = 0;
        for (int k = 0; k < D; k++) nr += z[k] * z[k];
        nr = sqrt(nr);
        s1 += nr;
        s2 += nr * nr;
        for (int k = 0; k < D; k++) {
            u1[k] += z[k] / nr;
            u2[k] += z[k] * z[k] / (nr * nr);
        }
    }
    double mean = s1 / N_DRAWS, var = s2 / N_DRAWS - mean * mean;
    /* norm ~ Gamma(D, b): mean D b, variance D b^2; var of the sample variance
     * (mu4 - mu2^2)/N with mu4 = 3 D (D + 2) b^4 */
    ck_assert_double_eq_tol(mean, D * b, N_SE * sqrt(D * b * b / N_DRAWS));
    ck_assert_double_eq_tol(var, D * b * b,
                            N_SE * sqrt((3.0 * D * (D + 2) - D * D) * pow(b, 4) / N_DRAWS));
    /* direction uniform: E u_k = 0 (var 1/D), E u_k^2 = 1/D (var 3/(D(D+2)) - 1/D^2) */
    for (int k = 0; k < D; k++) {
        ck_assert_double_eq_tol(u1[k] / N_DRAWS, 0.0, N_SE * sqrt(1.0 / D / N_DRAWS));
        ck_assert_double_eq_tol(u2[k] / N_DRAWS, 1.0 / D,
                                N_SE * sqrt((3.0 / (D * (D + 2.0)) - 1.0 / (D * D)) / N_DRAWS));
    }
    /* d = 1: the ordinary Laplace density exp(-|z|/b), so E|z| = b */
    double a = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        bad |= dp_mech_hdlaplace_sample(&r, z, 1, eps, sens, NULL) != 0;
        a += fabs(z[0]);
    }
    ck_assert(!bad);
    ck_assert_double_eq_tol(a / N_DRAWS, b, N_SE * sqrt(b * b / N_DRAWS));
}
END_TEST

START_TEST(test_zhang17_gaussian)
{
    double s = 0;
    ck_assert_int_eq(dp_mech_zhang17_gaussian_sigma(0.5, 1e-3, 2.0, &s, NULL), 0);
    ck_assert_double_eq_tol(s, 2.0 * sqrt(2.0 * log(2000.0)) / 0.5, 1e-12); /* 2/delta */
    enum { D = 4 };
    dp_rng r, r2;
    dp_rng_init(&r, 3, DP_STREAM_TEST);
    double z[D], m2 = 0;
    int bad = 0;
    for (int i = 0; i < N_DRAWS / D; i++) {
        bad |= dp_mech_zhang17_output_noise(&r, z, D, 0.5, 1e-3, 2.0, NULL) != 0;
        for (int k = 0; k < D; k++) m2 += z[k] * z[k];
    }
    ck_assert(!bad);
    m2 /= (N_DRAWS / D) * D;
    ck_assert_double_eq_tol(m2, s * s, N_SE * sqrt(2 * pow(s, 4) / N_DRAWS));
    /* delta = 0 dispatches to the high-dimensional Laplace: same draws as calling it */
    double za[D], zb[D];
    dp_rng_init(&r, 5, DP_STREAM_TEST);
    r2 = r;
    ck_assert_int_eq(dp_mech_zhang17_output_noise(&r, za, D, 0.5, 0.0, 2.0, NULL), 0);
    ck_assert_int_eq(dp_mech_hdlaplace_sample(&r2, zb, D, 0.5, 2.0, NULL), 0);
    ck_assert(memcmp(za, zb, sizeof za) == 0);
}
END_TEST

/* Zhang17 Thm 1 claims its line-7 sigma for every eps > 0. The exact profile confirms
 * it on the paper's grid (Table 3: eps 0.1..2, delta 1e-3) and shows where it stops. */
START_TEST(test_zhang17_exact_delta)
{
    const double eps[] = {0.1, 0.5, 1.0, 2.0, 5.0};
    for (int i = 0; i < 5; i++) {
        double s, d;
        ck_assert_int_eq(dp_mech_zhang17_gaussian_sigma(eps[i], 1e-3, 1.0, &s, NULL), 0);
        ck_assert_int_eq(dp_mech_gaussian_delta(eps[i], s, 1.0, &d, NULL), 0);
        ck_assert_msg(d <= 1e-3, "eps %g: exact delta %g", eps[i], d);
    }
    double s, d;
    ck_assert_int_eq(dp_mech_zhang17_gaussian_sigma(10.0, 1e-3, 1.0, &s, NULL), 0);
    ck_assert_int_eq(dp_mech_gaussian_delta(10.0, s, 1.0, &d, NULL), 0);
    ck_assert_msg(d > 1e-3, "eps 10: exact delta %g (expected above the target)", d);
    printf("mech-2.4: Zhang17 Alg. 1 sigma at eps = 10, delta = 1e-3 achieves only delta = %.3g\n",
           d);
}
END_TEST

START_TEST(test_determinism)
{
    dp_rng a, b;
    dp_rng_init(&a, 42, DP_STREAM_NOISE);
    dp_rng_init(&b, 42, DP_STREAM_NOISE);
    double x[16], y[16];
    ck_assert_int_eq(dp_mech_hdlaplace_sample(&a, x, 16, 1.0, 1.0, NULL), 0);
    ck_assert_int_eq(dp_mech_hdlaplace_sample(&b, y, 16, 1.0, 1.0, NULL), 0);
    ck_assert(memcmp(x, y, sizeof x) == 0);
}
END_TEST

// ---- mech-3: bad inputs ---------------------------------------------------------------

/* The error filled by the call under test (file scope so EXPECT_ERR can read it). */
static dp_err e_;

START_TEST(test_bad_inputs)
{
    double out = 123.0;
    EXPECT_ERR(dp_mech_gaussian_sigma_classic(1.0, 1e-5, 1.0, &out, &e_), DP_EPRIVACY, "eps < 1");
    EXPECT_ERR(dp_mech_gaussian_sigma_classic(0.0, 1e-5, 1.0, &out, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_mech_gaussian_sigma_classic(0.5, 1.0, 1.0, &out, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_mech_gaussian_sigma_classic(0.5, 1e-5, -1.0, &out, &e_), DP_EINVAL,
               "sensitivity");
    EXPECT_ERR(dp_mech_gaussian_sigma_analytic(NAN, 1e-5, 1.0, &out, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_mech_gaussian_sigma_analytic(1.0, 0.0, 1.0, &out, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_mech_gaussian_sigma_analytic(1.0, 1e-5, 1.0, NULL, &e_), DP_EINVAL, "NULL");
    EXPECT_ERR(dp_mech_gaussian_delta(-1.0, 1.0, 1.0, &out, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_mech_gaussian_delta(1.0, 0.0, 1.0, &out, &e_), DP_EINVAL, "sigma");
    EXPECT_ERR(dp_mech_gaussian_delta(1.0, INFINITY, 1.0, &out, &e_), DP_EINVAL, "sigma");
    EXPECT_ERR(dp_mech_gaussian_epsilon_analytic(1.0, -0.5, 1.0, &out, &e_), DP_EINVAL, "delta");
    EXPECT_ERR(dp_mech_laplace_scale(0.0, 1.0, &out, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_mech_zhang17_gaussian_sigma(1.0, 0.0, 1.0, &out, &e_), DP_EINVAL, "delta");
    ck_assert(out == 123.0); /* outputs untouched on error */
    dp_rng r;
    dp_rng_init(&r, 1, DP_STREAM_TEST);
    double z[3] = {7, 7, 7};
    EXPECT_ERR(dp_mech_hdlaplace_sample(&r, z, 0, 1.0, 1.0, &e_), DP_EINVAL, "dimension");
    EXPECT_ERR(dp_mech_hdlaplace_sample(NULL, z, 3, 1.0, 1.0, &e_), DP_EINVAL, "rng");
    EXPECT_ERR(dp_mech_hdlaplace_sample(&r, z, 3, -1.0, 1.0, &e_), DP_EINVAL, "eps");
    EXPECT_ERR(dp_mech_laplace_sample(&r, NULL, 3, 1.0, 1.0, &e_), DP_EINVAL, "vector");
    EXPECT_ERR(dp_mech_zhang17_output_noise(&r, z, 3, 1.0, 1.5, 1.0, &e_), DP_EINVAL, "delta");
    ck_assert(z[0] == 7 && z[1] == 7 && z[2] == 7);
    /* err may be NULL */
    ck_assert_int_eq(dp_mech_gaussian_sigma_classic(2.0, 1e-5, 1.0, &out, NULL), DP_EPRIVACY);
}
END_TEST

/* Extremes: status 0 and never NaN. */
START_TEST(test_extremes)
{
    const double eps[] = {0.0, 1e-300, 1e-8, 700.0, 1e6};
    const double sig[] = {1e-300, 1e-8, 1.0, 1e8, 1e300};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            double d = NAN;
            ck_assert_int_eq(dp_mech_gaussian_delta(eps[i], sig[j], 1.0, &d, NULL), 0);
            ck_assert_msg(d >= 0.0 && d <= 1.0, "eps %g sigma %g: delta %g", eps[i], sig[j], d);
            double e = NAN;
            ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(sig[j], 1e-5, 1.0, &e, NULL), 0);
            ck_assert(e >= 0.0 && (isfinite(e) || sig[j] < 1e-150)); /* inf: no double eps */
        }
    double s = NAN;
    ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(1e-8, 1e-5, 1.0, &s, NULL), 0);
    ck_assert(s > 0 && isfinite(s));
    ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(1e3, 0.5, 1.0, &s, NULL), 0);
    ck_assert(s > 0 && isfinite(s));
}
END_TEST

// ---- runner ---------------------------------------------------------------------------


static Suite *mechanisms_suite(void)
{
    Suite *s = suite_create("mechanisms");
    test_add_case(s, "mech-1.1", test_normal_cdf, 30);
    test_add_case(s, "mech-1.2", test_delta_direct, 30);
    test_add_case(s, "mech-1.3", test_calibrate_roundtrip, 60);
    test_add_case(s, "mech-1.4", test_epsilon_roundtrip, 30);
    test_add_case(s, "mech-1.5", test_monotone, 30);
    test_add_case(s, "mech-1.6", test_balle_wang_alg1, 30);
    test_add_case(s, "mech-1.7", test_analytic_below_classic, 30);
    test_add_case(s, "mech-2.1", test_laplace, 30);
    test_add_case(s, "mech-2.2", test_hdlaplace, 60);
    test_add_case(s, "mech-2.3", test_zhang17_gaussian, 30);
    test_add_case(s, "mech-2.4", test_zhang17_exact_delta, 30);
    test_add_case(s, "mech-2.5", test_determinism, 30);
    test_add_case(s, "mech-3.1", test_bad_inputs, 30);
    test_add_case(s, "mech-3.2", test_extremes, 30);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mechanisms_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
