/* shared_runs.c: which grid runs train the same model (shared_runs.h).
 *
 * Two runs train the same model when their configs are equal once epsilon is removed and
 * neither spends privacy: a non-private run's spec sets epsilon to infinity and nothing
 * else reads it (runner.c records metrics.epsilon as null for it). Only epsilon is
 * dropped: the privacy block also feeds metrics.delta and the accountant's name, which a
 * copy must not contradict, and grids vary epsilon, not delta, across a baseline.
 * Configs are compared as canonical JSON (sorted keys, compact), as run ids are made
 * (grid.h), without the metadata keys that ids leave out too.
 */
#include "harness/sweep/shared_runs.h"

#include <stdlib.h>
#include <string.h>

#include "harness/config/config.h"

/* The config as the group compares it, or NULL for a run that shares with none (a
 * private run) or on ENOMEM (*oom set). Caller frees. */
static char *training_key(const grid_run *run, const run_spec *spec, int *oom)
{
    if (spec->algo && spec->algo->private_) return NULL;
    json_t *j = cfg_to_json(run->config);
    if (!j) {
        *oom = 1;
        return NULL;
    }
    static const char *const ignored[] = {"epsilon", "experiment", "paper", "description"};
    for (size_t k = 0; k < sizeof ignored / sizeof ignored[0]; k++) json_object_del(j, ignored[k]);
    char *key = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (!key) *oom = 1;
    return key;
}

int shared_runs_group(const grid_run *runs, const run_spec *specs, size_t n, size_t **group,
                      size_t *n_shared, dp_err *err)
{
    size_t *g = malloc((n + 1) * sizeof *g);
    char **key = calloc(n + 1, sizeof *key);
    int oom = !g || !key;
    *n_shared = 0;
    for (size_t i = 0; i < n && !oom; i++) {
        g[i] = i;
        key[i] = training_key(&runs[i], &specs[i], &oom);
        /* the first earlier run with the same key; each group's first run is its own
         * group, so comparing with those alone suffices */
        for (size_t j = 0; key[i] && j < i; j++)
            if (g[j] == j && key[j] && !strcmp(key[i], key[j])) {
                g[i] = j;
                ++*n_shared;
                break;
            }
    }
    for (size_t i = 0; key && i < n; i++) free(key[i]);
    free(key);
    if (oom) {
        free(g);
        *group = NULL;
        return dp_err_set(err, DP_ENOMEM, "out of memory grouping runs that train alike");
    }
    *group = g;
    return 0;
}

json_t *shared_runs_copy(json_t *trained, const grid_run *run)
{
    json_t *from = json_object_get(trained, "same_run_as");
    json_t *c = json_deep_copy(trained), *cfg = cfg_to_json(run->config);
    if (!c || !cfg) {
        json_decref(c);
        json_decref(cfg);
        return NULL;
    }
    if (json_object_set_new(c, "same_run_as",
                            json_is_string(from) ? json_copy(from)
                                                 : json_copy(json_object_get(trained, "id"))) ||
        json_object_set_new(c, "id", json_string(run->id)) ||
        json_object_set_new(c, "index", json_integer((json_int_t)run->index)) ||
        json_object_set_new(c, "config", cfg)) {
        json_decref(c);
        return NULL;
    }
    return c;
}
