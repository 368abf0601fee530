/* smoothing.h: Laplacian smoothing of DP-LSSGD (Osher et al.; Wang et al., DP-LSSGD §2,
 * eq. 4 and Alg. 1): v <- A_s^{-1} v with A_s = I - s L, L the 1-D discrete Laplacian with
 * periodic boundary ((L v)_i = v_{i-1} - 2 v_i + v_{i+1}).
 *
 * How: A_s^{-1} is the circulant whose kernel is DP-LSSGD App. B's Lemma 7,
 * f[k] = a^|k| / sqrt(4s + 1) with a = (2s + 1 - sqrt(4s + 1)) / (2s) < 1, periodized
 * over the length d. So u = A_s^{-1} v = (y + z - v) / sqrt(4s + 1), where y is the
 * causal filter y_i = v_i + a y_{i-1} and z the anti-causal one z_i = v_i + a z_{i+1},
 * both periodic; their wrap-around values are geometric sums over one period divided by
 * 1 - a^d. This is the same operator the paper applies by FFT (its §2,
 * ifft(fft(v) / (1 - s fft(d)))), in O(d) with no transform: for lengths with large
 * prime factors (7850 = 2 5^2 157 for MNIST's softmax) the FFT cost more than the
 * gradient. The wrap sums stop at the first term below 2^-64 (1 - a) / (4s + 1) of the
 * largest input (beyond that a term cannot move the result, since |u|_inf >=
 * |v|_inf / (4s + 1)); the rest is exact arithmetic of the filters.
 *
 * Plan/execute: dp_smoother_plan computes a, the wrap factor and the truncation once and
 * owns the two work vectors; execute then allocates nothing. s = 0 is the identity and
 * touches nothing, so DP-LSSGD with smoothing 0 is DP-SGD bit for bit.
 */
#ifndef DPERM_SMOOTHING_H
#define DPERM_SMOOTHING_H

#include <stddef.h>

#include "algorithms/base/err.h"

typedef struct dp_smoother {
    size_t d;
    double s;
    double a;             /* the kernel's ratio, in (0, 1) for s > 0 */
    double c;             /* 1 / sqrt(4s + 1), the kernel at 0 */
    double wrap;          /* 1 / (1 - a^d): a period's sum to the infinite periodic sum */
    size_t wrap_terms;    /* terms of the wrap sums kept: min(d, first negligible power) */
    double *y, *z;        /* (d) each: the causal and anti-causal filters */
} dp_smoother;

/* Plan smoothing of length d >= 1 with constant s >= 0 (finite). DP_EINVAL names the bad
 * parameter; DP_ENOMEM. On failure sm is zeroed and owns nothing. */
int dp_smoother_plan(dp_smoother *sm, size_t d, double s, dp_err *err);

/* v (d) <- A_s^{-1} v. Cannot fail; no allocation. */
void dp_smoother_execute(dp_smoother *sm, double *v);

/* Free the buffers; zeroes sm. NULL or zeroed is fine. */
void dp_smoother_destroy(dp_smoother *sm);

#endif
