/* driver_common.h: what the drivers of the convex private algorithms share
 * (output_pert.c, rrpsgd.c, bassily.c, input_pert.c): the train block
 * they accept, the public feature bound, the data sets as the algorithms read them, a
 * stand-in model for checks before any data exist, and the privacy part of the record.
 */
#ifndef DPERM_DRIVER_COMMON_H
#define DPERM_DRIVER_COMMON_H

#include <jansson.h>

#include "algorithms/convex_common.h"
#include "harness/drivers/driver.h"

/* The train block of a driver that takes its settings from algorithm.* keys: absent, or
 * a map of the first-order train keys (so a grid may share it with first-order
 * algorithms), of which only eval_every (>= 1, default 1) is read. DP_ECONFIG at an
 * unknown key or a bad eval_every. */
int drv_read_train(const cfg_node *root, long *eval_every, dp_err *err);

/* algorithm.noise: on (default, *on = 1) | off (*on = 0): DEBUG ONLY, the algorithm
 * without its noise (the library's noise switch), i.e. its non-private counterpart. */
int drv_read_noise(const cfg_node *algo, int *on, dp_err *err);

/* The privacy metrics of a noise-off debug run: epsilon_spent and delta null (no
 * privacy), accountant saying so, metrics.noise "off". */
void drv_noise_off_metrics(json_t *metrics);

/* One metrics.warnings entry per train key given but ignored (all but eval_every). */
void drv_note_ignored_train(const cfg_node *root, json_t *metrics);

/* algorithm.feature_bound: B > 0 and finite, default 1 (dperm's synthetic rows and
 * dataset.normalize: unit_l2 rows lie in the unit ball). */
int drv_read_feature_bound(const cfg_node *algo, double *B, dp_err *err);

/* algorithm.clip: on a deep model required, > 0 and finite (the Lipschitz bound the
 * algorithm enforces by clipping); on a linear model an error if given (*clip = 0). */
int drv_read_clip(const cfg_node *algo, const run_spec *s, double *clip, dp_err *err);

/* The sets the algorithms read (classification or regression after the data). */
void drv_sets(const dp_dataset *tr, const dp_dataset *te, dp_cvx_set *a, dp_cvx_set *b);

/* A model description without weights (loss, l2, sizes) for a plan made in check(), when
 * the feature count and classes are known (synthetic data: 1; real data before binding:
 * 0, nothing filled). */
int drv_shape(const run_spec *s, dp_linear *m);

/* Initialize *m for the run's data: dp_linear_init, or dp_linear_init_regression for
 * model.type squared | huber. */
int drv_init_model(const run_spec *s, const dp_dataset *tr, dp_linear *m, dp_err *err);

/* A library error met in check() as a config error at node n (its message kept). */
int drv_config_error(dp_err *err, const cfg_node *n, const char *what);

/* metrics.epsilon_spent, delta (the delta spent) and accountant. */
void drv_privacy_metrics(json_t *metrics, double eps, double delta, const char *accountant);

/* The privacy truth of a private run, beside what the calibration claims (docs/privacy.md,
 * "Privacy truth"):
 *   metrics.epsilon_claimed   what the calibrating theorem or accountant says (null when
 *                             not finite),
 *   metrics.epsilon_tight     the smallest epsilon at the run's delta that a valid
 *   metrics.tight_accountant  accountant gives for the mechanism as it ran (its sampling,
 *                             neighbour relation, steps and noise), and that accountant;
 *                             both null when there is none, with metrics.epsilon_tight_note
 *                             = note saying why,
 *   metrics.privacy_verdict   "holds" (tight <= claimed, or no finite claim), "not_confirmed"
 *                             (tight > claimed: the claim may be right, dperm cannot confirm
 *                             it), "none" (tight is null: no valid guarantee).
 * tight NaN or +inf means "none". This function can't fail (allocation failures leave keys
 * out, as every metrics writer here). */
void drv_privacy_truth(json_t *metrics, double claimed, double tight,
                       const char *tight_accountant, const char *note);

/* Append a warning to metrics.warnings (an array of strings). */
void drv_warn(json_t *metrics, const char *text);

/* metrics[key] = v, null when not finite. */
void drv_num(json_t *metrics, const char *key, double v);

#endif
