/* reference.h: published numbers of a paper's table (configs/reference/NAME.yaml), read and
 * checked with FILE:LINE:COL positions, and the band test that says whether one of our
 * cells agrees with the paper's.
 *
 * File format (docs/results.md, "Reference files"):
 *   source: {paper: TEXT, table: TEXT, page: N | TEXT, section: TEXT, note: TEXT}
 *   metric: test_accuracy          # optional; must equal the table's `cell` when given
 *   unit: percent                  # optional text, printed beside the paper's column
 *   scale: 100                     # printed number = our value * scale (default 1)
 *   runs: 5                        # optional: how many runs the paper averaged
 *   rows: algorithm.smoothing      # path or list of paths, as the table's `rows`
 *   cols: epsilon                  # path, as the table's `cols` (omit for one column)
 *   cells:
 *     - {row: 0, col: 0.30, mean: 81.74, std: 0.96}   # row: a value, or a list with
 *                                                     # one value per rows path
 * Numbers are stored as the paper prints them; the printed text is kept so the paper's
 * column shows exactly what the paper shows, and its decimals set our column's.
 */
#ifndef DPERM_REFERENCE_H
#define DPERM_REFERENCE_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"
#include "harness/config/config.h"

typedef struct ref_cell {
    json_t *row;            /* array, one typed value per rows path */
    json_t *col;            /* typed value; NULL when the reference has no cols */
    double mean, std;
    int has_std;
    char mean_text[32], std_text[32];   /* as printed in the file */
    int decimals;           /* decimals of mean_text */
    int line;               /* where the cell is, for messages */
    double band_factor;     /* the table's band_factor (0: none), for ref_outside_band */
} ref_cell;

typedef struct ref_table {
    char *file;             /* the path it was read from */
    char *paper, *table, *page, *section, *note;   /* page..note NULL when absent */
    char *metric, *unit;    /* NULL when absent */
    double scale;
    double band_factor;     /* > 1: a cell without std is inside within this factor of
                               the paper's value; 0 when absent (± 2 printed units) */
    long runs;              /* 0 when absent */
    char **rows;            /* the rows paths */
    size_t n_rows;
    char *cols;             /* NULL: one column */
    ref_cell *cells;
    size_t n_cells;
} ref_table;

/* Read and check the reference file at `path`. On success fills *t (release it with
 * ref_table_destroy) and returns 0. Errors: DP_EIO (cannot read: hint says where it was
 * looked for), DP_ECONFIG at FILE:LINE:COL (unknown or missing key, wrong type, a row
 * with the wrong number of values, a col given without `cols` or missing with it, a
 * negative std, scale <= 0, two cells for one (row, col): naming the first's line),
 * DP_ENOMEM. *t is left empty on error. */
int ref_table_load(ref_table *t, const char *path, dp_err *err);

void ref_table_destroy(ref_table *t);

/* Where a table's `reference: P` is found: P itself when absolute or when it exists
 * relative to the working folder (the repository root for make targets); else P
 * relative to `base` (the results folder, or the experiment file's folder) or to the
 * nearest folder above base where it exists. Writes the chosen path into out (size n)
 * and returns 1, or 0 when none exists (out then holds P). Can't fail. */
int ref_resolve(const char *p, const char *base, char *out, size_t n);

/* Every table's `reference: P` of the experiment document root (report.tables, and each
 * scales.NAME.report.tables) must exist and be well formed before anything runs, so a
 * sweep of hours does not end in a report that cannot be written. P is looked for
 * relative to the working folder (the repository root), then to the experiment file's
 * folder; the file's own errors carry its own FILE:LINE:COL. Shapes are
 * spec_check_document's: run it first. */
int ref_check_document(const cfg_node *root, dp_err *err);

/* The cell of (row values, col value) or NULL. row: n_rows borrowed values (matched as
 * the report groups values: 1 equals 1.0); col ignored when the reference has no cols. */
const ref_cell *ref_table_find(const ref_table *t, json_t *const *row, json_t *col);

/* The band test, in the paper's unit: ours (already multiplied by scale) lies outside
 * the paper's mean +- 2 std, or mean +- 2 printed units ("points") when the paper gives
 * no std. Sets *diff = ours - mean. Returns 1 outside, 0 inside (the edge is inside). */
int ref_outside_band(const ref_cell *c, double ours, double *diff);

/* "DP-LSSGD, Table 2, p. 7" (or without the page). Caller frees; NULL on ENOMEM. */
char *ref_table_citation(const ref_table *t);

#endif
