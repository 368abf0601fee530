/* output_pert.c: output-perturbation full-batch GD, Zhang17 (Zhang, Zheng, Mou, Wang,
 * IJCAI 2017) Alg. 1:
 *   w_{t+1} = w_t - (eta/n) sum_i grad f(w_t, xi_i),  t = 0..T-1       (line 2)
 *   w_priv  = w_T + z,  z ~ exp(-eps ||z|| / Delta)      if delta = 0  (line 5, eps-DP)
 *                       z ~ exp(-eps^2 ||z||^2 / (4 log(2/delta) Delta^2))  (line 7)
 * with Delta from Lemma 2 (convex: 3 L T eta / n, eta <= 1/beta) or Lemma 3 (mu-strongly
 * convex: 5 L (mu + beta) / (n mu beta), eta <= 1/(beta + mu)), and by default T and eta
 * of Thm 3 (convex: eta = 1/beta, T = [beta^2 n^2 eps^2 D^2 / (L^2 p log(1/delta))]^(1/3),
 * p^2 for eps-DP) or Thm 2 (strongly convex: eta = 1/(mu + beta), T = (mu^2 + beta^2)/(mu
 * beta) log(mu^2 n^2 eps^2 D^2 / (L^2 p log(1/delta)))), privacy/theorems.h.
 *
 * Choices where the paper is silent:
 * - f(w, xi) = data loss + mu/2 ||w||^2 with mu = model.l2 (Zhang17 §4, footnote 5: "we
 *   add an additional square regularization term with parameter mu"); mu > 0 selects
 *   Lemma 3 / Thm 2, mu = 0 Lemma 2 / Thm 3.
 * - L is the Lipschitz constant of the data loss for rows in the ball of radius B, bias
 *   included (convex_common.h: logistic sqrt(B^2 + 1)); the regularizer cancels between
 *   neighbouring data sets in the proofs' recursion, so it does not enter L. beta is the
 *   smoothness of the whole objective, beta_loss + mu: the step-size conditions of the
 *   lemmas are about the function GD runs on. Both use the public bound B, never the
 *   data; rows outside it are refused.
 * - The Theta(.) of Thms 2-3 is taken with constant 1 (theorems.h), and d, the dimension
 *   of the released vector, is the number of parameters p = k (d + 1).
 * - D (||w_hat|| <= D) only sets T: privacy holds for any T, since Delta is computed from
 *   the T actually run (Lemma 2) or does not depend on T (Lemma 3). Default for mu > 0:
 *   sqrt(2 F(0) / mu), a data-independent bound (F(0) = log 2 for logistic); for mu = 0
 *   the caller must give it.
 * - w_0 = 0 (the model as dp_linear_init leaves it).
 * - The Gaussian is Zhang17's own (sigma = Delta sqrt(2 ln(2/delta)) / eps, line 7), as the
 *   paper's Table 3 ran it; mechanisms.h notes that its classic proof covers eps < 1.
 * GD itself is dp_train_linear with full batches and a constant step, so with the noise
 * off this is dperm's `gd` bit for bit (tested).
 */
#include "algorithms/output_pert.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/privacy/mechanisms.h"
#include "algorithms/debug_noise.h"
#include "algorithms/privacy/theorems.h"

int dp_output_pert_make_plan(const dp_linear *m, const dp_output_pert_cfg *cfg, size_t n,
                             dp_output_pert_plan *plan, dp_err *err)
{
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    dp_output_pert_plan p = {0};
    double beta_loss;
    int rc;
    if ((rc = dp_cvx_constants(m, cfg->feature_bound, &p.L, &beta_loss, err))) return rc;
    if (!(cfg->eps > 0.0) || !isfinite(cfg->eps))
        return dp_err_set(err, DP_EINVAL, "eps must be > 0 and finite, got %g", cfg->eps);
    int gauss = cfg->mechanism == DP_OUTPUT_GAUSSIAN;
    if (!gauss && cfg->mechanism != DP_OUTPUT_LAPLACE)
        return dp_err_set(err, DP_EINVAL, "unknown mechanism %d", (int)cfg->mechanism);
    if (gauss && !(cfg->delta > 0.0 && cfg->delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "the Gaussian needs delta in (0, 1), got %g",
                          cfg->delta);
    if (cfg->iterations < 0 || !(cfg->step >= 0.0) || !isfinite(cfg->step) ||
        !(cfg->norm_bound >= 0.0) || !isfinite(cfg->norm_bound))
        return dp_err_set(err, DP_EINVAL, "iterations, step and norm_bound must be >= 0 "
                          "(0: the theorem's choice)");
    if (n < 1 || n > (size_t)LONG_MAX) return dp_err_set(err, DP_EINVAL, "n = %zu", n);
    p.mu = m->l2;
    p.beta = beta_loss + p.mu;
    p.theorem = p.mu > 0.0 ? 2 : 3;
    p.D = cfg->norm_bound;
    double delta = gauss ? cfg->delta : 0.0; /* the theorems' eps-DP branch is delta = 0 */
    long nn = (long)n, dim = (long)m->n_params;
    if (p.D == 0.0) {
        double F0;
        if (p.mu == 0.0)
            return dp_err_set(err, DP_EINVAL, "Zhang17 Thm 3 (mu = 0) needs a bound D on "
                              "||w_hat|| to set T: give norm_bound");
        if ((rc = dp_cvx_zero_loss(m, &F0, err))) return rc;
        p.D = sqrt(2.0 * F0 / p.mu);
    }
    double eta_thm;
    long T_thm;
    rc = p.theorem == 2
             ? dp_thm_zhang17_thm2(p.L, p.mu, p.beta, nn, dim, p.D, cfg->eps, delta, &eta_thm,
                                   NULL, &T_thm, err)
             : dp_thm_zhang17_thm3(p.L, p.beta, nn, dim, p.D, cfg->eps, delta, &eta_thm, NULL,
                                   &T_thm, err);
    if (rc) return rc;
    p.T_from_theorem = cfg->iterations == 0;
    p.eta_from_theorem = cfg->step == 0.0;
    p.T = p.T_from_theorem ? T_thm : cfg->iterations;
    p.eta = p.eta_from_theorem ? eta_thm : cfg->step;
    if (p.T > INT_MAX) /* dp_train_cfg counts epochs in an int */
        return dp_err_set(err, DP_EINVAL, "T = %ld iterations is beyond what dperm runs", p.T);
    rc = p.theorem == 2 ? dp_thm_zhang17_sens_strongly_convex(p.L, p.mu, p.beta, p.eta, nn,
                                                              &p.sens, err)
                        : dp_thm_zhang17_sens_convex(p.L, p.beta, p.eta, p.T, nn, &p.sens, err);
    if (rc) return rc;
    if (gauss) {
        if ((rc = dp_mech_zhang17_gaussian_sigma(cfg->eps, cfg->delta, p.sens, &p.noise_scale,
                                                 err)))
            return rc;
        p.noise_std = p.noise_scale;
    } else {
        p.noise_scale = p.sens / cfg->eps;
        p.noise_std = sqrt((double)m->n_params + 1.0) * p.noise_scale;
    }
    *plan = p;
    return 0;
}

int dp_output_pert_noise(dp_noise *noise, const dp_output_pert_cfg *cfg,
                         const dp_output_pert_plan *plan, double *z, size_t p, dp_err *err)
{
    if (cfg->mechanism == DP_OUTPUT_LAPLACE) {
        if (dp_noise_is_secure(noise))
            return dp_err_set(err, DP_EINVAL, "secure noise has no exact sampler for the "
                              "l2-norm Laplace density of output_perturbation's laplace "
                              "mechanism; use mechanism: gaussian");
        return dp_mech_hdlaplace_sample(dp_noise_rng(noise), z, p, cfg->eps, plan->sens, err);
    }
    if (!dp_noise_is_secure(noise))
        return dp_mech_zhang17_gaussian_sample(dp_noise_rng(noise), z, p, cfg->eps, cfg->delta,
                                               plan->sens, err);
    /* On the grid of noise_scale (the sigma the sampler above computes): z is a multiple
     * of the spacing, and the caller adds it to w after rounding w to the same grid. */
    dp_noise_set_gaussian(noise, z, p, plan->noise_scale);
    return dp_noise_check(noise, err);
}

int dp_output_pert_train(dp_linear *m, const dp_output_pert_cfg *cfg, const dp_cvx_set *train,
                         const dp_cvx_set *test, dp_output_pert_plan *plan,
                         dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !train || !test || !plan)
        return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "eval_every must be >= 1, got %d", cfg->eval_every);
    int rc;
    if ((rc = dp_cvx_check_rows(train->x, train->n, m->d, cfg->feature_bound, err)) ||
        (rc = dp_output_pert_make_plan(m, cfg, train->n, plan, err)))
        return rc;
    /* Alg. 1 lines 1-3: full-batch GD with constant step, w_0 = 0. One epoch of full
     * batches is one step. */
    dp_train_cfg gd = {.algorithm = DP_ALGO_SGD,
                       .epochs = (int)plan->T,
                       .batch_size = train->n,
                       .sampling = DP_SAMPLING_FULL,
                       .lr_schedule = DP_LR_CONSTANT,
                       .lr = plan->eta,
                       .clip = INFINITY,
                       .eval_every = cfg->eval_every,
                       .seed = cfg->seed};
    rc = train->t ? dp_train_linear_reg(m, &gd, train->x, train->t, train->n, test->x, test->t,
                                        test->n, result, err)
                  : dp_train_linear(m, &gd, train->x, train->y, train->n, test->x, test->y,
                                    test->n, result, err);
    if (rc) return rc;
    if (result->diverged || !cfg->noise) return 0;
    /* Lines 4-8: one draw on the whole parameter vector, bias included. */
    size_t P = m->n_params;
    double *z = malloc(P * sizeof *z);
    if (!z) return dp_err_set(err, DP_ENOMEM, "out of memory for the output noise");
    dp_noise noise; /* seeded: DP_STREAM_NOISE; secure: getrandom (base/noise_source.h) */
    rc = dp_noise_init(&noise, cfg->seed, DP_STREAM_NOISE, cfg->secure_noise, err);
    if (rc == 0) rc = dp_output_pert_noise(&noise, cfg, plan, z, P, err);
    /* Secure: w rounded to z's grid first, so that w + z below is exact before its one
     * rounding to a double (discrete_noise.c). */
    if (rc == 0 && dp_noise_is_secure(&noise))
        for (size_t j = 0; j < P; j++) m->w[j] = dp_noise_snap(&noise, m->w[j]);
    if (rc == 0) {
        for (size_t j = 0; j < P; j++) m->w[j] += DP_DEBUG_NOISE(z[j]);
        dp_curve_point *last = &result->curve[result->n_curve - 1];
        rc = dp_cvx_evaluate(m, train, test, last, err);
        result->final = *last;
        result->noise_std = plan->noise_std;
    }
    free(z);
    return rc;
}
