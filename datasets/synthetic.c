/* synthetic.c: a seeded, linearly separable classification generator (dataset.h).
 *
 * Used for tests and quick benchmarks where the answer is known: the clean data are
 * separable by the generating vectors with the requested margin, every ||x|| <= 1 (the
 * data space of the convex DP-ERM analyses is the unit ball: InputPert §3),
 * and the numbers depend only on the parameters.
 *
 * Construction, all from stream DP_STREAM_DATA of p->seed, in this order:
 *   1. K unit vectors w_k (K = n_classes; K = 1 for binary): normalized Gaussian vectors,
 *      i.e. uniform directions.
 *   2. Candidate points uniform in the unit ball: a uniform direction (normalized
 *      Gaussian) times radius U^(1/d), since the volume within radius r is r^d.
 *      Label = argmax_k w_k . x (first index on ties); binary: 1 iff w . x > offset (0 by
 *      default; an offset makes class 1 the minority, as imbalanced real data are).
 *      Score gap: binary |w . x| (the distance to the separating hyperplane, as ||w|| = 1);
 *      multiclass: best score minus the runner-up. Candidates with gap < margin are
 *      rejected, as are the (rounding-only) candidates whose computed norm exceeds 1.
 *   3. Label noise in a second pass over the accepted points: with probability
 *      label_noise a label is replaced by a uniform class (possibly the same one). Being
 *      a separate pass, the features do not change when only label_noise does.
 * Hopeless margins: in d dimensions most of the ball lies within ~1/sqrt(d) of any
 * hyperplane, so a large margin in large d accepts almost nothing. The generator gives up
 * with DP_EINVAL after 1000 n candidates, or after 10^5 candidates with none accepted
 * (acceptance below 1/1000 is then all but certain: (1 - 1/1000)^(10^5) ~ e^-100).
 */
#include "datasets/dataset.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"

#define ATTEMPTS_PER_POINT 1000
#define EARLY_GIVE_UP 100000

static int check_params(const dp_synthetic_params *p, dp_err *err)
{
    if (p->n < 1) return dp_err_set(err, DP_EINVAL, "dataset.n must be >= 1, got 0");
    if (p->d < 1) return dp_err_set(err, DP_EINVAL, "dataset.d must be >= 1, got 0");
    if (p->n_classes < 2)
        return dp_err_set(err, DP_EINVAL, "dataset.classes %d must be >= 2", p->n_classes);
    if (!(p->margin >= 0.0 && p->margin < 1.0))
        return dp_err_set(err, DP_EINVAL, "dataset.margin %g is outside [0, 1)", p->margin);
    if (!(p->offset >= 0.0 && p->offset < 1.0))
        return dp_err_set(err, DP_EINVAL, "dataset.offset %g is outside [0, 1)", p->offset);
    if (p->offset > 0.0 && p->n_classes != 2)
        return dp_err_set(err, DP_EINVAL, "dataset.offset applies to binary data (classes 2), "
                          "not to %d classes", p->n_classes);
    if (!(p->label_noise >= 0.0 && p->label_noise <= 0.5))
        return dp_err_set(err, DP_EINVAL, "dataset.label_noise %g is outside [0, 0.5]",
                          p->label_noise);
    if (p->n > SIZE_MAX / sizeof(double) / p->d)
        return dp_err_set(err, DP_EINVAL, "dataset.n x dataset.d = %zu x %zu is too large",
                          p->n, p->d);
    return DP_OK;
}

/* v (d) = a uniformly random unit vector. */
static void unit_vector(dp_rng *r, double *v, size_t d)
{
    double nrm;
    do {
        for (size_t i = 0; i < d; i++) v[i] = dp_rng_gaussian(r);
        nrm = dp_nrm2(v, d);
    } while (!(nrm > 0.0)); /* an all-zero draw has probability 0; redraw rather than divide */
    dp_scal(v, 1.0 / nrm, d);
}

/* Label of x under W (K, d), and its score gap (see the header comment). */
static int label_of(const double *W, int K, double offset, const double *x, size_t d,
                    double *gap)
{
    if (K == 1) {
        double s = dp_dot(W, x, d) - offset;
        *gap = fabs(s);
        return s > 0.0 ? 1 : 0;
    }
    int best = 0;
    double s_best = dp_dot(W, x, d), s_second = -INFINITY;
    for (int k = 1; k < K; k++) {
        double s = dp_dot(W + (size_t)k * d, x, d);
        if (s > s_best) {
            s_second = s_best;
            s_best = s;
            best = k;
        } else if (s > s_second) {
            s_second = s;
        }
    }
    *gap = s_best - s_second;
    return best;
}

int dp_synthetic_make(dp_dataset *out, const dp_synthetic_params *p, dp_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_params(p, err);
    if (rc != DP_OK) return rc;

    size_t n = p->n, d = p->d;
    int K = p->n_classes == 2 ? 1 : p->n_classes;
    double *W = malloc((size_t)K * d * sizeof *W);
    double *x = malloc(n * d * sizeof *x);
    int *y = malloc(n * sizeof *y);
    if (!W || !x || !y) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for a %zu x %zu synthetic dataset", n, d);
        goto fail;
    }

    dp_rng rng;
    dp_rng_init(&rng, p->seed, DP_STREAM_DATA);
    for (int k = 0; k < K; k++) unit_vector(&rng, W + (size_t)k * d, d);

    uint64_t budget = n > UINT64_MAX / ATTEMPTS_PER_POINT ? UINT64_MAX
                                                          : (uint64_t)n * ATTEMPTS_PER_POINT;
    uint64_t attempts = 0;
    size_t accepted = 0;
    double inv_d = 1.0 / (double)d;
    while (accepted < n) {
        if (attempts >= budget || (attempts >= EARLY_GIVE_UP && accepted == 0)) {
            rc = dp_err_set(err, DP_EINVAL,
                            "dataset.margin %g is too large for d = %zu: only %zu of %llu "
                            "candidate points had a score gap >= %g",
                            p->margin, d, accepted, (unsigned long long)attempts, p->margin);
            dp_err_hint(err, "lower dataset.margin: in %zu dimensions most of the unit ball "
                             "lies within about %.3g of a hyperplane through 0",
                        d, 1.0 / sqrt((double)d));
            goto fail;
        }
        attempts++;
        double *row = x + accepted * d;
        unit_vector(&rng, row, d);
        dp_scal(row, pow(dp_rng_uniform(&rng), inv_d), d);
        if (dp_nrm2(row, d) > 1.0) continue;
        double gap;
        int label = label_of(W, K, p->offset, row, d, &gap);
        if (gap < p->margin) continue;
        y[accepted++] = label;
    }

    if (p->label_noise > 0.0)
        for (size_t i = 0; i < n; i++)
            if (dp_rng_uniform(&rng) < p->label_noise)
                y[i] = (int)dp_rng_below(&rng, (uint64_t)p->n_classes);

    free(W);
    snprintf(out->name, sizeof out->name, "synthetic");
    out->n = n;
    out->d = d;
    out->n_classes = p->n_classes;
    out->x = x;
    out->y = y;
    return DP_OK;

fail:
    free(W);
    free(x);
    free(y);
    return rc;
}
