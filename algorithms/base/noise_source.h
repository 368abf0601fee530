/* noise_source.h: where a privacy mechanism's noise comes from. Every mechanism draws its
 * noise through a dp_noise, which is one of:
 *   - seeded (the default, for benchmarks): the run's Philox stream, exactly today's
 *     numbers (each function below says which dp_rng call it is), so a run is a pure
 *     function of its seed and reproducible bit for bit;
 *   - secure: the operating system's CSPRNG (getrandom(2), buffered 4 KB at a time) and
 *     exact discrete samplers on a fine power-of-two grid (discrete_noise.h: the discrete
 *     Gaussian of Canonne, Kamath, Steinke 2020 and the discrete Laplace), safe against
 *     the floating-point attacks of Mironov 2012. Not reproducible, by design: two runs
 *     with the same seed get different noise.
 * Only the noise of the mechanism changes; data, batches and initialization still come
 * from the seeded streams.
 *
 * Failure: init can fail (secure: no getrandom). A secure draw fails only if getrandom
 * fails later; the source then stops adding noise and remembers it, and the caller must
 * check dp_noise_check before it releases anything. Seeded draws cannot fail.
 */
#ifndef DPERM_NOISE_SOURCE_H
#define DPERM_NOISE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/discrete_noise.h"
#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"

typedef struct dp_noise {
    int secure;
    dp_rng rng;           /* seeded: stream (seed, stream) as dp_rng_init makes it */
    dp_bytes bytes;       /* secure: getrandom bytes */
    dp_grid_noise grid;   /* secure: the last scale's grid (re-planned when it changes) */
    double grid_for;      /* the scale grid was planned for (0: none) */
    int grid_gaussian;
    int bad_scale;        /* secure: a scale had no grid (dp_noise_check reports it) */
    dp_err scale_err;
} dp_noise;

/* Seeded: the stream (seed, stream) of dp_rng_init. Secure: getrandom, seed unused.
 * Returns 0, or DP_EIO when secure and getrandom(2) is unavailable. */
int dp_noise_init(dp_noise *n, uint64_t seed, uint64_t stream, int secure, dp_err *err);

/* out[i] += N(0, sigma^2), i < len, sigma >= 0 (0: nothing). Seeded: exactly
 * dp_rng_add_gaussian_par(&rng, out, len, sigma, threads). Secure: each out[i] rounded to
 * the grid of sigma, plus a discrete Gaussian multiple of the spacing (one thread). */
void dp_noise_add_gaussian(dp_noise *n, double *out, size_t len, double sigma, int threads);

/* The same noise, then then(ctx, lo, hi) over all of out: seeded with sigma > 0, chunk by
 * chunk on the noise's threads as each chunk is drawn (dp_rng_add_gaussian_then);
 * otherwise once, over [0, len), after the noise. */
void dp_noise_add_gaussian_then(dp_noise *n, double *out, size_t len, double sigma,
                                int threads, dp_chunk_fn then, void *ctx);

/* Seeded with sigma > 0: dp_rng_gaussian_chunks(&rng, len, sigma, threads, scratch,
 * then_z, ctx), the noise dp_noise_add_gaussian_then would add, chunk by chunk without a
 * vector to add it to; returns 1. Otherwise (secure noise rounds the vector it is added
 * to, so it needs it; no noise) nothing happens and it returns 0: the caller then uses
 * dp_noise_add_gaussian_then. */
int dp_noise_gaussian_chunks(dp_noise *n, size_t len, double sigma, int threads,
                             double *scratch, dp_chunk_noise_fn then_z, void *ctx);

/* out[i] = sigma N(0, 1) drawn one after the other, i < len. Seeded: exactly
 * sigma * dp_rng_gaussian(&rng) each. Secure: a discrete Gaussian multiple of the grid's
 * spacing (for noise that is added later with dp_noise_add_gaussian's care, or that a
 * mechanism uses as it is). */
void dp_noise_set_gaussian(dp_noise *n, double *out, size_t len, double sigma);

/* out[i] += Laplace(0, b) (density exp(-|x|/b) / (2b)), b > 0. Seeded: exactly
 * dp_rng_laplace(&rng, b) each. Secure: rounded to b's grid plus a discrete Laplace
 * multiple of the spacing. */
void dp_noise_add_laplace(dp_noise *n, double *out, size_t len, double b);

/* Secure: x rounded to the grid of the last scale drawn (so that x + a noise drawn by
 * dp_noise_set_gaussian is exact before its one rounding); seeded, or before any draw:
 * x itself. */
double dp_noise_snap(const dp_noise *n, double x);

/* 0, or DP_EIO (err says why) when a secure draw failed: then some noise is missing and
 * nothing computed from it may be released. */
int dp_noise_check(const dp_noise *n, dp_err *err);

/* The seeded generator, for mechanisms whose sampler has no secure form (the caller must
 * refuse secure mode first: see dp_noise_is_secure). */
dp_rng *dp_noise_rng(dp_noise *n);
int dp_noise_is_secure(const dp_noise *n);

#endif
