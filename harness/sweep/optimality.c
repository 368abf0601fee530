/* optimality.c: the reference value f_star once per distinct
 * problem, in the parent, and the gap of a linear run (optimality.h). The deep model's
 * reference training and gap are in optimality_deep.c.
 *
 * Why in the parent rather than a cache file: the parent already holds every validated
 * run_spec and the real data (data_cache.c), the workers are forked from it and so read
 * f_star from their spec for free, and nothing has to be written, locked or
 * invalidated. The cost is that `--resume` solves again for every run (one Newton solve
 * per distinct linear problem, seconds at most on the datasets here; a reference training
 * per distinct deep problem), and that the solves run one after another before the
 * workers start.
 *
 * Two specs are the same problem when their training data are the same (the same bound
 * real data set; or equal synthetic parameters and training size, which fix the rows)
 * and their loss, l2 and Huber delta are equal; for deep models also their model (type,
 * hidden sizes, activation, layer list, input shape) and reference epochs.
 * */
#include "harness/store/record.h"
#include "harness/sweep/optimality.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/erm_exact.h"
#include "harness/sweep/runner.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

/* The same deep model: type, hidden sizes, activation, layer list, input shape. */
static int same_model(const run_spec *a, const run_spec *b)
{
    if (strcmp(a->model_name, b->model_name) != 0 || strcmp(a->activation, b->activation) != 0 ||
        a->n_hidden != b->n_hidden || a->n_layers != b->n_layers || a->in_c != b->in_c ||
        a->in_h != b->in_h || a->in_w != b->in_w)
        return 0;
    for (size_t i = 0; i < a->n_hidden; i++)
        if (a->hidden[i] != b->hidden[i]) return 0;
    for (size_t i = 0; i < a->n_layers; i++) {
        const dp_layer_spec *p = &a->layers[i], *q = &b->layers[i];
        if (p->kind != q->kind || p->units != q->units || p->kernel != q->kernel ||
            p->stride != q->stride || p->padding != q->padding || p->act.kind != q->act.kind ||
            p->act.s != q->act.s || p->act.t != q->act.t || p->act.o != q->act.o)
            return 0;
    }
    return 1;
}

static int same_problem(const run_spec *a, const run_spec *b)
{
    if (a->loss != b->loss || a->l2 != b->l2 || a->huber_delta != b->huber_delta ||
        a->real != b->real || a->deep != b->deep)
        return 0;
    if (a->deep && (a->optimality_gap != b->optimality_gap || !same_model(a, b))) return 0;
    if (a->real) return a->bound == b->bound;
    const dp_synthetic_params *p = &a->synthetic, *q = &b->synthetic;
    return p->n == q->n && p->d == q->d && p->n_classes == q->n_classes &&
           p->margin == q->margin && p->label_noise == q->label_noise && p->seed == q->seed &&
           a->n_train == b->n_train;
}

/* f_star for spec s: F(w*) of a linear model, F_ref of a deep one. */
static int solve(const run_spec *s, double *f_star, dp_err *err)
{
    dp_dataset all = {0}, train = {0}, test = {0};
    dp_linear m = {0};
    const dp_dataset *tr = &train;
    int rc = 0;
    if (s->bound) {
        tr = &s->bound->train;
    } else {
        rc = dp_synthetic_make(&all, &s->synthetic, err);
        if (rc == 0)
            rc = dp_dataset_split(&all, s->n_train, s->synthetic.seed, &train,
                                  &test, err);
    }
    if (rc == 0 && s->deep)
        rc = optimality_deep_reference(s, tr, f_star, err);
    else if (rc == 0)
        rc = s->regression
                 ? dp_linear_init_regression(&m, s->loss, tr->d, s->huber_delta, s->l2, err)
                 : dp_linear_init(&m, s->loss, tr->d, tr->n_classes, s->l2, err);
    if (rc == 0 && !s->deep) {
        dp_erm_data D = {tr->x, tr->y, tr->t, tr->n};
        dp_erm_result r;
        rc = dp_erm_solve(&m, &D, NULL, 0, 0, &r, err);
        if (rc == 0) *f_star = r.f;
    }
    dp_linear_destroy(&m);
    dp_dataset_destroy(&test);
    dp_dataset_destroy(&train);
    dp_dataset_destroy(&all);
    return rc;
}

int optimality_prepare(run_spec *specs, const grid_run *runs, size_t n, dp_err *err)
{
    for (size_t i = 0; i < n; i++) {
        run_spec *s = &specs[i];
        /* a run whose dataset is missing (dataset.required false) is recorded as failed
         * without training: there is no problem to solve */
        if (!s->optimality_gap || s->data_missing[0]) continue;
        size_t j = 0;
        while (j < i && !(specs[j].optimality_gap && same_problem(&specs[j], s))) j++;
        if (j < i) {
            s->f_star = specs[j].f_star;
            continue;
        }
        int rc = solve(s, &s->f_star, err);
        if (rc) {
            char msg[DP_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return cfg_error(err, cfg_get(runs[i].config, "optimality_gap"), 1,
                             "optimality_gap: %s for %s with model.type %s, l2 %g: %s",
                             s->deep ? "F_ref (the non-private reference training)" : "F(w*)",
                             s->dataset, s->model_name, s->l2, msg);
        }
    }
    return 0;
}

void optimality_record(const run_spec *s, const dp_linear *m, const dp_dataset *tr,
                       json_t *metrics)
{
    double f = NAN;
    if (m->w) {
        dp_erm_data D = {tr->x, tr->y, tr->t, tr->n};
        if (dp_erm_objective(m, &D, NULL, &f, NULL, NULL) != 0) f = NAN;
    }
    json_object_set_new(metrics, "f_star", record_number(s->f_star));
    json_object_set_new(metrics, "optimality_gap", record_number(f - s->f_star));
    json_object_set_new(metrics, "f_star_method", json_string("erm_exact"));
}
