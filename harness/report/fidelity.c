/* fidelity.c: the fidelity summary of `dperm report` (fidelity.h): band counts per
 * referenced table and the verdict of each qualitative claim.
 *
 * Claims compare our cell means (the numbers in our column, never the paper's): a claim
 * is about whether our runs show what the paper says, so the paper's values play no part
 * in its verdict. Comparisons are strict: a tie does not "beat".
 */
#include "harness/report/fidelity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/html.h"

const char *claim_verdict_name(claim_verdict v)
{
    switch (v) {
    case CLAIM_HOLDS: return "holds";
    case CLAIM_FAILS: return "does not hold";
    case CLAIM_NO_DATA: return "not enough data";
    }
    return "?";
}

/* Mark in pick[0..rows) the rows matching selector `sel` ({rows path: value or list}). */
static int select_rows(const table_result *t, json_t *sel, const char *what, char *pick,
                       size_t *n_pick, dp_err *err)
{
    size_t nr = t->rk.n_groups, np = t->rows.n;
    if (!json_is_object(sel) || json_object_size(sel) == 0)
        return dp_err_set(err, DP_ECONFIG, "claim on table '%s': %s: expected a map {ROWS_PATH: "
                          "VALUE}", t->name, what);
    memset(pick, 1, nr);
    const char *key;
    json_t *want;
    json_object_foreach(sel, key, want) {
        size_t p = 0;
        while (p < np && strcmp(t->rows.s[p], key)) p++;
        if (p == np)
            return dp_err_set(err, DP_ECONFIG, "claim on table '%s': %s.%s is not one of the "
                              "table's rows paths", t->name, what, key);
        for (size_t r = 0; r < nr; r++)
            if (!agg_value_matches(t->rk.values[r * np + p], want)) pick[r] = 0;
    }
    *n_pick = 0;
    for (size_t r = 0; r < nr; r++) *n_pick += (size_t)pick[r];
    return 0;
}

/* "algorithm.smoothing=1" (paths and values of row r). Caller frees; NULL on ENOMEM. */
static char *row_label(const table_result *t, size_t r)
{
    agg_buf b;
    agg_buf_init(&b);
    for (size_t p = 0; p < t->rows.n; p++)
        agg_buf_printf(&b, "%s%s=%s", p ? ", " : "", t->rows.s[p], t->rk.labels[r * t->rows.n + p]);
    if (!t->rows.n) agg_buf_puts(&b, "all");
    if (b.oom) {
        agg_buf_destroy(&b);
        return NULL;
    }
    return b.data;
}

/* Rows b and o are compared only when they agree on every rows path that neither selector
 * names: with rows (dataset.name, algorithm.name), "algorithm A beats B" compares A and B
 * on each dataset, never A on one dataset with B on another. */
static int same_context(const table_result *t, size_t b, size_t o, json_t *sel_better,
                        json_t *sel_than)
{
    size_t np = t->rows.n;
    for (size_t p = 0; p < np; p++) {
        const char *path = t->rows.s[p];
        if (json_object_get(sel_better, path) || json_object_get(sel_than, path)) continue;
        if (!agg_value_equal(t->rk.values[b * np + p], t->rk.values[o * np + p])) return 0;
    }
    return 1;
}

static int beats(double a, double b, int lower)
{
    return lower ? a < b : a > b;
}

/* within < 0: a beats b; else a is "almost the same" as b: |a - b| <= within */
static int passes(double a, double b, int lower, double within)
{
    return within < 0 ? beats(a, b, lower) : fabs(a - b) <= within;
}

int claim_judge_table(const table_result *t, json_t *sel_better, json_t *sel_than,
                      int on_average, int lower, double within, claim_verdict *v,
                      char *detail, size_t detail_size, dp_err *err)
{
    size_t nr = t->rk.n_groups, nc = t->ck.n_groups, nb, nt;
    char *better = malloc(nr + 1), *than = malloc(nr + 1);
    int rc = 0;
    if (!better || !than) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = select_rows(t, sel_better, "better", better, &nb, err)) ||
        (rc = select_rows(t, sel_than, "than", than, &nt, err)))
        goto done;
    size_t compared = 0, missing = 0;
    *v = CLAIM_HOLDS;
    for (size_t b = 0; b < nr && *v != CLAIM_FAILS; b++) {
        if (!better[b]) continue;
        for (size_t o = 0; o < nr && *v != CLAIM_FAILS; o++) {
            if (!than[o] || o == b || !same_context(t, b, o, sel_better, sel_than)) continue;
            char *bl = row_label(t, b), *ol = row_label(t, o);
            double sb = 0, so = 0;
            size_t used = 0;
            for (size_t c = 0; c < nc; c++) {
                const table_cell *cb = &t->cells[b * nc + c], *co = &t->cells[o * nc + c];
                /* the number the cell shows: the mean, or the table's aggregate (a
                 * spread, for a claim that smoothing makes runs agree) */
                double x = table_cell_value(t, &cb->st), y = table_cell_value(t, &co->st);
                if (isnan(x) || isnan(y)) {
                    missing += (size_t)(!cb->note && !co->note);   /* noted: not run by design */
                    continue;
                }
                if (on_average) {
                    sb += x;
                    so += y;
                    used++;
                    continue;
                }
                compared++;
                if (!passes(x, y, lower, within)) {
                    *v = CLAIM_FAILS;
                    snprintf(detail, detail_size, "%s: %s %.4g vs %s %.4g%s%s%s", t->name,
                             bl ? bl : "?", x, ol ? ol : "?", y,
                             t->cols ? " at " : "", t->cols ? t->cols : "",
                             t->cols ? "=" : "");
                    if (t->cols)
                        snprintf(detail + strlen(detail), detail_size - strlen(detail), "%s",
                                 t->ck.labels[c]);
                    break;
                }
            }
            if (on_average && used) {
                compared++;
                missing = 0;   /* an average over the shared columns is still an answer */
                if (!passes(sb / (double)used, so / (double)used, lower, within)) {
                    *v = CLAIM_FAILS;
                    snprintf(detail, detail_size, "%s: mean of %s %.4g vs %s %.4g over %zu "
                             "column%s", t->name, bl ? bl : "?", sb / (double)used,
                             ol ? ol : "?", so / (double)used, used, used == 1 ? "" : "s");
                }
            } else if (on_average) {
                missing++;
            }
            free(bl);
            free(ol);
        }
    }
    if (*v != CLAIM_FAILS) {
        if (missing || compared == 0) {
            *v = CLAIM_NO_DATA;
            snprintf(detail, detail_size, "%s: %zu comparison%s made, %zu without runs on both "
                     "sides", t->name, compared, compared == 1 ? "" : "s", missing);
        } else {
            snprintf(detail, detail_size, "%s: %zu comparison%s, all in favour", t->name,
                     compared, compared == 1 ? "" : "s");
        }
    }
done:
    free(better);
    free(than);
    return rc;
}

static const table_result *find_table(const table_result *tables, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tables[i].name, name)) return &tables[i];
    return NULL;
}

/* One claim over each of its tables: fails if any fails, else no data if any lacks. */
static int eval_one(claim_result *cr, json_t *c, size_t i, const table_result *tables,
                    size_t n_tables, dp_err *err)
{
    json_t *tab = json_object_get(c, "table");
    const char *mode = json_string_value(json_object_get(c, "for"));
    json_t *hib = json_object_get(c, "higher_is_better");
    cr->text = json_string_value(json_object_get(c, "text"));
    if (!json_is_object(c) || !cr->text || !tab)
        return dp_err_set(err, DP_ECONFIG, "report.claims[%zu]: expected {text, table, better, "
                          "than, for}", i);
    if (mode && strcmp(mode, "every_col") && strcmp(mode, "on_average"))
        return dp_err_set(err, DP_ECONFIG, "report.claims[%zu].for '%s': expected every_col "
                          "or on_average", i, mode);
    int on_average = mode && !strcmp(mode, "on_average");
    json_t *w = json_object_get(c, "within");
    if (w && (!json_is_number(w) || !(json_number_value(w) >= 0)))
        return dp_err_set(err, DP_ECONFIG, "report.claims[%zu].within: expected a number "
                          ">= 0", i);
    double within = w ? json_number_value(w) : -1;
    size_t nt = json_is_array(tab) ? json_array_size(tab) : 1;
    cr->verdict = CLAIM_HOLDS;
    size_t used = 0;
    for (size_t k = 0; k < nt; k++) {
        const char *name = json_string_value(json_is_array(tab) ? json_array_get(tab, k) : tab);
        const table_result *t = name ? find_table(tables, n_tables, name) : NULL;
        if (!t)
            return dp_err_set(err, DP_ECONFIG, "report.claims[%zu].table '%s': no such table "
                              "in report.tables", i, name ? name : "?");
        int lower = json_is_boolean(hib) ? !json_is_true(hib) : agg_lower_is_better(t->cell);
        claim_verdict v;
        char d[256];
        int rc = claim_judge_table(t, json_object_get(c, "better"), json_object_get(c, "than"),
                                   on_average, lower, within, &v, d, sizeof d, err);
        if (rc) return rc;
        /* the verdict that decides: a failure over missing data over a success */
        if (v == CLAIM_FAILS || (v == CLAIM_NO_DATA && cr->verdict == CLAIM_HOLDS)) {
            cr->verdict = v;
            snprintf(cr->detail, sizeof cr->detail, "%s", d);
        } else if (v == cr->verdict && cr->verdict == CLAIM_HOLDS) {
            used += (size_t)snprintf(cr->detail + used, sizeof cr->detail - used, "%s%s",
                                     used ? "; " : "", d);
            if (used >= sizeof cr->detail) used = sizeof cr->detail - 1;
        }
        if (cr->verdict == CLAIM_FAILS) break;
    }
    return 0;
}

int fidelity_eval(fidelity *f, json_t *claims, const table_result *tables, size_t n_tables,
                  dp_err *err)
{
    memset(f, 0, sizeof *f);
    if (!claims) return 0;
    if (!json_is_array(claims))
        return dp_err_set(err, DP_ECONFIG, "report.claims: expected a list");
    size_t n = json_array_size(claims);
    if (!(f->claims = calloc(n + 1, sizeof *f->claims)))
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int rc = eval_one(&f->claims[i], json_array_get(claims, i), i, tables, n_tables, err);
        if (rc) {
            fidelity_destroy(f);
            return rc;
        }
        f->n_claims++;
    }
    return 0;
}

void fidelity_destroy(fidelity *f)
{
    if (!f) return;
    free(f->claims);
    memset(f, 0, sizeof *f);
}

// ---- output ---------------------------------------------------------------------------

static int has_content(const fidelity *f, const table_result *tables, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tables[i].has_ref) return 1;
    return f->n_claims > 0;
}

/* Lines of the summary, shared by Markdown and HTML. */
static void lines(agg_strs *out, const fidelity *f, const table_result *tables, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const table_result *t = &tables[i];
        if (!t->has_ref) continue;
        size_t po = table_paper_cells_without_runs(t);
        char extra[96] = "";
        if (po) snprintf(extra, sizeof extra, "; %zu paper cell%s without runs of ours", po,
                         po == 1 ? "" : "s");
        agg_strs_pushf(out, "Table %s: %zu of %zu compared cells within the paper's band "
                       "(%s)%s.", t->name, t->n_within, t->n_compared, t->citation, extra);
    }
    for (size_t i = 0; i < f->n_claims; i++)
        agg_strs_pushf(out, "Claim \"%s\": %s (%s).", f->claims[i].text,
                       claim_verdict_name(f->claims[i].verdict), f->claims[i].detail);
}

void fidelity_render_md(agg_buf *b, const fidelity *f, const table_result *tables, size_t n)
{
    if (!has_content(f, tables, n)) return;
    agg_strs l = {0};
    lines(&l, f, tables, n);
    agg_buf_puts(b, "## Fidelity\n\n");
    for (size_t i = 0; i < l.n; i++) agg_buf_printf(b, "- %s\n", l.s[i]);
    agg_buf_puts(b, "\n");
    agg_strs_destroy(&l);
}

void fidelity_render_html(agg_buf *b, const fidelity *f, const table_result *tables, size_t n)
{
    if (!has_content(f, tables, n)) return;
    agg_strs l = {0};
    lines(&l, f, tables, n);
    agg_buf_puts(b, "<section id=\"fidelity\">\n<h2>Fidelity</h2>\n<ul>\n");
    for (size_t i = 0; i < l.n; i++) {
        const char *cls = strstr(l.s[i], "\": does not hold") ? "fails"
                          : strstr(l.s[i], "\": not enough data") ? "nodata"
                          : strstr(l.s[i], "\": holds") ? "holds" : "band";
        agg_buf_printf(b, "<li class=\"%s\">", cls);
        html_escape(b, l.s[i]);
        agg_buf_puts(b, "</li>\n");
    }
    agg_buf_puts(b, "</ul>\n</section>\n");
    agg_strs_destroy(&l);
}

json_t *fidelity_json(const fidelity *f, const table_result *tables, size_t n)
{
    json_t *root = json_object(), *tabs = json_array(), *cls = json_array();
    if (!root || !tabs || !cls) goto oom;
    json_object_set_new(root, "tables", tabs);
    json_object_set_new(root, "claims", cls);
    for (size_t i = 0; i < n; i++) {
        const table_result *t = &tables[i];
        if (!t->has_ref) continue;
        json_t *outside = json_array();
        json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:o}", "name", t->name,
                              "reference", t->ref.file, "citation", t->citation, "compared",
                              (json_int_t)t->n_compared, "within", (json_int_t)t->n_within,
                              "paper_only", (json_int_t)table_paper_cells_without_runs(t),
                              "outside", outside);
        if (!o || json_array_append_new(tabs, o)) goto oom;
        size_t nc = t->ck.n_groups;
        for (size_t r = 0; r < t->rk.n_groups; r++)
            for (size_t c = 0; c < nc; c++) {
                const table_cell *cell = &t->cells[r * nc + c];
                if (!cell->outside) continue;
                json_t *row = json_array();
                for (size_t p = 0; row && p < t->rows.n; p++)
                    json_array_append(row, t->rk.values[r * t->rows.n + p]);
                json_t *col = t->cols && t->ck.values[c] ? t->ck.values[c] : json_null();
                json_t *e = json_pack("{s:o, s:O, s:f, s:f, s:f}", "row", row, "col", col,
                                      "ours", cell->ours, "paper", cell->paper->mean, "diff",
                                      cell->diff);
                if (!e || json_array_append_new(outside, e)) goto oom;
            }
    }
    for (size_t i = 0; i < f->n_claims; i++) {
        json_t *e = json_pack("{s:s, s:s, s:s}", "text", f->claims[i].text, "verdict",
                              claim_verdict_name(f->claims[i].verdict), "detail",
                              f->claims[i].detail);
        if (!e || json_array_append_new(cls, e)) goto oom;
    }
    return root;
oom:
    json_decref(root);
    return NULL;
}
