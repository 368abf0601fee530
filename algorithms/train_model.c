/* train_model.c: SGD and DP-SGD on the layered models of models/model.h.
 *
 * The loop (sampling, schedule, noise, update, curve, divergence; sources and choices in
 * train_common.c) is the one dp_train_linear uses. This file supplies the model's part:
 *   - the batch gradient: the batch's rows are gathered into one contiguous buffer (or
 *     read in place when their indices are consecutive: a full batch) and handed to
 *     dp_model_clipped_grad (dp_sgd with a finite C: Abadi et al. 2016, Alg. 1) or
 *     dp_model_loss_grad (sgd, and dp_sgd with C = inf, so the two are bit-identical);
 *     both add into the loop's zeroed sum.
 *   - the metrics: one dp_model_loss_grad pass over the training set (the model chunks it
 *     by max_batch) gives the mean loss and the full-batch gradient; dp_model_evaluate
 *     gives the test loss and accuracy.
 *
 *   - the parameter tensors, each layer's weights and bias (one run each), which
 *     DP-LSSGD's smoothing and batch-mean clipping treat apart; a deep model is always
 *     smoothed per tensor (smoothing_layout has nothing to choose here).
 *   - the largest per-example gradient norm, from the norms the dense and conv layers
 *     compute for clipping (pexgrad.c).
 *
 * Choice where the sources are silent: the gather buffer holds min(n, max_batch) rows,
 * not b. The model runs at most max_batch rows per pass whatever it is handed, so
 * gathering a batch in pieces of max_batch gives the same passes and the same sums bit
 * for bit as gathering it whole, bounds the buffer for any b and any Poisson batch size
 * (up to n), and costs at most what the model's own activations per example already cost.
 */
#include "algorithms/train_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/train_common_int.h"

typedef struct trainer {
    dp_model *m;
    double l2;
    const double *x_train;
    const int *y_train;
    size_t n_train;
    const double *x_test;
    const int *y_test;
    size_t n_test;
    size_t in_size; /* doubles per example */
    size_t cap;     /* rows of the gather buffer: min(n_train, max_batch) */
    double *xb;     /* (cap, in_size) gathered rows of the current piece of a batch */
    int *yb;        /* (cap) their labels */
    double *sq;     /* (cap) squared per-example norms of the current piece */
    float *gf;      /* (n_params) the float part of a gradient sum (ops.gf), zero between
                     * steps */
    dp_model_smooth smooth; /* DPlis workspace (zeroed when unused) */
} trainer;

static int validate(const dp_model *m, double l2, const dp_train_cfg *c,
                    const double *x_train, const int *y_train, size_t n_train,
                    const double *x_test, const int *y_test, size_t n_test, dp_err *err)
{
    if (!m || !m->params || !m->layers || m->n_params == 0 || m->in_size == 0 ||
        m->max_batch == 0)
        return dp_err_set(err, DP_EINVAL, "model is not built");
    if (!dp_all_finite(m->params, m->n_params))
        return dp_err_set(err, DP_EINVAL, "the model's initial weights are not finite");
    if (!(l2 >= 0.0) || !isfinite(l2))
        return dp_err_set(err, DP_EINVAL, "model.l2 %g must be finite and >= 0", l2);
    if (c->init == DP_INIT_UNIFORM_FAN_IN)
        return dp_err_set(err, DP_EINVAL, "model.init uniform_fan_in applies to linear "
                          "models; a deep model is initialized when it is built");
    return dp_train_check(c, m->n_classes, x_train, y_train, n_train, x_test, y_test, n_test,
                          err);
}

// ---- the two callbacks of the loop ------------------------------------------------------

/* *max_sqnorm = max(*max_sqnorm, sq[0..n)); max_sqnorm may be NULL. */
static void track_max(double *max_sqnorm, const double *sq, size_t n)
{
    if (!max_sqnorm) return;
    for (size_t i = 0; i < n; i++)
        if (sq[i] > *max_sqnorm) *max_sqnorm = sq[i];
}

/* The rows batch[0..cn) and their labels: read in place when the indices are consecutive
 * (a full batch), else gathered into xb, yb; in batch order either way. */
static void batch_rows(trainer *t, const size_t *batch, size_t cn, const double **x,
                       const int **y)
{
    if (dp_train_rows_consecutive(batch, cn)) {
        *x = t->x_train + batch[0] * t->in_size;
        *y = t->y_train + batch[0];
        return;
    }
    dp_train_gather_rows(t->xb, t->x_train, t->in_size, batch, cn);
    for (size_t i = 0; i < cn; i++) t->yb[i] = t->y_train[batch[i]];
    *x = t->xb;
    *y = t->yb;
}

/* g += sum over the batch of the per-example gradients, clipped to clip if finite; their
 * largest squared norm into *max_sqnorm when asked (the dense and conv layers' own
 * per-example norms: with clip = INFINITY through the clipping path, whose sum is the
 * plain gradient to rounding). */
static void model_grad_sum(void *ctx, const size_t *batch, size_t nb, double clip,
                           double *g, float *gf, double *max_sqnorm)
{
    trainer *t = ctx;
    int clipping = isfinite(clip);
    double *sq = max_sqnorm ? t->sq : NULL;
    if (nb > t->cap) gf = NULL; /* pieces: their float parts would be summed in float */
    for (size_t c0 = 0; c0 < nb; c0 += t->cap) {
        size_t cn = nb - c0 < t->cap ? nb - c0 : t->cap;
        const double *xb;
        const int *yb;
        batch_rows(t, batch + c0, cn, &xb, &yb);
        if (clipping || sq)
            dp_model_clipped_grad_split(t->m, xb, yb, cn, clip, g, gf, sq);
        else
            dp_model_loss_grad_split(t->m, xb, yb, cn, g, gf);
        track_max(max_sqnorm, t->sq, sq ? cn : 0);
    }
}

static void model_wf_fresh(void *ctx, int fresh)
{
    trainer *t = ctx;
    dp_model_float_params_fresh(t->m, fresh);
}

static void model_set_w(void *ctx, double *w)
{
    trainer *t = ctx;
    dp_model_set_params(t->m, w);
}

static size_t model_gf_ranges(void *ctx, size_t nb, size_t *ranges, size_t cap)
{
    trainer *t = ctx;
    return dp_model_gf_ranges(t->m, nb, ranges, cap);
}

/* DPlis: the same over the K perturbed copies. One set of perturbations serves the
 * whole batch, so every piece starts from the same generator state. */
static void model_smoothed_grad_sum(void *ctx, const size_t *batch, size_t nb, double clip,
                                    int K, double sigma_s, dp_rng *rng, double *g,
                                    double *max_sqnorm)
{
    trainer *t = ctx;
    double *sq = max_sqnorm ? t->sq : NULL;
    dp_rng start = *rng, r = *rng;
    if (nb == 0) dp_rng_seek(&r, start.position + (uint64_t)K); /* as a call would */
    for (size_t c0 = 0; c0 < nb; c0 += t->cap) {
        size_t cn = nb - c0 < t->cap ? nb - c0 : t->cap;
        const double *xb;
        const int *yb;
        batch_rows(t, batch + c0, cn, &xb, &yb);
        r = start;
        dp_model_smoothed_clipped_grad(t->m, &t->smooth, xb, yb, cn, clip, K, sigma_s, &r, g,
                                       sq);
        track_max(max_sqnorm, t->sq, sq ? cn : 0);
    }
    *rng = r;
}

/* pt's metrics for m's current weights (train_model.h, dp_model_curve_point); g
 * (n_params) is scratch for the full-batch gradient. Allocates nothing. */
static int curve_point(dp_model *m, double l2, const double *x_train, const int *y_train,
                       size_t n, const double *x_test, const int *y_test, size_t n_test,
                       double *g, dp_curve_point *pt, dp_err *err)
{
    size_t P = m->n_params;
    const double *w = m->params;
    memset(g, 0, P * sizeof *g);
    double loss = dp_model_loss_grad(m, x_train, y_train, n, g);
    /* Regularized objective F(w) = mean loss + l2/2 ||w||^2, gradient mean + l2 w. */
    double inv_n = 1.0 / (double)n, gg = 0.0;
    for (size_t j = 0; j < P; j++) {
        double gj = g[j] * inv_n + l2 * w[j];
        gg += gj * gj;
    }
    pt->train_loss = loss * inv_n + 0.5 * l2 * dp_dot(w, w, P);
    pt->grad_norm = sqrt(gg);
    pt->test_rmse = NAN; /* deep models are classifiers */
    if (dp_model_evaluate(m, x_test, y_test, n_test, &pt->test_loss, &pt->test_accuracy) !=
        DP_OK)
        return dp_err_set(err, DP_EINVAL, "a test label is outside the model's classes");
    return DP_OK;
}

/* The loop's evaluation callback. Cannot fail: the labels were checked and neither model
 * call allocates. */
static int model_evaluate(void *ctx, double *g, dp_curve_point *pt, dp_err *err)
{
    trainer *t = ctx;
    return curve_point(t->m, t->l2, t->x_train, t->y_train, t->n_train, t->x_test, t->y_test,
                       t->n_test, g, pt, err);
}

int dp_model_curve_point(dp_model *m, double l2, const double *x_train, const int *y_train,
                         size_t n_train, const double *x_test, const int *y_test,
                         size_t n_test, dp_curve_point *pt, dp_err *err)
{
    if (!m || !m->params || !pt || !x_train || !y_train || n_train == 0 || !x_test ||
        !y_test || n_test == 0)
        return dp_err_set(err, DP_EINVAL, "dp_model_curve_point: NULL or empty argument");
    for (size_t i = 0; i < n_train; i++)
        if (y_train[i] < 0 || y_train[i] >= m->n_classes)
            return dp_err_set(err, DP_EINVAL, "training label %d of row %zu is outside the "
                              "model's %d classes", y_train[i], i, m->n_classes);
    double *g = malloc(m->n_params * sizeof *g);
    if (!g) return dp_err_set(err, DP_ENOMEM, "out of memory for a gradient");
    int rc = curve_point(m, l2, x_train, y_train, n_train, x_test, y_test, n_test, g, pt, err);
    free(g);
    return rc;
}

// ---- entry point ------------------------------------------------------------------------

int dp_train_model(dp_model *m, const dp_train_cfg *cfg, double l2, const double *x_train,
                   const int *y_train, size_t n_train, const double *x_test,
                   const int *y_test, size_t n_test, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    int rc = validate(m, l2, cfg, x_train, y_train, n_train, x_test, y_test, n_test, err);
    if (rc != DP_OK) return rc;

    trainer t = {0};
    t.m = m;
    t.l2 = l2;
    t.x_train = x_train;
    t.y_train = y_train;
    t.n_train = n_train;
    t.x_test = x_test;
    t.y_test = y_test;
    t.n_test = n_test;
    t.in_size = m->in_size;
    t.cap = n_train < m->max_batch ? n_train : m->max_batch;
    t.xb = malloc(t.cap * t.in_size * sizeof *t.xb);
    t.yb = malloc(t.cap * sizeof *t.yb);
    t.sq = malloc(t.cap * sizeof *t.sq);
    t.gf = calloc(m->n_params, sizeof *t.gf);
    /* Parameter tensors (each layer's weights, then its bias) for DP-LSSGD's smoothing
     * and batch-mean clipping. */
    dp_tensor_view *tensors = malloc(2 * m->n_layers * sizeof *tensors);
    if (!t.xb || !t.yb || !t.sq || !t.gf || !tensors) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for a %zu x %zu batch buffer", t.cap,
                        t.in_size);
        goto done;
    }
    if (cfg->dplis_samples > 0 &&
        (rc = dp_model_smooth_init(&t.smooth, m, cfg->dplis_samples, err)) != DP_OK)
        goto done;
    t.smooth.sum = cfg->dplis_sum;
    size_t n_tensors = 0;
    for (size_t l = 0; l < m->n_layers; l++) {
        const dp_layer *L = &m->layers[l];
        if (L->n_w) tensors[n_tensors++] = (dp_tensor_view){L->w_off, 1, L->n_w, L->n_w};
        if (L->n_b) tensors[n_tensors++] = (dp_tensor_view){L->b_off, 1, L->n_b, L->n_b};
    }

    /* Smoothing is per tensor whatever cfg->smoothing_layout says (train.h). */
    dp_train_ops ops = {.ctx = &t, .w = m->params, .n_params = m->n_params, .l2 = l2,
                        .n_tensors = n_tensors, .tensors = tensors, .smooth_per_tensor = 1,
                        .grad_sum = model_grad_sum, .smoothed_grad_sum = model_smoothed_grad_sum,
                        .evaluate = model_evaluate, .gf = t.gf,
                        .wf = dp_model_float_params(m), .wf_fresh = model_wf_fresh,
                        .set_w = model_set_w, .gf_ranges = model_gf_ranges};
    dp_model_float_params_fresh(m, 0);
    rc = dp_train_run(cfg, n_train, &ops, result, err);
    dp_model_float_params_fresh(m, 0); /* the caller may write m->params */

done:
    dp_model_smooth_destroy(&t.smooth);
    free(tensors);
    free(t.gf);
    free(t.sq);
    free(t.yb);
    free(t.xb);
    return rc;
}
