/* plot_data.c: a figure's points (plot_int.h): curve figures average the curves of a
 * series point-wise, scalar figures aggregate a metric per (series, x value) (plot.c's
 * header says how); and the paper's values of a linked reference table, placed on the
 * same axes.
 */
#include "harness/report/plot.h"
#include "harness/report/plot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- points ---------------------------------------------------------------------------

typedef struct xy {
    double x, y;
} xy;

static int cmp_xy(const void *a, const void *b)
{
    const xy *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* Curve points of one series (records recs[members[0..m)]): every (x, y) pair, sorted
 * by x, runs of equal x summarised into *pts (new array, caller frees). pairs and ys have
 * room for all pairs of the series. Returns the number of points, or -1 on ENOMEM. */
static long curve_points(const figure *f, json_t *const *recs, const size_t *members,
                         size_t m, xy *pairs, double *ys, point **pts)
{
    size_t np = 0;
    for (size_t i = 0; i < m; i++) {
        json_t *curves = json_object_get(recs[members[i]], "curves");
        json_t *xs = json_object_get(curves, f->x), *yv = json_object_get(curves, f->y);
        size_t len = json_array_size(xs);
        if (json_array_size(yv) < len) len = json_array_size(yv);
        for (size_t j = 0; j < len; j++) {
            json_t *a = json_array_get(xs, j), *b = json_array_get(yv, j);
            /* null = non-finite: skipped; so are the points before the figure's xmin */
            if (json_is_number(a) && json_is_number(b) && json_number_value(a) >= f->xmin)
                pairs[np++] = (xy){json_number_value(a), json_number_value(b)};
        }
    }
    qsort(pairs, np, sizeof *pairs, cmp_xy);
    size_t distinct = 0;
    for (size_t i = 0; i < np; i++) distinct += i == 0 || pairs[i].x != pairs[i - 1].x;
    if (!(*pts = malloc((distinct + 1) * sizeof **pts))) return -1;
    size_t out = 0;
    for (size_t i = 0; i < np;) {
        size_t j = i;
        for (; j < np && pairs[j].x == pairs[i].x; j++) ys[j - i] = pairs[j].y;
        (*pts)[out].x = pairs[i].x;
        (*pts)[out].tic = NULL;
        agg_stats_of(ys, j - i, &(*pts)[out].st);
        out++;
        i = j;
    }
    return (long)out;
}

void plot_points_destroy(points *p, size_t n_series)
{
    if (p->pts)
        for (size_t g = 0; g < n_series; g++) free(p->pts[g]);
    free(p->pts);
    free(p->npts);
    free(p->cell);
    agg_key_destroy(&p->xkey);
    memset(p, 0, sizeof *p);
}

int plot_curve_points(figure *f, json_t *const *recs, size_t n, const agg_key *series,
                      points *p)
{
    /* scratch sized for the largest series, which is at most all pairs of all runs */
    size_t np = 0;
    for (size_t r = 0; r < n; r++)
        np += json_array_size(json_object_get(json_object_get(recs[r], "curves"), f->x));
    xy *pairs = malloc((np + 1) * sizeof *pairs);
    double *ys = malloc((np + 1) * sizeof *ys);
    size_t *members = malloc((n + 1) * sizeof *members);
    int rc = pairs && ys && members ? 0 : DP_ENOMEM;
    for (size_t g = 0; g < series->n_groups && rc == 0; g++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (series->group[i] == g) members[m++] = i;
        long got = curve_points(f, recs, members, m, pairs, ys, &p->pts[g]);
        if (got < 0) {
            rc = DP_ENOMEM;
            break;
        }
        p->npts[g] = (size_t)got;
        p->total += p->npts[g];
    }
    for (size_t i = 0; i < n; i++) p->cell[i] = series->group[i];
    p->n_cells = series->n_groups;
    free(pairs);
    free(ys);
    free(members);
    return rc;
}

int plot_scalar_points(figure *f, json_t *const *recs, size_t n,
                       const agg_key *series, points *p, dp_err *err)
{
    f->x_src = plot_x_source(f, recs, n);
    char *xpath[1] = {(char *)f->x};
    int rc = agg_key_init(&p->xkey, recs, n, xpath, 1, f->x_src, err);
    if (rc) return rc;
    const agg_key *xk = &p->xkey;
    f->categorical = !agg_key_numeric(xk);
    f->n_categories = xk->n_groups;
    f->tics = xk->labels;
    double *ys = malloc((n + 1) * sizeof *ys);
    if (!ys) return DP_ENOMEM;
    for (size_t g = 0; g < series->n_groups; g++) {
        if (!(p->pts[g] = malloc((xk->n_groups + 1) * sizeof **p->pts))) {
            free(ys);
            return DP_ENOMEM;
        }
        for (size_t xg = 0; xg < xk->n_groups; xg++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (series->group[i] == g && xk->group[i] == xg &&
                    agg_metric_get(recs[i], f->y, &ys[m]))
                    m++;
            if (m == 0 || !xk->values[xg]) continue;   /* no y, or runs without an x */
            point *pt = &p->pts[g][p->npts[g]++];
            pt->x = f->categorical ? (double)xg : json_number_value(xk->values[xg]);
            pt->tic = f->categorical ? xk->labels[xg] : NULL;
            agg_stats_of(ys, m, &pt->st);
        }
        p->total += p->npts[g];
    }
    for (size_t i = 0; i < n; i++) p->cell[i] = series->group[i] * xk->n_groups + xk->group[i];
    p->n_cells = series->n_groups * xk->n_groups;
    free(ys);
    return 0;
}

// ---- the paper's values ---------------------------------------------------------------

void plot_paper_points_destroy(paper_points *pp)
{
    for (size_t i = 0; i < pp->n; i++) free(pp->b[i].pts);
    free(pp->b);
    memset(pp, 0, sizeof *pp);
}

static int cmp_point_x(const void *a, const void *b)
{
    const point *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* Where a reference cell's column value sits on the figure's x axis: 1 and *x (and *tic
 * for categories), or 0 when the figure has no place for it. */
static int paper_x(const figure *f, json_t *col, double *x, const char **tic)
{
    *tic = NULL;
    if (!f->categorical) {
        if (!json_is_number(col)) return 0;
        *x = json_number_value(col);
        return 1;
    }
    char *label = agg_value_label(col, "—");
    size_t k = 0;
    while (label && k < f->n_categories && strcmp(f->tics[k], label)) k++;
    free(label);
    if (!label || k == f->n_categories) return 0;
    *x = (double)k;
    *tic = f->tics[k];
    return 1;
}

/* The reference's cells as points beside the series: one block per distinct tuple of the
 * reference's row values among the series, at the column values the figure's x (and its
 * `where` on x) allows. A reference whose columns are not the figure's x, or whose rows
 * are not among its `by`, cannot be placed: pp->why says so and nothing is drawn.
 * 0 or DP_ENOMEM. */
int plot_paper_points_of(const figure *f, const ref_table *ref, const agg_key *series,
                         paper_points *pp)
{
    size_t at[16];   /* the position in `by` of each of the reference's row paths */
    if (f->curve || !ref->cols || strcmp(ref->cols, f->x)) {
        snprintf(pp->why, sizeof pp->why, "its columns are %s, the figure's x is %s",
                 ref->cols ? ref->cols : "(one column)", f->x);
        return 0;
    }
    if (ref->n_rows > sizeof at / sizeof at[0]) {
        snprintf(pp->why, sizeof pp->why, "it has more than 16 row paths");
        return 0;
    }
    for (size_t p = 0; p < ref->n_rows; p++) {
        at[p] = 0;
        while (at[p] < f->by.n && strcmp(f->by.s[at[p]], ref->rows[p])) at[p]++;
        if (at[p] == f->by.n) {
            snprintf(pp->why, sizeof pp->why, "its rows (%s) are not among the figure's `by`",
                     ref->rows[p]);
            return 0;
        }
    }
    json_t *want_x = json_object_get(f->where, f->x);
    if (!(pp->b = calloc(series->n_groups + 1, sizeof *pp->b))) return DP_ENOMEM;
    for (size_t g = 0; g < series->n_groups; g++) {
        json_t *const *mine = series->values + g * series->n_paths;
        int seen = 0;   /* an earlier series has this tuple: its block is drawn already */
        for (size_t h = 0; h < g && !seen; h++) {
            json_t *const *theirs = series->values + h * series->n_paths;
            size_t p = 0;
            while (p < ref->n_rows && agg_value_equal(mine[at[p]], theirs[at[p]])) p++;
            seen = p == ref->n_rows;
        }
        if (seen) continue;
        paper_block *blk = &pp->b[pp->n];
        if (!(blk->pts = malloc((ref->n_cells + 1) * sizeof *blk->pts))) return DP_ENOMEM;
        for (size_t c = 0; c < ref->n_cells; c++) {
            const ref_cell *cell = &ref->cells[c];
            size_t p = 0;
            while (p < ref->n_rows && agg_value_equal(mine[at[p]], json_array_get(cell->row, p)))
                p++;
            point pt;
            memset(&pt, 0, sizeof pt);
            if (p < ref->n_rows || (want_x && !agg_value_matches(cell->col, want_x)) ||
                !paper_x(f, cell->col, &pt.x, &pt.tic))
                continue;
            pt.st.n = 1;
            pt.st.mean = pt.st.min = pt.st.max = pt.st.median = cell->mean;
            pt.st.std = cell->has_std ? cell->std : 0;
            blk->has_std |= cell->has_std;
            blk->pts[blk->n++] = pt;
        }
        if (blk->n == 0) {
            free(blk->pts);
            blk->pts = NULL;
            continue;
        }
        qsort(blk->pts, blk->n, sizeof *blk->pts, cmp_point_x);
        blk->series = g;
        pp->n++;
    }
    return 0;
}
