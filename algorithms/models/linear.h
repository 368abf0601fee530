/* linear.h: linear models with per-example gradient algebra (no materialized
 * per-example gradients).
 *
 * A linear model maps x (d) to scores s = W [x; 1] with W of shape (k, d+1): the last
 * column is the bias. Losses:
 *   - DP_LOSS_LOGISTIC (binary, k = 1): log(1 + exp(-y s)), y = +1 for class 1, -1 for
 *     class 0 (Zhang17, InputPert); computed with log1p/exp of a non-positive argument.
 *   - DP_LOSS_SOFTMAX (multinomial, k = n_classes): log-sum-exp(s) - s_y (DP-LSSGD, DPlis).
 *   - DP_LOSS_SQUARED (regression, k = 1, real target t): u^2 / 2 with u = s - t.
 *   - DP_LOSS_HUBER (regression, k = 1, threshold delta > 0), Zhang17 §4 exactly:
 *       h_delta(u) = u^2 / 2 for |u| <= delta, delta (|u| - delta/2) otherwise, u = s - t.
 *     So dh/du = clamp(u, -delta, delta): h is delta-Lipschitz and 1-smooth in u (the
 *     normalized form u^2/(2 delta), |u| - delta/2 is this divided by delta; it is
 *     1-Lipschitz and 1/delta-smooth). The example's gradient norm is therefore at most
 *     delta sqrt(||x||^2 + 1): the L of Zhang17's sensitivity bounds, with beta = max
 *     (||x||^2 + 1).
 * Classification models are built by dp_linear_init and fed class indices y; regression
 * models by dp_linear_init_regression and fed real targets t. Each kind's residuals and
 * evaluate functions accept only its own kind; the per-example kernels serve both.
 * Example i's gradient is r_i [x_i; 1]^T with r_i = dloss_i/ds (k), so its squared norm is
 * ||r_i||^2 (||x_i||^2 + 1) and a sum of per-example gradients each scaled by c_i is one
 * GEMM, R^T diag(c) [X 1]: this is what makes per-example clipping cost about the same as
 * a plain gradient (DESIGN.md, Performance).
 * The l2 term mu/2 ||W||^2 (bias included: the papers regularize the whole parameter
 * vector) is kept outside the per-example part, as the papers do.
 * Double precision: the convex experiments need optimality gaps far below 1e-4.
 */
#ifndef DPERM_LINEAR_H
#define DPERM_LINEAR_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"

typedef enum {
    DP_LOSS_LOGISTIC = 1, /* classification */
    DP_LOSS_SOFTMAX = 2,  /* classification */
    DP_LOSS_SQUARED = 3,  /* regression */
    DP_LOSS_HUBER = 4     /* regression */
} dp_loss_kind;

typedef struct dp_linear {
    dp_loss_kind loss;
    size_t d;          /* input features */
    int n_classes;     /* >= 2 for classification, 0 for regression */
    int k;             /* output rows: n_classes (softmax), else 1 */
    double l2;         /* mu >= 0 */
    double huber_delta; /* Huber threshold delta > 0 (DP_LOSS_HUBER), else 0 */
    size_t n_params;   /* k * (d + 1) */
    double *w;         /* (k, d+1), owned */
} dp_linear;

/* Allocate a zero-initialized classification model (logistic or softmax). Logistic needs
 * n_classes == 2; a regression loss is refused (use dp_linear_init_regression). Fails
 * with DP_EINVAL (message names the parameter) or DP_ENOMEM; m is then zeroed. */
int dp_linear_init(dp_linear *m, dp_loss_kind loss, size_t d, int n_classes, double l2,
                   dp_err *err);

/* Allocate a zero-initialized regression model (squared or Huber; k = 1, n_classes = 0).
 * huber_delta must be finite and > 0 for DP_LOSS_HUBER; it is ignored (stored as 0) for
 * DP_LOSS_SQUARED. A classification loss is refused (use dp_linear_init). Fails with
 * DP_EINVAL (message names model.type, model.huber_delta or model.l2) or DP_ENOMEM; m is
 * then zeroed. */
int dp_linear_init_regression(dp_linear *m, dp_loss_kind loss, size_t d, double huber_delta,
                              double l2, dp_err *err);

/* Overwrite every weight of m with a draw from uniform(-1/sqrt(d), 1/sqrt(d)), d = m->d,
 * the bias column included: PyTorch nn.Linear's default initialization (fan_in = d: its
 * kaiming_uniform with a = sqrt(5) gives bound 1/sqrt(fan_in) for the weights, and the
 * bias has the same bound). The draws come from stream DP_STREAM_INIT of seed, row by row
 * of W (k, d+1) in memory order, each as -bound + 2 bound dp_rng_uniform: the same seed
 * gives the same weights. Cannot fail (m must be initialized). */
void dp_linear_init_uniform_fan_in(dp_linear *m, uint64_t seed);

/* Free the parameters and zero m. Safe on NULL and on a zeroed or destroyed model. */
void dp_linear_destroy(dp_linear *m);

/* Forward + loss derivative for a batch of a classification model.
 * x is (B, d) rows of features, y (B) class indices, R (B, k) receives dloss_i/ds.
 * Returns the SUM over the batch of the data loss (no l2 term). Cannot fail. */
double dp_linear_residuals(const dp_linear *m, const double *x, const int *y, size_t B,
                           double *R);

/* The same for a regression model: x is (B, d), t (B) real targets, R (B, 1) receives
 * dloss_i/ds (u_i for squared, clamp(u_i, -delta, delta) for Huber, u_i = s_i - t_i).
 * Returns the SUM over the batch of the data loss (no l2 term); it overflows to inf only
 * when the exact sum exceeds DBL_MAX, and a NaN score or target gives a NaN loss and a NaN
 * residual. Cannot fail. */
double dp_linear_residuals_reg(const dp_linear *m, const double *x, const double *t,
                               size_t B, double *R);

/* sqnorm (B) = ||grad of example i||^2 = ||R_i||^2 (||x_i||^2 + 1). */
void dp_linear_pex_sqnorms(double *sqnorm, const double *x, const double *R, size_t B,
                           size_t d, int k);

/* g (k, d+1) += sum_i scale_i R_i [x_i; 1]^T; scale may be NULL (all ones).
 * ws is caller workspace of B*k doubles (holds the scaled residuals). */
void dp_linear_grad_accumulate(double *g, const double *x, const double *R,
                               const double *scale, size_t B, size_t d, int k, double *ws);

/* DPlis (Wang et al., PETS 2021, eq. 6 and Alg. 2) for a linear model, without per-example
 * gradients (linear_smooth.c):
 *   clipped_sum (k, d+1) += sum_i clip_C( (1/K) sum_{k<K} grad loss(W + z_k; x_i) ),
 * clip_C(g) = g / max(1, ||g|| / clip); the data loss only (the l2 term stays outside).
 * sqnorms (B, may be NULL) receives each averaged gradient's squared norm before clipping.
 * sum != 0 drops the 1/K in both (the K gradients summed, then clipped: the DPlis
 * authors' code; the same as the average, bit for bit, when K = 1).
 * Perturbations: one set of K per call shared by the batch; z_k is sigma_s times the
 * normals of dp_rng_add_gaussian_par on a copy of *rng sought to its position p0 + k, i.e.
 * W + z_k = memcpy then dp_rng_add_gaussian_par(&r_k, buf, n_params, sigma_s, threads);
 * *rng is left sought to p0 + K whatever sigma_s; no dependence on the thread count.
 * sigma_s >= 0 (= R eta sigma C / L), clip > 0 (INFINITY allowed), K >= 1.
 * ws: dp_linear_smooth_ws(m, B) doubles of caller workspace. m->w is not written.
 * Returns the smoothed data loss sum_i (1/K) sum_k loss(W + z_k; x_i). With K = 1 and
 * sigma_s = 0 the result is that of dp_linear_pex_sqnorms + dp_linear_grad_accumulate
 * with the clip factors as scale, bit for bit. Cannot fail.
 * The classification form takes class indices y (logistic, softmax); the _reg form real
 * targets t (squared, Huber). */
size_t dp_linear_smooth_ws(const dp_linear *m, size_t B);
double dp_linear_smoothed_clipped_grad(const dp_linear *m, const double *x, const int *y,
                                       size_t B, double clip, int K, int sum, double sigma_s,
                                       dp_rng *rng, double *clipped_sum, double *sqnorms,
                                       double *ws);
double dp_linear_smoothed_clipped_grad_reg(const dp_linear *m, const double *x,
                                           const double *t, size_t B, double clip, int K,
                                           int sum, double sigma_s, dp_rng *rng,
                                           double *clipped_sum, double *sqnorms, double *ws);

/* Mean data loss (no l2) and accuracy over a whole dataset x (n,d), y (n), in blocks, for
 * a classification model. Either output pointer may be NULL; n == 0 gives NaN for both.
 * Returns 0, DP_EINVAL for a regression model (outputs untouched), or DP_ENOMEM. */
int dp_linear_evaluate(const dp_linear *m, const double *x, const int *y, size_t n,
                       double *mean_loss, double *accuracy);

/* labels[i] = the class m predicts for row i of x (n,d): argmax of the scores, ties to the
 * lower class (binary logistic: 1 iff the score is > 0), as dp_linear_evaluate counts.
 * Returns 0, DP_EINVAL for a regression model, or DP_ENOMEM. */
int dp_linear_predict(const dp_linear *m, const double *x, size_t n, int *labels);

/* Mean data loss (no l2) and root-mean-square residual sqrt(mean (s_i - t_i)^2) over a
 * whole dataset x (n,d), t (n), in blocks, for a regression model. Either output pointer
 * may be NULL; n == 0 gives NaN for both. Both are accumulated with scaling, so they are
 * finite whenever the exact result is (residuals of 1e-200 or 1e200 are fine). Does not
 * allocate. Returns 0, or DP_EINVAL for a classification model (outputs untouched). */
int dp_linear_evaluate_reg(const dp_linear *m, const double *x, const double *t, size_t n,
                           double *mean_loss, double *rmse);

#endif
