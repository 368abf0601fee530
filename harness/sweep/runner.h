/* runner.h: executing one run and turning it into a record (store.h's schema).
 *
 * The parent plans every run (plan.h: validates it and calibrates its noise) before any
 * worker starts, so a bad config or an unreachable epsilon stops the sweep before
 * anything is written; the worker then only computes.
 */
#ifndef DPERM_RUNNER_H
#define DPERM_RUNNER_H

#include <jansson.h>

#include "harness/grid/grid.h"
#include "harness/spec/spec.h"

/* Run it; the record's status is ok, diverged or failed (with message). Returns a new
 * reference, or NULL on out of memory. */
json_t *runner_execute(const grid_run *run, const run_spec *spec);

/* PATE's teacher `index` of `count`: train teacher (a planned first-order run on real
 * data) on part index of its training rows (dp_dataset_part), write its labels of the
 * public set (dataset.split.public), one byte each, to labels_path (atomically), and
 * return {index, rows, test_accuracy, iterations, wall_seconds, status, and labels_sha256
 * or message}; NULL on out of memory. */
json_t *runner_teacher(const grid_run *run, const run_spec *teacher, size_t count,
                       size_t index, const char *labels_path);

#endif
