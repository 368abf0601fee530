/* rrpsgd.c: the rrpsgd driver (Zhang17 Alg. 2, Thms 4-5; algorithms/rrpsgd.h).
 *
 *   algorithm.feature_bound  B: every training row has ||x|| <= B (checked), default 1
 *   algorithm.clip           deep models only, required: the Lipschitz bound L that
 *                            clipping every per-example gradient enforces; deep models
 *                            also need algorithm.step_size (Thm 5's needs beta)
 *   algorithm.rounds         m: R is drawn uniformly from {1..m}, default n^2 (Thm 5);
 *                            at most n^2 (Thm 4); a smaller m is recorded as a warning
 *   algorithm.step_size      eta overriding Thm 5's min(1/beta, D_F/(sigma n)) (warning);
 *                            required for regression, must be < 2/beta
 *   algorithm.noise          on (default) | off: DEBUG ONLY, no noise: the non-private
 *                            counterpart; the record says noise "off", epsilon_spent null
 *   train.eval_every         curve points every this many epochs of n rounds (default 1)
 *   train.*                  other train keys are accepted (a grid may share its train
 *                            block with first-order algorithms) and ignored, with a warning
 * epsilon must be in (0, 1] (Thm 4); delta is privacy.delta.
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "algorithms/rrpsgd.h"
#include "algorithms/privacy/pld.h"
#include "harness/drivers/driver_common.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

static int parse(const cfg_node *root, const run_spec *s, dp_rrpsgd_cfg *c, long *eval_epochs,
                 double *clip, dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    int rc;
    memset(c, 0, sizeof *c);
    if ((rc = drv_read_feature_bound(algo, &c->feature_bound, err)) ||
        (rc = cfg_read_int(algo, "algorithm", "rounds", 0, 0, 1, LONG_MAX, &c->rounds, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "step_size", 0, 0.0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, &c->step,
                               err)) ||
        (rc = drv_read_clip(algo, s, clip, err)) ||
        (rc = drv_read_noise(algo, &c->noise, err)) ||
        (rc = drv_read_train(root, eval_epochs, err)))
        return rc;
    c->eps = s->epsilon;
    c->delta = s->delta;
    c->eval_every = 1;
    c->seed = s->seed;
    c->secure_noise = s->secure_noise;
    return 0;
}

/* Rounds per curve point: eval_epochs epochs of n rounds, without overflow. */
static long eval_rounds(long eval_epochs, size_t n)
{
    double r = (double)eval_epochs * (double)n;
    return r >= (double)LONG_MAX ? LONG_MAX : (long)r;
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    dp_rrpsgd_cfg c;
    dp_rrpsgd_plan plan;
    dp_linear shape;
    long eval_epochs;
    double clip;
    int rc = parse(root, out, &c, &eval_epochs, &clip, err);
    if (rc) return rc;
    out->train.batch_size = 0;
    out->train.epochs = 1;
    out->train.eval_every = (int)eval_epochs;
    if (out->deep && c.step == 0.0)
        return cfg_error(err, cfg_get(root, "algorithm"), 1,
                         "rrpsgd on model.type %s needs algorithm.step_size: Zhang17 Thm 5's "
                         "step needs the smoothness beta of a linear loss", out->model_name);
    if (out->deep && out->n_train > 0) {
        c.eval_every = eval_rounds(eval_epochs, out->n_train);
        if (dp_rrpsgd_make_plan_model(NULL, out->l2, clip, &c, out->n_train, &plan, err))
            return drv_config_error(err, cfg_get(root, "algorithm"), "rrpsgd");
        double e = ((double)plan.m + 1.0) / 2.0;
        out->train.epochs = e < (double)INT_MAX ? (int)e : INT_MAX;
    } else if (!out->deep && drv_shape(out, &shape) && out->n_train > 0) {
        c.eval_every = eval_rounds(eval_epochs, out->n_train);
        if (dp_rrpsgd_make_plan(&shape, &c, out->n_train, &plan, err))
            return drv_config_error(err, cfg_get(root, "algorithm"), "rrpsgd");
        /* The rounds actually run are random: report the expected (m + 1)/2. */
        double e = ((double)plan.m + 1.0) / 2.0;
        out->train.epochs = e < (double)INT_MAX ? (int)e : INT_MAX;
    }
    return 0;
}

static void record(const cfg_node *root, const dp_rrpsgd_cfg *c, const dp_rrpsgd_plan *p,
                   long R, size_t n, const dp_train_result *res, json_t *metrics)
{
    drv_note_ignored_train(root, metrics);
    drv_privacy_metrics(metrics, c->eps, c->delta,
                        "zhang17_thm4: Zhang17 Alg. 2, Gaussian z_t with s^2 = 4 L^2 "
                        "log(3n/delta) log(2/delta) / eps^2 on every gradient, R <= n^2");
    if (!c->noise) drv_noise_off_metrics(metrics);
    json_object_set_new(metrics, "theorem", json_string("Zhang17 Thm 4 (privacy), Thm 5 "
                                                        "(step, round distribution)"));
    json_object_set_new(metrics, "round_R", json_integer(R));
    if (c->noise) {
        /* What ran: each round one uniform row (a subset of size 1 without replacement),
         * its gradient clipped to L plus N(0, sigma^2), for R rounds with R drawn from
         * {1..m} independently of the data: the output is a mixture over R, as private as
         * its worst component, m rounds. */
        double tight = NAN;
        dp_err e;
        int rc = dp_pld_wor_epsilon(1.0 / (double)n, p->sigma / p->L, p->m, c->delta, 0.0,
                                    &tight, &e);
        drv_privacy_truth(metrics, c->eps, rc ? NAN : tight,
                          "pld_wor: one uniform row per round, replace-one, m rounds (the "
                          "largest R), privacy loss distribution", rc ? e.msg : NULL);
    }
    json_object_set_new(metrics, "round_max_m", json_integer(p->m));
    drv_num(metrics, "noise_std", res->noise_std);
    drv_num(metrics, "noise_multiplier", p->sigma / p->L);
    drv_num(metrics, "gradient_noise_variance", p->sigma2_thm5);
    drv_num(metrics, "lipschitz", p->L);
    drv_num(metrics, "smoothness", p->beta);
    drv_num(metrics, "D_F", p->D_F);
    drv_num(metrics, "step_size", p->eta);
    if (c->rounds > 0)
        drv_warn(metrics, "algorithm.rounds draws R from {1..m} with m below Thm 5's n^2 "
                          "(utility bound not the paper's; privacy holds for any R <= n^2)");
    if (!p->step_from_theorem)
        drv_warn(metrics, "algorithm.step_size overrides Thm 5's step (utility bound not the "
                          "paper's; privacy does not depend on it)");
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    dp_rrpsgd_cfg c;
    dp_rrpsgd_plan p;
    dp_cvx_set a, b;
    long eval_epochs;
    double clip;
    int rc;
    if ((rc = parse(root, s, &c, &eval_epochs, &clip, err)) ||
        (rc = drv_init_model(s, tr, m, err)))
        return rc;
    c.eval_every = eval_rounds(eval_epochs, tr->n);
    if ((rc = dp_rrpsgd_make_plan(m, &c, tr->n, &p, err))) return rc;
    long R = dp_rrpsgd_draw_round(c.seed, &p);
    drv_sets(tr, te, &a, &b);
    if ((rc = dp_rrpsgd_run(m, &c, &p, R, &a, &b, res, err))) return rc;
    record(root, &c, &p, R, tr->n, res, metrics);
    return 0;
}

static int run_deep(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
                    const dp_dataset *te, dp_model *m, dp_train_result *res, json_t *metrics,
                    dp_err *err)
{
    dp_rrpsgd_cfg c;
    dp_rrpsgd_plan p;
    long eval_epochs;
    double clip;
    int rc;
    if ((rc = parse(root, s, &c, &eval_epochs, &clip, err))) return rc;
    c.eval_every = eval_rounds(eval_epochs, tr->n);
    if ((rc = dp_rrpsgd_make_plan_model(m, s->l2, clip, &c, tr->n, &p, err))) return rc;
    long R = dp_rrpsgd_draw_round(c.seed, &p);
    if ((rc = dp_rrpsgd_run_model(m, &c, &p, R, s->l2, tr->x, tr->y, tr->n, te->x, te->y,
                                  te->n, res, err)))
        return rc;
    record(root, &c, &p, R, tr->n, res, metrics);
    return 0;
}

const driver driver_rrpsgd = {"rrpsgd", check, run, run_deep};
