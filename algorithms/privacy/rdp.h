/* rdp.h: Renyi-DP accountant for the (Poisson-subsampled) Gaussian mechanism and
 * noise calibration.
 *
 * Sources: Mironov 2017 ("Renyi differential privacy", Prop. 3 conversion); Mironov,
 * Talwar, Zhang 2019 ("Renyi differential privacy of the sampled Gaussian mechanism":
 * exact binomial expansion at integer orders, the numerically stable series at
 * fractional orders, as used by TF Privacy and Opacus); improved RDP -> (eps, delta)
 * conversion of Balle et al. 2020 / Canonne, Kamath, Steinke 2020 (as in Google's
 * dp_accounting). Pure functions of (q, sigma, steps, delta): no I/O, no model.
 */
#ifndef DPERM_RDP_H
#define DPERM_RDP_H

#include <stddef.h>

#include "algorithms/base/err.h"

typedef enum {
    DP_RDP_CONVERT_CLASSIC = 1,  /* eps = rdp + log(1/delta)/(alpha-1) (Mironov 2017) */
    DP_RDP_CONVERT_IMPROVED = 2  /* Balle et al. 2020 (tighter; dp_accounting default) */
} dp_rdp_conversion;

/* The default order grid: dense fractional orders near 1, integers, and large orders up
 * to several thousand, so that small epsilons (0.01..0.1) are reachable. */
size_t dp_rdp_default_orders(const double **orders);

/* RDP of one step of the Poisson-subsampled Gaussian with rate q in (0,1] and noise
 * multiplier sigma > 0, at each order (> 1). q = 1 gives the plain Gaussian alpha/(2 s^2).
 * rdp[i] for orders[i]; inf where it does not exist. Returns 0 or DP_EINVAL. */
int dp_rdp_subsampled_gaussian(double q, double sigma, const double *orders, size_t n,
                               double *rdp, dp_err *err);

/* (eps, delta) from an RDP curve (already composed); *best_order gets the optimizing
 * order (may be NULL). Returns 0 or DP_EINVAL. */
int dp_rdp_to_epsilon(const double *orders, const double *rdp, size_t n, double delta,
                      dp_rdp_conversion conv, double *eps, double *best_order, dp_err *err);

/* Epsilon of `steps` compositions of the subsampled Gaussian, default orders. */
int dp_rdp_epsilon(double q, double sigma, long steps, double delta,
                   dp_rdp_conversion conv, double *eps, double *best_order, dp_err *err);

/* Smallest sigma (relative tolerance 1e-3, rounded up so the result meets the target)
 * with dp_rdp_epsilon(q, sigma, steps, delta) <= target_eps. DP_EPRIVACY when no sigma
 * in (0, 1e4] reaches it. */
int dp_rdp_calibrate_sigma(double q, long steps, double delta, double target_eps,
                           dp_rdp_conversion conv, double *sigma, dp_err *err);

// ---- sampling without replacement (rdp_wor.c) -----------------------------------------

/* RDP of one step of the Gaussian mechanism applied to a uniformly random subset of fixed
 * size m out of n (sampling without replacement, q = m/n in (0,1]), for replace-one
 * neighbours: Wang, Balle, Kasiviswanathan 2018/2019, "Subsampled Renyi differential
 * privacy and analytical moments accountant", Theorem 9 (the general upper bound), as
 * autodp's anaRDPacct.compose_subsampled_mechanism evaluates it, with the base RDP
 * alpha/(2 sigma^2). sigma is the noise std divided by the base mechanism's replace-one
 * L2 sensitivity (for a sum of per-example gradients clipped to C that sensitivity is 2C,
 * not the C of add/remove accounting). DP-LSSGD's privacy proof cites this paper (rdp_wor.c
 * says how far its Lemma 1 is from Theorem 9).
 * Integer orders get the theorem's bound (capped at the unsubsampled alpha/(2 sigma^2));
 * fractional orders get autodp's upper bound (linear interpolation of the bounds on
 * (alpha-1) rdp at the neighbouring integers; rdp(2) for 1 < alpha < 2), see rdp_wor.c.
 * q = 1 gives alpha/(2 sigma^2). rdp[i] for orders[i] (finite, > 1, <= 1e6); never NaN.
 * Returns 0, or DP_EINVAL naming the bad parameter (q, sigma, an order, a NULL array);
 * rdp is untouched on error. */
int dp_rdp_wor_subsampled_gaussian(double q, double sigma, const double *orders, size_t n,
                                   double *rdp, dp_err *err);

// ---- heterogeneous composition (rdp_curve.c) ------------------------------------------

/* Bit values, so that a curve's `kinds` can record which sampling kinds it holds. */
typedef enum {
    DP_SAMPLING_KIND_POISSON = 1, /* Poisson rate q, add/remove neighbours (rdp.c) */
    DP_SAMPLING_KIND_WOR = 2      /* fixed-size batch, q = m/n, replace-one (rdp_wor.c) */
} dp_sampling_kind;

/* An RDP curve on a fixed order grid, summed over steps of one sampling kind that may
 * differ in (q, sigma) (RDP composes by addition, Mironov 2017 Prop. 1). Caller-owned struct;
 * the fields are readable, not writable. orders and rdp point into one allocation the
 * curve owns (the caller's order array is copied, so it need not outlive the curve).
 *
 * Mixing kinds is refused (DP_EINVAL): the Poisson curve is an RDP bound for add/remove
 * neighbours, the WOR curve for replace-one neighbours, and a sum over both is a bound
 * under neither. */
typedef struct dp_rdp_curve {
    const double *orders; /* n RDP orders (> 1) */
    size_t n;
    double *rdp;          /* rdp[i]: composed RDP at orders[i]; +inf allowed */
    long steps;           /* steps added so far */
    unsigned kinds;       /* OR of the dp_sampling_kind values added so far */
} dp_rdp_curve;

/* Empty curve (rdp all 0) on `orders` (copied), or on dp_rdp_default_orders when orders
 * is NULL (n is then ignored). Returns 0, DP_EINVAL (n = 0, a bad order: finite, > 1,
 * <= 1e6), or DP_ENOMEM; on error c holds nothing to destroy (destroying it is safe). */
int dp_rdp_curve_init(dp_rdp_curve *c, const double *orders, size_t n, dp_err *err);

/* Adds `steps` (>= 1) steps of the Gaussian mechanism with noise multiplier sigma > 0,
 * sampled with rate q in (0,1] of the given kind. Returns 0 or DP_EINVAL (naming the
 * parameter); on error the curve is unchanged. Allocation-free. */
int dp_rdp_curve_add(dp_rdp_curve *c, dp_sampling_kind kind, double q, double sigma,
                     long steps, dp_err *err);

/* (eps, delta) of the composed curve, as dp_rdp_to_epsilon (best_order may be NULL).
 * Does not modify the curve. Returns 0 or DP_EINVAL. */
int dp_rdp_curve_epsilon(const dp_rdp_curve *c, double delta, dp_rdp_conversion conv,
                         double *eps, double *best_order, dp_err *err);

/* Frees the curve's arrays and zeroes it. Safe on NULL and on a zeroed or destroyed curve.
 * This function can't fail. */
void dp_rdp_curve_destroy(dp_rdp_curve *c);

#endif
