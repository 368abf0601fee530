/* report_int.h: what the files of one experiment's report share: report.c (the build),
 * report_defaults.c (the default tables and figures), report_figures.c (a figure's
 * companions) and report_html.c (the HTML page). Private to report/.
 */
#ifndef DPERM_REPORT_INT_H
#define DPERM_REPORT_INT_H

#include <jansson.h>

#include "harness/report/aggregate.h"
#include "harness/report/plot.h"
#include "harness/report/report.h"
#include "harness/report/table.h"

/* Fill *tables / *figures (new references) from the spec, or with the defaults of
 * report.h when the spec has no such key. The default figure is left out when it could
 * not be read (no run finished, no curve recorded, too many curves, or training curves of
 * fewer than 3 points): *figures is then empty and no_figure[0..cap) says why, a sentence
 * for the report; otherwise no_figure is "". 0, DP_ENOMEM or the records' DP_EDATA. */
int report_effective_spec(json_t *spec, json_t *const *recs, size_t n, json_t **tables,
                          json_t **figures, char *no_figure, size_t cap, dp_err *err);

/* The table figure `fig` is drawn beside (plot.h): the one its `table` names ("none": no
 * table), else the first table with a reference whose cell is the figure's y, whose cols
 * are its x and whose rows are all among its `by`. A table split by protocol answers to
 * its own name and to the name it was split from. out->ref stays NULL without one. */
void report_figure_paper(json_t *fig, json_t *tables, const table_result *tabs, size_t n_tabs,
                         plot_paper *out);

/* Under a figure whose x axis or series is epsilon: the privacy-truth line (privacy_note.h)
 * in report.md and report.html. 0, or DP_ENOMEM. */
int report_figure_privacy_note(agg_out *o, json_t *fig, json_t *const *recs, size_t n);

/* The whole report.html: header, run counts, provenance over recs[0..r->n_records),
 * then the fidelity and body fragments as given, then the warnings. paper may be NULL;
 * published: some table prints the paper's numbers beside ours (the page says so only
 * then). Can't fail (agg_buf records OOM). */
void report_html_page(agg_buf *b, const char *experiment, const char *paper, int published,
                      json_t *const *recs, const report_result *r, const char *fidelity,
                      const char *body, const agg_strs *warnings);

/* The <figure> of figure `name` when its files are among `files` (full paths under
 * dir): the PNG (else SVG) inline, links to every format, the .gp and the .dat. A figure
 * that wrote nothing adds nothing. */
void report_html_figure(agg_buf *b, const char *name, const char *title, const agg_strs *files,
                        const char *dir);

#endif
