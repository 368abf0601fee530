/* pate_aggregate.c: PATE's aggregators (pate_aggregate.h).
 *
 * Ties in the noisy counts go to the smallest class index, as numpy's argmax does in the
 * authors' code; with continuous noise they have probability 0. Every query draws its
 * noise for all k classes, answered or not, so the noise stream of a sequence of queries
 * does not depend on earlier answers.
 */
#include "algorithms/privacy/pate_aggregate.h"

#include <math.h>
#include <string.h>

static size_t argmax(const double *v, size_t k)
{
    size_t best = 0;
    for (size_t j = 1; j < k; j++)
        if (v[j] > v[best]) best = j;
    return best;
}

int dp_pate_cfg_check(const dp_pate_cfg *c, dp_err *err)
{
    switch (c->kind) {
    case DP_PATE_LNMAX:
        if (!(c->lambda > 0) || !isfinite(c->lambda))
            return dp_err_set(err, DP_EINVAL, "LNMax: lambda must be a finite number > 0, got %g",
                              c->lambda);
        return 0;
    case DP_PATE_CONFIDENT_GNMAX:
        if (!(c->sigma1 > 0) || !isfinite(c->sigma1))
            return dp_err_set(err, DP_EINVAL, "Confident-GNMax: sigma1 must be a finite number "
                              "> 0, got %g", c->sigma1);
        if (!isfinite(c->threshold))
            return dp_err_set(err, DP_EINVAL, "Confident-GNMax: the threshold must be finite");
        __attribute__((fallthrough)); /* sigma2 is checked as GNMax's sigma */
    case DP_PATE_GNMAX:
        if (!(c->sigma > 0) || !isfinite(c->sigma))
            return dp_err_set(err, DP_EINVAL, "GNMax: sigma must be a finite number > 0, got %g",
                              c->sigma);
        return 0;
    case DP_PATE_PTR:
        if (!(c->eps > 0) || !isfinite(c->eps))
            return dp_err_set(err, DP_EINVAL, "PTR: eps must be a finite number > 0, got %g",
                              c->eps);
        if (!(c->delta > 0 && c->delta < 1))
            return dp_err_set(err, DP_EINVAL, "PTR: delta must be in (0, 1), got %g", c->delta);
        return 0;
    }
    return dp_err_set(err, DP_EINVAL, "PATE: unknown aggregator %d", (int)c->kind);
}

double dp_pate_ptr_distance(const double *votes, size_t k)
{
    size_t top = argmax(votes, k);
    double second = -INFINITY;
    for (size_t j = 0; j < k; j++)
        if (j != top && votes[j] > second) second = votes[j];
    double d = ceil((votes[top] - second) / 2) - 1;
    return d > 0 ? d : 0;
}

int dp_pate_answer(const dp_pate_cfg *c, const double *votes, size_t k, dp_noise *noise,
                   double *work, int *label, dp_err *err)
{
    *label = -1;
    memcpy(work, votes, k * sizeof *work);
    switch (c->kind) {
    case DP_PATE_LNMAX:
        dp_noise_add_laplace(noise, work, k, c->lambda);
        *label = (int)argmax(work, k);
        break;
    case DP_PATE_GNMAX:
        dp_noise_add_gaussian(noise, work, k, c->sigma, 1);
        *label = (int)argmax(work, k);
        break;
    case DP_PATE_CONFIDENT_GNMAX: {
        double test = votes[argmax(votes, k)];
        dp_noise_add_gaussian(noise, &test, 1, c->sigma1, 1);
        dp_noise_add_gaussian(noise, work, k, c->sigma, 1);
        if (test >= c->threshold) *label = (int)argmax(work, k);
        break;
    }
    case DP_PATE_PTR: {
        double d = dp_pate_ptr_distance(votes, k);
        dp_noise_add_laplace(noise, &d, 1, 1.0 / c->eps);
        if (d > log(1.0 / c->delta) / c->eps) *label = (int)argmax(votes, k);
        break;
    }
    }
    int rc = dp_noise_check(noise, err);
    if (rc) *label = -1;
    return rc;
}
