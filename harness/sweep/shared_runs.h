/* shared_runs.h: grid runs that train the same model. A non-private run does not read
 * epsilon (it spends no privacy: spec.h's algo->private_), so the runs of a grid that
 * differ from it only in epsilon train exactly what it trains. Such a group trains once;
 * the record of every other member is a copy of the trained run's record under the
 * member's own id, index and config, marked "same_run_as": ID of the run that trained
 * (store.h). Reports then show one training run per cell that needs it, and say so.
 */
#ifndef DPERM_SHARED_RUNS_H
#define DPERM_SHARED_RUNS_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"
#include "harness/grid/grid.h"
#include "harness/spec/spec.h"

/* group[i] (n entries, caller frees) = the first run of runs[0..n) that trains what run i
 * trains (i itself for a run that shares with no earlier one). *n_shared counts the runs
 * with group[i] != i. 0 or DP_ENOMEM. */
int shared_runs_group(const grid_run *runs, const run_spec *specs, size_t n, size_t **group,
                      size_t *n_shared, dp_err *err);

/* The record of `run` from the record `trained` of a run of its group: a deep copy with
 * run's id, index and config and "same_run_as" naming the run that trained (trained's
 * own same_run_as when it is a copy itself). NULL on ENOMEM. */
json_t *shared_runs_copy(json_t *trained, const grid_run *run);

#endif
