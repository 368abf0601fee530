/* reference.c: reading a paper's published table (reference.h) and the band test.
 *
 * The file is parsed by the experiment parser (config.h), so its errors have the same
 * FILE:LINE:COL form and the same did-you-mean for keys. Values of rows and cols are
 * typed as YAML types them (0.30 a number, dp_sgd a string), then matched against our
 * records as the report groups values (agg_value_equal: 0.3 equals 0.30).
 *
 * Choice where the issue is silent: "2 points" when the paper gives no std means 2 units
 * of the number as printed (2 percentage points for a table in percent, 2 of whatever
 * unit otherwise). Numbers spanning decades (optimality gaps, CPU times) are compared by
 * ratio instead: `band_factor: F` puts a cell without std inside when ours lies within a
 * factor F of the paper's value (both positive).
 */
#include "harness/report/reference.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/report/aggregate.h"
#include "harness/config/config.h"

static const char *const REF_KEYS[] = {"source", "metric", "unit", "scale", "band_factor", "runs",
                                       "rows",   "cols",   "cells"};
static const char *const SOURCE_KEYS[] = {"paper", "table", "page", "section", "note"};
static const char *const CELL_KEYS[] = {"row", "col", "mean", "std"};

void ref_table_destroy(ref_table *t)
{
    if (!t) return;
    free(t->file);
    free(t->paper);
    free(t->table);
    free(t->page);
    free(t->section);
    free(t->note);
    free(t->metric);
    free(t->unit);
    for (size_t i = 0; i < t->n_rows; i++) free(t->rows[i]);
    free(t->rows);
    free(t->cols);
    for (size_t i = 0; i < t->n_cells; i++) {
        json_decref(t->cells[i].row);
        json_decref(t->cells[i].col);
    }
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* A scalar value usable as a row or column key: not a map, list or null. */
static int key_value(const cfg_node *n, const char *what, json_t **out, dp_err *err)
{
    if (n->kind != CFG_SCALAR || cfg_scalar_type(n) == CFG_T_NULL)
        return cfg_error(err, n, 0, "%s: expected a single value (as in the runs' config)",
                         what);
    *out = cfg_to_json(n);
    return *out ? 0 : dp_err_set(err, DP_ENOMEM, "out of memory");
}

/* A number with its printed text; the text keeps the paper's decimals. */
static int printed_number(const cfg_node *n, const char *what, double *v, char *text,
                          size_t size, dp_err *err)
{
    int rc = cfg_as_double(n, what, v, err);
    if (rc) return rc;
    if (!isfinite(*v)) return cfg_error(err, n, 0, "%s: expected a finite number", what);
    snprintf(text, size, "%s", n->value);
    return 0;
}

static int decimals_of(const char *s)
{
    const char *dot = strchr(s, '.');
    if (!dot) return 0;
    int d = 0;
    for (dot++; *dot >= '0' && *dot <= '9'; dot++) d++;
    return d;
}

static int read_source(ref_table *t, const cfg_node *src, dp_err *err)
{
    int rc;
    if ((rc = cfg_expect_map(src, "source", err)) ||
        (rc = cfg_check_keys(src, "source", SOURCE_KEYS, CFG_COUNT(SOURCE_KEYS), err)))
        return rc;
    const char *s;
    char **dst[] = {&t->paper, &t->table, &t->page, &t->section, &t->note};
    for (size_t k = 0; k < CFG_COUNT(SOURCE_KEYS); k++) {
        const cfg_node *n = cfg_get(src, SOURCE_KEYS[k]);
        if (!n) {
            if (k < 2) return cfg_missing(src, "source", SOURCE_KEYS[k], err);
            continue;
        }
        char what[32];
        snprintf(what, sizeof what, "source.%s", SOURCE_KEYS[k]);
        if (n->kind != CFG_SCALAR) return cfg_error(err, n, 0, "%s: expected text", what);
        s = n->value;
        if (!(*dst[k] = strdup(s))) return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    return 0;
}

static int read_paths(ref_table *t, const cfg_node *n, dp_err *err)
{
    size_t m = n->kind == CFG_SEQ ? n->n_items : 1;
    if (m == 0) return cfg_error(err, n, 0, "rows: expected a path or a list of paths");
    if (!(t->rows = calloc(m, sizeof *t->rows))) return dp_err_set(err, DP_ENOMEM, "oom");
    for (size_t i = 0; i < m; i++) {
        const cfg_node *p = n->kind == CFG_SEQ ? n->items[i] : n;
        const char *s;
        int rc = cfg_as_string(p, "rows", &s, err);
        if (rc) return rc;
        if (!(t->rows[t->n_rows++] = strdup(s))) return dp_err_set(err, DP_ENOMEM, "oom");
    }
    return 0;
}

static int read_cell(ref_table *t, const cfg_node *c, size_t i, dp_err *err)
{
    char where[48], what[64];
    snprintf(where, sizeof where, "cells[%zu]", i);
    int rc;
    if ((rc = cfg_expect_map(c, where, err)) ||
        (rc = cfg_check_keys(c, where, CELL_KEYS, CFG_COUNT(CELL_KEYS), err)))
        return rc;
    ref_cell *rc_ = &t->cells[t->n_cells];
    memset(rc_, 0, sizeof *rc_);
    rc_->line = c->line;
    t->n_cells++;   /* counted now so destroy releases what is read below */
    const cfg_node *row = cfg_get(c, "row"), *col = cfg_get(c, "col");
    const cfg_node *mean = cfg_get(c, "mean"), *std = cfg_get(c, "std");
    if (!row) return cfg_missing(c, where, "row", err);
    if (!mean) return cfg_missing(c, where, "mean", err);
    if (t->cols && !col) return cfg_missing(c, where, "col", err);
    if (!t->cols && col)
        return cfg_error(err, col, 1, "%s.col: the reference has no `cols` path", where);

    size_t m = row->kind == CFG_SEQ ? row->n_items : 1;
    snprintf(what, sizeof what, "%s.row", where);
    if (m != t->n_rows)
        return cfg_error(err, row, 0, "%s: expected %zu value%s (one per rows path), got %zu",
                         what, t->n_rows, t->n_rows == 1 ? "" : "s", m);
    if (!(rc_->row = json_array())) return dp_err_set(err, DP_ENOMEM, "oom");
    for (size_t k = 0; k < m; k++) {
        json_t *v;
        if ((rc = key_value(row->kind == CFG_SEQ ? row->items[k] : row, what, &v, err)))
            return rc;
        json_array_append_new(rc_->row, v);
    }
    snprintf(what, sizeof what, "%s.col", where);
    if (col && (rc = key_value(col, what, &rc_->col, err))) return rc;
    snprintf(what, sizeof what, "%s.mean", where);
    if ((rc = printed_number(mean, what, &rc_->mean, rc_->mean_text, sizeof rc_->mean_text,
                             err)))
        return rc;
    rc_->decimals = decimals_of(rc_->mean_text);
    if (std) {
        snprintf(what, sizeof what, "%s.std", where);
        if ((rc = printed_number(std, what, &rc_->std, rc_->std_text, sizeof rc_->std_text,
                                 err)))
            return rc;
        if (rc_->std < 0) return cfg_error(err, std, 0, "%s: must be >= 0", what);
        rc_->has_std = 1;
    }
    /* one cell per (row, col): a second one is a transcription slip */
    for (size_t j = 0; j + 1 < t->n_cells; j++) {
        const ref_cell *o = &t->cells[j];
        int same = agg_value_equal(o->col, rc_->col);
        for (size_t k = 0; same && k < m; k++)
            same = agg_value_equal(json_array_get(o->row, k), json_array_get(rc_->row, k));
        if (same)
            return cfg_error(err, c, 0, "%s: a second cell for the same row and col (first "
                             "at line %d)", where, o->line);
    }
    return 0;
}

static int load_doc(ref_table *t, const cfg_node *root, dp_err *err)
{
    int rc;
    if (!root || root->kind != CFG_MAP)
        return cfg_error(err, root, 0, "a reference file is a map with source, rows, cols "
                         "and cells");
    if ((rc = cfg_check_keys(root, "the reference", REF_KEYS, CFG_COUNT(REF_KEYS), err)))
        return rc;
    static const char *const required[] = {"source", "rows", "cells"};
    for (size_t k = 0; k < CFG_COUNT(required); k++)
        if (!cfg_get(root, required[k])) return cfg_missing(root, "", required[k], err);
    if ((rc = read_source(t, cfg_get(root, "source"), err))) return rc;
    const char *s;
    if ((rc = cfg_read_string(root, "", "metric", &s, err))) return rc;
    if (s && !(t->metric = strdup(s))) return dp_err_set(err, DP_ENOMEM, "oom");
    if ((rc = cfg_read_string(root, "", "unit", &s, err))) return rc;
    if (s && !(t->unit = strdup(s))) return dp_err_set(err, DP_ENOMEM, "oom");
    if ((rc = cfg_read_string(root, "", "cols", &s, err))) return rc;
    if (s && !(t->cols = strdup(s))) return dp_err_set(err, DP_ENOMEM, "oom");
    cfg_range positive = {0, INFINITY, 1, 1, "> 0"};
    cfg_range above_one = {1, INFINITY, 1, 1, "> 1"};
    if ((rc = cfg_read_number(root, "", "scale", 0, 1, positive, &t->scale, err)) ||
        (rc = cfg_read_number(root, "", "band_factor", 0, 0, above_one, &t->band_factor,
                              err)) ||
        (rc = cfg_read_int(root, "", "runs", 0, 0, 1, 1000000, &t->runs, err)) ||
        (rc = read_paths(t, cfg_get(root, "rows"), err)))
        return rc;
    const cfg_node *cells = cfg_get(root, "cells");
    if (cells->kind != CFG_SEQ || cells->n_items == 0)
        return cfg_error(err, cells, 0, "cells: expected a non-empty list of {row, col, mean, "
                         "std}");
    if (!(t->cells = calloc(cells->n_items, sizeof *t->cells)))
        return dp_err_set(err, DP_ENOMEM, "oom");
    for (size_t i = 0; i < cells->n_items; i++) {
        if ((rc = read_cell(t, cells->items[i], i, err))) return rc;
        t->cells[i].band_factor = t->band_factor;
    }
    return 0;
}

int ref_table_load(ref_table *t, const char *path, dp_err *err)
{
    memset(t, 0, sizeof *t);
    cfg_doc doc = {0};
    int rc = cfg_parse_file(&doc, path, err);
    if (rc) return rc;
    if (!(t->file = strdup(path))) rc = dp_err_set(err, DP_ENOMEM, "oom");
    if (!rc) rc = load_doc(t, doc.root, err);
    cfg_doc_destroy(&doc);
    if (rc) ref_table_destroy(t);
    return rc;
}

int ref_resolve(const char *p, const char *base, char *out, size_t n)
{
    snprintf(out, n, "%s", p);
    if (p[0] == '/' || access(p, R_OK) == 0) return access(p, R_OK) == 0;
    /* base, then each folder above it: configs/x/exp.yaml naming
     * configs/reference/r.yaml, or results/exp naming it, both reach the repository root */
    char dir[4096];
    if (!base || !*base || !realpath(base, dir)) {
        snprintf(out, n, "%s", p);
        return 0;
    }
    for (;;) {
        snprintf(out, n, "%s/%s", dir, p);
        if (access(out, R_OK) == 0) return 1;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) break;
        *slash = '\0';
    }
    snprintf(out, n, "%s", p);
    return 0;
}

const ref_cell *ref_table_find(const ref_table *t, json_t *const *row, json_t *col)
{
    for (size_t i = 0; i < t->n_cells; i++) {
        const ref_cell *c = &t->cells[i];
        int same = !t->cols || agg_value_equal(c->col, col);
        for (size_t k = 0; same && k < t->n_rows; k++)
            same = agg_value_equal(json_array_get(c->row, k), row[k]);
        if (same) return c;
    }
    return NULL;
}

int ref_outside_band(const ref_cell *c, double ours, double *diff)
{
    *diff = ours - c->mean;
    if (!c->has_std && c->band_factor > 1) {   /* a ratio band: both positive, within F */
        double f = c->band_factor * (1 + 1e-12);
        return !(c->mean > 0 && ours > 0 && ours <= c->mean * f && ours * f >= c->mean);
    }
    double half = c->has_std ? 2 * c->std : 2.0;
    /* a hair of slack so a value printed exactly on the edge counts as inside */
    return fabs(*diff) > half * (1 + 1e-12) + 1e-12;
}

char *ref_table_citation(const ref_table *t)
{
    char *s = NULL;
    if (asprintf(&s, "%s, %s%s%s%s%s", t->paper, t->table, t->section ? ", §" : "",
                 t->section ? t->section : "", t->page ? ", p. " : "",
                 t->page ? t->page : "") < 0)
        return NULL;
    return s;
}

/* One table's reference (absent: nothing to check). */
static int check_reference(const cfg_node *t, const char *where, dp_err *err)
{
    const cfg_node *r = cfg_get(t, "reference");
    if (!r || r->kind != CFG_SCALAR) return 0;
    char base[4096] = "", path[4096];
    const char *slash = r->file ? strrchr(r->file, '/') : NULL;
    if (slash) snprintf(base, sizeof base, "%.*s", (int)(slash - r->file), r->file);
    if (!ref_resolve(r->value, base, path, sizeof path)) {
        int rc = cfg_error(err, r, 0, "%s.reference: file '%s' not found", where, r->value);
        dp_err_hint(err, "a reference path is read relative to the working folder (the "
                    "repository root), else to the experiment file's folder or a folder above it");
        return rc;
    }
    ref_table ref;
    int rc = ref_table_load(&ref, path, err);
    if (rc == 0) ref_table_destroy(&ref);
    return rc;
}

static int check_report_references(const cfg_node *report, dp_err *err)
{
    const cfg_node *tables = cfg_get(report, "tables");
    char where[64];
    for (size_t i = 0; tables && tables->kind == CFG_SEQ && i < tables->n_items; i++) {
        snprintf(where, sizeof where, "report.tables[%zu]", i);
        int rc = check_reference(tables->items[i], where, err);
        if (rc) return rc;
    }
    return 0;
}

int ref_check_document(const cfg_node *root, dp_err *err)
{
    int rc = check_report_references(cfg_get(root, "report"), err);
    const cfg_node *scales = cfg_get(root, "scales");
    for (size_t i = 0; rc == 0 && scales && scales->kind == CFG_MAP && i < scales->n_items; i++)
        rc = check_report_references(cfg_get(scales->items[i], "report"), err);
    return rc;
}
