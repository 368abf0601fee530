/* erm_exact.c: exact ERM for linear models by damped Newton (see erm_exact.h).
 *
 * Sources: Newton's method with Armijo backtracking (Nocedal & Wright, Numerical
 * Optimization, 2nd ed., Alg. 3.1 and §3.3); for the Huber loss, whose second derivative
 * jumps at |u| = delta, the generalized (semismooth) Newton step of Qi & Sun 1993 on the
 * piecewise Hessian. The objective is the one of Zhang17 §5 and InputPert §5 (regularized
 * training loss), plus the extra terms of objective perturbation (Chaudhuri et al. 2011
 * Alg. 2; Kifer et al. 2012 Thm 2).
 *
 * Hessian, with x~_i = [x_i; 1] (the bias input) and n_params = k (d+1):
 *   H = (1/n) sum_i (D_i (x) x~_i x~_i^T) + (mu + Delta) I
 * where D_i = d^2 loss_i / ds^2 is k x k:
 *   logistic  sigma(s)(1 - sigma(s)) = |r|(1 - |r|) with r = dloss/ds = -y sigma(-y s)
 *   squared   1
 *   huber     1 if |u| < delta else 0 (r = clamp(u): the quadratic branch iff |r| < delta;
 *             at |u| = delta both one-sided values are valid generalized Hessians)
 *   softmax   diag(p) - p p^T, p = softmax(s) = r + onehot(y)
 * Built in row blocks with BLAS-3: for k = 1, H += Z^T Z with Z_i = sqrt(D_i) x~_i; for
 * softmax the block diagonal sum_i p_ia x~_i x~_i^T (k GEMMs) minus V^T V with
 * V_i = p_i (x) x~_i (one GEMM of (k(d+1))^2 x B). Cost per Newton step n (k(d+1))^2 plus
 * a Cholesky of (k(d+1))^3 / 3 (LAPACK dpotrf/dpotrs from the OpenBLAS the library
 * already links; declared here because vec.h wraps only the BLAS).
 *
 * Choices where the sources are silent:
 *   - stopping: ||grad F||_2 <= tol (1e-10 by default), tested before each step, so the
 *     reported gradient norm is that of the returned point.
 *   - line search: Armijo with c = 1e-4, halving, at most 60 halvings. Near the optimum
 *     F(w + p) - F(w) ~ -||g||^2 / L falls below the rounding of F itself (~1e-16 |F|),
 *     and a strict Armijo test would reject the exact Newton step forever; so a step
 *     whose F is within 8 ulp-scale rounding of the Armijo target is accepted, which only
 *     matters once the predicted decrease is below rounding (then Newton's local
 *     quadratic convergence does the rest).
 *   - singular Hessians (mu + Delta = 0 with rank-deficient data, softmax's shift
 *     invariance, Huber with every residual in the linear branch): Cholesky is retried on
 *     H + tau I, tau from 1e-12 x the largest diagonal entry up by 100x; a step of the
 *     damped system is still a descent direction.
 *   - no minimizer: a loss that is not coercive (separable data, mu + Delta = 0) drives
 *     ||w|| to infinity with F decreasing; stop with DP_EDIVERGED at ||w|| > 1e12.
 *   - dimension: the Hessian is dense (and copied once for the factorization), so Newton
 *     is for n_params up to DP_ERM_MAX_DENSE = 4096 (2 x 128 MB; each Hessian costs
 *     n p^2 flops: 1e12 for MNIST-sized n at the limit); larger problems (softmax on
 *     784 pixels: 7850) are refused with a message rather than solved for minutes. The
 *     models of the convex experiments (d <= ~120 after one-hot, k <= 10) fit.
 */
#include "algorithms/erm_exact.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"

/* LAPACK (Fortran interface of the linked OpenBLAS): Cholesky factor and solve. */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info);

#define BLOCK 512              /* rows per block: GEMM-sized, bounded workspace */
#define ARMIJO_C 1e-4
#define MAX_HALVINGS 60
#define W_NORM_LIMIT 1e12
#define DP_ERM_MAX_DENSE 4096

static int is_cls(const dp_linear *m)
{
    return m->loss == DP_LOSS_LOGISTIC || m->loss == DP_LOSS_SOFTMAX;
}

static int check_args(const dp_linear *m, const dp_erm_data *D, const dp_erm_extra *ex,
                      dp_err *err)
{
    if (!m || !m->w || !D || !D->x)
        return dp_err_set(err, DP_EINVAL, "erm_exact: model and data are required");
    if (D->n == 0) return dp_err_set(err, DP_EINVAL, "erm_exact: no training examples");
    if (is_cls(m) ? !D->y : !D->t)
        return dp_err_set(err, DP_EINVAL, "erm_exact: a %s model needs %s", 
                          is_cls(m) ? "classification" : "regression",
                          is_cls(m) ? "class labels" : "real targets");
    if (ex && (!(ex->l2 >= 0.0) || !isfinite(ex->l2)))
        return dp_err_set(err, DP_EINVAL, "erm_exact: extra l2 %g must be finite and >= 0",
                          ex->l2);
    return 0;
}

/* Data loss sum over rows [i0, i0+B): residuals into R (B, k). */
static double block_residuals(const dp_linear *m, const dp_erm_data *D, size_t i0, size_t B,
                              double *R)
{
    const double *x = D->x + i0 * m->d;
    return is_cls(m) ? dp_linear_residuals(m, x, D->y + i0, B, R)
                     : dp_linear_residuals_reg(m, x, D->t + i0, B, R);
}

/* F and gradient with caller workspace R (BLOCK * k). grad may be NULL. */
static double objective(const dp_linear *m, const dp_erm_data *D, const dp_erm_extra *ex,
                        double *grad, double *R)
{
    size_t p = m->n_params;
    double reg = m->l2 + (ex ? ex->l2 : 0.0), inv_n = 1.0 / (double)D->n;
    double loss = 0.0;
    if (grad) memset(grad, 0, p * sizeof *grad);
    for (size_t i0 = 0; i0 < D->n; i0 += BLOCK) {
        size_t B = D->n - i0 < BLOCK ? D->n - i0 : BLOCK;
        loss += block_residuals(m, D, i0, B, R);
        if (grad) dp_linear_grad_accumulate(grad, D->x + i0 * m->d, R, NULL, B, m->d, m->k, NULL);
    }
    double ww = dp_dot(m->w, m->w, p);
    double f = loss * inv_n + 0.5 * reg * ww;
    if (ex && ex->lin) f += dp_dot(ex->lin, m->w, p) * inv_n;
    if (grad) {
        dp_scal(grad, inv_n, p);
        dp_axpy(grad, reg, m->w, p);
        if (ex && ex->lin) dp_axpy(grad, inv_n, ex->lin, p);
    }
    return f;
}

int dp_erm_objective(const dp_linear *m, const dp_erm_data *D, const dp_erm_extra *ex,
                     double *f, double *grad, dp_err *err)
{
    int rc = check_args(m, D, ex, err);
    if (rc) return rc;
    double *R = malloc((size_t)BLOCK * (size_t)m->k * sizeof *R);
    if (!R) return dp_err_set(err, DP_ENOMEM, "erm_exact: out of memory");
    double v = objective(m, D, ex, grad, R);
    free(R);
    if (f) *f = v;
    return 0;
}

/* H (p, p) = (1/n) sum_i D_i (x) x~_i x~_i^T + reg I at m->w. Workspace: R (BLOCK k),
 * Z (BLOCK p), P (BLOCK k) for softmax probabilities. */
static void hessian(const dp_linear *m, const dp_erm_data *D, double reg, double *H,
                    double *R, double *Z, double *P)
{
    size_t d = m->d, dd = d + 1, k = (size_t)m->k, p = m->n_params;
    double inv_n = 1.0 / (double)D->n;
    memset(H, 0, p * p * sizeof *H);
    for (size_t i0 = 0; i0 < D->n; i0 += BLOCK) {
        size_t B = D->n - i0 < BLOCK ? D->n - i0 : BLOCK;
        const double *x = D->x + i0 * d;
        block_residuals(m, D, i0, B, R);
        if (m->loss != DP_LOSS_SOFTMAX) {
            for (size_t i = 0; i < B; i++) {
                double r = R[i], c;
                if (m->loss == DP_LOSS_LOGISTIC) c = fabs(r) * (1.0 - fabs(r));
                else if (m->loss == DP_LOSS_HUBER) c = fabs(r) < m->huber_delta ? 1.0 : 0.0;
                else c = 1.0;
                double s = sqrt(c);
                for (size_t j = 0; j < d; j++) Z[i * dd + j] = s * x[i * d + j];
                Z[i * dd + d] = s;
            }
            dp_gemm(1, 0, dd, dd, B, inv_n, Z, dd, Z, dd, 1.0, H, dd);
            continue;
        }
        /* softmax: p_i = r_i + onehot(y_i) */
        for (size_t i = 0; i < B; i++) {
            for (size_t a = 0; a < k; a++) P[i * k + a] = R[i * k + a];
            P[i * k + (size_t)D->y[i0 + i]] += 1.0;
        }
        /* block diagonal: H_aa += (1/n) sum_i p_ia x~_i x~_i^T */
        for (size_t a = 0; a < k; a++) {
            for (size_t i = 0; i < B; i++) {
                double s = sqrt(P[i * k + a] > 0.0 ? P[i * k + a] : 0.0);
                for (size_t j = 0; j < d; j++) Z[i * dd + j] = s * x[i * d + j];
                Z[i * dd + d] = s;
            }
            dp_gemm(1, 0, dd, dd, B, inv_n, Z, dd, Z, dd, 1.0, H + a * dd * p + a * dd, p);
        }
        /* minus (1/n) V^T V, V_i = p_i (x) x~_i (row i of Z, length p) */
        for (size_t i = 0; i < B; i++)
            for (size_t a = 0; a < k; a++) {
                double pa = P[i * k + a];
                double *z = Z + i * p + a * dd;
                for (size_t j = 0; j < d; j++) z[j] = pa * x[i * d + j];
                z[d] = pa;
            }
        dp_gemm(1, 0, p, p, B, -inv_n, Z, p, Z, p, 1.0, H, p);
    }
    for (size_t j = 0; j < p; j++) H[j * p + j] += reg;
}

/* Solve H dir = -g by Cholesky, damping H + tau I when H is not numerically positive
 * definite. Hc is a p x p scratch copy. 0, or -1 when no damping up to the diagonal's
 * own size makes it factor (a NaN in H). */
static int newton_direction(const double *H, const double *g, size_t p, double *Hc,
                            double *dir)
{
    int n = (int)p, one = 1, info = 0;
    double dmax = 0.0;
    for (size_t j = 0; j < p; j++)
        if (H[j * p + j] > dmax) dmax = H[j * p + j];
    double tau = 0.0;
    for (int attempt = 0; attempt < 8; attempt++) {
        memcpy(Hc, H, p * p * sizeof *Hc);
        for (size_t j = 0; j < p; j++) Hc[j * p + j] += tau;
        dpotrf_("L", &n, Hc, &n, &info);
        if (info == 0) {
            for (size_t j = 0; j < p; j++) dir[j] = -g[j];
            dpotrs_("L", &n, &one, Hc, &n, dir, &n, &info);
            return info == 0 && dp_all_finite(dir, p) ? 0 : -1;
        }
        tau = tau == 0.0 ? 1e-12 * (dmax > 0.0 ? dmax : 1.0) : tau * 100.0;
    }
    return -1;
}

int dp_erm_solve(dp_linear *m, const dp_erm_data *D, const dp_erm_extra *ex, double tol,
                 int max_iter, dp_erm_result *res, dp_err *err)
{
    int rc = check_args(m, D, ex, err);
    if (rc) return rc;
    if (!(tol >= 0.0)) return dp_err_set(err, DP_EINVAL, "erm_exact: tol %g must be >= 0", tol);
    if (tol == 0.0) tol = DP_ERM_TOL;
    if (max_iter <= 0) max_iter = DP_ERM_MAX_ITER;
    size_t p = m->n_params, k = (size_t)m->k;
    if (p > DP_ERM_MAX_DENSE)
        return dp_err_set(err, DP_EINVAL,
                          "erm_exact: %zu parameters exceed the dense Newton limit of %d "
                          "(its Hessian would need %.0f MB)",
                          p, DP_ERM_MAX_DENSE, (double)p * (double)p * 8.0 / 1048576.0);
    double reg = m->l2 + (ex ? ex->l2 : 0.0);
    size_t zcols = m->loss == DP_LOSS_SOFTMAX ? p : m->d + 1;
    double *H = malloc(p * p * sizeof *H), *Hc = malloc(p * p * sizeof *Hc);
    double *R = malloc((size_t)BLOCK * k * sizeof *R), *P = malloc((size_t)BLOCK * k * sizeof *P);
    double *Z = malloc((size_t)BLOCK * zcols * sizeof *Z);
    double *g = malloc(p * sizeof *g), *dir = malloc(p * sizeof *dir);
    double *w0 = malloc(p * sizeof *w0);
    if (!H || !Hc || !R || !P || !Z || !g || !dir || !w0) {
        rc = dp_err_set(err, DP_ENOMEM, "erm_exact: out of memory for a %zu x %zu Hessian",
                        p, p);
        goto fail;
    }
    double f = objective(m, D, ex, g, R), gn = dp_nrm2(g, p);
    int it = 0;
    for (;;) {
        if (!isfinite(f) || !isfinite(gn)) {
            rc = dp_err_set(err, DP_EDIVERGED,
                            "erm_exact: the objective became non-finite after %d Newton steps",
                            it);
            break;
        }
        if (gn <= tol) break;
        if (it >= max_iter) {
            rc = dp_err_set(err, DP_ESTATE,
                            "erm_exact: not converged in %d Newton steps: ||grad F|| = %.3g "
                            "(target %.3g), F = %.17g",
                            it, gn, tol, f);
            break;
        }
        if (dp_nrm2(m->w, p) > W_NORM_LIMIT) {
            rc = dp_err_set(err, DP_EDIVERGED,
                            "erm_exact: no minimizer: ||w|| passed %.0e with F still "
                            "decreasing (F = %.6g, ||grad F|| = %.3g): the loss is not "
                            "coercive (e.g. separable classes) and l2 is %g; set model.l2 > 0",
                            W_NORM_LIMIT, f, gn, reg);
            break;
        }
        hessian(m, D, reg, H, R, Z, P);
        if (newton_direction(H, g, p, Hc, dir) != 0) {
            rc = dp_err_set(err, DP_EDIVERGED,
                            "erm_exact: the Hessian is not finite after %d Newton steps", it);
            break;
        }
        double gd = dp_dot(g, dir, p);
        if (!(gd < 0.0)) { /* rounding made the damped direction useless: use -g */
            for (size_t j = 0; j < p; j++) dir[j] = -g[j];
            gd = -gn * gn;
        }
        memcpy(w0, m->w, p * sizeof *w0);
        double t = 1.0, fn = f;
        int accepted = 0;
        for (int h = 0; h <= MAX_HALVINGS; h++, t *= 0.5) {
            memcpy(m->w, w0, p * sizeof *w0);
            dp_axpy(m->w, t, dir, p);
            fn = objective(m, D, ex, NULL, R);
            double slack = 8.0 * DBL_EPSILON * (fabs(f) + 1.0);
            if (fn <= f + ARMIJO_C * t * gd + slack) {
                accepted = 1;
                break;
            }
        }
        it++;
        if (!accepted) {
            memcpy(m->w, w0, p * sizeof *w0);
            rc = dp_err_set(err, DP_ESTATE,
                            "erm_exact: line search found no decrease after %d Newton steps: "
                            "||grad F|| = %.3g (target %.3g), F = %.17g: rounding floor",
                            it, gn, tol, f);
            break;
        }
        f = objective(m, D, ex, g, R);
        gn = dp_nrm2(g, p);
    }
    if (rc == 0 && reg == 0.0 && is_cls(m)) {
        /* Newton also "converges" on separable data: the gradient decays like
         * exp(-margin ||w||) and passes tol at a finite w. But a w that classifies every
         * example correctly gives F(t w) -> 0 as t -> inf, so the infimum 0 is not
         * attained and F(w*) does not exist: refuse rather than return a point. */
        double acc = 0.0;
        if (dp_linear_evaluate(m, D->x, D->y, D->n, NULL, &acc) == 0 && acc == 1.0)
            rc = dp_err_set(err, DP_EDIVERGED,
                            "erm_exact: no minimizer: the training data are linearly "
                            "separable (the iterate classifies all %zu examples correctly, "
                            "so F(t w) -> 0 as t grows) and l2 is 0; set model.l2 > 0",
                            D->n);
    }
    if (res) {
        res->f = f;
        res->grad_norm = gn;
        res->iterations = it;
    }
fail:
    free(w0);
    free(dir);
    free(g);
    free(Z);
    free(P);
    free(R);
    free(Hc);
    free(H);
    return rc;
}
