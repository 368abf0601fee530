/* merge.h: combining the run records of several files (runs.jsonl and the shard files
 * runs.<I>-of-<N>.jsonl) into one record per run id.
 *
 * A run's result is its record without provenance and without the timings
 * metrics.cpu_seconds and metrics.wall_seconds (host, start time and speed naturally
 * differ between machines; everything else is a function of the resolved config).
 * Rules, for the records of one id:
 *   - records with equal results are one record (the first one read is kept);
 *   - a failed record gives way to an ok or diverged one (a retried run);
 *   - two ok/diverged records whose results differ are a conflict: DP_EDATA naming both
 *     places. They cannot both be right, and picking one silently would hide a
 *     non-reproducible build or an edited config.
 *   - when every record is failed, the last one read is kept (the latest attempt);
 *   - a record without a string id matches nothing and is kept as it is.
 */
#ifndef DPERM_MERGE_H
#define DPERM_MERGE_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

typedef struct merge_stats {
    size_t n_read;        /* records given */
    size_t n_duplicates;  /* records dropped because an equal result was kept */
    size_t n_superseded;  /* failed records dropped because the run later succeeded */
} merge_stats;

/* Combine records (an array of record objects) into *out (a new array, one record per
 * id, in the order their kept record was read). origins, if not NULL, is a parallel
 * array of strings ("FILE:LINE") used to name a conflict's places. stats may be NULL.
 * Fails with DP_EDATA on a conflict, DP_ENOMEM. */
int merge_records(json_t *records, json_t *origins, json_t **out, merge_stats *stats,
                  dp_err *err);

/* 1 when two records have the same result (see above), else 0. */
int merge_same_result(json_t *a, json_t *b);

#endif
