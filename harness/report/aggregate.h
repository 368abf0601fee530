/* aggregate.h: what report.c and plot.c share: values at dotted config paths, grouping
 * records by the values of some paths, summary statistics, and small text utilities.
 *
 * Private to `dperm report` (report.c, plot.c); the public interface is report.h.
 * Records are runs.jsonl objects (schema in store.h), held as borrowed json_t pointers.
 */
#ifndef DPERM_AGGREGATE_H
#define DPERM_AGGREGATE_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

// ---- text -------------------------------------------------------------------------

/* A growable NUL-terminated buffer. An allocation failure sets `oom` and turns every
 * later append into a no-op, so a writer appends freely and checks once at the end. */
typedef struct agg_buf {
    char *data;     /* NULL until the first append */
    size_t len, cap;
    int oom;
} agg_buf;

void agg_buf_init(agg_buf *b);
void agg_buf_destroy(agg_buf *b);
void agg_buf_puts(agg_buf *b, const char *s);
void agg_buf_printf(agg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty); valid until the next append. */
const char *agg_buf_str(const agg_buf *b);

/* A list of owned strings. */
typedef struct agg_strs {
    char **s;
    size_t n, cap;
} agg_strs;

/* Append a copy of s (or a formatted string). 0 or DP_ENOMEM (list unchanged). */
int agg_strs_push(agg_strs *l, const char *s);
int agg_strs_pushf(agg_strs *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int agg_strs_has(const agg_strs *l, const char *s);
void agg_strs_destroy(agg_strs *l);

/* What one report build has produced so far: the files written (full paths), notes for
 * the reader (figures without data, pooled runs), and the body of report.md. */
typedef struct agg_out {
    const char *dir;    /* the results folder, not owned */
    agg_strs files;
    agg_strs warnings;
    agg_buf md;
    agg_buf html;       /* the body of report.html (tables and figures) */
} agg_out;

/* Write DIR/rel atomically (store_write_atomic) and list it in out->files. A file this
 * build already wrote is refused (two spec entries with one name): DP_ECONFIG.
 * 0, or DP_ECONFIG / DP_EIO / DP_ENOMEM with err filled. */
int agg_out_write(agg_out *out, const char *rel, const char *data, size_t len, dp_err *err);

// ---- values -----------------------------------------------------------------------

/* The value at a dotted path of record.config ("train.batch_size"); borrowed, NULL when
 * any step is absent or not an object. */
json_t *agg_config_get(json_t *record, const char *path);

/* record.metrics[name] when it is a number (null, i.e. non-finite, counts as absent).
 * 1 and *out set, or 0. */
int agg_metric_get(json_t *record, const char *name, double *out);

/* "ok", "failed", "diverged" (anything else, including a missing status, is "failed"). */
const char *agg_status(json_t *record);

/* Equality as the report groups values: numbers compare numerically (1 equals 1.0),
 * NULL (absent) equals only NULL, everything else by json_equal. */
int agg_value_equal(json_t *a, json_t *b);

/* Does `have` match a selector's `want`: a value (agg_value_equal) or a list of values,
 * any of them? The one rule of where, claims' better/than and cell notes. */
int agg_value_matches(json_t *have, json_t *want);

/* Display text of a value: strings as they are, numbers in their shortest exact form,
 * true/false, null, compact JSON for objects/arrays, `absent` for NULL. Caller frees;
 * NULL on ENOMEM. */
char *agg_value_label(json_t *v, const char *absent);

/* x in the shortest "%.*g" (up to `max_digits` significant digits, at most 17) that
 * reads back as the same double when max_digits is 17; -0 prints as 0. */
void agg_fmt_double(char *buf, size_t n, double x, int max_digits);

/* Does the record's config match every entry of `where` ({path: scalar or [scalars]},
 * a list meaning any of them)? A NULL or empty where matches everything. */
int agg_where_match(json_t *record, json_t *where);

/* The paths given as a JSON string or array of strings, appended to out (NULL adds
 * nothing). DP_ECONFIG when something else is given (`what` names the field, as in
 * "report.tables[0].rows"). */
/* Is s usable as a file name stem (1..100 of [A-Za-z0-9_.-], not starting with '.')? */
int agg_safe_name(const char *s);

int agg_paths_from_json(json_t *v, const char *what, agg_strs *out, dp_err *err);

/* Is a smaller value of the metric better? By its name: losses, gaps, errors, times and
 * privacy spent are lower-is-better; anything else (accuracy) higher. Can't fail. */
int agg_lower_is_better(const char *metric);

/* Best-of selection of a table or figure, `select: {best_over: PATH, by: METRIC,
 * prefer: max|min}`: per cell or point, only the runs of the value of best_over whose
 * mean of by is best are kept. */
typedef struct agg_select {
    const char *best_over;  /* NULL: no selection (strings borrowed from the spec) */
    const char *by;         /* default: the table's cell or the figure's y */
    int prefer_min;         /* default agg_lower_is_better(by) */
} agg_select;

/* Read spec `sel` (may be NULL: no selection) into *out; what names it in errors
 * ("report.tables[0]"). DP_ECONFIG on a malformed one. */
int agg_select_read(json_t *sel, const char *what, const char *default_by, agg_select *out,
                    dp_err *err);

// ---- statistics ---------------------------------------------------------------------

typedef struct agg_stats {
    size_t n;
    double mean, std, min, max, median;   /* std: sample std (n - 1); 0 when n < 2 */
} agg_stats;

/* Summary of v[0..n) (sorted in place). With n == 0 everything is 0. Can't fail. */
void agg_stats_of(double *v, size_t n, agg_stats *out);

// ---- grouping -----------------------------------------------------------------------

typedef enum { AGG_FROM_CONFIG = 1, AGG_FROM_METRIC = 2 } agg_source;

/* Records grouped by the tuple of their values at `paths`. Groups are sorted: per path,
 * numbers ascending, then other values in the order they first appear in recs, absent
 * last; tuples lexicographically. With no paths there is one group holding every record. */
typedef struct agg_key {
    size_t n_paths;
    size_t n_groups;
    size_t n_records;
    json_t **values;   /* n_groups x n_paths, row-major: the group's values (borrowed) */
    char **labels;     /* n_groups x n_paths: agg_value_label of each value, "—" if absent */
    size_t *group;     /* n_records: the group of each record */
} agg_key;

/* Group recs[0..n) by paths (config paths, or metric names for AGG_FROM_METRIC).
 * 0, or DP_ENOMEM with *k empty. */
int agg_key_init(agg_key *k, json_t *const *recs, size_t n, char *const *paths,
                 size_t n_paths, agg_source src, dp_err *err);
void agg_key_destroy(agg_key *k);

/* The labels of group g joined by sep (caller frees; NULL on ENOMEM). */
char *agg_key_join(const agg_key *k, size_t g, const char *sep);

/* Is every value present in the groups a number (absent ones do not count)? */
int agg_key_numeric(const agg_key *k);

// ---- config paths -------------------------------------------------------------------

/* Every leaf path of the records' configs (objects recursed into; arrays are leaves),
 * in first-seen order, appended to out. 0 or DP_ENOMEM. */
int agg_leaf_paths(json_t *const *recs, size_t n, agg_strs *out);

/* "path=value" (appended to out) for each candidate with one value in every record of
 * recs[0..n) (present in each), skipping the document keys (experiment, paper,
 * description) and readout.* (a read-out's position, not a setting): the settings a table
 * or figure holds fixed. 0 or DP_ENOMEM. */
int agg_shared_settings(json_t *const *recs, size_t n, const agg_strs *candidates,
                        agg_strs *out);

/* The candidates whose value differs between two records of the same group
 * (group[i] < n_groups is record i's group), skipping `seed`, the paths in `keys` and anything
 * under them: what a cell or a plotted point pools besides seeds. 0 or DP_ENOMEM. */
int agg_pooled_paths(json_t *const *recs, size_t n, const size_t *group, size_t n_groups,
                     const agg_strs *candidates, const agg_strs *keys, agg_strs *out);

#endif
