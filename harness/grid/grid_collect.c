/* grid_collect.c: a grid map turned into the list of dimensions grid.c multiplies out
 * (grid.c's header says what a dimension, an alternative and an assignment are): a list
 * is a dimension, a map recurses under its key, `zip` is one dimension per group, and a
 * block in a list is expanded as a small grid of its own.
 */
#include "harness/grid/grid_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void grid_dims_destroy(dimlist *dl)
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

static int checked_mul(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a) return -1;
    *out = a * b;
    return 0;
}

/* Product of the dimension sizes, or an error at `at` when it exceeds the cap. */
int grid_dims_total(const dimlist *dl, const cfg_node *at, size_t *total, dp_err *err)
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
void grid_combo_digits(const dimlist *dl, size_t k, size_t *digits)
{
    for (size_t j = dl->n; j-- > 0;) {
        digits[j] = k % dl->d[j].n;
        k /= dl->d[j].n;
    }
}

// ---- collecting dimensions from a grid map -------------------------------------------


/* Expand a block (a map in a grid list) into concrete maps: *blocks, *n_blocks. */
static int expand_block(const cfg_node *block, cfg_node ***blocks, size_t *n_blocks,
                        dp_err *err)
{
    dimlist sub = {0};
    size_t total = 0, *digits = NULL;
    cfg_node **res = NULL;
    int rc = grid_collect(block, "", &sub, err);
    if (rc || (rc = grid_dims_total(&sub, block, &total, err))) goto fail;
    res = calloc(total, sizeof *res);
    digits = calloc(sub.n + 1, sizeof *digits);
    if (!res || !digits) goto nomem;
    for (size_t k = 0; k < total; k++) {
        if (!(res[k] = calloc(1, sizeof *res[k]))) goto nomem;
        res[k]->kind = CFG_MAP;
        res[k]->file = block->file;
        res[k]->line = block->line;
        res[k]->col = block->col;
        grid_combo_digits(&sub, k, digits);
        for (size_t j = 0; j < sub.n; j++) {
            const alt *a = &sub.d[j].alts[digits[j]];
            for (size_t i = 0; i < a->n; i++)
                if (grid_apply(res[k], &a->a[i])) goto nomem;
        }
    }
    free(digits);
    grid_dims_destroy(&sub);
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
    grid_dims_destroy(&sub);
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

int grid_collect(const cfg_node *map, const char *prefix, dimlist *out, dp_err *err)
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
            rc = grid_collect(e, path, out, err);
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

