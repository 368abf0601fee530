/* output_pert.c: the output_perturbation driver (Zhang17 Alg. 1, algorithms/output_pert.h).
 *
 *   algorithm.mechanism      gaussian (default: (eps, delta)-DP with privacy.delta, as
 *                            Zhang17's Table 3 ran it) | laplace (eps-DP, delta 0)
 *   algorithm.feature_bound  B: every training row has ||x|| <= B (checked), default 1
 *   algorithm.norm_bound     D >= ||w_hat||, for the theorem's T; default sqrt(2 F(0)/mu)
 *                            when model.l2 > 0, required when model.l2 = 0
 *   algorithm.iterations     T, overriding Thm 2/3's (recorded as a warning)
 *   algorithm.step_size      eta, overriding Thm 2/3's (warning; Lemma 2/3's bound on eta
 *                            is still enforced)
 *   algorithm.noise          on (default) | off: DEBUG ONLY, no noise: the non-private
 *                            counterpart; the record says noise "off", epsilon_spent null
 *   train.eval_every         curve points every this many GD steps (default 1)
 *   train.*                  other train keys are accepted (a grid may share its train
 *                            block with first-order algorithms) and ignored, with a warning
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "algorithms/output_pert.h"
#include "algorithms/privacy/mechanisms.h"
#include "harness/drivers/driver_common.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

static const char *const MECHS[] = {"gaussian", "laplace"};

static int parse(const cfg_node *root, const run_spec *s, dp_output_pert_cfg *c, dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    int mech = 0, rc;
    long T, eval_every;
    memset(c, 0, sizeof *c);
    if ((rc = cfg_read_enum(algo, "algorithm", "mechanism", 0, 0, "mechanism", MECHS,
                            CFG_COUNT(MECHS), &mech, err)) ||
        (rc = drv_read_feature_bound(algo, &c->feature_bound, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "norm_bound", 0, 0.0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"},
                               &c->norm_bound, err)) ||
        (rc = cfg_read_int(algo, "algorithm", "iterations", 0, 0, 1, INT_MAX, &T, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "step_size", 0, 0.0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, &c->step,
                               err)) ||
        (rc = drv_read_noise(algo, &c->noise, err)) ||
        (rc = drv_read_train(root, &eval_every, err)))
        return rc;
    c->mechanism = mech == 0 ? DP_OUTPUT_GAUSSIAN : DP_OUTPUT_LAPLACE;
    c->eps = s->epsilon;
    c->delta = c->mechanism == DP_OUTPUT_GAUSSIAN ? s->delta : 0.0;
    c->iterations = T;
    c->eval_every = (int)eval_every;
    c->seed = s->seed;
    c->secure_noise = s->secure_noise;
    return 0;
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    dp_output_pert_cfg c;
    dp_output_pert_plan plan;
    dp_linear shape;
    int rc = parse(root, out, &c, err);
    if (rc) return rc;
    if (out->secure_noise && c.mechanism == DP_OUTPUT_LAPLACE)
        return cfg_error(err, cfg_get(cfg_get(root, "algorithm"), "mechanism"), 0,
                         "privacy.secure_noise has no exact sampler for the l2-norm Laplace "
                         "density of output_perturbation's laplace mechanism; use mechanism: "
                         "gaussian, or secure_noise: false");
    out->train.batch_size = 0; /* the runner reports the driver's own iterations */
    out->train.epochs = 1;
    out->train.eval_every = c.eval_every;
    /* Synthetic data: the plan is known now, so a violated precondition stops the sweep. */
    if (drv_shape(out, &shape) && out->n_train > 0) {
        if (dp_output_pert_make_plan(&shape, &c, out->n_train, &plan, err))
            return drv_config_error(err, cfg_get(root, "algorithm"), "output_perturbation");
        out->train.epochs = (int)plan.T;
    }
    return 0;
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    dp_output_pert_cfg c;
    dp_output_pert_plan p;
    dp_cvx_set a, b;
    int rc;
    if ((rc = parse(root, s, &c, err)) || (rc = drv_init_model(s, tr, m, err))) return rc;
    drv_sets(tr, te, &a, &b);
    if ((rc = dp_output_pert_train(m, &c, &a, &b, &p, res, err))) return rc;
    int gauss = c.mechanism == DP_OUTPUT_GAUSSIAN;
    drv_note_ignored_train(root, metrics);
    drv_privacy_metrics(metrics, c.eps, c.delta,
                        p.theorem == 2
                            ? "zhang17_thm2: Zhang17 Alg. 1, Lemma 3 sensitivity 5 L (mu + "
                              "beta) / (n mu beta) (strongly convex)"
                            : "zhang17_thm3: Zhang17 Alg. 1, Lemma 2 sensitivity 3 L T eta / n "
                              "(convex)");
    if (!c.noise) drv_noise_off_metrics(metrics);
    json_object_set_new(metrics, "theorem", json_string(p.theorem == 2 ? "Zhang17 Thm 2"
                                                                       : "Zhang17 Thm 3"));
    json_object_set_new(metrics, "mechanism",
                        json_string(gauss ? "gaussian: Zhang17 Alg. 1 line 7"
                                          : "high-dimensional laplace: Zhang17 Alg. 1 line 5"));
    drv_num(metrics, "sensitivity", p.sens);
    drv_num(metrics, "noise_scale", p.noise_scale);
    drv_num(metrics, "noise_std", res->noise_std);
    drv_num(metrics, "noise_multiplier", p.noise_scale / p.sens);
    drv_num(metrics, "lipschitz", p.L);
    drv_num(metrics, "smoothness", p.beta);
    drv_num(metrics, "strong_convexity", p.mu);
    drv_num(metrics, "norm_bound", p.D);
    drv_num(metrics, "step_size", p.eta);
    json_object_set_new(metrics, "gd_iterations", json_integer(p.T));
    if (gauss) {
        /* What this Gaussian really achieves at eps (Balle & Wang's exact profile): Zhang17
         * Thm 1 claims delta for every eps, the classic proof covers eps < 1 only. */
        double dex = NAN;
        if (dp_mech_gaussian_delta(c.eps, p.noise_scale, p.sens, &dex, NULL)) dex = NAN;
        drv_num(metrics, "delta_exact", dex);
    }
    if (c.noise) {
        double tight = c.eps;
        const char *how = "zhang17_alg1_laplace: the high-dimensional Laplace's own eps-DP "
                          "bound, exact for the sensitivity of the lemma";
        if (gauss) {
            how = "gaussian_analytic: one Gaussian release of Lemma 2/3's sensitivity, exact "
                  "(Balle & Wang 2018, Thm 8)";
            if (dp_mech_gaussian_epsilon_analytic(p.noise_scale, c.delta, p.sens, &tight, NULL))
                tight = NAN;
        }
        drv_privacy_truth(metrics, c.eps, tight, how, "the analytic Gaussian failed");
    }
    if (!p.T_from_theorem)
        drv_warn(metrics, "algorithm.iterations overrides the T of the theorem (utility "
                          "bound not the paper's; privacy still holds: Delta uses this T)");
    if (!p.eta_from_theorem)
        drv_warn(metrics, "algorithm.step_size overrides the eta of the theorem (utility "
                          "bound not the paper's; privacy still holds: the lemma's eta bound "
                          "is checked)");
    return 0;
}

const driver driver_output_perturbation = {"output_perturbation", check, run, NULL};
