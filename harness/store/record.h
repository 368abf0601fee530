/* record.h: the run record's vocabulary (one line of runs.jsonl; the schema in store.h),
 * owned here so every reader and writer agrees: the schema version, the status words,
 * which records count as failed, and how a number is written.
 */
#ifndef DPERM_RECORD_H
#define DPERM_RECORD_H

#include <stddef.h>

#include <jansson.h>

/* "schema" of every record this build writes. */
#define RECORD_SCHEMA 1

/* The status words: a run that finished, one whose numbers went non-finite (a result,
 * not a failure), and one that did not produce a result (with "message"). */
#define RECORD_OK "ok"
#define RECORD_DIVERGED "diverged"
#define RECORD_FAILED "failed"

/* The record's status: "ok" or "diverged" as written, anything else (a missing status,
 * an unknown word, "failed") "failed". Resume retries such a record, merge lets a success
 * replace it, reports count it failed. Can't fail. */
const char *record_status(json_t *record);

/* record_status(record) is "failed". */
int record_failed(json_t *record);

/* A number as records write it: the value, or null when it is not finite (JSON has no
 * NaN). A new reference, NULL on ENOMEM. */
json_t *record_number(double v);

/* A new record with the fields every record begins with, in this order: schema, id,
 * index, experiment, status, message (only when not NULL), config (a new reference that
 * the record takes). The caller adds metrics, curves and provenance. NULL on ENOMEM
 * (config is released then). */
json_t *record_new(const char *id, size_t index, const char *experiment, const char *status,
                   const char *message, json_t *config);

/* The record of a run that produced no result: record_new with status failed and
 * `message`, empty metrics and curves, then provenance (taken; skipped when NULL). */
json_t *record_new_failed(const char *id, size_t index, const char *experiment,
                          const char *message, json_t *config, json_t *provenance);

#endif
