/* train.c: mini-batch SGD and DP-SGD on a linear model, with evaluation curves.
 *
 * Sources: DP-SGD of Abadi et al. 2016 (Alg. 1), as restated in Lecture15 Alg. 4 (clip each
 * per-example gradient to norm C, add Gaussian noise to the sum, divide by the lot size)
 * and DPlis Alg. 1 (Poisson sampling with rate q = L/N, noise N(0, sigma^2 C^2 I), the
 * noisy sum divided by the expected batch size L, so an empty batch is a noise-only step). Non-private SGD is
 * the same loop without clipping or noise.
 *
 * Choices made where the sources are silent:
 *   - steps per epoch = max(1, floor(n / b)) for both samplings, so an "epoch" is the
 *     same number of steps whichever sampling is used.
 *   - shuffle sampling: one permutation per epoch (stream DP_STREAM_BATCH), consecutive
 *     disjoint batches of exactly b, the n mod b leftover examples unused that epoch.
 *   - Poisson sampling: each example independently with probability q = b/n, drawn by
 *     geometric skipping (gap = floor(log U / log(1 - q)), the number of failures before
 *     the next success) instead of one uniform per example: the same distribution, at a
 *     cost proportional to the batch, not to n.
 *   - wor sampling: each step an independent uniform subset of exactly b examples, by b
 *     steps of a Fisher-Yates shuffle over an index array kept between steps (a partial
 *     shuffle of any arrangement gives a uniform subset), from DP_STREAM_BATCH.
 *   - the sum is divided by the configured b for every algorithm and sampling, so sgd and
 *     dp_sgd with sigma = 0, C = inf are bit-identical (tested).
 *   - the l2 term mu w is added after the division and is neither clipped nor noised: it
 *     does not depend on the data, so it costs no privacy (linear.h keeps it outside the
 *     per-example part; DP-LSSGD §4.1 trains an l2-regularized model without saying how).
 *   - noise N(0, sigma^2 C^2 I) as in DPlis Alg. 1 (add/remove adjacency); Lecture15
 *     Alg. 4 writes 4 sigma^2 C^2 (replace-one adjacency, sensitivity 2C). The accountant
 *     must use the same convention.
 *   - clipping is skipped entirely when C = inf (scale 1 for every example).
 *   - divergence: a step that leaves a NaN/inf in w is undone and training stops; an
 *     evaluation whose metrics are not finite (finite but enormous weights) also stops
 *     it. The final metrics are those of the last finite weights if they evaluate to
 *     finite numbers, else the last finite curve point.
 *   - evaluation: a curve point at iteration 0, after every eval_every epochs and at the
 *     end (once if the end is also a periodic point).
 *
 * Memory: every buffer is allocated once before the loop; a step allocates nothing. The
 * test-set evaluation (dp_linear_evaluate) allocates one block buffer per curve point.
 */
#include "train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/vec.h"

/* Rows per block of the full-data passes at evaluation points. */
#define EVAL_ROWS 1024

typedef struct trainer {
    dp_linear *m;
    const dp_train_cfg *cfg;
    const double *x_train;
    const int *y_train;
    size_t n_train;
    const double *x_test;
    const int *y_test;
    size_t n_test;
    size_t d, P;    /* features; parameters k (d+1) */
    int k;          /* residual columns */
    size_t chunk;   /* rows gathered per GEMM in a step: b */
    int clipping;   /* dp_sgd with a finite C */
    double noise_std;
    /* buffers, allocated once */
    size_t *idx;    /* (n_train) epoch permutation, or the Poisson batch's indices */
    int *yb;        /* (chunk) labels of the gathered rows */
    double *mem;    /* the one double allocation the pointers below point into */
    double *xb;     /* (chunk, d) gathered rows */
    double *R;      /* (max(chunk, EVAL_ROWS), k) residuals */
    double *ws;     /* (max(chunk, EVAL_ROWS), k) scaled residuals */
    double *scale;  /* (chunk) per-example clip factors */
    double *g;      /* (P) gradient sum of a step, or full-batch gradient at evaluation */
    double *w_prev; /* (P) weights before the current step, restored on divergence */
} trainer;

// ---- validation -------------------------------------------------------------------------

static int check_labels(const int *y, size_t n, int n_classes, const char *which,
                        dp_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= n_classes)
            return dp_err_set(err, DP_EINVAL, "%s label y[%zu] = %d is outside [0, %d)",
                              which, i, y[i], n_classes);
    return DP_OK;
}

static int validate(const dp_linear *m, const dp_train_cfg *c, const double *x_train,
                    const int *y_train, size_t n_train, const double *x_test,
                    const int *y_test, size_t n_test, dp_err *err)
{
    if (!m || !m->w || m->n_params == 0)
        return dp_err_set(err, DP_EINVAL, "model is not initialized");
    if (!dp_all_finite(m->w, m->n_params))
        return dp_err_set(err, DP_EINVAL, "the model's initial weights are not finite");
    if (c->algorithm != DP_ALGO_SGD && c->algorithm != DP_ALGO_DP_SGD)
        return dp_err_set(err, DP_EINVAL, "algorithm.name: unknown algorithm %d",
                          (int)c->algorithm);
    if (n_train == 0 || !x_train || !y_train)
        return dp_err_set(err, DP_EINVAL, "the training set is empty");
    if (n_test == 0 || !x_test || !y_test)
        return dp_err_set(err, DP_EINVAL, "the test set is empty (need at least 1 example)");
    if (c->epochs < 1)
        return dp_err_set(err, DP_EINVAL, "train.epochs %d must be >= 1", c->epochs);
    if (c->batch_size < 1)
        return dp_err_set(err, DP_EINVAL, "train.batch_size must be >= 1");
    if (c->batch_size > n_train)
        return dp_err_set(err, DP_EINVAL,
                          "train.batch_size %zu exceeds the %zu training examples",
                          c->batch_size, n_train);
    if (c->sampling != DP_SAMPLING_SHUFFLE && c->sampling != DP_SAMPLING_POISSON &&
        c->sampling != DP_SAMPLING_WOR)
        return dp_err_set(err, DP_EINVAL, "train.sampling: unknown sampling %d",
                          (int)c->sampling);
    switch (c->lr_schedule) {
    case DP_LR_CONSTANT:
        if (!(c->lr > 0.0) || !isfinite(c->lr))
            return dp_err_set(err, DP_EINVAL, "train.lr.value %g must be finite and > 0",
                              c->lr);
        break;
    case DP_LR_INVERSE_T:
        if (!(c->lr_a > 0.0) || !isfinite(c->lr_a))
            return dp_err_set(err, DP_EINVAL, "train.lr.a %g must be finite and > 0",
                              c->lr_a);
        break;
    case DP_LR_STEP:
        if (!(c->lr > 0.0) || !isfinite(c->lr))
            return dp_err_set(err, DP_EINVAL, "train.lr.value %g must be finite and > 0",
                              c->lr);
        if (c->lr_step_at < 1)
            return dp_err_set(err, DP_EINVAL, "train.lr.step_at %ld must be >= 1",
                              c->lr_step_at);
        if (!(c->lr_step_factor > 0.0) || !isfinite(c->lr_step_factor))
            return dp_err_set(err, DP_EINVAL, "train.lr.factor %g must be finite and > 0",
                              c->lr_step_factor);
        break;
    default:
        return dp_err_set(err, DP_EINVAL, "train.lr.schedule: unknown schedule %d",
                          (int)c->lr_schedule);
    }
    if (c->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "train.eval_every %d must be >= 1", c->eval_every);
    if (c->algorithm == DP_ALGO_DP_SGD) {
        /* C = +inf is allowed (no clipping); NaN fails the comparison. */
        if (!(c->clip > 0.0))
            return dp_err_set(err, DP_EINVAL, "algorithm.clip %g must be > 0", c->clip);
        if (!(c->noise_multiplier >= 0.0) || !isfinite(c->noise_multiplier))
            return dp_err_set(err, DP_EINVAL,
                              "algorithm.noise_multiplier %g must be finite and >= 0",
                              c->noise_multiplier);
        if (c->noise_multiplier > 0.0 && !isfinite(c->clip))
            return dp_err_set(err, DP_EINVAL,
                              "algorithm.noise_multiplier %g > 0 needs a finite "
                              "algorithm.clip (the noise std is sigma * C)",
                              c->noise_multiplier);
    }
    int rc = check_labels(y_train, n_train, m->n_classes, "training", err);
    if (rc == DP_OK) rc = check_labels(y_test, n_test, m->n_classes, "test", err);
    return rc;
}

// ---- set-up -----------------------------------------------------------------------------

static int trainer_alloc(trainer *t, dp_err *err)
{
    size_t d = t->d, P = t->P, kk = (size_t)t->k, chunk = t->chunk;
    size_t rrows = chunk > EVAL_ROWS ? chunk : EVAL_ROWS;
    size_t n_xb = chunk * d, n_R = rrows * kk;
    size_t total = n_xb + 2 * n_R + chunk + 2 * P;
    t->idx = malloc(t->n_train * sizeof *t->idx);
    t->yb = malloc(chunk * sizeof *t->yb);
    t->mem = malloc(total * sizeof *t->mem);
    if (!t->idx || !t->yb || !t->mem) {
        free(t->idx);
        free(t->yb);
        free(t->mem);
        t->idx = NULL;
        t->yb = NULL;
        t->mem = NULL;
        return dp_err_set(err, DP_ENOMEM, "out of memory for training buffers (%zu doubles)",
                          total);
    }
    double *p = t->mem;
    t->xb = p, p += n_xb;
    t->R = p, p += n_R;
    t->ws = p, p += n_R;
    t->scale = p, p += chunk;
    t->g = p, p += P;
    t->w_prev = p;
    return DP_OK;
}

static void trainer_free(trainer *t)
{
    free(t->idx);
    free(t->yb);
    free(t->mem);
}

// ---- evaluation -------------------------------------------------------------------------

/* Fill pt with the metrics of the current weights after `iteration` steps. Uses t->g as
 * scratch for the full-batch gradient. Returns 0 or DP_ENOMEM. */
static int evaluate(trainer *t, long iteration, dp_curve_point *pt, dp_err *err)
{
    const dp_linear *m = t->m;
    size_t n = t->n_train, d = t->d, P = t->P;
    memset(t->g, 0, P * sizeof *t->g);
    double loss = 0.0;
    for (size_t start = 0; start < n; start += EVAL_ROWS) {
        size_t nb = n - start < EVAL_ROWS ? n - start : EVAL_ROWS;
        const double *xb = t->x_train + start * d;
        loss += dp_linear_residuals(m, xb, t->y_train + start, nb, t->R);
        dp_linear_grad_accumulate(t->g, xb, t->R, NULL, nb, d, t->k, t->ws);
    }
    /* Regularized objective F(w) = mean loss + mu/2 ||w||^2, gradient mean + mu w. */
    double inv_n = 1.0 / (double)n, mu = m->l2, gg = 0.0;
    for (size_t j = 0; j < P; j++) {
        double gj = t->g[j] * inv_n + mu * m->w[j];
        gg += gj * gj;
    }
    pt->iteration = iteration;
    pt->epoch = (double)iteration * (double)t->cfg->batch_size / (double)n;
    pt->train_loss = loss * inv_n + 0.5 * mu * dp_dot(m->w, m->w, P);
    pt->grad_norm = sqrt(gg);
    if (dp_linear_evaluate(m, t->x_test, t->y_test, t->n_test, &pt->test_loss,
                           &pt->test_accuracy) != DP_OK)
        return dp_err_set(err, DP_ENOMEM, "out of memory evaluating the test set");
    return DP_OK;
}

static int point_finite(const dp_curve_point *p)
{
    return isfinite(p->train_loss) && isfinite(p->test_loss) && isfinite(p->test_accuracy) &&
           isfinite(p->grad_norm);
}

// ---- one step ---------------------------------------------------------------------------

static double lr_at(const dp_train_cfg *c, long t)
{
    switch (c->lr_schedule) {
    case DP_LR_INVERSE_T: return c->lr_a / (double)t;
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

/* One (DP-)SGD step on the examples batch[0..nb): w_prev = w, then
 * w -= eta ((sum_i clip(g_i) + noise) / b + mu w). */
static void sgd_step(trainer *t, const size_t *batch, size_t nb, double eta, dp_rng *noise)
{
    dp_linear *m = t->m;
    size_t d = t->d, P = t->P;
    double C = t->cfg->clip;
    memset(t->g, 0, P * sizeof *t->g);
    for (size_t c0 = 0; c0 < nb; c0 += t->chunk) {
        size_t cn = nb - c0 < t->chunk ? nb - c0 : t->chunk;
        for (size_t i = 0; i < cn; i++) {
            size_t e = batch[c0 + i];
            memcpy(t->xb + i * d, t->x_train + e * d, d * sizeof *t->xb);
            t->yb[i] = t->y_train[e];
        }
        dp_linear_residuals(m, t->xb, t->yb, cn, t->R);
        const double *scale = NULL;
        if (t->clipping) {
            /* ||g_i|| from the residual algebra: the gradients themselves never exist. */
            dp_linear_pex_sqnorms(t->scale, t->xb, t->R, cn, d, t->k);
            for (size_t i = 0; i < cn; i++) {
                double nrm = sqrt(t->scale[i]);
                t->scale[i] = nrm > C ? C / nrm : 1.0;
            }
            scale = t->scale;
        }
        dp_linear_grad_accumulate(t->g, t->xb, t->R, scale, cn, d, t->k, t->ws);
    }
    if (t->noise_std > 0.0) dp_rng_add_gaussian(noise, t->g, P, t->noise_std);

    double b = (double)t->cfg->batch_size, mu = m->l2;
    double *w = m->w;
    memcpy(t->w_prev, w, P * sizeof *w);
    for (size_t j = 0; j < P; j++) w[j] -= eta * (t->g[j] / b + mu * w[j]);
}

// ---- the loop ---------------------------------------------------------------------------

/* The curve was sized for every point the loop can add (see cap below). */
static void curve_push(dp_train_result *res, const dp_curve_point *pt)
{
    res->curve[res->n_curve++] = *pt;
}

int dp_train_linear(dp_linear *m, const dp_train_cfg *cfg, const double *x_train,
                    const int *y_train, size_t n_train, const double *x_test,
                    const int *y_test, size_t n_test, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    int rc = validate(m, cfg, x_train, y_train, n_train, x_test, y_test, n_test, err);
    if (rc != DP_OK) return rc;

    trainer t = {0};
    t.m = m;
    t.cfg = cfg;
    t.x_train = x_train;
    t.y_train = y_train;
    t.n_train = n_train;
    t.x_test = x_test;
    t.y_test = y_test;
    t.n_test = n_test;
    t.d = m->d;
    t.P = m->n_params;
    t.k = m->k;
    t.chunk = cfg->batch_size;
    int dp = cfg->algorithm == DP_ALGO_DP_SGD;
    t.clipping = dp && isfinite(cfg->clip);
    /* sigma = 0 with C = inf would give 0 * inf = NaN: no noise is no noise. */
    t.noise_std = dp && cfg->noise_multiplier > 0.0 ? cfg->noise_multiplier * cfg->clip : 0.0;
    result->noise_std = t.noise_std;

    long steps_per_epoch = (long)(n_train / cfg->batch_size);
    if (steps_per_epoch < 1) steps_per_epoch = 1;
    /* Points: iteration 0, one per eval_every epochs, the end, and a divergence point. */
    size_t cap = (size_t)(cfg->epochs / cfg->eval_every) + 3;
    result->curve = calloc(cap, sizeof *result->curve);
    if (!result->curve)
        return dp_err_set(err, DP_ENOMEM, "out of memory for %zu curve points", cap);
    if ((rc = trainer_alloc(&t, err)) != DP_OK) return rc;

    dp_rng batch_rng, noise_rng;
    dp_rng_init(&batch_rng, cfg->seed, DP_STREAM_BATCH);
    dp_rng_init(&noise_rng, cfg->seed, DP_STREAM_NOISE);
    double q = (double)cfg->batch_size / (double)n_train;

    dp_curve_point pt;
    long it = 0;           /* steps completed with finite weights */
    int step_diverged = 0; /* stopped by a non-finite step (not by a non-finite metric) */
    if ((rc = evaluate(&t, 0, &pt, err)) != DP_OK) goto fail;
    curve_push(result, &pt);
    if (!point_finite(&pt)) {
        /* Finite weights whose metrics overflow already: nothing to train from. */
        result->diverged = 1;
        goto done;
    }

    if (cfg->sampling == DP_SAMPLING_WOR)
        for (size_t i = 0; i < n_train; i++) t.idx[i] = i;
    for (int epoch = 1; epoch <= cfg->epochs; epoch++) {
        if (cfg->sampling == DP_SAMPLING_SHUFFLE) {
            for (size_t i = 0; i < n_train; i++) t.idx[i] = i;
            dp_rng_shuffle(&batch_rng, t.idx, n_train);
        }
        for (long s = 0; s < steps_per_epoch; s++) {
            const size_t *batch = t.idx;
            size_t nb;
            if (cfg->sampling == DP_SAMPLING_SHUFFLE) {
                batch = t.idx + (size_t)s * cfg->batch_size;
                nb = cfg->batch_size;
            } else if (cfg->sampling == DP_SAMPLING_WOR) {
                wor_batch(&batch_rng, t.idx, n_train, cfg->batch_size);
                nb = cfg->batch_size;
            } else {
                nb = poisson_batch(&batch_rng, t.idx, n_train, q);
            }
            sgd_step(&t, batch, nb, lr_at(cfg, it + 1), &noise_rng);
            if (!dp_all_finite(m->w, t.P)) {
                memcpy(m->w, t.w_prev, t.P * sizeof *m->w);
                step_diverged = 1;
                goto stopped;
            }
            it++;
        }
        if (epoch % cfg->eval_every == 0 || epoch == cfg->epochs) {
            if ((rc = evaluate(&t, it, &pt, err)) != DP_OK) goto fail;
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
        if ((rc = evaluate(&t, it, &pt, err)) != DP_OK) goto fail;
        if (point_finite(&pt)) curve_push(result, &pt);
    }

done:
    result->final = result->curve[result->n_curve - 1];
    trainer_free(&t);
    return DP_OK;

fail:
    trainer_free(&t);
    return rc;
}

void dp_train_result_destroy(dp_train_result *r)
{
    if (!r) return;
    free(r->curve);
    memset(r, 0, sizeof *r);
}
