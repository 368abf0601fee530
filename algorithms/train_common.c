/* train_common.c: the mini-batch SGD / DP-SGD loop shared by every trainer (train.c for
 * linear models, train_model.c for deep ones): validation, batch sampling, learning-rate
 * schedule, noise, update, evaluation curve and divergence handling.
 *
 * Sources: DP-SGD of Abadi et al. 2016 (Alg. 1), as restated in Lecture15 Alg. 4 (clip each
 * per-example gradient to norm C, add Gaussian noise to the sum, divide by the lot size)
 * and DPlis Alg. 1 (Poisson sampling with rate q = L/N, noise N(0, sigma^2 C^2 I), the
 * noisy sum divided by the expected batch size L, so an empty batch is a noise-only
 * step). Non-private SGD is the same loop without clipping or noise.
 *
 * Choices made where the sources are silent:
 *   - steps per epoch = max(1, floor(n / b)) for every sampling, so an "epoch" is the
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
 *     does not depend on the data, so it costs no privacy (DP-LSSGD §4.1 trains an
 *     l2-regularized model without saying how).
 *   - noise N(0, sigma^2 C^2 I) as in DPlis Alg. 1 (add/remove adjacency); Lecture15
 *     Alg. 4 writes 4 sigma^2 C^2 (replace-one adjacency, sensitivity 2C). The accountant
 *     must use the same convention.
 *   - clipping is skipped entirely when C = inf, and always for sgd (ops->grad_sum is
 *     called with clip = INFINITY).
 *   - divergence: a step that leaves a NaN/inf in w is undone and training stops; an
 *     evaluation whose metrics are not finite (finite but enormous weights) also stops
 *     it. The final metrics are those of the last finite weights if they evaluate to
 *     finite numbers, else the last finite curve point.
 *   - evaluation: a curve point at iteration 0, after every eval_every epochs and at the
 *     end (once if the end is also a periodic point).
 *   - full-batch sampling (gd, dp_gd): every step uses all n examples in order, b = n, and
 *     an epoch is one step, so epochs counts the T iterations of Lecture15 Alg. 2.
 *   - DP-LSSGD (eq. 4) smooths the whole privatized direction, l2 term included (its f_i
 *     are the regularized per-example objectives), one parameter tensor at a time
 *     (flattened, as its TensorFlow implementation does for multi-layer models); a linear
 *     model is one tensor W (k x (d + 1), row-major, biases last in each row).
 *   - Adam: Kingma & Ba 2014 Alg. 1 on the (privatized, possibly smoothed) direction, with
 *     bias-corrected moments m_t / (1 - beta1^t), v_t / (1 - beta2^t) and eps added to
 *     sqrt(v_hat); DP-Adam is Adam on the DP-SGD direction (TF Privacy's DPAdamOptimizer),
 *     DP-LSAdam on the smoothed one (DP-LSSGD §4.2). The l2 term is part of the direction.
 *   - schedules: constant, a/t (DP-LSSGD), step decay (x factor after step_at, DP-LSSGD
 *     §4.2: x0.1 at 10K iterations) and a/sqrt(t) (Bassily et al. 2014).
 *
 * Memory: the curve, the (n) index array and the (n_params) gradient and previous-weights
 * buffers are allocated once before the loop; a step allocates nothing.
 */
#include "train_common_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/noise_source.h"
#include "base/rng.h"
#include "base/vec.h"
#include "debug_noise.h"
#include "smoothing.h"

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

int dp_train_check(const dp_train_cfg *c, int n_classes, const double *x_train,
                   const int *y_train, size_t n_train, const double *x_test,
                   const int *y_test, size_t n_test, dp_err *err)
{
    if (c->algorithm != DP_ALGO_SGD && c->algorithm != DP_ALGO_DP_SGD)
        return dp_err_set(err, DP_EINVAL, "algorithm.name: unknown algorithm %d",
                          (int)c->algorithm);
    /* n_classes = 0: a regression model, whose caller checks its real targets */
    if (n_train == 0 || !x_train || (n_classes > 0 && !y_train))
        return dp_err_set(err, DP_EINVAL, "the training set is empty");
    if (n_test == 0 || !x_test || (n_classes > 0 && !y_test))
        return dp_err_set(err, DP_EINVAL, "the test set is empty (need at least 1 example)");
    if (c->epochs < 1)
        return dp_err_set(err, DP_EINVAL, "train.epochs %d must be >= 1", c->epochs);
    if (c->max_steps < 0)
        return dp_err_set(err, DP_EINVAL, "max_steps %ld must be >= 0", c->max_steps);
    if (c->batch_size < 1)
        return dp_err_set(err, DP_EINVAL, "train.batch_size must be >= 1");
    if (c->batch_size > n_train)
        return dp_err_set(err, DP_EINVAL,
                          "train.batch_size %zu exceeds the %zu training examples",
                          c->batch_size, n_train);
    if (c->sampling != DP_SAMPLING_SHUFFLE && c->sampling != DP_SAMPLING_POISSON &&
        c->sampling != DP_SAMPLING_WOR && c->sampling != DP_SAMPLING_FULL)
        return dp_err_set(err, DP_EINVAL, "train.sampling: unknown sampling %d",
                          (int)c->sampling);
    if (c->sampling == DP_SAMPLING_FULL && c->batch_size != n_train)
        return dp_err_set(err, DP_EINVAL, "full-batch training needs train.batch_size = the "
                          "%zu training examples, got %zu", n_train, c->batch_size);
    if (c->update != DP_UPDATE_SGD && c->update != DP_UPDATE_ADAM)
        return dp_err_set(err, DP_EINVAL, "unknown update rule %d", (int)c->update);
    if (c->update == DP_UPDATE_ADAM) {
        if (!(c->adam_beta1 >= 0.0 && c->adam_beta1 < 1.0))
            return dp_err_set(err, DP_EINVAL, "algorithm.beta1 %g must be in [0, 1)",
                              c->adam_beta1);
        if (!(c->adam_beta2 >= 0.0 && c->adam_beta2 < 1.0))
            return dp_err_set(err, DP_EINVAL, "algorithm.beta2 %g must be in [0, 1)",
                              c->adam_beta2);
        if (!(c->adam_eps > 0.0) || !isfinite(c->adam_eps))
            return dp_err_set(err, DP_EINVAL, "algorithm.adam_eps %g must be finite and > 0",
                              c->adam_eps);
    }
    if (!(c->smoothing >= 0.0) || !isfinite(c->smoothing))
        return dp_err_set(err, DP_EINVAL, "algorithm.smoothing %g must be finite and >= 0",
                          c->smoothing);
    if (c->dplis_samples < 0 || c->dplis_samples > DP_DPLIS_MAX_SAMPLES)
        return dp_err_set(err, DP_EINVAL, "algorithm.samples %d must be in 0..%d",
                          c->dplis_samples, DP_DPLIS_MAX_SAMPLES);
    if (!(c->dplis_radius >= 0.0) || !isfinite(c->dplis_radius))
        return dp_err_set(err, DP_EINVAL, "algorithm.radius %g must be finite and >= 0",
                          c->dplis_radius);
    switch (c->lr_schedule) {
    case DP_LR_CONSTANT:
        if (!(c->lr > 0.0) || !isfinite(c->lr))
            return dp_err_set(err, DP_EINVAL, "train.lr.value %g must be finite and > 0",
                              c->lr);
        break;
    case DP_LR_INVERSE_T:
    case DP_LR_INVERSE_SQRT_T:
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
    if (n_classes == 0) return DP_OK;
    int rc = check_labels(y_train, n_train, n_classes, "training", err);
    if (rc == DP_OK) rc = check_labels(y_test, n_test, n_classes, "test", err);
    return rc;
}

// ---- sampling and schedule --------------------------------------------------------------

static double lr_at(const dp_train_cfg *c, long t)
{
    switch (c->lr_schedule) {
    case DP_LR_INVERSE_T: return c->lr_a / (double)t;
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
    double clip;      /* handed to grad_sum: cfg->clip for dp_sgd, INFINITY for sgd */
    double noise_std;
    size_t *idx;      /* (n_train) epoch permutation, wor arrangement or Poisson batch */
    double *mem;      /* the one double allocation behind g and w_prev */
    double *g;        /* (P) gradient sum, then direction, of a step; scratch at evaluation */
    double *w_prev;   /* (P) weights before the current step, restored on divergence */
    double *adam_m, *adam_v; /* (P) Adam's moment estimates, or NULL */
    dp_smoother *smooth;     /* one per parameter tensor when smoothing > 0, else NULL */
    dp_rng perturb;          /* DPlis's weight perturbations, stream DP_STREAM_ALGO */
    size_t n_smooth;
    long t;                  /* steps taken, including the current one (Adam's t) */
    int dplis;               /* DPlis on: K >= 1, R > 0 and noise (else it is DP-SGD) */
} loop;

/* One step on the examples batch[0..nb): w_prev = w, the direction
 * d = (sum_i clip(g_i) + noise) / b + mu w, smoothed per tensor when asked, then the
 * update (train.h). */
static void sgd_step(loop *L, const size_t *batch, size_t nb, double eta, dp_noise *noise)
{
    const dp_train_ops *ops = L->ops;
    const dp_train_cfg *c = L->cfg;
    size_t P = ops->n_params;
    memset(L->g, 0, P * sizeof *L->g);
    if (L->dplis) {
        /* DPlis Alg. 2: sigma_smooth = R (eta / L) sigma C, L the expected batch size. */
        double sigma_s = c->dplis_radius * eta * L->noise_std / (double)c->batch_size;
        ops->smoothed_grad_sum(ops->ctx, batch, nb, L->clip, c->dplis_samples, sigma_s,
                               &L->perturb, L->g);
    } else {
        ops->grad_sum(ops->ctx, batch, nb, L->clip, L->g);
    }
    /* The step's noise on as many threads as the BLAS uses; its numbers do not depend on
     * how many (rng.h). */
    if (L->noise_std > 0.0)
        dp_noise_add_gaussian(noise, L->g, P, L->noise_std, dp_blas_threads());

    double b = (double)c->batch_size, mu = ops->l2;
    double *w = ops->w, *d = L->g;
    memcpy(L->w_prev, w, P * sizeof *w);
    for (size_t j = 0; j < P; j++) d[j] = d[j] / b + mu * w[j];
    for (size_t t = 0; t < L->n_smooth; t++) {
        size_t off = ops->n_tensors ? ops->tensor_off[t] : 0;
        dp_smoother_execute(&L->smooth[t], d + off);
    }
    L->t++;
    if (c->update == DP_UPDATE_ADAM) {
        double b1 = c->adam_beta1, b2 = c->adam_beta2;
        double c1 = 1.0 - pow(b1, (double)L->t), c2 = 1.0 - pow(b2, (double)L->t);
        double *m = L->adam_m, *v = L->adam_v;
        for (size_t j = 0; j < P; j++) {
            m[j] = b1 * m[j] + (1.0 - b1) * d[j];
            v[j] = b2 * v[j] + (1.0 - b2) * d[j] * d[j];
            w[j] -= eta * (m[j] / c1) / (sqrt(v[j] / c2) + c->adam_eps);
        }
    } else {
        for (size_t j = 0; j < P; j++) w[j] -= eta * d[j];
    }
}

/* Plan one smoother per parameter tensor (made once, before the loop). */
static int plan_smoothing(loop *L, dp_err *err)
{
    const dp_train_ops *ops = L->ops;
    size_t n = ops->n_tensors ? ops->n_tensors : 1;
    L->smooth = calloc(n, sizeof *L->smooth);
    if (!L->smooth) return dp_err_set(err, DP_ENOMEM, "out of memory for %zu smoothers", n);
    for (size_t t = 0; t < n; t++) {
        size_t len = ops->n_tensors ? ops->tensor_len[t] : ops->n_params;
        int rc = dp_smoother_plan(&L->smooth[t], len, L->cfg->smoothing, err);
        if (rc) return rc;
        L->n_smooth++;
    }
    return DP_OK;
}

static void loop_free(loop *L)
{
    for (size_t t = 0; t < L->n_smooth; t++) dp_smoother_destroy(&L->smooth[t]);
    free(L->smooth);
    free(L->mem);
    free(L->idx);
}

/* The point after `iteration` steps: metrics from ops->evaluate, position from here. */
static int evaluate(loop *L, long iteration, dp_curve_point *pt, dp_err *err)
{
    pt->iteration = iteration;
    pt->epoch = (double)iteration * (double)L->cfg->batch_size / (double)L->n_train;
    return L->ops->evaluate(L->ops->ctx, L->g, pt, err);
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
    L.clip = dp ? cfg->clip : INFINITY;
    /* sigma = 0 with C = inf would give 0 * inf = NaN: no noise is no noise. */
    L.noise_std = dp && cfg->noise_multiplier > 0.0
                      ? DP_DEBUG_NOISE(cfg->noise_multiplier * cfg->clip) : 0.0;
    result->noise_std = L.noise_std;

    size_t P = ops->n_params;
    long steps_per_epoch = (long)(n_train / cfg->batch_size);
    if (steps_per_epoch < 1) steps_per_epoch = 1;
    /* Points: iteration 0, one per eval_every epochs, the end, and a divergence point. */
    size_t cap = (size_t)(cfg->epochs / cfg->eval_every) + 3;
    result->curve = calloc(cap, sizeof *result->curve);
    if (!result->curve)
        return dp_err_set(err, DP_ENOMEM, "out of memory for %zu curve points", cap);
    size_t n_buf = cfg->update == DP_UPDATE_ADAM ? 4 : 2; /* g, w_prev (, m, v) */
    L.idx = malloc(n_train * sizeof *L.idx);
    L.mem = calloc(n_buf * P, sizeof *L.mem);
    int rc;
    if (!L.idx || !L.mem) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for training buffers (%zu indices, "
                        "%zu doubles)", n_train, n_buf * P);
        goto fail;
    }
    L.g = L.mem;
    L.w_prev = L.mem + P;
    if (cfg->update == DP_UPDATE_ADAM) {
        L.adam_m = L.mem + 2 * P;
        L.adam_v = L.mem + 3 * P;
    }
    if (cfg->smoothing > 0.0 && (rc = plan_smoothing(&L, err)) != DP_OK) goto fail;
    /* R = 0 or K = 0 (or no noise, so sigma_smooth = 0) is DP-SGD exactly: the plain
     * gradient path, not K identical copies averaged. */
    L.dplis = dp && cfg->dplis_samples > 0 && cfg->dplis_radius > 0.0 && L.noise_std > 0.0;
    if (L.dplis && !ops->smoothed_grad_sum) {
        rc = dp_err_set(err, DP_EINVAL, "this model has no DPlis gradient");
        goto fail;
    }
    dp_rng_init(&L.perturb, cfg->seed, DP_STREAM_ALGO);

    dp_rng batch_rng;
    dp_rng_init(&batch_rng, cfg->seed, DP_STREAM_BATCH);
    /* Seeded: stream DP_STREAM_NOISE; secure: getrandom (base/noise_source.h). */
    dp_noise noise;
    if ((rc = dp_noise_init(&noise, cfg->seed, DP_STREAM_NOISE, cfg->secure_noise, err)))
        goto fail;
    double q = (double)cfg->batch_size / (double)n_train;

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
        for (long s = 0; s < steps_per_epoch; s++) {
            const size_t *batch = L.idx;
            size_t nb;
            if (cfg->sampling == DP_SAMPLING_SHUFFLE) {
                batch = L.idx + (size_t)s * cfg->batch_size;
                nb = cfg->batch_size;
            } else if (cfg->sampling == DP_SAMPLING_WOR) {
                wor_batch(&batch_rng, L.idx, n_train, cfg->batch_size);
                nb = cfg->batch_size;
            } else if (cfg->sampling == DP_SAMPLING_FULL) {
                nb = n_train;
            } else {
                nb = poisson_batch(&batch_rng, L.idx, n_train, q);
            }
            sgd_step(&L, batch, nb, lr_at(cfg, it + 1), &noise);
            /* A failed secure draw left the step without its noise: release nothing. */
            if ((rc = dp_noise_check(&noise, err)) != DP_OK) goto fail;
            if (!dp_all_finite(ops->w, P)) {
                memcpy(ops->w, L.w_prev, P * sizeof *ops->w);
                step_diverged = 1;
                goto stopped;
            }
            it++;
            if (cfg->max_steps > 0 && it >= cfg->max_steps) break;
        }
        last = epoch == cfg->epochs || (cfg->max_steps > 0 && it >= cfg->max_steps);
        if (epoch % cfg->eval_every == 0 || last) {
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
    loop_free(&L);
    return DP_OK;

fail:
    loop_free(&L);
    return rc;
}
