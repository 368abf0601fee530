/* runner.c: one run, from its validated spec to its record (see runner.h). */
#include "harness/sweep/runner.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nettle/sha2.h>

#include "algorithms/models/model.h"
#include "algorithms/privacy/accountant.h"
#include "algorithms/train_model.h"
#include "harness/drivers/driver.h"
#include "harness/store/record.h"
#include "harness/store/store.h"
#include "harness/sweep/optimality.h"
#include "harness/sweep/plan.h"
#include "harness/sweep/privacy_truth.h"
#include "harness/sweep/progress.h"

#define COUNT_READOUTS (SPEC_MAX_READOUTS * 2)
#include "harness/env/provenance.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* JSON number for a double: non-finite becomes null (JSON has no NaN). */
static json_t *curves_json(const dp_train_result *r)
{
    json_t *it = json_array(), *ep = json_array(), *trl = json_array(), *tel = json_array();
    json_t *acc = json_array(), *gn = json_array(), *rmse = json_array();
    for (size_t i = 0; i < r->n_curve; i++) {
        const dp_curve_point *p = &r->curve[i];
        json_array_append_new(it, json_integer(p->iteration));
        json_array_append_new(ep, record_number(p->epoch));
        json_array_append_new(trl, record_number(p->train_loss));
        json_array_append_new(tel, record_number(p->test_loss));
        json_array_append_new(acc, record_number(p->test_accuracy));
        json_array_append_new(gn, record_number(p->grad_norm));
        json_array_append_new(rmse, record_number(p->test_rmse));
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "iteration", it, "epoch", ep,
                     "train_loss", trl, "test_loss", tel, "test_accuracy", acc,
                     "test_rmse", rmse, "grad_norm", gn);
}

/* The record's readouts: per read-out of s (plan_readouts), where it was read and
 * what the model and the privacy were there, under the same names as the run's metrics,
 * so a report can take a read-out in place of the run's end (report_readouts.c). A
 * read-out the run did not reach (it diverged first) says so and has no metrics. */
static json_t *readouts_json(const run_spec *s, const dp_train_result *r)
{
    json_t *list = json_array();
    char acc[256];
    for (size_t i = 0; list && i < s->n_readouts; i++) {
        const spec_readout *ro = &s->readouts[i];
        long it = (long)ro->epoch * plan_steps_per_epoch(s);
        const dp_curve_point *p = NULL;
        for (size_t k = 0; k < r->n_curve && !p; k++)
            if (r->curve[k].iteration == it) p = &r->curve[k];
        json_t *e = json_pack("{s:i, s:I}", "epoch", ro->epoch, "iteration", (json_int_t)it);
        if (!e) break;
        if (!isnan(ro->epsilon_target))
            json_object_set_new(e, "epsilon_target", json_real(ro->epsilon_target));
        if (!p) {
            json_object_set_new(e, "reached", json_false());
            json_array_append_new(list, e);
            continue;
        }
        json_object_set_new(e, "test_accuracy", record_number(p->test_accuracy));
        json_object_set_new(e, "test_loss", record_number(p->test_loss));
        json_object_set_new(e, "test_rmse", record_number(p->test_rmse));
        json_object_set_new(e, "train_loss", record_number(p->train_loss));
        double spent = plan_epsilon_after(s, s->accountant_kind, it, acc, sizeof acc);
        json_object_set_new(e, "epsilon_spent", record_number(spent));
        for (size_t a = 0; a < s->n_also_report; a++) {
            char key[48];
            snprintf(key, sizeof key, "epsilon_%s", dp_accountant_name(s->also_report[a]));
            json_object_set_new(e, key, record_number(plan_epsilon_after(s, s->also_report[a], it, acc,
                                                          sizeof acc)));
        }
        /* The as-published estimate takes the largest gradient norm of the whole run, an
         * upper bound of the one up to this read-out. */
        if (plan_is_private(s) && s->train.clip_mode == DP_CLIP_BATCH_MEAN_PER_TENSOR)
            privacy_truth_as_published(s, it, spent, r->max_example_grad_norm, e);
        else if (plan_is_private(s))
            privacy_truth_first_order(s, it, spent, e);
        json_array_append_new(list, e);
    }
    return list;
}

/* The record of a run whose dataset's files were not found (dataset.required false):
 * failed, with the loader's message, which reports read as "data missing". */
static json_t *missing_data_record(const grid_run *run, const run_spec *s)
{
    char now[32];
    provenance_utc_now(now, sizeof now);
    json_t *prov = provenance_json();
    if (prov) {
        json_object_set_new(prov, "started", json_string(now));
        json_object_set_new(prov, "finished", json_string(now));
    }
    return record_new_failed(run->id, run->index, s->experiment, s->data_missing,
                             cfg_to_json(run->config), prov);
}

/* One run's training: its data, its model, what the trainer or driver returned. */
typedef struct trained {
    dp_dataset all, train, test;   /* synthetic data, generated per run */
    const dp_dataset *tr, *te;     /* the data trained and evaluated on */
    dp_linear model;
    dp_model deep;
    dp_train_result res;
    json_t *driver_metrics;        /* a driver's own metrics (driver.h) */
    dp_err err;
} trained;

static void trained_destroy(trained *t)
{
    json_decref(t->driver_metrics);
    dp_train_result_destroy(&t->res);
    dp_linear_destroy(&t->model);
    dp_model_destroy(&t->deep);
    dp_dataset_destroy(&t->test);
    dp_dataset_destroy(&t->train);
    dp_dataset_destroy(&t->all);
}

/* Real data were loaded and split once by the parent (data_cache.c); the worker reads
 * them in place. Synthetic data are generated here, per run (cheap, and seeded). */
static int load_data(const run_spec *s, trained *t)
{
    t->tr = &t->train;
    t->te = &t->test;
    if (s->bound) {
        t->tr = &s->bound->train;
        t->te = s->data.evaluate_on_validation ? &s->bound->validation : &s->bound->test;
        return 0;
    }
    int rc = dp_synthetic_make(&t->all, &s->synthetic, &t->err);
    if (rc == 0)
        rc = dp_dataset_split(&t->all, s->n_train, s->synthetic.seed, &t->train, &t->test,
                              &t->err);
    return rc;
}

/* A deep model, trained by the first-order loop or by its driver. */
static int train_deep(const grid_run *run, const run_spec *s, const dp_train_cfg *tc,
                      trained *t)
{
    /* Workspaces for up to 512 examples at a time; larger (Poisson) batches are processed
     * in pieces with identical sums. A driver's batch is not in s->train (0): 512. */
    size_t b = s->train.batch_size ? s->train.batch_size : 512;
    const dp_dataset *tr = t->tr, *te = t->te;
    int rc = spec_build_model(s, tr->n_classes, b < 512 ? b : 512, &t->deep, &t->err);
    if (rc) return rc;
    if (s->algo && s->algo->kind == SPEC_KIND_DRIVER) {
        const driver *drv = driver_find(s->algorithm);
        t->driver_metrics = json_object();
        if (!drv || !drv->run_deep || !t->driver_metrics)
            return dp_err_set(&t->err, DP_ECONFIG, "no deep-model driver for %s", s->algorithm);
        return drv->run_deep(run->config, s, tr, te, &t->deep, &t->res, t->driver_metrics,
                             &t->err);
    }
    return dp_train_model(&t->deep, tc, s->l2, tr->x, tr->y, tr->n, te->x, te->y, te->n,
                          &t->res, &t->err);
}

/* Train the run's model: a deep model, a driver's linear model, or a linear model
 * (regression or classification) by the first-order loop. */
static int train(const grid_run *run, const run_spec *s, trained *t)
{
    /* The trainer also evaluates at the read-outs' epochs (each once). */
    dp_train_cfg tc = s->train;
    int eval_epochs[COUNT_READOUTS];
    tc.n_eval_epochs = 0;
    for (size_t i = 0; i < s->n_readouts; i++)
        if (tc.n_eval_epochs == 0 || eval_epochs[tc.n_eval_epochs - 1] != s->readouts[i].epoch)
            eval_epochs[tc.n_eval_epochs++] = s->readouts[i].epoch;
    tc.eval_epochs = tc.n_eval_epochs ? eval_epochs : NULL;
    const dp_dataset *tr = t->tr, *te = t->te;
    int rc;
    if (s->deep) return train_deep(run, s, &tc, t);
    if (s->algo && s->algo->kind == SPEC_KIND_DRIVER) {
        const driver *drv = driver_find(s->algorithm);
        t->driver_metrics = json_object();
        if (!drv || !t->driver_metrics)
            return dp_err_set(&t->err, DP_ECONFIG, "no driver for %s", s->algorithm);
        return drv->run(run->config, s, tr, te, &t->model, &t->res, t->driver_metrics,
                        &t->err);
    }
    if (s->regression) {
        rc = dp_linear_init_regression(&t->model, s->loss, tr->d, s->huber_delta, s->l2,
                                       &t->err);
        return rc ? rc : dp_train_linear_reg(&t->model, &tc, tr->x, tr->t, tr->n, te->x, te->t,
                                             te->n, &t->res, &t->err);
    }
    rc = dp_linear_init(&t->model, s->loss, tr->d, tr->n_classes, s->l2, &t->err);
    return rc ? rc : dp_train_linear(&t->model, &tc, tr->x, tr->y, tr->n, te->x, te->y, te->n,
                                     &t->res, &t->err);
}

/* The record's metrics before the privacy truth and the optimality gap: the final point
 * (null when the run failed), the privacy spent under the run's accountant and each of
 * privacy.also_report, and the run's cost. */
static json_t *metrics_json(const run_spec *s, const trained *t, int rc, double eps_spent,
                            const char *accountant, double cpu, double wall)
{
    const dp_curve_point *f = &t->res.final;
    json_t *m = json_object();
    if (!m) return NULL;
    json_object_set_new(m, "test_accuracy", record_number(rc ? NAN : f->test_accuracy));
    json_object_set_new(m, "test_loss", record_number(rc ? NAN : f->test_loss));
    json_object_set_new(m, "test_rmse", record_number(rc ? NAN : f->test_rmse));
    json_object_set_new(m, "train_loss", record_number(rc ? NAN : f->train_loss));
    json_object_set_new(m, "grad_norm", record_number(rc ? NAN : f->grad_norm));
    json_object_set_new(m, "iterations", json_integer(t->res.iterations));
    json_object_set_new(m, "epochs", record_number(rc ? NAN : f->epoch));
    json_object_set_new(m, "epsilon",
                        record_number(s->algo && s->algo->private_ ? s->epsilon : INFINITY));
    json_object_set_new(m, "epsilon_spent", record_number(eps_spent));
    json_object_set_new(m, "delta", record_number(s->delta));
    json_object_set_new(m, "noise_multiplier", record_number(s->train.noise_multiplier));
    json_object_set_new(m, "noise_std", record_number(t->res.noise_std));
    json_object_set_new(m, "max_example_grad_norm", record_number(t->res.max_example_grad_norm));
    json_object_set_new(m, "accountant", json_string(accountant));
    for (size_t a = 0; a < s->n_also_report; a++) {
        char key[48], other[256];
        snprintf(key, sizeof key, "epsilon_%s", dp_accountant_name(s->also_report[a]));
        json_object_set_new(m, key, record_number(plan_epsilon_after(s, s->also_report[a],
                                                                     t->res.iterations, other,
                                                                     sizeof other)));
    }
    json_object_set_new(m, "cpu_seconds", json_real(cpu));
    json_object_set_new(m, "wall_seconds", json_real(wall));
    return m;
}

/* The relation is part of what a private run means: the record's config states it even
 * when the YAML left it to the default (the run id, a hash of the YAML's config, is
 * unchanged by this), and so do its metrics. */
static void state_neighbours(json_t *rec, json_t *m, const run_spec *s)
{
    const char *name = spec_neighbours_name(s->neighbours);
    json_t *cfg = json_object_get(rec, "config"), *pv = json_object_get(cfg, "privacy");
    if (json_is_object(cfg) && !pv) {
        pv = json_object();
        json_object_set_new(cfg, "privacy", pv);
    }
    if (json_is_object(pv) && !json_object_get(pv, "neighbours"))
        json_object_set_new(pv, "neighbours", json_string(name));
    if (!json_object_get(m, "neighbours")) json_object_set_new(m, "neighbours", json_string(name));
}

/* The labels t's model gives the public rows, written to path; their SHA-256 in sha. */
static int write_labels(const run_spec *s, trained *t, const char *path, char sha[65])
{
    const dp_dataset *pub = &s->bound->public_set;
    int *y = malloc((pub->n + 1) * sizeof *y);
    unsigned char *bytes = malloc(pub->n + 1);
    int rc = y && bytes ? 0 : dp_err_set(&t->err, DP_ENOMEM, "out of memory");
    if (rc == 0 && s->deep) dp_model_predict(&t->deep, pub->x, pub->n, y);
    else if (rc == 0 && (rc = dp_linear_predict(&t->model, pub->x, pub->n, y)))
        dp_err_set(&t->err, rc, "pate: a teacher must be a classifier");
    for (size_t i = 0; rc == 0 && i < pub->n; i++) bytes[i] = (unsigned char)y[i];
    if (rc == 0) rc = store_write_atomic(path, (const char *)bytes, pub->n, &t->err);
    if (rc == 0) {
        struct sha256_ctx ctx;
        uint8_t d[SHA256_DIGEST_SIZE];
        sha256_init(&ctx);
        sha256_update(&ctx, pub->n, bytes);
        sha256_digest(&ctx, sizeof d, d);
        for (size_t i = 0; i < sizeof d; i++) snprintf(sha + 2 * i, 3, "%02x", d[i]);
    }
    free(y);
    free(bytes);
    return rc;
}

json_t *runner_teacher(const grid_run *run, const run_spec *teacher, size_t count,
                       size_t index, const char *labels_path)
{
    double wall0 = progress_now();
    trained t;
    memset(&t, 0, sizeof t);
    dp_err_clear(&t.err);
    int rc = load_data(teacher, &t);
    if (rc == 0) rc = dp_dataset_part(&teacher->bound->train, count, index, &t.train, &t.err);
    if (rc == 0) {
        t.tr = &t.train;
        rc = train(run, teacher, &t);
    }
    char sha[65] = "";
    if (rc == 0) rc = write_labels(teacher, &t, labels_path, sha);
    json_t *rec = json_pack("{s:I, s:I, s:o, s:I, s:o, s:s}", "index", (json_int_t)index,
                            "rows", (json_int_t)t.train.n, "test_accuracy",
                            record_number(rc ? NAN : t.res.final.test_accuracy), "iterations",
                            (json_int_t)t.res.iterations, "wall_seconds",
                            record_number(progress_now() - wall0), "status",
                            rc ? RECORD_FAILED : RECORD_OK);
    if (rec && rc) json_object_set_new(rec, "message", json_string(t.err.msg));
    if (rec && rc == 0) json_object_set_new(rec, "labels_sha256", json_string(sha));
    trained_destroy(&t);
    return rec;
}

json_t *runner_execute(const grid_run *run, const run_spec *s)
{
    if (s->data_missing[0]) return missing_data_record(run, s);
    char started[32], finished[32];
    provenance_utc_now(started, sizeof started);
    double wall0 = progress_now(), cpu0 = cpu_seconds();
    trained t;
    memset(&t, 0, sizeof t);
    dp_err_clear(&t.err);
    int rc = load_data(s, &t);
    if (rc == 0) rc = train(run, s, &t);
    const char *status = rc ? RECORD_FAILED : t.res.diverged ? RECORD_DIVERGED : RECORD_OK;

    char accountant[256];
    double eps_spent = plan_epsilon_after(s, s->accountant_kind, t.res.iterations, accountant,
                                          sizeof accountant);
    double wall = progress_now() - wall0, cpu = cpu_seconds() - cpu0;
    provenance_utc_now(finished, sizeof finished);

    json_t *rec = record_new(run->id, run->index, s->experiment, status, rc ? t.err.msg : NULL,
                             cfg_to_json(run->config));
    json_t *prov = provenance_json();
    json_t *m = metrics_json(s, &t, rc, eps_spent, accountant, cpu, wall);
    if (!rec || !prov || !m) {
        json_decref(rec);
        rec = NULL;
        goto out;
    }
    if (s->secure_noise) { /* noise from getrandom: this run cannot be rerun bit for bit */
        json_object_set_new(rec, "secure_noise", json_true());
        json_object_set_new(rec, "reproducible", json_false());
    }
    /* Which data the run really used (mnist or its fallback), with file sums and every
     * preprocessing choice, defaults included. */
    if (s->bound_record) json_object_set_new(rec, "dataset", json_deep_copy(s->bound_record));
    /* A driver's own metrics (privacy spent by its theorem, optimality gap, ...) win. */
    if (t.driver_metrics && rc == 0) json_object_update(m, t.driver_metrics);
    if (rc == 0 && plan_is_private(s) && s->train.clip_mode == DP_CLIP_BATCH_MEAN_PER_TENSOR)
        privacy_truth_as_published(s, t.res.iterations, eps_spent, t.res.max_example_grad_norm,
                                   m);
    else if (rc == 0 && plan_is_private(s))
        privacy_truth_first_order(s, t.res.iterations, eps_spent, m);
    if (s->algo && s->algo->private_) state_neighbours(rec, m, s);
    /* After the timings: the gap is a measurement of the run, not part of its cost. */
    if (rc == 0 && s->optimality_gap) {
        if (s->deep)
            optimality_record_deep(s, &t.deep, t.tr, m);
        else
            optimality_record(s, &t.model, t.tr, m);
    }
    json_object_set_new(rec, "metrics", m);
    m = NULL;
    if (s->n_readouts && rc == 0) json_object_set_new(rec, "readouts", readouts_json(s, &t.res));
    json_object_set_new(rec, "curves", rc ? json_object() : curves_json(&t.res));
    json_object_set_new(prov, "started", json_string(started));
    json_object_set_new(prov, "finished", json_string(finished));
    json_object_set_new(rec, "provenance", prov);
    prov = NULL;
out:
    json_decref(m);
    json_decref(prov);
    trained_destroy(&t);
    return rec;
}
