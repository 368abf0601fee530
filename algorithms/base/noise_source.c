/* noise_source.c: the mechanisms' noise, seeded or secure (see noise_source.h).
 *
 * Seeded mode forwards to the Philox functions the mechanisms called before this file
 * existed, with the same arguments in the same order, so every seeded result is unchanged
 * bit for bit (the unit tests compare exact numbers). Secure mode plans the grid of a
 * scale once and keeps it while the scale stays the same (the DP-SGD loop asks for the
 * same sigma every step); discrete_noise.c holds the samplers and the privacy argument.
 */
#include "algorithms/base/noise_source.h"

#include <errno.h>
#include <pthread.h>
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

/* One thread's share of a secure vector: its own getrandom buffer (the draws need no
 * order: they are not reproducible anyway), the grid shared read-only. */
typedef struct secure_part {
    const dp_grid_noise *grid;
    double *out;
    size_t len;
    dp_bytes bytes;
    int error;
} secure_part;

static void *secure_part_run(void *arg)
{
    secure_part *p = arg;
    if (dp_bytes_init_os(&p->bytes, NULL) != 0) {
        p->error = EIO;
        return NULL;
    }
    for (size_t i = 0; i < p->len && !p->bytes.error; i++)
        p->out[i] = dp_grid_add(&p->bytes, p->grid, p->out[i]);
    p->error = p->bytes.error;
    return NULL;
}

/* The exact samplers cost about 200 ns a coordinate on one core (CKS Algs. 1-3 take some
 * twenty fair coins and a few 128-bit steps per draw): the per-step noise of a model with
 * 10^5 - 10^7 parameters goes on `threads` threads (parts of at least 2^15 coordinates).
 * A thread that cannot start leaves its part to this one. */
static void secure_add(dp_noise *n, const dp_grid_noise *g, double *out, size_t len,
                       int threads)
{
    enum { MIN_PART = 1 << 15, MAX_THREADS = 16 };
    size_t parts = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : (size_t)threads;
    while (parts > 1 && len / parts < MIN_PART) parts--;
    secure_part extra[MAX_THREADS - 1];
    pthread_t tid[MAX_THREADS - 1];
    int started[MAX_THREADS - 1] = {0};
    size_t share = len / parts, own = len - share * (parts - 1);
    for (size_t t = 0; t + 1 < parts; t++) {
        extra[t] = (secure_part){.grid = g, .out = out + own + t * share, .len = share};
        started[t] = pthread_create(&tid[t], NULL, secure_part_run, &extra[t]) == 0;
        if (!started[t]) secure_part_run(&extra[t]);
    }
    for (size_t i = 0; i < own && !n->bytes.error; i++) out[i] = dp_grid_add(&n->bytes, g, out[i]);
    for (size_t t = 0; t + 1 < parts; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        if (extra[t].error && !n->bytes.error) n->bytes.error = extra[t].error;
    }
}

void dp_noise_add_gaussian(dp_noise *n, double *out, size_t len, double sigma, int threads)
{
    if (!n->secure) {
        dp_rng_add_gaussian_par(&n->rng, out, len, sigma, threads);
        return;
    }
    if (!(sigma > 0.0) || len == 0) return;
    const dp_grid_noise *g = grid_for(n, sigma, 1);
    if (g) secure_add(n, g, out, len, threads);
}

void dp_noise_add_gaussian_then(dp_noise *n, double *out, size_t len, double sigma,
                                int threads, dp_chunk_fn then, void *ctx)
{
    if (!n->secure && sigma > 0.0) {
        dp_rng_add_gaussian_then(&n->rng, out, len, sigma, threads, then, ctx);
        return;
    }
    dp_noise_add_gaussian(n, out, len, sigma, threads);
    if (len) then(ctx, 0, len);
}

int dp_noise_gaussian_chunks(dp_noise *n, size_t len, double sigma, int threads,
                             double *scratch, dp_chunk_noise_fn then_z, void *ctx)
{
    if (n->secure || !(sigma > 0.0)) return 0;
    dp_rng_gaussian_chunks(&n->rng, len, sigma, threads, scratch, then_z, ctx);
    return 1;
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
    if (g) secure_add(n, g, out, len, 1);
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
