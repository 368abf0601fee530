/* linear_smooth.c: the per-example gradient of DPlis (randomized smoothing inside DP-SGD)
 * for the linear models of linear.h: each example's gradient averaged over K perturbed
 * copies of the weights, clipped to C and summed, without per-example gradients.
 *
 * Source: DPlis (Wenxiao Wang, Tianhao Wang, Lun Wang, Nanqing Luo, Pan Zhou, Dawn Song,
 * Ruoxi Jia, PETS 2021), §3 eq. (6) and Alg. 2:
 *   g_t(x_i) = (1/K) sum_{j=1..K} grad L(theta_t + z_j, x_i),  z_j ~ N(0, sigma_s^2 I),
 *   sigma_s = R eta sigma C / L, then g_t(x_i) / max(1, ||g_t(x_i)|| / C).
 *
 * Why it is cheap. Example i's gradient at W + z_k is r_ik [x_i; 1]^T (linear.h) and the
 * input [x_i; 1] does not depend on the weights, so the copies share it:
 *   (1/K) sum_k r_ik [x_i; 1]^T = rbar_i [x_i; 1]^T,   rbar_i = (1/K) sum_k r_ik,
 *   ||rbar_i [x_i; 1]^T|| = ||rbar_i|| sqrt(||x_i||^2 + 1).
 * A step is K score GEMMs (one per copy) and then exactly a DP-SGD step on the averaged
 * residuals: dp_linear_pex_sqnorms and one dp_linear_grad_accumulate GEMM with the clip
 * factors c_i / K. The gradient GEMM is done once, not K times.
 *
 * Choices where the paper is silent (the same as pexgrad_smooth.c, see linear.h):
 *   - one set of K perturbations per call, shared by every example of the batch (eq. 6);
 *   - z_k is drawn by dp_rng_add_gaussian_par from the caller's generator sought to
 *     p0 + k, which is left at p0 + K (reproducible, independent of the thread count);
 *   - the loss returned is the smoothed data loss at the perturbed points,
 *     sum_i (1/K) sum_k loss(W + z_k; x_i); the l2 term mu/2 ||W||^2 stays outside, as in
 *     linear.h (its gradient averaged over the copies is mu W + mu mean_k z_k; the caller
 *     adds mu W, the expectation, like the papers' regularized objective);
 *   - m->w is never written: a shallow copy of the model points at the perturbed weights.
 * With K = 1 and sigma_s = 0 the operations are those of dp_linear_pex_sqnorms and
 * dp_linear_grad_accumulate with the clip factors as scale, bit for bit (tested).
 * Aggregation: sum != 0 sums the copies' gradients before clipping, as the DPlis
 * authors' code does (shared/reference/authors-code.md), instead of averaging them: the
 * clip factor is then taken on ||Rsum_i|| sqrt(||x_i||^2 + 1) and not divided by K.
 */
#include "algorithms/models/linear.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"

size_t dp_linear_smooth_ws(const dp_linear *m, size_t B)
{
    return m->n_params + B * (3 * (size_t)m->k + 1);
}

/* The two public entry points differ only in the residual function: labels y or
 * targets t (the other one NULL). With sum every 1/K below is 1, so K = 1 gives the same
 * operations in both aggregations. */
static double smoothed(const dp_linear *m, const double *x, const int *y, const double *t,
                       size_t B, double clip, int K, int sum, double sigma_s, dp_rng *rng,
                       double *clipped_sum, double *sqnorms, double *ws)
{
    assert(clip > 0.0 && K >= 1 && sigma_s >= 0.0);
    // x is (B,d), W (k,d+1); ws: pert (n_params), R (B,k), Rsum (B,k), f (B), gws (B,k)
    size_t P = m->n_params, kk = (size_t)m->k, Kz = (size_t)K;
    double *pert = ws, *R = pert + P, *Rsum = R + B * kk, *f = Rsum + B * kk,
           *gws = f + B;
    const double invk = 1.0 / (double)K;
    const dp_rng r0 = *rng;
    dp_rng_seek(rng, r0.position + Kz); /* K blocks, one per copy, whatever sigma_s */
    int threads = dp_threads();
    dp_linear mk = *m; /* the copy the residuals are evaluated at */
    double total = 0.0;
    for (size_t k = 0; k < Kz; k++) {
        if (sigma_s > 0.0) {
            dp_rng rk = r0;
            dp_rng_seek(&rk, r0.position + k);
            memcpy(pert, m->w, P * sizeof *pert);
            dp_rng_add_gaussian_par(&rk, pert, P, sigma_s, threads);
            mk.w = pert;
        }
        double *Rk = k == 0 ? Rsum : R; /* the first copy's residuals start the sum */
        double loss = y ? dp_linear_residuals(&mk, x, y, B, Rk)
                        : dp_linear_residuals_reg(&mk, x, t, B, Rk);
        total += loss * invk;
        if (k > 0) dp_axpy(Rsum, 1.0, R, B * kk);
    }
    /* ||rbar_i||^2 (||x_i||^2 + 1) = ||Rsum_i||^2 (||x_i||^2 + 1) / K^2 (sum: no 1/K^2) */
    dp_linear_pex_sqnorms(f, x, Rsum, B, m->d, m->k);
    for (size_t i = 0; i < B; i++) {
        double sq = sum ? f[i] : f[i] * (invk * invk);
        if (sqnorms) sqnorms[i] = sq;
        double norm = sqrt(sq);
        f[i] = norm > clip ? clip / norm : 1.0; /* clip factor, and 1/K unless sum */
        if (!sum) f[i] /= (double)K;
    }
    dp_linear_grad_accumulate(clipped_sum, x, Rsum, f, B, m->d, m->k, gws);
    return total;
}

double dp_linear_smoothed_clipped_grad(const dp_linear *m, const double *x, const int *y,
                                       size_t B, double clip, int K, int sum, double sigma_s,
                                       dp_rng *rng, double *clipped_sum, double *sqnorms,
                                       double *ws)
{
    assert(m->loss == DP_LOSS_LOGISTIC || m->loss == DP_LOSS_SOFTMAX);
    return smoothed(m, x, y, NULL, B, clip, K, sum, sigma_s, rng, clipped_sum, sqnorms, ws);
}

double dp_linear_smoothed_clipped_grad_reg(const dp_linear *m, const double *x,
                                           const double *t, size_t B, double clip, int K,
                                           int sum, double sigma_s, dp_rng *rng,
                                           double *clipped_sum, double *sqnorms, double *ws)
{
    assert(m->loss == DP_LOSS_SQUARED || m->loss == DP_LOSS_HUBER);
    return smoothed(m, x, NULL, t, B, clip, K, sum, sigma_s, rng, clipped_sum, sqnorms, ws);
}
