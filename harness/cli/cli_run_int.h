/* cli_run_int.h: what the files of `dperm run` share: its options, the sweep the parent
 * holds (cli_run.c), and the results folder it opens and the command that continues it
 * (cli_run_folder.c).
 */
#ifndef DPERM_CLI_RUN_INT_H
#define DPERM_CLI_RUN_INT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/config/config.h"
#include "harness/grid/grid.h"
#include "harness/spec/spec.h"
#include "harness/store/folder.h"
#include "harness/sweep/data_cache.h"
#include "harness/sweep/pate_teachers.h"
#include "harness/sweep/progress.h"
#include "harness/sweep/shard.h"

typedef struct run_opts {
    const char *config;
    int jobs;
    const char *out;
    int resume, dry_run, quiet;
    const char *scale;
    char **only;
    size_t n_only;
    const char *data_dir;
    int sharded;
    shard_spec shard;
    int secure_noise;     /* --secure-noise: privacy.secure_noise: true over the YAML */
} run_opts;

/* Everything the parent knows about the sweep; shared read-only with the workers. */
typedef struct sweep {
    run_opts opt;
    cfg_doc doc;
    grid g;               /* runs to consider (after --only) */
    run_spec *specs;      /* validated + calibrated, one per g.runs[i] */
    data_cache data;      /* real datasets, loaded once before the workers fork */
    uint64_t *cost;       /* --shard: estimated cost of each kept run */
    uint64_t cost_kept, cost_all;
    char dir[PATH_MAX];
    store_sweep folder;   /* its record file (runs.jsonl or the shard's), workers' folder */
    progress prog;
    size_t n_failed;
    size_t *group;        /* shared_runs_group: the first run training what run i trains */
    size_t n_shared;      /* runs whose group is another run */
    size_t *copy_of;      /* open_folder: the run whose record run i's copies (SIZE_MAX:
                             none; run i trains, or was recorded before) */
    size_t n_copied;      /* records written as copies by this command */
    pate_teachers teachers; /* PATE's teachers' votes, read before the workers fork */
} sweep;

/* "dperm run CONFIG ... --resume" with every option that shapes the sweep (its folder, its
 * scale, the --only filters, the data folder, the shard, secure noise): the exact command
 * that continues this sweep in this folder, quoted for the shell, into buf (size n). */
void cli_run_continue_command(const sweep *s, char *buf, size_t n);

/* Open the results folder (store/folder.h) and decide what to run: fills todo[0..*n_todo)
 * with indices into s->g.runs, appends the records of runs that copy a recorded run
 * (shared_runs.h) and sets s->copy_of for those that will copy a run of this sweep. */
int cli_run_open_folder(sweep *s, size_t *todo, size_t *n_todo, dp_err *err);

#endif
