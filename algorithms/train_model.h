/* train_model.h: mini-batch SGD and DP-SGD on the layered models of models/model.h (MLPs,
 * CNNs), with the same configuration, curves and conventions as dp_train_linear.
 *
 * The algorithm is train.h's, step for step (one loop, train_common.c, serves both):
 *   batch B_t by shuffle, Poisson (rate q = b/n) or wor sampling from DP_STREAM_BATCH,
 *   g = (sum_i g_i / max(1, ||g_i|| / C) + N(0, sigma^2 C^2 I)) / b   (noise from
 *        DP_STREAM_NOISE; b the configured batch size, also for Poisson),
 *   w -= eta_t (g + l2 w),
 * steps per epoch max(1, floor(n / b)); sgd is the same loop with no clipping and no
 * noise, so it is bit-identical to dp_sgd with sigma = 0 and C = inf.
 */
#ifndef DPERM_TRAIN_MODEL_H
#define DPERM_TRAIN_MODEL_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"

/* Validate cfg, l2 and the labels against m (each message names its field: train.*,
 * algorithm.*, model.l2), then train m's parameters in place from their current values
 * on x_train (n_train, m->in_size) with labels y_train, evaluating on the test set at
 * iteration 0, every cfg->eval_every epochs and at the end. l2 >= 0 is the weight of
 * l2/2 ||w||^2 (all parameters, biases included), outside the clipped, noised part.
 * Curve points: train_loss = mean data loss on the training set + l2/2 ||w||^2,
 * grad_norm = ||full-batch gradient of that objective||, test loss and accuracy as
 * dp_model_evaluate. The data must stay alive and unchanged during the call.
 *
 * Memory: a gather buffer of min(n_train, m->max_batch) rows, the (n_train) index array
 * and two (n_params) buffers, all allocated before the first step; steps and evaluations
 * allocate nothing. The model's workspaces are used throughout (not thread-safe).
 * Returns 0 (also when training diverged: result->diverged = 1, m holds the last finite
 * weights and result's metrics are finite), DP_EINVAL (m untouched), or DP_ENOMEM. The
 * result must be released with dp_train_result_destroy whatever is returned. */
int dp_train_model(dp_model *m, const dp_train_cfg *cfg, double l2, const double *x_train,
                   const int *y_train, size_t n_train, const double *x_test,
                   const int *y_test, size_t n_test, dp_train_result *result, dp_err *err);

/* One curve point's metrics (train_loss: mean data loss + l2/2 ||w||^2 on the training
 * set, grad_norm of that objective, test loss and accuracy) of m's current weights, in the
 * trainer's arithmetic; iteration and epoch are left as they are. For metrics on other
 * data than the model was trained on (input perturbation's clean rows, an optimality gap).
 * 0, DP_EINVAL (empty data or a label outside the classes) or DP_ENOMEM. */
int dp_model_curve_point(dp_model *m, double l2, const double *x_train, const int *y_train,
                         size_t n_train, const double *x_test, const int *y_test,
                         size_t n_test, dp_curve_point *pt, dp_err *err);

#endif
