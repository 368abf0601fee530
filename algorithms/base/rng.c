/* rng.c: the counter-based generator of rng.h, Philox4x32-10 (Salmon, Moraes, Dror, Shaw,
 * "Parallel random numbers: as easy as 1, 2, 3", SC 2011, §3.3, with the multipliers and
 * Weyl key increments of Random123's philox.h) and the distributions built on it.
 *
 * Choices made where the paper is silent:
 *   - key = (seed low 32 bits, seed high 32 bits); counter = (position low, position
 *     high, stream low, stream high), so a stream is 2^64 blocks of 4 words and streams
 *     of one seed never overlap.
 *   - Words of a block are consumed in order 0..3; a u64 is (first word) | (second << 32).
 *   - uniform = top 53 bits of a u64 times 2^-53, in [0, 1); uniform_pos adds one ulp
 *     step, (k + 1) 2^-53, in (0, 1].
 *   - Gaussian: Box-Muller on (uniform_pos, uniform); the sine half is kept as the spare.
 *   - Laplace: inverse CDF of |X| ~ Exp(1/b) on a (0, 1] uniform, the sign taken from the
 *     lowest bit of the same 64-bit word (a bit the 53-bit uniform does not use). This is
 *     the two-sided inverse CDF b log(2u) / -b log(2 - 2u) with its two halves folded
 *     together, and unlike that formula it never returns an infinity at u = 1.
 *   - Gamma: Marsaglia & Tsang (ACM TOMS 26(3), 2000); shape < 1 is boosted by drawing
 *     Gamma(shape + 1) and multiplying by U^(1/shape) (their §6).
 *   - below(n): rejection of the low 2^64 mod n values, then modulo: exactly uniform.
 */
#include "rng.h"

#include <math.h>

// ---- Philox4x32-10 block function ------------------------------------------------------

#define PHILOX_M0 0xD2511F53u /* multipliers of the two S-boxes (Random123 philox.h) */
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* key schedule increments: golden ratio, sqrt(3) - 1 */
#define PHILOX_W1 0xBB67AE85u

static inline void philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0];
    uint32_t n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

void dp_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k[2] = {key[0], key[1]};
    /* Ten rounds with the key bumped between consecutive rounds (nine bumps). */
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k[0] += PHILOX_W0;
            k[1] += PHILOX_W1;
        }
        philox_round(c, k);
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = c[3];
}

// ---- stream state -----------------------------------------------------------------------

void dp_rng_init(dp_rng *r, uint64_t seed, uint64_t stream)
{
    r->key = seed;
    r->stream = stream;
    r->position = 0;
    r->block[0] = r->block[1] = r->block[2] = r->block[3] = 0;
    r->used = 4;
    r->has_spare = 0;
    r->spare = 0.0;
}

void dp_rng_seek(dp_rng *r, uint64_t position)
{
    r->position = position;
    r->used = 4;
    /* The spare Gaussian came from words before the jump: keeping it would make the
     * numbers after a seek depend on what was drawn before it. */
    r->has_spare = 0;
    r->spare = 0.0;
}

static void refill(dp_rng *r)
{
    uint32_t ctr[4] = {(uint32_t)r->position, (uint32_t)(r->position >> 32),
                       (uint32_t)r->stream, (uint32_t)(r->stream >> 32)};
    uint32_t key[2] = {(uint32_t)r->key, (uint32_t)(r->key >> 32)};
    dp_philox4x32(ctr, key, r->block);
    r->position++;
    r->used = 0;
}

uint32_t dp_rng_u32(dp_rng *r)
{
    if (r->used >= 4) refill(r);
    return r->block[r->used++];
}

uint64_t dp_rng_u64(dp_rng *r)
{
    uint64_t lo = dp_rng_u32(r);
    uint64_t hi = dp_rng_u32(r);
    return lo | (hi << 32);
}

// ---- uniform and integer draws ----------------------------------------------------------

#define TWO_M53 0x1.0p-53

double dp_rng_uniform(dp_rng *r)
{
    return (double)(dp_rng_u64(r) >> 11) * TWO_M53;
}

double dp_rng_uniform_pos(dp_rng *r)
{
    return (double)((dp_rng_u64(r) >> 11) + 1) * TWO_M53;
}

uint64_t dp_rng_below(dp_rng *r, uint64_t n)
{
    if (n <= 1) return 0;
    /* 2^64 mod n, computed in 64-bit arithmetic as (2^64 - n) mod n. Values below it are
     * rejected, leaving 2^64 - (2^64 mod n) values: a whole multiple of n, so x mod n is
     * exactly uniform. Expected draws < 2. */
    uint64_t threshold = (0 - n) % n;
    for (;;) {
        uint64_t x = dp_rng_u64(r);
        if (x >= threshold) return x % n;
    }
}

void dp_rng_shuffle(dp_rng *r, size_t *idx, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)dp_rng_below(r, (uint64_t)i);
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

// ---- continuous distributions -----------------------------------------------------------

double dp_rng_gaussian(dp_rng *r)
{
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    double u1 = dp_rng_uniform_pos(r); /* (0, 1]: log is finite */
    double u2 = dp_rng_uniform(r);
    double rad = sqrt(-2.0 * log(u1));
    double theta = 2.0 * M_PI * u2;
    r->spare = rad * sin(theta);
    r->has_spare = 1;
    return rad * cos(theta);
}

void dp_rng_add_gaussian(dp_rng *r, double *out, size_t n, double sigma)
{
    for (size_t i = 0; i < n; i++) out[i] += sigma * dp_rng_gaussian(r);
}

void dp_rng_add_gaussianf(dp_rng *r, float *out, size_t n, double sigma)
{
    for (size_t i = 0; i < n; i++) out[i] = (float)((double)out[i] + sigma * dp_rng_gaussian(r));
}

double dp_rng_laplace(dp_rng *r, double b)
{
    uint64_t x = dp_rng_u64(r);
    double u = (double)((x >> 11) + 1) * TWO_M53; /* (0, 1] */
    double mag = -b * log(u);                      /* Exp(1/b) by inverse CDF */
    return (x & 1) ? -mag : mag;
}

double dp_rng_gamma(dp_rng *r, double shape, double scale)
{
    if (shape < 1.0) {
        /* Gamma(a) = Gamma(a + 1) * U^(1/a) (Marsaglia & Tsang §6). */
        double g = dp_rng_gamma(r, shape + 1.0, 1.0);
        return scale * g * pow(dp_rng_uniform_pos(r), 1.0 / shape);
    }
    double d = shape - 1.0 / 3.0;
    double c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = dp_rng_gaussian(r);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = dp_rng_uniform_pos(r);
        /* Squeeze first (cheap), then the exact log test. */
        if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return scale * d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return scale * d * v;
    }
}

// ---- seed mixing ------------------------------------------------------------------------

/* SplitMix64's output function (Steele, Lea, Flood 2014; constants of Stafford's Mix13):
 * a bijection of 64-bit words with full avalanche. */
static uint64_t splitmix_fin(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t dp_mix64(uint64_t a, uint64_t b)
{
    /* fin(fin(a + golden) ^ b): for fixed a it is a bijection in b and for fixed b a
     * bijection in a, so distinct inputs on either side never collide, and the order of
     * the arguments matters (mix(a, b) != mix(b, a) in general). */
    return splitmix_fin(splitmix_fin(a + 0x9E3779B97F4A7C15ull) ^ b);
}
