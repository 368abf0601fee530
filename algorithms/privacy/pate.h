/* pate.h: the privacy analysis of PATE's aggregators (private aggregation of teacher
 * ensembles): the Renyi-DP of one answered query, data-independent and data-dependent.
 *
 * Sources:
 *   Papernot, Abadi, Erlingsson, Goodfellow, Talwar 2017, "Semi-supervised knowledge
 *     transfer for deep learning from private training data" (ICLR; arXiv:1610.05755):
 *     LNMax, Laplace noise of scale lambda = 1/gamma on the vote counts, a query
 *     (2 gamma)-DP; its Theorem 3 bounds the moments of a query whose non-argmax outcome
 *     has probability at most q (Lemma 4: the union bound of q).
 *   Papernot, Song, Mironov, Raghunathan, Talwar, Erlingsson 2018, "Scalable private
 *     learning with PATE" (ICLR; arXiv:1802.08908): GNMax, Gaussian noise N(0, sigma^2)
 *     on the counts; Proposition 7 (q by the union bound), Proposition 8 (the
 *     data-independent RDP lambda / sigma^2), Theorem 6 with Proposition 10's orders mu1,
 *     mu2 (the data-dependent RDP from q), and Confident-GNMax's threshold test
 *     max_j n_j + N(0, sigma1^2) >= T, whose input has sensitivity 1 (half of GNMax's
 *     histogram, hence the sqrt 2 on sigma1).
 * These functions follow the paper's equations as the authors' code evaluates them
 * (research/pate_2018/core.py of TensorFlow Privacy), whose values the tests compare
 * with (tests/fixtures/pate/reference.json, tests/unit/test_pate_rdp.c).
 *
 * A data-dependent bound is a function of the votes, so releasing it (or a stopping
 * decision made from it) is itself a disclosure; dperm reports it as such, with the
 * data-independent bound beside it, unless it is released privately (smooth
 * sensitivity). RDP curves compose by addition; dp_rdp_to_epsilon (rdp.h) converts.
 * Pure functions: no I/O, no allocation.
 */
#ifndef DPERM_PATE_H
#define DPERM_PATE_H

#include <stddef.h>

#include "algorithms/base/err.h"

/* ln of an upper bound on Pr[GNMax's answer is not the plurality label] for votes
 * votes[0..k) and noise sigma: Proposition 7's union bound
 *   q <= sum_{j != j*} Pr[N(0, 2 sigma^2) >= n_j* - n_j],
 * capped at (k - 1)/k (a tie: every label as likely). k >= 2, sigma > 0. */
double dp_pate_logq_gnmax(const double *votes, size_t k, double sigma);

/* GNMax's data-independent RDP at each order (> 1): orders[i] / sigma^2 (Prop. 8). */
void dp_pate_rdp_gnmax_independent(double sigma, const double *orders, size_t n, double *rdp);

/* GNMax's RDP at each order given ln q (<= 0) from dp_pate_logq_gnmax: Theorem 6 where it
 * applies (orders below mu1 = sigma sqrt(-ln q) + 1, with mu2 = mu1 - 1 > 1 and q small
 * enough for the bound to increase in q), else the data-independent bound; never above
 * it. ln q = -inf (the answer is certain) gives 0. */
void dp_pate_rdp_gnmax(double logq, double sigma, const double *orders, size_t n,
                       double *rdp);

/* ln Pr[max_j votes_j (rounded to an integer) + N(0, sigma1^2) >= threshold]: the chance
 * that Confident-GNMax's test answers this query. */
double dp_pate_log_pr_answered(double threshold, double sigma1, const double *votes,
                               size_t k);

/* The threshold test's RDP given ln Pr[answered]: Theorem 6 for the Gaussian test of a
 * sensitivity-1 statistic (GNMax's analysis at sigma1 sqrt 2, with q the smaller of
 * Pr[answered] and Pr[not answered]); the data-independent bound orders / (2 sigma1^2)
 * where it does not apply. Every query asked pays it, answered or not. */
void dp_pate_rdp_threshold(double log_pr_answered, double sigma1, const double *orders,
                           size_t n, double *rdp);

/* orders[i] / (2 sigma1^2): the threshold test's data-independent RDP. */
void dp_pate_rdp_threshold_independent(double sigma1, const double *orders, size_t n,
                                       double *rdp);

/* ln of an upper bound on Pr[LNMax's answer is not the plurality label] for Laplace noise
 * of scale lambda: Papernot et al. 2017, Lemma 4, the union bound of
 * Pr[label j beats j*] <= (2 + g_j) / 4 exp(-g_j), g_j = (n_j* - n_j) / lambda; capped at
 * (k - 1)/k. */
double dp_pate_logq_lnmax(const double *votes, size_t k, double lambda);

/* RDP at each order of a pure eps-DP query whose non-argmax outcome has probability at
 * most q = exp(logq): Papernot et al. 2017, Theorem 3 (the data-dependent moment, where
 * q <= 1 / (e^eps + 1)), capped by eps^2 alpha / 2 (Bun & Steinke 2016) and by eps. For
 * LNMax eps = 2 / lambda. */
void dp_pate_rdp_pure_eps(double logq, double eps, const double *orders, size_t n,
                          double *rdp);

// ---- smooth sensitivity (pate_smooth.c) ------------------------------------------------
/* A data-dependent cost is released privately by adding Gaussian noise scaled by its
 * smooth sensitivity (Papernot et al. 2018, Appendices B.4 and C): the local sensitivity
 * at distance d (how much one teacher's vote, d teachers away from the actual votes, can
 * change the cost) discounted by exp(-beta d), maximized over d. */

#define DP_PATE_MAX_CLASSES 64

/* ln q0: below it GNMax's data-dependent RDP at `order` is below the data-independent
 * order / sigma^2 and Theorem 6's conditions hold; NAN when no such q exists. */
double dp_pate_logq0_gnmax(double sigma, double order);

/* Bounds on the q of a histogram one teacher's vote away from one with q (Prop. 13):
 * (k - 1)/2 erfc(erfc^-1(2q / (k - 1)) +- 1/sigma), the upper capped at 1. */
double dp_pate_q_lower_gnmax(double q, double sigma, size_t k);
double dp_pate_q_upper_gnmax(double q, double sigma, size_t k);

/* ls[d], d < teachers: an upper bound on the local sensitivity at distance d of GNMax's
 * data-dependent RDP at `order` for votes[0..k) (Algorithms 3-5). DP_EINVAL when k is
 * outside [2, DP_PATE_MAX_CLASSES] or q0 does not exist for (sigma, order); else 0. */
int dp_pate_local_sensitivity_gnmax(const double *votes, size_t k, size_t teachers,
                                    double sigma, double order, double *ls);

/* The same for Confident-GNMax's threshold test (its RDP as a function of the top vote,
 * stepped one vote at a time): ls[d], d < teachers. */
void dp_pate_local_sensitivity_threshold(const double *votes, size_t k, size_t teachers,
                                         double threshold, double sigma1, double order,
                                         double *ls);

/* max_d ls[d] exp(-beta d): the beta-smooth sensitivity from local ones. */
double dp_pate_discounted_max(double beta, const double *ls, size_t n);

/* The RDP at `order` of releasing a value plus its smooth sensitivity times N(0, sigma^2)
 * (Theorem 23, GNSS); NAN unless 1 < order < 1 / (2 beta). */
double dp_pate_rdp_gnss(double beta, double sigma, double order);

/* The same checks for callers: sigma > 0, every order > 1, k >= 2. DP_EINVAL naming the
 * parameter, else 0. */
int dp_pate_check(double sigma, const double *orders, size_t n, size_t k, dp_err *err);

#endif
