/* objective_pert.c: the objective_perturbation driver (algorithms/objective_pert.h:
 * Chaudhuri et al. 2011 Alg. 2 and Kifer et al. 2012 Thm 2 for binary logistic models).
 *
 *   algorithm.mechanism      gaussian (default: Kifer et al. Thm 2, (eps, delta)-DP with
 *                            privacy.delta, the variant InputPert compares against) |
 *                            laplace (Chaudhuri et al. Alg. 2, eps-DP, delta 0)
 *   algorithm.feature_bound  B: every training row has ||x|| <= B (checked on the
 *                            data), default 1 (synthetic rows; dataset.normalize unit_l2)
 *   algorithm.noise          on (default) | off: DEBUG ONLY, b = 0 and no extra l2, so
 *                            the run is erm_exact's; the record says noise "off" and
 *                            epsilon_spent is null (infinite)
 *   train                    ignored when present (nothing iterates; see erm_exact.c)
 * model.type must be logistic (a config error at model.type says why otherwise).
 */
#include <math.h>
#include <string.h>

#include "algorithms/objective_pert.h"
#include "harness/drivers/driver_common.h"
#include "harness/drivers/erm_exact.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

static const char *const MECHS[] = {"gaussian", "laplace"};
static const char *const NOISE[] = {"on", "off"};

static int parse(const cfg_node *root, const run_spec *s, dp_objpert_cfg *c, dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    int mech = 0, noise = 0, rc;
    memset(c, 0, sizeof *c);
    if ((rc = cfg_read_enum(algo, "algorithm", "mechanism", 0, 0, "mechanism", MECHS,
                            CFG_COUNT(MECHS), &mech, err)) ||
        (rc = cfg_read_enum(algo, "algorithm", "noise", 0, 0, "noise setting", NOISE,
                            CFG_COUNT(NOISE), &noise, err)) ||
        (rc = drv_read_feature_bound(algo, &c->feature_bound, err)))
        return rc;
    c->mechanism = mech == 0 ? DP_OBJPERT_GAUSSIAN : DP_OBJPERT_LAPLACE;
    c->eps = s->epsilon;
    c->delta = c->mechanism == DP_OBJPERT_GAUSSIAN ? s->delta : 0.0;
    c->noise = noise == 0;
    c->replace_one = s->neighbours == SPEC_NEIGHBOURS_REPLACE_ONE;
    c->seed = s->seed;
    return 0;
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    dp_objpert_cfg c;
    dp_objpert_plan plan;
    dp_linear shape;
    int rc = parse(root, out, &c, err);
    if (rc || (rc = drv_erm_check_train(root, out, err))) return rc;
    /* Its privacy proof changes variables in the noise's density (Chaudhuri et al. 2011,
     * Kifer et al. 2012): a lattice noise has none, so there is no secure form. */
    if (out->secure_noise)
        return cfg_error(err, cfg_get(cfg_get(root, "privacy"), "secure_noise"), 0,
                         "privacy.secure_noise is not available for objective_perturbation "
                         "(its proof needs a continuous noise density); use "
                         "output_perturbation or a DP-SGD algorithm, or secure_noise: false");
    if (c.mechanism == DP_OBJPERT_LAPLACE && !c.replace_one)
        return cfg_error(err, cfg_get(cfg_get(root, "privacy"), "neighbours"), 0,
                         "privacy.neighbours add_remove: objective_perturbation's laplace "
                         "mechanism (Chaudhuri et al. 2011 Alg. 2) is analysed for replace-one "
                         "neighbours only; use replace_one, or mechanism: gaussian");
    if (out->loss != DP_LOSS_LOGISTIC) {
        dp_linear m = {.loss = out->loss};
        dp_objpert_make_plan(&m, &c, 1, &plan, err);
        return drv_config_error(err, cfg_get(cfg_get(root, "model"), "type"),
                                "model.type");
    }
    /* Synthetic data: the calibration is known now, so a bad value stops the sweep. */
    if (drv_shape(out, &shape) && out->n_train > 0 &&
        dp_objpert_make_plan(&shape, &c, out->n_train, &plan, err))
        return drv_config_error(err, cfg_get(root, "algorithm"), "objective_perturbation");
    return 0;
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    dp_objpert_cfg c;
    dp_objpert_plan p;
    dp_erm_result r;
    int rc;
    if ((rc = parse(root, s, &c, err)) || (rc = drv_init_model(s, tr, m, err))) return rc;
    dp_erm_data D = {tr->x, tr->y, tr->t, tr->n};
    if ((rc = dp_objpert_train(m, &D, &c, &p, &r, err)) ||
        (rc = drv_erm_finish(m, tr, te, r.iterations, c.noise ? p.noise_std : 0.0, res,
                             err)))
        return rc;
    int gauss = c.mechanism == DP_OBJPERT_GAUSSIAN;
    const char *acc =
        !c.noise ? "none (algorithm.noise off: debug run, no privacy)"
        : gauss  ? (c.replace_one
                        ? "kifer12_thm2: Kifer, Smith & Thakurta 2012 Thm 2 for replace-one "
                          "neighbours, b ~ N(0, beta^2 I), beta = 2 zeta sqrt(8 log(2/delta) + "
                          "4 eps) / eps (sensitivity 2 zeta), extra l2 2 lambda / (eps n), "
                          "rank-1 Hessian"
                        : "kifer12_thm2: Kifer, Smith & Thakurta 2012 Thm 2 for add/remove "
                          "neighbours, b ~ N(0, beta^2 I), beta = zeta sqrt(8 log(2/delta) + "
                          "4 eps) / eps, extra l2 2 lambda / (eps n), rank-1 Hessian")
                 : "chaudhuri11_alg2: Chaudhuri, Monteleoni & Sarwate 2011 Alg. 2 / Thm 9, "
                   "b with density ~ exp(-eps' ||b|| / (2 zeta)), eps-DP";
    drv_privacy_metrics(metrics, p.eps_spent, c.noise ? p.delta_spent : NAN, acc);
    json_object_set_new(metrics, "noise", json_string(c.noise ? "on" : "off"));
    json_object_set_new(metrics, "mechanism",
                        json_string(gauss ? "gaussian: Kifer et al. 2012 Thm 2"
                                          : "laplace-type: Chaudhuri et al. 2011 Alg. 2"));
    drv_num(metrics, "noise_scale", c.noise ? p.noise_scale : 0.0);
    drv_num(metrics, "noise_std", res->noise_std);
    drv_num(metrics, "extra_l2", p.extra_l2);
    drv_num(metrics, "epsilon_prime", c.noise ? p.eps_prime : NAN);
    drv_num(metrics, "gradient_bound", p.zeta);
    drv_num(metrics, "sensitivity", c.noise ? p.sensitivity : NAN);
    /* Its theorem is the only analysis there is: the tight bound is the claim itself. */
    if (c.noise)
        drv_privacy_truth(metrics, p.eps_spent, p.eps_spent,
                          gauss ? "kifer12_thm2 (the theorem itself: no tighter analysis)"
                                : "chaudhuri11_alg2 (the theorem itself: no tighter analysis)",
                          NULL);
    /* No sigma x C structure here: the noise is b itself (noise_scale, noise_std). */
    drv_num(metrics, "noise_multiplier", NAN);
    drv_num(metrics, "hessian_bound", p.lambda);
    drv_num(metrics, "feature_bound", c.feature_bound);
    drv_num(metrics, "perturbed_objective", r.f);
    json_object_set_new(metrics, "newton_iterations", json_integer(r.iterations));
    return 0;
}

const driver driver_objective_perturbation = {"objective_perturbation", check, run,
                                                     NULL};
