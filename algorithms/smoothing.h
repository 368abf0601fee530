/* smoothing.h: Laplacian smoothing of DP-LSSGD (Osher et al.; Wang et al., DP-LSSGD §2,
 * eq. 4 and Alg. 1): v <- A_s^{-1} v with A_s = I - s L, L the 1-D discrete Laplacian with
 * periodic boundary ((L v)_i = v_{i-1} - 2 v_i + v_{i+1}). A_s is circulant, so the solve
 * is a pointwise division in Fourier space by its symbol 1 + 2s - 2s cos(2 pi k / d).
 *
 * Plan/execute (FFTW's model): dp_smoother_plan makes the real-to-complex and back plans
 * for one length once, with FFTW_ESTIMATE (FFTW_MEASURE picks algorithms by timing, so
 * results could differ run to run), and precomputes 1 / (d * symbol); execute is then two
 * FFTs and a multiply. Plan in one thread (FFTW's planner is not thread-safe); dperm's
 * workers are processes. s = 0 is the identity and touches nothing, so DP-LSSGD with
 * smoothing 0 is DP-SGD bit for bit.
 */
#ifndef DPERM_SMOOTHING_H
#define DPERM_SMOOTHING_H

#include <stddef.h>

#include "base/err.h"

typedef struct dp_smoother {
    size_t d;
    double s;
    double *work;         /* (d) real buffer the plans were made on */
    void *spectrum;       /* (d/2 + 1) fftw_complex */
    double *scale;        /* (d/2 + 1): 1 / (d (1 + 2s - 2s cos(2 pi k/d))) */
    void *forward, *backward; /* fftw_plan */
} dp_smoother;

/* Plan smoothing of length d >= 1 with constant s >= 0 (finite). DP_EINVAL names the bad
 * parameter; DP_ENOMEM. On failure sm is zeroed and owns nothing. */
int dp_smoother_plan(dp_smoother *sm, size_t d, double s, dp_err *err);

/* v (d) <- A_s^{-1} v. Cannot fail; no allocation. */
void dp_smoother_execute(dp_smoother *sm, double *v);

/* Free the plans and buffers; zeroes sm. NULL or zeroed is fine. */
void dp_smoother_destroy(dp_smoother *sm);

#endif
