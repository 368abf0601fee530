/* spec_document.c: checking an experiment document's shape before it is expanded
 * (spec_check_document in spec.h): the experiment name, the top-level keys, and the
 * grid, scales and report blocks, each at its FILE:LINE:COL. The schema table is in
 * spec.c; the grid's meaning is grid.h's.
 *
 * Choices where the brief was silent: a table needs `cell` and a figure `x` and `y`;
 * report names must be safe file names because they name output files; a scale may
 * override any document key except `scales`.
 * The grid and scales are checked for shape only: a grid key by its first dotted part
 * (the rest, and every value, is validated by spec_from_config once the grid is
 * expanded), a zip group by the grid's rules (no zip inside a zip). report is checked in
 * full here (it is not part of any run), except that its reference files exist and read
 * well: report/reference.h's ref_check_document, which callers run after this check.
 */
#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const DOC_KEYS[] = {"experiment", "paper",  "description", "dataset",
                                       "model",      "privacy", "train",      "algorithm",
                                       "epsilon",    "seed",   "grid",        "scales",
                                       "report",     "optimality_gap", "protocol", "protocols",
                                       "teachers"};
static const char *const GRID_KEYS[] = {"dataset", "model",   "privacy", "train",
                                        "algorithm", "epsilon", "seed",  "zip",
                                        "optimality_gap", "protocol", "teachers"};
/* What a protocol may set: the keys of a run. */
static const char *const PROTOCOL_KEYS[] = {"dataset", "model",   "privacy", "train",
                                            "algorithm", "epsilon", "seed", "optimality_gap",
                                            "description", "teachers"};
static const char *const REPORT_KEYS[] = {"tables", "figures", "claims", "formats"};
static const char *const TABLE_KEYS[] = {"name",      "title",     "rows",   "cols",
                                         "cell",      "aggregate", "reference", "digits",
                                         "where",     "select",    "cell_notes"};
static const char *const CELL_NOTE_KEYS[] = {"where", "text"};
static const char *const SELECT_KEYS[] = {"best_over", "by", "prefer"};
static const char *const PREFER[] = {"max", "min"};
static const char *const CLAIM_KEYS[] = {"text", "table", "better", "than", "for",
                                         "higher_is_better", "within"};
static const char *const CLAIM_FOR[] = {"every_col", "on_average"};
static const char *const FORMATS[] = {"md", "csv", "tex", "html", "png", "svg", "pdf"};
static const char *const FIGURE_KEYS[] = {"name",  "title", "x",    "y",         "by",
                                          "where", "logx",  "logy", "errorbars", "select",
                                          "xlabel", "ylabel", "table", "xmin"};

static const char *const AGGREGATES[] = {"mean_std", "mean", "median", "min", "max",
                                         "std", "range"};

static int check_grid(const cfg_node *g, const char *where, dp_err *err)
{
    if (g->kind != CFG_MAP)
        return cfg_error(err, g, 0, "%s: expected a map of KEY: [values]", where);
    for (size_t i = 0; i < g->n_items; i++) {
        const cfg_node *e = g->items[i];
        char first[64];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(e->key, "."), e->key);
        size_t j = 0;
        while (j < COUNT(GRID_KEYS) && strcmp(first, GRID_KEYS[j]) != 0) j++;
        if (j == COUNT(GRID_KEYS)) {
            const char *s = cfg_suggest(first, GRID_KEYS, COUNT(GRID_KEYS));
            char list[256];
            cfg_join_names(list, sizeof list, GRID_KEYS, COUNT(GRID_KEYS));
            if (s)
                return cfg_error(err, e, 1, "unknown key '%s' in %s; did you mean '%s'?",
                                 e->key, where, s);
            return cfg_error(err, e, 1, "unknown key '%s' in %s (a grid varies: %s)", e->key,
                             where, list);
        }
        if (strcmp(e->key, "zip") != 0) continue;
        /* zip: a map (or list of maps) whose keys are run keys too */
        size_t ngroups = e->kind == CFG_SEQ ? e->n_items : 1;
        if (e->kind == CFG_SCALAR || (e->kind == CFG_SEQ && e->n_items == 0))
            return cfg_error(err, e, 0, "%s.zip: expected a map of equal-length lists (or a "
                                        "list of such maps)", where);
        for (size_t k = 0; k < ngroups; k++) {
            const cfg_node *z = e->kind == CFG_SEQ ? e->items[k] : e;
            if (z->kind != CFG_MAP)
                return cfg_error(err, z, 0, "%s.zip: each group is a map of lists", where);
            char zwhere[96];
            snprintf(zwhere, sizeof zwhere, "%s.zip", where);
            for (size_t m = 0; m < z->n_items; m++)
                if (strcmp(z->items[m]->key, "zip") == 0)
                    return cfg_error(err, z->items[m], 1, "%s: zip inside zip", zwhere);
            int rc = check_grid(z, zwhere, err);
            if (rc) return rc;
        }
    }
    return 0;
}

/* A string, or a non-empty list of strings. */
static int check_paths(const cfg_node *n, const char *what, dp_err *err)
{
    const char *s;
    if (n->kind != CFG_SEQ) return cfg_as_string(n, what, &s, err);
    if (n->n_items == 0) return cfg_error(err, n, 0, "%s: empty list", what);
    for (size_t i = 0; i < n->n_items; i++) {
        int rc = cfg_as_string(n->items[i], what, &s, err);
        if (rc) return rc;
    }
    return 0;
}

/* Fields shared by tables and figures: name (safe, unique among its kind), title. */
static int check_named(const cfg_node *item, const cfg_node *list, size_t idx,
                       const char *where, dp_err *err)
{
    const char *name, *title;
    int rc = cfg_read_string(item, where, "name", &name, err);
    if (rc || (rc = cfg_read_string(item, where, "title", &title, err))) return rc;
    if (!name) return 0;
    if (!spec_safe_name(name))
        return cfg_error(err, cfg_get(item, "name"), 0,
                         "%s.name '%.60s': use letters, digits, '_', '.' or '-' (it names "
                         "output files)", where, name);
    for (size_t i = 0; i < idx; i++) {
        const cfg_node *other = cfg_get(list->items[i], "name");
        if (other && other->kind == CFG_SCALAR && strcmp(other->value, name) == 0)
            return cfg_error(err, cfg_get(item, "name"), 0,
                             "%s.name '%s' is used twice (first at line %d)", where, name,
                             other->line);
    }
    return 0;
}

/* `where`: a map from a config path to a value, or to a list of values (any of them). */
static int check_where(const cfg_node *item, const char *where, dp_err *err)
{
    char what[96];
    const cfg_node *w = cfg_get(item, "where");
    if (!w) return 0;
    snprintf(what, sizeof what, "%s.where", where);
    int rc = cfg_expect_map(w, what, err);
    if (rc) return rc;
    for (size_t i = 0; i < w->n_items; i++) {
        const cfg_node *v = w->items[i];
        int ok = v->kind == CFG_SCALAR;
        if (v->kind == CFG_SEQ) {
            ok = v->n_items > 0;
            for (size_t j = 0; j < v->n_items; j++) ok = ok && v->items[j]->kind == CFG_SCALAR;
        }
        if (!ok)
            return cfg_error(err, v, 0,
                             "%s.where.%s: expected a value, or a non-empty list of values, to "
                             "select runs by", where, v->key);
    }
    return 0;
}

/* cell_notes: a list of {where: {PATH: value(s)}, text: TEXT}; that each PATH is one of
 * the table's rows or cols paths is checked when the table is built. */
static int check_cell_notes(const cfg_node *t, const char *where, dp_err *err)
{
    char what[64];
    const cfg_node *l = cfg_get(t, "cell_notes");
    const char *s;
    if (!l) return 0;
    if (l->kind != CFG_SEQ)
        return cfg_error(err, l, 0, "%s.cell_notes: expected a list of {where: {PATH: VALUE}, "
                         "text: TEXT}", where);
    for (size_t i = 0; i < l->n_items; i++) {
        const cfg_node *n = l->items[i];
        int rc;
        snprintf(what, sizeof what, "%.30s.cell_notes[%zu]", where, i);
        if ((rc = cfg_expect_map(n, what, err)) ||
            (rc = cfg_check_keys(n, what, CELL_NOTE_KEYS, COUNT(CELL_NOTE_KEYS), err)))
            return rc;
        if (!cfg_get(n, "text")) return cfg_missing(n, what, "text", err);
        if (!cfg_get(n, "where")) return cfg_missing(n, what, "where", err);
        if ((rc = cfg_read_string(n, what, "text", &s, err)) || (rc = check_where(n, what, err)))
            return rc;
    }
    return 0;
}

/* A table's or figure's `select` (best-of selection): which path to choose over, by
 * which metric, preferring max or min. Absent is fine. */
static int check_select(const cfg_node *t, const char *where, dp_err *err)
{
    const cfg_node *sel = cfg_get(t, "select");
    char what[96];
    const char *s;
    int prefer, rc;
    if (!sel) return 0;
    snprintf(what, sizeof what, "%s.select", where);
    if ((rc = cfg_expect_map(sel, what, err)) ||
        (rc = cfg_check_keys(sel, what, SELECT_KEYS, COUNT(SELECT_KEYS), err)))
        return rc;
    if (!cfg_get(sel, "best_over")) return cfg_missing(sel, what, "best_over", err);
    if ((rc = cfg_read_string(sel, what, "best_over", &s, err)) ||
        (rc = cfg_read_string(sel, what, "by", &s, err)) ||
        (rc = cfg_read_enum(sel, what, "prefer", 0, 0, "preference", PREFER, COUNT(PREFER),
                            &prefer, err)))
        return rc;
    return 0;
}

static int check_table(const cfg_node *t, const cfg_node *list, size_t idx, dp_err *err)
{
    char where[64], what[96];
    const char *s;
    long digits;
    int agg = 0, rc;
    snprintf(where, sizeof where, "report.tables[%zu]", idx);
    if ((rc = cfg_expect_map(t, where, err)) ||
        (rc = cfg_check_keys(t, where, TABLE_KEYS, COUNT(TABLE_KEYS), err)) ||
        (rc = check_named(t, list, idx, where, err)))
        return rc;
    if (!cfg_get(t, "cell")) return cfg_missing(t, where, "cell", err);
    if ((rc = cfg_read_string(t, where, "cell", &s, err)) ||
        (rc = cfg_read_string(t, where, "cols", &s, err)) ||
        (rc = cfg_read_string(t, where, "reference", &s, err)) ||
        (rc = cfg_read_enum(t, where, "aggregate", 0, 0, "aggregate", AGGREGATES,
                            COUNT(AGGREGATES), &agg, err)) ||
        (rc = cfg_read_int(t, where, "digits", 0, 0, 0, 8, &digits, err)))
        return rc;
    snprintf(what, sizeof what, "%s.rows", where);
    if (cfg_get(t, "rows") && (rc = check_paths(cfg_get(t, "rows"), what, err))) return rc;
    if ((rc = check_select(t, where, err)) || (rc = check_cell_notes(t, where, err))) return rc;
    return check_where(t, where, err);
}

/* A claim's `better` / `than`: a non-empty map from a rows path to a value or a list. */
static int check_selector(const cfg_node *c, const char *where, const char *key, dp_err *err)
{
    char what[96];
    const cfg_node *m = cfg_get(c, key);
    snprintf(what, sizeof what, "%s.%s", where, key);
    if (!m) return cfg_missing(c, where, key, err);
    int rc = cfg_expect_map(m, what, err);
    if (rc) return rc;
    if (m->n_items == 0)
        return cfg_error(err, m, 0, "%s: name at least one rows path and its value(s)", what);
    for (size_t i = 0; i < m->n_items; i++) {
        const cfg_node *v = m->items[i];
        int ok = v->kind == CFG_SCALAR;
        if (v->kind == CFG_SEQ) {
            ok = v->n_items > 0;
            for (size_t j = 0; j < v->n_items; j++) ok = ok && v->items[j]->kind == CFG_SCALAR;
        }
        if (!ok)
            return cfg_error(err, v, 0, "%s.%s: expected a value, or a non-empty list of "
                             "values, of the table's rows", what, v->key);
    }
    return 0;
}

/* claims: [{text, table: NAME | [NAMES], better, than, for, higher_is_better, within}]; each
 * table must be one of report.tables (by name). */
/* Does report.tables have a table called name? An unnamed table is tableN, N its 1-based
 * position. */
static int table_named(const cfg_node *tables, const char *name)
{
    for (size_t j = 0; tables && tables->kind == CFG_SEQ && j < tables->n_items; j++) {
        const cfg_node *nm = cfg_get(tables->items[j], "name");
        char dflt[32];
        snprintf(dflt, sizeof dflt, "table%zu", j + 1);
        if (nm && nm->kind == CFG_SCALAR ? !strcmp(nm->value, name) : !nm && !strcmp(dflt, name))
            return 1;
    }
    return 0;
}

static int check_claims(const cfg_node *list, const cfg_node *tables, dp_err *err)
{
    if (list->kind != CFG_SEQ)
        return cfg_error(err, list, 0, "report.claims: expected a list of claims");
    for (size_t i = 0; i < list->n_items; i++) {
        const cfg_node *c = list->items[i];
        char where[64];
        const char *s;
        int b, mode, rc;
        snprintf(where, sizeof where, "report.claims[%zu]", i);
        if ((rc = cfg_expect_map(c, where, err)) ||
            (rc = cfg_check_keys(c, where, CLAIM_KEYS, COUNT(CLAIM_KEYS), err)))
            return rc;
        if (!cfg_get(c, "text")) return cfg_missing(c, where, "text", err);
        if (!cfg_get(c, "table")) return cfg_missing(c, where, "table", err);
        if ((rc = cfg_read_string(c, where, "text", &s, err)) ||
            (rc = check_selector(c, where, "better", err)) ||
            (rc = check_selector(c, where, "than", err)) ||
            (rc = cfg_read_enum(c, where, "for", 0, 0, "comparison", CLAIM_FOR,
                                COUNT(CLAIM_FOR), &mode, err)))
            return rc;
        const cfg_node *h = cfg_get(c, "higher_is_better");
        if (h && (rc = cfg_as_bool(h, "higher_is_better", &b, err))) return rc;
        double within;
        if ((rc = cfg_read_number(c, where, "within", 0, 0.0,
                                  (cfg_range){0, INFINITY, 0, 1, ">= 0 and finite"}, &within,
                                   err)))
            return rc;
        const cfg_node *t = cfg_get(c, "table");
        size_t nt = t->kind == CFG_SEQ ? t->n_items : 1;
        if (nt == 0) return cfg_error(err, t, 0, "%s.table: empty list", where);
        for (size_t k = 0; k < nt; k++) {
            const cfg_node *one = t->kind == CFG_SEQ ? t->items[k] : t;
            if ((rc = cfg_as_string(one, "table", &s, err))) return rc;
            if (!table_named(tables, s))
                return cfg_error(err, one, 0, "%s.table '%s': no table of report.tables has "
                                 "that name", where, s);
        }
    }
    return 0;
}

/* formats: a list (or comma string) of md, csv, tex, html, png, svg, pdf. */
static int check_formats(const cfg_node *f, dp_err *err)
{
    size_t n = f->kind == CFG_SEQ ? f->n_items : 1;
    for (size_t i = 0; i < n; i++) {
        const cfg_node *one = f->kind == CFG_SEQ ? f->items[i] : f;
        const char *s;
        int rc = cfg_as_string(one, "report.formats", &s, err);
        if (rc) return rc;
        while (*s) {   /* a comma string is checked word by word */
            s += strspn(s, " ,");
            size_t len = strcspn(s, " ,"), k = 0;
            if (!len) break;
            while (k < COUNT(FORMATS) && !(strlen(FORMATS[k]) == len && !strncmp(s, FORMATS[k], len)))
                k++;
            if (k == COUNT(FORMATS))
                return cfg_error(err, one, 0, "report.formats: unknown format '%.*s' (known: "
                                 "md, csv, tex, html, png, svg, pdf)", (int)len, s);
            s += len;
        }
    }
    return 0;
}

static int check_figure(const cfg_node *f, const cfg_node *list, size_t idx,
                        const cfg_node *tables, dp_err *err)
{
    char where[64], what[96];
    const char *s;
    int b, rc;
    snprintf(where, sizeof where, "report.figures[%zu]", idx);
    if ((rc = cfg_expect_map(f, where, err)) ||
        (rc = cfg_check_keys(f, where, FIGURE_KEYS, COUNT(FIGURE_KEYS), err)) ||
        (rc = check_named(f, list, idx, where, err)))
        return rc;
    if (!cfg_get(f, "x")) return cfg_missing(f, where, "x", err);
    if (!cfg_get(f, "y")) return cfg_missing(f, where, "y", err);
    if ((rc = cfg_read_string(f, where, "x", &s, err)) ||
        (rc = cfg_read_string(f, where, "y", &s, err)) ||
        (rc = cfg_read_string(f, where, "xlabel", &s, err)) ||
        (rc = cfg_read_string(f, where, "ylabel", &s, err)) ||
        (rc = cfg_read_string(f, where, "table", &s, err)))
        return rc;
    const cfg_node *t = cfg_get(f, "table");
    if (t && strcmp(s, "none") && !table_named(tables, s))
        return cfg_error(err, t, 0, "%s.table '%s': no table of report.tables has that name "
                         "(or `none`: no paper values, y as recorded)", where, s);
    static const char *const bools[] = {"logx", "logy", "errorbars"};
    for (size_t i = 0; i < COUNT(bools); i++) {
        const cfg_node *n = cfg_get(f, bools[i]);
        snprintf(what, sizeof what, "%s.%s", where, bools[i]);
        if (n && (rc = cfg_as_bool(n, what, &b, err))) return rc;
    }
    const cfg_node *xmin = cfg_get(f, "xmin");
    if (xmin) {
        double v;
        snprintf(what, sizeof what, "%s.xmin", where);
        if ((rc = cfg_as_double(xmin, what, &v, err))) return rc;
        const char *x = NULL;
        (void)cfg_read_string(f, where, "x", &x, err);
        if (!x || (strcmp(x, "iteration") && strcmp(x, "epoch")))
            return cfg_error(err, xmin, 0, "%s: only a curve figure (x: iteration or epoch) "
                             "leaves out its first points; remove it, or filter runs with "
                             "`where`", what);
    }
    snprintf(what, sizeof what, "%s.by", where);
    if (cfg_get(f, "by") && (rc = check_paths(cfg_get(f, "by"), what, err))) return rc;
    if ((rc = check_select(f, where, err))) return rc;
    return check_where(f, where, err);
}

static int check_report(const cfg_node *r, dp_err *err)
{
    int rc;
    if ((rc = cfg_expect_map(r, "report", err)) ||
        (rc = cfg_check_keys(r, "report", REPORT_KEYS, COUNT(REPORT_KEYS), err)))
        return rc;
    if (cfg_get(r, "claims") && (rc = check_claims(cfg_get(r, "claims"), cfg_get(r, "tables"), err)))
        return rc;
    if (cfg_get(r, "formats") && (rc = check_formats(cfg_get(r, "formats"), err))) return rc;
    for (size_t k = 0; k < 2; k++) {   /* tables, figures */
        const cfg_node *list = cfg_get(r, REPORT_KEYS[k]);
        if (!list) continue;
        if (list->kind != CFG_SEQ)
            return cfg_error(err, list, 0, "report.%s: expected a list of %s", REPORT_KEYS[k],
                             k == 0 ? "tables" : "figures");
        for (size_t i = 0; i < list->n_items; i++) {
            rc = k == 0 ? check_table(list->items[i], list, i, err)
                        : check_figure(list->items[i], list, i, cfg_get(r, "tables"), err);
            if (rc) return rc;
        }
    }
    return 0;
}

/* protocols: a map of NAME: {run keys}, each a block of overrides a run selects with
 * `protocol: NAME` (grid.c merges it over the run's config). */
static int check_protocols(const cfg_node *p, dp_err *err)
{
    int rc;
    if (p->kind != CFG_MAP || p->n_items == 0)
        return cfg_error(err, p, 0, "protocols: expected a map of NAME: {overrides of the run "
                         "keys}, e.g. protocols: {as_published: {...}, private: {...}}");
    for (size_t i = 0; i < p->n_items; i++) {
        const cfg_node *one = p->items[i];
        char where[96];
        snprintf(where, sizeof where, "protocols.%s", one->key);
        if ((rc = cfg_expect_map(one, where, err)) ||
            (rc = cfg_check_keys(one, where, PROTOCOL_KEYS, COUNT(PROTOCOL_KEYS), err)))
            return rc;
    }
    return 0;
}

int spec_check_document(const cfg_node *root, dp_err *err)
{
    const char *s;
    int rc;
    if (!root || root->kind != CFG_MAP)
        return cfg_error(err, root, 0, "the document must be a mapping of keys");
    if ((rc = cfg_check_keys(root, "the experiment", DOC_KEYS, COUNT(DOC_KEYS), err))) return rc;
    if (!cfg_get(root, "experiment"))
        return cfg_error(err, root, 0,
                         "missing required key 'experiment' (the name of the results folder)");
    if ((rc = spec_check_experiment(root, err, &s)) ||
        (rc = cfg_read_string(root, "", "paper", &s, err)) ||
        (rc = cfg_read_string(root, "", "description", &s, err)))
        return rc;
    const cfg_node *g = cfg_get(root, "grid");
    if (g && (rc = check_grid(g, "grid", err))) return rc;
    const cfg_node *r = cfg_get(root, "report");
    if (r && (rc = check_report(r, err))) return rc;
    const cfg_node *pr = cfg_get(root, "protocols");
    if (pr && (rc = check_protocols(pr, err))) return rc;
    const cfg_node *sc = cfg_get(root, "scales");
    if (!sc) return 0;
    if (sc->kind != CFG_MAP)
        return cfg_error(err, sc, 0, "scales: expected a map of NAME: {overrides}");
    for (size_t i = 0; i < sc->n_items; i++) {
        const cfg_node *one = sc->items[i];
        char where[96];
        snprintf(where, sizeof where, "scales.%s", one->key);
        if ((rc = cfg_expect_map(one, where, err)) ||
            (rc = cfg_check_keys(one, where, DOC_KEYS, COUNT(DOC_KEYS), err)))
            return rc;
        if (cfg_get(one, "scales"))
            return cfg_error(err, cfg_get(one, "scales"), 1, "%s: a scale cannot define scales",
                             where);
        snprintf(where, sizeof where, "scales.%s.grid", one->key);
        if ((g = cfg_get(one, "grid")) && (rc = check_grid(g, where, err))) return rc;
        if ((r = cfg_get(one, "report")) && (rc = check_report(r, err))) return rc;
        if (cfg_get(one, "experiment") && (rc = spec_check_experiment(one, err, &s))) return rc;
    }
    return 0;
}

int spec_safe_name(const char *s)
{
    if (!*s || !strcmp(s, ".") || !strcmp(s, "..")) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

int spec_check_experiment(const cfg_node *root, dp_err *err, const char **name)
{
    const cfg_node *n = cfg_get(root, "experiment");
    int rc = cfg_as_string(n, "experiment", name, err);
    if (rc) return rc;
    if (!spec_safe_name(*name) || strlen(*name) > 127)
        return cfg_error(err, n, 0,
                         "experiment '%.60s': use 1 to 127 letters, digits, '_', '.' or '-' "
                         "(it names the results folder)", *name);
    return 0;
}
