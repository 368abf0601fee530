/* audit_bound.h: the statistics of an empirical privacy audit: from the outputs of a
 * mechanism run many times on two neighbouring data sets (without and with a canary), a
 * lower bound on the epsilon it really has, holding with a stated confidence.
 *
 * Jagielski, Ullman, Oprea 2020 ("Auditing differentially private machine learning: how
 * private is private SGD?", Alg. 2 and Thm 1) and Nasr et al. 2021 ("Adversary
 * instantiation", §3): any test T with false-positive rate FPR and false-negative rate
 * FNR against an (eps, delta)-DP mechanism satisfies
 *     FPR + e^eps FNR >= 1 - delta   and   FNR + e^eps FPR >= 1 - delta,
 * so eps >= max(ln((1 - delta - FNR) / FPR), ln((1 - delta - FPR) / FNR)). With exact
 * (Clopper-Pearson) upper confidence bounds on both rates in place of the rates, the
 * bound holds with the confidence of the rates (Bonferroni: alpha / 2 each).
 *
 * Pure functions of counts and samples: no model, no I/O.
 */
#ifndef DPERM_AUDIT_BOUND_H
#define DPERM_AUDIT_BOUND_H

#include <stddef.h>

#include "algorithms/base/err.h"

/* P(X <= k) for X ~ Binomial(n, p), summed term by term in log space over the shorter
 * tail (exact to rounding for any n this project uses). p outside [0, 1] is clamped;
 * k < 0 gives 0, k >= n gives 1. Cannot fail. */
double dp_audit_binom_cdf(long k, long n, double p);

/* One-sided Clopper-Pearson upper bound at confidence 1 - alpha on the success
 * probability behind k successes in n trials: the p with P(Bin(n, p) <= k) = alpha
 * (1 when k = n), found by bisection to 1e-14; equal to the beta quantile
 * Beta^{-1}(1 - alpha; k + 1, n - k). Returns 0, or DP_EINVAL (n < 1, k outside 0..n,
 * alpha outside (0, 1)); *upper untouched on error. */
int dp_audit_cp_upper(long k, long n, double alpha, double *upper, dp_err *err);

/* The epsilon lower bound implied by (upper bounds on) the two error rates of one test
 * against an (eps, delta) mechanism: max(0, ln((1 - delta - fnr) / fpr),
 * ln((1 - delta - fpr) / fnr)), a term dropped when its numerator is <= 0; a zero rate
 * with a positive numerator gives INFINITY. Cannot fail. */
double dp_audit_eps_from_rates(double fpr, double fnr, double delta);

/* One audit's verdict: the test "canary present when stat > threshold". */
typedef struct dp_audit_bound {
    double threshold;
    long n_out, n_in;       /* evaluation trials without / with the canary */
    long false_pos;         /* outputs without the canary above the threshold */
    long false_neg;         /* outputs with the canary at or below it */
    double fpr, fnr;        /* the empirical rates */
    double fpr_upper, fnr_upper; /* Clopper-Pearson upper bounds, alpha / 2 each */
    double eps_lower;       /* dp_audit_eps_from_rates of the upper bounds */
} dp_audit_bound;

/* The rates and bound of the test at `threshold` on samples out (n_out outputs without
 * the canary) and in (n_in with it), confidence 1 - alpha shared by the two rates.
 * 0 or DP_EINVAL (an empty sample, alpha or delta outside (0, 1)). */
int dp_audit_evaluate(const double *out, size_t n_out, const double *in, size_t n_in,
                      double threshold, double delta, double alpha, dp_audit_bound *b,
                      dp_err *err);

/* The threshold whose test gives the largest bound on these samples (the rates'
 * Clopper-Pearson bounds at alpha included, so that a threshold resting on a handful of
 * trials is not preferred). Candidates: every midpoint between consecutive distinct
 * values of the pooled sample (each count's bound computed once). The samples are not
 * modified. For a valid bound, choose the threshold on one set of trials and
 * evaluate it (dp_audit_evaluate) on another. 0, DP_EINVAL as dp_audit_evaluate, or
 * DP_ENOMEM. */
int dp_audit_select_threshold(const double *out, size_t n_out, const double *in, size_t n_in,
                              double delta, double alpha, double *threshold, dp_err *err);

#endif
