/* input_pert.c: input perturbation, InputPert (seed paper 004) Alg. 1 and Thm 1:
 *   x_i <- x_i + z_i,  z_i ~ N(0, sigma^2 I_d),  every training row (lines 3-5),
 *   theta_{t+1} = theta_t - alpha (1/n) sum_i grad l(theta_t, x_i + z_i, y_i),
 *   t = 0..T-1 (lines 7-9), output theta_T,
 *   sigma^2 = c G^2 T log(1/delta) / (n (n - 1) sqrt(Delta) eps^2)      (Thm 1, eq. 9)
 * for a G-Lipschitz, Delta-strongly convex loss (dp_thm_inputpert_sigma2).
 *
 * Constants and choices where the paper is silent:
 * - c: the paper leaves it unspecified ("for some constant c"); dperm takes
 *   c log(1/delta) = 2 ln(1.25/delta), the classic Gaussian mechanism's factor
 *   (dp_thm_inputpert_c_classic; theorems.h says why), unless the caller gives c.
 * - Delta = mu = model.l2 > 0: the loss l + mu/2 ||theta||^2 is mu-strongly convex; with
 *   mu = 0 Thm 1 does not apply (Thm 3's PL condition is not checkable for dperm's losses,
 *   so it is not offered).
 * - G: the data loss's Lipschitz constant for clean rows in the ball of radius B, bias
 *   included (convex_common.h: logistic sqrt(B^2 + 1)); the l2 term is the same on
 *   neighbouring data sets. B is public; rows outside it are refused.
 * - z: independent per row. This is dperm's reading, not the paper's words: Alg. 1's
 *   "each element z_i ~ N(0, sigma^2), sampled independently" is about the coordinates
 *   of one noise vector z, and the paper never says whether rows share one z or draw
 *   their own. The conclusion that Thm 1 gives no valid epsilon (docs/privacy.md,
 *   Empirical privacy audit) holds under both readings: its proof takes the
 *   data-dependent loss gap as a constant.
 *   Drawn on the d features only, not on the bias's constant 1 (it is not data).
 * - T has no default: Thm 2's T = O~(log(...)) has unknown constants, and sigma^2 grows
 *   with T, so the caller chooses it. alpha defaults to 1/beta, the standard GD step for
 *   a beta-smooth objective (beta = beta_loss + mu, computed for the clean-row bound B:
 *   perturbed rows can be longer, so GD on them is not guaranteed monotone).
 * - w_0 = 0; evaluation on the clean test set; the released model's training loss is
 *   reported on the clean training set.
 * GD is dp_train_linear with full batches and a constant step, so with the noise off this
 * is dperm's `gd` on the clean data bit for bit (tested).
 * Deep models (InputPert §6's one-hidden-layer MLP, Figs. 2-3 (d)-(f)): the same Alg. 1
 * with GD through dp_train_model. Thm 1 has no constants for a non-convex loss and the
 * paper states none for its MLP; dperm draws the MLP's feature noise from eq. 9 with
 * logistic regression's G = sqrt(B^2 + 1) on the same rows and Delta = model.l2, so at
 * one eps the MLP sees exactly the noise the LR panel sees (the noise is added to the
 * data, before any model). beta is unknown, so the step must be given.
 */
#include "algorithms/input_pert.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/privacy/theorems.h"
#include "algorithms/debug_noise.h"
#include "algorithms/train_model.h"

/* The plan from the loss's constants: G (Lipschitz), beta (smoothness of the regularized
 * objective; NaN when unknown, then cfg->step is required), Delta = l2. */
static int make_plan(double G, double beta, double l2, const dp_input_pert_cfg *cfg, size_t n,
                     dp_input_pert_plan *plan, dp_err *err)
{
    dp_input_pert_plan p = {0};
    int rc;
    if (!(l2 > 0.0))
        return dp_err_set(err, DP_EINVAL, "InputPert Thm 1 needs a strongly convex loss: set "
                          "model.l2 > 0 (it is Delta)");
    if (cfg->iterations < 1 || cfg->iterations > INT_MAX)
        return dp_err_set(err, DP_EINVAL, "iterations T must be in [1, %d], got %ld", INT_MAX,
                          cfg->iterations);
    if (!(cfg->step >= 0.0) || !isfinite(cfg->step) || !(cfg->c >= 0.0) || !isfinite(cfg->c))
        return dp_err_set(err, DP_EINVAL, "step and c must be >= 0 and finite (0: default)");
    if (cfg->step == 0.0 && isnan(beta))
        return dp_err_set(err, DP_EINVAL, "the default step 1/beta needs the loss's "
                          "smoothness beta, unknown for a deep model: give step_size");
    if (n > (size_t)LONG_MAX) return dp_err_set(err, DP_EINVAL, "n = %zu", n);
    p.G = G;
    p.Delta = l2;
    p.beta = beta;
    p.T = cfg->iterations;
    p.step_default = cfg->step == 0.0;
    p.step = p.step_default ? 1.0 / p.beta : cfg->step;
    p.c = cfg->c;
    if (p.c == 0.0 && (rc = dp_thm_inputpert_c_classic(cfg->delta, &p.c, err))) return rc;
    if ((rc = dp_thm_inputpert_sigma2(cfg->eps, cfg->delta, p.G, p.Delta, p.T, (long)n, p.c,
                                      &p.sigma2, err)))
        return rc;
    p.sigma = sqrt(p.sigma2);
    *plan = p;
    return 0;
}

int dp_input_pert_make_plan(const dp_linear *m, const dp_input_pert_cfg *cfg, size_t n,
                            dp_input_pert_plan *plan, dp_err *err)
{
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    double G, beta_loss;
    int rc;
    if ((rc = dp_cvx_constants(m, cfg->feature_bound, &G, &beta_loss, err))) return rc;
    return make_plan(G, beta_loss + m->l2, m->l2, cfg, n, plan, err);
}

int dp_input_pert_make_plan_model(double l2, const dp_input_pert_cfg *cfg, size_t n,
                                  dp_input_pert_plan *plan, dp_err *err)
{
    if (!cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (!(cfg->feature_bound > 0.0) || !isfinite(cfg->feature_bound))
        return dp_err_set(err, DP_EINVAL, "feature_bound B must be > 0 and finite, got %g",
                          cfg->feature_bound);
    /* logistic regression's G on the same rows (convex_common.h): see input_pert.h */
    double B = cfg->feature_bound, G = sqrt(B * B + 1.0);
    return make_plan(G, NAN, l2, cfg, n, plan, err);
}

void dp_input_pert_perturb(dp_noise *noise, double *xp, const double *x, size_t n, size_t d,
                           double sigma)
{
    if (xp != x) memcpy(xp, x, n * d * sizeof *xp);
    if (!(sigma > 0.0)) return;
    for (size_t i = 0; i < n; i++) dp_noise_add_gaussian(noise, xp + i * d, d, sigma, 1);
}

/* Alg. 1 lines 3-5: *xp = a new (n, d) copy of x with the plan's noise (none with the
 * noise off; *sigma says which), from stream DP_STREAM_NOISE of cfg->seed or getrandom.
 * 0, DP_ENOMEM or a failed secure draw (nothing allocated then). */
static int perturbed_copy(const dp_input_pert_cfg *cfg, const dp_input_pert_plan *plan,
                          const double *x, size_t n, size_t d, double **xp, double *sigma,
                          dp_err *err)
{
    int rc;
    *xp = malloc(n * d * sizeof **xp);
    if (!*xp) return dp_err_set(err, DP_ENOMEM, "out of memory for the perturbed features");
    dp_noise noise; /* seeded: DP_STREAM_NOISE; secure: getrandom (base/noise_source.h) */
    if ((rc = dp_noise_init(&noise, cfg->seed, DP_STREAM_NOISE, cfg->secure_noise, err))) {
        free(*xp);
        return rc;
    }
    *sigma = cfg->noise ? DP_DEBUG_NOISE(plan->sigma) : 0.0;
    dp_input_pert_perturb(&noise, *xp, x, n, d, *sigma);
    if ((rc = dp_noise_check(&noise, err))) {
        free(*xp);
        return rc;
    }
    return 0;
}

/* Alg. 1 lines 7-9: T steps of full-batch GD with the constant step alpha. */
static dp_train_cfg gd_cfg(const dp_input_pert_cfg *cfg, const dp_input_pert_plan *plan,
                           size_t n)
{
    return (dp_train_cfg){.algorithm = DP_ALGO_SGD,
                          .epochs = (int)plan->T,
                          .batch_size = n,
                          .sampling = DP_SAMPLING_FULL,
                          .lr_schedule = DP_LR_CONSTANT,
                          .lr = plan->step,
                          .clip = INFINITY,
                          .eval_every = cfg->eval_every,
                          .seed = cfg->seed};
}

int dp_input_pert_train(dp_linear *m, const dp_input_pert_cfg *cfg, const dp_cvx_set *train,
                        const dp_cvx_set *test, dp_input_pert_plan *plan,
                        dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !train || !test || !plan)
        return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "eval_every must be >= 1, got %d", cfg->eval_every);
    int rc;
    if ((rc = dp_cvx_check_rows(train->x, train->n, m->d, cfg->feature_bound, err)) ||
        (rc = dp_input_pert_make_plan(m, cfg, train->n, plan, err)))
        return rc;
    size_t n = train->n;
    double *xp;
    double sigma;
    if ((rc = perturbed_copy(cfg, plan, train->x, n, m->d, &xp, &sigma, err))) return rc;
    dp_train_cfg gd = gd_cfg(cfg, plan, n);
    rc = train->t ? dp_train_linear_reg(m, &gd, xp, train->t, n, test->x, test->t, test->n,
                                        result, err)
                  : dp_train_linear(m, &gd, xp, train->y, n, test->x, test->y, test->n,
                                    result, err);
    free(xp);
    if (rc) return rc;
    result->noise_std = sigma;
    if (sigma > 0.0 && result->n_curve > 0) {
        dp_curve_point *last = &result->curve[result->n_curve - 1];
        if ((rc = dp_cvx_evaluate(m, train, test, last, err))) return rc;
        result->final = *last;
    }
    return 0;
}

int dp_input_pert_train_model(dp_model *m, const dp_input_pert_cfg *cfg, double l2,
                              const double *x_train, const int *y_train, size_t n_train,
                              const double *x_test, const int *y_test, size_t n_test,
                              dp_input_pert_plan *plan, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !plan || !x_train || !y_train)
        return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "eval_every must be >= 1, got %d", cfg->eval_every);
    size_t n = n_train, d = m->in_size;
    int rc;
    if ((rc = dp_cvx_check_rows(x_train, n, d, cfg->feature_bound, err)) ||
        (rc = dp_input_pert_make_plan_model(l2, cfg, n, plan, err)))
        return rc;
    double *xp;
    double sigma;
    if ((rc = perturbed_copy(cfg, plan, x_train, n, d, &xp, &sigma, err))) return rc;
    dp_train_cfg gd = gd_cfg(cfg, plan, n);
    rc = dp_train_model(m, &gd, l2, xp, y_train, n, x_test, y_test, n_test, result, err);
    free(xp);
    if (rc) return rc;
    result->noise_std = sigma;
    if (sigma > 0.0 && result->n_curve > 0) {
        dp_curve_point *last = &result->curve[result->n_curve - 1];
        if ((rc = dp_model_curve_point(m, l2, x_train, y_train, n, x_test, y_test, n_test, last,
                                       err)))
            return rc;
        result->final = *last;
    }
    return 0;
}
