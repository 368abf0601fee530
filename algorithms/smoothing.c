/* smoothing.c: DP-LSSGD's Laplacian smoothing by FFT (see smoothing.h).
 * Source: Wang, Gu, Boedihardjo, Barekat, Osher, "DP-LSSGD: a stochastic optimization
 * method to lift the utility in privacy-preserving ERM", §2 (A_sigma = I - sigma L,
 * eq. 4) and Alg. 1; the FFT solve as in Osher et al., "Laplacian smoothing gradient
 * descent". */
#include "smoothing.h"

#include <math.h>
#include <string.h>

#include <fftw3.h>

int dp_smoother_plan(dp_smoother *sm, size_t d, double s, dp_err *err)
{
    memset(sm, 0, sizeof *sm);
    if (d < 1) return dp_err_set(err, DP_EINVAL, "smoothing length d must be >= 1");
    if (!(s >= 0) || !isfinite(s))
        return dp_err_set(err, DP_EINVAL, "smoothing constant %g must be finite and >= 0", s);
    sm->d = d;
    sm->s = s;
    if (s == 0) return 0; /* the identity: no plan needed */
    size_t h = d / 2 + 1;
    sm->work = fftw_malloc(d * sizeof *sm->work);
    sm->spectrum = fftw_malloc(h * sizeof(fftw_complex));
    sm->scale = fftw_malloc(h * sizeof *sm->scale);
    if (!sm->work || !sm->spectrum || !sm->scale) goto nomem;
    /* ESTIMATE does not touch the arrays while planning and is deterministic. */
    sm->forward = fftw_plan_dft_r2c_1d((int)d, sm->work, sm->spectrum, FFTW_ESTIMATE);
    sm->backward = fftw_plan_dft_c2r_1d((int)d, sm->spectrum, sm->work, FFTW_ESTIMATE);
    if (!sm->forward || !sm->backward) goto nomem;
    for (size_t k = 0; k < h; k++) {
        double symbol = 1.0 + 2.0 * s - 2.0 * s * cos(2.0 * M_PI * (double)k / (double)d);
        sm->scale[k] = 1.0 / ((double)d * symbol); /* FFTW's c2r is unnormalized */
    }
    return 0;
nomem:
    dp_smoother_destroy(sm);
    return dp_err_set(err, DP_ENOMEM, "out of memory planning smoothing of length %zu", d);
}

void dp_smoother_execute(dp_smoother *sm, double *v)
{
    if (sm->s == 0) return;
    size_t d = sm->d, h = d / 2 + 1;
    fftw_complex *c = sm->spectrum;
    memcpy(sm->work, v, d * sizeof *v);
    fftw_execute(sm->forward);
    for (size_t k = 0; k < h; k++) {
        c[k][0] *= sm->scale[k];
        c[k][1] *= sm->scale[k];
    }
    fftw_execute(sm->backward); /* c2r overwrites the spectrum: it is recomputed each time */
    memcpy(v, sm->work, d * sizeof *v);
}

void dp_smoother_destroy(dp_smoother *sm)
{
    if (!sm) return;
    if (sm->forward) fftw_destroy_plan(sm->forward);
    if (sm->backward) fftw_destroy_plan(sm->backward);
    fftw_free(sm->work);
    fftw_free(sm->spectrum);
    fftw_free(sm->scale);
    memset(sm, 0, sizeof *sm);
}
