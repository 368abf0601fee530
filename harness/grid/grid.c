/* grid.c: expanding an experiment document into runs (scales, grid, zip, ids); the
 * --only filter applied last is in grid_only.c.
 *
 * The semantics are those of grid.h; this file adds how they are carried out:
 *   - The grid is first turned into a list of dimensions. A dimension is a list of
 *     alternatives; an alternative is a list of assignments (dotted path := value) with
 *     values that hold no lists. A scalar in the grid is a dimension of one alternative,
 *     a list is a dimension, a map recurses with its key as path prefix, `zip` (at any
 *     level, its keys under that level's prefix) is one dimension per group.
 *   - A list element that is a map (a block) is itself expanded as a small grid on an
 *     empty map, so its sub-grids stay inside it: [{name: sgd}, {name: dp_sgd, clip:
 *     [0.5, 1]}] is a dimension of 3 alternatives. A zip entry's element may be a block
 *     too; its alternatives are the product of the elements' expansions at that index.
 *   - Assigning walks the path, creating maps that are missing and replacing non-maps
 *     in the way (the grid overrides the base). At the end of the path a map value is
 *     MERGED over a map already there (maps key by key, anything else replaces), so
 *     base defaults such as algorithm.clip apply to every block; any other value
 *     replaces. Assigned nodes keep their grid positions, so a bad value in the grid is
 *     reported at its line in the grid.
 *   - The expansion is capped at GRID_MAX_RUNS: a long list pasted into an already big
 *     product fails with a message instead of exhausting memory.
 * Duplicate ids are found by sorting (id, index) pairs; the error points at the value of
 * the first dimension in which the two runs' choices differ (the repeated value).
 */
#include "harness/grid/grid.h"
#include "harness/grid/grid_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#define GRID_MAX_RUNS 100000

typedef struct assign {
    char *path;               /* dotted path in the run config, owned */
    cfg_node *value;          /* holds no grid lists, owned */
    int key_line, key_col;    /* grid key that produced it (for new keys in the run) */
} assign;

typedef struct alt {
    assign *a;
    size_t n;
    const cfg_node *origin;   /* grid node this alternative came from (error positions) */
} alt;

typedef struct dim {
    alt *alts;
    size_t n;
} dim;

typedef struct dimlist {
    dim *d;
    size_t n;
} dimlist;

// ---- dimensions ----------------------------------------------------------------------

static void alt_destroy(alt *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->a[i].path);
        cfg_free(a->a[i].value);
    }
    free(a->a);
    a->a = NULL;
    a->n = 0;
}

static void dims_destroy(dimlist *dl)
{
    for (size_t i = 0; i < dl->n; i++) {
        for (size_t j = 0; j < dl->d[i].n; j++) alt_destroy(&dl->d[i].alts[j]);
        free(dl->d[i].alts);
    }
    free(dl->d);
    dl->d = NULL;
    dl->n = 0;
}

/* Append an empty dimension; returns it or NULL on ENOMEM. */
static dim *dims_push(dimlist *dl)
{
    dim *d = realloc(dl->d, (dl->n + 1) * sizeof *d);
    if (!d) return NULL;
    dl->d = d;
    d = &dl->d[dl->n++];
    d->alts = NULL;
    d->n = 0;
    return d;
}

static alt *dim_push(dim *d, const cfg_node *origin)
{
    alt *a = realloc(d->alts, (d->n + 1) * sizeof *a);
    if (!a) return NULL;
    d->alts = a;
    a = &d->alts[d->n++];
    a->a = NULL;
    a->n = 0;
    a->origin = origin;
    return a;
}

/* Add path := clone(value) to an alternative (value is cloned here unless owned). */
static int alt_add(alt *a, const char *path, const cfg_node *value, cfg_node *owned,
                   int key_line, int key_col)
{
    assign *na = realloc(a->a, (a->n + 1) * sizeof *na);
    if (!na) {
        cfg_free(owned);
        return DP_ENOMEM;
    }
    a->a = na;
    char *p = strdup(path);
    cfg_node *v = owned ? owned : cfg_clone(value);
    if (!p || !v) {
        free(p);
        cfg_free(v);
        return DP_ENOMEM;
    }
    a->a[a->n++] = (assign){p, v, key_line, key_col};
    return 0;
}

char *grid_join_path(const char *prefix, const char *key)
{
    size_t lp = strlen(prefix), lk = strlen(key);
    char *s = malloc(lp + lk + 2);
    if (!s) return NULL;
    if (lp) {
        memcpy(s, prefix, lp);
        s[lp] = '.';
        memcpy(s + lp + 1, key, lk + 1);
    } else {
        memcpy(s, key, lk + 1);
    }
    return s;
}

/* "a, b, c" from the first max names (", ..." after them if there are more). */
void grid_join_names(char *buf, size_t size, const char *const *names, size_t n,
                     size_t max)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", i < max ? names[i] : "...");
        if (w < 0 || i == max) break;
        used += (size_t)w;
    }
}

static int checked_mul(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a) return -1;
    *out = a * b;
    return 0;
}

/* Product of the dimension sizes, or an error at `at` when it exceeds the cap. */
static int dims_total(const dimlist *dl, const cfg_node *at, size_t *total, dp_err *err)
{
    size_t t = 1;
    for (size_t i = 0; i < dl->n; i++)
        if (checked_mul(t, dl->d[i].n, &t) || t > GRID_MAX_RUNS)
            return cfg_error(err, at, 1, "the grid expands to more than %d runs",
                             GRID_MAX_RUNS);
    *total = t;
    return 0;
}

/* Digits of combination k, last dimension fastest. */
static void combo_digits(const dimlist *dl, size_t k, size_t *digits)
{
    for (size_t j = dl->n; j-- > 0;) {
        digits[j] = k % dl->d[j].n;
        k /= dl->d[j].n;
    }
}

// ---- assignment into a config --------------------------------------------------------

static int map_put(cfg_node *map, cfg_node *child)
{
    for (size_t i = 0; i < map->n_items; i++)
        if (strcmp(map->items[i]->key, child->key) == 0) {
            cfg_free(map->items[i]);
            map->items[i] = child;
            return 0;
        }
    cfg_node **items = realloc(map->items, (map->n_items + 1) * sizeof *items);
    if (!items) {
        cfg_free(child);
        return DP_ENOMEM;
    }
    items[map->n_items++] = child;
    map->items = items;
    return 0;
}

static void map_remove(cfg_node *map, const char *key)
{
    for (size_t i = 0; i < map->n_items; i++)
        if (strcmp(map->items[i]->key, key) == 0) {
            cfg_free(map->items[i]);
            memmove(&map->items[i], &map->items[i + 1],
                    (map->n_items - i - 1) * sizeof *map->items);
            map->n_items--;
            return;
        }
}

/* Deep merge src over dst (both maps): maps merge key by key, anything else replaces. */
static int merge_into(cfg_node *dst, const cfg_node *src)
{
    for (size_t i = 0; i < src->n_items; i++) {
        const cfg_node *s = src->items[i];
        cfg_node *d = cfg_get(dst, s->key);
        if (d && d->kind == CFG_MAP && s->kind == CFG_MAP) {
            if (merge_into(d, s)) return DP_ENOMEM;
            continue;
        }
        cfg_node *c = cfg_clone(s);
        if (!c || map_put(dst, c)) return DP_ENOMEM;
    }
    return 0;
}

/* A fresh empty map named key (len bytes), positioned at the grid key. */
static cfg_node *empty_map(const char *key, size_t len, const cfg_node *where, int kl, int kc)
{
    cfg_node *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    if (!(m->key = strndup(key, len))) {
        free(m);
        return NULL;
    }
    m->kind = CFG_MAP;
    m->file = where->file;
    m->line = kl;
    m->col = kc;
    m->key_line = kl;
    m->key_col = kc;
    return m;
}

static int apply(cfg_node *root, const assign *a)
{
    cfg_node *cur = root;
    const char *p = a->path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        cfg_node *next = NULL;
        for (size_t i = 0; i < cur->n_items && !next; i++)
            if (strncmp(cur->items[i]->key, p, len) == 0 && cur->items[i]->key[len] == '\0')
                next = cur->items[i];
        if (!dot) {
            if (next && next->kind == CFG_MAP && a->value->kind == CFG_MAP)
                return merge_into(next, a->value);
            cfg_node *c = cfg_clone(a->value);
            if (!c) return DP_ENOMEM;
            free(c->key);
            c->key = strdup(p);
            c->key_line = a->key_line;
            c->key_col = a->key_col;
            if (!c->key) {
                cfg_free(c);
                return DP_ENOMEM;
            }
            return map_put(cur, c);
        }
        if (!next || next->kind != CFG_MAP) {
            cfg_node *m = empty_map(p, len, a->value, a->key_line, a->key_col);
            if (!m || map_put(cur, m)) return DP_ENOMEM;
            next = m;
        }
        cur = next;
        p = dot + 1;
    }
}

// ---- collecting dimensions from a grid map -------------------------------------------

static int collect(const cfg_node *map, const char *prefix, dimlist *out, dp_err *err);

/* Expand a block (a map in a grid list) into concrete maps: *blocks, *n_blocks. */
static int expand_block(const cfg_node *block, cfg_node ***blocks, size_t *n_blocks,
                        dp_err *err)
{
    dimlist sub = {0};
    size_t total = 0, *digits = NULL;
    cfg_node **res = NULL;
    int rc = collect(block, "", &sub, err);
    if (rc || (rc = dims_total(&sub, block, &total, err))) goto fail;
    res = calloc(total, sizeof *res);
    digits = calloc(sub.n + 1, sizeof *digits);
    if (!res || !digits) goto nomem;
    for (size_t k = 0; k < total; k++) {
        if (!(res[k] = calloc(1, sizeof *res[k]))) goto nomem;
        res[k]->kind = CFG_MAP;
        res[k]->file = block->file;
        res[k]->line = block->line;
        res[k]->col = block->col;
        combo_digits(&sub, k, digits);
        for (size_t j = 0; j < sub.n; j++) {
            const alt *a = &sub.d[j].alts[digits[j]];
            for (size_t i = 0; i < a->n; i++)
                if (apply(res[k], &a->a[i])) goto nomem;
        }
    }
    free(digits);
    dims_destroy(&sub);
    *blocks = res;
    *n_blocks = total;
    return 0;
nomem:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
fail:
    if (res)
        for (size_t k = 0; k < total; k++) cfg_free(res[k]);
    free(res);
    free(digits);
    dims_destroy(&sub);
    return rc;
}

/* The concrete values of one list element: a block's expansions, or the element itself
 * (a scalar, or a list: a list of lists varies a list-valued key such as model.hidden). */
static int element_values(const cfg_node *e, const char *path, cfg_node ***vals, size_t *n,
                          dp_err *err)
{
    (void)path;
    if (e->kind == CFG_MAP) return expand_block(e, vals, n, err);
    cfg_node **one = malloc(sizeof *one);
    if (!one || !(one[0] = cfg_clone(e))) {
        free(one);
        return dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
    }
    *vals = one;
    *n = 1;
    return 0;
}

static void values_free(cfg_node **vals, size_t n)
{
    for (size_t i = 0; i < n; i++) cfg_free(vals[i]);
    free(vals);
}

static int collect_list(const cfg_node *seq, const char *path, dimlist *out, dp_err *err)
{
    if (seq->n_items == 0)
        return cfg_error(err, seq, 0,
                         "grid '%s': empty list; a grid dimension needs at least one value",
                         path);
    dim *d = dims_push(out);
    if (!d) return dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
    for (size_t i = 0; i < seq->n_items; i++) {
        cfg_node **vals = NULL;
        size_t nv = 0;
        int rc = element_values(seq->items[i], path, &vals, &nv, err);
        if (rc) return rc;
        for (size_t v = 0; v < nv; v++) {
            alt *a = dim_push(d, seq->items[i]);
            cfg_node *val = a ? vals[v] : NULL;
            if (a) vals[v] = NULL; /* ownership moves to alt_add */
            if (!a || alt_add(a, path, NULL, val, seq->key_line, seq->key_col)) {
                values_free(vals, nv);
                return dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
            }
        }
        values_free(vals, nv);
    }
    return 0;
}

/* One zip column: a list at path. */
typedef struct zip_col {
    const cfg_node *seq;
    char *path;
} zip_col;

static int zip_columns(const cfg_node *map, const char *prefix, zip_col **cols, size_t *n,
                       dp_err *err)
{
    for (size_t i = 0; i < map->n_items; i++) {
        const cfg_node *e = map->items[i];
        char *path = grid_join_path(prefix, e->key);
        int rc = 0;
        if (!path) return dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
        if (e->kind == CFG_MAP) {
            rc = zip_columns(e, path, cols, n, err);
        } else if (e->kind == CFG_SCALAR) {
            rc = cfg_error(err, e, 0, "zip '%s': expected a list of values to zip, got '%.60s'",
                           path, e->value);
        } else if (e->n_items == 0) {
            rc = cfg_error(err, e, 0, "zip '%s': empty list; zip lists need at least one value",
                           path);
        } else {
            zip_col *c = realloc(*cols, (*n + 1) * sizeof *c);
            if (!c) {
                rc = dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
            } else {
                *cols = c;
                c[(*n)++] = (zip_col){e, path};
                continue; /* path now owned by the column */
            }
        }
        free(path);
        if (rc) return rc;
    }
    return 0;
}

static int zip_group(const cfg_node *group, const char *prefix, dimlist *out, dp_err *err)
{
    zip_col *cols = NULL;
    size_t nc = 0, len = 0;
    cfg_node ***vals = NULL;
    size_t *nv = NULL, *digits = NULL;
    int rc = zip_columns(group, prefix, &cols, &nc, err);
    if (rc) goto done;
    if (nc == 0) {
        rc = cfg_error(err, group, 0, "zip: expected a map of lists that vary together");
        goto done;
    }
    len = cols[0].seq->n_items;
    for (size_t c = 1; c < nc; c++)
        if (cols[c].seq->n_items != len) {
            rc = cfg_error(err, cols[c].seq, 0,
                           "zip lists must have the same length: '%s' has %zu value%s, "
                           "'%s' has %zu", cols[c].path, cols[c].seq->n_items,
                           cols[c].seq->n_items == 1 ? "" : "s", cols[0].path, len);
            goto done;
        }
    dim *d = dims_push(out);
    vals = calloc(nc, sizeof *vals);
    nv = calloc(nc, sizeof *nv);
    digits = calloc(nc, sizeof *digits);
    if (!d || !vals || !nv || !digits) goto nomem;
    for (size_t i = 0; i < len; i++) {
        size_t combos = 1;
        for (size_t c = 0; c < nc; c++) {
            if ((rc = element_values(cols[c].seq->items[i], cols[c].path, &vals[c], &nv[c],
                                     err)))
                goto done;
            if (checked_mul(combos, nv[c], &combos) || combos > GRID_MAX_RUNS) {
                rc = cfg_error(err, cols[c].seq->items[i], 0,
                               "the grid expands to more than %d runs", GRID_MAX_RUNS);
                goto done;
            }
        }
        for (size_t k = 0; k < combos; k++) {
            size_t r = k;
            for (size_t c = nc; c-- > 0;) {
                digits[c] = r % nv[c];
                r /= nv[c];
            }
            alt *a = dim_push(d, cols[0].seq->items[i]);
            if (!a) goto nomem;
            for (size_t c = 0; c < nc; c++)
                if (alt_add(a, cols[c].path, vals[c][digits[c]], NULL, cols[c].seq->key_line,
                            cols[c].seq->key_col))
                    goto nomem;
        }
        for (size_t c = 0; c < nc; c++) {
            values_free(vals[c], nv[c]);
            vals[c] = NULL;
            nv[c] = 0;
        }
    }
    goto done;
nomem:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
done:
    for (size_t c = 0; c < nc; c++) {
        if (vals) values_free(vals[c], nv[c]);
        free(cols[c].path);
    }
    free(cols);
    free(vals);
    free(nv);
    free(digits);
    return rc;
}

static int collect_zip(const cfg_node *z, const char *prefix, dimlist *out, dp_err *err)
{
    if (z->kind == CFG_MAP) return zip_group(z, prefix, out, err);
    if (z->kind == CFG_SEQ && z->n_items > 0) {
        for (size_t i = 0; i < z->n_items; i++) {
            if (z->items[i]->kind != CFG_MAP)
                return cfg_error(err, z->items[i], 0,
                                 "zip: each element of a zip list is a map of lists");
            int rc = zip_group(z->items[i], prefix, out, err);
            if (rc) return rc;
        }
        return 0;
    }
    return cfg_error(err, z, 0, "zip: expected a map of equal-length lists (or a list of such "
                                "maps)");
}

static int collect(const cfg_node *map, const char *prefix, dimlist *out, dp_err *err)
{
    for (size_t i = 0; i < map->n_items; i++) {
        const cfg_node *e = map->items[i];
        int rc;
        const char *k = e->key;
        if (k[0] == '.' || k[strlen(k) - 1] == '.' || strstr(k, ".."))
            return cfg_error(err, e, 1, "grid key '%s': empty part in a dotted path", k);
        if (strcmp(k, "zip") == 0) {
            if ((rc = collect_zip(e, prefix, out, err))) return rc;
            continue;
        }
        char *path = grid_join_path(prefix, k);
        if (!path) return dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
        if (e->kind == CFG_MAP) {
            rc = collect(e, path, out, err);
        } else if (e->kind == CFG_SEQ) {
            rc = collect_list(e, path, out, err);
        } else {
            dim *d = dims_push(out);
            alt *a = d ? dim_push(d, e) : NULL;
            rc = (!a || alt_add(a, path, e, NULL, e->key_line, e->key_col))
                     ? dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid")
                     : 0;
        }
        free(path);
        if (rc) return rc;
    }
    return 0;
}

// ---- run ids -------------------------------------------------------------------------

int grid_run_id(const cfg_node *resolved, char out[17])
{
    json_t *j = cfg_to_json(resolved);
    if (!j) return DP_ENOMEM;
    if (json_is_object(j)) {
        json_object_del(j, "experiment");
        json_object_del(j, "paper");
        json_object_del(j, "description");
    }
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (!s) return DP_ENOMEM;
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, strlen(s), (const uint8_t *)s);
    sha256_digest(&ctx, sizeof digest, digest);
    free(s);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 8; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[16] = '\0';
    return 0;
}

// ---- expansion -----------------------------------------------------------------------

typedef struct id_index {
    char id[17];
    size_t index;
} id_index;

static int cmp_id_index(const void *a, const void *b)
{
    const id_index *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (c) return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int check_duplicates(const grid *g, const dimlist *dl, const cfg_node *grid_node,
                            dp_err *err)
{
    if (g->n < 2) return 0;
    id_index *v = malloc(g->n * sizeof *v);
    size_t *da = calloc(dl->n + 1, sizeof *da), *db = calloc(dl->n + 1, sizeof *db);
    int rc = 0;
    if (!v || !da || !db) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t r = 0; r < g->n; r++) {
        memcpy(v[r].id, g->runs[r].id, sizeof v[r].id);
        v[r].index = g->runs[r].index;
    }
    qsort(v, g->n, sizeof *v, cmp_id_index);
    size_t first = 0, second = SIZE_MAX;
    for (size_t r = 1; r < g->n; r++)
        if (strcmp(v[r].id, v[r - 1].id) == 0 && v[r].index < second &&
            (r < 2 || strcmp(v[r - 1].id, v[r - 2].id) != 0)) {
            first = v[r - 1].index;
            second = v[r].index;
        }
    if (second == SIZE_MAX) goto done;
    combo_digits(dl, first, da);
    combo_digits(dl, second, db);
    const cfg_node *at = grid_node;
    int at_key = 1;
    for (size_t j = 0; j < dl->n; j++)
        if (da[j] != db[j]) {
            at = dl->d[j].alts[db[j]].origin;
            at_key = 0;
            break;
        }
    rc = cfg_error(err, at, at_key,
                   "grid runs %zu and %zu are the same run (id %s): a value repeats an "
                   "earlier one", first + 1, second + 1, g->runs[second].id);
    dp_err_hint(err, "remove the repeated value from the grid");
done:
    free(v);
    free(da);
    free(db);
    return rc;
}

static int apply_scale(cfg_node *doc, const char *scale, dp_err *err)
{
    const cfg_node *scales = cfg_get(doc, "scales");
    if (scales && scales->kind != CFG_MAP)
        return cfg_error(err, scales, 0, "scales: expected a map of NAME: {overrides}");
    const cfg_node *s = cfg_get(scales, scale);
    if (!s) {
        if (!scales || scales->n_items == 0)
            return cfg_error(err, scales ? scales : doc, scales != NULL,
                             "unknown scale '%s': the experiment defines no scales", scale);
        const char **names = malloc(scales->n_items * sizeof *names);
        char list[256];
        if (!names) return dp_err_set(err, DP_ENOMEM, "out of memory");
        for (size_t i = 0; i < scales->n_items; i++) names[i] = scales->items[i]->key;
        grid_join_names(list, sizeof list, names, scales->n_items, scales->n_items);
        const char *sug = cfg_suggest(scale, names, scales->n_items);
        if (sug)
            cfg_error(err, scales, 1, "unknown scale '%s'; did you mean '%s'? (defined: %s)",
                      scale, sug, list);
        else
            cfg_error(err, scales, 1, "unknown scale '%s' (defined: %s)", scale, list);
        free(names);
        return DP_ECONFIG;
    }
    if (s->kind != CFG_MAP)
        return cfg_error(err, s, 0, "scales.%s: expected a map of overrides", scale);
    if (merge_into(doc, s)) return dp_err_set(err, DP_ENOMEM, "out of memory");
    return 0;
}

void grid_destroy(grid *g)
{
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) cfg_free(g->runs[i].config);
    free(g->runs);
    g->runs = NULL;
    g->n = g->n_total = 0;
}

/* A run that names a protocol (`protocol: NAME`, from the base or the grid) gets the
 * document's protocols.NAME merged over its config, after the grid's assignments: a
 * protocol fixes what it names, whatever the grid varies. The protocol's name stays in
 * the config, so it is part of the run's id and record. */
static int apply_protocol(const cfg_node *doc, cfg_node *run, dp_err *err)
{
    const cfg_node *p = cfg_get(run, "protocol");
    if (!p) return 0;
    if (p->kind != CFG_SCALAR)
        return cfg_error(err, p, 0, "protocol: expected the name of a protocol of `protocols`");
    const cfg_node *all = cfg_get(doc, "protocols");
    const cfg_node *one = cfg_get(all, p->value);
    if (!one) {
        char list[512] = "";
        const char *names[64], *sug = NULL;
        size_t n = 0, used = 0;
        for (size_t i = 0; all && i < all->n_items && n < 64; i++) names[n++] = all->items[i]->key;
        for (size_t i = 0; i < n && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     names[i]);
        if (n) sug = cfg_suggest(p->value, names, n);
        if (sug)
            return cfg_error(err, p, 0, "unknown protocol '%s'; did you mean '%s'? (defined: %s)",
                             p->value, sug, list);
        return cfg_error(err, p, 0, "unknown protocol '%s' (%s%s)", p->value,
                         n ? "defined: " : "the experiment defines no `protocols`", list);
    }
    if (one->kind != CFG_MAP)
        return cfg_error(err, one, 0, "protocols.%s: expected a map of overrides", p->value);
    return merge_into(run, one) ? dp_err_set(err, DP_ENOMEM, "out of memory") : 0;
}

int grid_scaled_document(const cfg_node *root, const char *scale, cfg_node **out, dp_err *err)
{
    *out = cfg_clone(root);
    if (!*out) return dp_err_set(err, DP_ENOMEM, "out of memory");
    int rc = scale ? apply_scale(*out, scale, err) : 0;
    if (rc) {
        cfg_free(*out);
        *out = NULL;
    }
    return rc;
}

int grid_expand(const cfg_node *root, const char *scale, char *const *only, size_t n_only,
                grid *out, dp_err *err)
{
    dimlist dl = {0};
    cfg_node *doc = NULL, *base = NULL;
    size_t total = 0, *digits = NULL;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (!root || root->kind != CFG_MAP)
        return cfg_error(err, root, 0, "the document must be a mapping of keys");
    if (!(doc = cfg_clone(root))) goto nomem;
    if (scale && (rc = apply_scale(doc, scale, err))) goto fail;
    const cfg_node *grid_node = cfg_get(doc, "grid");
    if (grid_node && grid_node->kind != CFG_MAP) {
        rc = cfg_error(err, grid_node, 0,
                       "grid: expected a map of KEY: [values] (a list under a key varies it)");
        goto fail;
    }
    if (grid_node && (rc = collect(grid_node, "", &dl, err))) goto fail;
    if ((rc = dims_total(&dl, grid_node ? grid_node : doc, &total, err))) goto fail;

    /* The base is the document without grid/scales/report/audit; doc itself stays whole
     * because the alternatives point into its grid for error positions. */
    if (!(base = cfg_clone(doc))) goto nomem;
    map_remove(base, "grid");
    map_remove(base, "scales");
    map_remove(base, "report");
    map_remove(base, "audit");
    map_remove(base, "protocols");
    out->runs = calloc(total, sizeof *out->runs);
    digits = calloc(dl.n + 1, sizeof *digits);
    if (!out->runs || !digits) goto nomem;
    for (size_t k = 0; k < total; k++) {
        grid_run *run = &out->runs[k];
        if (!(run->config = cfg_clone(base))) goto nomem;
        out->n = k + 1;
        run->index = k;
        combo_digits(&dl, k, digits);
        for (size_t j = 0; j < dl.n; j++) {
            const alt *a = &dl.d[j].alts[digits[j]];
            for (size_t i = 0; i < a->n; i++)
                if (apply(run->config, &a->a[i])) goto nomem;
        }
        if ((rc = apply_protocol(doc, run->config, err))) goto fail;
        if (grid_run_id(run->config, run->id)) goto nomem;
    }
    out->n_total = total;
    if ((rc = check_duplicates(out, &dl, grid_node, err))) goto fail;
    if ((rc = grid_apply_only(out, only, n_only, err))) goto fail;
    free(digits);
    dims_destroy(&dl);
    cfg_free(base);
    cfg_free(doc);
    return 0;
nomem:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
fail:
    grid_destroy(out);
    free(digits);
    dims_destroy(&dl);
    cfg_free(base);
    cfg_free(doc);
    return rc;
}
