/* noise_source.c: the mechanisms' noise, seeded or secure (see noise_source.h).
 *
 * Seeded mode forwards to the Philox functions the mechanisms called before this file
 * existed, with the same arguments in the same order, so every seeded result is unchanged
 * bit for bit (the unit tests compare exact numbers). Secure mode plans the grid of a
 * scale once and keeps it while the scale stays the same (the DP-SGD loop asks for the
 * same sigma every step); discrete_noise.c holds the samplers and the privacy argument.
 */
#include "noise_source.h"

#include <string.h>

int dp_noise_init(dp_noise *n, uint64_t seed, uint64_t stream, int secure, dp_err *err)
{
    memset(n, 0, sizeof *n);
    n->secure = secure;
    dp_rng_init(&n->rng, seed, stream);
    return secure ? dp_bytes_init_os(&n->bytes, err) : 0;
}

/* The grid of scale s for a Gaussian (1) or Laplace (0), or NULL when s has none. */
static const dp_grid_noise *grid_for(dp_noise *n, double s, int gaussian)
{
    if (n->bad_scale) return NULL;
    if (n->grid_for != s || n->grid_gaussian != gaussian) {
        int rc = gaussian ? dp_grid_gaussian_plan(&n->grid, s, &n->scale_err)
                          : dp_grid_laplace_plan(&n->grid, s, &n->scale_err);
        if (rc) {
            n->bad_scale = 1;
            return NULL;
        }
        n->grid_for = s;
        n->grid_gaussian = gaussian;
    }
    return &n->grid;
}

void dp_noise_add_gaussian(dp_noise *n, double *out, size_t len, double sigma, int threads)
{
    if (!n->secure) {
        dp_rng_add_gaussian_par(&n->rng, out, len, sigma, threads);
        return;
    }
    if (!(sigma > 0.0) || len == 0) return;
    const dp_grid_noise *g = grid_for(n, sigma, 1);
    if (!g) return;
    for (size_t i = 0; i < len && !n->bytes.error; i++) out[i] = dp_grid_add(&n->bytes, g, out[i]);
}

void dp_noise_set_gaussian(dp_noise *n, double *out, size_t len, double sigma)
{
    if (!n->secure) {
        for (size_t i = 0; i < len; i++) out[i] = sigma * dp_rng_gaussian(&n->rng);
        return;
    }
    memset(out, 0, len * sizeof *out);
    dp_noise_add_gaussian(n, out, len, sigma, 1);
}

void dp_noise_add_laplace(dp_noise *n, double *out, size_t len, double b)
{
    if (!n->secure) {
        for (size_t i = 0; i < len; i++) out[i] += dp_rng_laplace(&n->rng, b);
        return;
    }
    if (len == 0) return;
    const dp_grid_noise *g = grid_for(n, b, 0);
    if (!g) return;
    for (size_t i = 0; i < len && !n->bytes.error; i++) out[i] = dp_grid_add(&n->bytes, g, out[i]);
}

double dp_noise_snap(const dp_noise *n, double x)
{
    return n->secure && n->grid_for > 0.0 ? dp_grid_snap(&n->grid, x) : x;
}

int dp_noise_check(const dp_noise *n, dp_err *err)
{
    if (n->bad_scale) {
        if (err) *err = n->scale_err;
        return n->scale_err.code ? n->scale_err.code : DP_EINVAL;
    }
    return n->secure ? dp_bytes_error(&n->bytes, err) : 0;
}

dp_rng *dp_noise_rng(dp_noise *n) { return &n->rng; }

int dp_noise_is_secure(const dp_noise *n) { return n->secure; }
