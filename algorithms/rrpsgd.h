/* rrpsgd.h: Random Round Private SGD, Zhang17 Alg. 2 with Thms 4-5, on a linear model:
 * single-example SGD with Gaussian noise on every gradient, stopped after a random number
 * of rounds R drawn from Thm 5's distribution. rrpsgd.c's header lists the choices made
 * where the paper is silent.
 */
#ifndef DPERM_RRPSGD_H
#define DPERM_RRPSGD_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"
#include "algorithms/convex_common.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"

typedef struct dp_rrpsgd_cfg {
    double eps;            /* in (0, 1] (Thm 4) */
    double delta;          /* in (0, 1) */
    double feature_bound;  /* B > 0: every training row has ||x|| <= B (checked) */
    long rounds;           /* m: R is drawn from {1..m}; 0: n^2 (the paper's); <= n^2 */
    double step;           /* eta > 0 overriding Thm 5's, or 0; must be < 2/beta */
    long eval_every;       /* a curve point every this many rounds (>= 1) */
    int noise;             /* 1: Alg. 2; 0: no noise (debug: plain SGD) */
    uint64_t seed;         /* R: DP_STREAM_ALGO; examples: DP_STREAM_BATCH; noise:
                              DP_STREAM_NOISE */
    int secure_noise;      /* 1: z from getrandom on a grid (base/noise_source.h) */
} dp_rrpsgd_cfg;

typedef struct dp_rrpsgd_plan {
    double L, beta, mu;    /* data-loss Lipschitz bound, objective smoothness, l2 */
    double sigma;          /* per-coordinate std of z_t (Alg. 2 line 4) */
    double sigma2_thm5;    /* Thm 5's gradient-noise variance 4 L^2 + p sigma^2 */
    double D_F;            /* sqrt(2 F(0)/beta) >= Thm 5's D_F (F* >= 0); NaN if unknown */
    double eta;            /* the constant step */
    int step_from_theorem;
    long m;                /* R ranges over {1..m} */
} dp_rrpsgd_plan;

/* The plan for model m and n rows (Thms 4-5). 0, DP_EINVAL or DP_EPRIVACY (eps > 1,
 * eta >= 2/beta, rounds > n^2); plan untouched then. Regression losses need cfg->step
 * (F(0), hence D_F, depends on the targets). */
int dp_rrpsgd_make_plan(const dp_linear *m, const dp_rrpsgd_cfg *cfg, size_t n,
                        dp_rrpsgd_plan *plan, dp_err *err);

/* R from Thm 5's distribution for a constant step: uniform on {1..plan->m}, drawn from
 * stream DP_STREAM_ALGO of seed. Cannot fail for a plan made by dp_rrpsgd_make_plan. */
long dp_rrpsgd_draw_round(uint64_t seed, const dp_rrpsgd_plan *plan);

/* Alg. 2 lines 2-6 for exactly R rounds on m (zero weights): per round an index uniform
 * on the n rows (stream DP_STREAM_BATCH, drawn as dp_train_linear's wor sampling with
 * b = 1 draws it), gradient of the data loss at that row plus mu w, plus z ~ N(0,
 * sigma^2 I) (stream DP_STREAM_NOISE, dp_rng_add_gaussian_par), w -= eta (g + z). Curve
 * points at round 0, every eval_every rounds and at R (epoch = rounds / n). With noise off
 * and R a multiple of n the weights are dp_train_linear's (sgd, wor, b = 1, constant
 * eta) bit for bit. Checks the rows against B first. 0 (also when it diverged), or a
 * DP_E* code; result must be destroyed either way. */
int dp_rrpsgd_run(dp_linear *m, const dp_rrpsgd_cfg *cfg, const dp_rrpsgd_plan *plan, long R,
                  const dp_cvx_set *train, const dp_cvx_set *test, dp_train_result *result,
                  dp_err *err);

/* The plan for a deep model m (NULL before it is built: then sigma2_thm5 counts one
 * parameter) trained with l2 on n rows: L = clip (> 0, finite: the bound clipping
 * enforces), beta and D_F unknown, so cfg->step > 0 is required. Errors as
 * dp_rrpsgd_make_plan. */
int dp_rrpsgd_make_plan_model(const dp_model *m, double l2, double clip,
                              const dp_rrpsgd_cfg *cfg, size_t n, dp_rrpsgd_plan *plan,
                              dp_err *err);

/* Alg. 2 for exactly R rounds on a built deep model m (its initial weights): per round one
 * example (a wor batch of one, DP_STREAM_BATCH), its gradient clipped at plan->L, Gaussian
 * noise of std plan->sigma (DP_STREAM_NOISE), the step plan->eta, l2 outside; curve
 * points about every cfg->eval_every rounds (whole epochs of n). 0 (also when training
 * diverged) or a DP_E* code; result must be destroyed either way. */
int dp_rrpsgd_run_model(dp_model *m, const dp_rrpsgd_cfg *cfg, const dp_rrpsgd_plan *plan,
                        long R, double l2, const double *x_train, const int *y_train,
                        size_t n_train, const double *x_test, const int *y_test,
                        size_t n_test, dp_train_result *result, dp_err *err);

#endif
