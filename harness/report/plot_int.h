/* plot_int.h: what the files of a figure share (private to report/'s plot*.c): the
 * figure read from its spec (plot.c), its points and the paper's (plot_data.c), and its
 * gnuplot files (plot_script.c).
 */
#ifndef DPERM_PLOT_INT_H
#define DPERM_PLOT_INT_H

#include <stddef.h>

#include <jansson.h>

#include "harness/report/aggregate.h"
#include "harness/report/plot.h"
#include "harness/report/reference.h"

typedef struct point {
    double x;
    agg_stats st;
    const char *tic;       /* category label (borrowed from the x key), or NULL */
} point;

typedef struct figure {
    const char *name, *title, *x, *y;
    const char *xlabel, *ylabel; /* the spec's own axis labels (NULL: label_of x, y) */
    agg_strs by;
    json_t *where;
    int logx, logy;
    int errorbars;         /* 1 yes, 0 no, -1 auto: when some point averages several runs */
    int curve;             /* x is iteration or epoch */
    double xmin;           /* curves: points with x below it are left out (-inf: none) */
    agg_source x_src;      /* scalar figures: where x comes from */
    int categorical;       /* scalar figures: x values are not all numbers */
    size_t n_categories;   /* then their count */
    char *const *tics;     /* and their labels (borrowed from the x key) */
    agg_select select;     /* best-of selection per point (best_over NULL: none) */
    size_t select_k_max;   /* then the most configurations compared at one point */
    int on_validation;     /* every run evaluates on a validation split (dataset.evaluate) */
    double yscale;         /* y plotted = y recorded * yscale: the paper's unit, or 1 */
    const char *yunit;     /* that unit ("percent"), NULL when none */
    char namebuf[32];
} figure;

/* The points of every series: pts[g][0..npts[g]) for series g, and the cell (series,
 * x value) of each record for the pooled-paths check. */
typedef struct points {
    point **pts;
    size_t *npts;
    size_t *cell;
    size_t n_cells;
    size_t total;
    agg_key xkey;        /* scalar figures: the x values */
} points;

/* The paper's values of one tuple of the reference's row values, drawn in the colour of
 * the first series that has that tuple. */
typedef struct paper_block {
    size_t series;
    point *pts;
    size_t n;
    int has_std;
} paper_block;

typedef struct paper_points {
    paper_block *b;
    size_t n;
    char why[200];   /* when a linked reference cannot be placed: why, else "" */
} paper_points;

/* The positive extent of the plotted values (bands included), for log-axis tics, and the
 * whole x extent, for offsetting series. */
typedef struct range {
    double xlo, xhi, ylo, yhi;   /* 0 when there is no positive value */
    double xmin, xmax;           /* every x (0 and 0 when there is none) */
} range;

/* A key's label in this figure: its words ("Test accuracy"), or "Validation ..." when
 * every run evaluates on a validation split (dataset.evaluate: validation). */
const char *plot_axis_label(const figure *f, const char *key);

/* The y axis' label: the spec's, else the metric's words with the paper's unit
 * ("Test accuracy (%)"). */
void plot_y_label(const figure *f, char *buf, size_t n);

/* Where a scalar figure's x comes from: the config when some run has it there, else the
 * metrics. */
agg_source plot_x_source(const figure *f, json_t *const *recs, size_t n);

/* The points of a curve figure (x iteration or epoch) into *p: per series, the curves of
 * its records averaged point-wise. 0 or DP_ENOMEM. */
int plot_curve_points(figure *f, json_t *const *recs, size_t n, const agg_key *series,
                      points *p);

/* The points of a scalar figure into *p: metrics[y] aggregated per (series, x value),
 * the best-of selection applied when the figure has one. 0, DP_ENOMEM, or the
 * selection's error. */
int plot_scalar_points(figure *f, json_t *const *recs, size_t n, const agg_key *series,
                       points *p, dp_err *err);

void plot_points_destroy(points *p, size_t n_series);

/* The reference's cells as points beside the series: one block per distinct tuple of the
 * reference's row values among the series, at the column values the figure's x (and its
 * `where` on x) allows. A reference whose columns are not the figure's x, or whose rows
 * are not among its `by`, cannot be placed: pp->why says so and nothing is drawn.
 * 0 or DP_ENOMEM. */
int plot_paper_points_of(const figure *f, const ref_table *ref, const agg_key *series,
                         paper_points *pp);

void plot_paper_points_destroy(paper_points *pp);

/* The extent of the series' points and the paper's (bands included when drawn). */
range plot_data_range(point *const *pts, const size_t *npts, size_t n_series,
                      const paper_points *pp, int bands);

/* NAME.dat: one block per series (x, mean, std, n), then the paper's blocks. */
void plot_write_dat(agg_buf *b, const figure *f, const agg_key *series, point *const *pts,
                    const size_t *npts, const paper_points *pp);

/* NAME.gp: terminal from fmt, axes and labels, one plot clause per series (bands or
 * error bars when asked), the paper's values as hollow markers. */
void plot_write_gp(agg_buf *b, const figure *f, const agg_key *series, const char *title,
                   int bands, const range *r, const paper_points *pp);

#endif
