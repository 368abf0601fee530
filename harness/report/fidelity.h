/* fidelity.h: how faithfully an experiment reproduces its paper: per table with a
 * reference, the cells inside the paper's band; per qualitative claim of the paper
 * (the report block's `claims`), whether it holds in our numbers.
 *
 * A claim (docs/results.md, "Claims"):
 *   {text: "smoothing > 0 beats smoothing = 0 at every epsilon",
 *    table: NAME | [NAME, ...],           # every table must agree ("in gap and time")
 *    better: {ROWS_PATH: VALUE | [VALUES], ...},   # the rows that should win
 *    than:   {ROWS_PATH: VALUE | [VALUES], ...},   # the rows they should beat
 *    for: every_col | on_average,         # default every_col
 *    higher_is_better: BOOL,              # default: by the table's metric (losses, gaps,
 *                                         # errors and times are lower-is-better)
 *    within: TOL}                         # optional: "almost the same" instead of "beats"
 * every_col: at every column, every `better` row's mean beats every `than` row's mean
 * (strictly). on_average: each `better` row's mean over the columns where both rows have
 * runs beats the `than` row's mean over the same columns. With `within` (>= 0, in the
 * metric's unit) "beats" becomes "differs by at most TOL" (InputPert: input perturbation
 * is "almost the same" as Wang et al.'s method), both ways.
 * Verdicts: "holds"; "does not hold" (a comparison with data on both sides fails; the
 * detail names the first one); "not enough data" (no failure, but some comparison lacks
 * runs, or there is nothing to compare).
 */
#ifndef DPERM_FIDELITY_H
#define DPERM_FIDELITY_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"
#include "harness/report/aggregate.h"
#include "harness/report/table.h"

typedef enum { CLAIM_HOLDS = 1, CLAIM_FAILS, CLAIM_NO_DATA } claim_verdict;

typedef struct claim_result {
    const char *text;      /* borrowed from the spec */
    claim_verdict verdict;
    char detail[512];      /* the deciding comparison, or what was compared */
} claim_result;

typedef struct fidelity {
    claim_result *claims;
    size_t n_claims;
} fidelity;

/* "holds", "does not hold", "not enough data". */
const char *claim_verdict_name(claim_verdict v);

/* Judge one claim on one table. sel_better / sel_than: selector maps (above);
 * on_average: 0 for every_col; lower: smaller is better; within: < 0 for "beats", else
 * the largest difference that counts as "almost the same". Fills *v and detail.
 * DP_ECONFIG when a selector names a path that is not one of the table's rows, or
 * selects no row (the message names the table); DP_ENOMEM. */
int claim_judge_table(const table_result *t, json_t *sel_better, json_t *sel_than,
                      int on_average, int lower, double within, claim_verdict *v,
                      char *detail, size_t detail_size, dp_err *err);

/* Judge every claim of `claims` (the report block's list; NULL: none) against the built
 * tables. Errors: DP_ECONFIG (malformed claim, unknown table, bad selector), DP_ENOMEM;
 * *f is then empty. Release with fidelity_destroy. */
int fidelity_eval(fidelity *f, json_t *claims, const table_result *tables, size_t n_tables,
                  dp_err *err);

void fidelity_destroy(fidelity *f);

/* The "Fidelity" section of report.md / report.html (nothing when no table has a
 * reference and there are no claims), and fidelity.json (a new object, NULL on ENOMEM):
 *   {"tables": [{"name", "reference", "citation", "compared", "within", "outside":
 *                [{"row": [..], "col": v, "ours", "paper", "diff"}], "paper_only"}],
 *    "claims": [{"text", "verdict", "detail"}]} */
void fidelity_render_md(agg_buf *b, const fidelity *f, const table_result *tables,
                        size_t n_tables);
void fidelity_render_html(agg_buf *b, const fidelity *f, const table_result *tables,
                          size_t n_tables);
json_t *fidelity_json(const fidelity *f, const table_result *tables, size_t n_tables);

#endif
