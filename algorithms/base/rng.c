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
 *   - Gaussian: the ziggurat method of Marsaglia & Tsang ("The ziggurat method for
 *     generating random variables", J. Stat. Softw. 5(8), 2000) with 256 layers
 *     (r = 3.6541528853610088, layer area v = 0.00492867323399), exact: the rectangle
 *     test, the wedge test against exp(-x^2/2) and Marsaglia's tail algorithm beyond r
 *     make the output exactly normal up to floating point. Following Doornik ("An
 *     improved ziggurat method", 2005), the layer index, the sign and the 52-bit
 *     magnitude come from disjoint bits of one 64-bit draw, so they are independent.
 *     Why not Box-Muller: it costs a log, a sqrt and a sine/cosine per pair (about 30 ns
 *     per normal here), and DP-SGD draws one normal per parameter per step, which made
 *     noise the largest cost of a private step for models with 10^5+ parameters; the
 *     ziggurat needs one 64-bit draw and a multiply for 99% of its normals.
 *   - Laplace: inverse CDF of |X| ~ Exp(1/b) on a (0, 1] uniform, the sign taken from the
 *     lowest bit of the same 64-bit word (a bit the 53-bit uniform does not use). This is
 *     the two-sided inverse CDF b log(2u) / -b log(2 - 2u) with its two halves folded
 *     together, and unlike that formula it never returns an infinity at u = 1.
 *   - Gamma: Marsaglia & Tsang (ACM TOMS 26(3), 2000); shape < 1 is boosted by drawing
 *     Gamma(shape + 1) and multiplying by U^(1/shape) (their §6).
 *   - below(n): rejection of the low 2^64 mod n values, then modulo: exactly uniform.
 */
#include "algorithms/base/rng.h"
#include "algorithms/base/rng_int.h"

#include <math.h>
#include <pthread.h>

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
    for (int i = 0; i < DP_RNG_WIDE_WORDS; i++) r->block[i] = 0;
    r->words = DP_RNG_WORDS;
    r->used = r->words;
}

void dp_rng_init_wide(dp_rng *r, uint64_t seed, uint64_t stream)
{
    dp_rng_init(r, seed, stream);
    r->words = DP_RNG_WIDE_WORDS;
    r->used = r->words;
}

void dp_rng_seek(dp_rng *r, uint64_t position)
{
    r->position = position;
    r->used = r->words;
}

/* One Philox round on four independent counters held in scalars (a, b, c, d are the four
 * words of each), so the compiler keeps all sixteen in registers. */
#define PHILOX_ROUND4(a, b, c, d, k0, k1)                                                   \
    do {                                                                                    \
        uint64_t p0_ = (uint64_t)PHILOX_M0 * a, p1_ = (uint64_t)PHILOX_M1 * c;              \
        uint32_t n0_ = (uint32_t)(p1_ >> 32) ^ b ^ k0, n2_ = (uint32_t)(p0_ >> 32) ^ d ^ k1; \
        a = n0_;                                                                            \
        b = (uint32_t)p1_;                                                                  \
        c = n2_;                                                                            \
        d = (uint32_t)p0_;                                                                  \
    } while (0)

/* A wide generator's refill: blocks position .. position + 15 by dp_philox16 (noise.c:
 * word k of block i in w[k][i]), laid out block after block as refill lays them. */
static void refill_wide(dp_rng *r)
{
    uint32_t w[4][DP_RNG_WIDE_BLOCKS];
    dp_philox16(w, r->key, r->stream, r->position, 0);
    for (int i = 0; i < DP_RNG_WIDE_BLOCKS; i++)
        for (int k = 0; k < 4; k++) r->block[4 * i + k] = w[k][i];
    r->position += DP_RNG_WIDE_BLOCKS;
    r->used = 0;
}

/* Refill the buffer with blocks position .. position + 3. A Philox round is a chain of
 * dependent multiplies, so one block at a time leaves the CPU waiting on latency; here
 * four blocks run as independent interleaved chains, giving exactly the words
 * dp_philox4x32 gives one block at a time (tested). */
static void refill(dp_rng *r)
{
    if (r->words == DP_RNG_WIDE_WORDS) {
        refill_wide(r);
        return;
    }
    _Static_assert(DP_RNG_BLOCKS == 4, "refill computes exactly four blocks");
    uint64_t p = r->position;
    uint32_t s0 = (uint32_t)r->stream, s1 = (uint32_t)(r->stream >> 32);
    uint32_t a0 = (uint32_t)p, b0 = (uint32_t)(p >> 32), c0 = s0, d0 = s1;
    uint32_t a1 = (uint32_t)(p + 1), b1 = (uint32_t)((p + 1) >> 32), c1 = s0, d1 = s1;
    uint32_t a2 = (uint32_t)(p + 2), b2 = (uint32_t)((p + 2) >> 32), c2 = s0, d2 = s1;
    uint32_t a3 = (uint32_t)(p + 3), b3 = (uint32_t)((p + 3) >> 32), c3 = s0, d3 = s1;
    uint32_t k0 = (uint32_t)r->key, k1 = (uint32_t)(r->key >> 32);
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        PHILOX_ROUND4(a0, b0, c0, d0, k0, k1);
        PHILOX_ROUND4(a1, b1, c1, d1, k0, k1);
        PHILOX_ROUND4(a2, b2, c2, d2, k0, k1);
        PHILOX_ROUND4(a3, b3, c3, d3, k0, k1);
    }
    uint32_t *o = r->block;
    o[0] = a0, o[1] = b0, o[2] = c0, o[3] = d0;
    o[4] = a1, o[5] = b1, o[6] = c1, o[7] = d1;
    o[8] = a2, o[9] = b2, o[10] = c2, o[11] = d2;
    o[12] = a3, o[13] = b3, o[14] = c3, o[15] = d3;
    r->position += DP_RNG_BLOCKS;
    r->used = 0;
}

uint32_t dp_rng_u32(dp_rng *r)
{
    if (r->used >= r->words) refill(r);
    return r->block[r->used++];
}

uint64_t dp_rng_u64(dp_rng *r)
{
    if (r->used <= r->words - 2) { /* both words in the buffer: the common case */
        uint64_t lo = r->block[r->used], hi = r->block[r->used + 1];
        r->used += 2;
        return lo | (hi << 32);
    }
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

// ---- ziggurat ---------------------------------------------------------------------------

#define ZIG_LAYERS 256
#define ZIG_R 3.6541528853610088     /* right edge of the base layer */
#define ZIG_V 0.00492867323399       /* area of every layer */
#define ZIG_M 4503599627370496.0     /* 2^52: magnitudes are 52-bit integers */

/* ki[i]: magnitudes below it lie inside layer i's rectangle (accepted at once);
 * wi[i]: magnitude -> x; fi[i] = exp(-x_i^2 / 2) at the layer's edge x_i. Written once
 * (pthread_once), read-only afterwards; noise.c reads ki and wi for its fast path. */
uint64_t dp_zig_ki[ZIG_LAYERS];
double dp_zig_wi[ZIG_LAYERS];
static double zig_fi[ZIG_LAYERS];
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;
#define zig_ki dp_zig_ki
#define zig_wi dp_zig_wi

/* Marsaglia & Tsang's table set-up (their zigset), for 256 layers and 52-bit magnitudes.
 * Deterministic: the same tables, bit for bit, in every process. */
static void zig_setup(void)
{
    double dn = ZIG_R, tn = dn;
    double q = ZIG_V / exp(-0.5 * dn * dn);
    zig_ki[0] = (uint64_t)((dn / q) * ZIG_M);
    zig_ki[1] = 0;
    zig_wi[0] = q / ZIG_M;
    zig_wi[ZIG_LAYERS - 1] = dn / ZIG_M;
    zig_fi[0] = 1.0;
    zig_fi[ZIG_LAYERS - 1] = exp(-0.5 * dn * dn);
    for (int i = ZIG_LAYERS - 2; i >= 1; i--) {
        dn = sqrt(-2.0 * log(ZIG_V / dn + exp(-0.5 * dn * dn)));
        zig_ki[i + 1] = (uint64_t)((dn / tn) * ZIG_M);
        tn = dn;
        zig_fi[i] = exp(-0.5 * dn * dn);
        zig_wi[i] = dn / ZIG_M;
    }
}

/* One normal whose first ziggurat trial uses the 64-bit word u; a rejected trial goes on
 * with draws from r. The tables must be built. */
static inline double zig_from(dp_rng *r, uint64_t u)
{
    for (;;) {
        unsigned idx = (unsigned)(u & 0xff);
        int negative = (int)((u >> 8) & 1);
        uint64_t rabs = (u >> 9) & 0x000fffffffffffffULL;
        double x = (double)rabs * zig_wi[idx];
        if (rabs < zig_ki[idx]) return negative ? -x : x; /* inside the rectangle: ~99% */
        if (idx == 0) {
            /* Beyond r: Marsaglia's tail method, exact for the normal tail. */
            for (;;) {
                double xx = -log1p(-dp_rng_uniform(r)) / ZIG_R;
                double yy = -log1p(-dp_rng_uniform(r));
                if (yy + yy > xx * xx) return negative ? -(ZIG_R + xx) : ZIG_R + xx;
            }
        }
        /* In the wedge: accept under the density, else start over. */
        if (zig_fi[idx] + dp_rng_uniform(r) * (zig_fi[idx - 1] - zig_fi[idx]) < exp(-0.5 * x * x))
            return negative ? -x : x;
        u = dp_rng_u64(r);
    }
}

/* One normal; the tables must be built. Inlined into the noise loops below. */
static inline double zig_draw(dp_rng *r)
{
    return zig_from(r, dp_rng_u64(r));
}

void dp_zig_tables(void)
{
    pthread_once(&zig_once, zig_setup);
}

double dp_zig_finish(dp_rng *r, uint64_t u)
{
    return zig_from(r, u);
}

double dp_rng_gaussian(dp_rng *r)
{
    pthread_once(&zig_once, zig_setup);
    return zig_draw(r);
}

/* The same draws as n calls of dp_rng_gaussian, without a call per coordinate: this loop
 * is the noise of every DP-SGD step. */
void dp_rng_add_gaussian(dp_rng *r, double *out, size_t n, double sigma)
{
    pthread_once(&zig_once, zig_setup);
    for (size_t i = 0; i < n; i++) out[i] += sigma * zig_draw(r);
}

void dp_rng_add_gaussianf(dp_rng *r, float *out, size_t n, double sigma)
{
    pthread_once(&zig_once, zig_setup);
    for (size_t i = 0; i < n; i++) out[i] = (float)((double)out[i] + sigma * zig_draw(r));
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
