/* smoothing.c: DP-LSSGD's Laplacian smoothing A_s^{-1} v by its two recursive filters
 * (see smoothing.h).
 * Source: Wang, Gu, Boedihardjo, Barekat, Osher, "DP-LSSGD: a stochastic optimization
 * method to lift the utility in privacy-preserving ERM", §2 (A_sigma = I - sigma L,
 * eq. 4), Alg. 1, and App. B (Lemma 7: the inverse's kernel a^|k| / sqrt(4 sigma + 1),
 * the root a of Prop. 1). */
#include "algorithms/smoothing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int dp_smoother_plan(dp_smoother *sm, size_t d, double s, dp_err *err)
{
    memset(sm, 0, sizeof *sm);
    if (d < 1) return dp_err_set(err, DP_EINVAL, "smoothing length d must be >= 1");
    if (!(s >= 0) || !isfinite(s))
        return dp_err_set(err, DP_EINVAL, "smoothing constant %g must be finite and >= 0", s);
    sm->d = d;
    sm->s = s;
    if (s == 0) return 0; /* the identity: nothing to prepare */
    double root = sqrt(1.0 + 4.0 * s);
    /* a = (2s + 1 - root) / (2s), written without the cancellation at small s */
    sm->a = 2.0 * s / (1.0 + 2.0 * s + root);
    sm->c = 1.0 / root;
    double log_a = log(sm->a);
    sm->wrap = -1.0 / expm1((double)d * log_a); /* 1 / (1 - a^d) */
    /* a^K <= 2^-64 (1 - a) / (4s + 1): later terms of a wrap sum are below rounding */
    double k = ceil((log(0x1p-64 * (1.0 - sm->a) / (1.0 + 4.0 * s))) / log_a);
    sm->wrap_terms = k < (double)d ? (size_t)k + 1 : d;
    sm->y = malloc(d * sizeof *sm->y);
    sm->z = malloc(d * sizeof *sm->z);
    if (!sm->y || !sm->z) {
        dp_smoother_destroy(sm);
        return dp_err_set(err, DP_ENOMEM, "out of memory planning smoothing of length %zu", d);
    }
    return 0;
}

void dp_smoother_execute(dp_smoother *sm, double *v)
{
    if (sm->s == 0) return;
    size_t d = sm->d, m = sm->wrap_terms;
    double a = sm->a, c = sm->c, *y = sm->y, *z = sm->z;
    /* Wrap-around values: y_{-1} = y_{d-1} = sum_j a^j v_{d-1-j} / (1 - a^d) and
     * z_d = z_0 = sum_j a^j v_j / (1 - a^d), by Horner over the kept terms. */
    double yw = 0.0, zw = 0.0;
    for (size_t j = 0; j < m; j++) {
        yw = v[d - m + j] + a * yw;
        zw = v[m - 1 - j] + a * zw;
    }
    yw *= sm->wrap;
    zw *= sm->wrap;
    /* The two filters run from opposite ends in one loop: independent chains. */
    for (size_t i = 0; i < d; i++) {
        size_t r = d - 1 - i;
        yw = v[i] + a * yw;
        zw = v[r] + a * zw;
        y[i] = yw;
        z[r] = zw;
    }
    for (size_t i = 0; i < d; i++) v[i] = c * (y[i] + z[i] - v[i]);
}

void dp_smoother_destroy(dp_smoother *sm)
{
    if (!sm) return;
    free(sm->y);
    free(sm->z);
    memset(sm, 0, sizeof *sm);
}
