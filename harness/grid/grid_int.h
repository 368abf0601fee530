/* grid_int.h: what the files of grid/ share: grid.c (assignment, ids, expansion),
 * grid_collect.c (a grid map into dimensions) and grid_only.c (the --only filter);
 * private to grid/.
 */
#ifndef DPERM_GRID_INT_H
#define DPERM_GRID_INT_H

#include <stddef.h>

#include "harness/grid/grid.h"

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

/* Free every dimension of dl (and their alternatives and assignments). */
void grid_dims_destroy(dimlist *dl);

/* Product of the dimension sizes, or an error at `at` when it exceeds GRID_MAX_RUNS. */
int grid_dims_total(const dimlist *dl, const cfg_node *at, size_t *total, dp_err *err);

/* Digits of combination k, last dimension fastest. */
void grid_combo_digits(const dimlist *dl, size_t k, size_t *digits);

/* The dimensions of grid map `map` (keys under `prefix`), appended to out
 * (grid_collect.c). DP_ECONFIG at the offending grid node, or DP_ENOMEM. */
int grid_collect(const cfg_node *map, const char *prefix, dimlist *out, dp_err *err);

/* Assign a->value at a->path in root (grid.c's header: creating missing maps, merging a
 * map over a map). DP_ENOMEM or 0. */
int grid_apply(cfg_node *root, const assign *a);

/* "prefix.key", or "key" when prefix is "". Heap string, or NULL on ENOMEM. */
char *grid_join_path(const char *prefix, const char *key);

/* "a, b, c" from the first max of n names (", ..." after them if there are more), cut
 * to fit buf. Can't fail. */
void grid_join_names(char *buf, size_t size, const char *const *names, size_t n,
                     size_t max);

/* Step 5 of grid.h: keep the runs of g that pass the --only filters (KEY=VALUE texts);
 * n_only 0 keeps all. Dropped runs' configs are freed and g->n shrinks; g->n_total is
 * untouched. DP_ECONFIG (malformed filter, unknown key or value, nothing kept) or
 * DP_ENOMEM leave g as it was; the caller still owns it and destroys it. */
int grid_apply_only(grid *g, char *const *only, size_t n_only, dp_err *err);

#endif
