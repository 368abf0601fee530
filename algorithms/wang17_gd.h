/* wang17_gd.h: DP-GD of Wang, Ye & Xu (NeurIPS 2017, "Differentially Private Empirical
 * Risk Minimization Revisited: Faster and More General", §6), the full-gradient descent
 * with Gaussian noise on every step that InputPert compares against as "gradient
 * perturbation (Wang et al. 2017)":
 *   theta_t = theta_{t-1} - eta (grad L(theta_{t-1}; D) + z_t),  z_t ~ N(0, sigma^2 I_p),
 * t = 1..T, output theta_T. wang17_gd.c's header lists the constants and the choices made
 * where the paper is silent (its c, T's constant, G, beta, mu).
 */
#ifndef DPERM_WANG17_GD_H
#define DPERM_WANG17_GD_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/convex_common.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"

typedef struct dp_wang17_cfg {
    double eps;            /* > 0 and finite */
    double delta;          /* in (0, 1) */
    double feature_bound;  /* linear models: B > 0, every training row has ||x|| <= B
                              (checked); not used on deep models (clipping bounds G) */
    long iterations;       /* T >= 1, or 0: the theorem's T (needs mu > 0 and beta) */
    double step;           /* eta > 0, or 0: the theorem's 1/beta (needs beta) */
    int eval_every;        /* a curve point every this many GD steps (>= 1) */
    int noise;             /* 1: the algorithm; 0: no noise, plain GD (debug: gd bit for bit) */
    uint64_t seed;         /* z_t comes from stream DP_STREAM_NOISE of the seed */
    int secure_noise;      /* 1: from getrandom on a grid instead (base/noise_source.h) */
} dp_wang17_cfg;

/* Everything a run derives from cfg, the loss and n: recorded with the run. */
typedef struct dp_wang17_plan {
    double G;              /* Lipschitz bound of the per-example data loss (linear: from
                              convex_common.h; deep: the clip) */
    double beta;           /* smoothness of the regularized objective; NaN when unknown */
    double mu;             /* strong convexity (PL constant): model.l2 */
    double sens;           /* 2G/n: l2 sensitivity of the averaged gradient, replace-one */
    long T;                /* GD steps run */
    long T_theorem;        /* the theorem's T, or 0 when it has none (mu = 0, beta unknown) */
    int T_from_theorem;    /* 1: T = T_theorem */
    double eta;            /* the step */
    int eta_from_theorem;  /* 1: eta = 1/beta */
    double sigma;          /* std of every coordinate of z_t */
    double c_effective;    /* sigma^2 n^2 eps^2 / (G^2 T ln(1/delta)): the paper's c that
                              this calibration amounts to */
    double eps_tight;      /* the exact epsilon of the T steps at delta (equals eps) */
} dp_wang17_plan;

/* The smallest sigma for which T steps of N(0, sigma^2 I) on the average of n gradients
 * of norm <= G are (eps, delta)-DP under replace-one neighbours:
 *   sigma = sqrt(T) * dp_mech_gaussian_sigma_analytic(eps, delta, 2G/n).
 * 0, DP_EINVAL (a parameter out of its domain, named) or DP_EPRIVACY (from the analytic
 * calibration); *sigma untouched on error. */
int dp_wang17_sigma(double eps, double delta, double G, long n, long T, double *sigma,
                    dp_err *err);

/* The exact epsilon at delta of T steps of std sigma on sensitivity 2G/n:
 *   dp_mech_gaussian_epsilon_analytic(sigma / sqrt(T), delta, 2G/n).
 * 0 or DP_EINVAL; *eps untouched on error. */
int dp_wang17_epsilon(double sigma, double delta, double G, long n, long T, double *eps,
                      dp_err *err);

/* The theorem's choice for a beta-smooth objective that is mu-PL (mu-strongly convex
 * implies it), p parameters, n rows:
 *   eta = 1/beta,  T = max(1, ceil((beta/mu) ln(n^2 eps^2 / (p G^2 ln(1/delta))))).
 * 0 or DP_EINVAL (mu or beta not > 0 and finite, among others: the message names it);
 * outputs untouched on error. */
int dp_wang17_theorem(double G, double beta, double mu, long n, long p, double eps,
                      double delta, long *T, double *eta, dp_err *err);

/* The plan for linear model m and n training rows. DP_EINVAL when a cfg field is out of
 * its domain (the message names it: iterations, step_size, feature_bound, ...), for the
 * squared loss (not Lipschitz), or when the theorem's T or eta is asked of a problem it
 * does not cover (mu = 0: give iterations); DP_EPRIVACY from the calibration. plan
 * untouched on error. */
int dp_wang17_make_plan(const dp_linear *m, const dp_wang17_cfg *cfg, size_t n,
                        dp_wang17_plan *plan, dp_err *err);

/* The plan for a deep model trained with l2 on n rows: G = clip (> 0, finite: the bound
 * every clipped per-example gradient keeps), beta unknown, so cfg->iterations and
 * cfg->step are required. Errors as dp_wang17_make_plan. */
int dp_wang17_make_plan_model(double l2, double clip, const dp_wang17_cfg *cfg, size_t n,
                              dp_wang17_plan *plan, dp_err *err);

/* The algorithm on linear model m (zero weights: w_0 = 0): checks the rows against B,
 * makes the plan, runs T full-batch steps through dp_train_linear (_reg for Huber
 * regression) with per-example clipping at G (never active on rows inside the ball; it
 * makes the sensitivity hold by construction) and noise of std sigma on the averaged
 * gradient; with cfg->noise 0 it is dperm's gd (no clipping, no noise) bit for bit.
 * result->noise_std = plan->sigma (0 with noise off). Returns 0 (also when GD diverged:
 * result->diverged says so) or a DP_E* code; result must be destroyed either way. */
int dp_wang17_train(dp_linear *m, const dp_wang17_cfg *cfg, const dp_cvx_set *train,
                    const dp_cvx_set *test, dp_wang17_plan *plan, dp_train_result *result,
                    dp_err *err);

/* The same on a built deep model m (its initial weights) through dp_train_model, each
 * per-example gradient clipped at clip (= G), l2 outside the noisy part. cfg->feature_bound
 * is not used. Errors and ownership as dp_wang17_train. */
int dp_wang17_train_model(dp_model *m, const dp_wang17_cfg *cfg, double l2, double clip,
                          const double *x_train, const int *y_train, size_t n_train,
                          const double *x_test, const int *y_test, size_t n_test,
                          dp_wang17_plan *plan, dp_train_result *result, dp_err *err);

#endif
