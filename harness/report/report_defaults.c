/* report_defaults.c: the tables and figures a report draws when the experiment's report
 * block names none (report.h: one table of the default metric by the config paths that
 * vary, one figure of its curves).
 */
#include "harness/report/report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The default figure is left out when there is nothing to draw (no run finished, no
 * curve recorded) or it could not be read: more curves than its key has
 * room for (Zhang17's ambiguity analysis drew 100 curves and no legend), or training curves
 * of fewer than 3 points (evaluated only at the start and the end, a straight line from one
 * to the other that looks like a trajectory). */
#define DEFAULT_FIGURE_MAX_CURVES 12
#define DEFAULT_FIGURE_MIN_POINTS 3

/* The most points of any record's training curve. */
static size_t longest_curve(json_t *const *recs, size_t n)
{
    size_t most = 0;
    for (size_t i = 0; i < n; i++) {
        size_t m = json_array_size(json_object_get(json_object_get(recs[i], "curves"),
                                                   "iteration"));
        if (m > most) most = m;
    }
    return most;
}

/* Why the default figure (x: epsilon when it varies, else iteration; one curve per value
 * of the `rows` paths) is left out, into why[0..cap), or why[0] = '\0' when it is drawn. */
static int default_figure_omitted(json_t *const *recs, size_t n, const agg_strs *rows,
                                  int eps_varies, const char *metric, char *why, size_t cap,
                                  dp_err *err)
{
    why[0] = '\0';
    agg_key k;
    memset(&k, 0, sizeof k);
    int rc = agg_key_init(&k, recs, n, rows->s, rows->n, AGG_FROM_CONFIG, err);
    if (rc) return rc;
    size_t curves = k.n_groups, points = eps_varies ? 0 : longest_curve(recs, n);
    agg_key_destroy(&k);
    char what[96];
    snprintf(what, sizeof what, "%s against %s", eps_varies ? metric : "train_loss",
             eps_varies ? "epsilon" : "iteration");
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) ok += !strcmp(agg_status(recs[i]), "ok");
    if (ok == 0)
        snprintf(why, cap, "No figure: no run finished, so there is nothing to draw (the run "
                 "counts above say why).");
    else if (!eps_varies && points == 0)
        snprintf(why, cap, "No figure: no run recorded a training curve, so the default one "
                 "(%s) has nothing to draw.", what);
    else if (curves > DEFAULT_FIGURE_MAX_CURVES)
        snprintf(why, cap, "No figure: the report names none, and the default one (%s) would "
                 "draw %zu curves, more than a legend can tell apart; name the figures to draw "
                 "in report.figures (docs/yaml.md), with `where` to keep a few curves each.",
                 what, curves);
    else if (!eps_varies && points < DEFAULT_FIGURE_MIN_POINTS)
        snprintf(why, cap, "No figure: the report names none, and the default one (%s) "
                 "would have %zu point%s per curve; evaluate more often (train.eval_every) "
                 "or name the figures to draw in report.figures (docs/yaml.md).",
                 what, points, points == 1 ? "" : "s");
    return 0;
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
 * report.h when the spec has no such key; no_figure[0..cap) says why the default figure
 * is left out (empty when it is not). */
int report_effective_spec(json_t *spec, json_t *const *recs, size_t n, json_t **tables,
                          json_t **figures, char *no_figure, size_t cap, dp_err *err)
{
    *tables = *figures = NULL;
    no_figure[0] = '\0';
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
    if (!f && (rc = default_figure_omitted(recs, n, &rows, eps_varies, metric, no_figure,
                                           cap, err)))
        goto fail;
    if (!f && no_figure[0]) {
        if (!(*figures = json_array())) goto oom;
    } else if (!f) {
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
