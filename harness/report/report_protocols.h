/* report_protocols.h: reports of experiments that run named protocols (`protocol:` as a
 * grid dimension, e.g. as_published and private): every table with a paper reference is
 * built once per protocol (its runs only), so the fidelity summary and the claims count
 * per protocol, and one combined table puts, per cell, the paper's number beside ours under
 * each protocol, with each protocol's privacy verdict under it. Private to the report
 * module (report.c).
 */
#ifndef DPERM_REPORT_PROTOCOLS_H
#define DPERM_REPORT_PROTOCOLS_H

#include <jansson.h>

#include "harness/report/aggregate.h"
#include "harness/report/table.h"

/* The protocols of the records (config.protocol values, in order of first appearance),
 * at most max; returns how many (0 or 1: no split). */
size_t report_protocols_find(json_t *const *recs, size_t n, const char **out, size_t max);

/* tables and claims with every referenced table that does not already group by
 * `protocol` split into one table per protocol (name NAME_PROTOCOL, where.protocol set,
 * title suffixed) and every claim on it repeated per protocol; new references (the
 * caller decrefs them); NULL on allocation failure. */
json_t *report_protocols_split_tables(json_t *tables, const char *const *protocols, size_t np);
json_t *report_protocols_split_claims(json_t *claims, json_t *tables,
                                      const char *const *protocols, size_t np);

/* figures with `protocol` put first in `by` where they do not already mention it; a new
 * reference, NULL on allocation failure. */
json_t *report_protocols_split_figures(json_t *figures);

/* The combined section of the split tables tabs[0..np) (one per protocol, in the order of
 * protocols) into out->md and out->html: per cell the paper, ours under each protocol
 * (band mark where outside), and under the table each protocol's privacy line (the
 * records of its table: recs[0..n)). */
void report_protocols_combined(agg_out *out, const table_result *const *tabs,
                               const char *const *protocols, size_t np, json_t *const *recs,
                               size_t n);

#endif
