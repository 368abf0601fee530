/* store.h: the results folder of an experiment: runs.jsonl, summary.csv, the sweep
 * manifest, and atomic writes.
 *
 * Layout of results/<experiment>/ (or --out DIR):
 *   config.yaml   the experiment file as given (copied at sweep start; report reads it)
 *   sweep.json    the manifest: experiment, scale, --only filters, every expanded run id
 *   runs.jsonl    one JSON object per finished run (record schema below), appended as
 *                 whole lines by one process with one write(2) each, fsync'd
 *   runs.<I>-of-<N>.jsonl  the same, written by shard I of N (dperm run --shard I/N);
 *                 `dperm merge` combines every file into runs.jsonl
 *   summary.csv   one flat row per run, rewritten atomically at the end of a sweep
 *
 * Record (schema 1), one line of runs.jsonl:
 *   {"schema": 1, "id": "16 hex", "index": N, "experiment": "...",
 *    "status": "ok" | "diverged" | "failed", "message": "..." (failed only),
 *    "config": { resolved run config },
 *    "metrics": {"test_accuracy", "test_loss", "train_loss", "grad_norm", "iterations",
 *                "epochs", "epsilon", "epsilon_spent", "delta", "noise_multiplier",
 *                "noise_std", "accountant", "cpu_seconds", "wall_seconds"},
 *    "curves": {"iteration": [...], "epoch": [...], "train_loss": [...],
 *               "test_loss": [...], "test_accuracy": [...], "grad_norm": [...]},
 *    "provenance": {"dperm_version", "git_revision", "blas_core", "libraries": {...},
 *                   "host", "started", "finished"}}
 * Non-finite numbers are written as null (JSON has no NaN); the schema version, the status
 * words and which records count as failed are record.h's. A record with
 * "same_run_as": "ID" copies run ID's record under its own id, index and config: its run
 * trains what run ID trained and did not train again (shared_runs.h).
 *
 * Atomicity: files are replaced by write-temp + fsync + rename + fsync(dir); a reader
 * ignores a final line without its newline (a kill mid-write), and store_sweep_open
 * (folder.h) cuts it off before the next append.
 */
#ifndef DPERM_STORE_H
#define DPERM_STORE_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

/* Read every complete record of DIR/runs.jsonl and of the shard files
 * DIR/runs.<I>-of-<N>.jsonl (in name order) and combine them into one record per run id
 * (merge.h's rules: equal results once, a failed record gives way to a success) in a new
 * JSON array (*records, caller json_decref's). So every reader of a folder (run --resume,
 * report, summary, merge) sees the same runs, whether or not the shards were merged.
 * A trailing line without newline is ignored; any other unparsable line is DP_EDATA
 * naming FILE:LINE; two different results for one id are DP_EDATA naming both places.
 * A folder with no record file at all is DP_EIO with a hint. */
int store_load(const char *dir, json_t **records, dp_err *err);

typedef struct store_load_info {
    size_t n_files;       /* record files read */
    size_t n_read;        /* records read */
    size_t n_duplicates;  /* dropped: the same result was already read */
    size_t n_superseded;  /* dropped: failed records of runs that later succeeded */
} store_load_info;

/* store_load, also saying what was read and dropped (info may be NULL). */
int store_load_stats(const char *dir, json_t **records, store_load_info *info, dp_err *err);

/* 1 when DIR holds runs.jsonl or a shard file, else 0. Cannot fail. */
int store_has_records(const char *dir);

/* The complete records of one file, as they are (no combining), into a new array.
 * DP_EIO when it cannot be read, DP_EDATA for a malformed line. */
int store_load_file(const char *path, json_t **records, dp_err *err);

/* Write `len` bytes to path atomically (temp file in the same folder, fsync, rename,
 * fsync folder). On failure the old file is untouched, the temporary is removed and errno
 * says why (ENOSPC, EFBIG, ...). */
int store_write_atomic(const char *path, const char *data, size_t len, dp_err *err);

/* Remove from dir the temporaries of store_write_atomic ("NAME.tmp.HOST.PID") that a
 * process of this machine left when it was killed before renaming them (the PID is no
 * longer alive). Other machines' temporaries and live writers' are kept. Best effort:
 * cannot fail. */
void store_remove_stale_temps(const char *dir);

/* Append one record as one line (compact JSON + '\n') with a single write(2) on an
 * O_APPEND descriptor, then fsync. A short write is undone by truncating back. */
int store_append_record(int fd, const char *path, json_t *record, dp_err *err);

/* Compact JSON text of v with numbers written in their shortest round-trip form and
 * non-finite reals as null (jansson prints 0.1 as 0.10000000000000001). Caller frees. */
char *store_json_dumps(json_t *v, int sort_keys);

/* Read a whole file into a new NUL-terminated buffer (*out, caller frees; *len bytes
 * before the NUL). DP_EIO naming the file when it cannot be read. */
int store_read_file(const char *path, char **out, size_t *len, dp_err *err);

/* Make the folder and its parents (mkdir -p). */
int store_mkdirs(const char *path, dp_err *err);

#endif
