/* mechanisms.h: the additive noise mechanisms dperm's private algorithms use, their
 * calibration, and samplers that fill a caller-owned vector.
 *
 * Sources: the classic Gaussian mechanism (Dwork & Roth 2014, Thm A.1; Lecture15
 * Lemma 15.3); the analytic Gaussian mechanism (Balle & Wang, "Improving the Gaussian
 * mechanism for differential privacy", ICML 2018, Thm 8 and Alg. 1); the Laplace
 * mechanism (Dwork & Roth Thm 3.6; Zhang17 Lemma 1); Zhang17 Alg. 1's output noise
 * (line 5: density ~ exp(-eps ||z|| / Delta) on R^d; line 7: the Gaussian counterpart).
 *
 * Conventions. `sens` is the sensitivity Delta of the query the noise protects (l2 for
 * the Gaussian and the high-dimensional Laplace, l1 for the coordinate-wise Laplace).
 * Functions return 0 or a negative DP_E* code and fill err (err may be NULL):
 * DP_EINVAL names a parameter outside its domain (non-finite, eps <= 0, delta outside
 * (0, 1), sens <= 0, NULL output); DP_EPRIVACY names a violated precondition of the
 * result used (e.g. eps >= 1 for the classic Gaussian). On error outputs are unchanged.
 * Nothing here allocates, prints or keeps state; samplers advance only the dp_rng given.
 */
#ifndef DPERM_MECHANISMS_H
#define DPERM_MECHANISMS_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"

// ---- standard normal ------------------------------------------------------------------

/* Phi(x) = P(N(0,1) <= x), from erfc, so both tails keep their relative accuracy
 * (Phi(-37) ~ 6e-300 is returned to a few ulps). Phi(-inf) = 0, Phi(inf) = 1, NaN in,
 * NaN out. This function can't fail. */
double dp_mech_normal_cdf(double x);

// ---- Gaussian mechanism ---------------------------------------------------------------

/* Classic calibration sigma = sens * sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth Thm A.1;
 * Lecture15 Lemma 15.3). The theorem needs eps < 1: eps >= 1 is DP_EPRIVACY (use
 * dp_mech_gaussian_sigma_analytic there). */
int dp_mech_gaussian_sigma_classic(double eps, double delta, double sens, double *sigma,
                                   dp_err *err);

/* Exact privacy profile of N(0, sigma^2 I) added to a query of l2 sensitivity sens
 * (Balle & Wang 2018, Thm 8): the smallest delta for which it is (eps, delta)-DP,
 *   delta = Phi(sens/(2 sigma) - eps sigma/sens) - e^eps Phi(-sens/(2 sigma) - eps sigma/sens).
 * eps >= 0 (0 allowed: then delta is the total variation distance). Relative error
 * below 1e-12 (a few 1e-13 at worst in tests down to delta ~ 1e-300); 0 below the double
 * range. */
int dp_mech_gaussian_delta(double eps, double sigma, double sens, double *delta, dp_err *err);

/* Smallest sigma with dp_mech_gaussian_delta(eps, sigma, sens) <= delta, for any eps > 0
 * (Balle & Wang 2018, Alg. 1, solved by bisection on log sigma to a relative width of
 * ~1e-15, aiming at delta (1 - 1e-12) so the guarantee holds despite rounding). Never
 * above the classic sigma where that one applies. DP_EPRIVACY if it would exceed
 * 1e300 x sens (eps and delta both near the double range's edge). */
int dp_mech_gaussian_sigma_analytic(double eps, double delta, double sens, double *sigma,
                                    dp_err *err);

/* Smallest eps >= 0 with dp_mech_gaussian_delta(eps, sigma, sens) <= delta: the exact
 * epsilon of one Gaussian release at that delta (bisection to ~1e-15 relative, aiming
 * at delta (1 - 1e-12)). +inf (status 0) when no double eps suffices, which
 * happens only for sigma/sens below ~1e-150. */
int dp_mech_gaussian_epsilon_analytic(double sigma, double delta, double sens, double *eps,
                                      dp_err *err);

// ---- Laplace mechanism ----------------------------------------------------------------

/* Scale b = sens / eps of Lap(b) noise per coordinate for eps-DP with l1 sensitivity
 * sens (Dwork & Roth Thm 3.6; Zhang17 Lemma 1). */
int dp_mech_laplace_scale(double eps, double sens, double *b, dp_err *err);

/* out[i] = Lap(sens/eps), i < n (overwrites out). */
int dp_mech_laplace_sample(dp_rng *r, double *out, size_t n, double eps, double sens,
                           dp_err *err);

// ---- Zhang17 Alg. 1 output noise ------------------------------------------------------

/* z (length d >= 1) drawn from the density proportional to exp(-eps ||z||_2 / sens) on
 * R^d (Zhang17 Alg. 1 line 5, eps-DP for l2 sensitivity sens): a uniform direction
 * (a normalized Gaussian vector) times a Gamma(d, sens/eps) norm. Overwrites z. */
int dp_mech_hdlaplace_sample(dp_rng *r, double *z, size_t d, double eps, double sens,
                             dp_err *err);

/* Zhang17 Alg. 1 line 7: density ~ exp(-eps^2 ||z||^2 / (4 log(2/delta) sens^2)), i.e.
 * N(0, sigma^2 I) with sigma = sens * sqrt(2 ln(2/delta)) / eps. Note 2/delta, not the
 * 1.25/delta of Zhang17's own Lemma 1; Zhang17 Thm 1 claims it for every eps > 0 and
 * delta in (0, 1), which is all that is checked here (the classic argument covers
 * eps < 1 only; dp_mech_gaussian_delta gives the exact delta it achieves). */
int dp_mech_zhang17_gaussian_sigma(double eps, double delta, double sens, double *sigma,
                                   dp_err *err);

/* z (length d) ~ N(0, sigma^2 I) with the sigma above. Overwrites z. */
int dp_mech_zhang17_gaussian_sample(dp_rng *r, double *z, size_t d, double eps, double delta,
                                    double sens, dp_err *err);

/* Zhang17 Alg. 1 lines 4-8: delta == 0 draws the high-dimensional Laplace, delta in
 * (0, 1) the Gaussian above. Overwrites z. */
int dp_mech_zhang17_output_noise(dp_rng *r, double *z, size_t d, double eps, double delta,
                                 double sens, dp_err *err);

#endif
