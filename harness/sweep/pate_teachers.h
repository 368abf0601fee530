/* pate_teachers.h: PATE's teachers, trained once per ensemble before a sweep's workers
 * start, as a small sweep of their own.
 *
 * An ensemble is what the teachers depend on: the dataset block and the teachers block
 * (spec_teachers.c). Its folder is RESULTS/teachers/KEY (KEY: 16 hex digits of the
 * SHA-256 of those two blocks as canonical JSON). Teacher i's labels of the public set
 * are KEY/i.labels, one byte per public example, written atomically by the worker that
 * trained it, and KEY/teachers.jsonl holds one line per teacher trained (rows, test
 * accuracy, seconds). A label file of the right size is a finished teacher: a killed or
 * resumed sweep trains only the missing ones, in parallel (-j workers). The parent then
 * reads every label file into one vote table, whose SHA-256 each PATE record carries,
 * and hands it to the runs (run_spec.teacher_votes), so every aggregator setting of the
 * grid reads the same votes.
 */
#ifndef DPERM_PATE_TEACHERS_H
#define DPERM_PATE_TEACHERS_H

#include <stdio.h>

#include "algorithms/privacy/pate_votes.h"
#include "harness/grid/grid.h"
#include "harness/spec/spec.h"
#include "harness/sweep/data_cache.h"

typedef struct pate_ensemble {
    char key[17];
    char sha256[65];      /* of the label files in teacher order */
    dp_pate_votes votes;
} pate_ensemble;

typedef struct pate_teachers {
    pate_ensemble *e;
    size_t n;
} pate_teachers;

/* For every planned pate run runs[todo[j]], j < n_todo (specs[todo[j]], data bound):
 * train the missing
 * teachers of its ensemble under dir (the sweep's results folder, which exists) with
 * `jobs` workers, read the votes, and point specs[i].teacher_votes at them. Progress
 * goes to `progress` (NULL: quiet). A teacher count above the training rows, or a
 * teacher batch above a part's rows, is DP_ECONFIG at the key; a teacher that fails is
 * DP_EINVAL with its message. t is filled (pate_teachers_destroy frees it). */
int pate_teachers_prepare(run_spec *specs, const grid_run *runs, const size_t *todo,
                          size_t n_todo, data_cache *data, const char *dir, int jobs,
                          FILE *progress, pate_teachers *t, dp_err *err);
void pate_teachers_destroy(pate_teachers *t);

/* The checks of pate_teachers_prepare that need no training (teacher configs, count,
 * batch), for runs[0..n): before the results folder is touched. */
int pate_teachers_check(const run_spec *specs, const grid_run *runs, size_t n,
                        data_cache *data, dp_err *err);

#endif
