/* driver.h: algorithms with a driver of their own (SPEC_KIND_DRIVER): algorithms whose
 * structure is not the first-order loop of algorithms/train.h (exact ERM, output,
 * objective and input perturbation, RRPSGD, ...), designed for linear models; those whose
 * privacy does not rest on convexity (input perturbation, Bassily et al.'s SGD, RRPSGD)
 * also run on deep models (run_deep).
 *
 * A driver reads its settings from the run config itself, twice: check() in the parent
 * when the sweep is validated (so a bad value stops the sweep before anything runs, with
 * its FILE:LINE:COL), and run() in the worker, from the same config (the grid keeps it),
 * so no per-algorithm settings travel in run_spec. Both use the driver's one parser.
 */
#ifndef DPERM_DRIVER_H
#define DPERM_DRIVER_H

#include <jansson.h>

#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"
#include "datasets/dataset.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

typedef struct driver {
    const char *name; /* the algorithm's name in spec_algorithm.c's table */
    /* Validate root's algorithm and train blocks (train may be absent) for this
     * algorithm; fill what the harness needs of out->train (epochs: the iterations it
     * will report, eval_every). 0 or DP_ECONFIG with a position. */
    int (*check)(const cfg_node *root, run_spec *out, dp_err *err);
    /* Train on tr, evaluate on te: leave the released model in *m (zeroed on entry; the
     * driver initializes it, dp_linear_init or _init_regression, and the runner destroys
     * it), fill res (final point and curve, noise_std) and add to metrics whatever the run
     * should record besides the standard ones (for a private run: epsilon_spent,
     * accountant, noise scales, sensitivity). 0, or a DP_E* code with err set (the run is
     * then recorded as failed). */
    int (*run)(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err);
    /* The same on a deep model (model.type mlp, mlp_inputpert, ...), or NULL: linear
     * models only. m is built (spec_build_model: initial weights drawn) and owned by the
     * runner; the driver trains it in place. check() sees out->deep and validates the
     * settings a deep model needs (a clip for the Lipschitz bound, an explicit step). */
    int (*run_deep)(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
                    const dp_dataset *te, dp_model *m, dp_train_result *res, json_t *metrics,
                    dp_err *err);
} driver;

/* Every driver, NULL-terminated. A driver holds functions only: its algorithm's name,
 * description, source and keys are spec_algorithm.c's table, the one table of what dperm
 * runs (test_registry checks that the two name the same algorithms). */
const driver *const *driver_list(void);

/* The driver of algorithm `name`, or NULL. */
const driver *driver_find(const char *name);

#endif
