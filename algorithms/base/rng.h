/* rng.h: counter-based random generator, Philox4x32-10 (Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3", SC 2011).
 *
 * Why counter-based: a draw is a pure function of (key, counter), so every run's numbers
 * depend only on (run seed, stream) and not on -j, run order or core count (DESIGN.md,
 * Determinism). The key is the run seed (64 bits); the 128-bit counter is
 * (position: 64 bits, stream: 64 bits), so streams never overlap and a stream can be
 * skipped to any position (dp_rng_seek). Separate streams for data, split, init, batch
 * sampling and noise mean that changing the noise does not change the batches.
 *
 * The state is a plain value: copy the struct to save it, assign to restore it.
 * Leaf header: includes nothing else of the project. No function here can fail.
 */
#ifndef DPERM_RNG_H
#define DPERM_RNG_H

#include <stddef.h>
#include <stdint.h>

/* Stream ids: one per independent use of randomness within a run. Never renumber. */
enum dp_stream {
    DP_STREAM_DATA = 1,    /* synthetic data generation */
    DP_STREAM_SPLIT = 2,   /* train/validation/test splits, subsampling of data */
    DP_STREAM_INIT = 3,    /* model initialization */
    DP_STREAM_BATCH = 4,   /* mini-batch sampling (fixed-size shuffles or Poisson) */
    DP_STREAM_NOISE = 5,   /* privacy mechanism noise */
    DP_STREAM_ALGO = 6,    /* other algorithm-internal randomness (random rounds, ...) */
    DP_STREAM_TEST = 99    /* unit tests */
};

/* Blocks generated per refill (interleaved for speed; the word sequence is the same as
 * generating them one at a time), and per refill of a wide generator (dp_rng_init_wide:
 * sixteen blocks side by side, on the vector unit where there is one). */
#define DP_RNG_BLOCKS 4
#define DP_RNG_WORDS (4 * DP_RNG_BLOCKS)
#define DP_RNG_WIDE_BLOCKS 16
#define DP_RNG_WIDE_WORDS (4 * DP_RNG_WIDE_BLOCKS)

typedef struct dp_rng {
    uint64_t key;        /* run seed */
    uint64_t stream;     /* stream id (high half of the counter) */
    uint64_t position;   /* next block to generate (low half of the counter) */
    uint32_t block[DP_RNG_WIDE_WORDS]; /* buffered output words (the first `words`) */
    int used;            /* words of the buffer already consumed (`words` = empty) */
    int words;           /* DP_RNG_WORDS, or DP_RNG_WIDE_WORDS for a wide generator */
} dp_rng;

/* Start stream `stream` of seed `seed` at position 0. */
void dp_rng_init(dp_rng *r, uint64_t seed, uint64_t stream);

/* dp_rng_init for a generator that refills sixteen blocks at a time: the same words in
 * the same order from every draw, at a quarter of the cost per word where the CPU has
 * AVX-512 (the noise's rejected ziggurat trials draw their fresh words from one). Only
 * `position` differs after draws (it moves by sixteen blocks per refill): a wide
 * generator must not be given to dp_rng_add_gaussian* and its relatives, whose streams
 * hang off the position. */
void dp_rng_init_wide(dp_rng *r, uint64_t seed, uint64_t stream);

/* Jump to block `position` of the same stream (discarding buffered words). */
void dp_rng_seek(dp_rng *r, uint64_t position);

/* The raw Philox4x32-10 block function: out = Philox(key, counter). Exposed for tests
 * against the published known-answer vectors. */
void dp_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

uint32_t dp_rng_u32(dp_rng *r);
uint64_t dp_rng_u64(dp_rng *r);

/* Uniform double in [0, 1) with 53 random bits. */
double dp_rng_uniform(dp_rng *r);

/* Uniform double in (0, 1]: safe to take the log of. */
double dp_rng_uniform_pos(dp_rng *r);

/* Uniform integer in [0, n), unbiased (rejection); n must be >= 1. */
uint64_t dp_rng_below(dp_rng *r, uint64_t n);

/* Standard normal N(0, 1), exact ziggurat (Marsaglia & Tsang 2000; rng.c says why).
 * Tables are built once per process, thread-safely. */
double dp_rng_gaussian(dp_rng *r);

/* out[i] += sigma * N(0,1) for i < n (adds, so noise can go straight onto a gradient). */
void dp_rng_add_gaussian(dp_rng *r, double *out, size_t n, double sigma);
void dp_rng_add_gaussianf(dp_rng *r, float *out, size_t n, double sigma);

/* out[i] += sigma * N(0,1) for i < n, using up to `threads` threads, with results that do
 * not depend on `threads` nor on the CPU: the vector is cut into fixed chunks of
 * DP_NOISE_CHUNK coordinates, chunk j draws from its own stream
 * dp_mix64(dp_mix64(stream, position), j) of the same key (noise.c says exactly how),
 * and r advances by one block per call. This is the per-step noise of DP-SGD, one normal
 * per parameter: sixteen Philox blocks at a time, one 32-bit ziggurat trial per normal
 * (23-bit magnitudes; the 98.5% inside a rectangle are float products, the rest finish
 * by dp_rng_gaussian's exact ziggurat in double), sixteen coordinates per instruction
 * where the CPU has AVX-512: 3.0 ns per normal on one core of this project's Xeon,
 * against 12.9 ns for dp_rng_add_gaussian. Cannot fail (a thread that cannot start is
 * done inline). */
#define DP_NOISE_CHUNK 32768
#define DP_NOISE_MAX_THREADS 64
void dp_rng_add_gaussian_par(dp_rng *r, double *out, size_t n, double sigma, int threads);

/* dp_rng_add_gaussian_par's numbers, and then(ctx, lo, hi) called on each chunk
 * [lo, hi) of out as soon as its noise is in, on the thread that drew it, while the
 * chunk is still in that core's cache: a step's update reads the noisy gradient there
 * instead of in a second pass over memory, and runs on the noise's threads. Chunks go to
 * threads in no fixed order, so then must only touch indices in [lo, hi) of what it
 * writes. n = 0: r moves on as it does for dp_rng_add_gaussian_par, then is not called. */
typedef void (*dp_chunk_fn)(void *ctx, size_t lo, size_t hi);
void dp_rng_add_gaussian_then(dp_rng *r, double *out, size_t n, double sigma, int threads,
                              dp_chunk_fn then, void *ctx);

/* The noise of dp_rng_add_gaussian_then(r, out, n, sigma, threads, ...) without the vector
 * it would be added to: for each chunk [lo, hi) in turn on its thread, z[j - lo] = the
 * product sigma * Z_j that it adds to out[j] (so out[j] + z[j - lo] is its out[j], bit for
 * bit), written into that thread's DP_NOISE_CHUNK doubles of scratch (threads *
 * DP_NOISE_CHUNK of them, threads as given) and handed to then_z(ctx, lo, hi, z). For a
 * caller that knows where out is zero and need not read it there (train_step.c). r moves
 * on as with dp_rng_add_gaussian_then. */
typedef void (*dp_chunk_noise_fn)(void *ctx, size_t lo, size_t hi, const double *z);
void dp_rng_gaussian_chunks(dp_rng *r, size_t n, double sigma, int threads, double *scratch,
                            dp_chunk_noise_fn then_z, void *ctx);

/* out[i] = center[i] + sigma * N(0,1): the numbers of copying center into out, then
 * dp_rng_add_gaussian_par, in one pass (center == out is that call): a perturbed copy
 * of a parameter vector (DPlis's K copies a step) without copying the vector first. */
void dp_rng_gaussian_around_par(dp_rng *r, double *out, const double *center, size_t n,
                                double sigma, int threads);
/* dp_rng_gaussian_around_par, then then(ctx, lo, hi) on each chunk [lo, hi) of out as it
 * is written, on the noise's threads, while the chunk is in cache. */
void dp_rng_gaussian_around_then(dp_rng *r, double *out, const double *center, size_t n,
                                 double sigma, int threads, dp_chunk_fn then, void *ctx);

/* The same numbers as dp_rng_add_gaussian_par, always computed by the portable code path
 * on one thread: for tests that the vector path changes nothing. */
void dp_rng_add_gaussian_portable(dp_rng *r, double *out, size_t n, double sigma);

/* Sixteen Philox blocks side by side: w[k][i] = word k of dp_philox4x32 at counter
 * (position + i, stream) and key `key`. portable != 0 forces the plain-C lanes instead of
 * the CPU's vector unit; both give the same words. */
void dp_philox16(uint32_t w[4][16], uint64_t key, uint64_t stream, uint64_t position,
                 int portable);

/* Laplace(0, b): density exp(-|x|/b) / (2b); b > 0. */
double dp_rng_laplace(dp_rng *r, double b);

/* Gamma(shape, scale) with shape > 0, scale > 0 (Marsaglia-Tsang). */
double dp_rng_gamma(dp_rng *r, double shape, double scale);

/* Fisher-Yates shuffle of idx[0..n). */
void dp_rng_shuffle(dp_rng *r, size_t *idx, size_t n);

/* Seed mixing: a well-spread 64-bit value from (a, b) (SplitMix64 finalizer), for
 * deriving e.g. a dataset seed from a run seed without correlating streams. */
uint64_t dp_mix64(uint64_t a, uint64_t b);

#endif
