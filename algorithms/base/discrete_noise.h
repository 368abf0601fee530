/* discrete_noise.h: exact samplers of the discrete Laplace and discrete Gaussian
 * distributions on the integers, in integer arithmetic only, and the random-byte sources
 * they draw from (the operating system's CSPRNG through getrandom(2), or a seeded Philox
 * stream for reproducible tests).
 *
 * Source: C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential
 * Privacy", NeurIPS 2020 (CKS): Alg. 1 (Bernoulli(exp(-gamma)) for rational gamma),
 * Alg. 2 (discrete Laplace by rejection), Alg. 3 (discrete Gaussian from discrete Laplace
 * proposals). Why: floating-point samplers (inverse CDF, Box-Muller, ziggurat) have
 * irregular supports that reveal the noised value through its low bits (I. Mironov,
 * "On Significance of the Least Significant Bits for Differential Privacy", CCS 2012);
 * these samplers use no floating point at all, so their output is exactly the stated
 * distribution (up to the loop caps noted in discrete_noise.c, each below 2^-1000).
 *
 * Every function here cannot fail except through its byte source: when the source fails
 * (getrandom returns an error), its `error` field holds the errno, samplers return 0 and
 * the caller must check dp_bytes_error() before using any result.
 */
#ifndef DPERM_DISCRETE_NOISE_H
#define DPERM_DISCRETE_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"

typedef unsigned __int128 dp_u128;

/* Random bytes, buffered: refilled DP_BYTES_BUF bytes at a time. */
#define DP_BYTES_BUF 4096
typedef struct dp_bytes {
    dp_rng *rng;          /* NULL: getrandom(2); else the seeded stream (tests only) */
    unsigned char buf[DP_BYTES_BUF];
    size_t pos;           /* next unread byte of buf (DP_BYTES_BUF = empty) */
    uint64_t bits;        /* spare single bits for fair coins */
    int n_bits;
    int error;            /* 0, or the errno of a failed getrandom (sticky) */
} dp_bytes;

/* A source reading the operating system's CSPRNG. Returns 0, or DP_EIO when getrandom(2)
 * is not available (err says so); nothing to free. */
int dp_bytes_init_os(dp_bytes *b, dp_err *err);

/* A source reading Philox stream r (which it advances): reproducible, for tests of the
 * samplers' distributions. Not for privacy. */
void dp_bytes_init_rng(dp_bytes *b, dp_rng *r);

/* 0, or DP_EIO with err naming the errno when the source has failed. */
int dp_bytes_error(const dp_bytes *b, dp_err *err);

uint64_t dp_bytes_u64(dp_bytes *b);

/* Uniform integer in [0, n), exact (rejection); n >= 1. */
uint64_t dp_bytes_below(dp_bytes *b, uint64_t n);

/* 1 with probability exp(-num/den), exactly, for den >= 1 and den < 2^112, num any
 * (CKS Alg. 1: exp(-1) repeatedly for the integer part, then the alternating series
 * as a sequence of Bernoulli(gamma/k) trials). Integer arithmetic only. */
int dp_bernoulli_exp(dp_bytes *b, dp_u128 num, dp_u128 den);

/* Discrete Laplace Lap_Z(t/s): P[Y = y] proportional to exp(-|y| s / t), y in Z. */
typedef struct dp_dlaplace {
    uint64_t s, t;
} dp_dlaplace;

/* Check 1 <= s, t <= 2^62. Returns 0 or DP_EINVAL. */
int dp_dlaplace_plan(dp_dlaplace *p, uint64_t s, uint64_t t, dp_err *err);
int64_t dp_dlaplace_sample(dp_bytes *b, const dp_dlaplace *p);

/* Discrete Gaussian N_Z(0, sigma^2) with sigma^2 = S an integer: P[Y = y] proportional to
 * exp(-y^2 / (2 S)). CKS Alg. 3 with a Laplace proposal of scale t that divides S, so
 * S / t is an integer and no fraction ever appears; any t > 0 is exact, t near sqrt(S)
 * is fast (acceptance above 0.6 within a factor sqrt(2)). */
typedef struct dp_dgauss {
    dp_u128 S;            /* sigma^2 */
    uint64_t t, mu;       /* proposal scale, and S / t */
    dp_dlaplace lap;      /* Lap_Z(t) */
} dp_dgauss;

/* Check 1 <= S < 2^100, 1 <= t <= 2^62 and S mod t = 0. Returns 0 or DP_EINVAL. */
int dp_dgauss_plan(dp_dgauss *g, dp_u128 S, uint64_t t, dp_err *err);
int64_t dp_dgauss_sample(dp_bytes *b, const dp_dgauss *g);

/* ---- a real-valued scale on a grid ---------------------------------------------------- */

/* Noise Z * spacing, Z an integer of one of the distributions above and spacing a power
 * of two 2^-40 to 2^-41 of the scale (discrete_noise.c says why this grid). */
typedef struct dp_grid_noise {
    double spacing;       /* g */
    double scale;         /* the scale really used: sigma or b, >= the one asked for */
    int gaussian;         /* 1: dg, 0: lap */
    dp_dgauss dg;
    dp_dlaplace lap;
} dp_grid_noise;

/* Gaussian of standard deviation sigma: g the largest power of two <= sigma 2^-40, S the
 * smallest multiple of t at least (sigma/g)^2, t the power of two nearest sigma/g; so
 * the noise's sigma is at least the one asked for and at most 2^-40 larger (relative).
 * Returns 0, or DP_EINVAL when sigma is not finite and > 0 or too small (sigma 2^-41
 * below the smallest normal double). */
int dp_grid_gaussian_plan(dp_grid_noise *p, double sigma, dp_err *err);

/* Laplace of scale b (density exp(-|x|/b) / (2b)): g the largest power of two <= b 2^-40
 * and Lap_Z(t/s) with t/s = b/g exactly (b/g is a double: t its 53-bit significand, s a
 * power of two). Same failures. */
int dp_grid_laplace_plan(dp_grid_noise *p, double b, dp_err *err);

/* x rounded to the nearest multiple of p's spacing (ties to even): exact. */
double dp_grid_snap(const dp_grid_noise *p, double x);

/* x rounded to the nearest multiple of the spacing (ties to even), plus one draw of
 * Z * spacing. Both terms are exact multiples of the spacing, so IEEE addition returns
 * the exact noisy value correctly rounded: a function of the mechanism's output alone. */
double dp_grid_add(dp_bytes *b, const dp_grid_noise *p, double x);

#endif
