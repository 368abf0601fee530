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

// ---- assignment into a config --------------------------------------------------------

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
        if (!c || cfg_put(dst, c)) return DP_ENOMEM;
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

int grid_apply(cfg_node *root, const assign *a)
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
            return cfg_put(cur, c);
        }
        if (!next || next->kind != CFG_MAP) {
            cfg_node *m = empty_map(p, len, a->value, a->key_line, a->key_col);
            if (!m || cfg_put(cur, m)) return DP_ENOMEM;
            next = m;
        }
        cur = next;
        p = dot + 1;
    }
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
    grid_combo_digits(dl, first, da);
    grid_combo_digits(dl, second, db);
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
    if (grid_node && (rc = grid_collect(grid_node, "", &dl, err))) goto fail;
    if ((rc = grid_dims_total(&dl, grid_node ? grid_node : doc, &total, err))) goto fail;

    /* The base is the document without grid/scales/report/audit; doc itself stays whole
     * because the alternatives point into its grid for error positions. */
    if (!(base = cfg_clone(doc))) goto nomem;
    cfg_remove(base, "grid");
    cfg_remove(base, "scales");
    cfg_remove(base, "report");
    cfg_remove(base, "audit");
    cfg_remove(base, "protocols");
    out->runs = calloc(total, sizeof *out->runs);
    digits = calloc(dl.n + 1, sizeof *digits);
    if (!out->runs || !digits) goto nomem;
    for (size_t k = 0; k < total; k++) {
        grid_run *run = &out->runs[k];
        if (!(run->config = cfg_clone(base))) goto nomem;
        out->n = k + 1;
        run->index = k;
        grid_combo_digits(&dl, k, digits);
        for (size_t j = 0; j < dl.n; j++) {
            const alt *a = &dl.d[j].alts[digits[j]];
            for (size_t i = 0; i < a->n; i++)
                if (grid_apply(run->config, &a->a[i])) goto nomem;
        }
        if ((rc = apply_protocol(doc, run->config, err))) goto fail;
        if (grid_run_id(run->config, run->id)) goto nomem;
    }
    out->n_total = total;
    if ((rc = check_duplicates(out, &dl, grid_node, err))) goto fail;
    if ((rc = grid_apply_only(out, only, n_only, err))) goto fail;
    free(digits);
    grid_dims_destroy(&dl);
    cfg_free(base);
    cfg_free(doc);
    return 0;
nomem:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory expanding the grid");
fail:
    grid_destroy(out);
    free(digits);
    grid_dims_destroy(&dl);
    cfg_free(base);
    cfg_free(doc);
    return rc;
}
