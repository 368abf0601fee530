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

#include "../base/err.h"

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

#endif
