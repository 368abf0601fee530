/* plot.c: figures for `dperm report` (see plot.h): reading a figure's spec, its labels,
 * the images (gnuplot.c runs gnuplot) and its part of report.md; the points are
 * plot_data.c's, the gnuplot data file and script plot_script.c's.
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
#include "harness/report/plot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/gnuplot.h"
#include "harness/store/store.h"
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
const char *plot_axis_label(const figure *f, const char *key)
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
void plot_y_label(const figure *f, char *buf, size_t n)
{
    if (f->ylabel) {
        snprintf(buf, n, "%s", f->ylabel);
        return;
    }
    const char *unit = f->yunit && !strcmp(f->yunit, "percent") ? "%" : f->yunit;
    if (unit) snprintf(buf, n, "%s (%s)", plot_axis_label(f, f->y), unit);
    else snprintf(buf, n, "%s", plot_axis_label(f, f->y));
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
    json_t *xmin = json_object_get(fig, "xmin");
    f->xmin = json_is_number(xmin) ? json_number_value(xmin) : -INFINITY;
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
agg_source plot_x_source(const figure *f, json_t *const *recs, size_t n)
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
         (rc = agg_key_init(&xk, sel, *n, xpath, 1, plot_x_source(f, sel, *n), err))) ||
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
    agg_buf_printf(&t, "%s vs %s", f->ylabel ? f->ylabel : plot_axis_label(f, f->y),
                   f->xlabel ? f->xlabel : plot_axis_label(f, f->x));
    for (size_t p = 0; p < f->by.n; p++)
        agg_buf_printf(&t, "%s%s", p ? ", " : " by ", plot_axis_label(f, f->by.s[p]));
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
    plot_write_dat(&dat, f, series, p->pts, p->npts, pp);
    range r = plot_data_range(p->pts, p->npts, series->n_groups, pp, bands);
    plot_write_gp(&gp, f, series, title, bands, &r, pp);
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
    rc = f.curve ? plot_curve_points(&f, sel, n_sel, &series, &p)
                 : plot_scalar_points(&f, sel, n_sel, &series, &p, err);
    if (rc == DP_ENOMEM) goto oom;
    if (rc) goto fail;
    f.on_validation = all_on_validation(sel, n_sel);
    if (paper && paper->ref) {
        f.yscale = paper->ref->scale;
        f.yunit = paper->ref->unit;
        scale_points(&p, series.n_groups, f.yscale);
        if (plot_paper_points_of(&f, paper->ref, &series, &pp)) goto oom;
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
    plot_paper_points_destroy(&pp);
    plot_points_destroy(&p, series.n_groups);
    agg_key_destroy(&series);
    agg_strs_destroy(&f.by);
    agg_strs_destroy(&cands);
    agg_strs_destroy(&keys);
    agg_strs_destroy(&pooled);
    free(sel);
    free(title);
    return rc;
}
