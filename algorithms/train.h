/* train.h: training a model with a (private) first-order optimizer, with curves.
 *
 * This is the optimizer entry point the harness calls for the first-order family of the
 * five papers, one loop with orthogonal choices:
 *   privacy   DP_ALGO_SGD (non-private) or DP_ALGO_DP_SGD (per-example clipping + noise)
 *   batches   shuffle, Poisson, without replacement, or the full training set (GD)
 *   update    plain gradient step or Adam (Kingma & Ba 2014, Alg. 1)
 *   smoothing DP-LSSGD's A_s^{-1} (Wang et al., eq. 4) of the privatized direction
 *   DPlis     each per-example gradient averaged over K perturbed copies of the weights
 *             before clipping (Wang et al. 2021, Alg. 2)
 * so sgd, gd, adam, dp_sgd, dp_gd, dp_adam, dp_lssgd, dp_lsadam and dplis are settings
 * of it.
 *
 * DP-SGD step, as in DPlis Alg. 1 / Lecture15 Alg. 4:
 *   batch B_t (fixed size b from a per-epoch shuffle, Poisson with rate q = b/n, an
 *   independent uniform b-subset per step, or all n examples with b = n),
 *   g_i = per-example gradient, clipped: g_i * min(1, C / ||g_i||),
 *   d   = (sum_i clipped g_i + N(0, sigma^2 C^2 I)) / b + mu w  (b = expected batch size
 *          for Poisson; an empty Poisson batch is a valid, noise-only step),
 *   d  <- A_s^{-1} d per parameter tensor when smoothing s > 0 (DP-LSSGD Alg. 1;
 *          DP-LSAdam: the smoothed direction feeds Adam, DP-LSSGD §4.2),
 *   w  -= eta_t d, or Adam's step on d.
 * DPlis replaces g_i by (1/K) sum_k grad loss(w + z_k; x_i), z_k ~ N(0, sigma_s^2 I) drawn
 * once per step for the whole batch (stream DP_STREAM_ALGO), sigma_s = R eta_t sigma C / b;
 * dplis_sum drops the 1/K (the authors' code sums the K gradients, then clips).
 * With sigma = 0 and C = inf this is exactly mini-batch SGD, with s = 0 DP-LSSGD is
 * DP-SGD, and with R = 0 or K = 0 DPlis is DP-SGD (all tested bit for bit).
 *
 * The protocol of DP-LSSGD's released code (Table 2; shared/reference/authors-code.md),
 * each piece a setting whose zero value is the loop above, bit for bit:
 *   clip_mode DP_CLIP_BATCH_MEAN_PER_TENSOR: d = clip_C(mean of the batch gradients) per
 *          parameter tensor + N(0, (sigma C / b)^2 I): no per-example bound, no privacy;
 *   lr_schedule DP_LR_INVERSE_EPOCH: a / t_0, t_0 the first iteration of the epoch;
 *   partial_batch DP_PARTIAL_KEEP: shuffled passes run their last, smaller batch too;
 *   l2_placement DP_L2_AFTER_SMOOTHING: mu w added after the smoothing, unsmoothed;
 *   smoothing_layout DP_SMOOTH_PER_TENSOR: a linear model's W and b smoothed apart;
 *   init DP_INIT_UNIFORM_FAN_IN: a linear model starts from PyTorch nn.Linear's draw.
 */
#ifndef DPERM_TRAIN_H
#define DPERM_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/models/linear.h"

typedef enum { DP_ALGO_SGD = 1, DP_ALGO_DP_SGD = 2 } dp_algorithm;
/* shuffle: disjoint batches of a per-epoch permutation; poisson: each example with
 * probability b/n (the analysis of rdp, pld, moments); wor: each step an independent
 * uniform subset of exactly b examples (the analysis of rdp_wor). */
typedef enum {
    DP_SAMPLING_SHUFFLE = 1,
    DP_SAMPLING_POISSON = 2,
    DP_SAMPLING_WOR = 3,
    DP_SAMPLING_FULL = 4 /* every step the whole training set, b = n: gradient descent */
} dp_sampling;
typedef enum {
    DP_LR_CONSTANT = 1,  /* eta_t = lr */
    DP_LR_INVERSE_T = 2, /* eta_t = a / t, t = 1, 2, ... the iteration (DP-LSSGD §4.1) */
    DP_LR_STEP = 3,      /* eta_t = lr * factor^(number of boundaries passed: t > step_at) */
    DP_LR_INVERSE_SQRT_T = 4, /* eta_t = a / sqrt(t) (Bassily et al. 2014's decay) */
    DP_LR_INVERSE_EPOCH = 5   /* eta_t = a / t_0, t_0 = 1 + steps per epoch x epochs done:
                                 the first iteration of t's epoch, fixed for the whole
                                 epoch (DP-LSSGD's code: lr0 / iter_count set once per
                                 epoch) */
} dp_lr_schedule;
typedef enum {
    DP_UPDATE_SGD = 0,   /* w -= eta_t d */
    DP_UPDATE_ADAM = 1   /* Adam on d, bias-corrected moments (Kingma & Ba 2014, Alg. 1) */
} dp_update;

/* What is clipped to norm C (the DP-SGD family). */
typedef enum {
    DP_CLIP_PER_EXAMPLE = 0, /* each example's gradient, then N(0, sigma^2 C^2 I) on the sum */
    DP_CLIP_BATCH_MEAN_PER_TENSOR = 1 /* the batch-mean gradient of each parameter tensor
                                         (linear: W (k x d) and b (k); deep: each layer's
                                         weights and bias), then N(0, (sigma C / b)^2) per
                                         coordinate of the mean, b the configured batch
                                         size. Bounds nothing per example: no privacy */
} dp_clip_mode;
/* Shuffle sampling: what happens to the n mod b examples left over by a pass. */
typedef enum {
    DP_PARTIAL_DROP = 0, /* unused that epoch: floor(n / b) steps */
    DP_PARTIAL_KEEP = 1  /* a last step on them: ceil(n / b) steps, its mean over its size */
} dp_partial_batch;
/* Where the weight decay mu w enters the direction. */
typedef enum {
    DP_L2_IN_GRADIENT = 0,    /* before the smoothing: smoothed with the data part */
    DP_L2_AFTER_SMOOTHING = 1 /* after it, unsmoothed (DP-LSSGD's code) */
} dp_l2_placement;
/* The vectors the smoothing runs over, for a linear model (a deep one is always smoothed
 * one parameter tensor at a time, each layer's weights and bias apart). */
typedef enum {
    DP_SMOOTH_VECTOR = 0,    /* the k (d+1) parameters as one vector (row-major W|b) */
    DP_SMOOTH_PER_TENSOR = 1 /* W (k x d, row-major) and b (k) apart, as a deep model's */
} dp_smoothing_layout;
/* A linear model's weights at the start of training. */
typedef enum {
    DP_INIT_AS_GIVEN = 0,      /* the model's weights as they are (dp_linear_init: zeros) */
    DP_INIT_UNIFORM_FAN_IN = 1 /* dp_linear_init_uniform_fan_in from the run seed */
} dp_init;

#define DP_DPLIS_MAX_SAMPLES 1000

typedef struct dp_train_cfg {
    dp_algorithm algorithm;
    int epochs;                /* >= 1 */
    size_t batch_size;         /* b (expected size for Poisson), 1 <= b <= n */
    dp_sampling sampling;
    dp_lr_schedule lr_schedule;
    double lr;                 /* constant / step: base rate */
    double lr_a;               /* inverse_t: a */
    long lr_step_at;           /* step: iteration of the decay (>= 1) */
    double lr_step_factor;     /* step: multiplier (e.g. 0.1) */
    double clip;               /* C > 0, may be INFINITY (no clipping) */
    double noise_multiplier;   /* sigma >= 0 (noise std = sigma * C) */
    dp_update update;          /* DP_UPDATE_SGD (the zero value) or DP_UPDATE_ADAM */
    double adam_beta1;         /* Adam: in [0, 1), e.g. 0.9 */
    double adam_beta2;         /* Adam: in [0, 1), e.g. 0.999 */
    double adam_eps;           /* Adam: > 0, e.g. 1e-8 */
    double smoothing;          /* DP-LSSGD's s >= 0 (finite); 0: no smoothing */
    int dplis_samples;         /* DPlis's K >= 0: per-example gradients averaged over K
                                  perturbed copies of the weights; 0: off */
    double dplis_radius;       /* DPlis's R >= 0 (finite): perturbation std
                                  R eta_t sigma C / b; 0: off */
    int dplis_sum;             /* 1: the K gradients summed before clipping (DPlis's code),
                                  not averaged (0, the paper's eq. 6); equal when K = 1 */
    double dplis_sigma_fixed;  /* > 0: the perturbation std itself (finite), instead of
                                  R eta_t sigma C / b, so the smoothed loss needs no privacy
                                  noise: DPlis App. D's PATE student (sgd with K > 0) */
    int eval_every;            /* evaluate every this many epochs (>= 1); always at the end */
    const int *eval_epochs;    /* also at the end of each of these epochs (read-outs: one run
                                  read at several points; ascending, in 1..epochs); n_eval_
                                  epochs of them, NULL/0: none. Evaluation reads the weights
                                  only: the training is the same bits with or without them */
    size_t n_eval_epochs;
    long max_steps;            /* > 0: stop after this many steps even within an epoch (a
                                  horizon drawn at random, Zhang17 Alg. 2's R); 0: none */
    uint64_t seed;             /* run seed: streams DP_STREAM_INIT/BATCH/NOISE derive from it */
    int secure_noise;          /* 1: the privacy noise from getrandom on a grid, not from
                                  DP_STREAM_NOISE (base/noise_source.h); not reproducible */
    /* DP-LSSGD's released protocol, piece by piece; every zero value is the loop above. */
    dp_clip_mode clip_mode;    /* dp_sgd only (sgd clips nothing) */
    dp_partial_batch partial_batch; /* shuffle sampling only (full: no leftover) */
    dp_l2_placement l2_placement;
    dp_smoothing_layout smoothing_layout; /* linear models; deep: per tensor anyway */
    dp_init init;              /* linear models only (dp_train_model refuses the others) */
} dp_train_cfg;

/* One evaluation point of a curve. */
typedef struct dp_curve_point {
    long iteration;            /* steps done */
    double epoch;              /* iteration * b / n */
    double train_loss;         /* mean data loss + mu/2 ||w||^2 on the training set */
    double test_loss;          /* mean data loss on the test set */
    double test_accuracy;      /* classification; NaN for a regression model */
    double test_rmse;          /* regression: sqrt(mean (s_i - t_i)^2); NaN for a classifier */
    double grad_norm;          /* ||full-batch gradient of the regularized objective|| */
} dp_curve_point;

typedef struct dp_train_result {
    int diverged;              /* 1 if a NaN/inf appeared: metrics hold the last finite point */
    long iterations;
    dp_curve_point final;      /* metrics at the end of training */
    dp_curve_point *curve;     /* owned, n_curve points in order (the last equals final) */
    size_t n_curve;
    double noise_std;          /* sigma * C actually added per coordinate of the sum (0 for
                                  sgd); batch-mean clipping adds noise_std / b to the mean,
                                  the same noise on the mean */
    double max_example_grad_norm; /* dp_sgd: the largest norm of a per-example gradient of
                                  the data loss (before clipping; DPlis: of the K-average,
                                  or of the K-sum with dplis_sum) over the training
                                  examples of every step taken; NaN when not tracked: sgd,
                                  and per-example dp_sgd with C = inf (noise-free, sgd bit
                                  for bit, so no norms are formed) */
} dp_train_result;

/* Validate cfg against the data (names the bad field in err), then train m in place from
 * its current weights (cfg->init DP_INIT_UNIFORM_FAN_IN: from weights drawn by
 * dp_linear_init_uniform_fan_in with cfg->seed, after validation) on train, evaluating
 * on test. Returns 0 (also when training diverged: result->diverged says so), DP_EINVAL,
 * or DP_ENOMEM. The result must be released with dp_train_result_destroy whatever is
 * returned. */
int dp_train_linear(dp_linear *m, const dp_train_cfg *cfg, const double *x_train,
                    const int *y_train, size_t n_train, const double *x_test,
                    const int *y_test, size_t n_test, dp_train_result *result, dp_err *err);

/* The same for a regression model (dp_linear_init_regression: squared or Huber loss) on
 * real targets t_train / t_test (finite). Curve points carry test_rmse; test_accuracy is
 * NaN. Validation as dp_train_linear, the targets checked instead of labels. */
int dp_train_linear_reg(dp_linear *m, const dp_train_cfg *cfg, const double *x_train,
                        const double *t_train, size_t n_train, const double *x_test,
                        const double *t_test, size_t n_test, dp_train_result *result,
                        dp_err *err);

void dp_train_result_destroy(dp_train_result *r);

#endif
