/* grid_int.h: what grid.c shares with grid_only.c (the --only filter); private to the
 * grid module, not for other files.
 */
#ifndef DPERM_GRID_INT_H
#define DPERM_GRID_INT_H

#include <stddef.h>

#include "harness/grid/grid.h"

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
