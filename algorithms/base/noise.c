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
 *   - Within a chunk, coordinate i takes its first ziggurat word from block i / 2 of S_j:
 *     words 0 | 1 << 32 for even i, words 2 | 3 << 32 for odd i. That fixes which word
 *     feeds which coordinate, so sixteen blocks can be computed side by side: with
 *     AVX-512 in one register per Philox word (sixteen 32-bit lanes, the 32 x 32 -> 64
 *     products by vpmuludq on even and odd lanes), otherwise by a plain loop over sixteen
 *     lanes. Both give the same words as dp_philox4x32 (tested), so the noise is the same
 *     on every machine.
 *   - About 99% of words are accepted by the ziggurat's rectangle test at once (a table
 *     look-up and a multiply). A rejected coordinate finishes its draw from the chunk's
 *     spill generator, stream S_j from block 2^63 on (far beyond the 2^14 blocks the
 *     chunk's first words use), consumed in coordinate order. Every trial uses fresh
 *     independent bits, so each coordinate is exactly N(0, 1) and coordinates are
 *     independent, as with dp_rng_gaussian.
 * Measured on one core of this project's machines (AMD EPYC, AVX-512; 2^15 to 2^20
 * normals, best of 20): 2.7 ns per normal, of which Philox is 0.8, against 12.9 ns for
 * dp_rng_add_gaussian's word-at-a-time loop; the portable Philox lanes take 2.6 ns.
 */
#include <pthread.h>
#include <string.h>

#include "rng.h"
#include "rng_int.h"

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

typedef void (*philox16_fn)(uint32_t w[4][LANES], uint64_t key, uint64_t stream,
                            uint64_t position);

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


// ---- the ziggurat on 32 words --------------------------------------------------------------

/* o[j] += sigma * Z_j for j < m <= 32, Z_j's first ziggurat trial being the word u[j];
 * rejected trials finish from `spill`, in order of j. Scalar on purpose: an AVX-512
 * version (table look-ups by gather, accepted lanes under a mask) measured slower on this
 * project's machines (2.9-3.1 against 2.7 ns per normal, Philox included), the gathers
 * costing more than the scalar loads. */
static void zig32(double *o, const uint64_t *u, size_t m, double sigma, dp_rng *spill)
{
    for (size_t j = 0; j < m; j++) {
        uint64_t x = u[j];
        unsigned idx = (unsigned)(x & 0xff);
        uint64_t mag = (x >> 9) & 0x000fffffffffffffULL;
        if (__builtin_expect(mag < dp_zig_ki[idx], 1)) {
            /* The sign goes in by flipping the sign bit, not by a branch: a branch on a
             * random bit is mispredicted half the time, which cost more than all the rest
             * of the draw. */
            double z = (double)(int64_t)mag * dp_zig_wi[idx]; /* exact: mag < 2^52 */
            uint64_t bits;
            memcpy(&bits, &z, sizeof bits);
            bits ^= (x & 0x100) << 55;
            memcpy(&z, &bits, sizeof z);
            o[j] += sigma * z;
        } else {
            o[j] += sigma * dp_zig_finish(spill, x);
        }
    }
}

// ---- one chunk ------------------------------------------------------------------------------

static philox16_fn pick_philox16(int portable)
{
#ifdef NOISE_HAVE_AVX512
    __builtin_cpu_init();
    if (!portable && __builtin_cpu_supports("avx512f")) return philox16_avx512;
#endif
    return philox16_portable;
}

/* out[i] += sigma * Z_i for the n <= DP_NOISE_CHUNK coordinates of the chunk whose stream
 * is s (the scheme at the top of the file). */
static void noise_chunk(philox16_fn gen, uint64_t key, uint64_t s, double *out, size_t n,
                        double sigma)
{
    dp_rng spill;
    dp_rng_init(&spill, key, s);
    dp_rng_seek(&spill, SPILL_POSITION);
    uint32_t w[4][LANES];
    uint64_t u[2 * LANES];
    for (size_t base = 0; base < n; base += 2 * LANES) {
        gen(w, key, s, base / 2);
        for (int i = 0; i < LANES; i++) {
            u[2 * i] = w[0][i] | (uint64_t)w[1][i] << 32;
            u[2 * i + 1] = w[2][i] | (uint64_t)w[3][i] << 32;
        }
        size_t m = n - base < 2 * LANES ? n - base : 2 * LANES;
        zig32(out + base, u, m, sigma, &spill);
    }
}

// ---- whole vectors, on several threads ------------------------------------------------------

typedef struct noise_job {
    philox16_fn gen;
    uint64_t key, stream0;   /* chunk j uses stream dp_mix64(stream0, j) */
    double *out;
    size_t n;
    double sigma;
    int first, step;         /* this job's chunks: first, first + step, ... */
} noise_job;

static void *noise_worker(void *arg)
{
    const noise_job *job = arg;
    size_t chunks = (job->n + DP_NOISE_CHUNK - 1) / DP_NOISE_CHUNK;
    for (size_t j = (size_t)job->first; j < chunks; j += (size_t)job->step) {
        size_t lo = j * DP_NOISE_CHUNK;
        size_t len = job->n - lo < DP_NOISE_CHUNK ? job->n - lo : DP_NOISE_CHUNK;
        noise_chunk(job->gen, job->key, dp_mix64(job->stream0, (uint64_t)j), job->out + lo,
                    len, job->sigma);
    }
    return NULL;
}

static void add_noise(dp_rng *r, double *out, size_t n, double sigma, int threads,
                      philox16_fn gen)
{
    dp_zig_tables();
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
        jobs[t] = (noise_job){.gen = gen, .key = r->key, .stream0 = stream0, .out = out,
                              .n = n, .sigma = sigma, .first = t, .step = threads};
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
    add_noise(r, out, n, sigma, threads, pick_philox16(0));
}

void dp_rng_add_gaussian_portable(dp_rng *r, double *out, size_t n, double sigma)
{
    add_noise(r, out, n, sigma, 1, pick_philox16(1));
}

void dp_philox16(uint32_t w[4][16], uint64_t key, uint64_t stream, uint64_t position,
                 int portable)
{
    pick_philox16(portable)(w, key, stream, position);
}
