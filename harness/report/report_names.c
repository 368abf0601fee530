/* report_names.c: the names of a report block checked against the runs (report_names.h).
 *
 * Why: a report groups and reads records by the names its block gives, and a name no run
 * has is not an error to the grouping (every run has the same absent value, so
 * `rows: algorithm.nme` pools every algorithm into one row, and `y: test_acc` plots no
 * point). Checked here against what the runs have, with the closest known name offered.
 */
#include "harness/report/report_names.h"

#include <stdlib.h>
#include <string.h>

/* The positions a read-out adds as config paths (report_readouts.c). */
static const char *const READOUT_PATHS[] = {"readout.epoch", "readout.iteration",
                                            "readout.epsilon", "readout.epsilon_target"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int set_add(json_t *set, const char *key)
{
    return json_object_get(set, key) ? 0 : json_object_set_new(set, key, json_true());
}

/* Every dotted path (inner and leaf) under a YAML map, prefixed. */
static int paths_of_node(const cfg_node *n, const char *prefix, json_t *set)
{
    if (!n || n->kind != CFG_MAP) return 0;
    for (size_t i = 0; i < n->n_items; i++) {
        const cfg_node *e = n->items[i];
        size_t len = strlen(prefix) + strlen(e->key) + 2;
        char *p = malloc(len);
        if (!p) return DP_ENOMEM;
        snprintf(p, len, "%s%s%s", prefix, *prefix ? "." : "", e->key);
        int rc = set_add(set, p) || paths_of_node(e, p, set) ? DP_ENOMEM : 0;
        free(p);
        if (rc) return rc;
    }
    return 0;
}

/* The same under a JSON object. */
static int paths_of_json(json_t *o, const char *prefix, json_t *set)
{
    const char *key;
    json_t *v;
    if (!json_is_object(o)) return 0;
    json_object_foreach(o, key, v) {
        size_t len = strlen(prefix) + strlen(key) + 2;
        char *p = malloc(len);
        if (!p) return DP_ENOMEM;
        snprintf(p, len, "%s%s%s", prefix, *prefix ? "." : "", key);
        int rc = set_add(set, p) || paths_of_json(v, p, set) ? DP_ENOMEM : 0;
        free(p);
        if (rc) return rc;
    }
    return 0;
}

static int keys_of(json_t *o, json_t *set)
{
    const char *key;
    json_t *v;
    if (!json_is_object(o)) return 0;
    json_object_foreach(o, key, v) if (set_add(set, key)) return DP_ENOMEM;
    return 0;
}

int report_names_from_configs(report_names *v, cfg_node *const *configs, size_t n)
{
    v->paths = json_object();
    v->metrics = NULL;
    if (!v->paths) return DP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (paths_of_node(configs[i], "", v->paths)) return DP_ENOMEM;
    return 0;
}

int report_names_from_records(report_names *v, json_t *records)
{
    size_t i, k;
    json_t *rec, *ro;
    v->paths = json_object();
    v->metrics = json_object();
    if (!v->paths || !v->metrics) return DP_ENOMEM;
    json_array_foreach(records, i, rec) {
        if (paths_of_json(json_object_get(rec, "config"), "", v->paths) ||
            keys_of(json_object_get(rec, "metrics"), v->metrics) ||
            keys_of(json_object_get(rec, "curves"), v->metrics))
            return DP_ENOMEM;
        json_array_foreach(json_object_get(rec, "readouts"), k, ro)
            if (keys_of(ro, v->metrics)) return DP_ENOMEM;
    }
    /* no run measured anything (all failed, e.g. for want of an optional dataset): no
     * metric name can be judged, and the report shows the failures */
    if (json_object_size(v->metrics) == 0) {
        json_decref(v->metrics);
        v->metrics = NULL;
    }
    return 0;
}

void report_names_destroy(report_names *v)
{
    json_decref(v->paths);
    json_decref(v->metrics);
    memset(v, 0, sizeof *v);
}

/* The closest key of set to word (cfg_suggest, else the shortest key word begins), or
 * NULL. */
static const char *closest(json_t *set, const char *word)
{
    size_t n = json_object_size(set), i = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return NULL;
    const char *key;
    json_t *val;
    json_object_foreach(set, key, val) keys[i++] = key;
    const char *s = cfg_suggest(word, keys, n);
    /* a shortened name (test_acc): the shortest known name it begins */
    for (size_t k = 0; !s && k < n; k++)
        if (strlen(word) >= 3 && !strncmp(keys[k], word, strlen(word))) s = keys[k];
    for (size_t k = 0; s && strncmp(s, word, strlen(word)) == 0 && k < n; k++)
        if (!strncmp(keys[k], word, strlen(word)) && strlen(keys[k]) < strlen(s)) s = keys[k];
    free(keys);
    return s;
}

/* A config path: node n holds it (at its key when at_key). */
static int check_path(const cfg_node *n, const char *name, int at_key, const char *what,
                      const report_names *v, dp_err *err)
{
    if (!strncmp(name, "readout.", 8)) {
        for (size_t i = 0; i < COUNT(READOUT_PATHS); i++)
            if (!strcmp(name, READOUT_PATHS[i])) return 0;
        return cfg_error(err, n, at_key, "%s: '%s' is not a read-out's position (readout.epoch, "
                         "readout.iteration, readout.epsilon, readout.epsilon_target)", what, name);
    }
    if (json_object_get(v->paths, name)) return 0;
    const char *s = closest(v->paths, name);
    int rc = cfg_error(err, n, at_key, "%s: no run has the config path '%s'%s%s%s", what, name,
                       s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
    if (!s)
        dp_err_hint(err, "a path names a key of the runs' resolved config, e.g. algorithm.name, "
                    "epsilon, train.lr (`dperm run CONFIG --dry-run` lists the keys that vary)");
    return rc;
}

/* A metric name (only where the runs' metrics are known). */
static int check_metric(const cfg_node *n, const char *what, const report_names *v, dp_err *err)
{
    if (!v->metrics || n->kind != CFG_SCALAR || json_object_get(v->metrics, n->value)) return 0;
    const char *s = closest(v->metrics, n->value);
    return cfg_error(err, n, 0, "%s: no run has the metric '%s'%s%s%s", what, n->value,
                     s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
}

/* A path or a list of paths. */
static int check_paths(const cfg_node *n, const char *what, const report_names *v, dp_err *err)
{
    if (!n) return 0;
    if (n->kind == CFG_SCALAR) return check_path(n, n->value, 0, what, v, err);
    for (size_t i = 0; n->kind == CFG_SEQ && i < n->n_items; i++) {
        int rc = n->items[i]->kind == CFG_SCALAR
                     ? check_path(n->items[i], n->items[i]->value, 0, what, v, err)
                     : 0;
        if (rc) return rc;
    }
    return 0;
}

/* The keys of a map of paths (where, better, than). */
static int check_keys(const cfg_node *m, const char *what, const report_names *v, dp_err *err)
{
    for (size_t i = 0; m && m->kind == CFG_MAP && i < m->n_items; i++) {
        int rc = check_path(m->items[i], m->items[i]->key, 1, what, v, err);
        if (rc) return rc;
    }
    return 0;
}

static int check_select(const cfg_node *t, const char *where, const report_names *v, dp_err *err)
{
    const cfg_node *sel = cfg_get(t, "select");
    char what[96];
    if (!sel) return 0;
    snprintf(what, sizeof what, "%s.select.best_over", where);
    int rc = check_paths(cfg_get(sel, "best_over"), what, v, err);
    snprintf(what, sizeof what, "%s.select.by", where);
    if (!rc && cfg_get(sel, "by")) rc = check_metric(cfg_get(sel, "by"), what, v, err);
    return rc;
}

static int check_table(const cfg_node *t, size_t i, const report_names *v, dp_err *err)
{
    char where[48], what[96];
    int rc;
    snprintf(where, sizeof where, "report.tables[%zu]", i);
    snprintf(what, sizeof what, "%s.rows", where);
    if ((rc = check_paths(cfg_get(t, "rows"), what, v, err))) return rc;
    snprintf(what, sizeof what, "%s.cols", where);
    if ((rc = check_paths(cfg_get(t, "cols"), what, v, err))) return rc;
    snprintf(what, sizeof what, "%s.cell", where);
    if (cfg_get(t, "cell") && (rc = check_metric(cfg_get(t, "cell"), what, v, err))) return rc;
    snprintf(what, sizeof what, "%s.where", where);
    if ((rc = check_keys(cfg_get(t, "where"), what, v, err))) return rc;
    /* cell_notes' where keys are checked by the table against its rows and cols (table.c) */
    return check_select(t, where, v, err);
}

static int check_figure(const cfg_node *f, size_t i, const report_names *v, dp_err *err)
{
    char where[48], what[96];
    int rc;
    snprintf(where, sizeof where, "report.figures[%zu]", i);
    const cfg_node *x = cfg_get(f, "x");
    if (x && x->kind == CFG_SCALAR && strcmp(x->value, "iteration") && strcmp(x->value, "epoch") &&
        !json_object_get(v->paths, x->value) &&
        !(v->metrics && json_object_get(v->metrics, x->value)) &&
        (v->metrics || !strncmp(x->value, "readout.", 8))) {
        /* neither a config path nor a metric (before the runs: a bad read-out only) */
        snprintf(what, sizeof what, "%s.x", where);
        if ((rc = check_path(x, x->value, 0, what, v, err))) return rc;
    }
    snprintf(what, sizeof what, "%s.y", where);
    if (cfg_get(f, "y") && (rc = check_metric(cfg_get(f, "y"), what, v, err))) return rc;
    snprintf(what, sizeof what, "%s.by", where);
    if ((rc = check_paths(cfg_get(f, "by"), what, v, err))) return rc;
    snprintf(what, sizeof what, "%s.where", where);
    if ((rc = check_keys(cfg_get(f, "where"), what, v, err))) return rc;
    return check_select(f, where, v, err);
}

int report_names_check(const cfg_node *report, const report_names *v, dp_err *err)
{
    const cfg_node *tables = cfg_get(report, "tables"), *figures = cfg_get(report, "figures");
    const cfg_node *claims = cfg_get(report, "claims");
    char what[64];
    int rc;
    if (!report) return 0;
    for (size_t i = 0; tables && tables->kind == CFG_SEQ && i < tables->n_items; i++)
        if ((rc = check_table(tables->items[i], i, v, err))) return rc;
    for (size_t i = 0; figures && figures->kind == CFG_SEQ && i < figures->n_items; i++)
        if ((rc = check_figure(figures->items[i], i, v, err))) return rc;
    for (size_t i = 0; claims && claims->kind == CFG_SEQ && i < claims->n_items; i++) {
        static const char *const sides[] = {"better", "than"};
        for (size_t s = 0; s < 2; s++) {
            snprintf(what, sizeof what, "report.claims[%zu].%s", i, sides[s]);
            if ((rc = check_keys(cfg_get(claims->items[i], sides[s]), what, v, err))) return rc;
        }
    }
    return 0;
}
