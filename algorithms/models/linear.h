/* linear.h: linear models with per-example gradient algebra (no materialized
 * per-example gradients).
 *
 * A linear model maps x (d) to scores s = W [x; 1] with W of shape (k, d+1): the last
 * column is the bias. Losses:
 *   - DP_LOSS_LOGISTIC (binary, k = 1): log(1 + exp(-y s)), y = +1 for class 1, -1 for
 *     class 0 (Zhang17, InputPert); computed with log1p/exp of a non-positive argument.
 *   - DP_LOSS_SOFTMAX (multinomial, k = n_classes): log-sum-exp(s) - s_y (DP-LSSGD, DPlis).
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

#include "../base/err.h"

typedef enum { DP_LOSS_LOGISTIC = 1, DP_LOSS_SOFTMAX = 2 } dp_loss_kind;

typedef struct dp_linear {
    dp_loss_kind loss;
    size_t d;          /* input features */
    int n_classes;     /* >= 2 */
    int k;             /* output rows: 1 (logistic) or n_classes (softmax) */
    double l2;         /* mu >= 0 */
    size_t n_params;   /* k * (d + 1) */
    double *w;         /* (k, d+1), owned */
} dp_linear;

/* Allocate a zero-initialized model. Logistic needs n_classes == 2. Fails with
 * DP_EINVAL (message names the problem) or DP_ENOMEM; m is then zeroed. */
int dp_linear_init(dp_linear *m, dp_loss_kind loss, size_t d, int n_classes, double l2,
                   dp_err *err);
void dp_linear_destroy(dp_linear *m);

/* Forward + loss derivative for a batch.
 * x is (B, d) rows of features, y (B) class indices, R (B, k) receives dloss_i/ds.
 * Returns the SUM over the batch of the data loss (no l2 term). Cannot fail. */
double dp_linear_residuals(const dp_linear *m, const double *x, const int *y, size_t B,
                           double *R);

/* sqnorm (B) = ||grad of example i||^2 = ||R_i||^2 (||x_i||^2 + 1). */
void dp_linear_pex_sqnorms(double *sqnorm, const double *x, const double *R, size_t B,
                           size_t d, int k);

/* g (k, d+1) += sum_i scale_i R_i [x_i; 1]^T; scale may be NULL (all ones).
 * ws is caller workspace of B*k doubles (holds the scaled residuals). */
void dp_linear_grad_accumulate(double *g, const double *x, const double *R,
                               const double *scale, size_t B, size_t d, int k, double *ws);

/* Mean data loss (no l2) and accuracy over a whole dataset x (n,d), y (n), in blocks.
 * Either output pointer may be NULL. Returns 0, or DP_ENOMEM. */
int dp_linear_evaluate(const dp_linear *m, const double *x, const int *y, size_t n,
                       double *mean_loss, double *accuracy);

#endif
