/* pld.h: privacy loss distribution (PLD) accountants for the subsampled Gaussian
 * mechanism with pessimistic discretization, so that every epsilon (delta) they return is
 * an upper bound on the true one: dp_pld_* for Poisson sampling under add/remove
 * neighbours (pld.c), dp_pld_wor_* for fixed-size batches sampled without replacement
 * under replace-one neighbours (pld_wor.c).
 *
 * Sources: Koskela, Jalko, Honkela 2020 (PLD composition by FFT); Doroshenko, Ghazi,
 * Kamath, Kumar, Manurangsi 2022 ("Connect the Dots", Alg. 1, pessimistic); Google
 * dp_accounting's PLDAccountant (python/dp_accounting/pld), whose construction this
 * follows: one PLD per adjacency direction (remove, add), each self-composed, epsilon =
 * the larger of the two. Details and the choices made where it is silent in pld.c.
 *
 * The mechanism: each of `steps` rounds includes every example with probability q in
 * (0, 1] and releases the summed, sensitivity-1 query plus N(0, sigma^2) noise; q = 1 is
 * the plain Gaussian mechanism (composed exactly as one Gaussian of sigma/sqrt(steps)).
 *
 * interval is the spacing of the privacy-loss grid (dp_accounting's
 * value_discretization_interval). interval <= 0 selects DP_PLD_DEFAULT_INTERVAL, coarsened
 * automatically when the composed distribution would need more than DP_PLD_MAX_POINTS grid
 * points (very large epsilons); a coarser grid only loosens the bound. An explicit
 * interval > 0 is used as given, or refused (DP_EINVAL) when it would need more points.
 *
 * Both functions are pure (no I/O), return 0 or a negative DP_E* code with err filled:
 * DP_EINVAL names the bad parameter (q outside (0, 1], sigma <= 0 or non-finite, steps < 1,
 * delta outside (0, 1), eps < 0 or NaN, an output pointer NULL, an explicit interval too
 * fine), DP_ENOMEM when an allocation fails, DP_EPRIVACY when even the coarsest grid tried
 * cannot hold the composition (astronomically many steps). No NaN is ever returned with
 * status 0; the outputs are left untouched on error. Memory is bounded by a few arrays of
 * 2 x DP_PLD_MAX_POINTS doubles and all of it is freed before returning.
 *
 * Not thread-safe: the self-composition creates FFTW plans (FFTW_ESTIMATE, so results are
 * bit-reproducible), and the FFTW planner must not run in two threads at once. dperm's
 * workers are processes, so this only matters to a caller that adds threads.
 */
#ifndef DPERM_PLD_H
#define DPERM_PLD_H

#include "algorithms/base/err.h"

/* Default grid spacing of the privacy loss (see pld.c for the measurements behind it). */
#define DP_PLD_DEFAULT_INTERVAL 1e-4

/* Largest number of grid points a composed distribution may occupy. */
#define DP_PLD_MAX_POINTS (1L << 20)

/* Smallest point budget dp_pld_epsilon_coarse accepts. */
#define DP_PLD_MIN_COARSE_POINTS (1L << 10)

/* Smallest epsilon >= 0 such that `steps` rounds of the mechanism are (epsilon, delta)-DP
 * under the discretized (pessimistic) PLD. *eps may be +inf (status 0) when no finite
 * epsilon exists, e.g. delta below the distribution's infinity mass, or sigma so small
 * that the privacy loss overflows a double. */
int dp_pld_epsilon(double q, double sigma, long steps, double delta, double interval,
                   double *eps, dp_err *err);

/* dp_pld_epsilon on the default grid, coarsened until the composition fits max_points
 * grid points (DP_PLD_MIN_COARSE_POINTS..DP_PLD_MAX_POINTS) instead of DP_PLD_MAX_POINTS:
 * still an upper bound (a coarser pessimistic grid only loosens it), cheaper where the
 * epsilon is large, for estimates read to a few digits. The grid's step d moves epsilon
 * by about d, and d is about the composed loss range over max_points: at 2^16 points,
 * epsilons of 36 and 450 (q 128/60000, 2345 steps) came out 2e-5 and 8e-5 (relative)
 * above the full grid's, in about a fifth of the time. At max_points =
 * DP_PLD_MAX_POINTS it is dp_pld_epsilon with interval 0, bit for bit. */
int dp_pld_epsilon_coarse(double q, double sigma, long steps, double delta, long max_points,
                          double *eps, dp_err *err);

/* Smallest delta for which `steps` rounds are (eps, delta)-DP under the same pessimistic
 * PLD (the larger of the two directions' hockey-stick divergences), in [0, 1]. */
int dp_pld_delta(double q, double sigma, long steps, double eps, double interval,
                 double *delta, dp_err *err);

/* The same for `steps` rounds that each draw a uniformly random batch of fixed size m
 * out of n (q = m/n in (0, 1]), sum the per-example values clipped to norm C, and add
 * N(0, sigma^2 C^2) noise, under replace-one neighbours (the data set keeps its size; one
 * example is replaced). sigma is relative to C, as the rdp_wor accountant takes it: the
 * replace-one sensitivity of the sum is 2C. The bound is that of the symmetrized
 * subsampled Gaussian (Dong, Roth, Su 2022, Thm 9; Zhu, Dong, Wang 2022), composed as one
 * symmetric PLD (pld_wor.c says why composing the two directions apart is not valid
 * here). q = 1 is the Gaussian mechanism of sensitivity 2: `steps` rounds are one
 * Gaussian of noise sigma/sqrt(steps). interval, errors, memory and threads as above
 * (the symmetric distribution spans both signs of the loss, so its grid is up to twice as
 * long as dp_pld_epsilon's at the same interval). *eps may be +inf (status 0). */
int dp_pld_wor_epsilon(double q, double sigma, long steps, double delta, double interval,
                       double *eps, dp_err *err);

/* Smallest delta in [0, 1] for which those rounds are (eps, delta)-DP under the same
 * pessimistic symmetric PLD. */
int dp_pld_wor_delta(double q, double sigma, long steps, double eps, double interval,
                     double *delta, dp_err *err);

#endif
