/* optimality.c: F(w*) once per distinct problem, in the parent, and the gap per run
 * (optimality.h).
 *
 * Why in the parent rather than a cache file: the parent already holds every validated
 * run_spec and the real data (data_cache.c), the workers are forked from it and so read
 * f_star from their spec for free, and nothing has to be written, locked or
 * invalidated. The cost is that `--resume` solves again for every run (one Newton solve
 * per distinct problem, seconds at most on the datasets here), and that the solves run
 * one after another before the workers start.
 *
 * Two specs are the same problem when their training data are the same (the same bound
 * real data set; or equal synthetic parameters and training size, which fix the rows)
 * and their loss, l2 and Huber delta are equal.
 */
#include "optimality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../algorithms/erm_exact.h"
#include "runner.h"

int optimality_read(const cfg_node *root, run_spec *out, dp_err *err)
{
    const cfg_node *n = cfg_get(root, "optimality_gap");
    out->optimality_gap = 0;
    out->f_star = NAN;
    if (!n) return 0;
    int rc = cfg_as_bool(n, "optimality_gap", &out->optimality_gap, err);
    if (rc) return rc;
    if (out->optimality_gap && out->deep)
        return cfg_error(err, n, 1,
                         "optimality_gap needs F(w*), the exact minimum of a convex "
                         "objective; model.type %s is a deep (non-convex) model: use a "
                         "linear model (logistic, softmax, squared, huber) or remove it",
                         out->model_name);
    return 0;
}

static int same_problem(const run_spec *a, const run_spec *b)
{
    if (a->loss != b->loss || a->l2 != b->l2 || a->huber_delta != b->huber_delta ||
        a->real != b->real)
        return 0;
    if (a->real) return a->bound == b->bound;
    const dp_synthetic_params *p = &a->synthetic, *q = &b->synthetic;
    return p->n == q->n && p->d == q->d && p->n_classes == q->n_classes &&
           p->margin == q->margin && p->label_noise == q->label_noise && p->seed == q->seed &&
           runner_train_size(a) == runner_train_size(b);
}

/* F(w*) for spec s. */
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
            rc = dp_dataset_split(&all, runner_train_size(s), s->synthetic.seed, &train,
                                  &test, err);
    }
    if (rc == 0)
        rc = s->regression
                 ? dp_linear_init_regression(&m, s->loss, tr->d, s->huber_delta, s->l2, err)
                 : dp_linear_init(&m, s->loss, tr->d, tr->n_classes, s->l2, err);
    if (rc == 0) {
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
                             "optimality_gap: F(w*) for %s with model.type %s, l2 %g: %s",
                             s->dataset, s->model_name, s->l2, msg);
        }
    }
    return 0;
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void optimality_record(const run_spec *s, const dp_linear *m, const dp_dataset *tr,
                       json_t *metrics)
{
    double f = NAN;
    if (m->w) {
        dp_erm_data D = {tr->x, tr->y, tr->t, tr->n};
        if (dp_erm_objective(m, &D, NULL, &f, NULL, NULL) != 0) f = NAN;
    }
    json_object_set_new(metrics, "f_star", num(s->f_star));
    json_object_set_new(metrics, "optimality_gap", num(f - s->f_star));
}
