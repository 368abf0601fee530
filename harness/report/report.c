/* report.c: `dperm report DIR` (see report.h): load the records, fill in the default
 * spec, write the tables (table.c) and figures (plot.c), then DIR/report.md.
 *
 * Records are sorted by their grid `index` first (runs.jsonl is in completion order,
 * which depends on -j), so "first-seen order" of non-numeric values is the order of the
 * sweep as written in the config, whatever the scheduling was.
 */
#include "harness/report/report.h"
#include "harness/report/report_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/report/aggregate.h"
#include "harness/report/fidelity.h"
#include "harness/report/gnuplot.h"
#include "harness/report/html.h"
#include "harness/report/plot.h"
#include "harness/report/privacy_note.h"
#include "harness/report/report_protocols.h"
#include "harness/report/report_readouts.h"
#include "harness/report/report_scale.h"
#include "harness/store/folder.h"
#include "harness/store/store.h"
#include "harness/report/table.h"

// ---- formats --------------------------------------------------------------------------

#define FORMAT_HTML 8u   /* with the table formats: report.html */
#define FORMATS_KNOWN "md, csv, tex, html, png, svg, pdf"

static int parse_formats(const char *formats, unsigned *tables, unsigned *images, dp_err *err)
{
    static const struct {
        const char *name;
        unsigned table, image;
    } known[] = {{"md", TABLE_MD, 0},        {"csv", TABLE_CSV, 0},   {"tex", TABLE_TEX, 0},
                 {"html", FORMAT_HTML, 0},   {"png", 0, PLOT_PNG},    {"svg", 0, PLOT_SVG},
                 {"pdf", 0, PLOT_PDF}};
    *tables = *images = 0;
    const char *s = formats ? formats : REPORT_DEFAULT_FORMATS;
    while (*s) {
        s += strspn(s, " ,");
        size_t n = strcspn(s, " ,");
        if (n == 0) break;
        size_t k = 0;
        while (k < sizeof known / sizeof known[0] &&
               !(strlen(known[k].name) == n && !strncmp(s, known[k].name, n)))
            k++;
        if (k == sizeof known / sizeof known[0]) {
            dp_err_set(err, DP_EINVAL, "unknown report format '%.*s'", (int)n, s);
            dp_err_hint(err, "formats are " FORMATS_KNOWN " (comma separated)");
            return DP_EINVAL;
        }
        *tables |= known[k].table;
        *images |= known[k].image;
        s += n;
    }
    if (!*tables && !*images) {
        dp_err_set(err, DP_EINVAL, "no report format given");
        dp_err_hint(err, "formats are " FORMATS_KNOWN " (comma separated)");
        return DP_EINVAL;
    }
    /* the page shows the figures as PNG: asking for the page asks for them */
    if ((*tables & FORMAT_HTML) && *images) *images |= PLOT_PNG;
    return 0;
}

// ---- records --------------------------------------------------------------------------

typedef struct ordered {
    json_t *rec;
    long long index;   /* grid index; records without one go last, in file order */
    size_t pos;
} ordered;

static int cmp_ordered(const void *a, const void *b)
{
    const ordered *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Drop from records those whose id the folder's manifest (DIR/sweep.json) no longer
 * lists: a sweep whose grid was edited keeps every record, and its report shows the
 * current grid. Returns how many were dropped (0 without a manifest). */
static size_t current_grid_only(const char *dir, json_t *records)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    json_t *m = json_load_file(path, 0, NULL);
    json_t *ids = json_object_get(m, "ids"), *want = json_object(), *id;
    size_t i, dropped = 0;
    if (!json_is_array(ids) || !want || json_array_size(ids) == 0) goto out;
    json_array_foreach(ids, i, id)
        if (json_is_string(id)) json_object_set_new(want, json_string_value(id), json_true());
    for (i = json_array_size(records); i-- > 0;) {
        const char *rid = json_string_value(json_object_get(json_array_get(records, i), "id"));
        if (rid && !json_object_get(want, rid)) {
            json_array_remove(records, i);
            dropped++;
        }
    }
out:
    json_decref(want);
    json_decref(m);
    return dropped;
}

/* recs[0..n) borrowed from the array, sorted by index. NULL on ENOMEM. */
static json_t **sorted_records(json_t *array, size_t n)
{
    ordered *o = malloc((n + 1) * sizeof *o);
    json_t **recs = malloc((n + 1) * sizeof *recs);
    if (!o || !recs) {
        free(o);
        free(recs);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(array, i), *idx = json_object_get(r, "index");
        o[i] = (ordered){r, json_is_integer(idx) ? json_integer_value(idx) : LLONG_MAX, i};
    }
    qsort(o, n, sizeof *o, cmp_ordered);
    for (size_t i = 0; i < n; i++) recs[i] = o[i].rec;
    free(o);
    return recs;
}

// ---- defaults -------------------------------------------------------------------------

/* The config paths that vary across recs, seed excluded, each kept only when it splits
 * runs that agree on `seedkeys` and on the paths kept before it (so algorithm.clip,
 * present only for dp_sgd, adds nothing once algorithm.name is there). */
static int varying_paths(json_t *const *recs, size_t n, const agg_strs *seedkeys,
                         agg_strs *out, dp_err *err)
{
    agg_strs cands = {0}, keys = {0}, one = {0}, split = {0};
    agg_key k;
    memset(&k, 0, sizeof k);
    int rc = DP_ENOMEM;
    if (agg_leaf_paths(recs, n, &cands) != 0) goto fail;
    for (size_t i = 0; i < seedkeys->n; i++)
        if (agg_strs_push(&keys, seedkeys->s[i]) != 0) goto fail;
    for (size_t c = 0; c < cands.n; c++) {
        agg_key_destroy(&k);
        if ((rc = agg_key_init(&k, recs, n, keys.s, keys.n, AGG_FROM_CONFIG, err))) goto fail;
        rc = DP_ENOMEM;
        agg_strs_destroy(&one);
        agg_strs_destroy(&split);
        if (agg_strs_push(&one, cands.s[c]) != 0 ||
            agg_pooled_paths(recs, n, k.group, k.n_groups, &one, &keys, &split) != 0)
            goto fail;
        if (split.n && (agg_strs_push(&keys, cands.s[c]) != 0 ||
                        agg_strs_push(out, cands.s[c]) != 0))
            goto fail;
    }
    rc = 0;
fail:
    if (rc == DP_ENOMEM) dp_err_set(err, rc, "out of memory choosing the default report");
    agg_key_destroy(&k);
    agg_strs_destroy(&cands);
    agg_strs_destroy(&keys);
    agg_strs_destroy(&one);
    agg_strs_destroy(&split);
    return rc;
}

/* The first of test_accuracy, test_loss, train_loss that some ok run has (test_accuracy
 * when none has any: its cells then show as empty). */
static const char *default_metric(json_t *const *recs, size_t n)
{
    static const char *const prefer[] = {"test_accuracy", "test_loss", "train_loss"};
    for (size_t p = 0; p < sizeof prefer / sizeof prefer[0]; p++)
        for (size_t i = 0; i < n; i++) {
            double v;
            if (!strcmp(agg_status(recs[i]), "ok") && agg_metric_get(recs[i], prefer[p], &v))
                return prefer[p];
        }
    return prefer[0];
}

static json_t *paths_json(const agg_strs *paths)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < paths->n; i++)
        if (json_array_append_new(a, json_string(paths->s[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* Fill *tables / *figures (new references) from the spec, or with the defaults of
 * report.h when the spec has no such key. */
static int effective_spec(json_t *spec, json_t *const *recs, size_t n, json_t **tables,
                          json_t **figures, dp_err *err)
{
    *tables = *figures = NULL;
    if (spec && !json_is_object(spec))
        return dp_err_set(err, DP_ECONFIG, "report: expected a map with tables and figures");
    json_t *t = json_object_get(spec, "tables"), *f = json_object_get(spec, "figures");
    if ((t && !json_is_array(t)) || (f && !json_is_array(f)))
        return dp_err_set(err, DP_ECONFIG, "report.%s: expected a list",
                          t && !json_is_array(t) ? "tables" : "figures");
    if (t && f) {
        *tables = json_incref(t);
        *figures = json_incref(f);
        return 0;
    }

    agg_strs keys = {0}, rows = {0};
    agg_key eps;
    char *eps_path[1] = {"epsilon"};
    int rc = agg_key_init(&eps, recs, n, eps_path, 1, AGG_FROM_CONFIG, err);
    if (rc) return rc;
    int eps_varies = eps.n_groups > 1;
    agg_key_destroy(&eps);
    if (eps_varies && agg_strs_push(&keys, "epsilon") != 0) goto oom;
    if ((rc = varying_paths(recs, n, &keys, &rows, err))) goto fail;

    const char *metric = default_metric(recs, n);
    if (!t) {
        json_t *one = json_pack("{s:s, s:o, s:s, s:s}", "name", "summary", "rows",
                                paths_json(&rows), "cell", metric, "aggregate", "mean_std");
        if (one && eps_varies && json_object_set_new(one, "cols", json_string("epsilon"))) {
            json_decref(one);
            one = NULL;
        }
        *tables = one ? json_pack("[o]", one) : NULL;
        if (!*tables) goto oom;
    } else {
        *tables = json_incref(t);
    }
    if (!f) {
        json_t *one = eps_varies
            ? json_pack("{s:s+, s:s, s:s, s:o}", "name", metric, "_vs_epsilon", "x", "epsilon",
                        "y", metric, "by", paths_json(&rows))
            : json_pack("{s:s, s:s, s:s, s:o}", "name", "train_loss_vs_iteration", "x",
                        "iteration", "y", "train_loss", "by", paths_json(&rows));
        *figures = one ? json_pack("[o]", one) : NULL;
        if (!*figures) goto oom;
    } else {
        *figures = json_incref(f);
    }
    goto fail;   /* rc is 0: the common cleanup */
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory choosing the default report");
fail:
    if (rc) {
        json_decref(*tables);
        json_decref(*figures);
        *tables = *figures = NULL;
    }
    agg_strs_destroy(&keys);
    agg_strs_destroy(&rows);
    return rc;
}

// ---- report.md ------------------------------------------------------------------------

static const char *prov(json_t *rec, const char *key)
{
    const char *s = json_string_value(json_object_get(json_object_get(rec, "provenance"), key));
    return s && *s ? s : "unknown";
}

/* provenance.host: a name, or {name, system, release, cpu, cores}. */
static void prov_host(agg_buf *b, json_t *rec)
{
    json_t *h = json_object_get(json_object_get(rec, "provenance"), "host");
    const char *name = json_is_string(h) ? json_string_value(h)
                                         : json_string_value(json_object_get(h, "name"));
    const char *cpu = json_string_value(json_object_get(h, "cpu"));
    json_t *cores = json_object_get(h, "cores");
    agg_buf_puts(b, name && *name ? name : "unknown");
    if (cpu && json_is_integer(cores))
        agg_buf_printf(b, " (%s, %" JSON_INTEGER_FORMAT " cores)", cpu, json_integer_value(cores));
    else if (cpu)
        agg_buf_printf(b, " (%s)", cpu);
}

/* The scale DIR's sweep ran at (DIR/sweep.json) into buf; 0 when none is recorded. */
/* "Scale: quick (the experiment's scales.quick, which sets train.epochs=5, ...; ...)".
 * Empty for a sweep of the experiment as written. */
static void scale_sentence(agg_buf *b, const char *dir)
{
    char scale[64];
    if (!report_scale_name(dir, scale, sizeof scale)) return;
    agg_buf changes;
    agg_buf_init(&changes);
    report_scale_changes(dir, scale, &changes);
    agg_buf_printf(b, "Scale: %s (the experiment's scales.%s%s%s; the settings each table "
                   "holds fixed are listed under it).", scale, scale,
                   changes.len ? ", which sets " : "", agg_buf_str(&changes));
    b->oom |= changes.oom;
    agg_buf_destroy(&changes);
}

static void report_scale_html(agg_buf *b, const char *dir)
{
    agg_buf s;
    agg_buf_init(&s);
    scale_sentence(&s, dir);
    if (s.len) {
        agg_buf_puts(b, "<p>");
        html_escape(b, agg_buf_str(&s));
        agg_buf_puts(b, "</p>\n");
    }
    b->oom |= s.oom;
    agg_buf_destroy(&s);
}

static void report_header(agg_buf *b, const char *dir, json_t *const *recs,
                          const report_result *r)
{
    const char *exp = json_string_value(json_object_get(recs[0], "experiment"));
    if (!exp) {
        const char *slash = strrchr(dir, '/');
        exp = slash && slash[1] ? slash + 1 : dir;
    }
    agg_buf_printf(b, "# Report: %s\n\n", exp);
    const char *desc = json_string_value(agg_config_get(recs[0], "description"));
    const char *paper = json_string_value(agg_config_get(recs[0], "paper"));
    if (desc || paper)
        agg_buf_printf(b, "%s%s%s%s.\n\n", desc ? desc : "", desc && paper ? " (" : "",
                       paper ? paper : "", desc && paper ? ")" : "");
    /* The scale changes what the numbers mean (a quick run is not the paper's): say it. */
    size_t before = b->len;
    scale_sentence(b, dir);
    if (b->len > before) agg_buf_puts(b, "\n\n");
    agg_buf_printf(b, "%zu run%s in runs.jsonl: %zu ok, %zu failed, %zu diverged.\n\n",
                   r->n_records, r->n_records == 1 ? "" : "s", r->n_ok, r->n_failed,
                   r->n_diverged);
    size_t n_copies = 0;
    for (size_t i = 0; i < r->n_records; i++)
        n_copies += json_is_string(json_object_get(recs[i], "same_run_as"));
    if (n_copies)
        agg_buf_printf(b, "%zu of these records copy another run's training (marked "
                       "same_run_as): runs that differ only in a key they do not read (a "
                       "non-private run and epsilon) trained once, and serve every cell that "
                       "needs them.\n\n", n_copies);
    agg_buf_printf(b, "Provenance of the first run: dperm %s, git %s, BLAS core %s, host ",
                   prov(recs[0], "dperm_version"), prov(recs[0], "git_revision"),
                   prov(recs[0], "blas_core"));
    prov_host(b, recs[0]);
    agg_buf_printf(b, ", started %s.\n\n", prov(recs[0], "started"));
}

// ---- build ----------------------------------------------------------------------------

static void take_strs(agg_strs *from, char ***to, size_t *n)
{
    *to = from->s;
    *n = from->n;
    memset(from, 0, sizeof *from);
}

/* Under a figure whose x axis or series is epsilon: the privacy-truth line (privacy_note.h)
 * in report.md and report.html. 0, or DP_ENOMEM. */
static int figure_privacy_note(agg_out *o, json_t *fig, json_t *const *recs, size_t n)
{
    int axis = privacy_note_is_epsilon(json_string_value(json_object_get(fig, "x")));
    json_t *by = json_object_get(fig, "by"), *v;
    size_t i;
    if (json_is_string(by)) axis |= privacy_note_is_epsilon(json_string_value(by));
    json_array_foreach(by, i, v) axis |= privacy_note_is_epsilon(json_string_value(v));
    if (!axis) return 0;
    json_t **sel = malloc((n + 1) * sizeof *sel);
    if (!sel) return DP_ENOMEM;
    size_t m = 0;
    json_t *where = json_object_get(fig, "where");
    for (size_t r = 0; r < n; r++)
        if (agg_where_match(recs[r], where)) sel[m++] = recs[r];
    char *truth = privacy_note(sel, m);
    free(sel);
    if (!truth) return 0;
    agg_buf_printf(&o->md, "%s\n\n", truth);
    agg_buf_puts(&o->html, "<p class=\"note privacy\">");
    html_escape(&o->html, truth);
    agg_buf_puts(&o->html, "</p>\n");
    free(truth);
    return 0;
}

/* The report block's `formats` (a list or a comma string), when --format is not given. */
/* The table figure `fig` is drawn beside (plot.h): the one its `table` names ("none": no
 * table), else the first table with a reference whose cell is the figure's y, whose cols
 * are its x and whose rows are all among its `by`. A table split by protocol answers to
 * its own name and to the name it was split from. out->ref stays NULL without one. */
static void figure_paper(json_t *fig, json_t *tables, const table_result *tabs, size_t n_tabs,
                         plot_paper *out)
{
    memset(out, 0, sizeof *out);
    const char *named = json_string_value(json_object_get(fig, "table"));
    const char *x = json_string_value(json_object_get(fig, "x"));
    const char *y = json_string_value(json_object_get(fig, "y"));
    json_t *by = json_object_get(fig, "by");
    if (named && !strcmp(named, "none")) return;
    for (size_t i = 0; i < n_tabs; i++) {
        const table_result *t = &tabs[i];
        const char *of = json_string_value(json_object_get(json_array_get(tables, i), "split_of"));
        if (named) {
            if (strcmp(t->name, named) && !(of && !strcmp(of, named))) continue;
        } else {
            if (!t->has_ref || !x || !y || !t->cols || !t->cell || strcmp(t->cell, y) || strcmp(t->cols, x))
                continue;
            size_t p = 0;
            for (; p < t->ref.n_rows; p++) {
                int in_by = json_is_string(by) && !strcmp(json_string_value(by), t->ref.rows[p]);
                for (size_t k = 0; json_is_array(by) && k < json_array_size(by); k++)
                    in_by |= !strcmp(json_string_value(json_array_get(by, k)) ?: "",
                                     t->ref.rows[p]);
                if (!in_by) break;
            }
            if (p < t->ref.n_rows) continue;
        }
        out->ref = t->has_ref ? &t->ref : NULL;
        out->table = of ? of : t->name;
        return;
    }
}

static const char *spec_formats(json_t *spec, char *buf, size_t n)
{
    json_t *f = json_object_get(spec, "formats");
    if (json_is_string(f)) return json_string_value(f);
    if (!json_is_array(f)) return NULL;
    size_t i, used = 0;
    json_t *v;
    buf[0] = '\0';
    json_array_foreach(f, i, v) {
        if (!json_is_string(v) || used >= n) continue;
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "," : "",
                                 json_string_value(v));
    }
    return used && used < n ? buf : NULL;
}

static const char *experiment_name(const char *dir, json_t *const *recs)
{
    const char *exp = json_string_value(json_object_get(recs[0], "experiment"));
    if (exp) return exp;
    const char *slash = strrchr(dir, '/');
    return slash && slash[1] ? slash + 1 : dir;
}

int report_build(const char *dir, json_t *spec, const char *formats, report_result *out,
                 dp_err *err)
{
    dp_err_clear(err);
    memset(out, 0, sizeof *out);
    json_t *array = NULL, *tables = NULL, *figures = NULL, *fj = NULL, *claims = NULL;
    json_t **recs = NULL, **xrecs[3] = {0}; /* the records each readouts_mode reads */
    size_t n_xrecs[3] = {0};
    table_result *tabs = NULL;
    size_t n_tabs = 0;
    fidelity fid = {0};
    agg_out o = {.dir = dir};
    agg_buf_init(&o.md);
    agg_buf_init(&o.html);
    agg_buf sections, fmd, fhtml, page;
    agg_buf_init(&sections);
    agg_buf_init(&fmd);
    agg_buf_init(&fhtml);
    agg_buf_init(&page);
    report_result r = {0};
    unsigned tfmt, ifmt;
    char fbuf[128];
    if (!formats) formats = spec_formats(spec, fbuf, sizeof fbuf);
    int rc = parse_formats(formats, &tfmt, &ifmt, err);
    if (rc) return rc;
    if (ifmt && !gnuplot_available()) {
        dp_err_set(err, DP_EIO, "gnuplot not found on PATH (needed for png, svg and pdf "
                   "figures)");
        dp_err_hint(err, "install gnuplot-nox (make deps), or pass --format md,csv,tex,html");
        return DP_EIO;
    }
    if ((rc = store_load(dir, &array, err))) return rc;
    size_t n_gone = current_grid_only(dir, array);
    if (n_gone && agg_strs_pushf(&o.warnings, "%zu record%s of runs no longer in the "
                                 "experiment's grid (sweep.json) left out", n_gone,
                                 n_gone == 1 ? "" : "s"))
        goto oom;
    r.n_records = json_array_size(array);
    if (r.n_records == 0) {
        rc = dp_err_set(err, DP_EDATA, "%s/runs.jsonl holds no complete record", dir);
        dp_err_hint(err, "run the experiment first: dperm run CONFIG.yaml --out %s", dir);
        goto fail;
    }
    if (!(recs = sorted_records(array, r.n_records))) goto oom;
    for (size_t i = 0; i < r.n_records; i++) {
        const char *s = agg_status(recs[i]);
        if (!strcmp(s, "ok")) r.n_ok++;
        else if (!strcmp(s, "diverged")) r.n_diverged++;
        else r.n_failed++;
    }
    if ((rc = effective_spec(spec, recs, r.n_records, &tables, &figures, err))) goto fail;
    /* Runs of several protocols: referenced tables once per protocol, claims judged per
     * protocol, and no cell or curve pooling two protocols (report_protocols.h). */
    const char *protocols[8];
    size_t np = report_protocols_find(recs, r.n_records, protocols, 8);
    claims = json_incref(json_object_get(spec, "claims"));
    if (np > 1) {
        json_t *st = report_protocols_split_tables(tables, protocols, np);
        json_t *sf = st ? report_protocols_split_figures(figures) : NULL;
        json_t *sc = sf && claims ? report_protocols_split_claims(claims, st, protocols, np) : NULL;
        if (!st || !sf || (claims && !sc)) {
            json_decref(st);
            json_decref(sf);
            goto oom;
        }
        json_decref(tables);
        json_decref(figures);
        tables = st;
        figures = sf;
        if (sc) {
            json_decref(claims);
            claims = sc;
        }
    }

    /* Tables and figures keyed by read-outs see one record per read-out
     * (report_readouts.h); the others the runs' records. */
    for (int mode = READOUTS_BY_EPOCH; mode <= READOUTS_BY_TARGET; mode++)
        if (!(xrecs[mode] = report_readouts_expand(recs, r.n_records, (readouts_mode)mode,
                                                   &n_xrecs[mode])))
            goto oom;
    xrecs[READOUTS_NONE] = recs;
    n_xrecs[READOUTS_NONE] = r.n_records;
#define RECS_OF(spec) (xrecs[report_readouts_mode(spec)])
#define N_RECS_OF(spec) (n_xrecs[report_readouts_mode(spec)])

    /* every table is built (and its reference checked) before any file is written, so
     * a bad reference writes nothing */
    if (!(tabs = calloc(json_array_size(tables) + 1, sizeof *tabs))) goto oom;
    for (size_t i = 0; i < json_array_size(tables); i++, n_tabs++) {
        json_t *ts = json_array_get(tables, i);
        if ((rc = table_build(&tabs[i], RECS_OF(ts), N_RECS_OF(ts), ts, i + 1, dir, err)))
            goto fail;
    }
    if ((rc = fidelity_eval(&fid, claims, tabs, n_tabs, err)))
        goto fail;

    /* tables and figures append their sections to o.md and o.html; the pages wrap them */
    for (size_t i = 0; i < n_tabs; i++) {
        if (i == 0) {
            agg_buf_puts(&o.md, "## Tables\n\n");
            agg_buf_puts(&o.html, "<h2>Tables</h2>\n");
        }
        /* The first table of a protocol split: the combined table comes first. */
        json_t *ts = json_array_get(tables, i);
        const char *of = json_string_value(json_object_get(ts, "split_of"));
        if (of && i + np <= n_tabs) {
            const table_result *group[8];
            for (size_t p = 0; p < np; p++) group[p] = &tabs[i + p];
            report_protocols_combined(&o, group, protocols, np, RECS_OF(ts), N_RECS_OF(ts));
        }
        for (size_t k = 0; k < (of ? np : 1) && i < n_tabs; k++, i++) {
            ts = json_array_get(tables, i);
            if ((rc = table_write(&o, &tabs[i], RECS_OF(ts), N_RECS_OF(ts), tfmt, err)))
                goto fail;
        }
        i--;
    }
    for (size_t i = 0; i < json_array_size(figures); i++) {
        json_t *fig = json_array_get(figures, i);
        if (i == 0) {
            agg_buf_puts(&o.md, "## Figures\n\n");
            agg_buf_puts(&o.html, "<h2>Figures</h2>\n");
        }
        plot_paper paper;
        figure_paper(fig, tables, tabs, n_tabs, &paper);
        if ((rc = plot_figure(&o, RECS_OF(fig), N_RECS_OF(fig), fig, i + 1, &paper, ifmt, err)))
            goto fail;
        char name[32];
        snprintf(name, sizeof name, "figure%zu", i + 1);
        const char *fname = json_string_value(json_object_get(fig, "name"));
        report_html_figure(&o.html, fname ? fname : name,
                           json_string_value(json_object_get(fig, "title")), &o.files, dir);
        if ((rc = figure_privacy_note(&o, fig, RECS_OF(fig), N_RECS_OF(fig)))) goto oom;
    }
    fidelity_render_md(&fmd, &fid, tabs, n_tabs);
    report_scale_html(&fhtml, dir);
    fidelity_render_html(&fhtml, &fid, tabs, n_tabs);
    report_header(&sections, dir, recs, &r);
    agg_buf_puts(&sections, agg_buf_str(&fmd));
    agg_buf_puts(&sections, agg_buf_str(&o.md));
    if (o.warnings.n) {
        agg_buf_puts(&sections, "## Notes\n\n");
        for (size_t i = 0; i < o.warnings.n; i++)
            agg_buf_printf(&sections, "- %s\n", o.warnings.s[i]);
    }
    int published = 0;
    for (size_t i = 0; i < n_tabs; i++) published |= tabs[i].has_ref;
    if (tfmt & FORMAT_HTML)
        report_html_page(&page, experiment_name(dir, recs),
                         json_string_value(agg_config_get(recs[0], "paper")), published, recs, &r,
                         agg_buf_str(&fhtml), agg_buf_str(&o.html), &o.warnings);
    if (!(fj = fidelity_json(&fid, tabs, n_tabs))) goto oom;
    char *fjs = store_json_dumps(fj, 0);
    if (!fjs) goto oom;
    rc = agg_out_write(&o, "fidelity.json", fjs, strlen(fjs), err);
    free(fjs);
    if (rc) goto fail;
    if (o.md.oom || o.html.oom || sections.oom || fmd.oom || fhtml.oom || page.oom) goto oom;
    if (tfmt & FORMAT_HTML && (rc = agg_out_write(&o, "report.html", page.data, page.len, err)))
        goto fail;
    if ((rc = agg_out_write(&o, "report.md", sections.data, sections.len, err))) goto fail;
    take_strs(&o.files, &r.files, &r.n_files);
    take_strs(&o.warnings, &r.warnings, &r.n_warnings);
    *out = r;
    goto fail;   /* rc is 0: the common cleanup */
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory building the report of %s", dir);
fail:
    fidelity_destroy(&fid);
    for (size_t i = 0; i < n_tabs; i++) table_result_destroy(&tabs[i]);
    free(tabs);
    json_decref(fj);
    agg_strs_destroy(&o.files);
    agg_strs_destroy(&o.warnings);
    agg_buf_destroy(&o.md);
    agg_buf_destroy(&o.html);
    agg_buf_destroy(&sections);
    agg_buf_destroy(&fmd);
    agg_buf_destroy(&fhtml);
    agg_buf_destroy(&page);
    json_decref(tables);
    json_decref(figures);
    json_decref(claims);
    report_readouts_free(xrecs[READOUTS_BY_EPOCH], n_xrecs[READOUTS_BY_EPOCH]);
    report_readouts_free(xrecs[READOUTS_BY_TARGET], n_xrecs[READOUTS_BY_TARGET]);
    free(recs);
    json_decref(array);
    return rc;
#undef RECS_OF
#undef N_RECS_OF
}

int report_index(const char *dir, char **path, char *skipped, size_t n, dp_err *err)
{
    char parent[4096];
    *path = NULL;
    if (!realpath(dir, parent))
        return dp_err_set(err, DP_EIO, "cannot resolve the folder %s", dir);
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash[1] = '\0';
    else if (slash) *slash = '\0';
    int rc = html_write_index(parent, path, skipped, n, err);
    /* a results root inside another (results/quick/ in results/): the outer index lists
     * this experiment too, so one page lists every experiment */
    char mark[4200];
    snprintf(mark, sizeof mark, "%s/%s", parent, STORE_RESULTS_MARK);
    slash = strrchr(parent, '/');
    if (rc == 0 && *path && slash && slash != parent && access(mark, F_OK) == 0) {
        *slash = '\0';
        char *outer = NULL;
        rc = html_write_index(parent, &outer, NULL, 0, err);
        free(outer);
    }
    return rc;
}

void report_result_destroy(report_result *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n_files; i++) free(r->files[i]);
    for (size_t i = 0; i < r->n_warnings; i++) free(r->warnings[i]);
    free(r->files);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}
