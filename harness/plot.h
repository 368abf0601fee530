/* plot.h: the figures of `dperm report`: for each figure a gnuplot data file and script,
 * run through gnuplot (gnuplot.h) into PNG/SVG/PDF. Private to report.c; see report.h
 * for the shape of a figure spec.
 */
#ifndef DPERM_PLOT_H
#define DPERM_PLOT_H

#include <stddef.h>

#include <jansson.h>

#include "../algorithms/base/err.h"
#include "aggregate.h"

/* Image formats, or'ed. */
enum { PLOT_PNG = 1, PLOT_SVG = 2, PLOT_PDF = 4 };

/* Draw figure `fig` (one entry of report.figures; `number` is its 1-based position, for
 * the default name figureN) from the ok records of recs[0..n) that match its `where`:
 * writes DIR/figures/NAME.dat and NAME.gp, runs gnuplot once per format in `formats`
 * (when 0, none: the data and script alone), and appends the figure's section to
 * out->md. A figure without data points writes nothing and adds a warning instead (not
 * an error); so does a warning gnuplot prints while succeeding.
 * Errors: DP_ECONFIG (malformed spec), DP_EIO (writing, gnuplot missing or failing: the
 * message is gnuplot's, placed at the .gp line it names), DP_ENOMEM. Files written
 * before an error stay listed in out->files. */
int plot_figure(agg_out *out, json_t *const *recs, size_t n, json_t *fig, size_t number,
                unsigned formats, dp_err *err);

#endif
