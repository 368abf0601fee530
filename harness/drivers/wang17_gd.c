/* wang17_gd.c: the wang17_gd driver (Wang, Ye & Xu 2017, §6 DP-GD;
 * algorithms/wang17_gd.h).
 *
 *   algorithm.iterations     T GD steps, overriding the theorem's (recorded as a warning);
 *                            required when model.l2 = 0 (no PL constant) and on deep models
 *   algorithm.step_size      eta, overriding the theorem's 1/beta (warning); required on
 *                            deep models (no smoothness constant)
 *   algorithm.feature_bound  B: every training row has ||x|| <= B (checked), default 1
 *   algorithm.clip           deep models only, required: C, the bound G every clipped
 *                            per-example gradient keeps
 *   algorithm.noise          on (default) | off: DEBUG ONLY, no noise: plain gd; the record
 *                            says noise "off", epsilon_spent null
 *   train.eval_every         curve points every this many GD steps (default 1)
 *   train.*                  other train keys are accepted (a grid may share its train
 *                            block with first-order algorithms) and ignored, with a warning
 * The noise is calibrated to epsilon and privacy.delta exactly (replace-one neighbours);
 * model.type squared is refused (no Lipschitz bound), the other linear losses and the deep
 * models run.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "algorithms/wang17_gd.h"
#include "harness/drivers/driver_common.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

static int parse(const cfg_node *root, const run_spec *s, dp_wang17_cfg *c, double *clip,
                 dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    long eval_every;
    int rc;
    memset(c, 0, sizeof *c);
    if ((rc = cfg_read_int(algo, "algorithm", "iterations", 0, 0, 1, INT_MAX, &c->iterations,
                           err)) ||
        (rc = cfg_read_number(algo, "algorithm", "step_size", 0, 0.0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, &c->step,
                               err)) ||
        (rc = drv_read_feature_bound(algo, &c->feature_bound, err)) ||
        (rc = drv_read_clip(algo, s, clip, err)) ||
        (rc = drv_read_noise(algo, &c->noise, err)) ||
        (rc = drv_read_train(root, &eval_every, err)))
        return rc;
    c->eps = s->epsilon;
    c->delta = s->delta;
    c->eval_every = (int)eval_every;
    c->seed = s->seed;
    c->secure_noise = s->secure_noise;
    return 0;
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    dp_wang17_cfg c;
    dp_wang17_plan plan;
    dp_linear shape;
    double clip;
    int rc = parse(root, out, &c, &clip, err);
    if (rc) return rc;
    out->train.batch_size = 0; /* the runner reports the driver's own iterations */
    out->train.epochs = c.iterations > 0 ? (int)c.iterations : 1;
    out->train.eval_every = c.eval_every;
    if (!out->deep && out->loss == DP_LOSS_SQUARED)
        return cfg_error(err, cfg_get(cfg_get(root, "model"), "type"), 0,
                         "wang17_gd calibrates its noise to a bound G on every example's "
                         "gradient, which the squared loss does not have: use model.type "
                         "huber (or logistic, softmax)");
    if (out->deep && (c.iterations == 0 || c.step == 0.0))
        return cfg_error(err, algo, 1, "wang17_gd on model.type %s needs algorithm.iterations "
                         "and algorithm.step_size: the theorem's T and 1/beta need a linear "
                         "loss's smoothness and strong convexity", out->model_name);
    if (!out->deep && c.iterations == 0 && !(out->l2 > 0.0))
        return cfg_error(err, algo, 1, "wang17_gd with model.l2 = 0 needs algorithm.iterations: "
                         "the theorem's T is for a strongly convex (PL) objective, mu = "
                         "model.l2 > 0");
    /* Synthetic data: the plan is known now, so a bad value stops the sweep. */
    if (out->n_train == 0 || !(out->deep || drv_shape(out, &shape))) return 0;
    if (out->deep ? dp_wang17_make_plan_model(out->l2, clip, &c, out->n_train, &plan, err)
                  : dp_wang17_make_plan(&shape, &c, out->n_train, &plan, err))
        return drv_config_error(err, algo, "wang17_gd");
    out->train.epochs = (int)plan.T;
    return 0;
}

/* The record of a run on n training rows: the exact privacy of plan p, its constants. */
static void record(const cfg_node *root, const dp_wang17_cfg *c, const dp_wang17_plan *p,
                   size_t n, int deep, const dp_train_result *res, json_t *metrics)
{
    drv_note_ignored_train(root, metrics);
    drv_privacy_metrics(metrics, c->eps, c->delta,
                        "wang17_gd: Wang, Ye & Xu 2017 §6 DP-GD, sigma = sqrt(T) x the analytic "
                        "Gaussian sigma (Balle & Wang 2018) for sensitivity 2G/n, replace-one");
    if (!c->noise)
        drv_noise_off_metrics(metrics);
    else
        drv_privacy_truth(metrics, c->eps, p->eps_tight,
                          "gaussian_composition: T Gaussians of std sigma on sensitivity 2G/n, "
                          "exact (Balle & Wang 2018)",
                          NULL);
    json_object_set_new(metrics, "neighbours", json_string("replace_one"));
    json_object_set_new(metrics, "theorem",
                        json_string("Wang, Ye & Xu 2017 §6 (DP-GD), Thm 6.2"));
    drv_num(metrics, "noise_std", res->noise_std);
    drv_num(metrics, "noise_sigma", p->sigma);
    /* DP-SGD's convention: the std on the sum of the n clipped gradients over the clip */
    drv_num(metrics, "noise_multiplier", p->sigma * (double)n / p->G);
    drv_num(metrics, "c_effective", p->c_effective);
    drv_num(metrics, "sensitivity", p->sens);
    drv_num(metrics, "lipschitz", p->G);
    drv_num(metrics, "smoothness", p->beta);
    drv_num(metrics, "strong_convexity", p->mu);
    drv_num(metrics, deep ? "clip" : "feature_bound", deep ? p->G : c->feature_bound);
    drv_num(metrics, "step_size", p->eta);
    json_object_set_new(metrics, "gd_iterations", json_integer(p->T));
    json_object_set_new(metrics, "theorem_iterations",
                        p->T_theorem > 0 ? json_integer(p->T_theorem) : json_null());
    json_object_set_new(metrics, "iterations_from_theorem", json_boolean(p->T_from_theorem));
    json_object_set_new(metrics, "step_from_theorem", json_boolean(p->eta_from_theorem));
    if (!p->T_from_theorem) {
        char buf[256];
        if (p->T_theorem > 0)
            snprintf(buf, sizeof buf, "algorithm.iterations overrides the theorem's T = %ld "
                     "(utility bound not the paper's; privacy holds: sigma is calibrated to "
                     "the T run)", p->T_theorem);
        else
            snprintf(buf, sizeof buf, "algorithm.iterations sets T: the theorem has none "
                     "here (no PL constant); sigma is calibrated to the T run");
        drv_warn(metrics, buf);
    }
    if (!p->eta_from_theorem)
        drv_warn(metrics, "algorithm.step_size overrides the theorem's 1/beta (utility bound "
                          "not the paper's; privacy does not depend on the step)");
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    dp_wang17_cfg c;
    dp_wang17_plan p;
    dp_cvx_set a, b;
    double clip;
    int rc;
    if ((rc = parse(root, s, &c, &clip, err)) || (rc = drv_init_model(s, tr, m, err)))
        return rc;
    drv_sets(tr, te, &a, &b);
    if ((rc = dp_wang17_train(m, &c, &a, &b, &p, res, err))) return rc;
    record(root, &c, &p, tr->n, 0, res, metrics);
    return 0;
}

static int run_deep(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
                    const dp_dataset *te, dp_model *m, dp_train_result *res, json_t *metrics,
                    dp_err *err)
{
    dp_wang17_cfg c;
    dp_wang17_plan p;
    double clip;
    int rc;
    if ((rc = parse(root, s, &c, &clip, err)) ||
        (rc = dp_wang17_train_model(m, &c, s->l2, clip, tr->x, tr->y, tr->n, te->x, te->y,
                                    te->n, &p, res, err)))
        return rc;
    record(root, &c, &p, tr->n, 1, res, metrics);
    return 0;
}

const driver driver_wang17_gd = {"wang17_gd", check, run, run_deep};
