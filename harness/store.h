/* store.h: the results folder of an experiment: runs.jsonl, summary.csv, the sweep
 * manifest, and atomic writes.
 *
 * Layout of results/<experiment>/ (or --out DIR):
 *   config.yaml   the experiment file as given (copied at sweep start; report reads it)
 *   sweep.json    the manifest: experiment, scale, --only filters, every expanded run id
 *   runs.jsonl    one JSON object per finished run (record schema below), appended as
 *                 whole lines by one process with one write(2) each, fsync'd
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
 * Non-finite numbers are written as null (JSON has no NaN).
 *
 * Atomicity: files are replaced by write-temp + fsync + rename + fsync(dir); a reader
 * ignores a final line without its newline (a kill mid-write), and store_open repairs it.
 */
#ifndef DPERM_STORE_H
#define DPERM_STORE_H

#include <stddef.h>

#include <jansson.h>

#include "../algorithms/base/err.h"

/* Read every complete record of DIR/runs.jsonl (and shard files DIR/runs.*.jsonl, in
 * name order) into a new JSON array (*records, caller json_decref's). A trailing line
 * without newline is ignored; any other unparsable line is DP_EDATA naming FILE:LINE.
 * A missing runs.jsonl is DP_EIO with a hint. */
int store_load(const char *dir, json_t **records, dp_err *err);

/* Write `len` bytes to path atomically (temp file in the same folder, fsync, rename,
 * fsync folder). On failure the old file is untouched. */
int store_write_atomic(const char *path, const char *data, size_t len, dp_err *err);

/* Append one record as one line (compact JSON + '\n') with a single write(2) on an
 * O_APPEND descriptor, then fsync. A short write is undone by truncating back. */
int store_append_record(int fd, const char *path, json_t *record, dp_err *err);

/* Compact JSON text of v with numbers written in their shortest round-trip form and
 * non-finite reals as null (jansson prints 0.1 as 0.10000000000000001). Caller frees. */
char *store_json_dumps(json_t *v, int sort_keys);

/* Make the folder and its parents (mkdir -p). */
int store_mkdirs(const char *path, dp_err *err);

#endif
