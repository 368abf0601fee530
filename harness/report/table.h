/* table.h: the tables of `dperm report`: per table spec a Markdown, CSV and LaTeX file,
 * an HTML fragment for report.html, and the cell data the fidelity summary judges.
 * Private to report.c; report.h describes a table spec and the files.
 *
 * table.c groups the records and fills a table_result (cells, paper values, band marks,
 * best-of selection); table_render.c turns a table_result into text.
 */
#ifndef DPERM_TABLE_H
#define DPERM_TABLE_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"
#include "harness/report/aggregate.h"
#include "harness/report/reference.h"

/* Which files to write. */
enum { TABLE_MD = 1, TABLE_CSV = 2, TABLE_TEX = 4 };

typedef enum {
    CELL_MEAN_STD = 1, CELL_MEAN, CELL_MEDIAN, CELL_MIN, CELL_MAX,
    CELL_STD,    /* sample std over the runs: a paper's "stability" column (DPlis Table 10) */
    CELL_RANGE   /* max - min over the runs (the same table's range) */
} cell_agg;

typedef struct table_cell {
    agg_stats st;             /* ours: the metric over the cell's ok runs (under `select`,
                                 the runs of the chosen value only) */
    size_t n_failed;          /* failed or diverged runs of the cell */
    size_t n_data_missing;    /* of those, runs that failed because data were missing */
    size_t k;                 /* select: configurations compared (0 without select) */
    json_t *chosen;           /* select: the chosen value (borrowed from a record) */
    const ref_cell *paper;    /* the paper's value, NULL when none */
    double ours, diff;        /* in the paper's unit (mean * scale), when paper && st.n */
    int outside;              /* ours outside the paper's band (ref_outside_band) */
    const char *note;         /* cell_notes: why a cell without ok runs has none (borrowed
                                 from the spec), shown instead of "no runs"; else NULL */
} table_cell;

typedef struct table_result {
    /* the spec, read */
    char name[104];
    const char *title, *cell;     /* borrowed from the spec */
    cell_agg agg;
    int digits, digits_given;
    agg_strs rows;
    const char *cols;             /* NULL: one value column */
    json_t *where;
    json_t *cell_notes;           /* [{where: {ROWS_OR_COLS_PATH: value(s)}, text}], or NULL */
    const char *best_over, *best_by;   /* select; NULL without */
    int best_min;                 /* select prefers the smallest mean of best_by */
    /* the data */
    agg_key rk, ck;               /* row and column groups of the selected records */
    table_cell *cells;            /* rk.n_groups x ck.n_groups */
    size_t n_ok, n_failed, n_diverged;
    size_t n_runs_read;           /* read-out records (report_readouts.h): the runs they
                                     come from; 0 for a table of runs */
    size_t n_copies, n_copied;    /* records that copy another run's training (same_run_as,
                                     shared_runs.h), and the training runs they copy */
    agg_strs pooled;              /* config paths a cell pools besides seeds */
    agg_strs shared;              /* "path=value" of the settings every run of the table
                                     has (agg_shared_settings) */
    size_t k_min, k_max;          /* select: fewest and most configurations per cell */
    /* the paper */
    int has_ref;
    ref_table ref;
    char *citation;               /* "paper, table, p. N" */
    double scale;                 /* ref.scale, or 1 */
    size_t n_compared, n_within;  /* cells with both numbers; of those inside the band */
    char fallback[160];           /* "fashion_mnist instead of mnist" when some run of the
                                     table used a fallback dataset, else "" */
} table_result;

/* Build table `spec` (one entry of report.tables; `number` is its 1-based position, for
 * the default name tableN) from the records of recs[0..n) matching its `where` into *t
 * (release with table_result_destroy; records must outlive it). A `reference` path is
 * resolved with ref_resolve against `base` and loaded. Errors: DP_ECONFIG (malformed
 * entry, reference file invalid at its FILE:LINE:COL or not matching the table),
 * DP_EIO (reference file missing), DP_ENOMEM; *t is then destroyed. */
int table_build(table_result *t, json_t *const *recs, size_t n, json_t *spec, size_t number,
                const char *base, dp_err *err);

void table_result_destroy(table_result *t);

/* The number cell statistics st stand for under the table's aggregate, in our unit: the
 * mean (mean_std, mean), else the median, min, max, std or range. NAN for std and range
 * over fewer than 2 runs (no spread to speak of) and for an empty cell. Compared with the
 * paper and judged by claims. */
double table_cell_value(const table_result *t, const agg_stats *st);

/* The paper's cells without runs of ours: cells of the table with a paper value and no
 * ok runs (not noted as left out by design), plus the reference's cells whose row or
 * column the table does not have at all (a quick scale running other epochs than the
 * paper's columns). 0 without a reference. */
size_t table_paper_cells_without_runs(const table_result *t);

/* Write the table's files (DIR/tables/NAME.md, .csv, .tex as formats asks) and append
 * its Markdown section to out->md and its HTML fragment to out->html (always).
 * Errors: DP_EIO, DP_ENOMEM; files written before stay listed in out->files. */
int table_write(agg_out *out, const table_result *t, json_t *const *recs, size_t n,
                unsigned formats, dp_err *err);

// ---- text (table_render.c) ---------------------------------------------------------------

/* The paper's number of a cell as printed ("84.12 ± 0.35"), "—" without one. */
void table_paper_text(char *buf, size_t n, const table_cell *c);

/* The Markdown section, the long CSV, the LaTeX tabular and the HTML fragment.
 * sel[0..n_sel) are the records matching the table's where (for the list of failed runs).
 * Appending can't fail (agg_buf records an allocation failure). */
void table_render_md(agg_buf *b, const table_result *t, json_t *const *sel, size_t n_sel);
void table_render_csv(agg_buf *b, const table_result *t);
void table_render_tex(agg_buf *b, const table_result *t);
void table_render_html(agg_buf *b, const table_result *t);

/* The text of "ours" in a cell ("0.912 ± 0.004 (n=3)", "no runs", "data missing"), in
 * the paper's unit when the table has a reference. */
void table_cell_text(char *buf, size_t n, const table_result *t, const table_cell *c);

#endif
