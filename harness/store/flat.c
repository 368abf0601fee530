/* flat.c: dotted-key flattening of JSON (see flat.h). */
#include "harness/store/flat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/store/store.h"

static int push(flat *f, const char *key, char *value)
{
    if (!value) return -1;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        char **k = realloc(f->keys, cap * sizeof *k);
        if (!k) goto fail;
        f->keys = k;
        char **v = realloc(f->values, cap * sizeof *v);
        if (!v) goto fail;
        f->values = v;
        f->cap = cap;
    }
    f->keys[f->n] = strdup(key);
    if (!f->keys[f->n]) goto fail;
    f->values[f->n++] = value;
    return 0;
fail:
    free(value);
    return -1;
}

int flat_add(flat *f, const char *prefix, json_t *v)
{
    if (!prefix) prefix = "";
    if (json_is_object(v)) {
        const char *k;
        json_t *item;
        json_object_foreach(v, k, item) {
            size_t len = strlen(prefix) + strlen(k) + 2;
            char *key = malloc(len);
            if (!key) return -1;
            snprintf(key, len, "%s%s%s", prefix, *prefix ? "." : "", k);
            int rc = flat_add(f, key, item);
            free(key);
            if (rc) return rc;
        }
        return 0;
    }
    if (json_is_string(v)) return push(f, prefix, strdup(json_string_value(v)));
    return push(f, prefix, store_json_dumps(v, 1));
}

const char *flat_get(const flat *f, const char *key)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->keys[i], key) == 0) return f->values[i];
    return NULL;
}

void flat_destroy(flat *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->keys[i]);
        free(f->values[i]);
    }
    free(f->keys);
    free(f->values);
    memset(f, 0, sizeof *f);
}

static int contains(const char **keys, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i], k) == 0) return 1;
    return 0;
}

long flat_varying(const flat *fs, size_t n, const char ***keys_out)
{
    const char **keys = NULL;
    size_t nk = 0, cap = 0;
    for (size_t r = 0; r < n; r++) {
        for (size_t i = 0; i < fs[r].n; i++) {
            const char *k = fs[r].keys[i];
            if (contains(keys, nk, k)) continue;
            const char *v0 = flat_get(&fs[0], k);
            int varies = 0;
            for (size_t s = 0; s < n && !varies; s++) {
                const char *vs = flat_get(&fs[s], k);
                varies = !v0 || !vs || strcmp(v0, vs) != 0;
            }
            if (!varies) continue;
            if (nk == cap) {
                cap = cap ? 2 * cap : 8;
                const char **nkeys = realloc(keys, cap * sizeof *nkeys);
                if (!nkeys) {
                    free(keys);
                    return -1;
                }
                keys = nkeys;
            }
            keys[nk++] = k;
        }
    }
    *keys_out = keys;
    return (long)nk;
}
