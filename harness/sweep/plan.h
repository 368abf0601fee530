/* plan.h: planning a run: one resolved run config to a run_spec a worker can execute.
 *
 * Four steps, in this order, each once in the parent before any worker starts, so a bad
 * config, missing data or an unreachable epsilon stops the sweep before anything is
 * written:
 *   check      the schema (spec_from_config), then the algorithm's driver, if it has one
 *              (driver.h), on its own keys;
 *   bind       the real dataset, loaded once per sweep (data_cache.h);
 *   calibrate  the noise multiplier that spends exactly the run's epsilon over its
 *              planned steps (the accountant of privacy.accountant);
 *   read-outs  the epochs at which each train.readout.epsilon target is reached.
 * `dperm run` plans every run with plan_run; `dperm slurm` checks (it binds no data);
 * `dperm audit` checks, binds, checks its own trial needs, then calibrates.
 */
#ifndef DPERM_PLAN_H
#define DPERM_PLAN_H

#include "harness/config/config.h"
#include "harness/spec/spec.h"
#include "harness/sweep/data_cache.h"

/* Validate `run` (a resolved run config) into out: spec_from_config, then for an
 * algorithm with a driver, the driver's own check (a deep model needs a driver that runs
 * one). DP_ECONFIG at the offending value. */
int plan_check(const cfg_node *run, run_spec *out, dp_err *err);

/* Steps of one epoch as the trainer counts them (train_common.c); 1 for a driver's own
 * iterations. */
long plan_steps_per_epoch(const run_spec *s);

/* Number of optimizer steps a spec will take: epochs * plan_steps_per_epoch. */
long plan_steps(const run_spec *s);

/* 1 when s is a private run of the first-order loop: its noise is calibrated and
 * accounted by the harness (a driver does both itself). */
int plan_is_private(const run_spec *s);

/* The epsilon accountant a gives s after `steps` steps (the run's own accountant, or one
 * of privacy.also_report), and what it is in accountant[0..size); INFINITY when a does
 * not analyse the run (non-private, no noise, another batch sampling). */
double plan_epsilon_after(const run_spec *s, dp_accountant a, long steps, char *accountant,
                          size_t size);

/* For private runs with a target epsilon: find the noise multiplier (the run's
 * accountant, sampling rate q = b / n_train over the planned steps) and store it in
 * s->train. `at` (the epsilon node) positions the error when the target cannot be
 * reached. Non-private runs and runs with an explicit noise_multiplier are unchanged. */
int plan_calibrate(run_spec *s, const cfg_node *at, dp_err *err);

/* After calibration: turn s's epsilon read-outs (train.readout.epsilon) into epochs, the
 * first epoch at whose end the run's accountant reaches each target, merged with the
 * epoch read-outs in epoch order. An epsilon the run never reaches is DP_ECONFIG at
 * `train` (the run's train block), saying which train.epochs would reach it. */
int plan_readouts(run_spec *s, const cfg_node *train, dp_err *err);

/* Every step for run `run` into out. earlier[0..n_earlier) are runs planned before it:
 * a run with the same (algorithm, accountant, neighbours, epsilon, delta, batch, n_train,
 * steps) as one of them takes its noise multiplier instead of calibrating again (a grid
 * has few distinct ones). */
int plan_run(const cfg_node *run, data_cache *data, const run_spec *earlier, size_t n_earlier,
             run_spec *out, dp_err *err);

#endif
