/* plot.h: the figures of `dperm report`: for each figure a gnuplot data file and script,
 * run through gnuplot (gnuplot.h) into PNG/SVG/PDF. Private to report.c; see report.h
 * for the shape of a figure spec.
 */
#ifndef DPERM_PLOT_H
#define DPERM_PLOT_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"
#include "harness/report/aggregate.h"
#include "harness/report/reference.h"

/* Image formats, or'ed. */
enum { PLOT_PNG = 1, PLOT_SVG = 2, PLOT_PDF = 4 };

/* The table a figure is drawn beside (report.c links them: the figure's `table`, or the
 * table with a reference whose cell is its y, whose cols its x and whose rows are among
 * its `by`). With a reference, the figure plots y in the paper's unit (ref->scale: a
 * fraction as percent) and draws the paper's values as hollow markers in the colour of
 * the series they belong to. */
typedef struct plot_paper {
    const ref_table *ref;   /* NULL: no paper values, y as recorded */
    const char *table;      /* the linked table's name, for the note under the figure */
} plot_paper;

/* Draw figure `fig` (one entry of report.figures; `number` is its 1-based position, for
 * the default name figureN) from the ok records of recs[0..n) that match its `where`:
 * writes DIR/figures/NAME.dat and NAME.gp, runs gnuplot once per format in `formats`
 * (when 0, none: the data and script alone), and appends the figure's section to
 * out->md. paper may be NULL (no linked table). A figure without data points writes nothing and adds a warning instead (not
 * an error); so does a warning gnuplot prints while succeeding.
 * Errors: DP_ECONFIG (malformed spec), DP_EIO (writing, gnuplot missing or failing: the
 * message is gnuplot's, placed at the .gp line it names), DP_ENOMEM. Files written
 * before an error stay listed in out->files. */
int plot_figure(agg_out *out, json_t *const *recs, size_t n, json_t *fig, size_t number,
                const plot_paper *paper, unsigned formats, dp_err *err);

#endif
