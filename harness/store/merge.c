/* merge.c: one record per run id out of several record files (see merge.h). */
#include "harness/store/merge.h"

#include <stdlib.h>
#include <string.h>

#include "harness/store/record.h"

/* The record without what legitimately differs between machines. New reference. */
static json_t *result_part(json_t *rec)
{
    json_t *r = json_copy(rec);
    if (!r) return NULL;
    json_object_del(r, "provenance");
    json_t *m = json_object_get(rec, "metrics");
    if (json_is_object(m)) {
        json_t *mc = json_copy(m);
        json_object_del(mc, "cpu_seconds");
        json_object_del(mc, "wall_seconds");
        json_object_set_new(r, "metrics", mc);
    }
    return r;
}

int merge_same_result(json_t *a, json_t *b)
{
    json_t *x = result_part(a), *y = result_part(b);
    int same = x && y && json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return same;
}

typedef struct entry {
    const char *id;
    size_t at;
} entry;

static int by_id_then_position(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (c) return c;
    return x->at < y->at ? -1 : x->at > y->at;
}

static const char *origin(json_t *origins, size_t at)
{
    const char *o = origins ? json_string_value(json_array_get(origins, at)) : NULL;
    return o ? o : "(unknown place)";
}

int merge_records(json_t *records, json_t *origins, json_t **out, merge_stats *stats,
                  dp_err *err)
{
    size_t n = json_array_size(records);
    merge_stats st = {.n_read = n};
    entry *e = malloc((n ? n : 1) * sizeof *e);
    char *keep = calloc(n ? n : 1, 1);
    json_t *res = json_array();
    int rc = 0;
    if (!e || !keep || !res) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto fail;
    }
    /* Records without an id (hand-made, or from an old tool) cannot be matched with
     * anything: they are kept as they are, and readers judge them. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *id = json_string_value(json_object_get(json_array_get(records, i), "id"));
        if (id) e[m++] = (entry){id, i};
        else keep[i] = 1;
    }
    /* Sorting groups the records of an id, each group in reading order: n log n, so a
     * merge of many thousands of records is instant. */
    qsort(e, m, sizeof *e, by_id_then_position);
    for (size_t g = 0; g < m;) {
        size_t h = g;
        while (h < m && strcmp(e[h].id, e[g].id) == 0) h++;
        size_t chosen = n; /* n: none yet */
        for (size_t k = g; k < h; k++)
            if (!record_failed(json_array_get(records, e[k].at))) {
                chosen = e[k].at;
                break;
            }
        if (chosen == n) {
            chosen = e[h - 1].at; /* all failed: the latest attempt */
            st.n_duplicates += h - g - 1;
        } else {
            json_t *kept = json_array_get(records, chosen);
            for (size_t k = g; k < h; k++) {
                if (e[k].at == chosen) continue;
                json_t *other = json_array_get(records, e[k].at);
                if (record_failed(other)) {
                    st.n_superseded++;
                } else if (merge_same_result(kept, other)) {
                    st.n_duplicates++;
                } else {
                    rc = dp_err_set(err, DP_EDATA,
                                    "run %s has different results in %s and %s", e[g].id,
                                    origin(origins, chosen), origin(origins, e[k].at));
                    dp_err_hint(err, "both cannot be right (a different dperm build or an edited "
                                "config?); move the file with the wrong one out of the folder "
                                "and merge again");
                    goto fail;
                }
            }
        }
        keep[chosen] = 1;
        g = h;
    }
    for (size_t i = 0; i < n; i++)
        if (keep[i] && json_array_append(res, json_array_get(records, i)) != 0) {
            rc = dp_err_set(err, DP_ENOMEM, "out of memory");
            goto fail;
        }
    free(e);
    free(keep);
    if (stats) *stats = st;
    *out = res;
    return 0;
fail:
    free(e);
    free(keep);
    json_decref(res);
    return rc;
}
