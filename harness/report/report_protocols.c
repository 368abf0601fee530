/* report_protocols.c: tables split by protocol, and the combined table beside the paper
 * (report_protocols.h).
 *
 * Choices:
 * - Only tables with a `reference` are split: the paper's numbers are what the protocols
 *   are compared with, and the fidelity summary counts in-band cells per protocol. A table
 *   without one that does not mention `protocol` gets it as its first row key instead, and
 *   a figure that does not gets it as its first `by` key, so no cell or curve pools runs of
 *   two protocols.
 * - The combined table takes its rows and columns from the first protocol's table and
 *   finds the same labels in the others' ("no runs" where a protocol has none).
 */
#include "harness/report/report_protocols.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/html.h"
#include "harness/report/privacy_note.h"

#define MARK "†"

size_t report_protocols_find(json_t *const *recs, size_t n, const char **out, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = json_string_value(agg_config_get(recs[i], "protocol"));
        if (!p) continue;
        size_t j = 0;
        while (j < k && strcmp(out[j], p) != 0) j++;
        if (j == k && k < max) out[k++] = p;
    }
    return k;
}

/* Whether a table/figure key (a string or a list of strings) names `protocol`. */
static int names_protocol(json_t *v)
{
    if (json_is_string(v)) return !strcmp(json_string_value(v), "protocol");
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) if (json_is_string(e) && !strcmp(json_string_value(e), "protocol")) return 1;
    return 0;
}

static int mentions_protocol(json_t *spec, const char *a, const char *b)
{
    return names_protocol(json_object_get(spec, a)) || names_protocol(json_object_get(spec, b)) ||
           json_object_get(json_object_get(spec, "where"), "protocol") != NULL;
}

/* `protocol` put first in spec[key] (a string, a list, or absent). */
static int prepend_protocol(json_t *spec, const char *key)
{
    json_t *v = json_object_get(spec, key), *l = json_array();
    if (!l || json_array_append_new(l, json_string("protocol"))) return -1;
    if (json_is_string(v)) json_array_append(l, v);
    else if (json_is_array(v)) json_array_extend(l, v);
    return json_object_set_new(spec, key, l);
}

static const char *table_name(json_t *spec, size_t index, char *buf, size_t n)
{
    const char *name = json_string_value(json_object_get(spec, "name"));
    if (name) return name;
    snprintf(buf, n, "table%zu", index + 1);
    return buf;
}

json_t *report_protocols_split_tables(json_t *tables, const char *const *protocols, size_t np)
{
    json_t *out = json_array(), *t;
    size_t i;
    if (!out) return NULL;
    json_array_foreach(tables, i, t) {
        if (mentions_protocol(t, "rows", "cols")) {
            json_array_append(out, t);
            continue;
        }
        if (!json_object_get(t, "reference")) {
            json_t *c = json_deep_copy(t);
            if (!c || prepend_protocol(c, "rows") || json_array_append_new(out, c)) goto oom;
            continue;
        }
        char nb[32], buf[256];
        const char *name = table_name(t, i, nb, sizeof nb);
        const char *title = json_string_value(json_object_get(t, "title"));
        for (size_t p = 0; p < np; p++) {
            json_t *c = json_deep_copy(t), *w;
            if (!c) goto oom;
            snprintf(buf, sizeof buf, "%s_%s", name, protocols[p]);
            json_object_set_new(c, "name", json_string(buf));
            snprintf(buf, sizeof buf, "%s, protocol %s", title ? title : name, protocols[p]);
            json_object_set_new(c, "title", json_string(buf));
            w = json_object_get(c, "where");
            if (!json_is_object(w)) {
                w = json_object();
                json_object_set_new(c, "where", w);
            }
            json_object_set_new(w, "protocol", json_string(protocols[p]));
            json_object_set_new(c, "split_of", json_string(name));
            if (json_array_append_new(out, c)) goto oom;
        }
    }
    return out;
oom:
    json_decref(out);
    return NULL;
}

json_t *report_protocols_split_claims(json_t *claims, json_t *tables,
                                      const char *const *protocols, size_t np)
{
    json_t *out = json_array(), *c, *t;
    size_t i, k;
    if (!out) return NULL;
    json_array_foreach(claims, i, c) {
        const char *tab = json_string_value(json_object_get(c, "table"));
        int split = 0;
        json_array_foreach(tables, k, t) {
            const char *of = json_string_value(json_object_get(t, "split_of"));
            if (tab && of && !strcmp(of, tab)) split = 1;
        }
        if (!split) {
            json_array_append(out, c);
            continue;
        }
        for (size_t p = 0; p < np; p++) {
            char buf[512];
            json_t *d = json_deep_copy(c);
            if (!d) goto oom;
            snprintf(buf, sizeof buf, "%s_%s", tab, protocols[p]);
            json_object_set_new(d, "table", json_string(buf));
            snprintf(buf, sizeof buf, "%s [protocol %s]",
                     json_string_value(json_object_get(c, "text")) ?: "claim", protocols[p]);
            json_object_set_new(d, "text", json_string(buf));
            if (json_array_append_new(out, d)) goto oom;
        }
    }
    return out;
oom:
    json_decref(out);
    return NULL;
}

json_t *report_protocols_split_figures(json_t *figures)
{
    json_t *out = json_array(), *f;
    size_t i;
    if (!out) return NULL;
    json_array_foreach(figures, i, f) {
        json_t *c = json_deep_copy(f);
        if (!c) goto oom;
        if (!mentions_protocol(c, "by", "x") && prepend_protocol(c, "by")) {
            json_decref(c);
            goto oom;
        }
        if (json_array_append_new(out, c)) goto oom;
    }
    return out;
oom:
    json_decref(out);
    return NULL;
}

/* The group of k whose labels (n_parts of them) equal labels, or k->n_groups. */
static size_t find_group(const agg_key *k, char *const *labels)
{
    for (size_t g = 0; g < k->n_groups; g++) {
        size_t p = 0;
        while (p < k->n_paths && !strcmp(k->labels[g * k->n_paths + p], labels[p])) p++;
        if (p == k->n_paths) return g;
    }
    return k->n_groups;
}

/* Whether record rec's labels at the table's row paths and column path are those of the
 * first table's (r, c). */
static int in_cell(json_t *rec, const table_result *t0, size_t r, size_t c)
{
    int same = 1;
    for (size_t p = 0; same && p < t0->rows.n; p++) {
        char *l = agg_value_label(agg_config_get(rec, t0->rows.s[p]), "—");
        same = l && !strcmp(l, t0->rk.labels[r * t0->rows.n + p]);
        free(l);
    }
    if (same && t0->cols) {
        char *l = agg_value_label(agg_config_get(rec, t0->cols), "—");
        same = l && !strcmp(l, t0->ck.labels[c]);
        free(l);
    }
    return same;
}

/* " (tight eps X)" or " (tight eps X-Y)" over protocol p's ok records in the first
 * table's cell (r, c), or " (no valid eps)" when they have none; "" when the records
 * carry no privacy verdict. */
static void tight_text(char *buf, size_t n, json_t *const *recs, size_t nrec,
                       const char *protocol, const table_result *t, const table_result *t0,
                       size_t r, size_t c)
{
    double lo = INFINITY, hi = -INFINITY;
    int seen = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < nrec; i++) {
        const char *pr = json_string_value(agg_config_get(recs[i], "protocol"));
        if (!pr || strcmp(pr, protocol) || strcmp(agg_status(recs[i]), "ok") ||
            !agg_where_match(recs[i], t->where) || !in_cell(recs[i], t0, r, c))
            continue;
        json_t *m = json_object_get(recs[i], "metrics");
        if (!json_object_get(m, "privacy_verdict")) continue;
        seen = 1;
        json_t *v = json_object_get(m, "epsilon_tight");
        if (!json_is_number(v)) continue;
        lo = fmin(lo, json_number_value(v));
        hi = fmax(hi, json_number_value(v));
    }
    if (!seen) return;
    if (!isfinite(lo)) snprintf(buf, n, " (no valid eps)");
    else if (hi - lo < 0.0005 * hi) snprintf(buf, n, " (tight eps %.3g)", lo);
    else snprintf(buf, n, " (tight eps %.3g-%.3g)", lo, hi);
}

/* The text of protocol p's cell at the first table's (r, c). */
static void cell_text(char *buf, size_t n, const table_result *const *tabs, size_t p, size_t r,
                      size_t c)
{
    const table_result *t0 = tabs[0], *t = tabs[p];
    size_t rr = find_group(&t->rk, t0->rk.labels + r * t0->rk.n_paths);
    size_t cc = t0->ck.n_paths ? find_group(&t->ck, t0->ck.labels + c * t0->ck.n_paths) : 0;
    if (rr >= t->rk.n_groups || cc >= (t->ck.n_groups ? t->ck.n_groups : 1)) {
        snprintf(buf, n, "no runs");
        return;
    }
    const table_cell *cell = &t->cells[rr * t->ck.n_groups + cc];
    char text[200];
    table_cell_text(text, sizeof text, t, cell);
    snprintf(buf, n, "%s%s", text, cell->outside ? " " MARK : "");
}

/* One cell in both renderings: " TEXT |" in Markdown, <TAG ATTRS>TEXT</TAG> in HTML. */
static void both_cell(agg_buf *b, agg_buf *h, const char *tag, const char *attrs,
                      const char *text)
{
    agg_buf_printf(b, " %s |", text);
    agg_buf_printf(h, "<%s%s>", tag, attrs);
    html_escape(h, text);
    agg_buf_printf(h, "</%s>", tag);
}

/* Under the combined table: per protocol, its cells in band and its privacy line; then
 * which protocol puts the most cells in the paper's band (ties: the first listed). */
static void protocol_notes(agg_buf *b, agg_buf *h, const table_result *const *tabs,
                           const char *const *protocols, size_t np, json_t *const *recs,
                           size_t n)
{
    for (size_t p = 0; p < np; p++) {
        agg_buf_printf(b, "In band, protocol %s: %zu of %zu compared cells.", protocols[p],
                       tabs[p]->n_within, tabs[p]->n_compared);
        agg_buf_printf(h, "<p class=\"note\">In band, protocol ");
        html_escape(h, protocols[p]);
        agg_buf_printf(h, ": %zu of %zu compared cells.", tabs[p]->n_within, tabs[p]->n_compared);
        json_t **sel = malloc((n + 1) * sizeof *sel);
        size_t m = 0;
        for (size_t i = 0; sel && i < n; i++) {
            const char *pr = json_string_value(agg_config_get(recs[i], "protocol"));
            if (pr && !strcmp(pr, protocols[p]) && agg_where_match(recs[i], tabs[p]->where))
                sel[m++] = recs[i];
        }
        char *truth = sel ? privacy_note(sel, m) : NULL;
        free(sel);
        if (truth) {
            agg_buf_printf(b, " Privacy: %s", truth);
            agg_buf_puts(h, " Privacy: ");
            html_escape(h, truth);
            free(truth);
        }
        agg_buf_puts(b, "\n\n");
        agg_buf_puts(h, "</p>\n");
    }
    size_t best = 0;
    for (size_t p = 1; p < np; p++)
        if (tabs[p]->n_within > tabs[best]->n_within) best = p;
    if (tabs[best]->n_compared) {
        agg_buf_printf(b, "Most cells in band: protocol %s (%zu of %zu)%s.\n\n", protocols[best],
                       tabs[best]->n_within, tabs[best]->n_compared,
                       tabs[best]->n_within == 0 ? ": none reproduces the paper" : "");
        agg_buf_printf(h, "<p class=\"note\">Most cells in band: protocol ");
        html_escape(h, protocols[best]);
        agg_buf_printf(h, " (%zu of %zu)%s.</p>\n", tabs[best]->n_within, tabs[best]->n_compared,
                       tabs[best]->n_within == 0 ? ": none reproduces the paper" : "");
    }
}

void report_protocols_combined(agg_out *out, const table_result *const *tabs,
                               const char *const *protocols, size_t np, json_t *const *recs,
                               size_t n)
{
    const table_result *t0 = tabs[0];
    size_t nr = t0->rk.n_groups, nc = t0->ck.n_groups;
    char text[256];
    agg_buf *b = &out->md, *h = &out->html;
    const char *base = t0->name;
    size_t blen = strlen(base) - strlen(protocols[0]) - 1; /* NAME_PROTOCOL */
    agg_buf_printf(b, "### %.*s: the paper beside each protocol\n\n|", (int)blen, base);
    agg_buf_printf(h, "<section class=\"table protocols\"><h3>%.*s: the paper beside each "
                   "protocol</h3>\n<table>\n<thead><tr>", (int)blen, base);
    for (size_t p = 0; p < t0->rows.n; p++) both_cell(b, h, "th", "", t0->rows.s[p]);
    if (t0->cols) both_cell(b, h, "th", "", t0->cols);
    both_cell(b, h, "th", "", "paper");
    for (size_t p = 0; p < np; p++) {
        snprintf(text, sizeof text, "ours, %s", protocols[p]);
        both_cell(b, h, "th", "", text);
    }
    agg_buf_puts(b, "\n|");
    agg_buf_puts(h, "</tr></thead>\n<tbody>\n");
    for (size_t p = 0; p < t0->rows.n + (t0->cols ? 1 : 0); p++) agg_buf_puts(b, "---|");
    for (size_t p = 0; p <= np; p++) agg_buf_puts(b, "---:|");
    agg_buf_puts(b, "\n");
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < (nc ? nc : 1); c++) {
            agg_buf_puts(b, "|");
            agg_buf_puts(h, "<tr>");
            for (size_t p = 0; p < t0->rows.n; p++)
                both_cell(b, h, "th", "", t0->rk.labels[r * t0->rows.n + p]);
            if (t0->cols) both_cell(b, h, "th", "", t0->ck.labels[c]);
            table_paper_text(text, sizeof text, &t0->cells[r * nc + c]);
            both_cell(b, h, "td", " class=\"paper\"", text);
            for (size_t p = 0; p < np; p++) {
                char tight[64];
                cell_text(text, sizeof text, tabs, p, r, c);
                tight_text(tight, sizeof tight, recs, n, protocols[p], tabs[p], t0, r, c);
                strncat(text, tight, sizeof text - strlen(text) - 1);
                both_cell(b, h, "td", "", text);
            }
            agg_buf_puts(b, "\n");
            agg_buf_puts(h, "</tr>\n");
        }
    agg_buf_puts(b, "\n");
    agg_buf_puts(h, "</tbody>\n</table>\n");
    protocol_notes(b, h, tabs, protocols, np, recs, n);
    agg_buf_puts(h, "</section>\n");
}
