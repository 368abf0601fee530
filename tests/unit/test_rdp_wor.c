/* test_rdp_wor.c: Check suite "rdp_wor" for algorithms/privacy/rdp_wor.c (RDP of the
 * Gaussian mechanism under sampling without replacement, Wang, Balle, Kasiviswanathan
 * 2018, Thm 9, as autodp evaluates it) and algorithms/privacy/rdp_curve.c (composition
 * over heterogeneous schedules).
 *
 * rdpwor-1.*  values: q = 1 closed form; a naive long-double evaluation of Theorem 9 (plain
 *             binomial sum, no log space) at orders up to 40; the order-2 closed form and
 *             the small-q expansion; relations that hold for the theorem's bound (monotone
 *             in q and sigma, never below the Poisson add/remove RDP at the same (q, sigma),
 *             the sigma-independent j >= 3 terms); autodp's fractional-order rule.
 * rdpwor-2.*  the curve: k steps at once = k single steps = k x one step; a mixed schedule
 *             is the sum of its parts; epsilon monotone; a homogeneous Poisson schedule
 *             gives exactly dp_rdp_epsilon; ownership of the orders.
 * rdpwor-3.*  bad inputs: DP_EINVAL naming the parameter, outputs and curve untouched.
 *
 * Not asserted: monotonicity in the order. The theorem's bound is not monotone in alpha
 * (q = 128/50000, sigma = 50 decreases from alpha ~ 1800 on), although the true RDP is.
 * The log-space code was also compared, outside this suite, with a line-by-line Python
 * transliteration of autodp's compose_subsampled_mechanism over the default grid
 * (q 0.00256..0.9, sigma 0.5..12): 9e-13 relative where rdp > 1e-4, 8e-11 below, where
 * autodp's log(1 + x) is the less accurate side.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/privacy_fixture.h"
#include "algorithms/privacy/rdp.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ORDERS 512

static const double QS[] = {1e-4, 128.0 / 50000, 0.01, 0.1, 0.5, 0.9};
#define N_QS (sizeof QS / sizeof QS[0])
static const double SIGMAS[] = {0.5, 0.8, 1.0, 1.2, 2.0, 5.0, 12.0};
#define N_SIGMAS (sizeof SIGMAS / sizeof SIGMAS[0])

static size_t default_grid(const double **o)
{
    size_t n = dp_rdp_default_orders(o);
    ck_assert_uint_le(n, MAX_ORDERS);
    return n;
}

static void wor(double q, double sigma, const double *o, size_t n, double *rdp)
{
    dp_err err;
    ck_assert_msg(dp_rdp_wor_subsampled_gaussian(q, sigma, o, n, rdp, &err) == 0, "%s", err.msg);
}

static double wor1(double q, double sigma, double alpha)
{
    double r = NAN;
    wor(q, sigma, &alpha, 1, &r);
    return r;
}

// ---- an independent, naive evaluation of Theorem 9 ------------------------------------

/* The theorem's bound on (alpha-1) rdp at integer alpha, capped by the unsubsampled
 * alpha(alpha-1)/(2 s^2), summed directly in long double: C(alpha,j) exactly (integers
 * below 2^64 for alpha <= 40), gamma^j by powl, e^{...} by expl (no overflow below
 * e^11356, so sigma >= 0.5 and alpha <= 40 are safe). */
static long double naive_cgf(double q, double sigma, int alpha)
{
    const long double s2 = (long double)sigma * sigma;
    long double c = alpha, sum = 0.0L; /* C(alpha, 1) */
    for (int j = 2; j <= alpha; j++) {
        c = c * (alpha - j + 1) / j;
        long double m = j == 2 ? fminl(4.0L * expm1l(1.0L / s2), 2.0L * expl(1.0L / s2))
                               : 2.0L * expl((long double)j * (j - 1) / (2.0L * s2));
        sum += c * powl(q, j) * m;
    }
    return fminl((long double)alpha * (alpha - 1) / (2.0L * s2), log1pl(sum));
}

/* autodp's subsample_func on top of naive_cgf (fractional orders below 40). */
static double naive_rdp(double q, double sigma, double alpha)
{
    if (alpha <= 2.0) return (double)naive_cgf(q, sigma, 2);
    double f = floor(alpha);
    if (alpha == f) return (double)(naive_cgf(q, sigma, (int)f) / (alpha - 1.0));
    long double w = alpha - f;
    long double k = w * naive_cgf(q, sigma, (int)f + 1) + (1.0L - w) * naive_cgf(q, sigma, (int)f);
    return (double)fminl(alpha / (2.0L * sigma * sigma), k / (alpha - 1.0L));
}

// ---- rdpwor-1: values -----------------------------------------------------------------

/* q = 1 is the plain Gaussian, alpha/(2 s^2), at every order. */
START_TEST(test_q_one)
{
    const double *o;
    size_t n = default_grid(&o);
    double rdp[MAX_ORDERS];
    for (size_t b = 0; b < N_SIGMAS; b++) {
        wor(1.0, SIGMAS[b], o, n, rdp);
        for (size_t i = 0; i < n; i++)
            ck_assert_double_eq_tol(rdp[i], o[i] / (2 * SIGMAS[b] * SIGMAS[b]),
                                    1e-15 * rdp[i]);
    }
}
END_TEST

/* The log-space sum against the naive long-double sum: integer orders 2..40 and
 * fractional orders between them, 1e-10 relative (the brief's tolerance; observed ~1e-14). */
START_TEST(test_naive)
{
    double o[80];
    size_t n = 0;
    for (int a = 2; a <= 40; a++) o[n++] = a;
    const double frac[] = {1.1, 1.5, 1.99, 2.5, 3.7, 5.25, 10.9, 17.5, 39.01};
    for (size_t i = 0; i < sizeof frac / sizeof frac[0]; i++) o[n++] = frac[i];
    double rdp[80];
    for (size_t a = 0; a < N_QS; a++)
        for (size_t b = 0; b < N_SIGMAS; b++) {
            wor(QS[a], SIGMAS[b], o, n, rdp);
            for (size_t i = 0; i < n; i++) {
                double ref = naive_rdp(QS[a], SIGMAS[b], o[i]);
                ck_assert_msg(ref > 0 && REL(rdp[i], ref) <= 1e-10,
                              "q %g sigma %g order %g: %.17g vs naive %.17g", QS[a], SIGMAS[b],
                              o[i], rdp[i], ref);
            }
        }
}
END_TEST

/* Order 2 has one term: rdp(2) = min(1/s^2, log1p(q^2 min{4(e^{1/s^2} - 1), 2 e^{1/s^2}})),
 * which checks the theorem's second-moment factor on both sides of its switch at
 * s^2 = 1/log 2. Above order 2, for small q the next term is the j = 3 one, so
 * (alpha-1) rdp / (q^2 C(alpha,2) c2) - 1 = (alpha-2)/3 q 2 e^{3/s^2} / c2 + O(q^2),
 * asserted to 10% of that correction (q = 1e-6, orders where higher j are negligible). */
START_TEST(test_small_q)
{
    const double qs[] = {1e-9, 1e-4, 0.01, 0.3, 0.99};
    const double sigmas[] = {0.3, 0.8, 1.2, 1.21, 2.0, 50.0};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 6; b++) {
            double q = qs[a], x = 1 / (sigmas[b] * sigmas[b]);
            double ref = fmin(x, log1p(q * q * fmin(4 * expm1(x), 2 * exp(x))));
            ck_assert_double_eq_tol(wor1(q, sigmas[b], 2.0), ref, 1e-14 * ref);
        }
    const double q = 1e-6, sig[] = {2.0, 5.0, 12.0};
    for (int b = 0; b < 3; b++)
        for (int alpha = 3; alpha <= 8; alpha++) {
            double s = sig[b], x = 1 / (s * s), c2 = fmin(4 * expm1(x), 2 * exp(x));
            double lead = q * q * alpha * (alpha - 1) / 2.0 * c2;
            double next = (alpha - 2) / 3.0 * q * 2 * exp(3 * x) / c2;
            double dev = (alpha - 1) * wor1(q, s, alpha) / lead - 1;
            ck_assert_msg(fabs(dev - next) <= 0.1 * next,
                          "sigma %g alpha %d: relative excess %g, expected %g", s, alpha, dev,
                          next);
        }
}
END_TEST

/* Every term of the bound grows with q and shrinks with sigma (and so does the cap
 * alpha/(2 s^2) and autodp's interpolation), so rdp is non-decreasing in q and
 * non-increasing in sigma at every order. */
START_TEST(test_monotone)
{
    const double *o;
    size_t n = default_grid(&o);
    double lo[MAX_ORDERS], hi[MAX_ORDERS];
    for (size_t b = 0; b < N_SIGMAS; b++)
        for (size_t a = 0; a + 1 < N_QS; a++) {
            wor(QS[a], SIGMAS[b], o, n, lo);
            wor(QS[a + 1], SIGMAS[b], o, n, hi);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(lo[i] <= hi[i], "q %g -> %g sigma %g order %g: %g > %g", QS[a],
                              QS[a + 1], SIGMAS[b], o[i], lo[i], hi[i]);
        }
    for (size_t a = 0; a < N_QS; a++)
        for (size_t b = 0; b + 1 < N_SIGMAS; b++) {
            wor(QS[a], SIGMAS[b], o, n, hi);
            wor(QS[a], SIGMAS[b + 1], o, n, lo);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(lo[i] <= hi[i], "sigma %g -> %g q %g order %g: %g < %g",
                              SIGMAS[b], SIGMAS[b + 1], QS[a], o[i], lo[i], hi[i]);
        }
}
END_TEST

/* Never below the Poisson RDP (add/remove, exact) at the same (q, sigma). Proof: with L
 * the likelihood ratio of N(1, s^2) to N(0, s^2), Mironov et al.'s
 * A = sum_j C(alpha,j) q^j E[(L-1)^j]; E[(L-1)^2] = e^{1/s^2} - 1 <= the theorem's j = 2
 * factor, and for j >= 3, E[(L-1)^j] <= E[max(L,1)^j] <= E[L^j] + 1 <= 2 e^{j(j-1)/(2s^2)},
 * the theorem's factor; the cap alpha/(2 s^2) bounds the Poisson RDP too. Fractional
 * orders follow from convexity of the true cumulant (and monotonicity below 2). The
 * slack 1e-9 covers rounding of the Poisson fractional series; at q = 1 both are equal. */
START_TEST(test_above_poisson)
{
    const double *o;
    size_t n = default_grid(&o);
    double w[MAX_ORDERS], p[MAX_ORDERS];
    dp_err err;
    for (size_t a = 0; a < N_QS; a++)
        for (size_t b = 0; b < N_SIGMAS; b++) {
            wor(QS[a], SIGMAS[b], o, n, w);
            ck_assert_int_eq(dp_rdp_subsampled_gaussian(QS[a], SIGMAS[b], o, n, p, &err), 0);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(w[i] >= p[i] * (1 - 1e-9), "q %g sigma %g order %g: %g < %g",
                              QS[a], SIGMAS[b], o[i], w[i], p[i]);
        }
}
END_TEST

/* autodp's rule for fractional orders, through the public function: rdp(alpha) = rdp(2)
 * on (1, 2); above 2 the chord of (k-1) rdp(k) at the neighbouring integers, capped by
 * alpha/(2 s^2). */
START_TEST(test_fractional)
{
    const double *o;
    size_t n = default_grid(&o);
    double rdp[MAX_ORDERS];
    for (size_t a = 0; a < N_QS; a++)
        for (size_t b = 0; b < N_SIGMAS; b++) {
            double q = QS[a], s = SIGMAS[b];
            wor(q, s, o, n, rdp);
            double r2 = wor1(q, s, 2.0);
            for (size_t i = 0; i < n; i++) {
                double al = o[i], f = floor(al);
                if (al == f) continue;
                if (al < 2) {
                    ck_assert(rdp[i] == r2);
                    continue;
                }
                double w = al - f;
                double k = w * f * wor1(q, s, f + 1) + (1 - w) * (f - 1) * wor1(q, s, f);
                double ref = fmin(al / (2 * s * s), k / (al - 1));
                ck_assert_msg(REL(rdp[i], ref) <= 1e-13, "q %g sigma %g order %g: %g vs %g",
                              q, s, al, rdp[i], ref);
            }
        }
}
END_TEST

/* The theorem's j >= 3 factors are min{2, (e^{eps(inf)} - 1)^j} e^{(j-1) eps(j)} >= 2
 * for the Gaussian (eps(inf) = inf): they do not vanish as sigma grows, so
 * (alpha-1) rdp >= min{alpha(alpha-1)/(2 s^2), log(1 + 2 sum_{j>=3} C(alpha,j) q^j)}.
 * This floor is what keeps the WOR epsilon of long schedules from falling with sigma
 * (DP-LSSGD's MNIST setting stays near 0.33 from sigma ~ 50 to ~ 1000). */
START_TEST(test_sigma_floor)
{
    const double qs[] = {128.0 / 50000, 0.01, 0.1};
    const double sigmas[] = {10.0, 100.0, 1e3, 1e5};
    const int orders[] = {3, 8, 32, 100};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
            for (int k = 0; k < 4; k++) {
                double q = qs[a], s = sigmas[b];
                int al = orders[k];
                double lc = log(al), sum = 0; /* log C(al, j) */
                for (int j = 2; j <= al; j++) {
                    lc += log((al - j + 1.0) / j);
                    if (j >= 3) sum += 2 * exp(lc + j * log(q));
                }
                double floor_k = fmin(al * (al - 1) / (2 * s * s), log1p(sum));
                ck_assert_msg((al - 1) * wor1(q, s, al) >= floor_k * (1 - 1e-12),
                              "q %g sigma %g order %d", q, s, al);
            }
}
END_TEST

/* Extreme but valid inputs: status 0, never NaN, >= 0 (inf allowed). */
START_TEST(test_no_nan)
{
    const double qs[] = {1e-300, 1e-9, 0.5, 1.0 - 1e-15, 1.0};
    const double sigmas[] = {1e-300, 1e-150, 1e-8, 0.05, 1e3, 1e300};
    const double *o;
    size_t n = default_grid(&o);
    double rdp[MAX_ORDERS];
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 6; b++) {
            wor(qs[a], sigmas[b], o, n, rdp);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(rdp[i] >= 0, "q %g sigma %g order %g: %g", qs[a], sigmas[b],
                              o[i], rdp[i]);
        }
    double big[] = {1e6, 999999.5};
    wor(0.01, 1.0, big, 2, rdp);
    ck_assert(rdp[0] >= 0 && rdp[1] >= 0);
}
END_TEST

// ---- rdpwor-2: the curve --------------------------------------------------------------

static void curve_init(dp_rdp_curve *c, const double *o, size_t n)
{
    dp_err err;
    ck_assert_msg(dp_rdp_curve_init(c, o, n, &err) == 0, "%s", err.msg);
}

static void curve_add(dp_rdp_curve *c, dp_sampling_kind kind, double q, double sigma,
                      long steps)
{
    dp_err err;
    ck_assert_msg(dp_rdp_curve_add(c, kind, q, sigma, steps, &err) == 0, "%s", err.msg);
}

static double curve_eps(const dp_rdp_curve *c, double delta, dp_rdp_conversion conv,
                        double *best)
{
    dp_err err;
    double e = NAN;
    ck_assert_msg(dp_rdp_curve_epsilon(c, delta, conv, &e, best, &err) == 0, "%s", err.msg);
    return e;
}

/* One call with k steps, k calls with 1 step, and k x the one-step curve agree (1e-13
 * relative: k additions round differently from one product). */
START_TEST(test_curve_steps)
{
    const dp_sampling_kind kinds[] = {DP_SAMPLING_KIND_POISSON, DP_SAMPLING_KIND_WOR};
    const long k = 37;
    for (int t = 0; t < 2; t++) {
        dp_rdp_curve once, many;
        curve_init(&once, NULL, 0);
        curve_init(&many, NULL, 0);
        curve_add(&once, kinds[t], 0.01, 1.3, k);
        for (long i = 0; i < k; i++) curve_add(&many, kinds[t], 0.01, 1.3, 1);
        ck_assert_int_eq(once.steps, k);
        ck_assert_int_eq(many.steps, k);
        ck_assert_uint_eq(once.kinds, (unsigned)kinds[t]);
        double one[MAX_ORDERS];
        dp_err err;
        if (kinds[t] == DP_SAMPLING_KIND_WOR)
            wor(0.01, 1.3, once.orders, once.n, one);
        else
            ck_assert_int_eq(
                dp_rdp_subsampled_gaussian(0.01, 1.3, once.orders, once.n, one, &err), 0);
        for (size_t i = 0; i < once.n; i++) {
            ck_assert(once.rdp[i] == one[i] * (double)k);
            ck_assert_double_eq_tol(many.rdp[i], once.rdp[i], 1e-13 * once.rdp[i]);
        }
        dp_rdp_curve_destroy(&once);
        dp_rdp_curve_destroy(&many);
    }
}
END_TEST

/* A schedule of two sigmas is the sum of its parts, order by order; adding steps of the
 * other sampling kind is refused and leaves the curve unchanged. */
START_TEST(test_curve_mix)
{
    const double o[] = {1.5, 2, 3, 4.5, 8, 16, 32, 64, 128, 256};
    const size_t n = sizeof o / sizeof o[0];
    double p1[16], p2[16], w1[16];
    dp_err err;
    ck_assert_int_eq(dp_rdp_subsampled_gaussian(0.004, 0.9, o, n, p1, &err), 0);
    ck_assert_int_eq(dp_rdp_subsampled_gaussian(0.004, 3.0, o, n, p2, &err), 0);
    wor(0.02, 2.0, o, n, w1);
    dp_rdp_curve c;
    curve_init(&c, o, n);
    curve_add(&c, DP_SAMPLING_KIND_POISSON, 0.004, 0.9, 100);
    curve_add(&c, DP_SAMPLING_KIND_POISSON, 0.004, 3.0, 250);
    ck_assert_uint_eq(c.kinds, DP_SAMPLING_KIND_POISSON);
    for (size_t i = 0; i < n; i++) {
        double ref = p1[i] * 100 + p2[i] * 250;
        ck_assert_double_eq_tol(c.rdp[i], ref, 1e-15 * ref);
    }
    ck_assert_int_eq(dp_rdp_curve_add(&c, DP_SAMPLING_KIND_WOR, 0.02, 2.0, 7, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "neighbouring relation"));
    ck_assert_uint_eq(c.kinds, DP_SAMPLING_KIND_POISSON);
    ck_assert_int_eq(c.steps, 350);
    for (size_t i = 0; i < n; i++) {
        double ref = p1[i] * 100 + p2[i] * 250;
        ck_assert_double_eq_tol(c.rdp[i], ref, 1e-15 * ref);
    }
    dp_rdp_curve_destroy(&c);
    /* Several without-replacement schedules compose. */
    curve_init(&c, o, n);
    curve_add(&c, DP_SAMPLING_KIND_WOR, 0.02, 2.0, 7);
    curve_add(&c, DP_SAMPLING_KIND_WOR, 0.02, 2.0, 3);
    for (size_t i = 0; i < n; i++) ck_assert_double_eq_tol(c.rdp[i], w1[i] * 10, 1e-14 * w1[i] * 10);
    dp_rdp_curve_destroy(&c);
}
END_TEST

/* Epsilon never falls when steps are added (RDP only grows, and both conversions are
 * non-decreasing in it), and a WOR schedule's epsilon is never below the Poisson one at
 * the same (q, sigma) (rdpwor-1.5, order by order). */
START_TEST(test_curve_monotone)
{
    const dp_rdp_conversion convs[] = {DP_RDP_CONVERT_CLASSIC, DP_RDP_CONVERT_IMPROVED};
    for (int v = 0; v < 2; v++) {
        dp_rdp_curve w, p;
        curve_init(&w, NULL, 0);
        curve_init(&p, NULL, 0);
        double prev_w = 0, prev_p = 0;
        for (int round = 0; round < 6; round++) {
            double s = round % 2 ? 1.1 : 4.0;
            curve_add(&w, DP_SAMPLING_KIND_WOR, 0.01, s, 200);
            curve_add(&p, DP_SAMPLING_KIND_POISSON, 0.01, s, 200);
            double ew = curve_eps(&w, 1e-5, convs[v], NULL);
            double ep = curve_eps(&p, 1e-5, convs[v], NULL);
            ck_assert_msg(ew > prev_w && ep > prev_p, "round %d: %g %g", round, ew, ep);
            ck_assert_msg(ew >= ep, "round %d: WOR %g < Poisson %g", round, ew, ep);
            prev_w = ew;
            prev_p = ep;
        }
        dp_rdp_curve_destroy(&w);
        dp_rdp_curve_destroy(&p);
    }
}
END_TEST

/* A homogeneous Poisson schedule added in one call gives dp_rdp_epsilon's epsilon and
 * order exactly (same grid, same products); on a caller's grid, dp_rdp_to_epsilon's. */
START_TEST(test_curve_homogeneous)
{
    const double qs[] = {128.0 / 50000, 0.01, 1.0};
    const double sigmas[] = {0.8, 1.1, 4.0};
    const long steps[] = {1, 1000, 19531};
    const dp_rdp_conversion convs[] = {DP_RDP_CONVERT_CLASSIC, DP_RDP_CONVERT_IMPROVED};
    dp_err err;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 3; t++)
                for (int v = 0; v < 2; v++) {
                    dp_rdp_curve c;
                    curve_init(&c, NULL, 0);
                    curve_add(&c, DP_SAMPLING_KIND_POISSON, qs[a], sigmas[b], steps[t]);
                    double bc = NAN, br = NAN, er = NAN;
                    double ec = curve_eps(&c, 1e-5, convs[v], &bc);
                    ck_assert_int_eq(dp_rdp_epsilon(qs[a], sigmas[b], steps[t], 1e-5, convs[v],
                                                    &er, &br, &err), 0);
                    ck_assert_msg(ec == er && bc == br, "q %g sigma %g steps %ld: %.17g vs %.17g",
                                  qs[a], sigmas[b], steps[t], ec, er);
                    dp_rdp_curve_destroy(&c);
                }
    const double o[] = {1.25, 2, 2.5, 7, 20, 64, 300};
    const size_t n = sizeof o / sizeof o[0];
    double rdp[8], e = NAN, best = NAN, best_c = NAN;
    wor(0.05, 1.5, o, n, rdp);
    for (size_t i = 0; i < n; i++) rdp[i] *= 500.0;
    ck_assert_int_eq(
        dp_rdp_to_epsilon(o, rdp, n, 1e-6, DP_RDP_CONVERT_IMPROVED, &e, &best, &err), 0);
    dp_rdp_curve c;
    curve_init(&c, o, n);
    curve_add(&c, DP_SAMPLING_KIND_WOR, 0.05, 1.5, 500);
    ck_assert(curve_eps(&c, 1e-6, DP_RDP_CONVERT_IMPROVED, &best_c) == e && best_c == best);
    dp_rdp_curve_destroy(&c);
}
END_TEST

/* The curve owns a copy of its orders; an empty curve converts; destroy is idempotent. */
START_TEST(test_curve_ownership)
{
    double o[] = {2, 4, 8};
    dp_rdp_curve c;
    curve_init(&c, o, 3);
    o[0] = 99;
    ck_assert(c.orders[0] == 2 && c.orders != o && c.n == 3 && c.steps == 0 && c.kinds == 0);
    for (size_t i = 0; i < 3; i++) ck_assert(c.rdp[i] == 0);
    double best = 0;
    ck_assert(curve_eps(&c, 1e-5, DP_RDP_CONVERT_IMPROVED, &best) == 0);
    dp_rdp_curve_destroy(&c);
    ck_assert(c.rdp == NULL && c.orders == NULL && c.n == 0);
    dp_rdp_curve_destroy(&c);
    dp_rdp_curve_destroy(NULL);

    const double *d;
    size_t nd = dp_rdp_default_orders(&d);
    curve_init(&c, NULL, 12345); /* n is ignored with the default grid */
    ck_assert_uint_eq(c.n, nd);
    ck_assert(memcmp(c.orders, d, nd * sizeof *d) == 0);
    dp_rdp_curve_destroy(&c);
}
END_TEST

// ---- rdpwor-3: bad inputs -------------------------------------------------------------

START_TEST(test_bad_wor)
{
    dp_err err;
    const double o2[2] = {2.0, 3.5};
    double r[2] = {-7, -7};
    const double bad_q[] = {0.0, -0.1, 1.5, NAN, INFINITY};
    const double bad_sigma[] = {0.0, -1.0, INFINITY, NAN};
    for (int i = 0; i < 5; i++)
        expect_einval(dp_rdp_wor_subsampled_gaussian(bad_q[i], 1.0, o2, 2, r, &err), &err, "q");
    for (int i = 0; i < 4; i++)
        expect_einval(dp_rdp_wor_subsampled_gaussian(0.01, bad_sigma[i], o2, 2, r, &err), &err,
                      "sigma");
    const double bad_orders[] = {1.0, 0.5, NAN, INFINITY, -INFINITY, 2e6, 1000000.5};
    for (int i = 0; i < 7; i++) {
        double o[2] = {2.0, bad_orders[i]};
        expect_einval(dp_rdp_wor_subsampled_gaussian(0.01, 1.0, o, 2, r, &err), &err, "order");
    }
    ck_assert(r[0] == -7 && r[1] == -7); /* untouched on error */
    expect_einval(dp_rdp_wor_subsampled_gaussian(0.01, 1.0, NULL, 2, r, &err), &err, "orders");
    expect_einval(dp_rdp_wor_subsampled_gaussian(0.01, 1.0, o2, 2, NULL, &err), &err, "rdp");
    /* n = 0 is a valid empty request; a NULL dp_err still gets the code back */
    ck_assert_int_eq(dp_rdp_wor_subsampled_gaussian(0.01, 1.0, NULL, 0, NULL, &err), 0);
    ck_assert_int_eq(dp_rdp_wor_subsampled_gaussian(0.0, 1.0, o2, 2, r, NULL), DP_EINVAL);
}
END_TEST

START_TEST(test_bad_curve)
{
    dp_err err;
    dp_rdp_curve c;
    const double o2[2] = {2.0, 3.5};
    expect_einval(dp_rdp_curve_init(NULL, NULL, 0, &err), &err, "curve");
    expect_einval(dp_rdp_curve_init(&c, o2, 0, &err), &err, "n = 0");
    dp_rdp_curve_destroy(&c); /* safe after a failed init */
    const double bad[2] = {2.0, 1.0};
    expect_einval(dp_rdp_curve_init(&c, bad, 2, &err), &err, "order");
    ck_assert(c.rdp == NULL);
    expect_einval(dp_rdp_curve_init(&c, o2, SIZE_MAX, &err), &err, "orders");

    dp_rdp_curve zero;
    memset(&zero, 0, sizeof zero);
    expect_einval(dp_rdp_curve_add(&zero, DP_SAMPLING_KIND_WOR, 0.1, 1, 1, &err), &err, "curve");
    expect_einval(dp_rdp_curve_add(NULL, DP_SAMPLING_KIND_WOR, 0.1, 1, 1, &err), &err, "curve");
    double e;
    expect_einval(dp_rdp_curve_epsilon(&zero, 1e-5, DP_RDP_CONVERT_IMPROVED, &e, NULL, &err),
                  &err, "curve");

    curve_init(&c, o2, 2);
    curve_add(&c, DP_SAMPLING_KIND_POISSON, 0.1, 1.0, 3);
    double before[2] = {c.rdp[0], c.rdp[1]};
    const dp_sampling_kind kinds[] = {DP_SAMPLING_KIND_POISSON, DP_SAMPLING_KIND_WOR};
    for (int k = 0; k < 2; k++) {
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 0.0, 1.0, 1, &err), &err, "q");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 1.5, 1.0, 1, &err), &err, "q");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], NAN, 1.0, 1, &err), &err, "q");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 0.1, 0.0, 1, &err), &err, "sigma");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 0.1, NAN, 1, &err), &err, "sigma");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 0.1, 1.0, 0, &err), &err, "steps");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 0.1, 1.0, -3, &err), &err, "steps");
        expect_einval(dp_rdp_curve_add(&c, kinds[k], 0.1, 1.0, LONG_MAX, &err), &err, "steps");
    }
    expect_einval(dp_rdp_curve_add(&c, (dp_sampling_kind)0, 0.1, 1.0, 1, &err), &err, "kind");
    expect_einval(dp_rdp_curve_add(&c, (dp_sampling_kind)3, 0.1, 1.0, 1, &err), &err, "kind");
    /* the curve is unchanged by every failed add */
    ck_assert(c.rdp[0] == before[0] && c.rdp[1] == before[1]);
    ck_assert(c.steps == 3 && c.kinds == DP_SAMPLING_KIND_POISSON);

    const double bad_delta[] = {0.0, 1.0, -1e-5, NAN};
    for (int i = 0; i < 4; i++)
        expect_einval(dp_rdp_curve_epsilon(&c, bad_delta[i], DP_RDP_CONVERT_IMPROVED, &e, NULL,
                                           &err), &err, "delta");
    expect_einval(dp_rdp_curve_epsilon(&c, 1e-5, (dp_rdp_conversion)0, &e, NULL, &err), &err,
                  "conversion");
    expect_einval(dp_rdp_curve_epsilon(&c, 1e-5, DP_RDP_CONVERT_IMPROVED, NULL, NULL, &err),
                  &err, "eps");
    dp_rdp_curve_destroy(&c);
}
END_TEST

// ---- runner ---------------------------------------------------------------------------


static Suite *rdp_wor_suite(void)
{
    Suite *s = suite_create("rdp_wor");
    test_add_case(s, "rdpwor-1.1", test_q_one, 30);
    test_add_case(s, "rdpwor-1.2", test_naive, 30);
    test_add_case(s, "rdpwor-1.3", test_small_q, 30);
    test_add_case(s, "rdpwor-1.4", test_monotone, 60);
    test_add_case(s, "rdpwor-1.5", test_above_poisson, 60);
    test_add_case(s, "rdpwor-1.6", test_fractional, 60);
    test_add_case(s, "rdpwor-1.7", test_sigma_floor, 30);
    test_add_case(s, "rdpwor-1.8", test_no_nan, 60);
    test_add_case(s, "rdpwor-2.1", test_curve_steps, 30);
    test_add_case(s, "rdpwor-2.2", test_curve_mix, 30);
    test_add_case(s, "rdpwor-2.3", test_curve_monotone, 30);
    test_add_case(s, "rdpwor-2.4", test_curve_homogeneous, 60);
    test_add_case(s, "rdpwor-2.5", test_curve_ownership, 30);
    test_add_case(s, "rdpwor-3.1", test_bad_wor, 30);
    test_add_case(s, "rdpwor-3.2", test_bad_curve, 30);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rdp_wor_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
