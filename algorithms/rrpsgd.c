/* rrpsgd.c: Random Round Private SGD, Zhang17 (Zhang, Zheng, Mou, Wang, IJCAI 2017)
 * Alg. 2:
 *   draw R from P (line 1);  for t = 0..R-1: xi ~ U(S) (line 3),
 *   z_t ~ exp(-eps^2 ||z||^2 / (8 L^2 log(3n/delta) log(2/delta))), i.e. N(0, s^2 I) with
 *   s^2 = 4 L^2 log(3n/delta) log(2/delta) / eps^2 (line 4, dp_thm_zhang17_rrpsgd_noise),
 *   w_{t+1} = w_t - eta_t (grad f(w_t, xi) + z_t) (line 5);  output w_R.
 * Thm 4: (eps, delta)-DP for eps in (0, 1], delta in (0, 1), whatever R <= n^2.
 * Thm 5: P(R = k+1) proportional to 2 eta_k - beta eta_k^2 over k < n^2; with the
 * recommended constant step eta = min(1/beta, D_F / (sigma n)), sigma^2 = 4 L^2 + p s^2,
 * D_F = sqrt(2 (F(w_0) - F*) / beta), that distribution is uniform on {1..n^2}.
 *
 * Choices where the paper is silent:
 * - f(w, xi) = data loss + mu/2 ||w||^2 (mu = model.l2); L is the data loss's Lipschitz
 *   bound for rows in the ball of radius B, bias included (convex_common.h): z_t protects
 *   the data loss's gradient, the regularizer's is the same on neighbouring data sets.
 *   beta = beta_loss + mu is the smoothness of f.
 * - D_F: w_0 = 0 and F* >= 0 (the paper: "note that F* >= 0 in our settings") give
 *   D_F <= sqrt(2 F(0) / beta), data-independent for classification (F(0) = log 2 for
 *   logistic, log k for softmax). Regression needs an explicit step.
 * - Thm 5's sigma uses p = k (d + 1), the number of parameters, for the paper's d.
 * - A smaller horizon m < n^2 (cfg->rounds) keeps P uniform on {1..m}: still Thm 5's
 *   distribution for eta_k = eta (k < m) and 0 beyond, and still R <= n^2 for Thm 4.
 * - The example of each round is drawn as dp_train_linear draws a wor batch of one (one
 *   Fisher-Yates step over a persistent index array), so the noise-free run is dperm's
 *   sgd bit for bit; any uniform draw would do for the theorem.
 * - Non-convex losses, the case Alg. 2 is for (Thm 5 needs only smoothness): on a deep
 *   model, L is algorithm.clip, enforced by clipping every per-example gradient (Thm 4's
 *   proof needs nothing else), and each round is dp_train_model's DP-SGD step with a
 *   wor batch of one and noise multiplier s/L (noise std s), stopped after R steps.
 *   beta and D_F are unknown there, so the step must be given.
 */
#include "algorithms/rrpsgd.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/privacy/theorems.h"
#include "algorithms/train_model.h"

/* The plan from the data loss's Lipschitz bound L, the objective's smoothness beta (NaN
 * when unknown: a deep model; then cfg->step is required and unchecked against 2/beta),
 * mu, the parameter count and F(0) (NaN when unknown: no D_F, no default step). */
static int make_plan(double L, double beta, double mu, long dim, double F0,
                     const dp_rrpsgd_cfg *cfg, size_t n, dp_rrpsgd_plan *plan, dp_err *err)
{
    dp_rrpsgd_plan p = {0};
    int rc;
    if (n < 1 || n >= (1UL << 31))
        return dp_err_set(err, DP_EINVAL, "n = %zu is outside [1, 2^31)", n);
    if (cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "eval_every must be >= 1, got %ld", cfg->eval_every);
    p.L = L;
    p.mu = mu;
    p.beta = beta;
    long nn = (long)n;
    if ((rc = dp_thm_zhang17_rrpsgd_noise(cfg->eps, cfg->delta, p.L, nn, &p.sigma, err)))
        return rc;
    double n2 = (double)n * (double)n;
    if (cfg->rounds < 0 || (double)cfg->rounds > n2 || (double)cfg->rounds > (double)LONG_MAX)
        return dp_err_set(err, DP_EPRIVACY, "rounds = %ld: Zhang17 Thm 4 covers R <= n^2 = "
                          "%.0f", cfg->rounds, n2);
    p.m = cfg->rounds ? cfg->rounds : nn * nn;
    p.D_F = isnan(beta) || isnan(F0) ? NAN : sqrt(2.0 * F0 / p.beta);
    p.step_from_theorem = cfg->step == 0.0;
    if (p.step_from_theorem) {
        if (isnan(p.D_F))
            return dp_err_set(err, DP_EINVAL, "Zhang17 Thm 5's step needs D_F and beta, "
                              "unknown for regression targets and deep models: give the step");
        if ((rc = dp_thm_zhang17_rrpsgd_step(cfg->eps, cfg->delta, p.L, p.beta, nn, dim,
                                             p.D_F, &p.sigma2_thm5, &p.eta, err)))
            return rc;
        *plan = p;
        return 0;
    }
    if (!(cfg->step > 0.0) || !isfinite(cfg->step))
        return dp_err_set(err, DP_EINVAL, "step must be > 0 and finite, got %g", cfg->step);
    /* Thm 5's variance does not involve beta: any positive beta gives it. */
    if ((rc = dp_thm_zhang17_rrpsgd_step(cfg->eps, cfg->delta, p.L, 1.0, nn, dim, 1.0,
                                         &p.sigma2_thm5, NULL, err)))
        return rc;
    if (!isnan(p.beta) && !(cfg->step < 2.0 / p.beta))
        return dp_err_set(err, DP_EPRIVACY, "Zhang17 Thm 5 needs eta < 2/beta = %g, got %g",
                          2.0 / p.beta, cfg->step);
    p.eta = cfg->step;
    *plan = p;
    return 0;
}

int dp_rrpsgd_make_plan(const dp_linear *m, const dp_rrpsgd_cfg *cfg, size_t n,
                        dp_rrpsgd_plan *plan, dp_err *err)
{
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    double L, beta_loss, F0 = NAN;
    int rc;
    if ((rc = dp_cvx_constants(m, cfg->feature_bound, &L, &beta_loss, err))) return rc;
    if (dp_cvx_zero_loss(m, &F0, NULL) != 0) F0 = NAN;
    return make_plan(L, beta_loss + m->l2, m->l2, (long)m->n_params, F0, cfg, n, plan, err);
}

int dp_rrpsgd_make_plan_model(const dp_model *m, double l2, double clip,
                              const dp_rrpsgd_cfg *cfg, size_t n, dp_rrpsgd_plan *plan,
                              dp_err *err)
{
    if (!cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (!(clip > 0.0) || !isfinite(clip))
        return dp_err_set(err, DP_EINVAL, "a deep model has no Lipschitz bound: give clip "
                          "L > 0, the bound every clipped per-example gradient keeps");
    /* Without the model (a config check before it is built) only Thm 5's recorded
     * variance lacks its parameter count: one stands in; the noise does not use it. */
    long dim = m ? (long)m->n_params : 1;
    return make_plan(clip, NAN, l2, dim, NAN, cfg, n, plan, err);
}

long dp_rrpsgd_draw_round(uint64_t seed, const dp_rrpsgd_plan *plan)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_ALGO);
    return (long)dp_rng_below(&r, (uint64_t)plan->m) + 1;
}

/* Curve point for the current weights after `round` rounds. */
static int point(const dp_linear *m, const dp_cvx_set *train, const dp_cvx_set *test,
                 long round, dp_train_result *res, dp_err *err)
{
    dp_curve_point pt = {0};
    int rc = dp_cvx_evaluate(m, train, test, &pt, err);
    if (rc) return rc;
    pt.iteration = round;
    pt.epoch = (double)round / (double)train->n;
    res->curve[res->n_curve++] = pt;
    return 0;
}

int dp_rrpsgd_run(dp_linear *m, const dp_rrpsgd_cfg *cfg, const dp_rrpsgd_plan *plan, long R,
                  const dp_cvx_set *train, const dp_cvx_set *test, dp_train_result *result,
                  dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !plan || !train || !test)
        return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (R < 1 || cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "need R >= 1 and eval_every >= 1 (R %ld)", R);
    if ((train->t == NULL) == (m->n_classes == 0))
        return dp_err_set(err, DP_EINVAL, "the training set does not match the model");
    int rc = dp_cvx_check_rows(train->x, train->n, m->d, cfg->feature_bound, err);
    if (rc) return rc;
    size_t n = train->n, d = m->d, P = m->n_params, k = (size_t)m->k;
    size_t cap = (size_t)(R / cfg->eval_every) + 2;
    size_t *idx = malloc(n * sizeof *idx);
    double *g = malloc((P + 2 * k) * sizeof *g);
    result->curve = calloc(cap, sizeof *result->curve);
    if (!idx || !g || !result->curve) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for RRPSGD's buffers");
        goto done;
    }
    double *Rk = g + P, *ws = Rk + k;
    for (size_t i = 0; i < n; i++) idx[i] = i;
    dp_rng batch;
    dp_rng_init(&batch, cfg->seed, DP_STREAM_BATCH);
    dp_noise noise; /* seeded: DP_STREAM_NOISE; secure: getrandom (base/noise_source.h) */
    if ((rc = dp_noise_init(&noise, cfg->seed, DP_STREAM_NOISE, cfg->secure_noise, err)))
        goto done;
    double s = cfg->noise ? plan->sigma : 0.0, eta = plan->eta, mu = m->l2;
    double *w = m->w;
    result->noise_std = s;
    if ((rc = point(m, train, test, 0, result, err))) goto done;
    long t = 0;
    for (; t < R; t++) {
        /* xi ~ U(S): one Fisher-Yates step, as the trainer's wor batch of one. */
        size_t j = (size_t)dp_rng_below(&batch, n);
        size_t tmp = idx[0];
        idx[0] = idx[j];
        idx[j] = tmp;
        size_t i = idx[0];
        const double *xi = train->x + i * d;
        if (train->t)
            dp_linear_residuals_reg(m, xi, train->t + i, 1, Rk);
        else
            dp_linear_residuals(m, xi, train->y + i, 1, Rk);
        memset(g, 0, P * sizeof *g);
        dp_linear_grad_accumulate(g, xi, Rk, NULL, 1, d, m->k, ws);
        if (s > 0.0) dp_noise_add_gaussian(&noise, g, P, s, 1);
        if ((rc = dp_noise_check(&noise, err))) goto done;
        int finite = 1;
        for (size_t q = 0; q < P; q++) {
            double dq = g[q] / 1.0 + mu * w[q]; /* the trainer's g/b + mu w with b = 1 */
            double wq = w[q] - eta * dq;
            finite &= isfinite(wq);
            g[q] = w[q]; /* keep w_t: a non-finite step is undone */
            w[q] = wq;
        }
        if (!finite) {
            memcpy(w, g, P * sizeof *w);
            result->diverged = 1;
            break;
        }
        if ((t + 1) % cfg->eval_every == 0 && t + 1 < R &&
            (rc = point(m, train, test, t + 1, result, err)))
            goto done;
    }
    result->iterations = t;
    if ((rc = point(m, train, test, t, result, err))) goto done;
    result->final = result->curve[result->n_curve - 1];
done:
    free(idx);
    free(g);
    return rc;
}

int dp_rrpsgd_run_model(dp_model *m, const dp_rrpsgd_cfg *cfg, const dp_rrpsgd_plan *plan,
                        long R, double l2, const double *x_train, const int *y_train,
                        size_t n_train, const double *x_test, const int *y_test,
                        size_t n_test, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (R < 1 || cfg->eval_every < 1 || n_train < 1)
        return dp_err_set(err, DP_EINVAL, "need R >= 1, eval_every >= 1 and data (R %ld)", R);
    /* Rounds of one example each: epochs of n steps, the last one cut at R; curve points
     * every ceil(eval_every / n) epochs (the trainer counts in epochs). */
    double epochs = ceil((double)R / (double)n_train);
    double every = ceil((double)cfg->eval_every / (double)n_train);
    if (epochs > (double)INT_MAX)
        return dp_err_set(err, DP_EINVAL, "R = %ld rounds is beyond what dperm runs", R);
    dp_train_cfg c = {.algorithm = DP_ALGO_DP_SGD,
                      .epochs = (int)epochs,
                      .max_steps = R,
                      .batch_size = 1,
                      .sampling = DP_SAMPLING_WOR,
                      .lr_schedule = DP_LR_CONSTANT,
                      .lr = plan->eta,
                      .clip = plan->L,
                      .noise_multiplier = cfg->noise ? plan->sigma / plan->L : 0.0,
                      .eval_every = every < (double)INT_MAX ? (int)every : INT_MAX,
                      .seed = cfg->seed,
                      .secure_noise = cfg->secure_noise};
    return dp_train_model(m, &c, l2, x_train, y_train, n_train, x_test, y_test, n_test,
                          result, err);
}
