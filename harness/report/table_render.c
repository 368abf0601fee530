/* table_render.c: the text of a report table (table.h): Markdown for report.md, a long
 * CSV for scripts (table_csv.c), a booktabs LaTeX tabular for papers, an HTML fragment for report.html.
 *
 * Without a reference a cell shows the chosen aggregate rounded to `digits` decimals.
 * With one, each column splits into ours | paper | diff: ours is mean * scale (the
 * paper's unit) with the paper's decimals, the paper's value is its printed text, diff
 * is ours - paper, and a dagger marks ours outside the paper's mean ± 2 std (± 2 points
 * without a std). The CSV line of a cell carries every statistic at 12 significant
 * digits in our own unit (about what a double mean of a few seeds is worth), so scripts
 * never parse "±"; its paper columns are as printed, diff in the paper's unit.
 */
#include "harness/report/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/html.h"

#define LISTED_MAX 20   /* failed/diverged runs listed under a table; the rest counted */
#define MARK "†"

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

static void tex_text(agg_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\': agg_buf_puts(b, "\\textbackslash{}"); break;
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            agg_buf_printf(b, "\\%c", *s);
            break;
        case '~': agg_buf_puts(b, "\\textasciitilde{}"); break;
        case '<': agg_buf_puts(b, "\\textless{}"); break;   /* OT1 would print ¡ and ¿ */
        case '>': agg_buf_puts(b, "\\textgreater{}"); break;
        case '^': agg_buf_puts(b, "\\textasciicircum{}"); break;
        default:
            if (!strncmp(s, "±", strlen("±"))) {
                agg_buf_puts(b, "$\\pm$");
                s += strlen("±") - 1;
            } else if (!strncmp(s, "—", strlen("—"))) {
                agg_buf_puts(b, "---");
                s += strlen("—") - 1;
            } else if (!strncmp(s, "×", strlen("×"))) {
                agg_buf_puts(b, "$\\times$");
                s += strlen("×") - 1;
            } else if (!strncmp(s, MARK, strlen(MARK))) {
                agg_buf_puts(b, "$^\\dagger$");
                s += strlen(MARK) - 1;
            } else {
                agg_buf_printf(b, "%c", *s);
            }
        }
    }
}

void table_cell_text(char *buf, size_t n, const table_result *t, const table_cell *c)
{
    char a[64], b[64], extra[160] = "";
    const agg_stats *st = &c->st;
    if (st->n == 0) {
        snprintf(buf, n, "%s", c->note ? c->note : c->n_data_missing ? "data missing" : "no runs");
        return;
    }
    if (c->chosen) {
        char *v = agg_value_label(c->chosen, "absent");
        snprintf(extra, sizeof extra, ", %s=%s", t->best_over, v ? v : "?");
        free(v);
    }
    double s = t->has_ref ? t->scale : 1;
    switch (t->agg) {
    case CELL_MEAN_STD:
        fmt_fixed(a, sizeof a, st->mean * s, t->digits);
        fmt_fixed(b, sizeof b, st->std * s, t->digits);
        if (st->n > 1) snprintf(buf, n, "%s ± %s (n=%zu%s)", a, b, st->n, extra);
        else snprintf(buf, n, "%s (n=1%s)", a, extra);
        return;
    case CELL_MEAN: fmt_fixed(a, sizeof a, st->mean * s, t->digits); break;
    case CELL_MEDIAN: fmt_fixed(a, sizeof a, st->median * s, t->digits); break;
    case CELL_MIN: fmt_fixed(a, sizeof a, st->min * s, t->digits); break;
    case CELL_MAX: fmt_fixed(a, sizeof a, st->max * s, t->digits); break;
    case CELL_STD:
    case CELL_RANGE:   /* a spread: how many runs it is over matters */
        if (st->n < 2) snprintf(buf, n, "n=1, no spread%s", extra);
        else {
            fmt_fixed(a, sizeof a, table_cell_value(t, st) * s, t->digits);
            snprintf(buf, n, "%s (n=%zu%s)", a, st->n, extra);
        }
        return;
    }
    if (extra[0]) snprintf(buf, n, "%s (%s)", a, extra + 2);
    else snprintf(buf, n, "%s", a);
}

void table_paper_text(char *buf, size_t n, const table_cell *c)
{
    if (!c->paper) snprintf(buf, n, "—");
    else if (c->paper->has_std) snprintf(buf, n, "%s ± %s", c->paper->mean_text, c->paper->std_text);
    else snprintf(buf, n, "%s", c->paper->mean_text);
}

static void diff_text(char *buf, size_t n, const table_cell *c)
{
    if (!c->paper || c->st.n == 0) {
        snprintf(buf, n, "—");
        return;
    }
    char d[64];
    fmt_fixed(d, sizeof d, c->diff, c->paper->decimals);
    snprintf(buf, n, "%s%s", c->diff > 0 ? "+" : "", d);
}

static const char *agg_sentence(cell_agg a)
{
    switch (a) {
    case CELL_MEAN_STD: return "mean ± sample std (n ok runs)";
    case CELL_MEAN: return "mean over ok runs";
    case CELL_MEDIAN: return "median over ok runs";
    case CELL_MIN: return "minimum over ok runs";
    case CELL_MAX: return "maximum over ok runs";
    case CELL_STD: return "sample std over ok runs (n ok runs)";
    case CELL_RANGE: return "range, max - min, over ok runs (n ok runs)";
    }
    return "";
}

static void title_text(agg_buf *b, const table_result *t)
{
    if (t->title) {
        agg_buf_puts(b, t->title);
        return;
    }
    agg_buf_puts(b, t->cell);
    for (size_t p = 0; p < t->rows.n; p++)
        agg_buf_printf(b, "%s%s", p ? ", " : " by ", t->rows.s[p]);
    if (t->cols) agg_buf_printf(b, "%s%s", t->rows.n ? " and " : " by ", t->cols);
}

/* The notes under a table, as plain sentences (Markdown and HTML share them). */
static void notes(agg_strs *out, const table_result *t)
{
    if (t->n_runs_read)
        agg_strs_pushf(out, "Read-outs: %zu ok, %zu failed, %zu diverged, of %zu runs (each "
                       "run read at several points, train.readout). Cells: %s, %s.", t->n_ok,
                       t->n_failed, t->n_diverged, t->n_runs_read, t->cell,
                       agg_sentence(t->agg));
    else
        agg_strs_pushf(out, "Runs: %zu ok, %zu failed, %zu diverged. Cells: %s, %s.", t->n_ok,
                       t->n_failed, t->n_diverged, t->cell, agg_sentence(t->agg));
    if (t->shared.n) { /* what the table holds fixed: the settings a reader needs */
        agg_buf b;
        agg_buf_init(&b);
        for (size_t i = 0; i < t->shared.n; i++)
            agg_buf_printf(&b, "%s%s", i ? ", " : "", t->shared.s[i]);
        if (!b.oom) agg_strs_pushf(out, "Every run of this table: %s.", agg_buf_str(&b));
        agg_buf_destroy(&b);
    }
    if (t->n_copies)
        agg_strs_pushf(out, "Shared runs: %zu record%s of this table copy %zu training run%s "
                       "(same_run_as): a non-private run does not depend on epsilon, so it "
                       "trained once and serves every cell that needs it.", t->n_copies,
                       t->n_copies == 1 ? "" : "s", t->n_copied, t->n_copied == 1 ? "" : "s");
    if (t->fallback[0])
        agg_strs_pushf(out, "Data: some runs of this table used %s, so their numbers do not "
                       "reproduce the paper's experiment.", t->fallback);
    if (t->best_over) {
        char k[48];
        if (t->k_min == t->k_max) snprintf(k, sizeof k, "%zu", t->k_max);
        else snprintf(k, sizeof k, "%zu to %zu", t->k_min, t->k_max);
        agg_strs_pushf(out, "Best of %s configurations per cell: the value of %s with the %s "
                       "mean %s over seeds (privacy spent on the search not accounted).", k,
                       t->best_over, t->best_min ? "lowest" : "highest", t->best_by);
    }
    if (t->has_ref) {
        char scale[40] = "", runs[48] = "";
        if (t->scale != 1) {
            snprintf(scale, sizeof scale, " × %g", t->scale);
        }
        if (t->ref.runs) snprintf(runs, sizeof runs, " (%ld runs)", t->ref.runs);
        char band[96] = "± 2 points";
        if (t->ref.band_factor > 1)
            snprintf(band, sizeof band, "within a factor %g of the paper's value",
                     t->ref.band_factor);
        agg_strs_pushf(out, "Paper: %s%s. Ours: %s%s%s%s%s; diff = ours - paper; %s marks "
                       "ours outside the paper's mean ± 2 std (%s where the paper gives no "
                       "std).", t->citation, runs, t->cell, scale,
                       t->ref.unit ? " in " : "", t->ref.unit ? t->ref.unit : "",
                       t->ref.unit ? " (the paper's unit)" : "", MARK, band);
        agg_strs_pushf(out, "Within the paper's band: %zu of %zu compared cells.", t->n_within,
                       t->n_compared);
        /* the table marks them (MARK, or the html's shaded cells): their count, no list */
        size_t outside = 0;
        for (size_t i = 0; i < t->rk.n_groups * t->ck.n_groups; i++) outside += t->cells[i].outside != 0;
        if (outside)
            agg_strs_pushf(out, "Ours lies outside the paper's band in %zu cell%s, marked %s.",
                           outside, outside == 1 ? "" : "s", MARK);
        size_t unmatched = table_paper_cells_without_runs(t);
        if (unmatched)
            agg_strs_pushf(out, "%zu cell%s with a paper value %s no runs of ours to compare.",
                           unmatched, unmatched == 1 ? "" : "s", unmatched == 1 ? "has" : "have");
    }
    size_t k;
    json_t *note;
    json_array_foreach(t->cell_notes, k, note) {   /* each note once, with its cell count */
        const char *text = json_string_value(json_object_get(note, "text"));
        size_t used = 0;
        for (size_t i = 0; i < t->rk.n_groups * t->ck.n_groups; i++)
            used += (size_t)(t->cells[i].note == text);
        if (used)
            agg_strs_pushf(out, "%zu cell%s without runs by design: %s.", used,
                           used == 1 ? "" : "s", text);
    }
    if (t->pooled.n) {
        agg_buf b;
        agg_buf_init(&b);
        for (size_t i = 0; i < t->pooled.n; i++)
            agg_buf_printf(&b, "%s%s", i ? ", " : "", t->pooled.s[i]);
        agg_strs_pushf(out, "Cells pool runs that differ in: %s (add them to `rows`, `cols` "
                       "or `where` to separate them).", agg_buf_str(&b));
        agg_buf_destroy(&b);
    }
}

// ---- Markdown -------------------------------------------------------------------------


/* A record's failure message, "" when it has none. */
static const char *run_message(json_t *rec)
{
    const char *m = json_string_value(json_object_get(rec, "message"));
    return m ? m : "";
}

/* " rows=..., cols=..., seed=... (run ID)": run i of sel in the table's terms. */
static void run_terms(agg_buf *b, const table_result *t, json_t *const *sel, size_t i)
{
    size_t rg = t->rk.group[i], cg = t->ck.group[i];
    for (size_t p = 0; p < t->rows.n; p++)
        agg_buf_printf(b, "%s %s=%s", p ? "," : "", t->rows.s[p], t->rk.labels[rg * t->rows.n + p]);
    if (t->cols) agg_buf_printf(b, "%s %s=%s", t->rows.n ? "," : "", t->cols, t->ck.labels[cg]);
    json_t *seed = agg_config_get(sel[i], "seed");
    char *seed_s = seed ? agg_value_label(seed, "") : NULL;
    if (seed_s) agg_buf_printf(b, "%s seed=%s", t->rows.n || t->cols ? "," : "", seed_s);
    free(seed_s);
    const char *id = json_string_value(json_object_get(sel[i], "id"));
    if (id) agg_buf_printf(b, " (run %s)", id);
}

void table_render_md(agg_buf *b, const table_result *t, json_t *const *sel, size_t n_sel)
{
    char text[256];
    size_t nr = t->rk.n_groups, nc = t->ck.n_groups;
    agg_buf_puts(b, "### ");
    title_text(b, t);
    agg_buf_puts(b, "\n\n|");
    if (t->rows.n == 0) agg_buf_puts(b, " runs |");
    for (size_t p = 0; p < t->rows.n; p++) {
        agg_buf_puts(b, " ");
        md_cell(b, t->rows.s[p]);
        agg_buf_puts(b, " |");
    }
    for (size_t c = 0; c < nc; c++) {
        agg_buf_puts(b, " ");
        if (t->cols) agg_buf_printf(b, "%s=", t->cols);
        md_cell(b, t->cols ? t->ck.labels[c] : t->cell);
        agg_buf_puts(b, t->has_ref ? " ours | paper | diff |" : " |");
    }
    agg_buf_puts(b, "\n|");
    for (size_t p = 0; p < (t->rows.n ? t->rows.n : 1); p++) agg_buf_puts(b, "---|");
    for (size_t c = 0; c < nc; c++) agg_buf_puts(b, t->has_ref ? "---:|---:|---:|" : "---:|");
    agg_buf_puts(b, "\n");
    for (size_t r = 0; r < nr; r++) {
        agg_buf_puts(b, "|");
        if (t->rows.n == 0) agg_buf_puts(b, " all |");
        for (size_t p = 0; p < t->rows.n; p++) {
            agg_buf_puts(b, " ");
            md_cell(b, t->rk.labels[r * t->rows.n + p]);
            agg_buf_puts(b, " |");
        }
        for (size_t c = 0; c < nc; c++) {
            const table_cell *cell = &t->cells[r * nc + c];
            table_cell_text(text, sizeof text, t, cell);
            agg_buf_printf(b, " %s%s |", text, cell->outside ? " " MARK : "");
            if (!t->has_ref) continue;
            table_paper_text(text, sizeof text, cell);
            agg_buf_printf(b, " %s |", text);
            diff_text(text, sizeof text, cell);
            agg_buf_printf(b, " %s |", text);
        }
        agg_buf_puts(b, "\n");
    }
    agg_strs lines = {0};
    notes(&lines, t);
    agg_buf_puts(b, "\n");
    for (size_t i = 0; i < lines.n; i++) agg_buf_printf(b, "%s\n", lines.s[i]);
    agg_strs_destroy(&lines);

    /* the runs left out of the cells, in the table's own terms: runs that failed with
     * the same message are listed under it once, with their count */
    size_t listed = 0, bad = t->n_failed + t->n_diverged;
    for (size_t i = 0; i < n_sel && listed < LISTED_MAX; i++) {
        const char *status = agg_status(sel[i]);
        if (!strcmp(status, "ok")) continue;
        const char *msg = run_message(sel[i]);
        size_t first = i, count = 0;
        for (size_t k = 0; k < n_sel; k++) {
            if (strcmp(agg_status(sel[k]), status) || strcmp(run_message(sel[k]), msg)) continue;
            if (k < i) first = k;
            count++;
        }
        if (first < i) continue; /* listed with its group */
        if (listed == 0) agg_buf_puts(b, "\n");
        if (count == 1) {
            agg_buf_printf(b, "- %s:", status);
            run_terms(b, t, sel, i);
            if (*msg) {
                agg_buf_puts(b, ": ");
                md_cell(b, msg);
            }
            agg_buf_puts(b, "\n");
            listed++;
            continue;
        }
        agg_buf_printf(b, "- %s, %zu runs%s", status, count, *msg ? ": " : "");
        if (*msg) md_cell(b, msg);
        agg_buf_puts(b, "\n");
        for (size_t k = i; k < n_sel && listed < LISTED_MAX; k++) {
            if (strcmp(agg_status(sel[k]), status) || strcmp(run_message(sel[k]), msg)) continue;
            agg_buf_puts(b, "  -");
            run_terms(b, t, sel, k);
            agg_buf_puts(b, "\n");
            listed++;
        }
    }
    if (bad > listed) agg_buf_printf(b, "- ... and %zu more\n", bad - listed);
}

// ---- LaTeX ------------------------------------------------------------------------------

void table_render_tex(agg_buf *b, const table_result *t)
{
    char text[256];
    size_t nr = t->rk.n_groups, nc = t->ck.n_groups, per = t->has_ref ? 3 : 1;
    size_t lead = t->rows.n ? t->rows.n : 1;
    agg_buf_puts(b, "% written by `dperm report`; needs \\usepackage{booktabs}\n"
                    "\\begin{table}[ht]\n\\centering\n\\caption{");
    agg_buf title;
    agg_buf_init(&title);
    title_text(&title, t);
    tex_text(b, agg_buf_str(&title));
    agg_buf_destroy(&title);
    if (t->has_ref) {
        agg_buf_puts(b, " (ours beside ");
        tex_text(b, t->citation);
        agg_buf_puts(b, "; $^\\dagger$: outside the paper's mean $\\pm$ 2 std)");
    }
    agg_buf_puts(b, "}\n\\begin{tabular}{");
    for (size_t p = 0; p < lead; p++) agg_buf_puts(b, "l");
    for (size_t c = 0; c < nc * per; c++) agg_buf_puts(b, "r");
    agg_buf_puts(b, "}\n\\toprule\n");
    if (t->has_ref) {   /* a spanning header per column value, then ours/paper/diff */
        for (size_t p = 0; p < lead; p++) agg_buf_puts(b, p ? " & " : "");
        for (size_t c = 0; c < nc; c++) {
            agg_buf_puts(b, " & \\multicolumn{3}{c}{");
            if (t->cols) {
                tex_text(b, t->cols);
                agg_buf_puts(b, " = ");
            }
            tex_text(b, t->cols ? t->ck.labels[c] : t->cell);
            agg_buf_puts(b, "}");
        }
        agg_buf_puts(b, " \\\\\n");
        for (size_t c = 0; c < nc; c++)
            agg_buf_printf(b, "\\cmidrule(lr){%zu-%zu}", lead + 1 + 3 * c, lead + 3 + 3 * c);
        agg_buf_puts(b, "\n");
    }
    for (size_t p = 0; p < lead; p++) {
        if (p) agg_buf_puts(b, " & ");
        tex_text(b, t->rows.n ? t->rows.s[p] : "runs");
    }
    for (size_t c = 0; c < nc; c++) {
        if (t->has_ref) {
            agg_buf_puts(b, " & ours & paper & diff");
            continue;
        }
        agg_buf_puts(b, " & ");
        if (t->cols) {
            tex_text(b, t->cols);
            agg_buf_puts(b, " = ");
        }
        tex_text(b, t->cols ? t->ck.labels[c] : t->cell);
    }
    agg_buf_puts(b, " \\\\\n\\midrule\n");
    for (size_t r = 0; r < nr; r++) {
        for (size_t p = 0; p < lead; p++) {
            if (p) agg_buf_puts(b, " & ");
            tex_text(b, t->rows.n ? t->rk.labels[r * t->rows.n + p] : "all");
        }
        for (size_t c = 0; c < nc; c++) {
            const table_cell *cell = &t->cells[r * nc + c];
            table_cell_text(text, sizeof text, t, cell);
            agg_buf_puts(b, " & ");
            tex_text(b, text);
            if (cell->outside) agg_buf_puts(b, "$^\\dagger$");
            if (!t->has_ref) continue;
            table_paper_text(text, sizeof text, cell);
            agg_buf_puts(b, " & ");
            tex_text(b, text);
            diff_text(text, sizeof text, cell);
            agg_buf_puts(b, " & ");
            tex_text(b, text);
        }
        agg_buf_puts(b, " \\\\\n");
    }
    agg_buf_puts(b, "\\bottomrule\n\\end{tabular}\n");
    agg_strs lines = {0};
    notes(&lines, t);
    for (size_t i = 1; i < lines.n; i++) {   /* the run counts stay in the Markdown */
        agg_buf_puts(b, i == 1 ? "\n\\smallskip\n{\\footnotesize " : " ");
        tex_text(b, lines.s[i]);
        if (i + 1 == lines.n) agg_buf_puts(b, "}\n");
    }
    agg_strs_destroy(&lines);
    agg_buf_puts(b, "\\end{table}\n");
}

// ---- HTML -------------------------------------------------------------------------------

void table_render_html(agg_buf *b, const table_result *t)
{
    char text[256];
    size_t nr = t->rk.n_groups, nc = t->ck.n_groups;
    agg_buf title;
    agg_buf_init(&title);
    title_text(&title, t);
    agg_buf_printf(b, "<section class=\"table\" id=\"table-%s\">\n<h3>", t->name);
    html_escape(b, agg_buf_str(&title));
    agg_buf_destroy(&title);
    agg_buf_puts(b, "</h3>\n<table>\n<thead>\n");
    size_t lead = t->rows.n ? t->rows.n : 1;
    if (t->has_ref) {
        agg_buf_printf(b, "<tr><th colspan=\"%zu\"></th>", lead);
        for (size_t c = 0; c < nc; c++) {
            agg_buf_puts(b, "<th colspan=\"3\" class=\"group\">");
            if (t->cols) {
                html_escape(b, t->cols);
                agg_buf_puts(b, " = ");
            }
            html_escape(b, t->cols ? t->ck.labels[c] : t->cell);
            agg_buf_puts(b, "</th>");
        }
        agg_buf_puts(b, "</tr>\n");
    }
    agg_buf_puts(b, "<tr>");
    for (size_t p = 0; p < lead; p++) {
        agg_buf_puts(b, "<th>");
        html_escape(b, t->rows.n ? t->rows.s[p] : "runs");
        agg_buf_puts(b, "</th>");
    }
    for (size_t c = 0; c < nc; c++) {
        if (t->has_ref) {
            agg_buf_puts(b, "<th>ours</th><th>paper</th><th>diff</th>");
            continue;
        }
        agg_buf_puts(b, "<th>");
        if (t->cols) {
            html_escape(b, t->cols);
            agg_buf_puts(b, " = ");
        }
        html_escape(b, t->cols ? t->ck.labels[c] : t->cell);
        agg_buf_puts(b, "</th>");
    }
    agg_buf_puts(b, "</tr>\n</thead>\n<tbody>\n");
    for (size_t r = 0; r < nr; r++) {
        agg_buf_puts(b, "<tr>");
        for (size_t p = 0; p < lead; p++) {
            agg_buf_puts(b, "<th>");
            html_escape(b, t->rows.n ? t->rk.labels[r * t->rows.n + p] : "all");
            agg_buf_puts(b, "</th>");
        }
        for (size_t c = 0; c < nc; c++) {
            const table_cell *cell = &t->cells[r * nc + c];
            table_cell_text(text, sizeof text, t, cell);
            agg_buf_printf(b, "<td class=\"%s\">", cell->outside ? "outside"
                                                   : cell->st.n == 0 ? "empty" : "ours");
            html_escape(b, text);
            if (cell->outside) agg_buf_puts(b, " " MARK);
            agg_buf_puts(b, "</td>");
            if (!t->has_ref) continue;
            table_paper_text(text, sizeof text, cell);
            agg_buf_puts(b, "<td class=\"paper\">");
            html_escape(b, text);
            diff_text(text, sizeof text, cell);
            agg_buf_puts(b, "</td><td class=\"diff\">");
            html_escape(b, text);
            agg_buf_puts(b, "</td>");
        }
        agg_buf_puts(b, "</tr>\n");
    }
    agg_buf_puts(b, "</tbody>\n</table>\n");
    agg_strs lines = {0};
    notes(&lines, t);
    for (size_t i = 0; i < lines.n; i++) {
        agg_buf_puts(b, "<p class=\"note\">");
        html_escape(b, lines.s[i]);
        agg_buf_puts(b, "</p>\n");
    }
    agg_strs_destroy(&lines);
    agg_buf_puts(b, "</section>\n");
}
