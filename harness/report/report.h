/* report.h: `dperm report DIR`: tables and figures from the records of a results folder,
 * without re-running anything.
 *
 * Reads every record of DIR/runs.jsonl (store_load) and writes, each file atomically:
 *   DIR/tables/NAME.md    a Markdown table and the run counts under it    (format md)
 *   DIR/tables/NAME.csv   long format, one line per non-empty cell: row keys, col key,
 *                         metric, mean, std, n, min, max, median (std empty when n < 2);
 *                         with `select`: best_over, chosen, configurations; with a
 *                         reference: paper_mean, paper_std (as printed), paper_scale,
 *                         diff (paper's unit), outside_band (0/1), note      (format csv)
 *   DIR/tables/NAME.tex   a booktabs tabular inside a table float          (format tex)
 *   DIR/report.html       every table and figure, provenance, fidelity     (format html)
 *   DIR/fidelity.json     band counts per referenced table, claim verdicts (always)
 *   DIR/figures/NAME.dat  the points, one gnuplot block per series: x mean std n
 *   DIR/figures/NAME.gp   a self-contained gnuplot script (restyle it, rerun it there);
 *                         these two are written whatever the formats
 *   DIR/figures/NAME.png  .svg .pdf: the images asked for            (formats png, svg, pdf)
 *   DIR/report.md         experiment, run counts, provenance of the first record, every
 *                         table inline, every figure linked, notes (always written)
 *
 * The spec is the experiment's `report:` section as JSON (shape checked upstream):
 *   tables:  [{name, title, rows: PATH | [PATH...], cols: PATH, cell: METRIC,
 *              aggregate: mean_std | mean | median | min | max, digits: N, where: MAP,
 *              reference: FILE (reference.h), select: {best_over: PATH, by: METRIC,
 *              prefer: max | min}}]
 *   claims:  [{text, table, better, than, for, higher_is_better}]  (fidelity.h)
 *   formats: LIST (used when the caller passes none)
 *   figures: [{name, title, x: iteration | epoch | PATH | METRIC, y: METRIC,
 *              by: PATH | [PATH...], where: {PATH: VALUE | [VALUES]}, logx, logy,
 *              errorbars}]
 * A PATH is a dotted path into a record's config ("algorithm.name", "train.batch_size");
 * a METRIC a key of the record's metrics (of its curves when x is iteration or epoch).
 *
 * Tables group the records matching `where` by (rows values, cols value); a cell
 * aggregates metrics[cell] of the group's ok runs (usually its seeds): mean_std prints
 * "0.912 ± 0.004 (n=3)" with the sample std (n - 1) and no ± when n = 1; `digits`
 * decimals (default 3). Values are ordered numerically when numeric, else as they first
 * appear in the sweep (records sorted by their grid index). Empty cells print "—".
 * Failed and diverged runs are counted and listed under the table. Figures use the ok
 * runs matching `where`: curves are averaged point-wise per series (mean ± std per x);
 * for a scalar figure x is read from the config when the runs have that path there,
 * else from the metrics, and non-numeric x values become categories. A figure without
 * any point writes no file and adds a warning. A cell or point that pools runs
 * differing in a config path other than seed (not in rows, cols, by or where) says so
 * under it and in the warnings. Defaults of an entry: name tableN / figureN, cell
 * test_accuracy, aggregate mean_std; figure x iteration, y train_loss for curves and
 * test_accuracy otherwise, error bars (a std band for curves) when some point averages
 * several runs.
 *
 * A spec of NULL, or one without a `tables` (`figures`) key, gets the default table
 * (figure); an explicitly empty list means none:
 *   table "summary": rows = the config paths that vary across records except seed
 *     (leaving out paths determined by the ones before them, e.g. algorithm.clip that
 *     only dp_sgd has), cols = epsilon when it varies, cell = test_accuracy (or the
 *     first of test_loss, train_loss the runs have).
 *   figure: that metric against epsilon by those paths when epsilon varies, else
 *     train_loss against iteration by those paths; left out, with a sentence under
 *     "Figures" that says why, when no run finished, none recorded a training
 *     curve, or it would draw more than 12 curves or training curves of fewer than 3
 *     points (report_defaults.c).
 */
#ifndef DPERM_REPORT_H
#define DPERM_REPORT_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

/* Formats when neither the caller nor the report block names any. */
#define REPORT_DEFAULT_FORMATS "md,csv,tex,html,png"

typedef struct report_result {
    char **files;          /* every file written, as DIR/..., in writing order */
    size_t n_files;
    char **warnings;       /* notes for the user (figure without data, pooled runs, ...) */
    size_t n_warnings;
    size_t n_records, n_ok, n_failed, n_diverged;
} report_result;

/* Build the report of the results folder `dir`. spec: the `report:` section or NULL;
 * borrowed. formats: a comma list of md, csv, tex, html, png, svg, pdf (NULL: the
 * block's `formats`, else REPORT_DEFAULT_FORMATS); html implies png when any image
 * format is asked for. A table's `reference` is resolved against the working folder,
 * then DIR (ref_resolve); a reference file that is missing (DP_EIO) or malformed
 * (DP_ECONFIG at its FILE:LINE:COL) writes nothing.
 * On success fills *out (release it with report_result_destroy) and returns 0.
 * Errors: DP_EINVAL (unknown format), DP_EIO (no runs.jsonl, a write failed, gnuplot
 * missing with a hint, or failing: then the message is gnuplot's, at the .gp line it
 * names), DP_EDATA (malformed or empty runs.jsonl), DP_ECONFIG (a spec entry that cannot
 * be used, two entries with one name), DP_ENOMEM. When images are asked for and gnuplot
 * is not installed, nothing is written; after another error, files already written stay
 * (each complete), report.md is not updated, and *out is left empty. */
int report_build(const char *dir, json_t *spec, const char *formats, report_result *out,
                 dp_err *err);

/* Write the index of the folder holding DIR (DIR/..): results/index.html linking every
 * sibling folder with a report.html. *path (caller frees) names the file; NULL when it
 * was not written because the folder is not dperm's (html_write_index: skipped says
 * why). DP_EIO, DP_ENOMEM. */
int report_index(const char *dir, char **path, char *skipped, size_t n, dp_err *err);

/* Free what report_build put in r and zero it. NULL or an empty result is a no-op. */
void report_result_destroy(report_result *r);

#endif
