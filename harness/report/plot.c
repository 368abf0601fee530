/* plot.c: figures for `dperm report` (see plot.h): points from records, the gnuplot data
 * file and script, and the images (gnuplot.c runs gnuplot).
 *
 * Two kinds of figure. Curve figures (x is "iteration" or "epoch") read record.curves:
 * the curves of a series (usually its seeds) are averaged point-wise over the records
 * that have a value at each x, so curves that share their x values average exactly and
 * a shorter curve simply stops contributing. Scalar figures (x a config path or a
 * metric) aggregate metrics[y] per (series, x value). x is numeric when every x value is
 * a number; otherwise the x values are categories placed at 0, 1, 2, ... with their
 * labels as tics, drawn as points (a line between categories would mean nothing).
 *
 * The .gp script is meant to be kept and restyled by hand: it runs from the figures/
 * folder, reads NAME.dat there, and picks its terminal from the variable fmt (png by
 * default; `gnuplot -e "fmt='pdf'" NAME.gp`). The harness sets `out` too, so gnuplot
 * writes a temporary file, whose bytes are then installed atomically (store_write_atomic)
 * and a reader never sees a half-drawn image.
 * Text goes into gnuplot single-quoted strings (no escapes there but '' for a quote) and
 * terminals are noenhanced, so names like test_accuracy do not turn into subscripts.
 */
#include "harness/report/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/gnuplot.h"
#include "harness/store/store.h"

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

// ---- labels ---------------------------------------------------------------------------

/* What a reader of a paper calls the keys and metrics a figure plots; a figure's xlabel /
 * ylabel override them, and a key not listed is shown as it is. */
static const struct {
    const char *key, *label;
} LABELS[] = {
    {"test_accuracy", "Test accuracy"},
    {"test_loss", "Test loss"},
    {"train_loss", "Training loss"},
    {"test_rmse", "Test RMSE"},
    {"grad_norm", "Gradient norm"},
    {"optimality_gap", "Optimality gap F(w) - F(w*)"},
    {"epsilon", "Privacy budget epsilon"},
    {"epsilon_spent", "Epsilon spent"},
    {"epsilon_rdp", "Epsilon (RDP)"},
    {"epsilon_pld", "Epsilon (PLD)"},
    {"noise_multiplier", "Noise multiplier sigma"},
    {"cpu_seconds", "CPU seconds"},
    {"wall_seconds", "Wall seconds"},
    {"iteration", "Iteration"},
    {"epoch", "Epoch"},
    {"readout.epoch", "Epoch"},
    {"readout.epsilon", "Epsilon at the read-out"},
    {"readout.epsilon_target", "Target epsilon"},
    {"algorithm.name", "Algorithm"},
    {"algorithm.smoothing", "Laplacian smoothing sigma"},
    {"algorithm.radius", "Smoothing radius R"},
    {"algorithm.samples", "Perturbed copies K"},
    {"algorithm.clip", "Clipping norm C"},
    {"train.lr", "Learning rate"},
    {"train.batch_size", "Batch size"},
    {"train.epochs", "Epochs"},
    {"dataset.name", "Dataset"},
    {"model.type", "Model"},
    {"protocol", "Protocol"},
};

static const char *label_of(const char *key)
{
    for (size_t i = 0; i < sizeof LABELS / sizeof LABELS[0]; i++)
        if (!strcmp(LABELS[i].key, key)) return LABELS[i].label;
    return key;
}

/* A key's label in this figure. Runs that evaluate on a validation split
 * (dataset.evaluate: validation) record their validation numbers under test_*, so
 * there those read "Validation ...". */
static const char *axis_label(const figure *f, const char *key)
{
    static const struct {
        const char *key, *label;
    } VALIDATION[] = {
        {"test_accuracy", "Validation accuracy"},
        {"test_loss", "Validation loss"},
        {"test_rmse", "Validation RMSE"},
    };
    for (size_t i = 0; f->on_validation && i < sizeof VALIDATION / sizeof VALIDATION[0]; i++)
        if (!strcmp(VALIDATION[i].key, key)) return VALIDATION[i].label;
    return label_of(key);
}

/* The y axis' label: the spec's, else the metric's words with the paper's unit
 * ("Test accuracy (%)"). */
static void y_label(const figure *f, char *buf, size_t n)
{
    if (f->ylabel) {
        snprintf(buf, n, "%s", f->ylabel);
        return;
    }
    const char *unit = f->yunit && !strcmp(f->yunit, "percent") ? "%" : f->yunit;
    if (unit) snprintf(buf, n, "%s (%s)", axis_label(f, f->y), unit);
    else snprintf(buf, n, "%s", axis_label(f, f->y));
}

// ---- spec -----------------------------------------------------------------------------

static int flag(json_t *fig, const char *key, int dflt)
{
    json_t *v = json_object_get(fig, key);
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

static int figure_read(figure *f, json_t *fig, size_t number, dp_err *err)
{
    if (!json_is_object(fig))
        return dp_err_set(err, DP_ECONFIG, "report.figures[%zu]: expected a map", number - 1);
    snprintf(f->namebuf, sizeof f->namebuf, "figure%zu", number);
    f->name = json_string_value(json_object_get(fig, "name"));
    if (!f->name) f->name = f->namebuf;
    if (!agg_safe_name(f->name))
        return dp_err_set(err, DP_ECONFIG, "report.figures[%zu].name '%s': use letters, "
                          "digits, '_', '-' or '.' (it names files)", number - 1, f->name);
    f->x = json_string_value(json_object_get(fig, "x"));
    if (!f->x) f->x = "iteration";
    f->curve = !strcmp(f->x, "iteration") || !strcmp(f->x, "epoch");
    f->y = json_string_value(json_object_get(fig, "y"));
    if (!f->y) f->y = f->curve ? "train_loss" : "test_accuracy";
    f->title = json_string_value(json_object_get(fig, "title"));
    f->xlabel = json_string_value(json_object_get(fig, "xlabel"));
    f->ylabel = json_string_value(json_object_get(fig, "ylabel"));
    f->where = json_object_get(fig, "where");
    if (f->where && !json_is_object(f->where))
        return dp_err_set(err, DP_ECONFIG, "report.figures[%zu].where: expected a map",
                          number - 1);
    f->logx = flag(fig, "logx", 0);
    f->logy = flag(fig, "logy", 0);
    f->errorbars = flag(fig, "errorbars", -1);
    char what[64];
    snprintf(what, sizeof what, "report.figures[%zu]", number - 1);
    int rc = agg_select_read(json_object_get(fig, "select"), what, f->y, &f->select, err);
    if (rc) return rc;
    snprintf(what, sizeof what, "report.figures[%zu].by", number - 1);
    return agg_paths_from_json(json_object_get(fig, "by"), what, &f->by, err);
}

/* Where a scalar figure's x comes from: the config when some run has it there, else the
 * metrics. */
static agg_source x_source(const figure *f, json_t *const *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (agg_config_get(recs[i], f->x)) return AGG_FROM_CONFIG;
    return AGG_FROM_METRIC;
}

/* Best-of selection (f->select): per point (series and x value; per series for a curve
 * figure) keep only the runs of the value of best_over with the best mean of select.by,
 * as a table's `select` does per cell (table.c). sel[0..*n) is compacted in place.
 * 0 or DP_ENOMEM. */
static int select_best(figure *f, json_t **sel, size_t *n, dp_err *err)
{
    agg_key series, xk, opt;
    memset(&series, 0, sizeof series);
    memset(&xk, 0, sizeof xk);
    memset(&opt, 0, sizeof opt);
    char *xpath[1] = {(char *)f->x}, *opath[1] = {(char *)f->select.best_over};
    double *sum = NULL;
    size_t *cnt = NULL, *best = NULL;
    int rc;
    if ((rc = agg_key_init(&series, sel, *n, f->by.s, f->by.n, AGG_FROM_CONFIG, err)) ||
        (!f->curve &&
         (rc = agg_key_init(&xk, sel, *n, xpath, 1, x_source(f, sel, *n), err))) ||
        (rc = agg_key_init(&opt, sel, *n, opath, 1, AGG_FROM_CONFIG, err)))
        goto done;
    size_t nx = f->curve ? 1 : xk.n_groups, no = opt.n_groups;
    size_t cells = series.n_groups * nx;
    sum = calloc(cells * no + 1, sizeof *sum);
    cnt = calloc(cells * no + 1, sizeof *cnt);
    best = malloc((cells + 1) * sizeof *best);
    if (!sum || !cnt || !best) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory selecting the best runs");
        goto done;
    }
    for (size_t i = 0; i < *n; i++) {
        size_t c = series.group[i] * nx + (f->curve ? 0 : xk.group[i]);
        double v;
        if (agg_metric_get(sel[i], f->select.by, &v)) {
            sum[c * no + opt.group[i]] += v;
            cnt[c * no + opt.group[i]]++;
        }
    }
    for (size_t c = 0; c < cells; c++) {
        size_t k = 0;
        double top = 0;
        best[c] = (size_t)-1;
        for (size_t o = 0; o < no; o++) {
            if (!cnt[c * no + o]) continue;
            double mean = sum[c * no + o] / (double)cnt[c * no + o];
            if (k++ == 0 || (f->select.prefer_min ? mean < top : mean > top)) {
                top = mean;
                best[c] = o;
            }
        }
        if (k > f->select_k_max) f->select_k_max = k;
    }
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (best[series.group[i] * nx + (f->curve ? 0 : xk.group[i])] == opt.group[i])
            sel[m++] = sel[i];
    *n = m;
done:
    free(sum);
    free(cnt);
    free(best);
    agg_key_destroy(&series);
    agg_key_destroy(&xk);
    agg_key_destroy(&opt);
    return rc;
}

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
            if (json_is_number(a) && json_is_number(b))   /* null = non-finite: skipped */
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

/* The points of every series: pts[g][0..npts[g]) for series g, and the cell (series,
 * x value) of each record for the pooled-paths check. 0 or DP_ENOMEM. */
typedef struct points {
    point **pts;
    size_t *npts;
    size_t *cell;
    size_t n_cells;
    size_t total;
    agg_key xkey;        /* scalar figures: the x values */
} points;

static void points_destroy(points *p, size_t n_series)
{
    if (p->pts)
        for (size_t g = 0; g < n_series; g++) free(p->pts[g]);
    free(p->pts);
    free(p->npts);
    free(p->cell);
    agg_key_destroy(&p->xkey);
    memset(p, 0, sizeof *p);
}

static int curve_figure_points(figure *f, json_t *const *recs, size_t n, const agg_key *series,
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

static int scalar_figure_points(figure *f, json_t *const *recs, size_t n,
                                const agg_key *series, points *p, dp_err *err)
{
    f->x_src = x_source(f, recs, n);
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

static void paper_points_destroy(paper_points *pp)
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
static int paper_points_of(const figure *f, const ref_table *ref, const agg_key *series,
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

// ---- files ----------------------------------------------------------------------------

/* Single-quoted gnuplot string: '' stands for ', line breaks become spaces. */
static void gp_quote(agg_buf *b, const char *s)
{
    agg_buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'') agg_buf_puts(b, "''");
        else if (*s == '\n' || *s == '\r') agg_buf_puts(b, " ");
        else agg_buf_printf(b, "%c", *s);
    }
    agg_buf_puts(b, "'");
}

static void write_points(agg_buf *b, const point *pts, size_t n)
{
    char x[40], m[40], s[40];
    for (size_t i = 0; i < n; i++) {
        const point *p = &pts[i];
        agg_fmt_double(x, sizeof x, p->x, 12);
        agg_fmt_double(m, sizeof m, p->st.mean, 12);
        agg_fmt_double(s, sizeof s, p->st.std, 12);
        agg_buf_printf(b, "%s %s %s %zu", x, m, s, p->st.n);
        if (p->tic) {
            agg_buf_puts(b, " \"");
            for (const char *c = p->tic; *c; c++)
                agg_buf_printf(b, "%c", *c == '"' || *c == '\n' ? '\'' : *c);
            agg_buf_puts(b, "\"");
        }
        agg_buf_puts(b, "\n");
    }
}

static void write_dat(agg_buf *b, const figure *f, const agg_key *series, point *const *pts,
                      const size_t *npts, const paper_points *pp)
{
    agg_buf_printf(b, "# %s.dat: data of figure %s (dperm report), x = %s, y = %s",
                   f->name, f->name, f->x, f->y);
    if (f->yscale != 1)
        agg_buf_printf(b, " x %g (%s, the paper's unit)", f->yscale, f->yunit ? f->yunit : "");
    agg_buf_puts(b, ".\n# One block per series (gnuplot `index`), separated by two blank lines");
    if (pp->n) agg_buf_puts(b, ";\n# then the paper's values, one block per series they match");
    agg_buf_puts(b, ".\n# Columns: x, mean of y, sample std of y (0 when n < 2), n runs");
    agg_buf_puts(b, f->categorical ? ", x label.\n" : ".\n");
    for (size_t g = 0; g < series->n_groups; g++) {
        char *label = agg_key_join(series, g, ", ");
        agg_buf_printf(b, "%s# series: %s\n", g ? "\n\n" : "\n",
                       label && *label ? label : f->y);
        free(label);
        write_points(b, pts[g], npts[g]);
    }
    for (size_t k = 0; k < pp->n; k++) {
        char *label = agg_key_join(series, pp->b[k].series, ", ");
        agg_buf_printf(b, "\n\n# the paper's values beside series: %s (std 0: none printed)\n",
                       label && *label ? label : f->y);
        free(label);
        write_points(b, pp->b[k].pts, pp->b[k].n);
    }
}

/* The positive extent of the plotted values (bands included), for log-axis tics, and the
 * whole x extent, for offsetting series. */
typedef struct range {
    double xlo, xhi, ylo, yhi;   /* 0 when there is no positive value */
    double xmin, xmax;           /* every x (0 and 0 when there is none) */
} range;

static void extend(double *lo, double *hi, double v)
{
    if (!(v > 0)) return;
    if (*lo == 0 || v < *lo) *lo = v;
    if (v > *hi) *hi = v;
}

static void range_add(range *r, const point *p, int bands, int first)
{
    extend(&r->xlo, &r->xhi, p->x);
    extend(&r->ylo, &r->yhi, p->st.mean);
    if (bands) {
        extend(&r->ylo, &r->yhi, p->st.mean - p->st.std);
        extend(&r->ylo, &r->yhi, p->st.mean + p->st.std);
    }
    if (first || p->x < r->xmin) r->xmin = p->x;
    if (first || p->x > r->xmax) r->xmax = p->x;
}

static range data_range(point *const *pts, const size_t *npts, size_t n_series,
                        const paper_points *pp, int bands)
{
    range r = {0, 0, 0, 0, 0, 0};
    int first = 1;
    for (size_t g = 0; g < n_series; g++)
        for (size_t i = 0; i < npts[g]; i++, first = 0) range_add(&r, &pts[g][i], bands, first);
    for (size_t k = 0; k < pp->n; k++)
        for (size_t i = 0; i < pp->b[k].n; i++, first = 0)
            range_add(&r, &pp->b[k].pts[i], pp->b[k].has_std, first);
    return r;
}

/* Several series with error bars at the same x hide each other's bars: each is drawn a
 * little aside, 1.2% of the x range per series (a factor on a log axis), symmetric about
 * the true x. Writes the gnuplot x column ("1", "($1+0.006)", "($1*1.01)"). */
static void x_column(char *buf, size_t n, const figure *f, const range *r, size_t g,
                     size_t n_series, int bands)
{
    double k = (double)g - 0.5 * (double)(n_series - 1);
    snprintf(buf, n, "1");
    if (n_series < 2 || f->curve) return;
    if (f->categorical) /* always side by side around a category (1 apart) */
        snprintf(buf, n, "($1%+.2f)", 0.08 * k);
    else if (!bands)
        return;
    else if (f->logx && r->xlo > 0 && r->xhi > r->xlo)
        snprintf(buf, n, "($1*%.6g)", pow(r->xhi / r->xlo, 0.012 * k));
    else if (r->xmax > r->xmin)
        snprintf(buf, n, "($1%+.6g)", 0.012 * k * (r->xmax - r->xmin));
}

/* gnuplot labels a log axis at whole decades only, so data spanning less than two
 * decades would get one label or none. Then write explicit tics and return 1: within a
 * decade, about five round values evenly spaced (1, 2 or 5 times a power of ten apart);
 * within two, 1-2-5 in each decade. Wider ranges keep gnuplot's decades: return 0. */
static int log_tics(agg_buf *b, char axis, double lo, double hi)
{
    double v[64];
    size_t n = 0;
    if (!(lo > 0) || !(hi > lo) || hi / lo >= 100) return 0;
    if (hi / lo < 10) {
        double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), q = raw / mag;
        double step = mag * (q < 1.5 ? 1 : q < 3.5 ? 2 : q < 7.5 ? 5 : 10);
        for (double k = ceil(lo / step); k * step <= hi * (1 + 1e-12) && n < 64; k++)
            v[n++] = k * step;
    } else {
        static const double mant[] = {1, 2, 5};
        for (double d = floor(log10(lo)); d <= ceil(log10(hi)); d++)
            for (size_t m = 0; m < 3; m++) {
                double t = mant[m] * pow(10, d);
                if (t >= lo && t <= hi && n < 64) v[n++] = t;
            }
    }
    if (n < 2) return 0;
    agg_buf_printf(b, "set %ctics (", axis);
    for (size_t i = 0; i < n; i++) agg_buf_printf(b, "%s%.6g", i ? ", " : "", v[i]);
    agg_buf_puts(b, ")   # round values: the range is too narrow for decades\n");
    return 1;
}

static void write_gp(agg_buf *b, const figure *f, const agg_key *series, const char *title,
                     int bands, const range *r, const paper_points *pp)
{
    char ylabel[200];
    y_label(f, ylabel, sizeof ylabel);
    agg_buf_printf(b, "# %s.gp: figure %s of `dperm report`; data in %s.dat.\n"
                      "# Remake it from this folder: gnuplot %s.gp   (PNG; add "
                      "-e \"fmt='svg'\" or \"fmt='pdf'\" before the script for the others)\n\n",
                   f->name, f->name, f->name, f->name);
    agg_buf_printf(b, "if (!exists(\"fmt\")) fmt = 'png'\n"
                      "if (!exists(\"out\")) out = '%s.' . fmt\n", f->name);
    agg_buf_puts(b, "if (fmt eq 'png') { set terminal pngcairo size 900,600 noenhanced "
                    "font 'sans,11' }\n"
                    "if (fmt eq 'svg') { set terminal svg size 900,600 dynamic noenhanced "
                    "font 'sans,12' }\n"
                    "if (fmt eq 'pdf') { set terminal pdfcairo size 9in,6in noenhanced "
                    "font 'sans,10' }\n"
                    "set output out\n\n");
    agg_buf_puts(b, "set title ");
    gp_quote(b, title);
    agg_buf_puts(b, "\nset xlabel ");
    gp_quote(b, f->xlabel ? f->xlabel : axis_label(f, f->x));
    agg_buf_puts(b, "\nset ylabel ");
    gp_quote(b, ylabel);
    agg_buf_puts(b, bands ? "   # lines: mean over runs; bands/bars: +- sample std\n" : "\n");
    /* log axes label their decades 10, 100, not 1e+01 (gnuplot's format without
     * enhanced text) */
    if (f->logx && !f->categorical) agg_buf_puts(b, "set logscale x\nset format x '%.10g'\n");
    if (f->logy) agg_buf_puts(b, "set logscale y\nset format y '%.10g'\n");
    agg_buf_puts(b, "set grid\n");
    if (f->by.n) {   /* the key's title names the series' paths */
        agg_buf t;
        agg_buf_init(&t);
        for (size_t p = 0; p < f->by.n; p++)
            agg_buf_printf(&t, "%s%s", p ? ", " : "", axis_label(f, f->by.s[p]));
        agg_buf_puts(b, "set key outside right top Left reverse title ");
        gp_quote(b, agg_buf_str(&t));
        agg_buf_puts(b, "\n");
        b->oom = b->oom || t.oom;
        agg_buf_destroy(&t);
    } else if (pp->n) {   /* one series: the key tells ours from the paper's */
        agg_buf_puts(b, "set key outside right top Left reverse\n");
    } else {
        agg_buf_puts(b, "set key off\n");
    }
    /* the data's own range plus a margin, unless a log axis is left to gnuplot's whole
     * decades (log_tics) */
    int fixx = f->categorical || !f->logx || log_tics(b, 'x', r->xlo, r->xhi);
    int fixy = !f->logy || log_tics(b, 'y', r->ylo, r->yhi);
    if (fixx || fixy)
        agg_buf_printf(b, "set autoscale %s\n", fixx && fixy ? "fix" : fixx ? "xfix" : "yfix");
    agg_buf_printf(b, "set offsets graph %s, graph %s, graph %s, graph %s\n",
                   fixx ? "0.03" : "0", fixx ? "0.03" : "0", fixy ? "0.05" : "0",
                   fixy ? "0.05" : "0");
    if (f->categorical) {   /* categories sit at 0, 1, ...: half a slot of room each side */
        agg_buf_printf(b, "set xrange [-0.5:%zu.5]\nset xtics (", f->n_categories - 1);
        for (size_t c = 0; c < f->n_categories; c++) {
            agg_buf_puts(b, c ? ", " : "");
            gp_quote(b, f->tics[c]);
            agg_buf_printf(b, " %zu", c);
        }
        agg_buf_puts(b, ")\n");
    }
    agg_buf_puts(b, "set style fill transparent solid 0.2 noborder\n");
    char xcol[48];
    x_column(xcol, sizeof xcol, f, r, 0, series->n_groups, bands);
    if (strcmp(xcol, "1") && !f->categorical)
        agg_buf_puts(b, "# series with error bars are drawn slightly aside (x column below), "
                        "so no bar hides another\n");
    agg_buf_printf(b, "data = '%s.dat'\n\nplot \\\n", f->name);
    for (size_t g = 0; g < series->n_groups; g++) {
        char *label = agg_key_join(series, g, ", ");
        const char *shown = label && *label ? label : pp->n ? "dperm" : f->y;
        size_t lc = g + 1;
        x_column(xcol, sizeof xcol, f, r, g, series->n_groups, bands);
        if (f->categorical) {
            /* no lines between categories; series side by side around each category */
            agg_buf_printf(b, "  data index %zu using %s:2%s with %s lc %zu pt 7 ps 1 title ", g,
                           xcol, bands ? ":3" : "", bands ? "yerrorbars" : "points", lc);
        } else if (bands && f->curve) {
            agg_buf_printf(b, "  data index %zu using 1:($2-$3):($2+$3) with filledcurves "
                              "lc %zu notitle, \\\n", g, lc);
            agg_buf_printf(b, "  data index %zu using 1:2 with linespoints lc %zu lw 2 pt 7 "
                              "ps 0.6 title ", g, lc);
        } else if (bands) {
            agg_buf_printf(b, "  data index %zu using %s:2:3 with yerrorlines lc %zu lw 2 pt 7 "
                              "ps 0.8 title ", g, xcol, lc);
        } else {
            agg_buf_printf(b, "  data index %zu using 1:2 with linespoints lc %zu lw 2 pt 7 "
                              "ps 0.6 title ", g, lc);
        }
        gp_quote(b, shown);
        agg_buf_puts(b, g + 1 < series->n_groups || pp->n ? ", \\\n" : "\n");
        free(label);
    }
    /* the paper's values: hollow markers (with the paper's std as bars, if printed) in
     * the colour of the series they belong to, and one key entry saying so */
    for (size_t k = 0; k < pp->n; k++)
        agg_buf_printf(b, "  data index %zu using 1:2%s with %s lc %zu pt 6 ps 1.6 lw 1 "
                          "notitle, \\\n", series->n_groups + k,
                       pp->b[k].has_std ? ":3" : "", pp->b[k].has_std ? "yerrorbars" : "points",
                       pp->b[k].series + 1);
    if (pp->n)
        agg_buf_puts(b, "  keyentry with points pt 6 ps 1.6 lc rgb 'black' "
                        "title 'Paper (hollow markers)'\n");
}

// ---- images -------------------------------------------------------------------------

/* Make figures/NAME.FMT; gnuplot's note, if any, becomes a warning. */
static int render(agg_out *out, const char *figdir, const figure *f, const char *fmt,
                  dp_err *err)
{
    char script[160], rel[200], *note = NULL, *image = NULL;
    size_t len = 0;
    snprintf(script, sizeof script, "%s.gp", f->name);
    snprintf(rel, sizeof rel, "figures/%s.%s", f->name, fmt);
    int rc = gnuplot_render(figdir, script, fmt, &image, &len, &note, err);
    if (rc == 0 && note &&
        agg_strs_pushf(&out->warnings, "figure %s (%s): gnuplot: %s", f->name, fmt, note) != 0)
        rc = dp_err_set(err, DP_ENOMEM, "out of memory drawing figure %s", f->name);
    if (rc == 0) rc = agg_out_write(out, rel, image, len, err);
    free(note);
    free(image);
    return rc;
}

// ---- figure ---------------------------------------------------------------------------

static void figure_md(agg_out *out, const figure *f, const char *title, unsigned formats,
                      int bands, const agg_strs *pooled, size_t n_runs,
                      const plot_paper *paper, const paper_points *pp)
{
    agg_buf *md = &out->md;
    const char *main_fmt = formats & PLOT_PNG ? "png" : formats & PLOT_SVG ? "svg"
                         : formats & PLOT_PDF ? "pdf" : NULL;
    agg_buf_printf(md, "### %s\n\n", title);
    if (main_fmt && strcmp(main_fmt, "pdf") == 0)
        agg_buf_printf(md, "[%s.pdf](figures/%s.pdf)\n\n", f->name, f->name);
    else if (main_fmt)
        agg_buf_printf(md, "![%s](figures/%s.%s)\n\n", title, f->name, main_fmt);
    agg_buf_printf(md, "%s of %zu ok run%s%s; ", f->y, n_runs, n_runs == 1 ? "" : "s",
                   bands ? " (mean; band or bars: ± sample std)" : "");
    agg_buf_printf(md, "data [figures/%s.dat](figures/%s.dat), script [figures/%s.gp]"
                       "(figures/%s.gp)", f->name, f->name, f->name, f->name);
    if (formats & PLOT_SVG && strcmp(main_fmt, "svg") != 0)
        agg_buf_printf(md, ", [svg](figures/%s.svg)", f->name);
    if (formats & PLOT_PDF && strcmp(main_fmt, "pdf") != 0)
        agg_buf_printf(md, ", [pdf](figures/%s.pdf)", f->name);
    agg_buf_puts(md, ".\n");
    if (f->yscale != 1)
        agg_buf_printf(md, "%s is shown in %s (x %g), as the paper of table %s prints it.\n",
                       f->y, f->yunit ? f->yunit : "the paper's unit", f->yscale, paper->table);
    if (pp->n) {
        char *cite = ref_table_citation(paper->ref);
        agg_buf_printf(md, "Hollow markers: the paper's values (%s; table %s's reference), "
                       "in the colour of the series they belong to.\n",
                       cite ? cite : paper->ref->file, paper->table);
        free(cite);
    } else if (pp->why[0]) {
        agg_buf_printf(md, "The paper's values of table %s are not drawn: %s.\n", paper->table,
                       pp->why);
    }
    if (f->select.best_over)
        agg_buf_printf(md, "Each point is the best of up to %zu values of %s (the %s mean of "
                       "%s; privacy spent on the search not accounted).\n",
                       f->select_k_max, f->select.best_over,
                       f->select.prefer_min ? "lowest" : "highest", f->select.by);
    if (pooled->n) {
        agg_buf_puts(md, "Each point pools runs that differ in:");
        for (size_t i = 0; i < pooled->n; i++)
            agg_buf_printf(md, "%s %s", i ? "," : "", pooled->s[i]);
        agg_buf_puts(md, " (add them to `by` or `where` to separate them).\n");
    }
    agg_buf_puts(md, "\n");
}

/* "Y vs X by A, B" in the labels' words unless the spec gives a title. Caller frees;
 * NULL on ENOMEM. */
static char *figure_title(const figure *f)
{
    if (f->title) return strdup(f->title);
    agg_buf t;
    agg_buf_init(&t);
    agg_buf_printf(&t, "%s vs %s", f->ylabel ? f->ylabel : axis_label(f, f->y),
                   f->xlabel ? f->xlabel : axis_label(f, f->x));
    for (size_t p = 0; p < f->by.n; p++)
        agg_buf_printf(&t, "%s%s", p ? ", " : " by ", axis_label(f, f->by.s[p]));
    if (t.oom) {
        agg_buf_destroy(&t);
        return NULL;
    }
    return t.data;
}

static int write_figure_files(agg_out *out, const figure *f, const agg_key *series,
                              const points *p, const paper_points *pp, const char *title,
                              int bands, unsigned formats, dp_err *err)
{
    static const struct {
        unsigned bit;
        const char *ext;
    } fmts[] = {{PLOT_PNG, "png"}, {PLOT_SVG, "svg"}, {PLOT_PDF, "pdf"}};
    agg_buf dat, gp;
    agg_buf_init(&dat);
    agg_buf_init(&gp);
    char rel[200], *figdir = NULL;
    if (asprintf(&figdir, "%s/figures", out->dir) < 0)
        return dp_err_set(err, DP_ENOMEM, "out of memory writing figure %s", f->name);
    int rc = store_mkdirs(figdir, err);
    if (rc) goto fail;
    write_dat(&dat, f, series, p->pts, p->npts, pp);
    range r = data_range(p->pts, p->npts, series->n_groups, pp, bands);
    write_gp(&gp, f, series, title, bands, &r, pp);
    if (dat.oom || gp.oom) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory writing figure %s", f->name);
        goto fail;
    }
    snprintf(rel, sizeof rel, "figures/%s.dat", f->name);
    if ((rc = agg_out_write(out, rel, dat.data, dat.len, err))) goto fail;
    snprintf(rel, sizeof rel, "figures/%s.gp", f->name);
    if ((rc = agg_out_write(out, rel, gp.data, gp.len, err))) goto fail;
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        if ((formats & fmts[i].bit) && (rc = render(out, figdir, f, fmts[i].ext, err)))
            goto fail;
fail:
    agg_buf_destroy(&dat);
    agg_buf_destroy(&gp);
    free(figdir);
    return rc;
}

/* Does every run evaluate on a validation split? */
static int all_on_validation(json_t *const *recs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *e = json_string_value(agg_config_get(recs[i], "dataset.evaluate"));
        if (!e || strcmp(e, "validation")) return 0;
    }
    return n > 0;
}

/* y in the paper's unit: every statistic of every point times the reference's scale. */
static void scale_points(points *p, size_t n_series, double k)
{
    for (size_t g = 0; g < n_series; g++)
        for (size_t i = 0; i < p->npts[g]; i++) {
            agg_stats *st = &p->pts[g][i].st;
            st->mean *= k;
            st->std *= k;
            st->min *= k;
            st->max *= k;
            st->median *= k;
        }
}

int plot_figure(agg_out *out, json_t *const *recs, size_t n, json_t *fig, size_t number,
                const plot_paper *paper, unsigned formats, dp_err *err)
{
    figure f;
    agg_key series;
    points p;
    paper_points pp;
    memset(&f, 0, sizeof f);
    memset(&series, 0, sizeof series);
    memset(&p, 0, sizeof p);
    memset(&pp, 0, sizeof pp);
    f.yscale = 1;
    agg_strs cands = {0}, keys = {0}, pooled = {0};
    json_t **sel = malloc((n + 1) * sizeof *sel);
    size_t n_sel = 0;
    char *title = NULL;
    int rc = figure_read(&f, fig, number, err);
    if (rc) goto fail;
    if (!sel) goto oom;

    for (size_t r = 0; r < n; r++)
        if (!strcmp(agg_status(recs[r]), "ok") && agg_where_match(recs[r], f.where))
            sel[n_sel++] = recs[r];
    if (f.select.best_over && (rc = select_best(&f, sel, &n_sel, err))) goto fail;
    if ((rc = agg_key_init(&series, sel, n_sel, f.by.s, f.by.n, AGG_FROM_CONFIG, err)))
        goto fail;
    p.pts = calloc(series.n_groups + 1, sizeof *p.pts);
    p.npts = calloc(series.n_groups + 1, sizeof *p.npts);
    p.cell = calloc(n_sel + 1, sizeof *p.cell);
    if (!p.pts || !p.npts || !p.cell) goto oom;
    rc = f.curve ? curve_figure_points(&f, sel, n_sel, &series, &p)
                 : scalar_figure_points(&f, sel, n_sel, &series, &p, err);
    if (rc == DP_ENOMEM) goto oom;
    if (rc) goto fail;
    f.on_validation = all_on_validation(sel, n_sel);
    if (paper && paper->ref) {
        f.yscale = paper->ref->scale;
        f.yunit = paper->ref->unit;
        scale_points(&p, series.n_groups, f.yscale);
        if (paper_points_of(&f, paper->ref, &series, &pp)) goto oom;
    }

    if (p.total == 0) {
        if (agg_strs_pushf(&out->warnings, "figure %s: no data points (%zu ok runs match; "
                           "y = %s, x = %s)", f.name, n_sel, f.y, f.x) != 0)
            goto oom;
        agg_buf_printf(&out->md, "### %s\n\nNo data: %zu ok runs match, none has %s "
                       "against %s.\n\n", f.title ? f.title : f.name, n_sel, f.y, f.x);
        goto fail;
    }
    int bands = f.errorbars;
    if (bands < 0) {   /* auto: as soon as any point averages several runs */
        bands = 0;
        for (size_t g = 0; g < series.n_groups; g++)
            for (size_t i = 0; i < p.npts[g]; i++) bands = bands || p.pts[g][i].st.n > 1;
    }
    if (!(title = figure_title(&f))) goto oom;

    /* what each point pools besides seeds: said under the figure */
    if (agg_leaf_paths(sel, n_sel, &cands) != 0 || agg_strs_push(&keys, f.x) != 0) goto oom;
    for (size_t i = 0; i < f.by.n; i++)
        if (agg_strs_push(&keys, f.by.s[i]) != 0) goto oom;
    if (f.select.best_over && agg_strs_push(&keys, f.select.best_over) != 0) goto oom;
    if (agg_pooled_paths(sel, n_sel, p.cell, p.n_cells, &cands, &keys, &pooled) != 0) goto oom;

    if ((rc = write_figure_files(out, &f, &series, &p, &pp, title, bands, formats, err)))
        goto fail;
    figure_md(out, &f, title, formats, bands, &pooled, n_sel, paper, &pp);
    if (pooled.n && agg_strs_pushf(&out->warnings, "figure %s: points pool runs that differ "
                                   "in %s%s", f.name, pooled.s[0],
                                   pooled.n > 1 ? " and more" : "") != 0)
        goto oom;
    goto fail;   /* rc is 0: the common cleanup */
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory drawing figure %zu", number);
fail:
    paper_points_destroy(&pp);
    points_destroy(&p, series.n_groups);
    agg_key_destroy(&series);
    agg_strs_destroy(&f.by);
    agg_strs_destroy(&cands);
    agg_strs_destroy(&keys);
    agg_strs_destroy(&pooled);
    free(sel);
    free(title);
    return rc;
}
