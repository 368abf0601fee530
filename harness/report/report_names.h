/* report_names.h: the config paths and metric names a report block uses, checked against
 * the runs they are meant to read, so a typo is an error at its position instead of a
 * table that pools every run (`rows: algorithm.nme`) or a figure with no points
 * (`y: test_acc`).
 *
 * `dperm run` (and --dry-run) checks the paths against every run's resolved config before
 * running; `dperm report` checks paths and metric names against the records. What a
 * report block names:
 *   - config paths: tables' rows and cols, figures' by, tables' and figures' `where`
 *     keys, select.best_over, claims' better/than keys (a cell note's `where` keys must
 *     be its table's rows or cols paths: table.c says so); a figure's x when
 *     it is not a metric (or iteration / epoch, a curve's axes); readout.* paths name a
 *     read-out's position (readout.epoch, .iteration, .epsilon, .epsilon_target);
 *   - metric names: tables' cell, figures' y, select.by (checked by `dperm report` only:
 *     before the runs there are no records to read them from).
 */
#ifndef DPERM_REPORT_NAMES_H
#define DPERM_REPORT_NAMES_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"
#include "harness/config/config.h"

/* The names runs have: config paths (inner and leaf, dotted) and metric names (metrics,
 * curves and read-outs' keys). Sets as JSON objects (the keys). */
typedef struct report_names {
    json_t *paths;
    json_t *metrics; /* NULL: metric names are not checked */
} report_names;

/* From run configs (YAML nodes): paths only. 0 or DP_ENOMEM. */
int report_names_from_configs(report_names *v, cfg_node *const *configs, size_t n);
/* From records (runs.jsonl objects): paths and metrics (metrics NULL when no record has
 * any: every run failed). 0 or DP_ENOMEM. */
int report_names_from_records(report_names *v, json_t *records);
void report_names_destroy(report_names *v);

/* Every name `report` (the config's report block, may be NULL) uses is one the runs have:
 * 0, or DP_ECONFIG at the name's position with the closest known name. */
int report_names_check(const cfg_node *report, const report_names *v, dp_err *err);

#endif
