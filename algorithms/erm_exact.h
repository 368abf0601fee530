/* erm_exact.h: the exact minimizer of a regularized linear-model ERM objective, to a
 * gradient norm of 1e-10: the reference point F(w*) of every optimality gap (Zhang17 §5:
 * "optimality gap F(w) - F(w*)" on the regularized objective; InputPert §5 likewise) and
 * the inner solver of objective perturbation (Chaudhuri et al. 2011 Alg. 2, Kifer et al.
 * 2012 Thm 2), which adds a linear term and extra l2 regularization:
 *
 *   F(w) = (1/n) sum_i loss_i(w) + (mu + Delta)/2 ||w||^2 + (b . w) / n
 *
 * with loss_i and mu = m->l2 from the dp_linear model (logistic, softmax, squared or
 * Huber; the bias is regularized like every weight, as in linear.h), and Delta >= 0, b
 * (n_params, optional) the extra terms. With Delta = 0 and b = NULL this is the model's
 * own training objective.
 */
#ifndef DPERM_ERM_EXACT_H
#define DPERM_ERM_EXACT_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/models/linear.h"

/* Default stopping rule and iteration cap of dp_erm_solve. */
#define DP_ERM_TOL 1e-10
#define DP_ERM_MAX_ITER 200

/* The training data: x (n, d) rows; y (n) class indices for a classification model, t (n)
 * real targets for a regression model (the other one is not read). */
typedef struct dp_erm_data {
    const double *x;
    const int *y;
    const double *t;
    size_t n;
} dp_erm_data;

/* The extra terms of objective perturbation; {NULL, 0} for the plain objective. */
typedef struct dp_erm_extra {
    const double *lin; /* b (n_params) or NULL: adds (b . w) / n */
    double l2;         /* Delta >= 0, finite: adds Delta/2 ||w||^2 */
} dp_erm_extra;

typedef struct dp_erm_result {
    double f;          /* F(w*), extra terms included */
    double grad_norm;  /* ||grad F(w*)||_2, extra terms included */
    int iterations;    /* Newton steps taken */
} dp_erm_result;

/* F(m->w) and, if grad is not NULL, grad F(m->w) (n_params) for the objective above; ex
 * may be NULL (no extra terms). Allocates one block workspace. Returns 0, DP_EINVAL (n ==
 * 0, wrong label kind, bad extra) or DP_ENOMEM. */
int dp_erm_objective(const dp_linear *m, const dp_erm_data *D, const dp_erm_extra *ex,
                     double *f, double *grad, dp_err *err);

/* Minimize F by damped Newton from the current m->w (zeros from dp_linear_init; a warm
 * start is fine), leaving the minimizer in m->w and its F, gradient norm and iteration
 * count in *res. Stops when ||grad F|| <= tol (DP_ERM_TOL by default: pass 0). Fails
 * with:
 *   DP_EINVAL  bad arguments (n == 0, tol < 0, the wrong kind of labels, Delta < 0);
 *   DP_ENOMEM  the (n_params)^2 Hessian or the workspace cannot be allocated;
 *   DP_EDIVERGED  no minimizer: ||w|| passed 1e12 while F kept decreasing (a loss that
 *              is not coercive, e.g. separable classes with mu + Delta = 0), or F became
 *              non-finite;
 *   DP_ESTATE  not converged: max_iter (0: DP_ERM_MAX_ITER) Newton steps, or a line
 *              search that found no decrease (rounding floor above tol); the message
 *              says the gradient norm and F reached.
 * On failure m->w holds the last iterate and *res its values. */
int dp_erm_solve(dp_linear *m, const dp_erm_data *D, const dp_erm_extra *ex, double tol,
                 int max_iter, dp_erm_result *res, dp_err *err);

#endif
