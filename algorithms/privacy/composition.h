/* composition.h: (eps, delta) composition theorems, amplification by subsampling, and
 * the `advanced` and `basic` schedule accountants built on them (accountant.h).
 *
 * Sources: basic composition (Dwork & Roth 2014, Thm 3.16); advanced composition of
 * Dwork, Rothblum, Vadhan 2010 (Thm III.3) as DPlis Thm 1 states it, and the per-step
 * budget of Lecture15 Lemma 15.2; amplification by subsampling as Lecture15 Lemma 15.4
 * states it; the per-step Gaussian is the analytic one (mechanisms.h, Balle & Wang 2018).
 *
 * All functions are pure, return 0 or a negative DP_E* code and fill err (may be NULL):
 * DP_EINVAL names a parameter outside its domain, DP_EPRIVACY a violated precondition
 * of the theorem used. Outputs are left unchanged on error.
 */
#ifndef DPERM_COMPOSITION_H
#define DPERM_COMPOSITION_H

#include "algorithms/base/err.h"

/* k-fold composition of (eps, delta)-DP mechanisms is (k eps, k delta)-DP (Dwork & Roth
 * Thm 3.16). eps >= 0, delta in [0, 1], k >= 1. delta_total is capped at 1. */
int dp_composition_basic(double eps, double delta, long k, double *eps_total,
                         double *delta_total, dp_err *err);

/* Advanced composition (Dwork, Rothblum, Vadhan 2010; DPlis Thm 1): k-fold adaptive
 * composition of (eps, delta)-DP mechanisms is (eps_total, k delta + delta_slack)-DP,
 *   eps_total = sqrt(2 k ln(1/delta_slack)) eps + k eps (e^eps - 1).
 * eps >= 0, delta in [0, 1], k >= 1, delta_slack in (0, 1). delta_total is capped at 1;
 * eps_total may be +inf when it overflows (never NaN). */
int dp_composition_advanced(double eps, double delta, long k, double delta_slack,
                            double *eps_total, double *delta_total, dp_err *err);

/* Lecture15 Lemma 15.2: for a target (eps, delta) with 0 < eps < 1 and 0 < delta < 1
 * over k mechanisms, each may be (eps_step, delta_step)-DP with
 *   eps_step = eps / (2 sqrt(2 k ln(2/delta))),  delta_step = delta / (2 k).
 * The notes print the result as "(eps, k delta_step + delta)"; composed by the theorem
 * above with slack delta/2 it is in fact (eps, delta): k delta_step = delta/2, and the
 * second term k eps'(e^eps' - 1) <= eps/2 needs eps < 1. eps >= 1 is DP_EPRIVACY. */
int dp_composition_advanced_per_step(double eps, double delta, long k, double *eps_step,
                                     double *delta_step, dp_err *err);

/* Amplification by subsampling (Lecture15 Lemma 15.4: a uniformly random subset of
 * m <= n records, q = m/n; the notes add that the same holds for Poisson sampling at
 * rate q): an (eps, delta)-DP mechanism run on the subsample is (eps', delta')-DP with
 *   eps' = ln(1 + q (e^eps - 1)),  delta' = q delta.
 * eps >= 0 (may be +inf: then eps' = inf), delta in [0, 1], q in (0, 1]. */
int dp_composition_subsample(double eps, double delta, double q, double *eps_out,
                             double *delta_out, dp_err *err);

/* The `advanced` (advanced = 1) and `basic` (advanced = 0) accountants of accountant.h:
 * an upper bound on eps for (eps, delta)-DP of `steps` releases of the Gaussian
 * mechanism with noise multiplier sigma (sensitivity 1) on a subsample of rate q.
 *
 * Method. Per step: the exact analytic-Gaussian eps0 at a per-step delta0
 * (dp_mech_gaussian_epsilon_analytic), amplified by q (dp_composition_subsample) to
 * (eps1, q delta0); then composed over `steps`:
 *   basic:    eps = steps eps1, with all of delta spent per step: delta0 = delta/(steps q)
 *             (eps0 decreases in delta0, so this is optimal);
 *   advanced: eps = sqrt(2 steps ln(1/delta')) eps1 + steps eps1 (e^eps1 - 1), with
 *             delta = steps q delta0 + delta'. The split f = steps q delta0 / delta is
 *             searched over logit(f) in [-40, 40]: a grid of step 2 locates the best
 *             cell, golden-section search refines it to 1e-7 in logit(f). Every split is
 *             a valid guarantee, so the eps returned (the one evaluated at the split
 *             found) is an upper bound whether or not the search hit the true optimum.
 * Advanced is not clamped by basic (each is its own analysis; for a few steps basic is
 * the smaller one). eps may be +inf (status 0) when eps0 overflows; never NaN.
 * eps_step and delta_step (each may be NULL) receive the per-step (eps1, q delta0) that
 * was composed. Domains: q in (0, 1], sigma > 0 finite, steps >= 1, delta in (0, 1);
 * violations are DP_EINVAL naming the parameter. */
int dp_composition_schedule_epsilon(int advanced, double q, double sigma, long steps,
                                    double delta, double *eps, double *eps_step,
                                    double *delta_step, dp_err *err);

#endif
