/* mechanisms.c: Gaussian and Laplace mechanisms, their calibration, and Zhang17 Alg. 1's
 * output noise (contract in mechanisms.h).
 *
 * Sources.
 * - Classic Gaussian: Dwork & Roth 2014, Thm A.1 (c^2 > 2 ln(1.25/delta), eps < 1), as
 *   Lecture15 Lemma 15.3 and Zhang17 Lemma 1 state it.
 * - Analytic Gaussian: Balle & Wang 2018, Thm 8: N(0, s^2) on sensitivity D is
 *   (eps, delta)-DP iff delta >= Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D).
 *   Their Alg. 1 calibrates through a change of variables and a root search; here the
 *   same exact condition is solved directly, since delta(eps, s) is strictly decreasing
 *   in s and in eps (Thm 8 is an iff, and more noise or a larger eps cannot hurt).
 * - Laplace: Dwork & Roth Thm 3.6. High-dimensional Laplace: Zhang17 Alg. 1 line 5.
 * - Zhang17 Alg. 1 line 7 for the Gaussian output noise.
 *
 * Numerics (the part the papers leave to the implementer).
 * - delta(eps, s) is a difference of two terms that nearly cancel in the tail (both are
 *   ~ e^{-a^2/2} with a the first argument). Write log Phi(x) = -x^2/2 + R(x) with
 *   R(x) = log(erfcx(-x/sqrt 2) / 2) (erfcx(z) = e^{z^2} erfc(z)). Because
 *   a^2 - b^2 = -2 eps exactly (a, b the two arguments), the exponent of the ratio
 *   e^eps Phi(b) / Phi(a) is R(b) - R(a): no large numbers are subtracted, and
 *     delta = Phi(a) * (-expm1(R(b) - R(a))).
 *   R varies like -log|x|, so delta keeps a few 1e-13 of relative accuracy wherever it
 *   is a normal double (checked against a direct long double evaluation in the tests,
 *   and against 50-digit mpmath on 2300 random (eps, sigma) during development).
 *   When sigma/sens is large, a and b are close (a - b = sens/sigma) and R(b) - R(a)
 *   itself cancels; there it is integrated from R' instead (tail_r_diff).
 * - erfcx(z), z >= 0: e^{z^2} erfc(z) for z < 26, with the rounding error of z*z put
 *   back by an fma (it would otherwise cost up to 1e-13 relative at z = 26); above, the
 *   asymptotic series 1/(z sqrt pi) sum_k (-1)^k (2k-1)!!/(2z^2)^k to 12 terms (first
 *   dropped term ~2e-28 at z = 26).
 * - Calibration brackets, then bisects (log sigma for sigma, plain for eps) until the
 *   bracket is ~1e-15 wide relative, and returns the end that satisfies the target.
 *   The target is delta (1 - 1e-12), so the guarantee survives the ~1e-13 error of the
 *   delta evaluation: the answer errs on the private side, by far less than any
 *   tolerance a caller would notice.
 * - Phi(x) = erfc(z)/2 with z = -x/sqrt 2; the rounding of z is put back to first order
 *   (erfc(z + dz) = erfc(z) - dz 2/sqrt(pi) e^{-z^2}), which keeps a few ulps in the
 *   far tail where erfc's relative slope 2z would magnify it.
 */
#include "algorithms/privacy/mechanisms.h"

#include <math.h>

#define SQRT_PI 1.7724538509055160273
#define SQRT1_2_LO (-4.8336466567264565e-17) /* 1/sqrt(2) - M_SQRT1_2 */
#define CALIB_MARGIN 1e-12 /* calibration aims at delta (1 - this): above the ~1e-13 error */

// ---- standard normal and the tail function R ------------------------------------------

/* erfcx(z) = exp(z^2) erfc(z) for z >= 0 (+inf gives 0). */
static double erfcx_pos(double z)
{
    if (z < 26.0) {
        double zz = z * z;
        double lo = fma(z, z, -zz); /* z*z = zz + lo exactly */
        return exp(zz) * erfc(z) * (1.0 + lo);
    }
    double w = 1.0 / (2.0 * z * z), term = 1.0, sum = 1.0;
    for (int k = 1; k <= 12; k++) {
        term *= -(2.0 * k - 1.0) * w;
        sum += term;
    }
    return sum / (z * SQRT_PI);
}

/* R(x) = log Phi(x) + x^2/2. */
static double tail_r(double x)
{
    if (x < 0.0) return log(0.5 * erfcx_pos(-x * M_SQRT1_2));
    return log1p(-0.5 * erfc(x * M_SQRT1_2)) + 0.5 * x * x;
}

double dp_mech_normal_cdf(double x)
{
    /* erfc's relative slope in the tail is ~2z, so the rounding of z = -x/sqrt(2) alone
     * would cost ~z^2 ulps (1e-13 at Phi ~ 1e-300): put it back to first order. */
    double z = -x * M_SQRT1_2;
    double dz = fma(-x, M_SQRT1_2, -z) - x * SQRT1_2_LO;
    double e = erfc(z);
    if (!isfinite(z) || e == 0.0) return 0.5 * e;
    return 0.5 * (e - dz * M_2_SQRTPI * exp(-z * z));
}

/* R'(x) = x + phi(x)/Phi(x), the log-derivative of Phi plus x. */
static double tail_r_prime(double x)
{
    if (x < 0.0) return x + M_2_SQRTPI * M_SQRT1_2 / erfcx_pos(-x * M_SQRT1_2);
    return x + 0.5 * M_2_SQRTPI * M_SQRT1_2 * exp(-0.5 * x * x) / dp_mech_normal_cdf(x);
}

/* R(mid - half) - R(mid + half) when the interval is short (2 half <= max(1, |mid + half|)
 * / 20), as -integral R'(x) dx over it by 5-point Gauss-Legendre (R' is analytic within
 * ~2.8 of the real axis, further out in the tail, so this is exact to rounding). There the
 * two values of R agree in many leading digits, and their difference would keep only
 * ~1e-16 |R| / |difference| of relative accuracy; the interval is passed as (mid, half),
 * not as its rounded ends, because its length is what the result is proportional to. */
static double tail_r_diff(double mid, double half)
{
    static const double node[5] = {0.0, 0.5384693101056831, -0.5384693101056831,
                                   0.9061798459386640, -0.9061798459386640};
    static const double weight[5] = {0.5688888888888889, 0.4786286704993665,
                                     0.4786286704993665, 0.2369268850561891,
                                     0.2369268850561891};
    double sum = 0.0;
    for (int i = 0; i < 5; i++) sum += weight[i] * tail_r_prime(mid + half * node[i]);
    return -half * sum;
}

/* Balle & Wang Thm 8 with t = sigma/sens > 0 and eps >= 0, no argument checks. */
static double gauss_delta(double eps, double t)
{
    double mid = -eps * t, half = 0.5 / t;
    double a = mid + half, b = mid - half;
    if (eps == 0.0) return erf(half * M_SQRT1_2); /* Phi(a) - Phi(-a), exactly */
    if (isnan(a) || isnan(b)) return NAN;
    double pa = dp_mech_normal_cdf(a);
    if (pa == 0.0) return 0.0;
    double d = 2.0 * half <= 0.05 * fmax(1.0, fabs(a)) ? tail_r_diff(mid, half)
                                                        : tail_r(b) - tail_r(a);
    if (isnan(d)) return a > 0.0 ? 1.0 : 0.0; /* inf - inf: t at the double range's edge */
    double delta = pa * -expm1(d);
    return delta < 0.0 ? 0.0 : (delta > 1.0 ? 1.0 : delta);
}

// ---- argument checks ------------------------------------------------------------------

static int check_eps(double eps, dp_err *err)
{
    if (!(eps > 0.0 && isfinite(eps)))
        return dp_err_set(err, DP_EINVAL, "eps = %g must be finite and > 0", eps);
    return 0;
}

static int check_delta(double delta, dp_err *err)
{
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside (0, 1)", delta);
    return 0;
}

static int check_pos(const char *name, double v, dp_err *err)
{
    if (!(v > 0.0 && isfinite(v)))
        return dp_err_set(err, DP_EINVAL, "%s = %g must be finite and > 0", name, v);
    return 0;
}

static int check_out(const void *p, const char *name, dp_err *err)
{
    if (!p) return dp_err_set(err, DP_EINVAL, "%s is NULL", name);
    return 0;
}

// ---- Gaussian mechanism ---------------------------------------------------------------

int dp_mech_gaussian_sigma_classic(double eps, double delta, double sens, double *sigma,
                                   dp_err *err)
{
    int rc;
    if ((rc = check_eps(eps, err)) || (rc = check_delta(delta, err)) ||
        (rc = check_pos("sensitivity", sens, err)) || (rc = check_out(sigma, "sigma", err)))
        return rc;
    if (!(eps < 1.0))
        return dp_err_set(err, DP_EPRIVACY, "classic Gaussian mechanism (Dwork & Roth Thm A.1, "
                          "Lecture15 Lemma 15.3) requires eps < 1, got eps = %g; use the "
                          "analytic Gaussian calibration", eps);
    double s = sens * sqrt(2.0 * log(1.25 / delta)) / eps;
    if (!isfinite(s)) return dp_err_set(err, DP_EINVAL, "sigma overflows (sensitivity %g)", sens);
    *sigma = s;
    return 0;
}

int dp_mech_gaussian_delta(double eps, double sigma, double sens, double *delta, dp_err *err)
{
    int rc;
    if (!(eps >= 0.0 && isfinite(eps)))
        return dp_err_set(err, DP_EINVAL, "eps = %g must be finite and >= 0", eps);
    if ((rc = check_pos("sigma", sigma, err)) || (rc = check_pos("sensitivity", sens, err)) ||
        (rc = check_out(delta, "delta", err)))
        return rc;
    double t = sigma / sens;
    if (!(t > 0.0 && isfinite(t)))
        return dp_err_set(err, DP_EINVAL, "sigma/sensitivity = %g/%g is outside the double range",
                          sigma, sens);
    *delta = gauss_delta(eps, t);
    return 0;
}

int dp_mech_gaussian_sigma_analytic(double eps, double delta, double sens, double *sigma,
                                    dp_err *err)
{
    int rc;
    if ((rc = check_eps(eps, err)) || (rc = check_delta(delta, err)) ||
        (rc = check_pos("sensitivity", sens, err)) || (rc = check_out(sigma, "sigma", err)))
        return rc;
    delta *= 1.0 - CALIB_MARGIN;
    /* Bracket t = sigma/sens around the classic value, then bisect on log t. */
    double hi = fmin(fmax(sqrt(2.0 * log(1.25 / delta)) / eps, 1e-300), 1e300), lo = hi;
    if (gauss_delta(eps, hi) <= delta) {
        do lo *= 0.5; /* delta(t) -> 1 > target as t -> 0, so this stops */
        while (gauss_delta(eps, lo) <= delta && lo > 1e-300);
        hi = 2.0 * lo;
    } else {
        do {
            hi *= 2.0;
            if (hi > 1e300)
                return dp_err_set(err, DP_EPRIVACY, "no sigma below 1e300 x sensitivity reaches "
                                  "(eps %g, delta %g)", eps, delta);
        } while (gauss_delta(eps, hi) > delta);
        lo = 0.5 * hi;
    }
    for (int it = 0; it < 400 && hi > lo * (1.0 + 4e-16); it++) {
        double mid = sqrt(lo) * sqrt(hi);
        if (!(mid > lo && mid < hi)) break;
        if (gauss_delta(eps, mid) <= delta) hi = mid;
        else lo = mid;
    }
    double s = hi * sens;
    if (!isfinite(s)) return dp_err_set(err, DP_EINVAL, "sigma overflows (sensitivity %g)", sens);
    *sigma = s;
    return 0;
}

int dp_mech_gaussian_epsilon_analytic(double sigma, double delta, double sens, double *eps,
                                      dp_err *err)
{
    int rc;
    if ((rc = check_pos("sigma", sigma, err)) || (rc = check_delta(delta, err)) ||
        (rc = check_pos("sensitivity", sens, err)) || (rc = check_out(eps, "eps", err)))
        return rc;
    double t = sigma / sens;
    if (!(t > 0.0 && isfinite(t)))
        return dp_err_set(err, DP_EINVAL, "sigma/sensitivity = %g/%g is outside the double range",
                          sigma, sens);
    delta *= 1.0 - CALIB_MARGIN;
    if (gauss_delta(0.0, t) <= delta) {
        *eps = 0.0;
        return 0;
    }
    double lo = 0.0, hi = 1.0;
    while (gauss_delta(hi, t) > delta) {
        lo = hi;
        hi *= 2.0;
        if (hi > 1e300) { /* sigma/sens below ~1e-150: no double eps is enough */
            *eps = INFINITY;
            return 0;
        }
    }
    for (int it = 0; it < 2000 && hi - lo > 2e-16 * hi; it++) {
        double mid = lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi)) break;
        if (gauss_delta(mid, t) <= delta) hi = mid;
        else lo = mid;
    }
    *eps = hi;
    return 0;
}

// ---- Laplace mechanism ----------------------------------------------------------------

int dp_mech_laplace_scale(double eps, double sens, double *b, dp_err *err)
{
    int rc;
    if ((rc = check_eps(eps, err)) || (rc = check_pos("sensitivity", sens, err)) ||
        (rc = check_out(b, "b", err)))
        return rc;
    double s = sens / eps;
    if (!isfinite(s)) return dp_err_set(err, DP_EINVAL, "Laplace scale %g/%g overflows", sens, eps);
    *b = s;
    return 0;
}

static int check_sampler(dp_rng *r, const double *out, size_t n, dp_err *err)
{
    if (!r) return dp_err_set(err, DP_EINVAL, "rng is NULL");
    if (n > 0 && !out) return dp_err_set(err, DP_EINVAL, "output vector is NULL");
    return 0;
}

int dp_mech_laplace_sample(dp_rng *r, double *out, size_t n, double eps, double sens,
                           dp_err *err)
{
    double b;
    int rc;
    if ((rc = check_sampler(r, out, n, err)) || (rc = dp_mech_laplace_scale(eps, sens, &b, err)))
        return rc;
    for (size_t i = 0; i < n; i++) out[i] = dp_rng_laplace(r, b);
    return 0;
}

// ---- Zhang17 Alg. 1 output noise ------------------------------------------------------

int dp_mech_hdlaplace_sample(dp_rng *r, double *z, size_t d, double eps, double sens,
                             dp_err *err)
{
    double b;
    int rc;
    if ((rc = check_sampler(r, z, d, err)) || (rc = dp_mech_laplace_scale(eps, sens, &b, err)))
        return rc;
    if (d == 0) return dp_err_set(err, DP_EINVAL, "dimension d must be >= 1");
    /* In polar form the density r^{d-1} e^{-r/b} dr du factorizes: the direction is
     * uniform on the sphere and the norm is Gamma(d, b). */
    double s2;
    do {
        s2 = 0.0;
        for (size_t i = 0; i < d; i++) {
            z[i] = dp_rng_gaussian(r);
            s2 += z[i] * z[i];
        }
    } while (!(s2 > 0.0)); /* an all-zero Gaussian draw has probability 0; redraw */
    double f = dp_rng_gamma(r, (double)d, b) / sqrt(s2);
    for (size_t i = 0; i < d; i++) z[i] *= f;
    return 0;
}

int dp_mech_zhang17_gaussian_sigma(double eps, double delta, double sens, double *sigma,
                                   dp_err *err)
{
    int rc;
    if ((rc = check_eps(eps, err)) || (rc = check_delta(delta, err)) ||
        (rc = check_pos("sensitivity", sens, err)) || (rc = check_out(sigma, "sigma", err)))
        return rc;
    /* exp(-eps^2 |z|^2 / (4 log(2/delta) D^2)) = exp(-|z|^2 / (2 s^2)) with this s. */
    double s = sens * sqrt(2.0 * log(2.0 / delta)) / eps;
    if (!isfinite(s)) return dp_err_set(err, DP_EINVAL, "sigma overflows (sensitivity %g)", sens);
    *sigma = s;
    return 0;
}

int dp_mech_zhang17_gaussian_sample(dp_rng *r, double *z, size_t d, double eps, double delta,
                                    double sens, dp_err *err)
{
    double s;
    int rc;
    if ((rc = check_sampler(r, z, d, err)) ||
        (rc = dp_mech_zhang17_gaussian_sigma(eps, delta, sens, &s, err)))
        return rc;
    for (size_t i = 0; i < d; i++) z[i] = s * dp_rng_gaussian(r);
    return 0;
}

int dp_mech_zhang17_output_noise(dp_rng *r, double *z, size_t d, double eps, double delta,
                                 double sens, dp_err *err)
{
    if (delta == 0.0) return dp_mech_hdlaplace_sample(r, z, d, eps, sens, err);
    return dp_mech_zhang17_gaussian_sample(r, z, d, eps, delta, sens, err);
}
