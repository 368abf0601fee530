/* pate_aggregate.h: PATE's aggregators, the mechanisms that turn the teachers' votes on one
 * public example into a label (or no label) privately. pate.h accounts for them.
 *
 *   LNMax           Papernot et al. 2017 (arXiv:1610.05755) eq. 1: argmax_j n_j + Lap(lambda)
 *                   (lambda = 1/gamma; a query is (2 / lambda)-DP).
 *   GNMax           Papernot et al. 2018 (arXiv:1802.08908) §4.1: argmax_j n_j + N(0, sigma^2).
 *   Confident-GNMax Papernot et al. 2018 Alg. 1: answer only when
 *                   max_j n_j + N(0, sigma1^2) >= T, then GNMax with sigma2.
 *   PTR             Lecture15 §15.5.1 (propose-test-release, Dwork & Roth 2014 §7.3):
 *                   the mode's distance to instability d (how many teachers must change
 *                   their vote before one change can move the mode: max(0, ceil(g/2) - 1)
 *                   for a gap g between the two largest counts) is tested privately, and
 *                   the mode itself released when d + Lap(1/eps) > ln(1/delta) / eps;
 *                   (eps, delta)-DP per query.
 * A teacher's vote is what one private example can change (the example sits in one
 * teacher's part): one vote moves from one class to another.
 * Noise comes through a dp_noise (noise_source.h): seeded, or secure.
 */
#ifndef DPERM_PATE_AGGREGATE_H
#define DPERM_PATE_AGGREGATE_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/base/noise_source.h"

typedef enum {
    DP_PATE_LNMAX = 1,
    DP_PATE_GNMAX = 2,
    DP_PATE_CONFIDENT_GNMAX = 3,
    DP_PATE_PTR = 4
} dp_pate_aggregator;

typedef struct dp_pate_cfg {
    dp_pate_aggregator kind;
    double lambda;          /* LNMax: the Laplace scale, > 0 */
    double sigma;           /* GNMax: sigma; Confident-GNMax: sigma2 (the answer), > 0 */
    double threshold;       /* Confident-GNMax: T */
    double sigma1;          /* Confident-GNMax: the test's sigma, > 0 */
    double eps, delta;      /* PTR: the test's (eps, delta), eps > 0, delta in (0, 1) */
} dp_pate_cfg;

/* DP_EINVAL naming the setting that the aggregator of c cannot use, else 0. */
int dp_pate_cfg_check(const dp_pate_cfg *c, dp_err *err);

/* Answer one query: votes[0..k) are the teachers' counts per class (k >= 2). *label is
 * the released class, or -1 when the query is not answered (Confident-GNMax's test or
 * PTR's refused). work holds k doubles. 0, or dp_noise_check's DP_EIO (a secure draw
 * failed: nothing may be released). */
int dp_pate_answer(const dp_pate_cfg *c, const double *votes, size_t k, dp_noise *noise,
                   double *work, int *label, dp_err *err);

/* PTR's distance to instability of the mode of votes[0..k): max(0, ceil(g/2) - 1), g the
 * gap between the largest and the second largest count. */
double dp_pate_ptr_distance(const double *votes, size_t k);

#endif
