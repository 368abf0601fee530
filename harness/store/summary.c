/* summary.c: summary.csv from runs.jsonl (see summary.h). */
#include "harness/store/summary.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/store/flat.h"
#include "harness/store/store.h"

/* RFC 4180 quoting when the field needs it. */
static void csv_field(FILE *f, const char *v)
{
    if (!v) return;
    if (!strpbrk(v, ",\"\n\r")) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"') fputc('"', f);
        fputc(*v, f);
    }
    fputc('"', f);
}

static int add_key(char ***keys, size_t *n, size_t *cap, const char *k)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*keys)[i], k) == 0) return 0;
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        char **nk = realloc(*keys, *cap * sizeof *nk);
        if (!nk) return -1;
        *keys = nk;
    }
    (*keys)[(*n)++] = (char *)k;
    return 0;
}

int summary_write(const char *dir, dp_err *err)
{
    json_t *records;
    int rc = store_load(dir, &records, err);
    if (rc) return rc;
    size_t n = json_array_size(records);
    flat *fs = calloc(n ? n : 1, sizeof *fs);
    char **keys = NULL, *buf = NULL;
    size_t nk = 0, cap = 0, len = 0;
    FILE *f = NULL;
    if (!fs) goto oom;
    for (size_t r = 0; r < n; r++) {
        json_t *rec = json_array_get(records, r);
        if (flat_add(&fs[r], NULL, json_object_get(rec, "config")) ||
            flat_add(&fs[r], "metrics", json_object_get(rec, "metrics")))
            goto oom;
        for (size_t i = 0; i < fs[r].n; i++)
            if (add_key(&keys, &nk, &cap, fs[r].keys[i])) goto oom;
    }
    f = open_memstream(&buf, &len);
    if (!f) goto oom;
    fputs("id,status,message", f);
    for (size_t k = 0; k < nk; k++) {
        fputc(',', f);
        csv_field(f, keys[k]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < n; r++) {
        json_t *rec = json_array_get(records, r);
        csv_field(f, json_string_value(json_object_get(rec, "id")));
        fputc(',', f);
        csv_field(f, json_string_value(json_object_get(rec, "status")));
        fputc(',', f);
        csv_field(f, json_string_value(json_object_get(rec, "message")));
        for (size_t k = 0; k < nk; k++) {
            fputc(',', f);
            const char *v = flat_get(&fs[r], keys[k]);
            csv_field(f, v && strcmp(v, "null") != 0 ? v : "");
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        f = NULL;
        goto oom;
    }
    f = NULL;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/summary.csv", dir);
    rc = store_write_atomic(path, buf, len, err);
    goto out;
oom:
    if (f) fclose(f);
    rc = dp_err_set(err, DP_ENOMEM, "out of memory writing summary.csv");
out:
    for (size_t r = 0; fs && r < n; r++) flat_destroy(&fs[r]);
    free(fs);
    free(keys);
    free(buf);
    json_decref(records);
    return rc;
}
