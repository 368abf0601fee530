/* report_html.c: the page report.html of one experiment (report_int.h): a header with
 * run counts and a provenance summary over every record, the fidelity summary, then the
 * tables and figures report.c collected, then the notes. The provenance summary says
 * which dataset each run really used (records carry a `dataset` block naming the data
 * loaded and the one requested, so a fallback such as fashion_mnist for mnist shows).
 */
#include "harness/report/report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/html.h"

/* Distinct values with their counts, "a (3), b (1)", into b. */
typedef struct tally {
    agg_strs keys;
    size_t counts[64];
} tally;

static void tally_add(tally *t, const char *key)
{
    for (size_t i = 0; i < t->keys.n; i++)
        if (!strcmp(t->keys.s[i], key)) {
            t->counts[i]++;
            return;
        }
    if (t->keys.n < 64 && agg_strs_push(&t->keys, key) == 0) t->counts[t->keys.n - 1] = 1;
}

static void tally_print(agg_buf *b, const tally *t)
{
    for (size_t i = 0; i < t->keys.n; i++) {
        agg_buf_puts(b, i ? ", " : "");
        html_escape(b, t->keys.s[i]);
        agg_buf_printf(b, " (%zu run%s)", t->counts[i], t->counts[i] == 1 ? "" : "s");
    }
    if (!t->keys.n) agg_buf_puts(b, "unknown");
}

static const char *prov_str(json_t *rec, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(rec, "provenance"), key));
    return s && *s ? s : "unknown";
}

/* "mnist", "fashion_mnist (fallback: mnist requested)", or the configured name. */
static void dataset_label(char *buf, size_t n, json_t *rec)
{
    json_t *d = json_object_get(rec, "dataset");
    const char *name = json_string_value(json_object_get(d, "name"));
    const char *req = json_string_value(json_object_get(d, "requested"));
    if (name && req && strcmp(name, req))
        snprintf(buf, n, "%s (fallback: %s requested)", name, req);
    else if (name)
        snprintf(buf, n, "%s", name);
    else {
        const char *cfg = json_string_value(agg_config_get(rec, "dataset.name"));
        snprintf(buf, n, "%s (as configured; the record names no data loaded)",
                 cfg ? cfg : "unknown");
    }
}

static void provenance(agg_buf *b, json_t *const *recs, size_t n)
{
    tally versions = {0}, datasets = {0}, hosts = {0};
    char line[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(line, sizeof line, "dperm %s, git %s", prov_str(recs[i], "dperm_version"),
                 prov_str(recs[i], "git_revision"));
        tally_add(&versions, line);
        dataset_label(line, sizeof line, recs[i]);
        tally_add(&datasets, line);
        snprintf(line, sizeof line, "BLAS core %s", prov_str(recs[i], "blas_core"));
        tally_add(&hosts, line);
    }
    agg_buf_puts(b, "<section id=\"provenance\">\n<h2>Provenance</h2>\n<ul>\n<li>Built by: ");
    tally_print(b, &versions);
    agg_buf_puts(b, "</li>\n<li>Data used: ");
    tally_print(b, &datasets);
    agg_buf_puts(b, "</li>\n<li>Kernels: ");
    tally_print(b, &hosts);
    agg_buf_puts(b, "</li>\n</ul>\n</section>\n");
    agg_strs_destroy(&versions.keys);
    agg_strs_destroy(&datasets.keys);
    agg_strs_destroy(&hosts.keys);
}

void report_html_page(agg_buf *b, const char *experiment, const char *paper, int published,
                      json_t *const *recs, const report_result *r, const char *fidelity,
                      const char *body, const agg_strs *warnings)
{
    char title[256];
    snprintf(title, sizeof title, "Report: %s", experiment);
    html_page_begin(b, title);
    agg_buf_puts(b, "<h1>");
    html_escape(b, title);
    agg_buf_puts(b, "</h1>\n");
    if (paper) {
        agg_buf_puts(b, "<p>Reproducing: ");
        html_escape(b, paper);
        agg_buf_puts(b, published ? ". Every number in the \"ours\" columns comes from our runs; "
                                    "the paper's are printed beside them as published.</p>\n"
                                  : ". The paper prints no numbers for these tables: every "
                                    "number here comes from our runs.</p>\n");
    }
    agg_buf_printf(b, "<p>%zu run%s: %zu ok, %zu failed, %zu diverged.</p>\n", r->n_records,
                   r->n_records == 1 ? "" : "s", r->n_ok, r->n_failed, r->n_diverged);
    provenance(b, recs, r->n_records);
    agg_buf_puts(b, fidelity);
    agg_buf_puts(b, body);
    if (warnings->n) {
        agg_buf_puts(b, "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n");
        for (size_t i = 0; i < warnings->n; i++) {
            agg_buf_puts(b, "<li>");
            html_escape(b, warnings->s[i]);
            agg_buf_puts(b, "</li>\n");
        }
        agg_buf_puts(b, "</ul>\n</section>\n");
    }
    agg_buf_puts(b, "<p class=\"note\">Written by <code>dperm report</code>. Tables: "
                    "<code>tables/</code> (Markdown, CSV, LaTeX); figures: <code>figures/"
                    "</code> (PNG, SVG, PDF with their gnuplot script and data); machine-"
                    "readable fidelity: <a href=\"fidelity.json\">fidelity.json</a>.</p>\n");
    html_page_end(b);
}

void report_html_figure(agg_buf *b, const char *name, const char *title, const agg_strs *files,
                        const char *dir)
{
    static const char *const exts[] = {"png", "svg", "pdf"};
    char path[4096];
    int have[3] = {0, 0, 0};
    for (size_t e = 0; e < 3; e++) {
        snprintf(path, sizeof path, "%s/figures/%s.%s", dir, name, exts[e]);
        have[e] = agg_strs_has(files, path);
    }
    snprintf(path, sizeof path, "%s/figures/%s.gp", dir, name);
    if (!agg_strs_has(files, path)) return;   /* a figure without data wrote nothing */
    agg_buf_printf(b, "<figure id=\"figure-");
    html_escape(b, name);
    agg_buf_puts(b, "\">\n");
    if (have[0] || have[1]) {
        agg_buf_puts(b, "<img src=\"figures/");
        html_escape(b, name);
        agg_buf_printf(b, ".%s\" alt=\"", have[0] ? "png" : "svg");
        html_escape(b, title ? title : name);
        agg_buf_puts(b, "\">\n");
    }
    agg_buf_puts(b, "<figcaption>");
    html_escape(b, title ? title : name);
    agg_buf_puts(b, " —");
    for (size_t e = 0; e < 3; e++)
        if (have[e]) {
            agg_buf_puts(b, " <a href=\"figures/");
            html_escape(b, name);
            agg_buf_printf(b, ".%s\">%s</a>", exts[e], exts[e]);
        }
    agg_buf_puts(b, " <a href=\"figures/");
    html_escape(b, name);
    agg_buf_puts(b, ".gp\">gp</a> <a href=\"figures/");
    html_escape(b, name);
    agg_buf_puts(b, ".dat\">dat</a></figcaption>\n</figure>\n");
}
