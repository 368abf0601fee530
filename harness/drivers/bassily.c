/* bassily.c: the dp_sgd_bassily driver (Bassily et al. 2014 / Lecture15 Alg. 3,
 * Lemma 15.5, mini-batch as in Zhang17 §4; algorithms/bassily.h).
 *
 *   algorithm.batch_size     b, default 50 (Zhang17's baseline; 1 is Alg. 3 itself)
 *   algorithm.clip           deep models only, required: C, the Lipschitz bound L that
 *                            clipping every per-example gradient enforces (a linear
 *                            model's L comes from its loss and feature_bound)
 *   algorithm.feature_bound  B: every training row has ||x|| <= B (checked), default 1
 *   algorithm.iterations     T, overriding the lecture's (n/b)^2 (recorded as a warning)
 *   algorithm.norm_bound     ||C|| of Lemma 15.6's step ||C|| / (G sqrt t); required when
 *                            model.l2 = 0 (model.l2 > 0 steps 1/(mu t), Lemma 15.7)
 *   algorithm.step_size      a of eta_t = a/sqrt(t) or a/t, overriding the lemma's (warning)
 *   algorithm.noise          on (default) | off: DEBUG ONLY, no noise: the non-private
 *                            counterpart; the record says noise "off", epsilon_spent null
 *   train.eval_every         curve points every this many epochs (default 1)
 *   train.*                  other train keys are accepted (a grid may share its train
 *                            block with first-order algorithms) and ignored, with a warning
 * The noise is calibrated to epsilon and privacy.delta by Lemma 15.5; epsilon must be < 1.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "algorithms/bassily.h"
#include "algorithms/privacy/pld.h"
#include "harness/drivers/driver_common.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

static int parse(const cfg_node *root, const run_spec *s, dp_bassily_cfg *c, double *clip,
                 dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    long b, T, eval_every;
    int rc;
    memset(c, 0, sizeof *c);
    if ((rc = drv_read_feature_bound(algo, &c->feature_bound, err)) ||
        (rc = cfg_read_int(algo, "algorithm", "batch_size", 0, 50, 1, LONG_MAX, &b, err)) ||
        (rc = cfg_read_int(algo, "algorithm", "iterations", 0, 0, 1, LONG_MAX, &T, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "norm_bound", 0, 0.0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"},
                               &c->norm_bound, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "step_size", 0, 0.0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, &c->step,
                               err)) ||
        (rc = drv_read_clip(algo, s, clip, err)) ||
        (rc = drv_read_noise(algo, &c->noise, err)) ||
        (rc = drv_read_train(root, &eval_every, err)))
        return rc;
    c->eps = s->epsilon;
    c->delta = s->delta;
    c->batch_size = (size_t)b;
    c->iterations = T;
    c->eval_every = (int)eval_every;
    c->seed = s->seed;
    c->secure_noise = s->secure_noise;
    return 0;
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    dp_bassily_cfg c;
    dp_bassily_plan plan;
    dp_linear shape;
    double clip;
    int rc = parse(root, out, &c, &clip, err);
    if (rc) return rc;
    out->train.batch_size = 0;
    out->train.epochs = 1;
    out->train.eval_every = c.eval_every;
    if (out->n_train > 0 && c.batch_size > out->n_train)
        return cfg_error(err, cfg_get(cfg_get(root, "algorithm"), "batch_size"), 0,
                         "algorithm.batch_size %zu is larger than the %zu training examples",
                         c.batch_size, out->n_train);
    if (out->deep ? out->n_train > 0 : drv_shape(out, &shape) && out->n_train > 0) {
        if (out->deep ? dp_bassily_make_plan_model(NULL, out->l2, clip, &c, out->n_train,
                                                   &plan, err)
                      : dp_bassily_make_plan(&shape, &c, out->n_train, &plan, err))
            return drv_config_error(err, cfg_get(root, "algorithm"), "dp_sgd_bassily");
        out->train.epochs = (int)(plan.T < INT_MAX ? plan.T : INT_MAX);
    }
    return 0;
}

static void record(const cfg_node *root, const dp_bassily_cfg *c, const dp_bassily_plan *p,
                   size_t n, const dp_train_result *res, json_t *metrics)
{
    drv_note_ignored_train(root, metrics);
    drv_privacy_metrics(metrics, c->eps, c->delta,
                        "lecture15_lemma15.5: Gaussian of Lecture15 Lemma 15.5 (advanced "
                        "composition over T steps, amplification by b/n of Lemma 15.4)");
    if (!c->noise) drv_noise_off_metrics(metrics);
    json_object_set_new(metrics, "theorem", json_string("Lecture15 Lemma 15.5"));
    if (c->noise) {
        /* What ran: T steps, each a uniform b-subset (without replacement) of the n rows,
         * the sum of their gradients clipped to L plus N(0, sigma^2): pld_wor's mechanism. */
        double tight = NAN;
        dp_err e;
        int rc = dp_pld_wor_epsilon((double)c->batch_size / (double)n, p->noise_multiplier,
                                    p->T, c->delta, 0.0, &tight, &e);
        drv_privacy_truth(metrics, c->eps, rc ? NAN : tight,
                          "pld_wor: uniform b-subsets, replace-one, privacy loss distribution "
                          "of the symmetrized subsampled Gaussian", rc ? e.msg : NULL);
    }
    drv_num(metrics, "noise_sigma", p->sigma);
    drv_num(metrics, "noise_multiplier", p->noise_multiplier);
    drv_num(metrics, "noise_std", res->noise_std);
    drv_num(metrics, "lipschitz", p->L);
    drv_num(metrics, "clip", p->L);
    drv_num(metrics, "gradient_bound_G", p->G);
    drv_num(metrics, "strong_convexity", p->mu);
    json_object_set_new(metrics, "batch_size", json_integer((json_int_t)c->batch_size));
    json_object_set_new(metrics, "sgd_steps", json_integer(p->T));
    json_object_set_new(metrics, "step_schedule",
                        json_string(p->schedule == DP_LR_INVERSE_T ? "a/t (Lemma 15.7)"
                                                                   : "a/sqrt(t) (Lemma 15.6)"));
    drv_num(metrics, "step_a", p->a);
    if (c->iterations > 0)
        drv_warn(metrics, "algorithm.iterations overrides the lecture's T = (n/b)^2 (utility "
                          "bound not the lecture's; the noise is calibrated to this T)");
    if (!p->step_from_theorem)
        drv_warn(metrics, "algorithm.step_size overrides the step of Lemma 15.6/15.7 (utility "
                          "bound not the lecture's; privacy does not depend on it)");
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    dp_bassily_cfg c;
    dp_bassily_plan p;
    dp_cvx_set a, b;
    double clip;
    int rc;
    if ((rc = parse(root, s, &c, &clip, err)) || (rc = drv_init_model(s, tr, m, err)))
        return rc;
    drv_sets(tr, te, &a, &b);
    if ((rc = dp_bassily_train(m, &c, &a, &b, &p, res, err))) return rc;
    record(root, &c, &p, tr->n, res, metrics);
    return 0;
}

static int run_deep(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
                    const dp_dataset *te, dp_model *m, dp_train_result *res, json_t *metrics,
                    dp_err *err)
{
    dp_bassily_cfg c;
    dp_bassily_plan p;
    double clip;
    int rc;
    if ((rc = parse(root, s, &c, &clip, err)) ||
        (rc = dp_bassily_train_model(m, &c, s->l2, clip, tr->x, tr->y, tr->n, te->x, te->y,
                                     te->n, &p, res, err)))
        return rc;
    record(root, &c, &p, tr->n, res, metrics);
    return 0;
}

const driver driver_dp_sgd_bassily = {"dp_sgd_bassily", check, run, run_deep};
