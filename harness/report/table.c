/* table.c: the tables of `dperm report` (see table.h and report.h): grouping records into
 * cells, best-of selection, and the comparison with the paper's published numbers.
 *
 * A table is the cross of two groupings of the same records: rows (a tuple of config
 * paths) and cols (one config path, or none: one value column). Every record matching
 * the table's `where` takes part in the grouping, failed and diverged ones included, so
 * they can be placed in the table's terms when listed under it; only ok runs feed the
 * cells, so a row or column whose runs all failed says "no runs" (or "data missing"
 * when they failed for want of a dataset's files).
 *
 * `cell_notes: [{where: {PATH: value or list}, text: TEXT}]` explains cells that have no
 * runs on purpose (a configuration outside an algorithm's domain, such as Lemma 15.5's
 * eps < 1): such a cell, its rows/cols values matching `where`, shows TEXT instead of
 * "no runs", is not counted among the paper's cells without runs, and claims skip it.
 *
 * `select: {best_over: PATH, by: METRIC, prefer: max|min}` picks, per cell, the value of
 * PATH whose ok runs have the best mean of METRIC (the cell's metric by default; max
 * unless the metric is lower-is-better), and the cell then shows those runs only. This
 * is how papers report "the best learning rate": the note under the table says how many
 * configurations each cell chose from, since the privacy spent on that search is not
 * accounted (DESIGN.md, pitfalls). Ties go to the value first in grid order.
 */
#include "harness/report/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/html.h"
#include "harness/report/privacy_note.h"
#include "harness/store/store.h"

static const char *const cell_agg_names[] = {NULL, "mean_std", "mean", "median", "min", "max",
                                             "std", "range"};

static int read_select(table_result *t, json_t *sel, size_t i, dp_err *err)
{
    char what[48];
    agg_select a;
    snprintf(what, sizeof what, "report.tables[%zu]", i);
    int rc = agg_select_read(sel, what, t->cell, &a, err);
    if (rc) return rc;
    t->best_over = a.best_over;
    t->best_by = a.by;
    t->best_min = a.prefer_min;
    return 0;
}

/* Index of `path` among the table's rows paths, rows.n for its cols path, -1 if neither. */
static long table_path_index(const table_result *t, const char *path)
{
    for (size_t p = 0; p < t->rows.n; p++)
        if (!strcmp(t->rows.s[p], path)) return (long)p;
    return t->cols && !strcmp(t->cols, path) ? (long)t->rows.n : -1;
}

static int read_cell_notes(table_result *t, json_t *notes, size_t i, dp_err *err)
{
    size_t k;
    json_t *note;
    if (!notes) return 0;
    if (!json_is_array(notes))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].cell_notes: expected a list of "
                          "{where: {PATH: VALUE}, text: TEXT}", i);
    json_array_foreach(notes, k, note) {
        json_t *w = json_object_get(note, "where");
        const char *path;
        json_t *v;
        if (!json_is_object(w) || !json_object_size(w) ||
            !json_is_string(json_object_get(note, "text")))
            return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].cell_notes[%zu]: expected "
                              "{where: {PATH: VALUE}, text: TEXT}", i, k);
        json_object_foreach(w, path, v) {
            if (table_path_index(t, path) < 0)
                return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].cell_notes[%zu].where."
                                  "%s: not one of the table's rows or cols paths", i, k, path);
        }
    }
    t->cell_notes = notes;
    return 0;
}

/* The text of the first cell note whose `where` matches cell (r, c), or NULL. */
static const char *cell_note(const table_result *t, size_t r, size_t c)
{
    size_t k;
    json_t *note;
    json_array_foreach(t->cell_notes, k, note) {
        const char *path;
        json_t *want;
        int all = 1;
        json_object_foreach(json_object_get(note, "where"), path, want) {
            long p = table_path_index(t, path);
            json_t *have = p == (long)t->rows.n ? t->ck.values[c]
                                                : t->rk.values[r * t->rows.n + (size_t)p];
            all = all && agg_value_matches(have, want);
        }
        if (all) return json_string_value(json_object_get(note, "text"));
    }
    return NULL;
}

static int table_read(table_result *t, json_t *spec, size_t number, dp_err *err)
{
    size_t i = number - 1;
    if (!json_is_object(spec))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu]: expected a map", i);
    const char *name = json_string_value(json_object_get(spec, "name"));
    if (name) snprintf(t->name, sizeof t->name, "%s", name);
    else snprintf(t->name, sizeof t->name, "table%zu", number);
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
        for (int a = CELL_MEAN_STD; a <= CELL_RANGE; a++)
            if (!strcmp(agg, cell_agg_names[a])) t->agg = (cell_agg)a;
        if (!t->agg)
            return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].aggregate '%s': expected "
                              "mean_std, mean, median, min, max, std or range", i, agg);
    }
    json_t *digits = json_object_get(spec, "digits");
    json_int_t d = json_is_integer(digits) ? json_integer_value(digits) : 3;
    if (d < 0 || d > 15)
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].digits: expected 0..15", i);
    t->digits = (int)d;
    t->digits_given = json_is_integer(digits);
    json_t *cols = json_object_get(spec, "cols");
    if (cols && !json_is_null(cols) && (!json_is_string(cols) || !json_string_length(cols)))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].cols: expected a path", i);
    t->cols = json_string_value(cols);
    t->where = json_object_get(spec, "where");
    if (t->where && !json_is_object(t->where))
        return dp_err_set(err, DP_ECONFIG, "report.tables[%zu].where: expected a map", i);
    char what[64];
    snprintf(what, sizeof what, "report.tables[%zu].rows", i);
    int rc = agg_paths_from_json(json_object_get(spec, "rows"), what, &t->rows, err);
    if (rc) return rc;
    if ((rc = read_cell_notes(t, json_object_get(spec, "cell_notes"), i, err))) return rc;
    return read_select(t, json_object_get(spec, "select"), i, err);
}

/* The reference must describe the same table: same rows paths, same cols, same metric. */
static int load_reference(table_result *t, json_t *spec, size_t i, const char *base,
                          dp_err *err)
{
    const char *p = json_string_value(json_object_get(spec, "reference"));
    if (!p) return 0;
    char path[4096];
    if (!ref_resolve(p, base, path, sizeof path)) {
        dp_err_set(err, DP_EIO, "report.tables[%zu].reference: '%s' not found", i, p);
        dp_err_hint(err, "a reference path is read relative to the working folder (the "
                    "repository root), else to %s or a folder above it",
                    base && *base ? base : "the results folder");
        return DP_EIO;
    }
    int rc = ref_table_load(&t->ref, path, err);
    if (rc) return rc;
    t->has_ref = 1;
    t->scale = t->ref.scale;
    int same = t->ref.n_rows == t->rows.n &&
               (t->ref.cols && t->cols ? !strcmp(t->ref.cols, t->cols) : !t->ref.cols && !t->cols);
    for (size_t k = 0; same && k < t->rows.n; k++) same = !strcmp(t->ref.rows[k], t->rows.s[k]);
    if (!same)
        return dp_err_set_at(err, DP_ECONFIG, path, 0, 0, "rows/cols (%s%s / %s) differ from "
                             "those of report.tables[%zu] '%s'", t->ref.rows[0],
                             t->ref.n_rows > 1 ? ", ..." : "", t->ref.cols ? t->ref.cols : "none",
                             i, t->name);
    if (t->ref.metric && strcmp(t->ref.metric, t->cell))
        return dp_err_set_at(err, DP_ECONFIG, path, 0, 0, "metric '%s' differs from the cell "
                             "'%s' of report.tables[%zu] '%s'", t->ref.metric, t->cell, i,
                             t->name);
    if (!(t->citation = ref_table_citation(&t->ref)))
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    if (!t->digits_given) {   /* ours printed with the paper's decimals */
        t->digits = 0;
        for (size_t c = 0; c < t->ref.n_cells; c++)
            if (t->ref.cells[c].decimals > t->digits) t->digits = t->ref.cells[c].decimals;
    }
    return 0;
}

/* A failed run whose message says its dataset's files were not found. */
static int data_missing(json_t *rec)
{
    if (strcmp(agg_status(rec), "failed")) return 0;
    const char *m = json_string_value(json_object_get(rec, "message"));
    return m && strstr(m, "dataset") && (strstr(m, "not found") || strstr(m, "missing"));
}

static int cmp_str(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return strcmp(x ? x : "", y ? y : "");
}

/* Runs among recs[0..n): distinct ids (read-out records share their run's). */
static size_t distinct_ids(json_t *const *recs, size_t n)
{
    const char **ids = malloc(n * sizeof *ids);
    if (!ids) return n;
    for (size_t i = 0; i < n; i++) ids[i] = json_string_value(json_object_get(recs[i], "id"));
    qsort(ids, n, sizeof *ids, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += i == 0 || cmp_str(&ids[i], &ids[i - 1]) != 0;
    free(ids);
    return k;
}

/* Fill cell c from the ok runs idx[0..m) of its group (indices into sel). */
static int fill_cell(table_result *t, table_cell *c, json_t *const *sel, const size_t *idx,
                     size_t m, double *vals, dp_err *err)
{
    size_t chosen = (size_t)-1;
    agg_key k;
    memset(&k, 0, sizeof k);
    json_t **sub = NULL;
    if (t->best_over && m) {
        if (!(sub = malloc(m * sizeof *sub))) return dp_err_set(err, DP_ENOMEM, "oom");
        for (size_t j = 0; j < m; j++) sub[j] = sel[idx[j]];
        char *path[1] = {(char *)t->best_over};
        int rc = agg_key_init(&k, sub, m, path, 1, AGG_FROM_CONFIG, err);
        if (rc) {
            free(sub);
            return rc;
        }
        double best = 0;
        for (size_t g = 0; g < k.n_groups; g++) {
            double sum = 0;
            size_t cnt = 0;
            for (size_t j = 0; j < m; j++)
                if (k.group[j] == g && agg_metric_get(sub[j], t->best_by, &vals[0])) {
                    sum += vals[0];
                    cnt++;
                }
            if (!cnt) continue;
            c->k++;
            double mean = sum / (double)cnt;
            if (chosen == (size_t)-1 || (t->best_min ? mean < best : mean > best)) {
                best = mean;
                chosen = g;
            }
        }
        if (chosen != (size_t)-1) c->chosen = k.values[chosen];
    }
    size_t nv = 0;
    for (size_t j = 0; j < m; j++) {
        if (t->best_over && (chosen == (size_t)-1 || k.group[j] != chosen)) continue;
        if (agg_metric_get(sel[idx[j]], t->cell, &vals[nv])) nv++;
    }
    agg_stats_of(vals, nv, &c->st);
    agg_key_destroy(&k);
    free(sub);
    return 0;
}

static void compare_paper(table_result *t, size_t r, size_t col, table_cell *c)
{
    json_t *rowv[16];
    size_t np = t->rows.n < 16 ? t->rows.n : 16;
    for (size_t p = 0; p < np; p++) rowv[p] = t->rk.values[r * t->rows.n + p];
    c->paper = ref_table_find(&t->ref, rowv, t->cols ? t->ck.values[col] : NULL);
    double v = table_cell_value(t, &c->st);
    if (!c->paper || isnan(v)) return;
    c->ours = v * t->scale;
    c->outside = ref_outside_band(c->paper, c->ours, &c->diff);
    t->n_compared++;
    if (!c->outside) t->n_within++;
}

int table_build(table_result *t, json_t *const *recs, size_t n, json_t *spec, size_t number,
                const char *base, dp_err *err)
{
    memset(t, 0, sizeof *t);
    t->scale = 1;
    agg_strs cands = {0}, keys = {0};
    json_t **sel = malloc((n + 1) * sizeof *sel);
    double *vals = malloc((n + 1) * sizeof *vals);
    size_t *cell_of = malloc((n + 1) * sizeof *cell_of), *idx = malloc((n + 1) * sizeof *idx);
    size_t n_sel = 0;
    char *cols_path[1] = {NULL};
    int rc = table_read(t, spec, number, err);
    if (!rc) rc = load_reference(t, spec, number - 1, base, err);
    if (rc) goto fail;
    if (!sel || !vals || !cell_of || !idx) goto oom;

    for (size_t r = 0; r < n; r++)
        if (agg_where_match(recs[r], t->where)) sel[n_sel++] = recs[r];
    cols_path[0] = (char *)t->cols;
    rc = agg_key_init(&t->rk, sel, n_sel, t->rows.s, t->rows.n, AGG_FROM_CONFIG, err);
    if (rc == 0)
        rc = agg_key_init(&t->ck, sel, n_sel, cols_path, t->cols ? 1 : 0, AGG_FROM_CONFIG, err);
    if (rc) goto fail;
    size_t nr = t->rk.n_groups, nc = t->ck.n_groups;
    if (!(t->cells = calloc(nr * nc + 1, sizeof *t->cells))) goto oom;
    t->k_min = (size_t)-1;
    for (size_t r = 0; r < nr; r++) {
        for (size_t c = 0; c < nc; c++) {
            table_cell *cell = &t->cells[r * nc + c];
            size_t m = 0;
            for (size_t i = 0; i < n_sel; i++) {
                if (t->rk.group[i] != r || t->ck.group[i] != c) continue;
                if (!strcmp(agg_status(sel[i]), "ok")) idx[m++] = i;
                else cell->n_failed++, cell->n_data_missing += (size_t)data_missing(sel[i]);
            }
            if ((rc = fill_cell(t, cell, sel, idx, m, vals, err))) goto fail;
            if (!cell->st.n && t->cell_notes) cell->note = cell_note(t, r, c);
            if (t->best_over && cell->k) {
                if (cell->k < t->k_min) t->k_min = cell->k;
                if (cell->k > t->k_max) t->k_max = cell->k;
            }
            if (t->has_ref) compare_paper(t, r, c, cell);
        }
    }
    if (t->k_min == (size_t)-1) t->k_min = 0;
    for (size_t i = 0; i < n_sel && !t->fallback[0]; i++) {
        /* a run on a stand-in dataset is not the paper's experiment: the table says so */
        json_t *d = json_object_get(sel[i], "dataset");
        const char *name = json_string_value(json_object_get(d, "name"));
        const char *req = json_string_value(json_object_get(d, "requested"));
        if (json_is_true(json_object_get(d, "fallback")) && name && req)
            snprintf(t->fallback, sizeof t->fallback, "%s instead of %s, which was not found",
                     name, req);
    }
    for (size_t i = 0; i < n_sel; i++) {
        const char *s = agg_status(sel[i]);
        if (!strcmp(s, "ok")) t->n_ok++;
        else if (!strcmp(s, "diverged")) t->n_diverged++;
        else t->n_failed++;
        cell_of[i] = t->rk.group[i] * nc + t->ck.group[i];
    }
    if (n_sel && agg_config_get(sel[0], "readout"))
        t->n_runs_read = distinct_ids(sel, n_sel);
    agg_strs trained = {0};   /* runs that serve several cells: said under the table */
    for (size_t i = 0; i < n_sel; i++) {
        const char *from = json_string_value(json_object_get(sel[i], "same_run_as"));
        if (!from) continue;
        t->n_copies++;
        if (!agg_strs_has(&trained, from) && agg_strs_push(&trained, from) != 0) {
            agg_strs_destroy(&trained);
            goto oom;
        }
    }
    t->n_copied = trained.n;
    agg_strs_destroy(&trained);

    /* what a cell pools besides seeds (ok runs and failed ones alike: a cell is a config);
     * the selected path is not pooled, it is chosen */
    if (agg_leaf_paths(sel, n_sel, &cands) != 0) goto oom;
    for (size_t p = 0; p < t->rows.n; p++)
        if (agg_strs_push(&keys, t->rows.s[p]) != 0) goto oom;
    if (t->cols && agg_strs_push(&keys, t->cols) != 0) goto oom;
    if (t->best_over && agg_strs_push(&keys, t->best_over) != 0) goto oom;
    if (agg_pooled_paths(sel, n_sel, cell_of, nr * nc, &cands, &keys, &t->pooled) != 0 ||
        agg_shared_settings(sel, n_sel, &cands, &t->shared) != 0)
        goto oom;
    goto fail;   /* rc is 0: the common cleanup */
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory building table %zu", number);
fail:
    if (rc) table_result_destroy(t);
    agg_strs_destroy(&cands);
    agg_strs_destroy(&keys);
    free(sel);
    free(vals);
    free(cell_of);
    free(idx);
    return rc;
}

double table_cell_value(const table_result *t, const agg_stats *st)
{
    if (st->n == 0) return NAN;
    switch (t->agg) {
    case CELL_MEAN_STD:
    case CELL_MEAN: return st->mean;
    case CELL_MEDIAN: return st->median;
    case CELL_MIN: return st->min;
    case CELL_MAX: return st->max;
    case CELL_STD: return st->n > 1 ? st->std : NAN;
    case CELL_RANGE: return st->n > 1 ? st->max - st->min : NAN;
    }
    return NAN;
}

size_t table_paper_cells_without_runs(const table_result *t)
{
    size_t n = 0, matched = 0, cells = t->rk.n_groups * t->ck.n_groups;
    if (!t->has_ref) return 0;
    for (size_t i = 0; i < cells; i++) {
        const table_cell *c = &t->cells[i];
        matched += c->paper != NULL;   /* a reference cell matches one table cell at most */
        n += c->paper && !c->st.n && !c->note;
    }
    return n + (t->ref.n_cells - matched);
}

void table_result_destroy(table_result *t)
{
    if (!t) return;
    agg_key_destroy(&t->rk);
    agg_key_destroy(&t->ck);
    free(t->cells);
    agg_strs_destroy(&t->rows);
    agg_strs_destroy(&t->pooled);
    agg_strs_destroy(&t->shared);
    ref_table_destroy(&t->ref);
    free(t->citation);
    memset(t, 0, sizeof *t);
}

int table_write(agg_out *out, const table_result *t, json_t *const *recs, size_t n,
                unsigned formats, dp_err *err)
{
    agg_buf md, csv, tex;
    agg_buf_init(&md);
    agg_buf_init(&csv);
    agg_buf_init(&tex);
    char rel[200];
    int rc = 0;
    json_t **sel = malloc((n + 1) * sizeof *sel);
    size_t n_sel = 0;
    if (!sel) goto oom;
    for (size_t r = 0; r < n; r++)
        if (agg_where_match(recs[r], t->where)) sel[n_sel++] = recs[r];

    table_render_md(&md, t, sel, n_sel);
    if (formats & TABLE_CSV) table_render_csv(&csv, t);
    if (formats & TABLE_TEX) table_render_tex(&tex, t);
    table_render_html(&out->html, t);
    if (md.oom || csv.oom || tex.oom) goto oom;
    if (formats & (TABLE_MD | TABLE_CSV | TABLE_TEX)) {
        char *dir = NULL;
        if (asprintf(&dir, "%s/tables", out->dir) < 0) goto oom;
        rc = store_mkdirs(dir, err);
        free(dir);
        if (rc) goto fail;
    }
    static const struct {
        unsigned fmt;
        const char *ext;
    } files[] = {{TABLE_MD, "md"}, {TABLE_CSV, "csv"}, {TABLE_TEX, "tex"}};
    const agg_buf *bufs[] = {&md, &csv, &tex};
    for (size_t f = 0; f < 3; f++) {
        if (!(formats & files[f].fmt)) continue;
        snprintf(rel, sizeof rel, "tables/%s.%s", t->name, files[f].ext);
        if ((rc = agg_out_write(out, rel, bufs[f]->data ? bufs[f]->data : "", bufs[f]->len,
                                err)))
            goto fail;
    }
    agg_buf_puts(&out->md, md.data);
    int eps_axis = privacy_note_is_epsilon(t->cols);
    for (size_t i = 0; i < t->rows.n; i++) eps_axis |= privacy_note_is_epsilon(t->rows.s[i]);
    char *truth = eps_axis ? privacy_note(sel, n_sel) : NULL;
    if (truth) {
        agg_buf_printf(&out->md, "%s\n", truth);
        agg_buf_puts(&out->html, "<p class=\"note privacy\">");
        html_escape(&out->html, truth);
        agg_buf_puts(&out->html, "</p>\n");
        free(truth);
    }
    if (formats & (TABLE_CSV | TABLE_TEX)) {
        agg_buf_puts(&out->md, "\n");
        if (formats & TABLE_CSV)
            agg_buf_printf(&out->md, "CSV: [tables/%s.csv](tables/%s.csv)%s", t->name, t->name,
                           formats & TABLE_TEX ? ", " : "\n");
        if (formats & TABLE_TEX)
            agg_buf_printf(&out->md, "LaTeX: [tables/%s.tex](tables/%s.tex)\n", t->name,
                           t->name);
    }
    agg_buf_puts(&out->md, "\n");
    if (t->pooled.n && agg_strs_pushf(&out->warnings, "table %s: cells pool runs that differ "
                                      "in %s%s", t->name, t->pooled.s[0],
                                      t->pooled.n > 1 ? " and more" : ""))
        goto oom;
    goto fail;   /* rc is 0: the common cleanup */
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory writing table %s", t->name);
fail:
    agg_buf_destroy(&md);
    agg_buf_destroy(&csv);
    agg_buf_destroy(&tex);
    free(sel);
    return rc;
}
