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

/* The report block's `formats` (a list or a comma string), when --format is not given. */
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

/* One report being built: the records, the spec after defaults and protocol splits, the
 * tables built from them, and the output collected before anything is written. */
typedef struct build {
    const char *dir;
    json_t *array, *tables, *figures, *claims;
    json_t **recs;                   /* the records, in grid order */
    json_t **xrecs[3];               /* the records each readouts_mode reads */
    size_t n_xrecs[3];
    const char *protocols[8];
    size_t np;
    table_result *tabs;
    size_t n_tabs;
    fidelity fid;
    agg_out o;
    report_result r;
    unsigned tfmt, ifmt;
    char no_figure[400];             /* why the default figure is left out, or "" */
} build;

#define RECS_OF(b, spec) ((b)->xrecs[report_readouts_mode(spec)])
#define N_RECS_OF(b, spec) ((b)->n_xrecs[report_readouts_mode(spec)])

static void build_destroy(build *b)
{
    fidelity_destroy(&b->fid);
    for (size_t i = 0; i < b->n_tabs; i++) table_result_destroy(&b->tabs[i]);
    free(b->tabs);
    agg_strs_destroy(&b->o.files);
    agg_strs_destroy(&b->o.warnings);
    agg_buf_destroy(&b->o.md);
    agg_buf_destroy(&b->o.html);
    json_decref(b->tables);
    json_decref(b->figures);
    json_decref(b->claims);
    report_readouts_free(b->xrecs[READOUTS_BY_EPOCH], b->n_xrecs[READOUTS_BY_EPOCH]);
    report_readouts_free(b->xrecs[READOUTS_BY_TARGET], b->n_xrecs[READOUTS_BY_TARGET]);
    free(b->recs);
    json_decref(b->array);
}

/* The folder's records of the current grid, sorted and counted. */
static int load_records(build *b, dp_err *err)
{
    int rc = store_load(b->dir, &b->array, err);
    if (rc) return rc;
    size_t n_gone = current_grid_only(b->dir, b->array);
    if (n_gone && agg_strs_pushf(&b->o.warnings, "%zu record%s of runs no longer in the "
                                 "experiment's grid (sweep.json) left out", n_gone,
                                 n_gone == 1 ? "" : "s"))
        return DP_ENOMEM;
    b->r.n_records = json_array_size(b->array);
    if (b->r.n_records == 0) {
        rc = dp_err_set(err, DP_EDATA, "%s/runs.jsonl holds no complete record", b->dir);
        dp_err_hint(err, "run the experiment first: dperm run CONFIG.yaml --out %s", b->dir);
        return rc;
    }
    if (!(b->recs = sorted_records(b->array, b->r.n_records))) return DP_ENOMEM;
    for (size_t i = 0; i < b->r.n_records; i++) {
        const char *st = agg_status(b->recs[i]);
        if (!strcmp(st, "ok")) b->r.n_ok++;
        else if (!strcmp(st, "diverged")) b->r.n_diverged++;
        else b->r.n_failed++;
    }
    return 0;
}

/* Runs of several protocols: referenced tables once per protocol, claims judged per
 * protocol, and no cell or curve pooling two protocols (report_protocols.h). 0 or
 * DP_ENOMEM. */
static int split_protocols(build *b)
{
    b->np = report_protocols_find(b->recs, b->r.n_records, b->protocols, 8);
    if (b->np <= 1) return 0;
    json_t *st = report_protocols_split_tables(b->tables, b->protocols, b->np);
    json_t *sf = st ? report_protocols_split_figures(b->figures) : NULL;
    json_t *sc = sf && b->claims ? report_protocols_split_claims(b->claims, st, b->protocols,
                                                                 b->np)
                                 : NULL;
    if (!st || !sf || (b->claims && !sc)) {
        json_decref(st);
        json_decref(sf);
        return DP_ENOMEM;
    }
    json_decref(b->tables);
    json_decref(b->figures);
    b->tables = st;
    b->figures = sf;
    if (sc) {
        json_decref(b->claims);
        b->claims = sc;
    }
    return 0;
}

/* The tables' sections, a protocol split's combined table before its parts. */
static int write_tables(build *b, dp_err *err)
{
    for (size_t i = 0; i < b->n_tabs; i++) {
        if (i == 0) {
            agg_buf_puts(&b->o.md, "## Tables\n\n");
            agg_buf_puts(&b->o.html, "<h2>Tables</h2>\n");
        }
        json_t *ts = json_array_get(b->tables, i);
        const char *of = json_string_value(json_object_get(ts, "split_of"));
        if (of && i + b->np <= b->n_tabs) {
            const table_result *group[8];
            for (size_t p = 0; p < b->np; p++) group[p] = &b->tabs[i + p];
            report_protocols_combined(&b->o, group, b->protocols, b->np, RECS_OF(b, ts),
                                      N_RECS_OF(b, ts));
        }
        for (size_t k = 0; k < (of ? b->np : 1) && i < b->n_tabs; k++, i++) {
            ts = json_array_get(b->tables, i);
            int rc = table_write(&b->o, &b->tabs[i], RECS_OF(b, ts), N_RECS_OF(b, ts), b->tfmt,
                                 err);
            if (rc) return rc;
        }
        i--;
    }
    return 0;
}

/* The figures' sections: each figure beside its paper table, and its privacy line. */
static int write_figures(build *b, dp_err *err)
{
    if (b->no_figure[0]) {
        agg_buf_printf(&b->o.md, "## Figures\n\n%s\n\n", b->no_figure);
        agg_buf_puts(&b->o.html, "<h2>Figures</h2>\n<p class=\"note\">");
        html_escape(&b->o.html, b->no_figure);
        agg_buf_puts(&b->o.html, "</p>\n");
    }
    for (size_t i = 0; i < json_array_size(b->figures); i++) {
        json_t *fig = json_array_get(b->figures, i);
        if (i == 0) {
            agg_buf_puts(&b->o.md, "## Figures\n\n");
            agg_buf_puts(&b->o.html, "<h2>Figures</h2>\n");
        }
        plot_paper paper;
        report_figure_paper(fig, b->tables, b->tabs, b->n_tabs, &paper);
        int rc = plot_figure(&b->o, RECS_OF(b, fig), N_RECS_OF(b, fig), fig, i + 1, &paper,
                             b->ifmt, err);
        if (rc) return rc;
        char name[32];
        snprintf(name, sizeof name, "figure%zu", i + 1);
        const char *fname = json_string_value(json_object_get(fig, "name"));
        report_html_figure(&b->o.html, fname ? fname : name,
                           json_string_value(json_object_get(fig, "title")), &b->o.files,
                           b->dir);
        if (report_figure_privacy_note(&b->o, fig, RECS_OF(b, fig), N_RECS_OF(b, fig)))
            return DP_ENOMEM;
    }
    return 0;
}

/* fidelity.json, report.html and report.md around the sections written so far. */
static int write_pages(build *b, dp_err *err)
{
    agg_buf sections, fmd, fhtml, page;
    agg_buf_init(&sections);
    agg_buf_init(&fmd);
    agg_buf_init(&fhtml);
    agg_buf_init(&page);
    fidelity_render_md(&fmd, &b->fid, b->tabs, b->n_tabs);
    report_scale_html(&fhtml, b->dir);
    fidelity_render_html(&fhtml, &b->fid, b->tabs, b->n_tabs);
    report_header(&sections, b->dir, b->recs, &b->r);
    agg_buf_puts(&sections, agg_buf_str(&fmd));
    agg_buf_puts(&sections, agg_buf_str(&b->o.md));
    if (b->o.warnings.n) {
        agg_buf_puts(&sections, "## Notes\n\n");
        for (size_t i = 0; i < b->o.warnings.n; i++)
            agg_buf_printf(&sections, "- %s\n", b->o.warnings.s[i]);
    }
    int published = 0;
    for (size_t i = 0; i < b->n_tabs; i++) published |= b->tabs[i].has_ref;
    if (b->tfmt & FORMAT_HTML)
        report_html_page(&page, experiment_name(b->dir, b->recs),
                         json_string_value(agg_config_get(b->recs[0], "paper")), published,
                         b->recs, &b->r, agg_buf_str(&fhtml), agg_buf_str(&b->o.html),
                         &b->o.warnings);
    int rc = DP_ENOMEM;
    json_t *fj = fidelity_json(&b->fid, b->tabs, b->n_tabs);
    char *fjs = fj ? store_json_dumps(fj, 0) : NULL;
    if (fjs && !(b->o.md.oom || b->o.html.oom || sections.oom || fmd.oom || fhtml.oom ||
                 page.oom)) {
        rc = agg_out_write(&b->o, "fidelity.json", fjs, strlen(fjs), err);
        if (rc == 0 && b->tfmt & FORMAT_HTML)
            rc = agg_out_write(&b->o, "report.html", page.data, page.len, err);
        if (rc == 0) rc = agg_out_write(&b->o, "report.md", sections.data, sections.len, err);
    }
    free(fjs);
    json_decref(fj);
    agg_buf_destroy(&sections);
    agg_buf_destroy(&fmd);
    agg_buf_destroy(&fhtml);
    agg_buf_destroy(&page);
    return rc;
}

/* Everything but the output: formats, records, spec, read-outs, tables, claims. Every
 * table is built (and its reference checked) before any file is written, so a bad
 * reference writes nothing. */
static int prepare(build *b, json_t *spec, const char *formats, dp_err *err)
{
    char fbuf[128];
    if (!formats) formats = spec_formats(spec, fbuf, sizeof fbuf);
    int rc = parse_formats(formats, &b->tfmt, &b->ifmt, err);
    if (rc) return rc;
    if (b->ifmt && !gnuplot_available()) {
        dp_err_set(err, DP_EIO, "gnuplot not found on PATH (needed for png, svg and pdf "
                   "figures)");
        dp_err_hint(err, "install gnuplot-nox (make deps), or pass --format md,csv,tex,html");
        return DP_EIO;
    }
    if ((rc = load_records(b, err)) ||
        (rc = report_effective_spec(spec, b->recs, b->r.n_records, &b->tables, &b->figures,
                                    b->no_figure, sizeof b->no_figure, err)))
        return rc;
    b->claims = json_incref(json_object_get(spec, "claims"));
    if ((rc = split_protocols(b))) return rc;
    /* Tables and figures keyed by read-outs see one record per read-out
     * (report_readouts.h); the others the runs' records. */
    for (int mode = READOUTS_BY_EPOCH; mode <= READOUTS_BY_TARGET; mode++)
        if (!(b->xrecs[mode] = report_readouts_expand(b->recs, b->r.n_records,
                                                      (readouts_mode)mode, &b->n_xrecs[mode])))
            return DP_ENOMEM;
    b->xrecs[READOUTS_NONE] = b->recs;
    b->n_xrecs[READOUTS_NONE] = b->r.n_records;
    if (!(b->tabs = calloc(json_array_size(b->tables) + 1, sizeof *b->tabs))) return DP_ENOMEM;
    for (size_t i = 0; i < json_array_size(b->tables); i++, b->n_tabs++) {
        json_t *ts = json_array_get(b->tables, i);
        if ((rc = table_build(&b->tabs[i], RECS_OF(b, ts), N_RECS_OF(b, ts), ts, i + 1, b->dir,
                              err)))
            return rc;
    }
    return fidelity_eval(&b->fid, b->claims, b->tabs, b->n_tabs, err);
}

int report_build(const char *dir, json_t *spec, const char *formats, report_result *out,
                 dp_err *err)
{
    dp_err_clear(err);
    memset(out, 0, sizeof *out);
    build b = {.dir = dir, .o = {.dir = dir}};
    agg_buf_init(&b.o.md);
    agg_buf_init(&b.o.html);
    int rc = prepare(&b, spec, formats, err);
    /* tables and figures append their sections to o.md and o.html; the pages wrap them */
    if (rc == 0) rc = write_tables(&b, err);
    if (rc == 0) rc = write_figures(&b, err);
    if (rc == 0) rc = write_pages(&b, err);
    if (rc == DP_ENOMEM && !err->msg[0])
        rc = dp_err_set(err, DP_ENOMEM, "out of memory building the report of %s", dir);
    if (rc == 0) {
        take_strs(&b.o.files, &b.r.files, &b.r.n_files);
        take_strs(&b.o.warnings, &b.r.warnings, &b.r.n_warnings);
        *out = b.r;
    }
    build_destroy(&b);
    return rc;
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
