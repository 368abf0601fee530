/* runner.h: executing one run and turning it into a record (store.h's schema).
 *
 * The parent validates every run (spec_from_config) and calibrates its noise before any
 * worker starts, so a bad config or an unreachable epsilon stops the sweep before
 * anything is written; the worker then only computes.
 */
#ifndef DPERM_RUNNER_H
#define DPERM_RUNNER_H

#include <jansson.h>

#include "harness/grid/grid.h"
#include "harness/spec/spec.h"

/* Number of optimizer steps a spec will take: epochs * max(1, n_train / batch_size). */
long runner_planned_steps(const run_spec *s);

/* For private runs with a target epsilon: find the noise multiplier (RDP accountant,
 * Poisson rate q = b / n_train over the planned steps) and store it in s->train.
 * `at` (the epsilon node) positions the error when the target cannot be reached.
 * Non-private runs and runs with an explicit noise_multiplier are left unchanged. */
int runner_calibrate(run_spec *s, const cfg_node *at, dp_err *err);

/* After calibration: turn s's epsilon read-outs (train.readout.epsilon) into epochs, the
 * first epoch at whose end the run's accountant reaches each target, merged with the
 * epoch read-outs in epoch order. An epsilon the run never reaches is DP_ECONFIG at
 * `train` (the run's train block), saying which train.epochs would reach it. */
int runner_plan_readouts(run_spec *s, const cfg_node *train, dp_err *err);

/* Run it; the record's status is ok, diverged or failed (with message). Returns a new
 * reference, or NULL on out of memory. */
json_t *runner_execute(const grid_run *run, const run_spec *spec);

#endif
