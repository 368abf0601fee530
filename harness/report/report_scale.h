/* report_scale.h: what a results folder's scale changed, for the report's header and
 * the results index: the scale's name (sweep.json) and its overrides as the experiment
 * file gives them (scales.NAME of config.original.yaml, flattened to "path=value").
 */
#ifndef DPERM_REPORT_SCALE_H
#define DPERM_REPORT_SCALE_H

#include <stddef.h>

#include "harness/report/aggregate.h"

/* The scale DIR's sweep ran at into name (size n) and return 1; 0 when the sweep ran the
 * experiment as written (no --scale) or DIR has no sweep.json. Can't fail. */
int report_scale_name(const char *dir, char *name, size_t n);

/* Append "train.epochs=5, grid.seed=[1,2]" (what scales.NAME sets) to out; nothing when
 * the original experiment file is missing or unreadable. Can't fail (out records an
 * allocation failure). */
void report_scale_changes(const char *dir, const char *name, agg_buf *out);

#endif
