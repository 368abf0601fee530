/* folder.h: an experiment's results folder (store.h's layout) opened for a sweep: the
 * checks that keep one folder to one experiment, one scale and one grid; which runs are
 * already done; and the repairs a killed sweep leaves to the next one.
 *
 * Two steps, because the caller decides what to run between them:
 *   store_sweep_check  reads only: refuses a results root, a folder already holding
 *                      records without --resume, another scale or (for a shard) another
 *                      grid; loads the records and says which runs are done;
 *   store_sweep_open   writes: makes the folder and its workers' folder, removes stale
 *                      temporaries, writes the given files and the manifest atomically,
 *                      drops the failed records of this process's file (they are retried)
 *                      or cuts a line a kill left without its newline, and opens the
 *                      file for appending.
 * A failing check writes nothing, so a config or state error leaves the folder as it was.
 */
#ifndef DPERM_STORE_FOLDER_H
#define DPERM_STORE_FOLDER_H

#include <limits.h>
#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

/* The empty file that marks a folder holding experiments' folders and their index
 * (results/, results/quick/ of make reproduce): no experiment's runs go into it. */
#define STORE_RESULTS_MARK ".dperm-results"

/* "schema" of the sweep manifest (sweep.json) this build writes. */
#define STORE_MANIFEST_SCHEMA 1

typedef struct store_sweep_opts {
    const char *dir;          /* the experiment's folder */
    const char *config;       /* the experiment file, for messages */
    const char *runs_file;    /* this process's record file: runs.jsonl or runs.I-of-N.jsonl */
    const char *work_dir;     /* the workers' folder inside dir: .work or .work.I-of-N */
    const char *shard;        /* "I/N" for a shard (whose file only is its own), else NULL */
    int resume;               /* continue a folder that already holds this sweep's records */
    int mark_parent;          /* mark dir's parent a results root even if it existed */
    json_t *manifest;         /* sweep.json: {"schema", "experiment", "scale", "ids"} */
} store_sweep_opts;

typedef struct store_sweep {
    char runs_path[PATH_MAX + 64];
    char work_path[PATH_MAX + 32];
    int fd;                   /* runs_path, O_APPEND (store_sweep_open), else -1 */
    json_t *records;          /* the folder's records combined (store_load), or NULL */
    json_t *last;             /* id -> its last record in the folder */
    json_t *own;              /* runs_path's records as they are, or NULL */
    json_t *recorded;         /* the folder's sweep.json, or NULL */
    int grid_changed;         /* a whole sweep over a grid other than the recorded one */
    size_t n_new, n_kept, n_gone; /* then: ids to run, recorded and kept, recorded and gone */
} store_sweep;

/* The reading step (above). f is initialised here; store_sweep_close releases it, even
 * after an error. DP_ESTATE with a hint for a folder in another sweep's state, DP_EIO or
 * DP_EDATA for records that cannot be read. */
int store_sweep_check(const store_sweep_opts *o, store_sweep *f, dp_err *err);

/* The done record of run `id` (its last record, unless that one failed: record.h), or
 * NULL when the run is to run. */
json_t *store_sweep_done(const store_sweep *f, const char *id);

/* A file store_sweep_open writes atomically into the folder. */
typedef struct store_text {
    const char *name;
    const char *text;
    size_t len;
} store_text;

/* The writing step (above); then f->fd appends to f->runs_path. */
int store_sweep_open(const store_sweep_opts *o, store_sweep *f, const store_text *files,
                     size_t n_files, dp_err *err);

/* Close the record file and free what the check read. */
void store_sweep_close(store_sweep *f);

#endif
