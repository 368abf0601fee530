/* report_readouts.c: records read out for tables and figures (see report_readouts.h).
 *
 * Why a record per read-out: the table, figure, fidelity and claim code all work on
 * records, keyed by config paths and metric names. A read-out in the shape of a record
 * (its position as config keys, its measurements under the metrics' own names) lets every
 * one of them take `cols: readout.epoch` or `x: readout.epsilon` with no code of its own,
 * and a paper's reference cells keyed by read-out compare as any other.
 *
 * readout.epsilon is the epsilon of the run's accountant (privacy.accountant) at the
 * read-out; readout.epsilon_target the epsilon an epsilon read-out asked for (absent for
 * an epoch read-out), so a table whose columns are the paper's epsilons can use it.
 */
#include "harness/report/report_readouts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/aggregate.h"

/* 1 if spec names a key beginning with prefix (a string value or an object key). */
static int names(json_t *spec, const char *prefix)
{
    const char *key;
    json_t *v;
    size_t i, n = strlen(prefix);
    if (json_is_string(spec)) return strncmp(json_string_value(spec), prefix, n) == 0;
    if (json_is_array(spec)) {
        json_array_foreach(spec, i, v) if (names(v, prefix)) return 1;
        return 0;
    }
    if (json_is_object(spec))
        json_object_foreach(spec, key, v) {
            if (strncmp(key, prefix, n) == 0 || names(v, prefix)) return 1;
        }
    return 0;
}

readouts_mode report_readouts_mode(json_t *spec)
{
    if (names(spec, "readout.epsilon_target")) return READOUTS_BY_TARGET;
    return names(spec, "readout.") ? READOUTS_BY_EPOCH : READOUTS_NONE;
}

/* The metrics a read-out replaces when it has no value of its own: the model's. */
static const char *const MODEL_METRICS[] = {"test_accuracy", "test_loss", "test_rmse",
                                            "train_loss", "grad_norm"};

/* A copy of rec read out at ro (NULL: at its end). */
static json_t *read_out(json_t *rec, json_t *ro)
{
    json_t *copy = json_copy(rec); /* shallow: config and metrics are replaced below */
    json_t *cfg = json_deep_copy(json_object_get(rec, "config"));
    json_t *m = json_copy(json_object_get(rec, "metrics"));
    json_t *r = json_object();
    if (!copy || !cfg || !m || !r) goto oom;
    if (!json_is_object(cfg) || !json_is_object(m)) {
        json_decref(cfg);
        json_decref(m);
        json_decref(r);
        return copy;
    }
    if (ro) {
        const char *key;
        json_t *v;
        for (size_t i = 0; i < sizeof MODEL_METRICS / sizeof *MODEL_METRICS; i++)
            json_object_del(m, MODEL_METRICS[i]);
        json_object_foreach(ro, key, v) {
            if (!strcmp(key, "epoch")) {
                json_object_set(m, "epochs", v);
                json_object_set(r, "epoch", v);
            } else if (!strcmp(key, "iteration")) {
                json_object_set(m, "iterations", v);
                json_object_set(r, "iteration", v);
            } else if (!strcmp(key, "epsilon_target")) {
                json_object_set(r, "epsilon_target", v);
            } else {
                json_object_set(m, key, v);
            }
        }
    } else {
        json_t *epochs = agg_config_get(rec, "train.epochs");
        json_object_set(r, "epoch", epochs ? epochs : json_object_get(m, "epochs"));
        json_object_set(r, "iteration", json_object_get(m, "iterations"));
    }
    json_t *eps = json_object_get(m, "epsilon_spent");
    json_object_set(r, "epsilon", eps ? eps : json_null());
    json_object_set_new(cfg, "readout", r);
    json_object_set_new(copy, "config", cfg);
    json_object_set_new(copy, "metrics", m);
    return copy;
oom:
    json_decref(copy);
    json_decref(cfg);
    json_decref(m);
    json_decref(r);
    return NULL;
}

/* 1 if read-out k of list is one the mode reads: BY_TARGET, an epsilon read-out;
 * BY_EPOCH, the first of its epoch (the list is in epoch order). */
static int reads(json_t *list, size_t k, readouts_mode mode)
{
    json_t *ro = json_array_get(list, k);
    if (mode == READOUTS_BY_TARGET) return json_object_get(ro, "epsilon_target") != NULL;
    return k == 0 || !json_equal(json_object_get(ro, "epoch"),
                                 json_object_get(json_array_get(list, k - 1), "epoch"));
}

json_t **report_readouts_expand(json_t *const *recs, size_t n, readouts_mode mode,
                                size_t *n_out)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *list = json_object_get(recs[i], "readouts");
        total += 1; /* a run without read-outs, or a failed one */
        for (size_t k = 0; k < json_array_size(list); k++) total += reads(list, k, mode);
    }
    json_t **out = calloc(total, sizeof *out);
    size_t o = 0;
    for (size_t i = 0; out && i < n; i++) {
        json_t *list = json_object_get(recs[i], "readouts");
        if (!strcmp(agg_status(recs[i]), "failed")) {
            out[o++] = json_incref(recs[i]);
            continue;
        }
        if (json_array_size(list) == 0) {
            if (!(out[o++] = read_out(recs[i], NULL))) goto oom;
            continue;
        }
        for (size_t k = 0; k < json_array_size(list); k++)
            if (reads(list, k, mode) && !(out[o++] = read_out(recs[i], json_array_get(list, k))))
                goto oom;
    }
    if (!out) return NULL;
    *n_out = o;
    return out;
oom:
    report_readouts_free(out, o);
    return NULL;
}

void report_readouts_free(json_t **recs, size_t n)
{
    for (size_t i = 0; recs && i < n; i++) json_decref(recs[i]);
    free(recs);
}
