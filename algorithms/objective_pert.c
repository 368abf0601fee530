/* objective_pert.c: objective perturbation (Chaudhuri, Monteleoni & Sarwate 2011, Alg. 2;
 * Kifer, Smith & Thakurta 2012, Thm 2), formulas and preconditions in objective_pert.h.
 *
 * Choices where the papers are silent:
 *   - the perturbed objective is minimized exactly (erm_exact.c, ||grad|| <= 1e-10 from
 *     w = 0): the theorems are about the exact argmin, so an approximate solver would
 *     leave a privacy gap the papers do not account for.
 *   - the bias is regularized and has feature 1, so the constants use rho^2 = B^2 + 1
 *     (objective_pert.h); B is the public feature bound (algorithm.feature_bound), and
 *     rows are checked against it with dp_cvx_check_rows's relative slack of 1e-12 (rows
 *     normalized to norm exactly B).
 *   - noise off (debug only) means b = 0 and Delta = 0: then the result is dp_erm_solve's
 *     minimizer of the plain objective, bit for bit; nothing private is claimed
 *     (eps_spent = inf).
 *   - the neighbour relation is the caller's (privacy.neighbours); the Gaussian's
 *     sensitivity is zeta or 2 zeta accordingly (objective_pert.h).
 *   - Gaussian b is drawn with dp_rng_gaussian coordinate by coordinate from stream
 *     DP_STREAM_NOISE of the run seed; the laplace-type b with dp_mech_hdlaplace_sample
 *     (sensitivity argument 2 rho: density exp(-eps' ||b|| / (2 rho))).
 */
#include "algorithms/objective_pert.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/convex_common.h"
#include "algorithms/debug_noise.h"
#include "algorithms/privacy/mechanisms.h"

#define LOGISTIC_C 0.25 /* sup of l''(t) for l(t) = log(1 + e^-t) */

int dp_objpert_make_plan(const dp_linear *m, const dp_objpert_cfg *c, size_t n,
                         dp_objpert_plan *plan, dp_err *err)
{
    if (m->loss != DP_LOSS_LOGISTIC) {
        const char *why =
            m->loss == DP_LOSS_SOFTMAX
                ? "its Hessian has rank k - 1 > 1 and Chaudhuri et al.'s proof is for a "
                  "scalar margin loss; use a binary logistic model"
            : m->loss == DP_LOSS_SQUARED
                ? "the squared loss has no gradient bound (zeta) on R^d"
                : "the Huber loss is not twice differentiable at |u| = delta, which both "
                  "theorems require";
        return dp_err_set(err, DP_EINVAL,
                          "objective_perturbation covers the binary logistic loss only: %s",
                          why);
    }
    if (!(c->eps > 0.0) || !isfinite(c->eps))
        return dp_err_set(err, DP_EINVAL, "objective_perturbation: epsilon %g must be > 0 and "
                          "finite", c->eps);
    if (c->mechanism == DP_OBJPERT_GAUSSIAN && !(c->delta > 0.0 && c->delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "objective_perturbation (gaussian): delta %g must "
                          "be in (0, 1)", c->delta);
    if (c->mechanism != DP_OBJPERT_GAUSSIAN && c->mechanism != DP_OBJPERT_LAPLACE)
        return dp_err_set(err, DP_EINVAL, "objective_perturbation: unknown mechanism %d",
                          (int)c->mechanism);
    if (!(c->feature_bound > 0.0) || !isfinite(c->feature_bound))
        return dp_err_set(err, DP_EINVAL, "algorithm.feature_bound %g must be > 0 and finite",
                          c->feature_bound);
    if (n == 0) return dp_err_set(err, DP_EINVAL, "objective_perturbation: no training data");
    if (c->mechanism == DP_OBJPERT_LAPLACE && !c->replace_one)
        return dp_err_set(err, DP_EINVAL, "objective_perturbation (laplace): Chaudhuri et "
                          "al.'s analysis is for replace-one neighbours; add/remove has none "
                          "here (use mechanism: gaussian, or neighbours: replace_one)");
    double rho2 = c->feature_bound * c->feature_bound + 1.0, rho = sqrt(rho2);
    double nd = (double)n, mu = m->l2, eps = c->eps;
    memset(plan, 0, sizeof *plan);
    plan->zeta = rho;
    plan->sensitivity = c->replace_one ? 2.0 * rho : rho;
    plan->lambda = LOGISTIC_C * rho2;
    if (!c->noise) {
        plan->eps_prime = INFINITY;
        plan->eps_spent = INFINITY;
        plan->delta_spent = 1.0; /* no guarantee at all */
        return 0;
    }
    if (c->mechanism == DP_OBJPERT_LAPLACE) {
        /* Chaudhuri et al. Alg. 2 with c rho^2 in place of c (objective_pert.h). */
        double a = LOGISTIC_C * rho2 / (nd * mu); /* inf for mu = 0 */
        double ep = mu > 0.0 ? eps - log1p(2.0 * a + a * a) : -INFINITY;
        if (ep > 0.0) {
            plan->extra_l2 = 0.0;
        } else {
            plan->extra_l2 = LOGISTIC_C * rho2 / (nd * expm1(eps / 4.0)) - mu;
            ep = eps / 2.0;
        }
        plan->eps_prime = ep;
        plan->noise_scale = 2.0 * rho / ep;
        plan->noise_std = sqrt((double)m->n_params + 1.0) * plan->noise_scale;
        plan->eps_spent = eps;
        plan->delta_spent = 0.0;
    } else {
        /* Kifer et al. Thm 2, rank 1. */
        plan->eps_prime = eps;
        plan->extra_l2 = 2.0 * plan->lambda / (eps * nd);
        plan->noise_scale = plan->sensitivity * sqrt(8.0 * log(2.0 / c->delta) + 4.0 * eps) / eps;
        plan->noise_std = plan->noise_scale;
        plan->eps_spent = eps;
        plan->delta_spent = c->delta;
    }
    if (!isfinite(plan->noise_scale) || !isfinite(plan->extra_l2))
        return dp_err_set(err, DP_EINVAL, "objective_perturbation: the noise scale overflows "
                          "at epsilon %g, n %zu", eps, n);
    return 0;
}

int dp_objpert_noise(dp_rng *r, const dp_objpert_cfg *c, const dp_objpert_plan *plan,
                     double *b, size_t p, dp_err *err)
{
    if (!c->noise) {
        memset(b, 0, p * sizeof *b);
        return 0;
    }
    if (c->mechanism == DP_OBJPERT_LAPLACE)
        return dp_mech_hdlaplace_sample(r, b, p, plan->eps_prime, 2.0 * plan->zeta, err);
    double scale = DP_DEBUG_NOISE(plan->noise_scale);
    for (size_t j = 0; j < p; j++) b[j] = scale * dp_rng_gaussian(r);
    return 0;
}

int dp_objpert_train(dp_linear *m, const dp_erm_data *D, const dp_objpert_cfg *c,
                     dp_objpert_plan *plan, dp_erm_result *res, dp_err *err)
{
    int rc;
    if ((rc = dp_objpert_make_plan(m, c, D->n, plan, err)) ||
        (rc = dp_cvx_check_rows(D->x, D->n, m->d, c->feature_bound, err)))
        return rc;
    size_t p = m->n_params;
    double *b = malloc(p * sizeof *b);
    if (!b) return dp_err_set(err, DP_ENOMEM, "objective_perturbation: out of memory");
    dp_rng r;
    dp_rng_init(&r, c->seed, DP_STREAM_NOISE);
    rc = dp_objpert_noise(&r, c, plan, b, p, err);
    if (rc == 0) {
        memset(m->w, 0, p * sizeof *m->w);
        /* noise off: no extra terms at all, so the solve is dp_erm_solve's own. */
        dp_erm_extra ex = {b, plan->extra_l2};
        rc = dp_erm_solve(m, D, c->noise ? &ex : NULL, 0, 0, res, err);
    }
    free(b);
    return rc;
}
