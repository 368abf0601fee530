/* pld_int.h: what pld.c shares with pld_wor.c, private to algorithms/privacy/: the
 * discretized privacy loss distribution, the one-step connect-the-dots PMF of the
 * subsampled Gaussian, and the composition driver (grid sizing, Chernoff windows, FFT
 * self-composition). The mathematics and the choices behind each are in pld.c; the
 * public contracts in pld.h.
 */
#ifndef DPERM_PLD_INT_H
#define DPERM_PLD_INT_H

#include <stddef.h>

#include "algorithms/base/err.h"

/* The two adjacency directions of the Poisson-subsampled Gaussian, sensitivity 1, noise
 * N(0, s^2), rate q: remove compares (1-q) N(0) + q N(-1) against N(0), add N(0) against
 * (1-q) N(0) + q N(1). */
typedef enum { PLD_REMOVE = 0, PLD_ADD = 1 } pld_dir;

/* A discretized PLD: p[k] is the mass at loss (lo + k) * d, inf the mass at +infinity,
 * m the number of compositions it represents. p is owned (pld_pmf_free). */
typedef struct pld_pmf {
    long long lo;
    size_t n;
    double *p, inf, m;
} pld_pmf;

/* A mechanism to compose: the subsampled Gaussian (rate q, noise s relative to a
 * sensitivity of 1) as nd one-step PMFs, and the range [rlo, rhi] of its one-step loss,
 * from which the default grid is sized. build makes the PMFs on the grid of spacing d
 * into one[0..nd-1]: it sets *n1 to the grid points its largest PMF occupies and builds
 * nothing when that is more than DP_PLD_MAX_POINTS (status 0); otherwise 0 with every
 * PMF built, or DP_ENOMEM with nothing left allocated. */
typedef struct pld_mech pld_mech;
struct pld_mech {
    double q, s, rlo, rhi;
    int nd;
    long max_points; /* points the default grid may fill; 0: DP_PLD_MAX_POINTS */
    int (*build)(const pld_mech *m, double d, pld_pmf one[2], double *n1);
};

/* DP_EINVAL naming q, sigma, steps or a non-finite interval; else 0. */
int pld_check_args(double q, double sigma, long steps, double interval, dp_err *err);

/* Loss range [lo, hi] of the remove direction at (q, s), cut where the Gaussian's
 * mass left off is e^-50; the add direction's is [-hi, -lo]. Infinite when s is so small
 * that the loss overflows. */
void pld_remove_range(double q, double s, double *lo, double *hi);

/* One step of direction dir, pessimistic connect-the-dots PMF on the grid k*d,
 * k = kl..ku: delta(e) equals the direction's hockey-stick divergence at every grid
 * point e = k*d in [kl*d, ku*d] and bounds it from above in between. 0 or DP_ENOMEM. */
int pld_single_pmf(pld_dir dir, double q, double s, double d, long long kl, long long ku,
                   pld_pmf *out);

/* The T-fold self-compositions of m's nd one-step PMFs into out[0..nd-1], on the grid
 * *d_used: interval when > 0 (DP_EINVAL if it needs more than DP_PLD_MAX_POINTS points),
 * else DP_PLD_DEFAULT_INTERVAL coarsened as needed to fit m->max_points. steps only names
 * the schedule in messages. Returns 0 (the caller frees out[0..nd-1]), DP_EINVAL, DP_ENOMEM or
 * DP_EPRIVACY (too many steps for any grid); on error nothing is left allocated. */
int pld_compose(const pld_mech *m, long T, long steps, double interval, pld_pmf out[2],
                double *d_used, dp_err *err);

/* Smallest e >= 0 with delta(e) <= target (+inf when the mass at +infinity exceeds it),
 * exact between grid points; and delta(eps) in [0, 1]. x is on the grid of spacing d. */
double pld_pmf_epsilon(const pld_pmf *x, double d, double target);
double pld_pmf_delta(const pld_pmf *x, double d, double eps);

/* Frees x->p and sets it to NULL. This function can't fail. */
void pld_pmf_free(pld_pmf *x);

#endif
