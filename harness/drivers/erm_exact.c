/* erm_exact.c: the erm_exact driver (algorithms/erm_exact.h): the non-private exact
 * minimizer of the run's regularized training objective F(w) = (1/n) sum_i loss_i(w) +
 * mu/2 ||w||^2 (Zhang17 §5 and InputPert §5 measure optimality gaps against it), for
 * every linear model (logistic, softmax, squared, Huber).
 *
 *   algorithm   name only
 *   train       ignored when present (nothing iterates over the data; one evaluation
 *               point, the minimizer), so one grid can compare erm_exact with first-order
 *               algorithms over a shared train block, as gd ignores train.batch_size
 * Records f_star = F(w*) (its train_loss too), grad_norm (<= 1e-10 by contract) and the
 * Newton iterations (iterations, newton_iterations).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/convex_common.h"
#include "algorithms/erm_exact.h"
#include "harness/drivers/driver_common.h"
#include "harness/drivers/erm_exact.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

int drv_erm_finish(const dp_linear *m, const dp_dataset *tr, const dp_dataset *te,
                   long iterations, double noise_std, dp_train_result *res, dp_err *err)
{
    dp_cvx_set a, b;
    drv_sets(tr, te, &a, &b);
    memset(res, 0, sizeof *res);
    dp_curve_point pt;
    memset(&pt, 0, sizeof pt);
    int rc = dp_cvx_evaluate(m, &a, &b, &pt, err);
    if (rc) return rc;
    pt.iteration = iterations;
    pt.epoch = NAN; /* no passes over the data in the SGD sense */
    res->curve = malloc(sizeof *res->curve);
    if (!res->curve) return dp_err_set(err, DP_ENOMEM, "out of memory");
    res->curve[0] = pt;
    res->n_curve = 1;
    res->final = pt;
    res->iterations = iterations;
    res->noise_std = noise_std;
    res->diverged = !dp_all_finite(m->w, m->n_params);
    return 0;
}

int drv_erm_check_train(const cfg_node *root, run_spec *out, dp_err *err)
{
    const cfg_node *train = cfg_get(root, "train");
    int rc = train ? cfg_expect_map(train, "train", err) : 0;
    if (rc) return rc;
    out->train.batch_size = 0; /* the runner reports the driver's own iterations */
    out->train.epochs = 1;
    out->train.eval_every = 1;
    return 0;
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    return drv_erm_check_train(root, out, err);
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    (void)root;
    dp_erm_result r;
    int rc;
    if ((rc = drv_init_model(s, tr, m, err))) return rc;
    dp_erm_data D = {tr->x, tr->y, tr->t, tr->n};
    if ((rc = dp_erm_solve(m, &D, NULL, 0, 0, &r, err)) ||
        (rc = drv_erm_finish(m, tr, te, r.iterations, 0.0, res, err)))
        return rc;
    drv_num(metrics, "f_star", r.f);
    drv_num(metrics, "grad_norm", r.grad_norm);
    json_object_set_new(metrics, "newton_iterations", json_integer(r.iterations));
    json_object_set_new(metrics, "accountant", json_string("none (non-private)"));
    return 0;
}

const driver driver_erm_exact = {"erm_exact", check, run, NULL};
