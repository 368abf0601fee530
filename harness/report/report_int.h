/* report_int.h: what report.c and report_html.c share (the HTML page of one
 * experiment). Private to the report module.
 */
#ifndef DPERM_REPORT_INT_H
#define DPERM_REPORT_INT_H

#include <jansson.h>

#include "harness/report/aggregate.h"
#include "harness/report/report.h"

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
