/* table.c: the tables of `dperm report` (see table.h and report.h).
 *
 * A table is the cross of two groupings of the same records: rows (a tuple of config
 * paths) and cols (one config path, or none: one value column). Every record matching
 * the table's `where` takes part in the grouping, failed and diverged ones included, so
 * they can be placed in the table's terms when listed under it; only ok runs feed the
 * cells, so a row or column whose runs all failed shows as "—".
 *
 * The Markdown cell shows the chosen aggregate rounded to `digits` decimals; the CSV
 * line of a cell always carries every statistic at 12 significant digits (about what a
 * double mean of a few seeds is worth), so scripts never parse "±".
 */
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define LISTED_MAX 20   /* failed/diverged runs listed under a table; the rest counted */

typedef enum { CELL_MEAN_STD = 1, CELL_MEAN, CELL_MEDIAN, CELL_MIN, CELL_MAX } cell_agg;

static const char *const cell_agg_names[] = {NULL, "mean_std", "mean", "median", "min", "max"};

typedef struct table {
    const char *name, *title, *cell;
    cell_agg agg;
    int digits;
    agg_strs rows;
    const char *cols;      /* NULL: a single value column */
    json_t *where;
    char namebuf[32];
} table;

static int table_read(table *t, json_t *spec, size_t number, dp_err *err)
{
    size_t i = number - 1;
    if (!json_is_object(spec))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu]: expected a map", i);
    snprintf(t->namebuf, sizeof t->namebuf, "table%zu", number);
    t->name = json_string_value(json_object_get(spec, "name"));
    if (!t->name) t->name = t->namebuf;
    if (!agg_safe_name(t->name))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].name '%s': use letters, "
                          "digits, '_', '-' or '.' (it names files)", i, t->name);
    t->title = json_string_value(json_object_get(spec, "title"));
    t->cell = json_string_value(json_object_get(spec, "cell"));
    if (!t->cell) t->cell = "test_accuracy";
    const char *agg = json_string_value(json_object_get(spec, "aggregate"));
    t->agg = CELL_MEAN_STD;
    if (agg) {
        t->agg = 0;
        for (int a = CELL_MEAN_STD; a <= CELL_MAX; a++)
            if (!strcmp(agg, cell_agg_names[a])) t->agg = (cell_agg)a;
        if (!t->agg)
            return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].aggregate '%s': expected "
                              "mean_std, mean, median, min or max", i, agg);
    }
    json_t *digits = json_object_get(spec, "digits");
    json_int_t d = json_is_integer(digits) ? json_integer_value(digits) : 3;
    if (d < 0 || d > 15)
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].digits: expected 0..15", i);
    t->digits = (int)d;
    json_t *cols = json_object_get(spec, "cols");
    if (cols && !json_is_null(cols) && (!json_is_string(cols) || !json_string_length(cols)))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].cols: expected a path", i);
    t->cols = json_string_value(cols);
    t->where = json_object_get(spec, "where");
    if (t->where && !json_is_object(t->where))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].where: expected a map", i);
    char what[64];
    snprintf(what, sizeof what, "report.tables[%zu].rows", i);
    return agg_paths_from_json(json_object_get(spec, "rows"), what, &t->rows, err);
}

// ---- text -----------------------------------------------------------------------------

/* x with `digits` decimals; a rounded -0.000 prints as 0.000. */
static void fmt_fixed(char *buf, size_t n, double x, int digits)
{
    snprintf(buf, n, "%.*f", digits, x);
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
}

static void md_cell(agg_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') agg_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r') agg_buf_puts(b, " ");
        else agg_buf_printf(b, "%c", *s);
    }
}

static void csv_field(agg_buf *b, const char *s)
{
    if (s[strcspn(s, ",\"\r\n")] == '\0' && s[0] != ' ') {
        agg_buf_puts(b, s);
        return;
    }
    agg_buf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"') agg_buf_puts(b, "\"\"");
        else agg_buf_printf(b, "%c", *s);
    }
    agg_buf_puts(b, "\"");
}

static void cell_text(char *buf, size_t n, const table *t, const agg_stats *st)
{
    char a[64], b[64];
    if (st->n == 0) {
        snprintf(buf, n, "—");
        return;
    }
    switch (t->agg) {
    case CELL_MEAN_STD:
        fmt_fixed(a, sizeof a, st->mean, t->digits);
        fmt_fixed(b, sizeof b, st->std, t->digits);
        if (st->n > 1) snprintf(buf, n, "%s ± %s (n=%zu)", a, b, st->n);
        else snprintf(buf, n, "%s (n=1)", a);
        return;
    case CELL_MEAN: fmt_fixed(buf, n, st->mean, t->digits); return;
    case CELL_MEDIAN: fmt_fixed(buf, n, st->median, t->digits); return;
    case CELL_MIN: fmt_fixed(buf, n, st->min, t->digits); return;
    case CELL_MAX: fmt_fixed(buf, n, st->max, t->digits); return;
    }
}

static const char *agg_sentence(cell_agg a)
{
    switch (a) {
    case CELL_MEAN_STD: return "mean ± sample std (n ok runs)";
    case CELL_MEAN: return "mean over ok runs";
    case CELL_MEDIAN: return "median over ok runs";
    case CELL_MIN: return "minimum over ok runs";
    case CELL_MAX: return "maximum over ok runs";
    }
    return "";
}

// ---- table ----------------------------------------------------------------------------

typedef struct grid2 {     /* the table's groupings and statistics */
    agg_key rows, cols;
    agg_stats *cells;      /* rows.n_groups x cols.n_groups */
    size_t n_ok, n_failed, n_diverged;
} grid2;

static void write_md(agg_buf *b, const table *t, const grid2 *g, json_t *const *sel,
                     size_t n_sel, const agg_strs *pooled)
{
    char text[256];
    if (t->title) {
        agg_buf_printf(b, "### %s\n\n", t->title);
    } else {
        agg_buf_printf(b, "### %s", t->cell);
        for (size_t p = 0; p < t->rows.n; p++)
            agg_buf_printf(b, "%s%s", p ? ", " : " by ", t->rows.s[p]);
        if (t->cols) agg_buf_printf(b, "%s%s", t->rows.n ? " and " : " by ", t->cols);
        agg_buf_puts(b, "\n\n");
    }
    /* header and alignment rows */
    agg_buf_puts(b, "|");
    if (t->rows.n == 0) agg_buf_puts(b, " runs |");
    for (size_t p = 0; p < t->rows.n; p++) {
        agg_buf_puts(b, " ");
        md_cell(b, t->rows.s[p]);
        agg_buf_puts(b, " |");
    }
    for (size_t c = 0; c < g->cols.n_groups; c++) {
        agg_buf_puts(b, " ");
        if (t->cols) agg_buf_printf(b, "%s=", t->cols);
        md_cell(b, t->cols ? g->cols.labels[c] : t->cell);
        agg_buf_puts(b, " |");
    }
    agg_buf_puts(b, "\n|");
    for (size_t p = 0; p < (t->rows.n ? t->rows.n : 1); p++) agg_buf_puts(b, "---|");
    for (size_t c = 0; c < g->cols.n_groups; c++) agg_buf_puts(b, "---:|");
    agg_buf_puts(b, "\n");
    for (size_t r = 0; r < g->rows.n_groups; r++) {
        agg_buf_puts(b, "|");
        if (t->rows.n == 0) agg_buf_puts(b, " all |");
        for (size_t p = 0; p < t->rows.n; p++) {
            agg_buf_puts(b, " ");
            md_cell(b, g->rows.labels[r * t->rows.n + p]);
            agg_buf_puts(b, " |");
        }
        for (size_t c = 0; c < g->cols.n_groups; c++) {
            cell_text(text, sizeof text, t, &g->cells[r * g->cols.n_groups + c]);
            agg_buf_printf(b, " %s |", text);
        }
        agg_buf_puts(b, "\n");
    }

    agg_buf_printf(b, "\nRuns: %zu ok, %zu failed, %zu diverged. Cells: %s, %s.\n", g->n_ok,
                   g->n_failed, g->n_diverged, t->cell, agg_sentence(t->agg));
    if (pooled->n) {
        agg_buf_puts(b, "Cells pool runs that differ in:");
        for (size_t i = 0; i < pooled->n; i++)
            agg_buf_printf(b, "%s %s", i ? "," : "", pooled->s[i]);
        agg_buf_puts(b, " (add them to `rows`, `cols` or `where` to separate them).\n");
    }
    /* the runs left out of the cells, in the table's own terms */
    size_t listed = 0, bad = g->n_failed + g->n_diverged;
    for (size_t i = 0; i < n_sel && listed < LISTED_MAX; i++) {
        const char *status = agg_status(sel[i]);
        if (!strcmp(status, "ok")) continue;
        if (listed++ == 0) agg_buf_puts(b, "\n");
        agg_buf_printf(b, "- %s:", status);
        size_t rg = g->rows.group[i], cg = g->cols.group[i];
        for (size_t p = 0; p < t->rows.n; p++)
            agg_buf_printf(b, "%s %s=%s", p ? "," : "", t->rows.s[p],
                           g->rows.labels[rg * t->rows.n + p]);
        if (t->cols)
            agg_buf_printf(b, "%s %s=%s", t->rows.n ? "," : "", t->cols, g->cols.labels[cg]);
        json_t *seed = agg_config_get(sel[i], "seed");
        char *seed_s = seed ? agg_value_label(seed, "") : NULL;
        if (seed_s) agg_buf_printf(b, "%s seed=%s", t->rows.n || t->cols ? "," : "", seed_s);
        free(seed_s);
        const char *id = json_string_value(json_object_get(sel[i], "id"));
        const char *msg = json_string_value(json_object_get(sel[i], "message"));
        if (id) agg_buf_printf(b, " (run %s)", id);
        if (msg && *msg) {
            agg_buf_puts(b, ": ");
            md_cell(b, msg);
        }
        agg_buf_puts(b, "\n");
    }
    if (bad > listed) agg_buf_printf(b, "- ... and %zu more\n", bad - listed);
}

static void write_csv(agg_buf *b, const table *t, const grid2 *g)
{
    char num[40];
    for (size_t p = 0; p < t->rows.n; p++) {
        csv_field(b, t->rows.s[p]);
        agg_buf_puts(b, ",");
    }
    if (t->cols) {
        csv_field(b, t->cols);
        agg_buf_puts(b, ",");
    }
    agg_buf_puts(b, "metric,mean,std,n,min,max,median\n");
    for (size_t r = 0; r < g->rows.n_groups; r++) {
        for (size_t c = 0; c < g->cols.n_groups; c++) {
            const agg_stats *st = &g->cells[r * g->cols.n_groups + c];
            if (st->n == 0) continue;
            for (size_t p = 0; p < t->rows.n; p++) {   /* an absent value is an empty field */
                size_t i = r * t->rows.n + p;
                csv_field(b, g->rows.values[i] ? g->rows.labels[i] : "");
                agg_buf_puts(b, ",");
            }
            if (t->cols) {
                csv_field(b, g->cols.values[c] ? g->cols.labels[c] : "");
                agg_buf_puts(b, ",");
            }
            csv_field(b, t->cell);
            agg_fmt_double(num, sizeof num, st->mean, 12);
            agg_buf_printf(b, ",%s,", num);
            if (st->n > 1) {
                agg_fmt_double(num, sizeof num, st->std, 12);
                agg_buf_puts(b, num);
            }
            agg_buf_printf(b, ",%zu,", st->n);
            agg_fmt_double(num, sizeof num, st->min, 12);
            agg_buf_printf(b, "%s,", num);
            agg_fmt_double(num, sizeof num, st->max, 12);
            agg_buf_printf(b, "%s,", num);
            agg_fmt_double(num, sizeof num, st->median, 12);
            agg_buf_printf(b, "%s\n", num);
        }
    }
}

int table_write(agg_out *out, json_t *const *recs, size_t n, json_t *spec, size_t number,
                unsigned formats, dp_err *err)
{
    table t;
    grid2 g;
    memset(&t, 0, sizeof t);
    memset(&g, 0, sizeof g);
    agg_strs cands = {0}, keys = {0}, pooled = {0};
    agg_buf md, csv;
    agg_buf_init(&md);
    agg_buf_init(&csv);
    json_t **sel = malloc((n + 1) * sizeof *sel);
    double *vals = malloc((n + 1) * sizeof *vals);
    size_t *cell_of = malloc((n + 1) * sizeof *cell_of);
    size_t n_sel = 0;
    char *cols_path[1] = {NULL};
    char rel[200];
    int rc = table_read(&t, spec, number, err);
    if (rc) goto fail;
    if (!sel || !vals || !cell_of) goto oom;

    for (size_t r = 0; r < n; r++)
        if (agg_where_match(recs[r], t.where)) sel[n_sel++] = recs[r];
    cols_path[0] = (char *)t.cols;
    rc = agg_key_init(&g.rows, sel, n_sel, t.rows.s, t.rows.n, AGG_FROM_CONFIG, err);
    if (rc == 0)
        rc = agg_key_init(&g.cols, sel, n_sel, cols_path, t.cols ? 1 : 0, AGG_FROM_CONFIG, err);
    if (rc) goto fail;
    g.cells = calloc(g.rows.n_groups * g.cols.n_groups + 1, sizeof *g.cells);
    if (!g.cells) goto oom;
    for (size_t r = 0; r < g.rows.n_groups; r++) {
        for (size_t c = 0; c < g.cols.n_groups; c++) {
            size_t m = 0;
            for (size_t i = 0; i < n_sel; i++)
                if (g.rows.group[i] == r && g.cols.group[i] == c &&
                    !strcmp(agg_status(sel[i]), "ok") &&
                    agg_metric_get(sel[i], t.cell, &vals[m]))
                    m++;
            agg_stats_of(vals, m, &g.cells[r * g.cols.n_groups + c]);
        }
    }
    for (size_t i = 0; i < n_sel; i++) {
        const char *s = agg_status(sel[i]);
        if (!strcmp(s, "ok")) g.n_ok++;
        else if (!strcmp(s, "diverged")) g.n_diverged++;
        else g.n_failed++;
        cell_of[i] = g.rows.group[i] * g.cols.n_groups + g.cols.group[i];
    }

    /* what a cell pools besides seeds (ok runs and failed ones alike: a cell is a config) */
    if (agg_leaf_paths(sel, n_sel, &cands) != 0) goto oom;
    for (size_t p = 0; p < t.rows.n; p++)
        if (agg_strs_push(&keys, t.rows.s[p]) != 0) goto oom;
    if (t.cols && agg_strs_push(&keys, t.cols) != 0) goto oom;
    if (agg_pooled_paths(sel, n_sel, cell_of, g.rows.n_groups * g.cols.n_groups, &cands, &keys,
                         &pooled) != 0)
        goto oom;

    write_md(&md, &t, &g, sel, n_sel, &pooled);
    if (formats & TABLE_CSV) write_csv(&csv, &t, &g);
    if (md.oom || csv.oom) goto oom;
    if (formats & (TABLE_MD | TABLE_CSV)) {
        char *dir = NULL;
        if (asprintf(&dir, "%s/tables", out->dir) < 0) goto oom;
        rc = store_mkdirs(dir, err);
        free(dir);
        if (rc) goto fail;
    }
    if (formats & TABLE_MD) {
        snprintf(rel, sizeof rel, "tables/%s.md", t.name);
        if ((rc = agg_out_write(out, rel, md.data, md.len, err))) goto fail;
    }
    if (formats & TABLE_CSV) {
        snprintf(rel, sizeof rel, "tables/%s.csv", t.name);
        if ((rc = agg_out_write(out, rel, csv.data, csv.len, err))) goto fail;
    }
    agg_buf_puts(&out->md, md.data);
    if (formats & TABLE_CSV) agg_buf_printf(&out->md, "\nCSV: [tables/%s.csv](tables/%s.csv)\n",
                                            t.name, t.name);
    agg_buf_puts(&out->md, "\n");
    if (pooled.n && agg_strs_pushf(&out->warnings, "table %s: cells pool runs that differ in "
                                   "%s%s", t.name, pooled.s[0], pooled.n > 1 ? " and more" : ""))
        goto oom;
    goto fail;   /* rc is 0: the common cleanup */
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory building table %zu", number);
fail:
    agg_key_destroy(&g.rows);
    agg_key_destroy(&g.cols);
    free(g.cells);
    agg_strs_destroy(&t.rows);
    agg_strs_destroy(&cands);
    agg_strs_destroy(&keys);
    agg_strs_destroy(&pooled);
    agg_buf_destroy(&md);
    agg_buf_destroy(&csv);
    free(sel);
    free(vals);
    free(cell_of);
    return rc;
}
