/* train_common.c: the mini-batch SGD / DP-SGD loop shared by every trainer (train.c for
 * linear models, train_model.c for deep ones): batch sampling, learning-rate schedule,
 * evaluation curve, divergence handling and the largest per-example gradient norm. The
 * validation is train_check.c, one step's direction and update train_step.c.
 *
 * Sources: DP-SGD of Abadi et al. 2016 (Alg. 1), as restated in Lecture15 Alg. 4, and
 * DPlis Alg. 1 (Poisson sampling with rate q = L/N, the noisy sum divided by the expected
 * batch size L, so an empty batch is a noise-only step). Non-private SGD is the same loop
 * without clipping or noise. DP-LSSGD's released code (authors-code.md) for the
 * once-per-epoch a / iter_count schedule and the kept partial batch.
 *
 * Choices made where the sources are silent:
 *   - steps per epoch = max(1, floor(n / b)) for every sampling, so an "epoch" is the
 *     same number of steps whichever sampling is used; ceil(n / b) for shuffled passes
 *     whose partial batch is kept.
 *   - shuffle sampling: one permutation per epoch (stream DP_STREAM_BATCH), consecutive
 *     disjoint batches of exactly b, the n mod b leftover examples unused that epoch
 *     (partial_batch drop) or a last, smaller batch (partial_batch keep: every example
 *     exactly once per epoch, as a PyTorch DataLoader without drop_last).
 *   - Poisson sampling: each example independently with probability q = b/n, drawn by
 *     geometric skipping (gap = floor(log U / log(1 - q)), the number of failures before
 *     the next success) instead of one uniform per example: the same distribution, at a
 *     cost proportional to the batch, not to n.
 *   - wor sampling: each step an independent uniform subset of exactly b examples, by b
 *     steps of a Fisher-Yates shuffle over an index array kept between steps (a partial
 *     shuffle of any arrangement gives a uniform subset), from DP_STREAM_BATCH.
 *   - clipping is skipped entirely when C = inf, and always for sgd (ops->grad_sum is
 *     called with clip = INFINITY).
 *   - divergence: a step that leaves a NaN/inf in w is undone and training stops; an
 *     evaluation whose metrics are not finite (finite but enormous weights) also stops
 *     it. The final metrics are those of the last finite weights if they evaluate to
 *     finite numbers, else the last finite curve point.
 *   - evaluation: a curve point at iteration 0, after every eval_every epochs, after each
 *     of cfg->eval_epochs (read-outs) and at the end (once if the end is also a periodic
 *     point or a read-out). A point's epoch is iteration b / n,
 *     or iteration / steps per epoch with kept partial batches (a pass is then one epoch).
 *   - full-batch sampling (gd, dp_gd): every step uses all n examples in order, b = n, and
 *     an epoch is one step, so epochs counts the T iterations of Lecture15 Alg. 2.
 *   - schedules: constant, a/t (DP-LSSGD), step decay (x factor after step_at, DP-LSSGD
 *     §4.2: x0.1 at 10K iterations), a/sqrt(t) (Bassily et al. 2014), and a / t_0 with
 *     t_0 the first iteration of the epoch (DP-LSSGD's released code).
 *   - the largest per-example gradient norm is kept over the steps that were taken (not
 *     a step undone for divergence); the noise scale is set here, the one place
 *     DP_DEBUG_NOISE applies to the whole first-order family.
 *
 * Memory: the curve, the (n) index array and the step's buffers (train_step.c) are
 * allocated once before the loop; a step allocates nothing.
 */
#include "algorithms/train_common_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/debug_noise.h"

// ---- sampling and schedule --------------------------------------------------------------

/* The rate of iteration t (1, 2, ...) of the epoch whose first iteration is t0. */
static double lr_at(const dp_train_cfg *c, long t, long t0)
{
    switch (c->lr_schedule) {
    case DP_LR_INVERSE_T: return c->lr_a / (double)t;
    case DP_LR_INVERSE_EPOCH: return c->lr_a / (double)t0;
    case DP_LR_INVERSE_SQRT_T: return c->lr_a / sqrt((double)t);
    case DP_LR_STEP: return t > c->lr_step_at ? c->lr * c->lr_step_factor : c->lr;
    case DP_LR_CONSTANT:
    default: return c->lr;
    }
}

/* Poisson batch: indices i with independent Bernoulli(q) inclusion, in increasing order,
 * written to idx; returns how many (0 is a valid batch). Geometric skipping: the number
 * of examples skipped before the next included one is floor(log U / log(1 - q)), U in
 * (0, 1], since P(gap >= j) = P(U <= (1 - q)^j) = (1 - q)^j. */
static size_t poisson_batch(dp_rng *r, size_t *idx, size_t n, double q)
{
    if (q >= 1.0) {
        for (size_t i = 0; i < n; i++) idx[i] = i;
        return n;
    }
    double lq = log1p(-q); /* < 0 */
    size_t count = 0, i = 0;
    while (i < n) {
        double gap = floor(log(dp_rng_uniform_pos(r)) / lq);
        if (gap >= (double)(n - i)) break; /* also catches gaps beyond size_t */
        i += (size_t)gap;
        idx[count++] = i++;
    }
    return count;
}

// ---- a chunk's rows ---------------------------------------------------------------------

int dp_train_rows_consecutive(const size_t *idx, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (idx[i] != idx[0] + i) return 0;
    return n > 0;
}

void dp_train_gather_rows(double *dst, const double *x, size_t d, const size_t *idx,
                          size_t n)
{
    for (size_t i = 0; i < n; i++) memcpy(dst + i * d, x + idx[i] * d, d * sizeof *dst);
}

/* Without-replacement batch: a uniform b-subset in idx[0..b), by b Fisher-Yates steps. */
static void wor_batch(dp_rng *r, size_t *idx, size_t n, size_t b)
{
    for (size_t j = 0; j < b; j++) {
        size_t k = j + (size_t)dp_rng_below(r, n - j);
        size_t tmp = idx[j];
        idx[j] = idx[k];
        idx[k] = tmp;
    }
}

// ---- the loop ---------------------------------------------------------------------------

typedef struct loop {
    const dp_train_cfg *cfg;
    const dp_train_ops *ops;
    size_t n_train;
    long steps_per_epoch;
    int keep;         /* shuffled passes keep their partial batch */
    size_t *idx;      /* (n_train) epoch permutation, wor arrangement or Poisson batch */
    dp_train_step step; /* its g is scratch at evaluation */
} loop;

static void loop_free(loop *L)
{
    dp_train_step_destroy(&L->step);
    free(L->idx);
}

/* 1 if epoch is one of cfg's read-out epochs (a short list: a scan is enough). */
static int listed_epoch(const dp_train_cfg *cfg, int epoch)
{
    for (size_t i = 0; i < cfg->n_eval_epochs; i++)
        if (cfg->eval_epochs[i] == epoch) return 1;
    return 0;
}

/* The point after `iteration` steps: metrics from ops->evaluate, position from here. */
static int evaluate(loop *L, long iteration, dp_curve_point *pt, dp_err *err)
{
    pt->iteration = iteration;
    pt->epoch = L->keep ? (double)iteration / (double)L->steps_per_epoch
                        : (double)iteration * (double)L->cfg->batch_size / (double)L->n_train;
    return L->ops->evaluate(L->ops->ctx, dp_train_step_scratch(&L->step), pt, err);
}

static int point_finite(const dp_curve_point *p)
{
    /* a classifier reports accuracy, a regression model rmse: one of them is NaN */
    return isfinite(p->train_loss) && isfinite(p->test_loss) &&
           (isfinite(p->test_accuracy) || isfinite(p->test_rmse)) &&
           isfinite(p->grad_norm);
}

/* The curve was sized for every point the loop can add (see cap below). */
static void curve_push(dp_train_result *res, const dp_curve_point *pt)
{
    res->curve[res->n_curve++] = *pt;
}

int dp_train_run(const dp_train_cfg *cfg, size_t n_train, const dp_train_ops *ops,
                 dp_train_result *result, dp_err *err)
{
    loop L = {0};
    L.cfg = cfg;
    L.ops = ops;
    L.n_train = n_train;
    int dp = cfg->algorithm == DP_ALGO_DP_SGD;
    /* sigma = 0 with C = inf would give 0 * inf = NaN: no noise is no noise. */
    double noise_std = dp && cfg->noise_multiplier > 0.0
                           ? DP_DEBUG_NOISE(cfg->noise_multiplier * cfg->clip) : 0.0;
    result->noise_std = noise_std;

    size_t b = cfg->batch_size;
    L.keep = cfg->partial_batch == DP_PARTIAL_KEEP && cfg->sampling == DP_SAMPLING_SHUFFLE;
    L.steps_per_epoch = (long)(L.keep ? (n_train + b - 1) / b : n_train / b);
    if (L.steps_per_epoch < 1) L.steps_per_epoch = 1;
    /* Points: iteration 0, one per eval_every epochs, the end, and a divergence point. */
    size_t cap = (size_t)(cfg->epochs / cfg->eval_every) + 3 + cfg->n_eval_epochs;
    result->curve = calloc(cap, sizeof *result->curve);
    if (!result->curve)
        return dp_err_set(err, DP_ENOMEM, "out of memory for %zu curve points", cap);
    L.idx = malloc(n_train * sizeof *L.idx);
    int rc;
    if (!L.idx) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for training buffers (%zu indices)",
                        n_train);
        goto fail;
    }
    if ((rc = dp_train_step_plan(&L.step, cfg, ops, noise_std, err)) != DP_OK) goto fail;
    double max_sqnorm = L.step.track ? 0.0 : NAN;

    dp_rng batch_rng;
    dp_rng_init(&batch_rng, cfg->seed, DP_STREAM_BATCH);
    /* Seeded: stream DP_STREAM_NOISE; secure: getrandom (base/noise_source.h). */
    dp_noise noise;
    if ((rc = dp_noise_init(&noise, cfg->seed, DP_STREAM_NOISE, cfg->secure_noise, err)))
        goto fail;
    double q = (double)b / (double)n_train;

    dp_curve_point pt;
    long it = 0;           /* steps completed with finite weights */
    int step_diverged = 0; /* stopped by a non-finite step (not by a non-finite metric) */
    if ((rc = evaluate(&L, 0, &pt, err)) != DP_OK) goto fail;
    curve_push(result, &pt);
    if (!point_finite(&pt)) {
        /* Finite weights whose metrics overflow already: nothing to train from. */
        result->diverged = 1;
        goto done;
    }

    if (cfg->sampling == DP_SAMPLING_WOR || cfg->sampling == DP_SAMPLING_FULL)
        for (size_t i = 0; i < n_train; i++) L.idx[i] = i;
    int last = 0; /* the last epoch, or max_steps reached within one */
    for (int epoch = 1; epoch <= cfg->epochs && !last; epoch++) {
        if (cfg->sampling == DP_SAMPLING_SHUFFLE) {
            for (size_t i = 0; i < n_train; i++) L.idx[i] = i;
            dp_rng_shuffle(&batch_rng, L.idx, n_train);
        }
        long t0 = it + 1; /* the epoch's first iteration */
        for (long s = 0; s < L.steps_per_epoch; s++) {
            const size_t *batch = L.idx;
            size_t nb;
            if (cfg->sampling == DP_SAMPLING_SHUFFLE) {
                size_t start = (size_t)s * b;
                batch = L.idx + start;
                nb = n_train - start < b ? n_train - start : b; /* kept partial batch */
            } else if (cfg->sampling == DP_SAMPLING_WOR) {
                wor_batch(&batch_rng, L.idx, n_train, b);
                nb = b;
            } else if (cfg->sampling == DP_SAMPLING_FULL) {
                nb = n_train;
            } else {
                nb = poisson_batch(&batch_rng, L.idx, n_train, q);
            }
            dp_train_step_execute(&L.step, batch, nb, lr_at(cfg, it + 1, t0), &noise);
            /* A failed secure draw left the step without its noise: release nothing. */
            if ((rc = dp_noise_check(&noise, err)) != DP_OK) goto fail;
            if (!dp_train_step_finite(&L.step)) {
                dp_train_step_undo(&L.step);
                step_diverged = 1;
                goto stopped;
            }
            if (L.step.track && L.step.max_sqnorm > max_sqnorm) max_sqnorm = L.step.max_sqnorm;
            it++;
            if (cfg->max_steps > 0 && it >= cfg->max_steps) break;
        }
        last = epoch == cfg->epochs || (cfg->max_steps > 0 && it >= cfg->max_steps);
        if (epoch % cfg->eval_every == 0 || last || listed_epoch(cfg, epoch)) {
            if ((rc = evaluate(&L, it, &pt, err)) != DP_OK) goto fail;
            if (!point_finite(&pt)) goto stopped;
            curve_push(result, &pt);
        }
    }
    result->iterations = it;
    goto done;

stopped:
    result->diverged = 1;
    result->iterations = it;
    /* After a failed step the weights are the last finite ones: their metrics become the
     * final point if they are finite and not already the last curve point. */
    if (step_diverged && result->curve[result->n_curve - 1].iteration != it) {
        if ((rc = evaluate(&L, it, &pt, err)) != DP_OK) goto fail;
        if (point_finite(&pt)) curve_push(result, &pt);
    }

done:
    result->final = result->curve[result->n_curve - 1];
    result->max_example_grad_norm = sqrt(max_sqnorm);
    loop_free(&L);
    return DP_OK;

fail:
    loop_free(&L);
    return rc;
}
