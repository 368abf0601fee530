/* pate_teachers.c: training PATE's teachers once per ensemble (pate_teachers.h). */
#include "harness/sweep/pate_teachers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "harness/env/blas_env.h"
#include "harness/store/store.h"
#include "harness/sweep/plan.h"
#include "harness/sweep/pool.h"
#include "harness/sweep/runner.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The ensemble's key: what its teachers depend on, hashed. */
static int ensemble_key(const cfg_node *root, char key[17], dp_err *err)
{
    const cfg_node *t = cfg_get(root, "teachers");
    const cfg_node *model = cfg_get(t, "model") ? cfg_get(t, "model") : cfg_get(root, "model");
    json_t *j = json_pack("{s:o, s:o, s:o}", "dataset", cfg_to_json(cfg_get(root, "dataset")),
                          "teachers", cfg_to_json(t), "model", cfg_to_json(model));
    char *text = j ? store_json_dumps(j, 1) : NULL;
    json_decref(j);
    if (!text) return dp_err_set(err, DP_ENOMEM, "out of memory");
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, strlen(text), (const uint8_t *)text);
    sha256_digest(&ctx, sizeof d, d);
    free(text);
    hex(d, 8, key);
    return 0;
}

/* One ensemble's teachers as a sweep: their planned specs and where they write. */
typedef struct teacher_sweep {
    size_t count;
    run_spec *specs;
    grid_run *runs;
    char folder[PATH_MAX];
    int log_fd;                /* teachers.jsonl */
    char log_path[PATH_MAX + 16];
    size_t done, todo;
    FILE *progress;
} teacher_sweep;

static void label_path(const teacher_sweep *ts, size_t i, char *out, size_t size)
{
    snprintf(out, size, "%s/%zu.labels", ts->folder, i);
}

static json_t *teacher_job(size_t job, void *ctx)
{
    teacher_sweep *ts = ctx;
    char path[PATH_MAX + 32];
    label_path(ts, job, path, sizeof path);
    return runner_teacher(&ts->runs[job], &ts->specs[job], ts->count, job, path);
}

static int teacher_done(size_t job, json_t *rec, const char *failure, void *ctx, dp_err *err)
{
    teacher_sweep *ts = ctx;
    if (!rec)
        return dp_err_set(err, DP_EINVAL, "pate: teacher %zu of %s stopped without a result "
                          "(%s)", job, ts->folder, failure ? failure : "no record");
    const char *status = json_string_value(json_object_get(rec, "status"));
    if (!status || strcmp(status, "ok"))
        return dp_err_set(err, DP_EINVAL, "pate: teacher %zu of %s failed: %s", job, ts->folder,
                          json_string_value(json_object_get(rec, "message")) ?: "no message");
    int rc = store_append_record(ts->log_fd, ts->log_path, rec, err);
    ts->done++;
    if (rc == 0 && ts->progress && (ts->done % 25 == 0 || ts->done == ts->todo))
        fprintf(ts->progress, "dperm: pate teachers %s: %zu of %zu trained\n", ts->folder,
                ts->done, ts->todo);
    return rc;
}

/* Plan the `count` teachers of root into ts (their data bound through `data`). */
static int plan_teachers(const cfg_node *root, const run_spec *pate, data_cache *data,
                         teacher_sweep *ts, dp_err *err)
{
    const cfg_node *tb = cfg_get(root, "teachers");
    size_t n_train = pate->bound->train.n;
    if (ts->count > n_train)
        return cfg_error(err, cfg_get(tb, "count"), 0, "teachers.count %zu leaves a part "
                         "empty: the training set has %zu rows; use at most %zu", ts->count,
                         n_train, n_train);
    ts->specs = calloc(ts->count, sizeof *ts->specs);
    ts->runs = calloc(ts->count, sizeof *ts->runs);
    if (!ts->specs || !ts->runs) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; i < ts->count; i++) {
        int rc = spec_teacher_config(root, i, &ts->runs[i].config, err);
        if (rc == 0) rc = plan_run(ts->runs[i].config, data, ts->specs, i, &ts->specs[i], err);
        if (rc) return rc;
        ts->runs[i].index = i;
        snprintf(ts->runs[i].id, sizeof ts->runs[i].id, "teacher%zu", i % 1000000000);
    }
    size_t smallest = n_train / ts->count;
    if (ts->specs[0].train.batch_size > smallest)
        return cfg_error(err, cfg_get(cfg_get(tb, "train"), "batch_size"), 0,
                         "teachers.train.batch_size %zu exceeds the %zu rows of a teacher's "
                         "part (%zu training rows / %zu teachers)",
                         ts->specs[0].train.batch_size, smallest, n_train, ts->count);
    return 0;
}

static void sweep_destroy(teacher_sweep *ts)
{
    for (size_t i = 0; ts->runs && i < ts->count; i++) cfg_free(ts->runs[i].config);
    free(ts->runs);
    free(ts->specs);
    if (ts->log_fd >= 0) close(ts->log_fd);
}

/* Train the teachers whose label files are missing. */
static int train_missing(teacher_sweep *ts, size_t n_public, int jobs, dp_err *err)
{
    size_t *todo = calloc(ts->count, sizeof *todo);
    if (!todo) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; i < ts->count; i++) {
        char path[PATH_MAX + 32];
        struct stat st;
        label_path(ts, i, path, sizeof path);
        if (stat(path, &st) != 0 || (size_t)st.st_size != n_public) todo[ts->todo++] = i;
    }
    int rc = 0;
    char work[PATH_MAX + 16];
    snprintf(work, sizeof work, "%s/.work", ts->folder);
    if (ts->todo && (rc = store_mkdirs(work, err)) == 0) {
        snprintf(ts->log_path, sizeof ts->log_path, "%s/teachers.jsonl", ts->folder);
        ts->log_fd = open(ts->log_path, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (ts->log_fd < 0)
            rc = dp_err_set(err, DP_EIO, "cannot open %s: %s", ts->log_path, strerror(errno));
        if (ts->progress && rc == 0)
            fprintf(ts->progress, "dperm: pate teachers %s: training %zu of %zu\n", ts->folder,
                    ts->todo, ts->count);
        int workers = jobs < (int)ts->todo ? jobs : (int)ts->todo;
        pool_opts po = {.workers = workers > 0 ? workers : 1,
                        .threads = blas_env_threads_per_worker(workers > 0 ? workers : 1),
                        .tmpdir = work};
        if (rc == 0) rc = pool_run(todo, ts->todo, &po, teacher_job, teacher_done, ts, err);
        store_remove_stale_temps(work);
        rmdir(work);
    }
    free(todo);
    return rc;
}

/* Read the label files into e->votes and hash them. */
static int read_votes(const teacher_sweep *ts, size_t n_public, int classes, pate_ensemble *e,
                      char sha[65], dp_err *err)
{
    int rc = dp_pate_votes_alloc(&e->votes, ts->count, n_public, classes, err);
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    for (size_t i = 0; rc == 0 && i < ts->count; i++) {
        char path[PATH_MAX + 32], *text = NULL;
        size_t len = 0;
        label_path(ts, i, path, sizeof path);
        if ((rc = store_read_file(path, &text, &len, err))) break;
        if (len != n_public)
            rc = dp_err_set(err, DP_EIO, "%s: %zu labels, expected %zu; delete it and run "
                            "again", path, len, n_public);
        for (size_t j = 0; rc == 0 && j < len; j++)
            if ((unsigned char)text[j] >= (unsigned)classes)
                rc = dp_err_set(err, DP_EIO, "%s: label %u of example %zu is not a class; "
                                "delete it and run again", path, (unsigned char)text[j], j);
        if (rc == 0) {
            memcpy(e->votes.labels + i * n_public, text, n_public);
            sha256_update(&ctx, n_public, (const uint8_t *)text);
        }
        free(text);
    }
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof d, d);
    hex(d, sizeof d, sha);
    return rc;
}

/* The ensemble of pate run `pate` (config root): trained where missing, votes read. */
static int prepare_ensemble(const cfg_node *root, const run_spec *pate, data_cache *data,
                            const char *dir, int jobs, FILE *progress, pate_ensemble *e,
                            char sha[65], dp_err *err)
{
    teacher_sweep ts = {.log_fd = -1, .progress = progress};
    int rc = spec_read_teachers(root, &ts.count, NULL, err);
    if (rc == 0) rc = plan_teachers(root, pate, data, &ts, err);
    if (rc == 0) {
        snprintf(ts.folder, sizeof ts.folder, "%s/teachers/%s", dir, e->key);
        rc = store_mkdirs(ts.folder, err);
    }
    size_t n_public = pate->bound->public_set.n;
    if (rc == 0) rc = train_missing(&ts, n_public, jobs, err);
    if (rc == 0) rc = read_votes(&ts, n_public, pate->bound->n_classes, e, sha, err);
    sweep_destroy(&ts);
    return rc;
}

int pate_teachers_prepare(run_spec *specs, const grid_run *runs, const size_t *todo,
                          size_t n_todo, data_cache *data, const char *dir, int jobs,
                          FILE *progress, pate_teachers *t, dp_err *err)
{
    memset(t, 0, sizeof *t);
    size_t n = n_todo;
    for (size_t j = 0; j < n_todo; j++) {
        size_t i = todo[j];
        run_spec *s = &specs[i];
        if (strcmp(s->algorithm, "pate") || s->data_missing[0] || !s->bound) continue;
        char key[17];
        int rc = ensemble_key(runs[i].config, key, err);
        if (rc) return rc;
        size_t k = 0;
        while (k < t->n && strcmp(t->e[k].key, key)) k++;
        if (k == t->n) {
            if (!t->e && !(t->e = calloc(n, sizeof *t->e))) /* <= one per run: no realloc */
                return dp_err_set(err, DP_ENOMEM, "out of memory");
            pate_ensemble *e = &t->e[t->n++];
            memcpy(e->key, key, sizeof key);
            rc = prepare_ensemble(runs[i].config, s, data, dir, jobs, progress, e, e->sha256,
                                  err);
            if (rc) return rc;
        }
        s->teacher_votes = &t->e[k].votes;
        snprintf(s->teacher_folder, sizeof s->teacher_folder, "teachers/%s", key);
        memcpy(s->teacher_votes_sha256, t->e[k].sha256, sizeof s->teacher_votes_sha256);
    }
    return 0;
}

int pate_teachers_check(const run_spec *specs, const grid_run *runs, size_t n,
                        data_cache *data, dp_err *err)
{
    char seen[64][17];
    size_t n_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const run_spec *s = &specs[i];
        if (strcmp(s->algorithm, "pate") || s->data_missing[0] || !s->bound) continue;
        char key[17];
        int rc = ensemble_key(runs[i].config, key, err);
        size_t k = 0;
        while (rc == 0 && k < n_seen && strcmp(seen[k], key)) k++;
        if (rc || k < n_seen) { /* checked already (or a hashing error) */
            if (rc) return rc;
            continue;
        }
        teacher_sweep ts = {.log_fd = -1};
        rc = spec_read_teachers(runs[i].config, &ts.count, NULL, err);
        if (rc == 0) rc = plan_teachers(runs[i].config, s, data, &ts, err);
        sweep_destroy(&ts);
        if (rc) return rc;
        if (n_seen < 64) memcpy(seen[n_seen++], key, sizeof key);
    }
    return 0;
}

void pate_teachers_destroy(pate_teachers *t)
{
    for (size_t i = 0; i < t->n; i++) dp_pate_votes_destroy(&t->e[i].votes);
    free(t->e);
    memset(t, 0, sizeof *t);
}
