/* convex_common.c: constants, data check and evaluation shared by the convex private
 * algorithms (convex_common.h says where each constant comes from). */
#include "algorithms/convex_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"

/* Rows per block of the full-data pass (the trainer's evaluation uses the same). */
#define EVAL_ROWS 1024

int dp_cvx_constants(const dp_linear *m, double B, double *L, double *beta, dp_err *err)
{
    if (!m || !L || !beta) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (!(B > 0.0) || !isfinite(B))
        return dp_err_set(err, DP_EINVAL, "the feature bound B must be > 0 and finite, got %g",
                          B);
    double z2 = B * B + 1.0; /* ||[x; 1]||^2 */
    switch (m->loss) {
    case DP_LOSS_LOGISTIC:
        *L = sqrt(z2);
        *beta = z2 / 4.0;
        return 0;
    case DP_LOSS_SOFTMAX:
        *L = sqrt(2.0 * z2);
        *beta = z2 / 2.0;
        return 0;
    case DP_LOSS_HUBER:
        *L = m->huber_delta * sqrt(z2);
        *beta = z2;
        return 0;
    case DP_LOSS_SQUARED:
        break;
    }
    return dp_err_set(err, DP_EINVAL, "the squared loss is not Lipschitz on R^d, so no "
                      "sensitivity bound applies: use the Huber loss (model.type huber)");
}

int dp_cvx_zero_loss(const dp_linear *m, double *F0, dp_err *err)
{
    if (!m || !F0) return dp_err_set(err, DP_EINVAL, "NULL argument");
    if (m->loss == DP_LOSS_LOGISTIC) {
        *F0 = log(2.0);
        return 0;
    }
    if (m->loss == DP_LOSS_SOFTMAX) {
        *F0 = log((double)m->k);
        return 0;
    }
    return dp_err_set(err, DP_EINVAL, "the loss of the zero model depends on the regression "
                      "targets: give the bound explicitly");
}

int dp_cvx_check_rows(const double *x, size_t n, size_t d, double B, dp_err *err)
{
    double lim = B * (1.0 + 1e-12);
    for (size_t i = 0; i < n; i++) {
        double nr = dp_nrm2(x + i * d, d);
        if (!(nr <= lim))
            return dp_err_set(err, DP_EINVAL,
                              "training row %zu has norm %.6g > the feature bound %g that the "
                              "privacy guarantee assumes (normalize the data, e.g. "
                              "dataset.normalize: unit_l2, or raise the bound)", i, nr, B);
    }
    return 0;
}

int dp_cvx_evaluate(const dp_linear *m, const dp_cvx_set *train, const dp_cvx_set *test,
                    dp_curve_point *pt, dp_err *err)
{
    int reg = m->n_classes == 0;
    if ((reg && (!train->t || !test->t)) || (!reg && (!train->y || !test->y)))
        return dp_err_set(err, DP_EINVAL, "the data sets do not match the model (%s)",
                          reg ? "regression needs targets" : "classification needs labels");
    size_t d = m->d, P = m->n_params, k = (size_t)m->k, n = train->n;
    size_t rows = n < EVAL_ROWS ? n : EVAL_ROWS;
    double *mem = malloc((P + 2 * rows * k + 1) * sizeof *mem);
    if (!mem) return dp_err_set(err, DP_ENOMEM, "out of memory evaluating the model");
    double *g = mem, *R = mem + P, *ws = R + rows * k;
    memset(g, 0, P * sizeof *g);
    double loss = 0.0;
    for (size_t start = 0; start < n; start += EVAL_ROWS) {
        size_t nb = n - start < EVAL_ROWS ? n - start : EVAL_ROWS;
        const double *xb = train->x + start * d;
        loss += reg ? dp_linear_residuals_reg(m, xb, train->t + start, nb, R)
                    : dp_linear_residuals(m, xb, train->y + start, nb, R);
        dp_linear_grad_accumulate(g, xb, R, NULL, nb, d, m->k, ws);
    }
    double inv_n = 1.0 / (double)n, mu = m->l2, gg = 0.0;
    for (size_t j = 0; j < P; j++) {
        double gj = g[j] * inv_n + mu * m->w[j];
        gg += gj * gj;
    }
    pt->train_loss = loss * inv_n + 0.5 * mu * dp_dot(m->w, m->w, P);
    pt->grad_norm = sqrt(gg);
    free(mem);
    if (reg) {
        pt->test_accuracy = NAN;
        return dp_linear_evaluate_reg(m, test->x, test->t, test->n, &pt->test_loss,
                                      &pt->test_rmse);
    }
    pt->test_rmse = NAN;
    if (dp_linear_evaluate(m, test->x, test->y, test->n, &pt->test_loss, &pt->test_accuracy))
        return dp_err_set(err, DP_ENOMEM, "out of memory evaluating the test set");
    return 0;
}
