/* train.c: mini-batch SGD and DP-SGD on a linear model, with evaluation curves.
 *
 * The loop itself (sampling, schedule, noise, update, curve, divergence; its sources and
 * the choices made where they are silent) is train_common.c, shared with the deep-model
 * trainer train_model.c. This file supplies what is specific to dp_linear:
 *   - the batch gradient sum from the residual algebra of linear.h, in chunks of b rows
 *     (a Poisson batch larger than b takes a second chunk), each chunk's rows gathered
 *     into one buffer, or read in place when their indices are consecutive (the full
 *     batch of gradient descent);
 *   - per-example norms for clipping from the same residuals (dp_linear_pex_sqnorms):
 *     the per-example gradients themselves never exist;
 *   - the l2 term mu = m->l2, kept outside the per-example part (linear.h);
 *   - the parameter tensors W (k x d) and b (k), strided views of the (k, d+1) buffer,
 *     for batch-mean clipping and per-tensor smoothing (smoothing_layout per_tensor;
 *     by default the whole vector is smoothed as one);
 *   - the initial weights, left as given or drawn by dp_linear_init_uniform_fan_in;
 *   - classification (class indices y) and regression (real targets t, squared or Huber
 *     loss: Zhang17's Huber regression) through the same callbacks, which pick the
 *     residual and evaluation functions of the model's kind.
 *
 * Memory: every buffer is allocated once before the loop; a step allocates nothing. The
 * test-set evaluation (dp_linear_evaluate) allocates one block buffer per curve point.
 */
#include "algorithms/train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/train_common_int.h"

/* Rows per block of the full-data passes at evaluation points. */
#define EVAL_ROWS 1024

typedef struct trainer {
    dp_linear *m;
    const double *x_train;
    const int *y_train;       /* classification, else NULL */
    const double *t_train;    /* regression, else NULL */
    size_t n_train;
    const double *x_test;
    const int *y_test;
    const double *t_test;
    size_t n_test;
    size_t d, P;    /* features; parameters k (d+1) */
    int k;          /* residual columns */
    size_t chunk;   /* rows gathered per GEMM in a step: b */
    /* buffers, allocated once */
    int *yb;        /* (chunk) labels of the gathered rows */
    double *tb;     /* (chunk) targets of the gathered rows (regression) */
    double *mem;    /* the one double allocation the pointers below point into */
    double *xb;     /* (chunk, d) gathered rows */
    double *R;      /* (max(chunk, EVAL_ROWS), k) residuals */
    double *ws;     /* (max(chunk, EVAL_ROWS), k) scaled residuals */
    double *scale;  /* (chunk) per-example clip factors */
    double *smooth_ws; /* DPlis workspace (dp_linear_smooth_ws for chunk rows), or NULL */
    int dplis_sum;     /* DPlis: the K gradients summed, not averaged (cfg->dplis_sum) */
} trainer;

// ---- validation and set-up --------------------------------------------------------------

static int validate(const dp_linear *m, const dp_train_cfg *c, const double *x_train,
                    const int *y_train, size_t n_train, const double *x_test,
                    const int *y_test, size_t n_test, dp_err *err)
{
    if (!m || !m->w || m->n_params == 0)
        return dp_err_set(err, DP_EINVAL, "model is not initialized");
    if (!dp_all_finite(m->w, m->n_params))
        return dp_err_set(err, DP_EINVAL, "the model's initial weights are not finite");
    return dp_train_check(c, m->n_classes, x_train, y_train, n_train, x_test, y_test, n_test,
                          err);
}

static int trainer_alloc(trainer *t, dp_err *err)
{
    size_t d = t->d, kk = (size_t)t->k, chunk = t->chunk;
    size_t rrows = chunk > EVAL_ROWS ? chunk : EVAL_ROWS;
    size_t n_xb = chunk * d, n_R = rrows * kk;
    size_t total = n_xb + 2 * n_R + chunk;
    t->yb = malloc(chunk * sizeof *t->yb);
    t->tb = malloc(chunk * sizeof *t->tb);
    t->mem = malloc(total * sizeof *t->mem);
    if (!t->yb || !t->tb || !t->mem) {
        free(t->tb);
        t->tb = NULL;
        free(t->yb);
        free(t->mem);
        t->yb = NULL;
        t->mem = NULL;
        return dp_err_set(err, DP_ENOMEM, "out of memory for training buffers (%zu doubles)",
                          total);
    }
    double *p = t->mem;
    t->xb = p, p += n_xb;
    t->R = p, p += n_R;
    t->ws = p, p += n_R;
    t->scale = p;
    return DP_OK;
}

static void trainer_free(trainer *t)
{
    free(t->tb);
    free(t->yb);
    free(t->mem);
    free(t->smooth_ws);
}

// ---- the two callbacks of the loop ------------------------------------------------------

/* Residuals of rows x (B) whose labels / targets are at yb / tb: the model's kind decides. */
static double residuals(const trainer *t, const double *x, const int *yb, const double *tb,
                        size_t B, double *R)
{
    return t->t_train ? dp_linear_residuals_reg(t->m, x, tb, B, R)
                      : dp_linear_residuals(t->m, x, yb, B, R);
}

/* The batch rows batch[0..cn) (indices into the training set): their features *x, labels
 * *y or targets *tt. Consecutive indices (a full batch, or its chunks) are read in place;
 * any other batch is copied to xb, yb / tb, in batch order either way, so the arithmetic
 * is the same. */
static void batch_rows(trainer *t, const size_t *batch, size_t cn, const double **x,
                       const int **y, const double **tt)
{
    if (dp_train_rows_consecutive(batch, cn)) {
        size_t first = batch[0];
        *x = t->x_train + first * t->d;
        *y = t->t_train ? NULL : t->y_train + first;
        *tt = t->t_train ? t->t_train + first : NULL;
        return;
    }
    dp_train_gather_rows(t->xb, t->x_train, t->d, batch, cn);
    for (size_t i = 0; i < cn; i++) {
        if (t->t_train) t->tb[i] = t->t_train[batch[i]];
        else t->yb[i] = t->y_train[batch[i]];
    }
    *x = t->xb;
    *y = t->t_train ? NULL : t->yb;
    *tt = t->t_train ? t->tb : NULL;
}

/* Metrics of the current weights; g (P) is scratch for the full-batch gradient. Returns
 * 0 or DP_ENOMEM. */
static int linear_evaluate(void *ctx, double *g, dp_curve_point *pt, dp_err *err)
{
    trainer *t = ctx;
    const dp_linear *m = t->m;
    size_t n = t->n_train, d = t->d, P = t->P;
    memset(g, 0, P * sizeof *g);
    double loss = 0.0;
    for (size_t start = 0; start < n; start += EVAL_ROWS) {
        size_t nb = n - start < EVAL_ROWS ? n - start : EVAL_ROWS;
        const double *xb = t->x_train + start * d;
        loss += residuals(t, xb, t->y_train ? t->y_train + start : NULL,
                          t->t_train ? t->t_train + start : NULL, nb, t->R);
        dp_linear_grad_accumulate(g, xb, t->R, NULL, nb, d, t->k, t->ws);
    }
    /* Regularized objective F(w) = mean loss + mu/2 ||w||^2, gradient mean + mu w. */
    double inv_n = 1.0 / (double)n, mu = m->l2, gg = 0.0;
    for (size_t j = 0; j < P; j++) {
        double gj = g[j] * inv_n + mu * m->w[j];
        gg += gj * gj;
    }
    pt->train_loss = loss * inv_n + 0.5 * mu * dp_dot(m->w, m->w, P);
    pt->grad_norm = sqrt(gg);
    if (t->t_test) {
        pt->test_accuracy = NAN;
        dp_linear_evaluate_reg(m, t->x_test, t->t_test, t->n_test, &pt->test_loss,
                               &pt->test_rmse);
        return DP_OK;
    }
    pt->test_rmse = NAN;
    if (dp_linear_evaluate(m, t->x_test, t->y_test, t->n_test, &pt->test_loss,
                           &pt->test_accuracy) != DP_OK)
        return dp_err_set(err, DP_ENOMEM, "out of memory evaluating the test set");
    return DP_OK;
}

/* *max_sqnorm = max(*max_sqnorm, sq[0..n)); max_sqnorm may be NULL. */
static void track_max(double *max_sqnorm, const double *sq, size_t n)
{
    if (!max_sqnorm) return;
    for (size_t i = 0; i < n; i++)
        if (sq[i] > *max_sqnorm) *max_sqnorm = sq[i];
}

/* g += sum over the batch of the per-example gradients, clipped to clip if finite; their
 * largest squared norm into *max_sqnorm when asked. All of it in g (ops.gf is NULL). */
static void linear_grad_sum(void *ctx, const size_t *batch, size_t nb, double clip,
                            double *g, float *gf, double *max_sqnorm)
{
    (void)gf;
    trainer *t = ctx;
    size_t d = t->d;
    int clipping = isfinite(clip);
    for (size_t c0 = 0; c0 < nb; c0 += t->chunk) {
        size_t cn = nb - c0 < t->chunk ? nb - c0 : t->chunk;
        const double *xb, *tb;
        const int *yb;
        batch_rows(t, batch + c0, cn, &xb, &yb, &tb);
        residuals(t, xb, yb, tb, cn, t->R);
        const double *scale = NULL;
        if (clipping || max_sqnorm) {
            /* ||g_i|| from the residual algebra: the gradients themselves never exist.
             * Softmax with the bias input 1: ||p_i - e_y|| sqrt(||x_i||^2 + 1). */
            dp_linear_pex_sqnorms(t->scale, xb, t->R, cn, d, t->k);
            track_max(max_sqnorm, t->scale, cn);
        }
        if (clipping) {
            for (size_t i = 0; i < cn; i++) {
                double nrm = sqrt(t->scale[i]);
                t->scale[i] = nrm > clip ? clip / nrm : 1.0;
            }
            scale = t->scale;
        }
        dp_linear_grad_accumulate(g, xb, t->R, scale, cn, d, t->k, t->ws);
    }
}

/* DPlis: the same over the K perturbed copies. One set of perturbations serves the
 * whole batch, so every chunk starts from the same generator state. */
static void linear_smoothed_grad_sum(void *ctx, const size_t *batch, size_t nb, double clip,
                                     int K, double sigma_s, dp_rng *rng, double *g,
                                     double *max_sqnorm)
{
    trainer *t = ctx;
    dp_rng start = *rng, r = *rng;
    double *sq = max_sqnorm ? t->scale : NULL;
    if (nb == 0) dp_rng_seek(&r, start.position + (uint64_t)K); /* as a call would */
    for (size_t c0 = 0; c0 < nb; c0 += t->chunk) {
        size_t cn = nb - c0 < t->chunk ? nb - c0 : t->chunk;
        const double *xb, *tb;
        const int *yb;
        batch_rows(t, batch + c0, cn, &xb, &yb, &tb);
        r = start;
        if (t->t_train)
            dp_linear_smoothed_clipped_grad_reg(t->m, xb, tb, cn, clip, K, t->dplis_sum,
                                                sigma_s, &r, g, sq, t->smooth_ws);
        else
            dp_linear_smoothed_clipped_grad(t->m, xb, yb, cn, clip, K, t->dplis_sum,
                                            sigma_s, &r, g, sq, t->smooth_ws);
        track_max(max_sqnorm, t->scale, sq ? cn : 0);
    }
    *rng = r;
}

// ---- entry point ------------------------------------------------------------------------

/* Both entry points: y_* for a classifier, t_* for a regression model. */
static int train_linear(dp_linear *m, const dp_train_cfg *cfg, const double *x_train,
                        const int *y_train, const double *t_train, size_t n_train,
                        const double *x_test, const int *y_test, const double *t_test,
                        size_t n_test, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    int rc = validate(m, cfg, x_train, y_train, n_train, x_test, y_test, n_test, err);
    if (rc != DP_OK) return rc;

    trainer t = {0};
    t.m = m;
    t.x_train = x_train;
    t.y_train = y_train;
    t.t_train = t_train;
    t.n_train = n_train;
    t.x_test = x_test;
    t.y_test = y_test;
    t.t_test = t_test;
    t.n_test = n_test;
    t.d = m->d;
    t.P = m->n_params;
    t.k = m->k;
    t.chunk = cfg->batch_size;
    t.dplis_sum = cfg->dplis_sum;
    if ((rc = trainer_alloc(&t, err)) != DP_OK) return rc;
    if (cfg->dplis_samples > 0) {
        size_t n_ws = dp_linear_smooth_ws(m, t.chunk);
        t.smooth_ws = malloc(n_ws * sizeof *t.smooth_ws);
        if (!t.smooth_ws) {
            trainer_free(&t);
            return dp_err_set(err, DP_ENOMEM, "out of memory for the DPlis workspace (%zu "
                              "doubles)", n_ws);
        }
    }

    /* W (k x d) and b (k) inside the (k, d+1) buffer: batch-mean clipping clips them
     * apart; smoothing runs over them apart or over the whole vector. */
    const dp_tensor_view tensors[2] = {{0, (size_t)t.k, t.d, t.d + 1},
                                       {t.d, (size_t)t.k, 1, t.d + 1}};
    if (cfg->init == DP_INIT_UNIFORM_FAN_IN) dp_linear_init_uniform_fan_in(m, cfg->seed);
    dp_train_ops ops = {.ctx = &t, .w = m->w, .n_params = t.P, .l2 = m->l2,
                        .n_tensors = 2, .tensors = tensors,
                        .smooth_per_tensor = cfg->smoothing_layout == DP_SMOOTH_PER_TENSOR,
                        .grad_sum = linear_grad_sum,
                        .smoothed_grad_sum = linear_smoothed_grad_sum,
                        .evaluate = linear_evaluate};
    rc = dp_train_run(cfg, n_train, &ops, result, err);
    trainer_free(&t);
    return rc;
}

int dp_train_linear(dp_linear *m, const dp_train_cfg *cfg, const double *x_train,
                    const int *y_train, size_t n_train, const double *x_test,
                    const int *y_test, size_t n_test, dp_train_result *result, dp_err *err)
{
    if (m && m->n_classes == 0) {
        memset(result, 0, sizeof *result);
        return dp_err_set(err, DP_EINVAL, "a regression model trains with dp_train_linear_reg");
    }
    return train_linear(m, cfg, x_train, y_train, NULL, n_train, x_test, y_test, NULL, n_test,
                        result, err);
}

/* Targets must be finite: a NaN target would make every loss NaN and look like a
 * divergence of the optimizer rather than bad data. */
static int check_targets(const double *t, size_t n, const char *which, dp_err *err)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t[i]))
            return dp_err_set(err, DP_EINVAL, "%s target t[%zu] = %g is not finite", which, i,
                              t[i]);
    return DP_OK;
}

int dp_train_linear_reg(dp_linear *m, const dp_train_cfg *cfg, const double *x_train,
                        const double *t_train, size_t n_train, const double *x_test,
                        const double *t_test, size_t n_test, dp_train_result *result,
                        dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || m->n_classes != 0)
        return dp_err_set(err, DP_EINVAL, "dp_train_linear_reg needs a regression model "
                          "(squared or Huber loss)");
    if (!t_train || !t_test)
        return dp_err_set(err, DP_EINVAL, "regression needs real targets for the training "
                          "and test sets");
    int rc = check_targets(t_train, n_train, "training", err);
    if (rc == DP_OK) rc = check_targets(t_test, n_test, "test", err);
    if (rc != DP_OK) return rc;
    return train_linear(m, cfg, x_train, NULL, t_train, n_train, x_test, NULL, t_test, n_test,
                        result, err);
}

void dp_train_result_destroy(dp_train_result *r)
{
    if (!r) return;
    free(r->curve);
    memset(r, 0, sizeof *r);
}
