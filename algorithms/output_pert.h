/* output_pert.h: output-perturbation full-batch gradient descent (Zhang17 Alg. 1) on a
 * linear model: T steps of GD on the regularized objective, then one noise vector on the
 * weights, calibrated to the sensitivity of GD (Lemma 2 convex, Lemma 3 strongly convex).
 * output_pert.c's header lists every choice made where the paper is silent.
 */
#ifndef DPERM_OUTPUT_PERT_H
#define DPERM_OUTPUT_PERT_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/noise_source.h"
#include "algorithms/base/rng.h"
#include "algorithms/convex_common.h"
#include "algorithms/models/linear.h"
#include "algorithms/train.h"

typedef enum {
    DP_OUTPUT_GAUSSIAN = 1, /* Alg. 1 line 7: (eps, delta)-DP */
    DP_OUTPUT_LAPLACE = 2   /* Alg. 1 line 5: density ~ exp(-eps ||z|| / Delta), eps-DP */
} dp_output_mechanism;

typedef struct dp_output_pert_cfg {
    double eps;                    /* > 0 */
    double delta;                  /* Gaussian: in (0, 1); not used by the Laplace */
    dp_output_mechanism mechanism;
    double feature_bound;          /* B > 0: every training row has ||x|| <= B (checked) */
    double norm_bound;             /* D > 0 bounding ||w_hat|| (Thms 2-3's T), or 0: for
                                      mu > 0, sqrt(2 F(0) / mu) (F(w_hat) >= mu/2 ||w_hat||^2
                                      and F(w_hat) <= F(0)); mu = 0 needs it given */
    long iterations;               /* T >= 1, or 0: the theorem's T */
    double step;                   /* eta > 0, or 0: the theorem's eta */
    int eval_every;                /* a curve point every this many iterations (>= 1) */
    int noise;                     /* 1: Alg. 1; 0: no noise, the GD iterate w_T itself
                                      (debug switch; gd bit for bit) */
    uint64_t seed;                 /* the noise comes from stream DP_STREAM_NOISE */
    int secure_noise;              /* 1: from getrandom on a grid instead (Gaussian only:
                                      base/noise_source.h) */
} dp_output_pert_cfg;

/* Everything the run derives from its cfg, the model and n: recorded with the run. */
typedef struct dp_output_pert_plan {
    double L;            /* Lipschitz constant of the data loss (convex_common.h) */
    double beta;         /* smoothness of the regularized objective: beta_loss + mu */
    double mu;           /* strong convexity: model l2 */
    double D;            /* the ||w_hat|| bound used for T */
    int theorem;         /* 2 (mu > 0: Lemma 3 / Thm 2) or 3 (mu = 0: Lemma 2 / Thm 3) */
    long T;
    double eta;
    int T_from_theorem, eta_from_theorem; /* 1 where the theorem's choice is used */
    double sens;         /* Delta, the l2 sensitivity of w_T */
    double noise_scale;  /* Gaussian: sigma per coordinate; Laplace: Delta/eps, the scale
                            of the Gamma(p, Delta/eps) norm */
    double noise_std;    /* per-coordinate standard deviation of z (Laplace in R^p:
                            sqrt(p + 1) Delta/eps, as E||z||^2 = p (p + 1) (Delta/eps)^2) */
} dp_output_pert_plan;

/* Derive the plan for model m (its loss, l2 and size) and n training rows. Returns 0,
 * DP_EINVAL (a cfg field out of its domain; the message names it) or DP_EPRIVACY (a
 * precondition of the lemma used, e.g. eta > 1/beta). plan untouched on error. */
int dp_output_pert_make_plan(const dp_linear *m, const dp_output_pert_cfg *cfg, size_t n,
                             dp_output_pert_plan *plan, dp_err *err);

/* z (p) = one draw of the plan's output noise from *noise (overwrites z). 0, DP_EINVAL
 * (also: the Laplace mechanism asked of a secure source, which has no exact sampler for
 * its l2-norm density), or DP_EIO (a secure draw failed). */
int dp_output_pert_noise(dp_noise *noise, const dp_output_pert_cfg *cfg,
                         const dp_output_pert_plan *plan, double *z, size_t p, dp_err *err);

/* Alg. 1 on m (zero weights expected: w_0 = 0 as dperm initializes linear models):
 * checks the rows against cfg->feature_bound, makes the plan, runs T steps of GD through
 * dp_train_linear (sampling full, constant step eta), adds the noise, and replaces the
 * final curve point by the released weights' metrics (earlier points are the GD iterates
 * w_t, not released: a diagnostic). result->noise_std = plan->noise_std (0 with noise
 * off). Classification (train->y, dp_train_linear) or regression (train->t,
 * dp_train_linear_reg; Huber only: the squared loss has no L). Returns 0
 * (also when GD diverged: result->diverged says so and no noise is added), or a DP_E*
 * code; result must be destroyed either way. */
int dp_output_pert_train(dp_linear *m, const dp_output_pert_cfg *cfg, const dp_cvx_set *train,
                         const dp_cvx_set *test, dp_output_pert_plan *plan,
                         dp_train_result *result, dp_err *err);

#endif
