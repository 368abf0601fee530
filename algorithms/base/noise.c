/* noise.c: Gaussian noise vectors, the per-step noise of DP-SGD and its relatives: one
 * normal per parameter per step, which for models with 10^5 - 10^7 parameters is the
 * largest cost a private step adds to a plain one (DESIGN.md, Performance).
 *
 * Sources: Philox4x32-10 (Salmon et al. SC 2011; rng.c) and the exact ziggurat of
 * Marsaglia & Tsang 2000 with Doornik's disjoint bits (rng.c).
 *
 * How it is fast, and still exact and reproducible:
 *   - The vector is cut into fixed chunks of DP_NOISE_CHUNK coordinates; chunk j draws
 *     from its own Philox stream S_j = dp_mix64(dp_mix64(stream, position), j) of the
 *     run's key, so chunks can go to any number of threads and the numbers do not depend
 *     on how many (rng.h).
 *   - Within a chunk, coordinate i takes its first ziggurat trial from one 32-bit word:
 *     word (i % 64) / 16 of block 16 (i / 64) + i % 16 of S_j. Sixteen blocks are computed
 *     side by side, with AVX-512 in one register per Philox word (sixteen 32-bit lanes,
 *     the 32 x 32 -> 64 products by vpmuludq on even and odd lanes), otherwise by a
 *     plain loop over sixteen lanes; both give the words of dp_philox4x32 (tested).
 *   - A word is a trial of dp_rng_gaussian's 256-layer ziggurat at 23-bit resolution:
 *     8 bits of layer, a sign bit, a 23-bit magnitude (a 64-bit trial per normal, as
 *     rng.c draws, doubled the Philox work and the table width for bits that the noise
 *     of a gradient does not need). 98.5% of trials lie inside their layer's rectangle,
 *     and the normal is +-(float)mag * w[layer], one float product, converted to double
 *     exactly; sigma times it is added in double. The vector path looks the layer's
 *     bound and scale up by permutes across registers holding the tables (no gathers:
 *     on this project's Xeons they cost more than scalar loads) and handles sixteen
 *     coordinates per instruction; the portable path does the same operations one
 *     coordinate at a time, so both give the same bits on every CPU (tested).
 *   - A trial outside the rectangle finishes in double precision by dp_rng_gaussian's
 *     exact ziggurat (rng.c: the 52-bit rectangle test, Marsaglia's tail, the wedge test,
 *     restarts) from the chunk's spill generator, stream S_j from block 2^63 on (far
 *     beyond the 2^13 blocks the chunk's first words use), consumed in coordinate order.
 *     Every trial uses fresh independent bits, so each coordinate is the ziggurat's
 *     N(0, 1), at the resolution of its trial and rounded to float where the rectangle
 *     accepts it, and coordinates are independent.
 * Measured on one core of this project's Xeon (AVX-512; 468,874 normals, best of 40, the
 * two versions alternating): 3.0 ns per normal against 5.6 ns for the previous version
 * of this file (a 64-bit trial per normal, the ziggurat scalar), which was 2.7 ns on the
 * AMD EPYC machines; dp_rng_add_gaussian's word-at-a-time loop takes 12.9 ns there.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/rng_int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NOISE_HAVE_AVX512 1
#endif

#define PHILOX_M0 0xD2511F53u /* as in rng.c (Random123 philox.h) */
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define LANES 16
#define SPILL_POSITION (UINT64_C(1) << 63)


// ---- sixteen Philox blocks side by side ------------------------------------------------

/* w[k][i] = word k of Philox(key, (position + i, stream)), i < 16. Written as sixteen
 * independent lanes so a compiler can keep them in vector registers. */
static void philox16_portable(uint32_t w[4][LANES], uint64_t key, uint64_t stream,
                              uint64_t position)
{
    uint32_t *a = w[0], *b = w[1], *c = w[2], *d = w[3];
    for (int i = 0; i < LANES; i++) {
        uint64_t p = position + (uint64_t)i;
        a[i] = (uint32_t)p;
        b[i] = (uint32_t)(p >> 32);
        c[i] = (uint32_t)stream;
        d[i] = (uint32_t)(stream >> 32);
    }
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        for (int i = 0; i < LANES; i++) {
            uint64_t p0 = (uint64_t)PHILOX_M0 * a[i], p1 = (uint64_t)PHILOX_M1 * c[i];
            uint32_t na = (uint32_t)(p1 >> 32) ^ b[i] ^ k0;
            uint32_t nc = (uint32_t)(p0 >> 32) ^ d[i] ^ k1;
            a[i] = na;
            b[i] = (uint32_t)p1;
            c[i] = nc;
            d[i] = (uint32_t)p0;
        }
    }
}

#ifdef NOISE_HAVE_AVX512
/* hi and lo halves of the 32 x 32 -> 64 products m * x in each of sixteen lanes:
 * vpmuludq multiplies the even lanes; the odd ones are shifted down and multiplied too. */
__attribute__((target("avx512f"))) static inline void mul_hilo(__m512i x, __m512i m,
                                                               __m512i *hi, __m512i *lo)
{
    __m512i even = _mm512_mul_epu32(x, m);
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(x, 32), m);
    *hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
    *lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

__attribute__((target("avx512f"))) static void philox16_avx512(uint32_t w[4][LANES],
                                                                uint64_t key, uint64_t stream,
                                                                uint64_t position)
{
    uint32_t lo[LANES], hi[LANES];
    for (int i = 0; i < LANES; i++) { /* 64-bit positions: the carry into the high word */
        uint64_t p = position + (uint64_t)i;
        lo[i] = (uint32_t)p;
        hi[i] = (uint32_t)(p >> 32);
    }
    __m512i a = _mm512_loadu_si512(lo), b = _mm512_loadu_si512(hi);
    __m512i c = _mm512_set1_epi32((int)(uint32_t)stream);
    __m512i d = _mm512_set1_epi32((int)(uint32_t)(stream >> 32));
    __m512i m0 = _mm512_set1_epi64(PHILOX_M0), m1 = _mm512_set1_epi64(PHILOX_M1);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        __m512i hi0, lo0, hi1, lo1;
        mul_hilo(a, m0, &hi0, &lo0);
        mul_hilo(c, m1, &hi1, &lo1);
        /* 0x96: three-way exclusive or */
        a = _mm512_ternarylogic_epi32(hi1, b, _mm512_set1_epi32((int)k0), 0x96);
        c = _mm512_ternarylogic_epi32(hi0, d, _mm512_set1_epi32((int)k1), 0x96);
        b = lo1;
        d = lo0;
    }
    _mm512_storeu_si512(w[0], a);
    _mm512_storeu_si512(w[1], b);
    _mm512_storeu_si512(w[2], c);
    _mm512_storeu_si512(w[3], d);
}
#endif


// ---- the ziggurat on 32-bit words --------------------------------------------------------

/* A word x is a first ziggurat trial at 23-bit resolution: layer idx = x & 0xff, sign bit
 * (x >> 8) & 1, magnitude mag = x >> 9 < 2^23, in the layers of dp_rng_gaussian's
 * 256-layer ziggurat (rng.c). zig_k[i] = dp_zig_ki[i] / 2^29 rounded down: a magnitude
 * below it lies inside layer i's rectangle, where the normal is +-mag zig_w[i] at once
 * (98.5% of words); zig_w[i] = dp_zig_wi[i] 2^29 rounded to float. Built once
 * (pthread_once), read-only afterwards. */
#define ZIG_LAYERS 256
#define ZIG_SHIFT 29 /* 52-bit magnitudes of rng.c's tables to this file's 23 */
static uint32_t zig_k[ZIG_LAYERS];
static float zig_w[ZIG_LAYERS];
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_setup(void)
{
    dp_zig_tables();
    for (int i = 0; i < ZIG_LAYERS; i++) {
        zig_k[i] = (uint32_t)(dp_zig_ki[i] >> ZIG_SHIFT);
        zig_w[i] = (float)ldexp(dp_zig_wi[i], ZIG_SHIFT);
    }
}

/* The rest of a draw whose first trial, the word x, fell outside its layer's rectangle
 * test: dp_rng_gaussian's exact ziggurat given that trial as its first 64-bit word (the
 * magnitude x >> 9 placed in the word's top 23 bits). The 52-bit test accepts the few
 * magnitudes at the rectangle's edge that the 23-bit test did not; the others go on to
 * the tail or wedge with fresh bits of `spill`. So each coordinate is exactly the
 * ziggurat's N(0, 1) at the trial's resolution. */
static double zig_slow(dp_rng *spill, uint32_t x)
{
    return dp_zig_finish(spill, (uint64_t)(x & 0x1ffu) | (uint64_t)(x >> 9) << (9 + ZIG_SHIFT));
}

/* o[i] = c[i] + sigma * Z_i for i < m <= 64 (c == o: o[i] += ...; c == NULL: o[i] =
 * sigma * Z_i, the product the sum would add), Z_i's first trial being word i % 16 of
 * Philox block w[i / 16]; rejected trials finish from `spill`, in order of i. The
 * portable path, and the vector path's ragged end. */
static void zig64_portable(double *o, const double *c, const uint32_t w[4][LANES], size_t m,
                           double sigma, dp_rng *spill)
{
    for (size_t i = 0; i < m; i++) {
        uint32_t x = w[i / LANES][i % LANES];
        unsigned idx = x & (ZIG_LAYERS - 1);
        uint32_t mag = x >> 9;
        if (__builtin_expect(mag < zig_k[idx], 1)) {
            /* mag < 2^24 converts exactly; the product is rounded once, to float. The
             * sign goes in as a bit, not by a branch on a random bit. */
            float z = (float)mag * zig_w[idx];
            uint32_t bits;
            memcpy(&bits, &z, sizeof bits);
            bits ^= (x & 0x100u) << 23;
            memcpy(&z, &bits, sizeof z);
            double p = sigma * (double)z;
            o[i] = c ? c[i] + p : p;
        } else {
            double p = sigma * zig_slow(spill, x);
            o[i] = c ? c[i] + p : p;
        }
    }
}

#ifdef NOISE_HAVE_AVX512
/* t[idx] for sixteen 8-bit indices from a 256-entry table: one two-register permute per
 * eighth of the table (index bits 0-4), then blends by bits 5, 6 and 7. No gathers: on
 * this project's Xeons (vpgatherqq under the microcode's gather mitigation) they made the
 * draw slower than the scalar loop. A 128-layer table needs half the permutes but
 * rejects 2.8% of trials instead of 1.5%, which cost more than it saved. Always inlined:
 * gcc kept it a function of its own, called twice per sixteen normals; inlined, the draw
 * takes 0.88-0.95 of the time (one thread, against the version before in one process). */
__attribute__((target("avx512f"), always_inline)) static inline __m512i
lut32(__m512i idx, const uint32_t *t)
{
    return _mm512_permutex2var_epi32(_mm512_loadu_si512(t), idx, _mm512_loadu_si512(t + 16));
}

/* Written out as a tree, not as loops over an array of eight registers: gcc kept such an
 * array in memory, a store and a load per permute. */
__attribute__((target("avx512f"), always_inline)) static inline __m512i
lut256(__m512i idx, const uint32_t *t, const __mmask16 b[3])
{
    __m512i q0 = _mm512_mask_blend_epi32(b[0], lut32(idx, t), lut32(idx, t + 32));
    __m512i q1 = _mm512_mask_blend_epi32(b[0], lut32(idx, t + 64), lut32(idx, t + 96));
    __m512i q2 = _mm512_mask_blend_epi32(b[0], lut32(idx, t + 128), lut32(idx, t + 160));
    __m512i q3 = _mm512_mask_blend_epi32(b[0], lut32(idx, t + 192), lut32(idx, t + 224));
    __m512i h0 = _mm512_mask_blend_epi32(b[1], q0, q1);
    __m512i h1 = _mm512_mask_blend_epi32(b[1], q2, q3);
    return _mm512_mask_blend_epi32(b[2], h0, h1);
}

/* zig64_portable for m = 64 on the vector unit, the same operations on every lane: the
 * same bits. */
__attribute__((target("avx512f"))) static void zig64_avx512(double *o, const double *c,
                                                            const uint32_t w[4][LANES],
                                                            double sigma, dp_rng *spill)
{
    const __m512i low8 = _mm512_set1_epi32(ZIG_LAYERS - 1), signbit = _mm512_set1_epi32(0x100);
    const __m512d vs = _mm512_set1_pd(sigma);
    uint64_t rejected = 0;
    for (int k = 0; k < 4; k++) {
        __m512i x = _mm512_loadu_si512(w[k]);
        __m512i idx = _mm512_and_si512(x, low8), mag = _mm512_srli_epi32(x, 9);
        __mmask16 b[3];
        for (int q = 0; q < 3; q++) b[q] = _mm512_test_epi32_mask(idx, _mm512_set1_epi32(32 << q));
        __mmask16 acc = _mm512_cmplt_epu32_mask(mag, lut256(idx, zig_k, b));
        __m512 scale = _mm512_castsi512_ps(lut256(idx, (const uint32_t *)zig_w, b));
        __m512 z = _mm512_mul_ps(_mm512_cvtepi32_ps(mag), scale);
        z = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(z),
                                                  _mm512_slli_epi32(_mm512_and_si512(x, signbit), 23)));
        __m256 zlo = _mm512_castps512_ps256(z);
        __m256 zhi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1));
        double *ok = o + LANES * k;
        __m512d plo = _mm512_mul_pd(vs, _mm512_cvtps_pd(zlo));
        __m512d phi = _mm512_mul_pd(vs, _mm512_cvtps_pd(zhi));
        if (c) { /* rejected lanes keep c until the loop below */
            const double *ck = c + LANES * k;
            __m512d olo = _mm512_loadu_pd(ck), ohi = _mm512_loadu_pd(ck + 8);
            plo = _mm512_mask_add_pd(olo, (__mmask8)acc, olo, plo);
            phi = _mm512_mask_add_pd(ohi, (__mmask8)(acc >> 8), ohi, phi);
        }
        _mm512_storeu_pd(ok, plo);
        _mm512_storeu_pd(ok + 8, phi);
        rejected |= (uint64_t)(uint16_t)~acc << (LANES * k);
    }
    while (rejected) {
        int i = __builtin_ctzll(rejected);
        rejected &= rejected - 1;
        double p = sigma * zig_slow(spill, w[i / LANES][i % LANES]);
        o[i] = c ? c[i] + p : p;
    }
}

/* One chunk on the vector unit: sixteen Philox blocks, 64 normals, at a time, the tables
 * loaded into registers once. */
__attribute__((target("avx512f"))) static void chunk_avx512(uint64_t key, uint64_t s, double *out,
                                                            const double *c, size_t n,
                                                            double sigma, dp_rng *spill)
{
    uint32_t w[4][LANES];
    for (size_t base = 0; base < n; base += 4 * LANES) {
        philox16_avx512(w, key, s, base / 4);
        const double *cb = c ? c + base : NULL;
        if (n - base >= 4 * LANES) zig64_avx512(out + base, cb, w, sigma, spill);
        else zig64_portable(out + base, cb, w, n - base, sigma, spill);
    }
}
#endif

// ---- one chunk ------------------------------------------------------------------------------

/* out[i] = c[i] + sigma * Z_i for the n <= DP_NOISE_CHUNK coordinates of the chunk whose
 * stream is s (the scheme at the top of the file); c == NULL: out[i] = sigma * Z_i. */
static void noise_chunk(int portable, uint64_t key, uint64_t s, double *out, const double *c,
                        size_t n, double sigma)
{
    dp_rng spill; /* wide: its words came four blocks per scalar refill, a third of the
                   * cost of the rejected trials (about 30% of the draw's time) */
    dp_rng_init_wide(&spill, key, s);
    dp_rng_seek(&spill, SPILL_POSITION);
#ifdef NOISE_HAVE_AVX512
    if (!portable) {
        chunk_avx512(key, s, out, c, n, sigma, &spill);
        return;
    }
#endif
    uint32_t w[4][LANES];
    for (size_t base = 0; base < n; base += 4 * LANES) {
        philox16_portable(w, key, s, base / 4);
        size_t m = n - base < 4 * LANES ? n - base : 4 * LANES;
        zig64_portable(out + base, c ? c + base : NULL, w, m, sigma, &spill);
    }
}

// ---- whole vectors, on several threads ------------------------------------------------------

/* Whether this CPU runs the vector path: 1 when it has AVX-512F. */
static int have_avx512(void)
{
#ifdef NOISE_HAVE_AVX512
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return 0;
#endif
}

typedef struct noise_job {
    int portable;
    uint64_t key, stream0;   /* chunk j uses stream dp_mix64(stream0, j) */
    double *out;
    const double *center;    /* out = center + noise (out itself: added) */
    size_t n;
    double sigma;
    int first, step;         /* this job's chunks: first, first + step, ... */
    dp_chunk_fn then;        /* NULL, or called on each chunk once its noise is in */
    double *scratch;         /* or NULL: each chunk's noise alone goes here (this job's
                              * DP_NOISE_CHUNK doubles), out and center unused */
    dp_chunk_noise_fn then_z; /* with scratch: called on each chunk with its noise */
    void *ctx;
} noise_job;

static void *noise_worker(void *arg)
{
    const noise_job *job = arg;
    size_t chunks = (job->n + DP_NOISE_CHUNK - 1) / DP_NOISE_CHUNK;
    for (size_t j = (size_t)job->first; j < chunks; j += (size_t)job->step) {
        size_t lo = j * DP_NOISE_CHUNK;
        size_t len = job->n - lo < DP_NOISE_CHUNK ? job->n - lo : DP_NOISE_CHUNK;
        uint64_t s = dp_mix64(job->stream0, (uint64_t)j);
        if (job->scratch) { /* while the chunk is in cache */
            noise_chunk(job->portable, job->key, s, job->scratch, NULL, len, job->sigma);
            job->then_z(job->ctx, lo, lo + len, job->scratch);
            continue;
        }
        noise_chunk(job->portable, job->key, s, job->out + lo, job->center + lo, len, job->sigma);
        if (job->then) job->then(job->ctx, lo, lo + len); /* while the chunk is in cache */
    }
    return NULL;
}

static void add_noise(dp_rng *r, double *out, const double *center, size_t n, double sigma,
                      int threads, int portable, dp_chunk_fn then, void *ctx, double *scratch,
                      dp_chunk_noise_fn then_z)
{
    pthread_once(&zig_once, zig_setup);
    noise_job jobs[DP_NOISE_MAX_THREADS];
    pthread_t tid[DP_NOISE_MAX_THREADS];
    int started[DP_NOISE_MAX_THREADS] = {0};
    size_t chunks = (n + DP_NOISE_CHUNK - 1) / DP_NOISE_CHUNK;
    if (threads < 1) threads = 1;
    if (threads > DP_NOISE_MAX_THREADS) threads = DP_NOISE_MAX_THREADS;
    if ((size_t)threads > chunks) threads = chunks > 0 ? (int)chunks : 1;
    /* The chunks' streams hang off this call's place in r's stream; r then moves on by
     * one block, so the next call draws different noise. */
    uint64_t stream0 = dp_mix64(r->stream, r->position);
    dp_rng_seek(r, r->position + 1);
    for (int t = 0; t < threads; t++)
        jobs[t] = (noise_job){.portable = portable, .key = r->key, .stream0 = stream0,
                              .out = out,
                              .center = center, .n = n, .sigma = sigma, .first = t, .step = threads,
                              .then = then, .ctx = ctx, .then_z = then_z,
                              .scratch = scratch ? scratch + (size_t)t * DP_NOISE_CHUNK : NULL};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, noise_worker, &jobs[t]) == 0;
    noise_worker(&jobs[0]);
    /* A thread that could not start leaves its chunks to this one: same numbers. */
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else noise_worker(&jobs[t]);
    }
}

void dp_rng_add_gaussian_par(dp_rng *r, double *out, size_t n, double sigma, int threads)
{
    add_noise(r, out, out, n, sigma, threads, !have_avx512(), NULL, NULL, NULL, NULL);
}

void dp_rng_add_gaussian_then(dp_rng *r, double *out, size_t n, double sigma, int threads,
                              dp_chunk_fn then, void *ctx)
{
    add_noise(r, out, out, n, sigma, threads, !have_avx512(), then, ctx, NULL, NULL);
}

void dp_rng_gaussian_chunks(dp_rng *r, size_t n, double sigma, int threads, double *scratch,
                            dp_chunk_noise_fn then_z, void *ctx)
{
    add_noise(r, NULL, NULL, n, sigma, threads, !have_avx512(), NULL, ctx, scratch, then_z);
}

void dp_rng_gaussian_around_par(dp_rng *r, double *out, const double *center, size_t n,
                                double sigma, int threads)
{
    add_noise(r, out, center, n, sigma, threads, !have_avx512(), NULL, NULL, NULL, NULL);
}

void dp_rng_gaussian_around_then(dp_rng *r, double *out, const double *center, size_t n,
                                 double sigma, int threads, dp_chunk_fn then, void *ctx)
{
    add_noise(r, out, center, n, sigma, threads, !have_avx512(), then, ctx, NULL, NULL);
}

void dp_rng_add_gaussian_portable(dp_rng *r, double *out, size_t n, double sigma)
{
    add_noise(r, out, out, n, sigma, 1, 1, NULL, NULL, NULL, NULL);
}

void dp_philox16(uint32_t w[4][16], uint64_t key, uint64_t stream, uint64_t position,
                 int portable)
{
#ifdef NOISE_HAVE_AVX512
    if (!portable && have_avx512()) {
        philox16_avx512(w, key, stream, position);
        return;
    }
#endif
    philox16_portable(w, key, stream, position);
}
