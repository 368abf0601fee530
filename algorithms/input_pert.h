/* input_pert.h: differentially private ERM by input perturbation (InputPert Alg. 1,
 * Thm 1): Gaussian noise added once to every training feature vector, then plain
 * full-batch GD on the perturbed data. input_pert.c's header lists every constant and
 * the choices made where the paper is silent.
 */
#ifndef DPERM_INPUT_PERT_H
#define DPERM_INPUT_PERT_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/noise_source.h"
#include "algorithms/base/rng.h"
#include "algorithms/convex_common.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"

typedef struct dp_input_pert_cfg {
    double eps;            /* > 0 */
    double delta;          /* in (0, 1) */
    double feature_bound;  /* B > 0: every clean training row has ||x|| <= B (checked) */
    long iterations;       /* T >= 1 GD steps (the noise grows with T) */
    double step;           /* alpha > 0, or 0: 1/beta */
    double c;              /* Thm 1's constant c > 0, or 0: dp_thm_inputpert_c_classic */
    int eval_every;        /* curve points every this many GD steps (>= 1) */
    int noise;             /* 1: Alg. 1; 0: clean data (debug: gd bit for bit) */
    uint64_t seed;         /* the feature noise comes from DP_STREAM_NOISE */
    int secure_noise;      /* 1: from getrandom on a grid instead (base/noise_source.h) */
} dp_input_pert_cfg;

typedef struct dp_input_pert_plan {
    double G;              /* Lipschitz constant of the data loss (convex_common.h) */
    double Delta;          /* strong convexity: model l2 */
    double beta;           /* smoothness of the regularized objective */
    double c;              /* Thm 1's constant used */
    long T;
    double step;
    int step_default;      /* 1: alpha = 1/beta was chosen by dperm */
    double sigma2;         /* Thm 1, eq. 9: variance of every feature's noise */
    double sigma;
} dp_input_pert_plan;

/* The plan for model m and n rows. DP_EINVAL (cfg out of domain, mu = 0: Thm 1 needs
 * strong convexity), DP_EPRIVACY (n < 2); plan untouched on error. */
int dp_input_pert_make_plan(const dp_linear *m, const dp_input_pert_cfg *cfg, size_t n,
                            dp_input_pert_plan *plan, dp_err *err);

/* The plan for a deep model trained with l2 on n rows: G = sqrt(B^2 + 1), logistic
 * regression's constant for rows in the ball of radius B (input_pert.c says why), beta
 * unknown (NaN), so cfg->step > 0 is required. Errors as dp_input_pert_make_plan. */
int dp_input_pert_make_plan_model(double l2, const dp_input_pert_cfg *cfg, size_t n,
                                  dp_input_pert_plan *plan, dp_err *err);

/* xp (n, d) = x + Z, Z's entries i.i.d. N(0, sigma^2), drawn row by row from *noise
 * (dp_noise_add_gaussian, one call per row: seeded, dp_rng_add_gaussian_par's numbers).
 * xp may equal x. A secure draw can fail: check dp_noise_check before using xp. */
void dp_input_pert_perturb(dp_noise *noise, double *xp, const double *x, size_t n, size_t d,
                           double sigma);

/* Alg. 1 on m (zero weights): checks the clean rows against B, perturbs a copy of the
 * training features (stream DP_STREAM_NOISE of cfg->seed), runs T steps of GD through
 * dp_train_linear (_reg) on the perturbed copy, evaluating on the clean test set; the
 * final point is then re-evaluated on the clean training set (earlier points' train
 * metrics are on the perturbed data GD sees). result->noise_std = sigma (0 with noise
 * off). 0 (also when GD diverged) or a DP_E* code; result must be destroyed either way. */
int dp_input_pert_train(dp_linear *m, const dp_input_pert_cfg *cfg, const dp_cvx_set *train,
                        const dp_cvx_set *test, dp_input_pert_plan *plan,
                        dp_train_result *result, dp_err *err);

/* Alg. 1 on a built deep model m (its initial weights as dp_model_build drew them): checks
 * the clean rows against B, perturbs a copy of x_train (stream DP_STREAM_NOISE of
 * cfg->seed), runs T steps of full-batch GD (dp_train_model, constant step cfg->step, l2)
 * on it, evaluating on the clean test set; the final point is re-evaluated on the clean
 * training set. 0 or a DP_E* code; result must be destroyed either way. */
int dp_input_pert_train_model(dp_model *m, const dp_input_pert_cfg *cfg, double l2,
                              const double *x_train, const int *y_train, size_t n_train,
                              const double *x_test, const int *y_test, size_t n_test,
                              dp_input_pert_plan *plan, dp_train_result *result, dp_err *err);

#endif
