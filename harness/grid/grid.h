/* grid.h: expanding an experiment document into its runs.
 *
 * A document (root map) has run-level blocks (dataset, model, privacy, train, algorithm,
 * epsilon, seed, ...), optional `grid`, `scales` and `report`. Expansion:
 *   1. `--scale NAME`: deep-merge scales.NAME over the document (maps merge key by key,
 *      anything else replaces), so a scale can change train.epochs or grid.seed.
 *   2. The resolved base = document without grid/scales/report.
 *   3. `grid` is a map; each entry is a dimension assigned at the entry's key, which may
 *      be a dotted path ("train.lr.a"). A list of scalars varies the value; a list of
 *      maps varies a whole block, and any list inside a block is a sub-grid expanded
 *      within that block only; a scalar or a map without lists is a constant; a nested
 *      map recurses with its key as a path prefix. `zip` (a map of equal-length lists, or
 *      a list of such maps) varies its lists together as one dimension.
 *      Assigning a map where the base already has a map MERGES it over the base (maps
 *      key by key, anything else replaces), so base defaults such as algorithm.clip apply
 *      to every block of a list; any other value replaces what is there, and maps missing
 *      on a dotted path are created.
 *   4. Cartesian product of all dimensions, in document order, last dimension fastest.
 *   5. `--only KEY=VALUE` keeps runs whose resolved value at dotted KEY equals VALUE
 *      (numbers compare numerically); several --only on one key are OR, on different
 *      keys AND. A key that no run has is an error.
 * Each run's id is the first 16 hex digits of SHA-256 of the canonical JSON (sorted keys,
 * compact) of its resolved config without the metadata keys experiment/paper/description.
 */
#ifndef DPERM_GRID_H
#define DPERM_GRID_H

#include <stddef.h>

#include "harness/config/config.h"

typedef struct grid_run {
    cfg_node *config;      /* resolved run config (a map), owned; its nodes' `file` points
                              into the parsed cfg_doc, which must outlive the grid */
    char id[17];           /* 16 hex digits + NUL */
    size_t index;          /* position in the full expansion (before --only) */
} grid_run;

typedef struct grid {
    grid_run *runs;
    size_t n;
    size_t n_total;        /* runs before --only filtering */
} grid;

/* *out (caller cfg_free's) = a copy of root with scales.NAME merged over it (scale NULL:
 * a plain copy): the experiment as a sweep at that scale runs it. DP_ECONFIG (unknown
 * scale) or DP_ENOMEM. */
int grid_scaled_document(const cfg_node *root, const char *scale, cfg_node **out, dp_err *err);

/* Expand root (a parsed document) into out. scale may be NULL; only may be NULL when
 * n_only is 0. Errors (DP_ECONFIG with a position: unknown scale, zip lists of unequal
 * length, empty list, --only key not found, duplicate run ids) leave out empty. */
int grid_expand(const cfg_node *root, const char *scale, char *const *only, size_t n_only,
                grid *out, dp_err *err);
void grid_destroy(grid *g);

/* The id of a resolved config (see above); out has room for 17 chars. 0 or DP_ENOMEM. */
int grid_run_id(const cfg_node *resolved, char out[17]);

#endif
