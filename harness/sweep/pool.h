/* pool.h: running jobs in worker processes, at most N at once.
 *
 * Each job runs in its own forked process (a crash in one run cannot take the sweep
 * down, and each worker sets its own thread budget, dp_set_threads). The child writes its record to
 * a temporary file with store_write_atomic and exits; the parent, the only writer of
 * runs.jsonl, reads it after the child has exited, so a record is seen whole or not at
 * all. Children are killed when the parent dies (PR_SET_PDEATHSIG), so a kill -9 of
 * `dperm run` leaves no orphan workers. Determinism does not depend on scheduling: a job's
 * result is a function of the job alone.
 */
#ifndef DPERM_POOL_H
#define DPERM_POOL_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

/* Runs in the child: returns the job's record (a new reference) or NULL on out of
 * memory. A run that fails for its own reasons returns a record with status "failed". */
typedef json_t *(*pool_run_fn)(size_t job, void *ctx);

/* Runs in the parent for each finished job, in completion order: record is the child's
 * record, or NULL when the child died without one (failure then says how). A non-zero
 * return stops the pool (no new jobs; running ones are awaited) and is returned. */
typedef int (*pool_done_fn)(size_t job, json_t *record, const char *failure, void *ctx,
                            dp_err *err);

typedef struct pool_opts {
    int workers;          /* >= 1 */
    int threads;          /* dperm threads in each worker (dp_set_threads) */
    const char *tmpdir;   /* folder for the children's record files (exists) */
} pool_opts;

/* Run jobs[0..n) with opts. Returns 0 when every job was handed to done_fn; DP_ESTATE
 * when interrupted by SIGINT/SIGTERM (running workers are stopped, err says so); done_fn's
 * error; or DP_EIO when fork fails. */
int pool_run(const size_t *jobs, size_t n, const pool_opts *opts, pool_run_fn run,
             pool_done_fn done, void *ctx, dp_err *err);

#endif
