/* bassily.h: private SGD of Bassily, Smith & Thakurta (FOCS 2014) as Lecture15 Alg. 3
 * states it, in the mini-batch form Zhang17 §4 ran as its baseline: per step a uniform
 * b-subset, each example's gradient clipped at the loss's Lipschitz bound L, Gaussian
 * noise of Lemma 15.5 on the sum. bassily.c's header lists the choices where the sources
 * are silent.
 */
#ifndef DPERM_BASSILY_H
#define DPERM_BASSILY_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/convex_common.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"

typedef struct dp_bassily_cfg {
    double eps;            /* in (0, 1): Lemma 15.2's advanced composition */
    double delta;          /* in (0, 1) */
    double feature_bound;  /* B > 0: every training row has ||x|| <= B (checked) */
    size_t batch_size;     /* b in [1, n]: 1 is Alg. 3, 50 what Zhang17 ran */
    long iterations;       /* T >= 1 requested, or 0: (n/b)^2; rounded up to whole epochs */
    double norm_bound;     /* ||C||: the step a/sqrt(t) with a = ||C||/G (mu = 0); > 0 */
    double step;           /* > 0 overrides the schedule's a; 0: the lecture's */
    int eval_every;        /* epochs (>= 1) */
    int noise;             /* 1: the lemma's noise; 0: sigma = 0 (debug) */
    uint64_t seed;
    int secure_noise;      /* 1: the noise from getrandom on a grid (base/noise_source.h) */
} dp_bassily_cfg;

typedef struct dp_bassily_plan {
    double L, beta, mu;    /* data-loss Lipschitz bound, objective smoothness, l2 */
    long T;                /* steps run: epochs * floor(n/b) */
    int epochs;
    double sigma;          /* std of the Gaussian on the sum of the b clipped gradients */
    double noise_multiplier; /* sigma / L (the clip is L) */
    double G;              /* sqrt(L^2 + p (sigma/b)^2): Lecture15 eq. 15.5's bound */
    dp_lr_schedule schedule; /* inverse_sqrt_t (mu = 0) or inverse_t (mu > 0) */
    double a;              /* eta_t = a/sqrt(t) or a/t */
    int step_from_theorem;
} dp_bassily_plan;

/* Lemma 15.5 for a batch of b examples: the std of the noise on the batch sum,
 *   sigma = 8 L b sqrt(T ln(2/delta) ln(2.5 T b / (delta n))) / (n eps),
 * i.e. the lemma with n/b in place of n (Lemma 15.4 amplifies by m/n = b/n); b = 1 is
 * dp_thm_lecture15_sgd_sigma exactly. Preconditions (DP_EPRIVACY): eps < 1, and the
 * full-sum mechanism in Lemma 15.3's domain: (n/b) eps / (2 sqrt(2 T ln(2/delta))) < 1,
 * (n/b) delta / (2T) < 1. DP_EINVAL for parameters out of domain. */
int dp_bassily_sigma(double eps, double delta, double L, long T, long n, long b, double *sigma,
                     dp_err *err);

/* The plan for model m and n rows. 0, DP_EINVAL or DP_EPRIVACY; plan untouched then. */
int dp_bassily_make_plan(const dp_linear *m, const dp_bassily_cfg *cfg, size_t n,
                         dp_bassily_plan *plan, dp_err *err);

/* Checks the rows against B, plans, and trains m (zero weights) with dp_train_linear
 * (_reg for regression): dp_sgd, sampling wor, clip L, noise multiplier sigma/L, the
 * plan's schedule. result->noise_std = sigma (0 with noise off). 0 (also when training
 * diverged) or a DP_E* code; result must be destroyed either way. */
int dp_bassily_train(dp_linear *m, const dp_bassily_cfg *cfg, const dp_cvx_set *train,
                     const dp_cvx_set *test, dp_bassily_plan *plan, dp_train_result *result,
                     dp_err *err);

/* The plan for a deep model m (its n_params; NULL: 0) trained with l2 on n rows: L is
 * clip (> 0, finite: the bound clipping enforces), beta unknown (NaN). Errors as
 * dp_bassily_make_plan. */
int dp_bassily_make_plan_model(const dp_model *m, double l2, double clip,
                               const dp_bassily_cfg *cfg, size_t n, dp_bassily_plan *plan,
                               dp_err *err);

/* The same algorithm on a built deep model m (its initial weights): dp_train_model with
 * dp_sgd, sampling wor, clip, noise multiplier sigma/clip, the plan's schedule, l2.
 * cfg->feature_bound is not used (clipping bounds the gradients). 0 (also when training
 * diverged) or a DP_E* code; result must be destroyed either way. */
int dp_bassily_train_model(dp_model *m, const dp_bassily_cfg *cfg, double l2, double clip,
                           const double *x_train, const int *y_train, size_t n_train,
                           const double *x_test, const int *y_test, size_t n_test,
                           dp_bassily_plan *plan, dp_train_result *result, dp_err *err);

#endif
