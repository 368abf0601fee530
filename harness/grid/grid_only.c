/* grid_only.c: the --only KEY=VALUE filter over expanded runs (grid.h step 5).
 *
 * Runs are kept when, for every distinct key, one of that key's values matches the run's
 * resolved scalar at the dotted key (OR within a key, AND across keys). Matching is by
 * meaning where the text has a YAML type: numbers numerically (so 1e-2 matches 0.01),
 * booleans and nulls by value, anything else by text. Before filtering, each filter must
 * name a key some run has and a value some run has at it; otherwise the error suggests
 * the closest key (did-you-mean over every dotted path of every run) or lists the values
 * the key takes, so a typo does not silently select nothing.
 */
#include "harness/grid/grid_int.h"

#include <stdlib.h>
#include <string.h>

/* Does the scalar at a run's path equal the command-line text? Numbers compare as
 * numbers, booleans and nulls by meaning, anything else by text. */
static int value_matches(const cfg_node *n, const char *text)
{
    if (!n || n->kind != CFG_SCALAR) return 0;
    cfg_node v = {.kind = CFG_SCALAR, .value = (char *)text};
    cfg_type tn = cfg_scalar_type(n), tv = cfg_scalar_type(&v);
    int numeric_n = tn == CFG_T_INT || tn == CFG_T_FLOAT;
    int numeric_v = tv == CFG_T_INT || tv == CFG_T_FLOAT;
    if (numeric_n && numeric_v) {
        double a, b;
        if (cfg_as_double(n, "", &a, NULL) || cfg_as_double(&v, "", &b, NULL)) return 0;
        return a == b;
    }
    if (tn == CFG_T_BOOL && tv == CFG_T_BOOL) {
        int a = 0, b = 0;
        cfg_as_bool(n, "", &a, NULL);
        cfg_as_bool(&v, "", &b, NULL);
        return a == b;
    }
    if (tn == CFG_T_NULL && tv == CFG_T_NULL) return 1;
    return strcmp(n->value, text) == 0;
}

typedef struct strset {
    char **s;
    size_t n;
} strset;

static int strset_add(strset *ss, const char *s)
{
    for (size_t i = 0; i < ss->n; i++)
        if (strcmp(ss->s[i], s) == 0) return 0;
    char **ns = realloc(ss->s, (ss->n + 1) * sizeof *ns);
    if (!ns) return DP_ENOMEM;
    ss->s = ns;
    if (!(ss->s[ss->n] = strdup(s))) return DP_ENOMEM;
    ss->n++;
    return 0;
}

static void strset_free(strset *ss)
{
    for (size_t i = 0; i < ss->n; i++) free(ss->s[i]);
    free(ss->s);
}

/* Every dotted path (inner and leaf) under n, prefixed. */
static int paths_of(const cfg_node *n, const char *prefix, strset *ss)
{
    if (!n || n->kind != CFG_MAP) return 0;
    for (size_t i = 0; i < n->n_items; i++) {
        char *p = grid_join_path(prefix, n->items[i]->key);
        int rc = !p || strset_add(ss, p) || paths_of(n->items[i], p, ss);
        free(p);
        if (rc) return DP_ENOMEM;
    }
    return 0;
}

/* "--only: no run has key 'epsilom'; did you mean 'epsilon'?" */
static int only_unknown_key(const grid *g, const char *key, dp_err *err)
{
    strset ss = {0};
    for (size_t r = 0; r < g->n; r++)
        if (paths_of(g->runs[r].config, "", &ss)) {
            strset_free(&ss);
            return dp_err_set(err, DP_ENOMEM, "out of memory");
        }
    const char *s = cfg_suggest(key, (const char *const *)ss.s, ss.n);
    if (s) dp_err_set(err, DP_ECONFIG, "--only: no run has key '%s'; did you mean '%s'?", key, s);
    else dp_err_set(err, DP_ECONFIG, "--only: no run has key '%s'", key);
    dp_err_hint(err, "--only takes a dotted path of the resolved run config, e.g. "
                     "--only algorithm.name=dp_sgd");
    strset_free(&ss);
    return DP_ECONFIG;
}


/* "--only epsilon=0.3: no run has epsilon = 0.3 (its values: 0.5, 1, 2)" */
static int only_unknown_value(const grid *g, const char *key, const char *value, dp_err *err)
{
    char list[256];
    strset ss = {0};
    for (size_t r = 0; r < g->n; r++) {
        const cfg_node *n = cfg_get_path(g->runs[r].config, key);
        if (n && n->kind == CFG_SCALAR && strset_add(&ss, n->value)) {
            strset_free(&ss);
            return dp_err_set(err, DP_ENOMEM, "out of memory");
        }
    }
    grid_join_names(list, sizeof list, (const char *const *)ss.s, ss.n, 10);
    if (ss.n == 0) /* the key exists (checked before) but never holds a value */
        dp_err_set(err, DP_ECONFIG,
                   "--only %s=%s: '%s' is a block in every run, not a value; use %s.KEY=VALUE",
                   key, value, key, key);
    else
        dp_err_set(err, DP_ECONFIG, "--only %s=%s: no run has %s = %s (its values: %s)", key,
                   value, key, value, list);
    strset_free(&ss);
    return DP_ECONFIG;
}

int grid_apply_only(grid *g, char *const *only, size_t n_only, dp_err *err)
{
    if (n_only == 0) return 0;
    char **keys = calloc(n_only, sizeof *keys);
    const char **vals = calloc(n_only, sizeof *vals);
    unsigned char *keep = calloc(g->n ? g->n : 1, 1);
    int rc = 0;
    if (!keys || !vals || !keep) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n_only; i++) {
        const char *eq = strchr(only[i], '=');
        if (!eq || eq == only[i]) {
            rc = dp_err_set(err, DP_ECONFIG, "--only '%s': expected KEY=VALUE", only[i]);
            goto done;
        }
        if (!(keys[i] = strndup(only[i], (size_t)(eq - only[i])))) {
            rc = dp_err_set(err, DP_ENOMEM, "out of memory");
            goto done;
        }
        vals[i] = eq + 1;
    }
    /* Each filter must name a key some run has and a value some run has. */
    for (size_t i = 0; i < n_only; i++) {
        int has_key = 0, has_value = 0;
        for (size_t r = 0; r < g->n && !has_value; r++) {
            const cfg_node *n = cfg_get_path(g->runs[r].config, keys[i]);
            has_key |= n != NULL;
            has_value = value_matches(n, vals[i]);
        }
        if (!has_key) {
            rc = only_unknown_key(g, keys[i], err);
            goto done;
        }
        if (!has_value) {
            rc = only_unknown_value(g, keys[i], vals[i], err);
            goto done;
        }
    }
    /* Keep a run when, for every distinct key, one of that key's values matches. */
    size_t kept = 0;
    for (size_t r = 0; r < g->n; r++) {
        int ok = 1;
        for (size_t i = 0; i < n_only && ok; i++) {
            int first = 1, any = 0;
            for (size_t j = 0; j < i && first; j++) first = strcmp(keys[j], keys[i]) != 0;
            if (!first) continue;
            for (size_t j = i; j < n_only && !any; j++)
                if (strcmp(keys[j], keys[i]) == 0)
                    any = value_matches(cfg_get_path(g->runs[r].config, keys[i]), vals[j]);
            ok = any;
        }
        keep[r] = (unsigned char)ok;
        kept += (size_t)ok;
    }
    if (kept == 0) {
        rc = dp_err_set(err, DP_ECONFIG, "--only: no run matches all the filters together");
        dp_err_hint(err, "filters on different keys must all hold (AND); repeat a key for OR");
        goto done;
    }
    size_t w = 0;
    for (size_t r = 0; r < g->n; r++) {
        if (keep[r]) g->runs[w++] = g->runs[r];
        else cfg_free(g->runs[r].config);
    }
    g->n = w;
done:
    if (keys)
        for (size_t i = 0; i < n_only; i++) free(keys[i]);
    free(keys);
    free(vals);
    free(keep);
    return rc;
}
