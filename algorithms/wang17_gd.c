/* wang17_gd.c: DP-GD, Wang, Ye & Xu, "Differentially Private Empirical Risk Minimization
 * Revisited: Faster and More General", NeurIPS 2017 (arXiv 1802.05251), §6 (ERM for
 * general functions): full-batch gradient descent with Gaussian noise on every gradient,
 *   theta_t = theta_{t-1} - eta (grad L(theta_{t-1}; D) + z_t),  z_t ~ N(0, sigma^2 I_p),
 *   sigma^2 = c G^2 T log(1/delta) / (n^2 eps^2)            (privacy theorem of §6; the
 *                                                            variance InputPert Table 1
 *                                                            restates for "traditional")
 * for every G-Lipschitz loss, "for some constant c", output theta_T; and for a beta-smooth
 * loss whose objective satisfies the Polyak-Lojasiewicz condition with mu (mu-strong
 * convexity implies it) eta = 1/beta and T = O~(log(n^2 eps^2 / (p G^2 log(1/delta))))
 * (Thm 6.2; section and theorem numbers of arXiv 1802.05251 as secondary sources give
 * them: the full text was not at hand to confirm them). Neighbours: data sets of the
 * same size n differing in one record (replace-one, as the paper and InputPert define
 * them).
 *
 * Constants and choices where the paper is silent:
 * - c: unspecified in the paper. dperm takes the smallest sigma that provably suffices:
 *   replacing one record moves the averaged gradient by at most 2G/n, and T adaptive
 *   Gaussian steps of std sigma on a query of that sensitivity have exactly the privacy
 *   loss of one Gaussian of std sigma/sqrt(T) (the mechanisms' mu-GDPs compose to
 *   sqrt(T) (2G/n)/sigma), so
 *     sigma = sqrt(T) * dp_mech_gaussian_sigma_analytic(eps, delta, 2G/n)
 *   (Balle & Wang 2018, exact). The record carries c_effective = sigma^2 n^2 eps^2 /
 *   (G^2 T ln(1/delta)), the paper's c this amounts to (it does not depend on T; at
 *   delta 1e-5 it is 2.1 at eps 0.01, 3.8 at 0.25, 4.8 at 1, below the classic
 *   Gaussian's 8 ln(1.25/delta)/ln(1/delta) = 8.2), and the exact epsilon of the T steps
 *   (dp_wang17_epsilon), which equals the target.
 * - T: the theorem states it up to O~(.). dperm takes
 *     T = max(1, ceil((beta/mu) ln(n^2 eps^2 / (p G^2 ln(1/delta))))),
 *   the constant of GD's contraction: with step 1/beta on a beta-smooth mu-PL objective
 *   each step shrinks E[F - F*] by (1 - mu/beta) up to the noise's p sigma^2 / (2 beta)
 *   (Karimi, Nutini & Schmidt 2016, Thm 1, with the noise added), so (beta/mu) ln(1/r)
 *   steps shrink the start's gap by r; the theorem's log takes r of the order of the
 *   noise floor p G^2 log(1/delta) / (n^2 eps^2). p is the number of parameters. With
 *   mu = 0 there is no PL constant and no T: it must be given (sigma grows with it, so
 *   it is never guessed).
 * - eta: 1/beta, the theorem's; beta = beta_loss + mu, the smoothness of the whole
 *   objective GD runs on.
 * - G, beta_loss: the data loss's constants for rows in the ball of radius B, bias
 *   included (convex_common.h: logistic G = sqrt(B^2 + 1), beta = (B^2 + 1)/4; softmax and
 *   Huber likewise; the squared loss has no G and is refused). mu = model.l2: the l2 term
 *   is the same on neighbouring data sets, so it is added outside the noisy part and does
 *   not enter G. B is public; rows outside it are refused.
 * - Every per-example gradient is clipped at G (DP-SGD's clipping, through the trainer):
 *   on rows inside the ball it never binds, and it makes the sensitivity 2G/n hold by
 *   construction. With the noise off nothing is clipped: the run is dperm's gd.
 * - The noise goes on the sum of the n gradients with std sigma n, then the sum is divided
 *   by n: the update is exactly theta - eta (grad + z) with z of std sigma (rounding
 *   aside). Noise on every parameter, bias included. w_0 = 0.
 * - Deep models: §6 is about non-convex losses and the privacy argument needs only the
 *   bound G on each per-example gradient, which clipping at algorithm.clip gives; beta and
 *   mu are unknown there, so T and eta must be given.
 * GD is dp_train_linear / dp_train_model with full batches and a constant step, so this
 * file holds no loop of its own.
 */
#include "algorithms/wang17_gd.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "algorithms/privacy/mechanisms.h"
#include "algorithms/train_model.h"

static int check_pos(const char *what, double v, dp_err *err)
{
    if (!(v > 0.0) || !isfinite(v))
        return dp_err_set(err, DP_EINVAL, "%s must be > 0 and finite, got %g", what, v);
    return 0;
}

/* The parameters every calibration shares. */
static int privacy_args(double delta, double G, long n, long T, dp_err *err)
{
    int rc;
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta must be in (0, 1), got %g", delta);
    if ((rc = check_pos("the Lipschitz bound G", G, err))) return rc;
    if (n < 1) return dp_err_set(err, DP_EINVAL, "n must be >= 1, got %ld", n);
    if (T < 1) return dp_err_set(err, DP_EINVAL, "iterations T must be >= 1, got %ld", T);
    return 0;
}

int dp_wang17_sigma(double eps, double delta, double G, long n, long T, double *sigma,
                    dp_err *err)
{
    double s1;
    int rc;
    if (!sigma) return dp_err_set(err, DP_EINVAL, "NULL output sigma");
    if ((rc = check_pos("eps", eps, err)) || (rc = privacy_args(delta, G, n, T, err)) ||
        (rc = dp_mech_gaussian_sigma_analytic(eps, delta, 2.0 * G / (double)n, &s1, err)))
        return rc;
    *sigma = sqrt((double)T) * s1;
    return 0;
}

int dp_wang17_epsilon(double sigma, double delta, double G, long n, long T, double *eps,
                      dp_err *err)
{
    int rc;
    if (!eps) return dp_err_set(err, DP_EINVAL, "NULL output eps");
    if ((rc = check_pos("sigma", sigma, err)) || (rc = privacy_args(delta, G, n, T, err)))
        return rc;
    return dp_mech_gaussian_epsilon_analytic(sigma / sqrt((double)T), delta,
                                             2.0 * G / (double)n, eps, err);
}

int dp_wang17_theorem(double G, double beta, double mu, long n, long p, double eps,
                      double delta, long *T, double *eta, dp_err *err)
{
    int rc;
    if (!T || !eta) return dp_err_set(err, DP_EINVAL, "NULL output");
    if ((rc = check_pos("the strong convexity (PL constant) mu", mu, err)) ||
        (rc = check_pos("the smoothness beta", beta, err)) || (rc = check_pos("eps", eps, err)) ||
        (rc = privacy_args(delta, G, n, 1, err)))
        return rc;
    if (p < 1) return dp_err_set(err, DP_EINVAL, "the parameter count p must be >= 1, got %ld",
                                 p);
    double nn = (double)n;
    double arg = nn * nn * eps * eps / ((double)p * G * G * log(1.0 / delta));
    double v = beta / mu * log(arg);
    if (!(v < (double)INT_MAX))
        return dp_err_set(err, DP_EINVAL, "the theorem's T = %.3g steps is beyond what dperm "
                          "runs (beta/mu = %.3g): give iterations", v, beta / mu);
    *T = v > 1.0 ? (long)ceil(v) : 1;
    *eta = 1.0 / beta;
    return 0;
}

/* The plan from the data loss's G (the clip on deep models), the objective's smoothness
 * beta (NaN when unknown), mu = l2 and the parameter count p (0 when unknown). */
static int make_plan(double G, double beta, double mu, long p, const dp_wang17_cfg *cfg,
                     size_t n, dp_wang17_plan *plan, dp_err *err)
{
    dp_wang17_plan q = {0};
    int rc;
    if (!cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if ((rc = check_pos("eps", cfg->eps, err))) return rc;
    if (cfg->iterations < 0 || cfg->iterations > INT_MAX)
        return dp_err_set(err, DP_EINVAL, "iterations T must be in [1, %d] (0: the "
                          "theorem's), got %ld", INT_MAX, cfg->iterations);
    if (!(cfg->step >= 0.0) || !isfinite(cfg->step))
        return dp_err_set(err, DP_EINVAL, "step_size eta must be > 0 and finite (0: the "
                          "theorem's 1/beta), got %g", cfg->step);
    if (!(mu >= 0.0) || !isfinite(mu))
        return dp_err_set(err, DP_EINVAL, "l2 (mu) must be >= 0 and finite, got %g", mu);
    if (n < 1 || n > (size_t)LONG_MAX) return dp_err_set(err, DP_EINVAL, "n = %zu", n);
    long nn = (long)n;
    q.G = G;
    q.beta = beta;
    q.mu = mu;
    q.sens = 2.0 * G / (double)n;
    q.T_from_theorem = cfg->iterations == 0;
    double eta_thm = isfinite(beta) ? 1.0 / beta : NAN;
    if (mu > 0.0 && isfinite(beta) && p > 0) {
        /* Recorded beside a given T; an error only when it is the T to run. */
        dp_err terr;
        double unused;
        rc = dp_wang17_theorem(G, beta, mu, nn, p, cfg->eps, cfg->delta, &q.T_theorem,
                               &unused, &terr);
        if (rc && q.T_from_theorem) {
            if (err) *err = terr;
            return rc;
        }
        if (rc) q.T_theorem = 0;
    }
    q.eta_from_theorem = cfg->step == 0.0;
    if (q.T_from_theorem && q.T_theorem == 0)
        return dp_err_set(err, DP_EINVAL, "the theorem's T needs a strongly convex (PL) "
                          "objective with known smoothness: with %s give iterations",
                          isfinite(beta) ? "mu = model.l2 = 0" : "a deep model");
    if (q.eta_from_theorem && !isfinite(eta_thm))
        return dp_err_set(err, DP_EINVAL, "the theorem's step 1/beta needs the loss's "
                          "smoothness beta, unknown for a deep model: give step_size");
    q.T = q.T_from_theorem ? q.T_theorem : cfg->iterations;
    q.eta = q.eta_from_theorem ? eta_thm : cfg->step;
    if ((rc = dp_wang17_sigma(cfg->eps, cfg->delta, G, nn, q.T, &q.sigma, err)) ||
        (rc = dp_wang17_epsilon(q.sigma, cfg->delta, G, nn, q.T, &q.eps_tight, err)))
        return rc;
    double ne = (double)n * cfg->eps;
    q.c_effective = q.sigma * q.sigma * ne * ne / (G * G * (double)q.T * log(1.0 / cfg->delta));
    *plan = q;
    return 0;
}

int dp_wang17_make_plan(const dp_linear *m, const dp_wang17_cfg *cfg, size_t n,
                        dp_wang17_plan *plan, dp_err *err)
{
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    double G, beta_loss;
    int rc;
    if ((rc = dp_cvx_constants(m, cfg->feature_bound, &G, &beta_loss, err))) return rc;
    if (m->n_params > (size_t)LONG_MAX)
        return dp_err_set(err, DP_EINVAL, "p = %zu parameters", m->n_params);
    return make_plan(G, beta_loss + m->l2, m->l2, (long)m->n_params, cfg, n, plan, err);
}

int dp_wang17_make_plan_model(double l2, double clip, const dp_wang17_cfg *cfg, size_t n,
                              dp_wang17_plan *plan, dp_err *err)
{
    if (!(clip > 0.0) || !isfinite(clip))
        return dp_err_set(err, DP_EINVAL, "a deep model has no Lipschitz bound: give clip "
                          "C > 0, the bound every clipped per-example gradient keeps (got "
                          "%g)", clip);
    return make_plan(clip, NAN, l2, 0, cfg, n, plan, err);
}

/* The trainer's settings: T full-batch steps of the constant step eta; with the noise,
 * dp_sgd with clip G and noise std sigma n on the sum (noise multiplier sigma n / G), so
 * that (sum + noise)/n is the gradient plus z of std sigma; without, gd. */
static dp_train_cfg trainer_cfg(const dp_wang17_cfg *cfg, const dp_wang17_plan *plan,
                                size_t n)
{
    int noisy = cfg->noise != 0;
    return (dp_train_cfg){.algorithm = noisy ? DP_ALGO_DP_SGD : DP_ALGO_SGD,
                          .epochs = (int)plan->T,
                          .batch_size = n,
                          .sampling = DP_SAMPLING_FULL,
                          .lr_schedule = DP_LR_CONSTANT,
                          .lr = plan->eta,
                          .clip = noisy ? plan->G : INFINITY,
                          .noise_multiplier = noisy ? plan->sigma * (double)n / plan->G : 0.0,
                          .eval_every = cfg->eval_every,
                          .seed = cfg->seed,
                          .secure_noise = cfg->secure_noise};
}

int dp_wang17_train(dp_linear *m, const dp_wang17_cfg *cfg, const dp_cvx_set *train,
                    const dp_cvx_set *test, dp_wang17_plan *plan, dp_train_result *result,
                    dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !train || !test || !plan)
        return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "eval_every must be >= 1, got %d", cfg->eval_every);
    int rc;
    if ((rc = dp_cvx_check_rows(train->x, train->n, m->d, cfg->feature_bound, err)) ||
        (rc = dp_wang17_make_plan(m, cfg, train->n, plan, err)))
        return rc;
    dp_train_cfg c = trainer_cfg(cfg, plan, train->n);
    rc = train->t ? dp_train_linear_reg(m, &c, train->x, train->t, train->n, test->x, test->t,
                                        test->n, result, err)
                  : dp_train_linear(m, &c, train->x, train->y, train->n, test->x, test->y,
                                    test->n, result, err);
    if (rc) return rc;
    result->noise_std = cfg->noise ? plan->sigma : 0.0;
    return 0;
}

int dp_wang17_train_model(dp_model *m, const dp_wang17_cfg *cfg, double l2, double clip,
                          const double *x_train, const int *y_train, size_t n_train,
                          const double *x_test, const int *y_test, size_t n_test,
                          dp_wang17_plan *plan, dp_train_result *result, dp_err *err)
{
    memset(result, 0, sizeof *result);
    if (!m || !cfg || !plan) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (cfg->eval_every < 1)
        return dp_err_set(err, DP_EINVAL, "eval_every must be >= 1, got %d", cfg->eval_every);
    int rc = dp_wang17_make_plan_model(l2, clip, cfg, n_train, plan, err);
    if (rc) return rc;
    dp_train_cfg c = trainer_cfg(cfg, plan, n_train);
    rc = dp_train_model(m, &c, l2, x_train, y_train, n_train, x_test, y_test, n_test, result,
                        err);
    if (rc) return rc;
    result->noise_std = cfg->noise ? plan->sigma : 0.0;
    return 0;
}
