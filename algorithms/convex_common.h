/* convex_common.h: what the convex private algorithms of Zhang17, Lecture15 and InputPert
 * share (output_pert.c, rrpsgd.c, bassily.c, input_pert.c): a view of a data set, the
 * Lipschitz and smoothness constants of dperm's linear losses for rows in a ball, the
 * check that the rows really lie in that ball, and the evaluation of a curve point.
 *
 * Constants (model.h's [x; 1] convention: the bias is a parameter whose feature is the
 * constant 1, so an example's gradient is r [x; 1]^T and its norm is ||r|| sqrt(||x||^2 + 1)).
 * For rows with ||x|| <= B, with z = [x; 1] and ||z||^2 <= B^2 + 1:
 *   logistic  |dloss/ds| <= 1, d2loss/ds2 <= 1/4:   L = sqrt(B^2 + 1),   beta = (B^2 + 1)/4
 *   softmax   ||p - e_y|| <= sqrt(2) (1 - p_y), Hessian of log-sum-exp <= 1/2 (spectral):
 *                                                   L = sqrt(2 (B^2 + 1)), beta = (B^2 + 1)/2
 *   huber     |h'| <= delta, h'' <= 1 (linear.h):   L = delta sqrt(B^2 + 1), beta = B^2 + 1
 *   squared   not Lipschitz on R^d: refused.
 * These bound the data loss only. The l2 term mu/2 ||w||^2 is the same for every example,
 * so it cancels in w_t - w'_t on neighbouring data sets: the sensitivity arguments of
 * Zhang17 Lemmas 2-3, Lecture15 Lemma 15.5 and InputPert Thm 1 need the Lipschitz constant
 * of the part that differs, the data loss (the regularized objective is unbounded in
 * gradient on R^d, and Zhang17 Thm 2 restricts it to ||w|| <= 2D for this reason). The
 * smoothness that step sizes need is that of the whole objective: beta_loss + mu.
 * B is public (a configuration value, not measured on the data): measuring it on the
 * data would leak; dp_cvx_check_rows refuses data outside it instead.
 */
#ifndef DPERM_CONVEX_COMMON_H
#define DPERM_CONVEX_COMMON_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/models/linear.h"
#include "algorithms/train.h"

/* A data set as the algorithms read it: classification (y set, t NULL) or regression
 * (t set, y NULL); x is (n, d). Not owned. */
typedef struct dp_cvx_set {
    const double *x;
    const int *y;
    const double *t;
    size_t n;
} dp_cvx_set;

/* L and beta (of the data loss, see above) of m's loss for rows with ||x|| <= B (B > 0,
 * finite). DP_EINVAL for the squared loss (not Lipschitz) or a bad B; outputs untouched. */
int dp_cvx_constants(const dp_linear *m, double B, double *L, double *beta, dp_err *err);

/* F(0) for the zero model, when it is data-independent: log 2 (logistic), log k
 * (softmax); it bounds ||w_hat||^2 <= 2 F(0)/mu for mu > 0 and D_F of Zhang17 Thm 5.
 * DP_EINVAL for regression losses (F(0) depends on the targets). */
int dp_cvx_zero_loss(const dp_linear *m, double *F0, dp_err *err);

/* 0 if every row of x (n, d) has ||x_i|| <= B (with a relative slack of 1e-12 for rows
 * normalized to norm B exactly); else DP_EINVAL naming the first row outside and its
 * norm. */
int dp_cvx_check_rows(const double *x, size_t n, size_t d, double B, dp_err *err);

/* pt's train_loss (mean data loss + mu/2 ||w||^2 on train), grad_norm (of that
 * objective), test_loss and test_accuracy (NaN for regression) or test_rmse (NaN for
 * classification) for m's weights, in the
 * same arithmetic as the trainer's evaluation points; iteration and epoch are left as
 * they are. Allocates its own workspace. 0, DP_EINVAL (a set of the wrong kind for m) or
 * DP_ENOMEM. */
int dp_cvx_evaluate(const dp_linear *m, const dp_cvx_set *train, const dp_cvx_set *test,
                    dp_curve_point *pt, dp_err *err);

#endif
