/* aggregate.c: values at config paths, grouping and statistics for `dperm report`
 * (see aggregate.h).
 *
 * Sizes are small (a sweep has thousands of runs, a key a handful of distinct values),
 * so distinct values are found by linear search: O(records x distinct values) per path,
 * simpler than hashing JSON values. The bad case is a metric used as a figure's x, where
 * every run has its own value: quadratic, about 10^8 comparisons for 10^4 runs (well
 * under a second); hash the values if sweeps grow far past that.
 */
#include "harness/report/aggregate.h"
#include "harness/store/record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/store/store.h"

// ---- text -------------------------------------------------------------------------

void agg_buf_init(agg_buf *b)
{
    memset(b, 0, sizeof *b);
}

void agg_buf_destroy(agg_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

static int buf_reserve(agg_buf *b, size_t extra)
{
    if (b->oom) return -1;
    if (b->len + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void agg_buf_puts(agg_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (buf_reserve(b, n) != 0) return;
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void agg_buf_printf(agg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || buf_reserve(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *agg_buf_str(const agg_buf *b)
{
    return b->data ? b->data : "";
}

int agg_strs_push(agg_strs *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **p = realloc(l->s, cap * sizeof *p);
        if (!p) return DP_ENOMEM;
        l->s = p;
        l->cap = cap;
    }
    char *c = strdup(s);
    if (!c) return DP_ENOMEM;
    l->s[l->n++] = c;
    return 0;
}

int agg_strs_pushf(agg_strs *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) return DP_ENOMEM;
    int rc = agg_strs_push(l, s);
    free(s);
    return rc;
}

int agg_strs_has(const agg_strs *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->s[i], s) == 0) return 1;
    return 0;
}

void agg_strs_destroy(agg_strs *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->s[i]);
    free(l->s);
    memset(l, 0, sizeof *l);
}

int agg_out_write(agg_out *out, const char *rel, const char *data, size_t len, dp_err *err)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", out->dir, rel) < 0)
        return dp_err_set(err, DP_ENOMEM, "out of memory writing %s", rel);
    int rc = 0;
    if (agg_strs_has(&out->files, path))   /* two entries with one name: refuse, not clobber */
        rc = dp_err_set(err, DP_ECONFIG, "report: two entries write %s; give them different "
                        "names", rel);
    if (rc == 0) rc = store_write_atomic(path, data, len, err);
    if (rc == 0 && agg_strs_push(&out->files, path) != 0)
        rc = dp_err_set(err, DP_ENOMEM, "out of memory writing %s", rel);
    free(path);
    return rc;
}

// ---- values -----------------------------------------------------------------------

json_t *agg_config_get(json_t *record, const char *path)
{
    json_t *v = json_object_get(record, "config");
    const char *p = path;
    while (v && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!json_is_object(v)) return NULL;
        v = json_object_getn(v, p, n);
        p += n + (dot ? 1 : 0);
    }
    return v;
}

int agg_metric_get(json_t *record, const char *name, double *out)
{
    json_t *v = json_object_get(json_object_get(record, "metrics"), name);
    if (!json_is_number(v)) return 0;
    *out = json_number_value(v);
    return isfinite(*out) ? 1 : 0;
}

const char *agg_status(json_t *record)
{
    return record_status(record);
}

int agg_value_equal(json_t *a, json_t *b)
{
    if (!a || !b) return a == b;
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    return json_equal(a, b);
}

void agg_fmt_double(char *buf, size_t n, double x, int max_digits)
{
    if (x == 0) x = 0;   /* -0 -> 0 */
    if (max_digits > 17) max_digits = 17;
    if (max_digits < 17) {
        snprintf(buf, n, "%.*g", max_digits, x);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x) return;
    }
}

char *agg_value_label(json_t *v, const char *absent)
{
    char num[64];
    if (!v) return strdup(absent);
    switch (json_typeof(v)) {
    case JSON_STRING: return strdup(json_string_value(v));
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return strdup(num);
    case JSON_REAL:
        agg_fmt_double(num, sizeof num, json_real_value(v), 17);
        return strdup(num);
    case JSON_TRUE: return strdup("true");
    case JSON_FALSE: return strdup("false");
    case JSON_NULL: return strdup("null");
    default: return store_json_dumps(v, 1);
    }
}

int agg_value_matches(json_t *have, json_t *want)
{
    if (!json_is_array(want)) return agg_value_equal(have, want);
    size_t i;
    json_t *w;
    json_array_foreach(want, i, w) if (agg_value_equal(have, w)) return 1;
    return 0;
}

int agg_where_match(json_t *record, json_t *where)
{
    const char *path;
    json_t *want;
    json_object_foreach(where, path, want) {
        if (!agg_value_matches(agg_config_get(record, path), want)) return 0;
    }
    return 1;
}

int agg_lower_is_better(const char *metric)
{
    static const char *const lower[] = {"loss", "gap", "error", "rmse", "seconds", "time",
                                        "epsilon_spent", "grad_norm"};
    for (size_t i = 0; i < sizeof lower / sizeof lower[0]; i++)
        if (strstr(metric, lower[i])) return 1;
    return 0;
}

int agg_select_read(json_t *sel, const char *what, const char *default_by, agg_select *out,
                    dp_err *err)
{
    memset(out, 0, sizeof *out);
    if (!sel) return 0;
    const char *over = json_string_value(json_object_get(sel, "best_over"));
    const char *by = json_string_value(json_object_get(sel, "by"));
    const char *prefer = json_string_value(json_object_get(sel, "prefer"));
    if (!json_is_object(sel) || !over || !*over)
        return dp_err_set(err, DP_ECONFIG, "%s.select: expected {best_over: PATH, by: METRIC, "
                          "prefer: max|min}", what);
    if (prefer && strcmp(prefer, "max") && strcmp(prefer, "min"))
        return dp_err_set(err, DP_ECONFIG, "%s.select.prefer '%s': expected max or min", what,
                          prefer);
    out->best_over = over;
    out->by = by ? by : default_by;
    out->prefer_min = prefer ? !strcmp(prefer, "min") : agg_lower_is_better(out->by);
    return 0;
}

int agg_safe_name(const char *s)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.";
    size_t n = strlen(s);
    return n > 0 && n <= 100 && s[0] != '.' && strspn(s, ok) == n;
}

int agg_paths_from_json(json_t *v, const char *what, agg_strs *out, dp_err *err)
{
    if (!v || json_is_null(v)) return 0;
    if (json_is_string(v)) {
        if (json_string_length(v) == 0)
            return dp_err_set(err, DP_ECONFIG, "%s: empty path", what);
        return agg_strs_push(out, json_string_value(v)) == 0
                   ? 0 : dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    if (!json_is_array(v))
        return dp_err_set(err, DP_ECONFIG, "%s: expected a path or a list of paths", what);
    size_t i;
    json_t *p;
    json_array_foreach(v, i, p) {
        if (!json_is_string(p) || json_string_length(p) == 0)
            return dp_err_set(err, DP_ECONFIG, "report: %s[%zu]: expected a path", what, i);
        if (agg_strs_push(out, json_string_value(p)) != 0)
            return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    return 0;
}

// ---- statistics ---------------------------------------------------------------------

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void agg_stats_of(double *v, size_t n, agg_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0) return;
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    out->mean = sum / (double)n;
    if (n > 1) {
        /* two passes: the textbook sum-of-squares formula loses digits when the spread
         * is small against the mean, which is exactly the seeds-of-one-config case */
        double ss = 0;
        for (size_t i = 0; i < n; i++) ss += (v[i] - out->mean) * (v[i] - out->mean);
        out->std = sqrt(ss / (double)(n - 1));
    }
    out->min = v[0];
    out->max = v[n - 1];
    out->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---- grouping -----------------------------------------------------------------------

typedef struct dval {    /* a distinct value of one path */
    json_t *v;
    size_t first;        /* first record holding it (its first-seen order) */
    size_t orig;         /* its index before sorting */
} dval;

typedef struct rowref {  /* one record's tuple of ranks, for sorting */
    const size_t *ranks;
    size_t n;
    size_t rec;
} rowref;

static int cmp_dval(const void *a, const void *b)
{
    const dval *x = a, *y = b;
    if (!x->v || !y->v) {
        if (!x->v && !y->v) return 0;
        return x->v ? -1 : 1;                 /* absent last */
    }
    int xn = json_is_number(x->v), yn = json_is_number(y->v);
    if (xn && yn) {
        double p = json_number_value(x->v), q = json_number_value(y->v);
        if (p != q) return (p > q) - (p < q);
    } else if (xn != yn) {
        return xn ? -1 : 1;                   /* numbers first */
    }
    return (x->first > y->first) - (x->first < y->first);
}

static int cmp_rowref(const void *a, const void *b)
{
    const rowref *x = a, *y = b;
    for (size_t i = 0; i < x->n; i++)
        if (x->ranks[i] != y->ranks[i]) return x->ranks[i] < y->ranks[i] ? -1 : 1;
    return (x->rec > y->rec) - (x->rec < y->rec);
}

static json_t *key_value(json_t *rec, const char *path, agg_source src)
{
    if (src == AGG_FROM_CONFIG) return agg_config_get(rec, path);
    double x;
    return agg_metric_get(rec, path, &x)
               ? json_object_get(json_object_get(rec, "metrics"), path) : NULL;
}

static int same_tuple(const rowref *a, const rowref *b)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->ranks[i] != b->ranks[i]) return 0;
    return 1;
}

int agg_key_init(agg_key *k, json_t *const *recs, size_t n, char *const *paths,
                 size_t n_paths, agg_source src, dp_err *err)
{
    memset(k, 0, sizeof *k);
    size_t *ranks = NULL;
    dval *dv = NULL;
    rowref *rows = NULL;
    k->n_paths = n_paths;
    k->n_records = n;
    k->group = calloc(n ? n : 1, sizeof *k->group);
    ranks = calloc(n * n_paths + 1, sizeof *ranks);
    dv = malloc((n + 1) * sizeof *dv);
    rows = malloc((n + 1) * sizeof *rows);
    if (!k->group || !ranks || !dv || !rows) goto oom;

    /* per path: distinct values, sorted, then each record's rank */
    for (size_t p = 0; p < n_paths; p++) {
        size_t nd = 0;
        for (size_t r = 0; r < n; r++) {
            json_t *v = key_value(recs[r], paths[p], src);
            size_t d = 0;
            while (d < nd && !agg_value_equal(dv[d].v, v)) d++;
            if (d == nd) dv[nd++] = (dval){v, r, d};
            ranks[r * n_paths + p] = d;          /* index before sorting, mapped below */
        }
        size_t *unsorted_rank = malloc((nd + 1) * sizeof *unsorted_rank);
        if (!unsorted_rank) goto oom;
        qsort(dv, nd, sizeof *dv, cmp_dval);
        for (size_t d = 0; d < nd; d++) unsorted_rank[dv[d].orig] = d;
        for (size_t r = 0; r < n; r++)
            ranks[r * n_paths + p] = unsorted_rank[ranks[r * n_paths + p]];
        free(unsorted_rank);
    }

    /* tuples sorted lexicographically; equal neighbours form a group */
    for (size_t r = 0; r < n; r++) rows[r] = (rowref){ranks + r * n_paths, n_paths, r};
    qsort(rows, n, sizeof *rows, cmp_rowref);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || !same_tuple(&rows[i - 1], &rows[i])) ng++;
        k->group[rows[i].rec] = ng - 1;
    }
    if (n == 0 && n_paths == 0) ng = 1;   /* "one group holding every record" */
    k->n_groups = ng;
    k->values = calloc(ng * n_paths + 1, sizeof *k->values);
    k->labels = calloc(ng * n_paths + 1, sizeof *k->labels);
    if (!k->values || !k->labels) goto oom;
    for (size_t i = 0; i < n; i++) {
        size_t g = k->group[rows[i].rec];
        for (size_t p = 0; p < n_paths; p++) {
            if (k->labels[g * n_paths + p]) continue;
            json_t *v = key_value(recs[rows[i].rec], paths[p], src);
            k->values[g * n_paths + p] = v;
            k->labels[g * n_paths + p] = agg_value_label(v, "—");
            if (!k->labels[g * n_paths + p]) goto oom;
        }
    }
    free(ranks);
    free(dv);
    free(rows);
    return 0;
oom:
    free(ranks);
    free(dv);
    free(rows);
    agg_key_destroy(k);
    return dp_err_set(err, DP_ENOMEM, "out of memory grouping %zu records", n);
}

void agg_key_destroy(agg_key *k)
{
    if (k->labels)
        for (size_t i = 0; i < k->n_groups * k->n_paths; i++) free(k->labels[i]);
    free(k->labels);
    free(k->values);
    free(k->group);
    memset(k, 0, sizeof *k);
}

char *agg_key_join(const agg_key *k, size_t g, const char *sep)
{
    agg_buf b;
    agg_buf_init(&b);
    for (size_t p = 0; p < k->n_paths; p++) {
        if (p) agg_buf_puts(&b, sep);
        agg_buf_puts(&b, k->labels[g * k->n_paths + p]);
    }
    if (b.oom) {
        agg_buf_destroy(&b);
        return NULL;
    }
    return b.data ? b.data : strdup("");
}

int agg_key_numeric(const agg_key *k)
{
    for (size_t i = 0; i < k->n_groups * k->n_paths; i++)
        if (k->values[i] && !json_is_number(k->values[i])) return 0;
    return 1;
}

// ---- config paths -------------------------------------------------------------------

static int leaf_paths(json_t *obj, const char *prefix, agg_strs *out)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        char *path = NULL;
        if (asprintf(&path, "%s%s%s", prefix, *prefix ? "." : "", key) < 0) return DP_ENOMEM;
        int rc = 0;
        if (json_is_object(v) && json_object_size(v) > 0)
            rc = leaf_paths(v, path, out);
        else if (!agg_strs_has(out, path))
            rc = agg_strs_push(out, path);
        free(path);
        if (rc) return rc;
    }
    return 0;
}

int agg_leaf_paths(json_t *const *recs, size_t n, agg_strs *out)
{
    for (size_t r = 0; r < n; r++) {
        json_t *cfg = json_object_get(recs[r], "config");
        if (json_is_object(cfg) && leaf_paths(cfg, "", out) != 0) return DP_ENOMEM;
    }
    return 0;
}

static int under_key(const char *path, const agg_strs *keys);

int agg_shared_settings(json_t *const *recs, size_t n, const agg_strs *candidates,
                        agg_strs *out)
{
    static const char *const SKIP[] = {"experiment", "paper", "description", "readout"};
    agg_strs skip = {(char **)SKIP, sizeof SKIP / sizeof *SKIP, 0};
    for (size_t c = 0; n && c < candidates->n; c++) {
        const char *path = candidates->s[c];
        if (under_key(path, &skip)) continue;
        json_t *v = agg_config_get(recs[0], path);
        int same = v != NULL;
        for (size_t r = 1; r < n && same; r++) same = agg_value_equal(agg_config_get(recs[r], path), v);
        if (!same) continue;
        char *label = agg_value_label(v, "");
        int rc = label ? agg_strs_pushf(out, "%s=%s", path, label) : DP_ENOMEM;
        free(label);
        if (rc) return DP_ENOMEM;
    }
    return 0;
}

static int under_key(const char *path, const agg_strs *keys)
{
    for (size_t i = 0; i < keys->n; i++) {
        size_t n = strlen(keys->s[i]);
        if (strncmp(path, keys->s[i], n) == 0 && (path[n] == '\0' || path[n] == '.'))
            return 1;
    }
    return 0;
}

int agg_pooled_paths(json_t *const *recs, size_t n, const size_t *group, size_t n_groups,
                     const agg_strs *candidates, const agg_strs *keys, agg_strs *out)
{
    size_t *first = malloc((n_groups + 1) * sizeof *first);
    if (!first) return DP_ENOMEM;
    for (size_t g = 0; g < n_groups; g++) first[g] = n;
    for (size_t r = 0; r < n; r++)
        if (first[group[r]] == n) first[group[r]] = r;
    int rc = 0;
    for (size_t c = 0; c < candidates->n && rc == 0; c++) {
        const char *path = candidates->s[c];
        if (strcmp(path, "seed") == 0 || under_key(path, keys)) continue;
        /* equality is transitive, so comparing each record with its group's first one
         * finds any difference inside a group in one pass */
        int pooled = 0;
        for (size_t r = 0; r < n && !pooled; r++)
            pooled = !agg_value_equal(agg_config_get(recs[r], path),
                                      agg_config_get(recs[first[group[r]]], path));
        if (pooled) rc = agg_strs_push(out, path);
    }
    free(first);
    return rc;
}
