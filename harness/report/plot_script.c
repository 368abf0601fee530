/* plot_script.c: a figure's gnuplot files (plot_int.h): NAME.dat with one block per
 * series, and NAME.gp, meant to be kept and restyled by hand (plot.c's header).
 */
#include "harness/report/plot.h"
#include "harness/report/plot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void plot_write_dat(agg_buf *b, const figure *f, const agg_key *series, point *const *pts,
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

range plot_data_range(point *const *pts, const size_t *npts, size_t n_series,
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

/* Which of the series' paths the key shows: those whose value differs between series
 * (a path that a figure's `where` holds fixed, such as the dataset of a per-dataset
 * figure, would repeat itself on every line of the key and crowd the plot); all of them
 * when none differs. shown has room for series->n_paths. */
static void key_paths(const agg_key *series, unsigned char *shown)
{
    size_t np = series->n_paths, any = 0;
    for (size_t p = 0; p < np; p++) {
        shown[p] = 0;
        for (size_t g = 1; g < series->n_groups && !shown[p]; g++)
            shown[p] = strcmp(series->labels[g * np + p], series->labels[p]) != 0;
        any += shown[p];
    }
    if (!any) memset(shown, 1, np);
}

/* Series g's line in the key: its values of the shown paths, joined by ", ". */
static void key_label(agg_buf *b, const agg_key *series, size_t g, const unsigned char *shown)
{
    size_t np = series->n_paths;
    for (size_t p = 0, first = 1; p < np; p++)
        if (shown[p]) {
            agg_buf_printf(b, "%s%s", first ? "" : ", ", series->labels[g * np + p]);
            first = 0;
        }
}

/* The terminal, the title, the axes' labels and scales, and the key (its title names the
 * shown paths). */
static void gp_preamble(agg_buf *b, const figure *f, const char *title, int bands,
                        const paper_points *pp, const unsigned char *shown)
{
    char ylabel[200];
    plot_y_label(f, ylabel, sizeof ylabel);
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
    gp_quote(b, f->xlabel ? f->xlabel : plot_axis_label(f, f->x));
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
        for (size_t p = 0, first = 1; p < f->by.n; p++)
            if (shown[p]) {
                agg_buf_printf(&t, "%s%s", first ? "" : ", ", plot_axis_label(f, f->by.s[p]));
                first = 0;
            }
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
}

/* The ranges: the data's own plus a margin, unless a log axis is left to gnuplot's whole
 * decades (log_tics); categories at 0, 1, ... with their names as tics. */
static void gp_ranges(agg_buf *b, const figure *f, const range *r)
{
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
}

void plot_write_gp(agg_buf *b, const figure *f, const agg_key *series, const char *title,
                   int bands, const range *r, const paper_points *pp)
{
    unsigned char *shown = calloc(f->by.n + 1, 1);
    if (!shown) {
        b->oom = 1;
        return;
    }
    if (series->n_paths == f->by.n) key_paths(series, shown);
    else memset(shown, 1, f->by.n);
    gp_preamble(b, f, title, bands, pp, shown);
    gp_ranges(b, f, r);
    agg_buf_puts(b, "set style fill transparent solid 0.2 noborder\n");
    char xcol[48];
    x_column(xcol, sizeof xcol, f, r, 0, series->n_groups, bands);
    if (strcmp(xcol, "1") && !f->categorical)
        agg_buf_puts(b, "# series with error bars are drawn slightly aside (x column below), "
                        "so no bar hides another\n");
    agg_buf_printf(b, "data = '%s.dat'\n\nplot \\\n", f->name);
    for (size_t g = 0; g < series->n_groups; g++) {
        agg_buf label;
        agg_buf_init(&label);
        key_label(&label, series, g, shown);
        b->oom = b->oom || label.oom;
        const char *text = label.len ? agg_buf_str(&label) : pp->n ? "dperm" : f->y;
        size_t lc = g + 1;
        /* gnuplot has 8 colours: the series after them are dashed, so none looks like
         * the series whose colour it repeats */
        const char *dt = g >= 8 ? " dt 2" : "";
        x_column(xcol, sizeof xcol, f, r, g, series->n_groups, bands);
        if (f->categorical) {
            /* no lines between categories; series side by side around each category */
            agg_buf_printf(b, "  data index %zu using %s:2%s with %s lc %zu pt 7 ps 1 title ", g,
                           xcol, bands ? ":3" : "", bands ? "yerrorbars" : "points", lc);
        } else if (bands && f->curve) {
            agg_buf_printf(b, "  data index %zu using 1:($2-$3):($2+$3) with filledcurves "
                              "lc %zu notitle, \\\n", g, lc);
            agg_buf_printf(b, "  data index %zu using 1:2 with linespoints lc %zu lw 2%s pt 7 "
                              "ps 0.6 title ", g, lc, dt);
        } else if (bands) {
            agg_buf_printf(b, "  data index %zu using %s:2:3 with yerrorlines lc %zu lw 2%s pt 7 "
                              "ps 0.8 title ", g, xcol, lc, dt);
        } else {
            agg_buf_printf(b, "  data index %zu using 1:2 with linespoints lc %zu lw 2%s pt 7 "
                              "ps 0.6 title ", g, lc, dt);
        }
        gp_quote(b, text);
        agg_buf_puts(b, g + 1 < series->n_groups || pp->n ? ", \\\n" : "\n");
        agg_buf_destroy(&label);
    }
    free(shown);
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
