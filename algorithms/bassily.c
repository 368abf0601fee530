/* bassily.c: private SGD, Bassily, Smith & Thakurta 2014 as Lecture15 (Di Wang, DP-ERM
 * notes) Alg. 3 and Lemma 15.5 give it:
 *   g~_{t-1} = grad l(theta_{t-1}, x_i) + N(0, sigma^2 I),  i ~ uniform{1..n},
 *   theta_t  = theta_{t-1} - eta g~_{t-1},
 *   sigma^2  = 64 L^2 T log(2/delta) log(2.5 T/(delta n)) / (n^2 eps^2),
 * and in the mini-batch form Zhang17 §4 used as its baseline ("batch size m = 50 ... a
 * natural implication of amplification lemma"): a uniform b-subset per step (Lemma 15.4
 * with m = b, i.e. n/b in place of n in the lemma's proof), the noise on the sum of the b
 * gradients, the step on (sum + noise)/b.
 *
 * Choices where the sources are silent:
 * - T: the lecture's T = n^2 for b = 1 (eqs. 15.6-15.7 "if we take T = n^2"); for a batch
 *   (n/b)^2, the same with n/b records, rounded up to whole epochs of floor(n/b) steps (the
 *   trainer counts epochs); sigma is computed for the T actually run.
 * - Steps: Lemma 15.6 (convex): eta_t = ||C|| / (G sqrt t) with G^2 = L^2 + p (sigma/b)^2
 *   the second-moment bound of eq. 15.5 on the averaged noisy gradient (the lemma's
 *   statement writes L for G; its proof needs the bound G), ||C|| = algorithm.norm_bound;
 *   Lemma 15.7 (mu-strongly convex, mu = model.l2 > 0): eta_t = 1/(mu t).
 * - No projection Pi_C: dperm's trainer has none, and for mu > 0 the minimizer lies in
 *   ||w|| <= sqrt(2 F(0)/mu) anyway; for mu = 0 this is SGD on R^p.
 * - L: the data loss's Lipschitz bound for rows in the ball of radius B
 *   (convex_common.h); each per-example gradient is clipped at L, which never binds for
 *   rows inside the ball (they are checked) but makes the sensitivity hold by
 *   construction. The l2 term is added outside the noisy sum, as in every dperm trainer.
 * - Deep models (InputPert §6's MLP): nothing in the privacy proof needs convexity, only
 *   a bound L on every per-example gradient, which clipping at algorithm.clip enforces
 *   (DP-SGD's way); the steps follow the same lemmas with mu = model.l2 (their utility
 *   bounds assume convexity and are not claimed there).
 * - Sampling: each step an independent uniform b-subset (DP_SAMPLING_WOR), exactly
 *   Lemma 15.4's "uniformly random set S of size m".
 */
#include "algorithms/bassily.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "algorithms/privacy/theorems.h"
#include "algorithms/train_model.h"

int dp_bassily_sigma(double eps, double delta, double L, long T, long n, long b, double *sigma,
                     dp_err *err)
{
    if (!sigma) return dp_err_set(err, DP_EINVAL, "NULL output sigma");
    if (!(eps > 0.0) || !isfinite(eps))
        return dp_err_set(err, DP_EINVAL, "eps must be > 0 and finite, got %g", eps);
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta must be in (0, 1), got %g", delta);
    if (!(L > 0.0) || !isfinite(L))
        return dp_err_set(err, DP_EINVAL, "Lipschitz constant L must be > 0, got %g", L);
    if (T < 1 || n < 1 || b < 1 || b > n)
        return dp_err_set(err, DP_EINVAL, "need T >= 1 and 1 <= b <= n (T %ld, n %ld, b %ld)",
                          T, n, b);
    if (!(eps < 1.0))
        return dp_err_set(err, DP_EPRIVACY, "Lecture15 Lemma 15.5 needs eps < 1 (Lemma 15.2's "
                          "advanced composition), got %g", eps);
    double t = (double)T, nb = (double)n / (double)b;
    double eps_full = nb * eps / (2.0 * sqrt(2.0 * t * log(2.0 / delta)));
    if (!(eps_full < 1.0))
        return dp_err_set(err, DP_EPRIVACY, "Lecture15 Lemma 15.5: the full-sum mechanism must "
                          "satisfy Lemma 15.3's eps < 1, but (n/b) eps / (2 sqrt(2 T "
                          "ln(2/delta))) = %g (more steps T or a smaller eps are needed)",
                          eps_full);
    if (!(nb * delta / (2.0 * t) < 1.0))
        return dp_err_set(err, DP_EPRIVACY, "Lecture15 Lemma 15.5: the full-sum mechanism's "
                          "delta (n/b) delta / (2T) = %g must be < 1", nb * delta / (2.0 * t));
    *sigma = 8.0 * L * sqrt(t * log(2.0 / delta) * log(2.5 * t / (delta * nb))) / (nb * eps);
    return 0;
}

/* The plan from the data loss's Lipschitz bound L (the clip), the objective's smoothness
 * beta (recorded only; NaN when unknown), mu = l2 and the parameter count. */
static int make_plan(double L, double beta, double mu, size_t n_params,
                     const dp_bassily_cfg *cfg, size_t n, dp_bassily_plan *plan, dp_err *err)
{
    dp_bassily_plan p = {0};
    int rc;
    if (n < 1 || n > (size_t)LONG_MAX || cfg->batch_size < 1 || cfg->batch_size > n)
        return dp_err_set(err, DP_EINVAL, "batch size %zu must be in [1, n = %zu]",
                          cfg->batch_size, n);
    if (cfg->iterations < 0 || !(cfg->step >= 0.0) || !isfinite(cfg->step))
        return dp_err_set(err, DP_EINVAL, "iterations and step must be >= 0 (0: the "
                          "lecture's choice)");
    p.L = L;
    p.mu = mu;
    p.beta = beta;
    long per_epoch = (long)(n / cfg->batch_size);
    double nb = (double)n / (double)cfg->batch_size;
    double want = cfg->iterations > 0 ? (double)cfg->iterations : ceil(nb * nb);
    double epochs = ceil(want / (double)per_epoch);
    if (epochs > (double)INT_MAX)
        return dp_err_set(err, DP_EINVAL, "T = %.0f steps is beyond what dperm runs", want);
    p.epochs = (int)epochs;
    p.T = (long)p.epochs * per_epoch;
    if ((rc = dp_bassily_sigma(cfg->eps, cfg->delta, p.L, p.T, (long)n,
                               (long)cfg->batch_size, &p.sigma, err)))
        return rc;
    p.noise_multiplier = p.sigma / p.L;
    double sb = p.sigma / (double)cfg->batch_size;
    p.G = sqrt(p.L * p.L + (double)n_params * sb * sb);
    p.step_from_theorem = cfg->step == 0.0;
    if (p.mu > 0.0) {
        p.schedule = DP_LR_INVERSE_T;
        p.a = 1.0 / p.mu;
    } else {
        p.schedule = DP_LR_INVERSE_SQRT_T;
        if (p.step_from_theorem && !(cfg->norm_bound > 0.0 && isfinite(cfg->norm_bound)))
            return dp_err_set(err, DP_EINVAL, "Lecture15 Lemma 15.6 (mu = 0) steps with "
                              "||C|| / (G sqrt t): give norm_bound ||C|| > 0");
        p.a = cfg->norm_bound / p.G;
    }
    if (!p.step_from_theorem) p.a = cfg->step;
    *plan = p;
    return 0;
}

int dp_bassily_make_plan(const dp_linear *m, const dp_bassily_cfg *cfg, size_t n,
                         dp_bassily_plan *plan, dp_err *err)
{
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    double L, beta_loss;
    int rc;
    if ((rc = dp_cvx_constants(m, cfg->feature_bound, &L, &beta_loss, err))) return rc;
    return make_plan(L, beta_loss + m->l2, m->l2, m->n_params, cfg, n, plan, err);
}

int dp_bassily_make_plan_model(const dp_model *m, double l2, double clip,
                               const dp_bassily_cfg *cfg, size_t n, dp_bassily_plan *plan,
                               dp_err *err)
{
    if (!cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (!(clip > 0.0) || !isfinite(clip))
        return dp_err_set(err, DP_EINVAL, "a deep model has no Lipschitz bound: give clip "
                          "C > 0, the bound every clipped per-example gradient keeps");
    return make_plan(clip, NAN, l2, m ? m->n_params : 0, cfg, n, plan, err);
}

/* The trainer's settings for the plan: dp_sgd, wor batches, clip L, noise multiplier
 * sigma/L (0 with noise off), the plan's schedule. Linear and deep models share them. */
static dp_train_cfg trainer_cfg(const dp_bassily_cfg *cfg, const dp_bassily_plan *plan)
{
    return (dp_train_cfg){.algorithm = DP_ALGO_DP_SGD,
                          .epochs = plan->epochs,
                          .batch_size = cfg->batch_size,
                          .sampling = DP_SAMPLING_WOR,
                          .lr_schedule = plan->schedule,
                          .lr_a = plan->a,
                          .clip = plan->L,
                          .noise_multiplier = cfg->noise ? plan->noise_multiplier : 0.0,
                          .eval_every = cfg->eval_every,
                          .seed = cfg->seed,
                          .secure_noise = cfg->secure_noise};
}

int dp_bassily_train(dp_linear *m, const dp_bassily_cfg *cfg, const dp_cvx_set *train,
                     const dp_cvx_set *test, dp_bassily_plan *plan, dp_train_result *result,
                     dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !train || !test || !plan)
        return dp_err_set(err, DP_EINVAL, "NULL argument");
    int rc;
    if ((rc = dp_cvx_check_rows(train->x, train->n, m->d, cfg->feature_bound, err)) ||
        (rc = dp_bassily_make_plan(m, cfg, train->n, plan, err)))
        return rc;
    dp_train_cfg c = trainer_cfg(cfg, plan);
    return train->t ? dp_train_linear_reg(m, &c, train->x, train->t, train->n, test->x,
                                          test->t, test->n, result, err)
                    : dp_train_linear(m, &c, train->x, train->y, train->n, test->x, test->y,
                                      test->n, result, err);
}

int dp_bassily_train_model(dp_model *m, const dp_bassily_cfg *cfg, double l2, double clip,
                           const double *x_train, const int *y_train, size_t n_train,
                           const double *x_test, const int *y_test, size_t n_test,
                           dp_bassily_plan *plan, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    int rc = dp_bassily_make_plan_model(m, l2, clip, cfg, n_train, plan, err);
    if (rc) return rc;
    dp_train_cfg c = trainer_cfg(cfg, plan);
    return dp_train_model(m, &c, l2, x_train, y_train, n_train, x_test, y_test, n_test,
                          result, err);
}
