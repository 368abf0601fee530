/* train_common_int.h: the (DP-)SGD loop shared by the linear trainer (train.c) and the
 * deep-model trainer (train_model.c). Private to algorithms/: not part of any public API.
 *
 * The loop owns everything that is the same for every model: validation of dp_train_cfg
 * and of the labels, the streams DP_STREAM_BATCH and DP_STREAM_NOISE, batch sampling
 * (shuffle, Poisson, wor), the learning-rate schedule, the noise, the update
 * w -= eta (g / b + l2 w), the curve and the divergence handling. A model supplies two
 * callbacks: the (clipped) gradient sum of a batch and the metrics of its current weights
 * (Redis ae.c's backend idea: the loop only calls the ops).
 */
#ifndef DPERM_TRAIN_COMMON_INT_H
#define DPERM_TRAIN_COMMON_INT_H

#include <stddef.h>

#include "base/err.h"
#include "base/rng.h"
#include "train.h"

typedef struct dp_train_ops {
    void *ctx;        /* passed back to the callbacks */
    double *w;        /* (n_params) the weights trained in place */
    size_t n_params;
    double l2;        /* mu >= 0: the update adds mu w, neither clipped nor noised */
    /* The parameter tensors DP-LSSGD smooths one by one (flattened), as its TensorFlow
     * implementation does: tensor t is w[tensor_off[t] .. + tensor_len[t]). n_tensors = 0
     * means one tensor, the whole vector. */
    size_t n_tensors;
    const size_t *tensor_off, *tensor_len;
    /* g (n_params, zeroed by the loop) += sum over batch[0..nb) (indices into the
     * training set) of the per-example gradients of the data loss, each clipped to norm
     * clip when clip is finite, unclipped when clip = INFINITY (then it must be the plain
     * batch gradient: sgd and dp_sgd with C = inf share this path). nb may be 0 (an
     * empty Poisson batch) and may exceed cfg->batch_size. Cannot fail. */
    void (*grad_sum)(void *ctx, const size_t *batch, size_t nb, double clip, double *g);
    /* DPlis (optional: NULL when the model has none): g += sum over the batch of
     * clip( (1/K) sum_k per-example gradient at w + z_k ), z_k = sigma_s times K normal
     * vectors drawn from *rng, shared by the whole batch (models/model.h,
     * models/linear.h say exactly how); *rng moves on by K blocks. K >= 1. */
    void (*smoothed_grad_sum)(void *ctx, const size_t *batch, size_t nb, double clip, int K,
                              double sigma_s, dp_rng *rng, double *g);
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

/* Run the loop of train.h on a validated cfg (dp_train_check passed) and a zeroed
 * result: allocates the curve (owned by result), the index array and two (n_params)
 * buffers once, then trains ops->w in place. Returns 0 (also when training diverged),
 * DP_ENOMEM, or the first error of ops->evaluate; result must be destroyed either way. */
int dp_train_run(const dp_train_cfg *cfg, size_t n_train, const dp_train_ops *ops,
                 dp_train_result *result, dp_err *err);

#endif
