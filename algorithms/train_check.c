/* train_check.c: validation of a dp_train_cfg and of the labels, for every trainer of
 * the first-order loop (train.c, train_model.c). Each message names the config field
 * (train.*, algorithm.*) so the harness can point at it.
 *
 * Choices: sgd ignores clip, noise and clip_mode (it clips nothing); partial_batch keep
 * needs shuffled passes (Poisson and wor batches have no partial batch; the full batch
 * has none to keep, so it is accepted there and changes nothing).
 */
#include "algorithms/train_common_int.h"

#include <math.h>

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
    if (c->partial_batch != DP_PARTIAL_DROP && c->partial_batch != DP_PARTIAL_KEEP)
        return dp_err_set(err, DP_EINVAL, "train.partial_batch: unknown setting %d",
                          (int)c->partial_batch);
    if (c->partial_batch == DP_PARTIAL_KEEP && c->sampling != DP_SAMPLING_SHUFFLE &&
        c->sampling != DP_SAMPLING_FULL)
        return dp_err_set(err, DP_EINVAL, "train.partial_batch keep needs train.sampling "
                          "shuffle (%s batches have no partial batch)",
                          c->sampling == DP_SAMPLING_POISSON ? "Poisson" : "wor");
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
    if (c->l2_placement != DP_L2_IN_GRADIENT && c->l2_placement != DP_L2_AFTER_SMOOTHING)
        return dp_err_set(err, DP_EINVAL, "train.l2_placement: unknown placement %d",
                          (int)c->l2_placement);
    if (c->smoothing_layout != DP_SMOOTH_VECTOR && c->smoothing_layout != DP_SMOOTH_PER_TENSOR)
        return dp_err_set(err, DP_EINVAL, "algorithm.smoothing_layout: unknown layout %d",
                          (int)c->smoothing_layout);
    if (c->init != DP_INIT_AS_GIVEN && c->init != DP_INIT_UNIFORM_FAN_IN)
        return dp_err_set(err, DP_EINVAL, "model.init: unknown initialization %d",
                          (int)c->init);
    if (!(c->smoothing >= 0.0) || !isfinite(c->smoothing))
        return dp_err_set(err, DP_EINVAL, "algorithm.smoothing %g must be finite and >= 0",
                          c->smoothing);
    if (c->dplis_samples < 0 || c->dplis_samples > DP_DPLIS_MAX_SAMPLES)
        return dp_err_set(err, DP_EINVAL, "algorithm.samples %d must be in 0..%d",
                          c->dplis_samples, DP_DPLIS_MAX_SAMPLES);
    if (!(c->dplis_radius >= 0.0) || !isfinite(c->dplis_radius))
        return dp_err_set(err, DP_EINVAL, "algorithm.radius %g must be finite and >= 0",
                          c->dplis_radius);
    if (!(c->dplis_sigma_fixed >= 0.0) || !isfinite(c->dplis_sigma_fixed))
        return dp_err_set(err, DP_EINVAL, "algorithm.smooth_sigma %g must be finite and >= 0",
                          c->dplis_sigma_fixed);
    switch (c->lr_schedule) {
    case DP_LR_CONSTANT:
        if (!(c->lr > 0.0) || !isfinite(c->lr))
            return dp_err_set(err, DP_EINVAL, "train.lr.value %g must be finite and > 0",
                              c->lr);
        break;
    case DP_LR_INVERSE_T:
    case DP_LR_INVERSE_SQRT_T:
    case DP_LR_INVERSE_EPOCH:
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
    if (c->n_eval_epochs && !c->eval_epochs)
        return dp_err_set(err, DP_EINVAL, "%zu read-out epochs given without the list",
                          c->n_eval_epochs);
    for (size_t i = 0; i < c->n_eval_epochs; i++)
        if (c->eval_epochs[i] < 1 || c->eval_epochs[i] > c->epochs ||
            (i && c->eval_epochs[i] <= c->eval_epochs[i - 1]))
            return dp_err_set(err, DP_EINVAL, "read-out epoch %d: the list must ascend "
                              "within 1..%d (train.epochs)", c->eval_epochs[i], c->epochs);
    if (c->algorithm == DP_ALGO_DP_SGD) {
        if (c->clip_mode != DP_CLIP_PER_EXAMPLE && c->clip_mode != DP_CLIP_BATCH_MEAN_PER_TENSOR)
            return dp_err_set(err, DP_EINVAL, "algorithm.clip_mode: unknown clip mode %d",
                              (int)c->clip_mode);
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
