/* train_common_int.h: the (DP-)SGD loop shared by the linear trainer (train.c) and the
 * deep-model trainer (train_model.c). Private to algorithms/: not part of any public API.
 *
 * The loop owns everything that is the same for every model: validation of dp_train_cfg
 * and of the labels (train_check.c), the streams DP_STREAM_BATCH and DP_STREAM_NOISE,
 * batch sampling (shuffle, Poisson, wor), the learning-rate schedule, the curve and the
 * divergence handling (train_common.c), and one step's direction and update: clipping of
 * the batch mean, noise, weight decay, smoothing, plain or Adam step (train_step.c). A
 * model supplies its parameter tensors and two callbacks: the (clipped) gradient sum of a
 * batch and the metrics of its current weights (Redis ae.c's backend idea: the loop only
 * calls the ops).
 */
#ifndef DPERM_TRAIN_COMMON_INT_H
#define DPERM_TRAIN_COMMON_INT_H

#include <stdatomic.h>
#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/base/noise_source.h"
#include "algorithms/base/rng.h"
#include "algorithms/smoothing.h"
#include "algorithms/train.h"

/* One parameter tensor inside the flat buffer: rows runs of cols consecutive parameters,
 * run r at off + r * stride (stride >= cols). A deep layer's weights or bias is one run
 * (rows 1); a linear model's W (k x d) is k runs of d and its b k runs of 1, both with
 * stride d + 1 (its buffer is (k, d+1) row-major, the bias last in each row). Read in run
 * order, a tensor is its row-major flattening. */
typedef struct dp_tensor_view {
    size_t off, rows, cols, stride;
} dp_tensor_view;

typedef struct dp_train_ops {
    void *ctx;        /* passed back to the callbacks */
    double *w;        /* (n_params) the weights trained in place */
    size_t n_params;
    double l2;        /* mu >= 0: the update adds mu w, neither clipped nor noised */
    /* The parameter tensors, together covering every parameter once: batch-mean clipping
     * clips each one apart, and DP-LSSGD smooths each one apart (flattened, as its
     * TensorFlow and PyTorch implementations do) when smooth_per_tensor is 1; with 0 the
     * smoothing runs over the whole vector of n_params. n_tensors >= 1. */
    size_t n_tensors;
    const dp_tensor_view *tensors;
    int smooth_per_tensor;
    /* g (n_params, zeroed by the loop) += sum over batch[0..nb) (indices into the
     * training set) of the per-example gradients of the data loss, each clipped to norm
     * clip when clip is finite, unclipped when clip = INFINITY (then it must be the plain
     * batch gradient: sgd and dp_sgd with C = inf share this path). nb may be 0 (an
     * empty Poisson batch) and may exceed cfg->batch_size. max_sqnorm NULL: nothing more.
     * Not NULL: *max_sqnorm = max(*max_sqnorm, the largest squared norm of the batch's
     * per-example gradients before clipping); g is then the same sum bit for bit when
     * clip is finite, and the plain gradient to rounding when clip = INFINITY (a deep model
     * sums through its clipping path to get the norms; only batch-mean clipping asks for
     * them there). Cannot fail. */
    void (*grad_sum)(void *ctx, const size_t *batch, size_t nb, double clip, double *g,
                     float *gf, double *max_sqnorm);
    /* Optional (NULL, NULL, NULL for none), the plain step's shortcuts (train_step.c):
     *   gf (n_params floats, all zero between steps): grad_sum given gf may leave part of
     *     its sum there, in float (models/model.h, dp_model_clipped_grad_split): the sum is
     *     then g[j] + gf[j], and its reader sets gf back to zero;
     *   wf (n_params floats): the weights rounded to float, which an update may write with
     *     w and then declare with wf_fresh(ctx, 1) (dp_model_float_params_fresh);
     *     wf_fresh(ctx, 0) before w is written any other way. */
    float *gf;
    float *wf;
    void (*wf_fresh)(void *ctx, int fresh);
    /* Optional (NULL for none): make w (n_params) the model's weights, wherever they were.
     * With it the plain step writes its new weights into a second buffer and moves the
     * model there (train_step.c), instead of copying the old ones aside; the loop moves
     * the model back to ops->w, with the weights it trained, before it returns. */
    void (*set_w)(void *ctx, double *w);
    /* Optional (NULL for none; used with set_w and gf): the ranges of g that grad_sum,
     * given gf, leaves at +0.0 for a batch of nb (models/model.h, dp_model_gf_ranges): up
     * to cap pairs [lo, hi), ascending; returns how many. The plain step's update then
     * neither reads nor writes g there. */
    size_t (*gf_ranges)(void *ctx, size_t nb, size_t *ranges, size_t cap);
    /* DPlis (optional: NULL when the model has none): g += sum over the batch of
     * clip( (1/K) sum_k per-example gradient at w + z_k ) (without the 1/K when
     * cfg->dplis_sum), z_k = sigma_s times K normal vectors drawn from *rng, shared by the
     * whole batch (models/model.h, models/linear.h say exactly how); *rng moves on by K
     * blocks. K >= 1. max_sqnorm as for grad_sum, over the K-averaged (summed) gradients. */
    void (*smoothed_grad_sum)(void *ctx, const size_t *batch, size_t nb, double clip, int K,
                              double sigma_s, dp_rng *rng, double *g, double *max_sqnorm);
    /* Fill pt's train_loss (mean data loss + l2/2 ||w||^2), grad_norm (of that
     * objective's full-batch gradient), test_loss and test_accuracy for the current
     * weights; scratch (n_params) may be overwritten. Non-finite metrics are not an
     * error. Returns 0, or a DP_E* code with err filled. */
    int (*evaluate)(void *ctx, double *scratch, dp_curve_point *pt, dp_err *err);
} dp_train_ops;

/* Check cfg and the data against a model with n_classes outputs, in the order and with
 * the messages of dp_train_linear (each names the config field). Returns 0 or DP_EINVAL. */
int dp_train_check(const dp_train_cfg *c, int n_classes, const double *x_train,
                   const int *y_train, size_t n_train, const double *x_test,
                   const int *y_test, size_t n_test, dp_err *err);

/* Whether idx[0..n) are consecutive (idx[i] = idx[0] + i; n >= 1): the rows of such a
 * chunk (a full batch, a single row) can be read where they lie instead of copied. */
int dp_train_rows_consecutive(const size_t *idx, size_t n);

/* Copy rows idx[0..n) of the row-major matrix x (d columns) to dst, in idx's order. (On a
 * training set larger than the caches this is bound by memory: software prefetching of
 * the next rows was tried and only moved the stall, the line fill buffers being full.) */
void dp_train_gather_rows(double *dst, const double *x, size_t d, const size_t *idx,
                          size_t n);

/* Run the loop of train.h on a validated cfg (dp_train_check passed) and a zeroed
 * result: allocates the curve (owned by result), the index array and the step's buffers
 * once, then trains ops->w in place. Returns 0 (also when training diverged),
 * DP_ENOMEM, or the first error of ops->evaluate; result must be destroyed either way. */
int dp_train_run(const dp_train_cfg *cfg, size_t n_train, const dp_train_ops *ops,
                 dp_train_result *result, dp_err *err);

/* One step of the loop (train_step.c), planned once: its buffers, smoothers and Adam
 * state. Fields are the loop's to read (g is scratch between steps, w_prev the weights
 * before the last step), not to set. */
typedef struct dp_train_step {
    const dp_train_cfg *cfg;
    const dp_train_ops *ops;
    double clip;         /* handed to grad_sum: C in per-example dp_sgd, else INFINITY */
    double noise_std;    /* sigma C on the sum (0: no noise) */
    int mean_clip;       /* dp_sgd with batch-mean clipping per tensor */
    int dplis;           /* DPlis on: K >= 1, R > 0 and noise (else it is DP-SGD) */
    int track;           /* per-example norms tracked (dp_sgd, unless C = inf per example) */
    double max_sqnorm;   /* tracked: the largest squared per-example norm of the last step */
    double *mem;         /* the one double allocation behind the buffers below */
    double *g;           /* (P) gradient sum, then direction, of a step */
    double *w;           /* (P) the weights: ops->w, or with ops->set_w either buffer */
    double *w_prev;      /* (P) weights before the last step, for undoing it; with
                          * ops->set_w the other buffer */
    double *adam_m, *adam_v; /* (P) Adam's moment estimates, or NULL */
    double *run;         /* (largest strided tensor) gathered for its smoothing, or NULL */
    double *zbuf;        /* (z_threads * DP_NOISE_CHUNK) the noise's chunks, or NULL: with
                          * ops->gf_ranges, the plain step's noise goes here, not into g */
    int z_threads;
    dp_smoother *smooth; /* one per smoothed vector when smoothing > 0, else NULL */
    size_t n_smooth;
    dp_rng perturb;      /* DPlis's weight perturbations, stream DP_STREAM_ALGO */
    long t;              /* steps taken (Adam's t) */
    int g_zero;          /* g is all +0.0: the plain step's update left it so */
    int w_state;         /* after the plain step: W_FINITE or W_NONFINITE, else W_UNKNOWN
                          * (set after the noise threads have joined) */
    int w_kept;          /* the last step left w as it was (its non-finite weights went
                          * to the other buffer): nothing to undo */
} dp_train_step;

enum { W_UNKNOWN = 0, W_FINITE = 1, W_NONFINITE = 2 };

/* Plan the step of a validated cfg on ops, with noise std noise_std (sigma C, already
 * scaled by DP_DEBUG_NOISE) on the sum. Fails with DP_ENOMEM, or DP_EINVAL when DPlis is
 * asked of a model without it; s is then released. */
int dp_train_step_plan(dp_train_step *s, const dp_train_cfg *cfg, const dp_train_ops *ops,
                       double noise_std, dp_err *err);

/* One step on the examples batch[0..nb) with rate eta, noise from *noise (train_step.c
 * says how). Afterwards s->w may be non-finite: the loop checks (dp_train_step_finite)
 * and then undoes the step (dp_train_step_undo). Cannot fail (a secure noise draw that
 * fails is reported by dp_noise_check). */
void dp_train_step_execute(dp_train_step *s, const size_t *batch, size_t nb, double eta,
                           dp_noise *noise);

/* Whether every weight is finite after the last step: known from the plain step's update
 * (which checked each weight as it wrote it), else by a pass over s->w. */
int dp_train_step_finite(dp_train_step *s);

/* Put back the weights from before the last step (after a non-finite one). */
void dp_train_step_undo(dp_train_step *s);

/* The step's gradient buffer, for the loop to use as scratch between steps (evaluations):
 * the next step then zeroes it again. */
double *dp_train_step_scratch(dp_train_step *s);

/* Release what s owns, after moving the model's weights back to ops->w if they are in
 * the step's buffer (ops->set_w); a zeroed s is fine. */
void dp_train_step_destroy(dp_train_step *s);

#endif
