/* test_noise.c: the bulk Gaussian noise of algorithms/base/noise.c: its Philox lanes
 * against the block function, the vector and portable paths against each other, every
 * first-trial coordinate against dp_rng_gaussian fed the same word, and the output as a
 * whole distribution (moments, Kolmogorov-Smirnov, the tail only the spill path makes).
 *
 * Tolerances as in test_rng.c: moments to 5 standard errors, KS sqrt(n) D < 1.95
 * (p = 0.001), seeded draws, so a pass is reproducible.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/rng_int.h"
#include "tests/unit/test_util.h"

/* noise-1.1: sixteen lanes equal sixteen dp_philox4x32 blocks, on both paths, including
 * positions whose low word wraps (the carry into the counter's second word). */
START_TEST(test_philox16_lanes)
{
    const uint64_t keys[] = {0, 0xFFFFFFFFFFFFFFFFull, 0x0123456789ABCDEFull};
    const uint64_t streams[] = {5, 0xDEADBEEF00000001ull};
    const uint64_t positions[] = {0, 16, 0xFFFFFFF8ull, 0xFFFFFFFFFFFFFFF0ull, 1ull << 63};
    int bad = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 2; b++)
            for (size_t c = 0; c < 5; c++)
                for (int portable = 0; portable < 2; portable++) {
                    uint32_t w[4][16];
                    dp_philox16(w, keys[a], streams[b], positions[c], portable);
                    for (int i = 0; i < 16; i++) {
                        uint64_t p = positions[c] + (uint64_t)i;
                        uint32_t ctr[4] = {(uint32_t)p, (uint32_t)(p >> 32),
                                           (uint32_t)streams[b], (uint32_t)(streams[b] >> 32)};
                        uint32_t key[2] = {(uint32_t)keys[a], (uint32_t)(keys[a] >> 32)};
                        uint32_t out[4];
                        dp_philox4x32(ctr, key, out);
                        for (int k = 0; k < 4; k++) bad += w[k][i] != out[k];
                    }
                }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* noise-1.2: the CPU's vector path and the portable path give the same vector bit for
 * bit (so results do not depend on the machine), over several chunks and a ragged tail
 * (lengths not a multiple of 64), for several thread counts. */
START_TEST(test_paths_agree)
{
    const size_t lens[] = {1, 31, 33, 64, 129, DP_NOISE_CHUNK, 2 * DP_NOISE_CHUNK + 77};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t n = lens[t];
        double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
        ck_assert(a && b && c);
        dp_rng ra, rb, rc;
        dp_rng_init(&ra, 77, DP_STREAM_NOISE);
        rb = ra;
        rc = ra;
        dp_rng_add_gaussian_par(&ra, a, n, 1.5, 1);
        dp_rng_add_gaussian_portable(&rb, b, n, 1.5);
        dp_rng_add_gaussian_par(&rc, c, n, 1.5, 3);
        ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "n = %zu: vector and portable differ", n);
        ck_assert_msg(memcmp(a, c, n * sizeof *a) == 0, "n = %zu: 1 and 3 threads differ", n);
        ck_assert_uint_eq(ra.position, rb.position);
        free(a), free(b), free(c);
    }
}
END_TEST

/* noise-1.2b: out = center + noise (dp_rng_gaussian_around_par) is, bit for bit, center
 * copied into out and then the noise added, by the vector path and by the portable one,
 * on 1 and 3 threads; center is only read, and center == out adds in place. A version
 * that added the noise to out's old contents, or kept center's value where a trial was
 * rejected, fails here. */
START_TEST(test_around_center)
{
    const size_t lens[] = {1, 33, 64, 129, DP_NOISE_CHUNK, 2 * DP_NOISE_CHUNK + 77};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        size_t n = lens[t];
        double *ctr = malloc(n * sizeof *ctr), *keep = malloc(n * sizeof *keep);
        double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        double *c = malloc(n * sizeof *c), *d = malloc(n * sizeof *d);
        ck_assert(ctr && keep && a && b && c && d);
        for (size_t i = 0; i < n; i++) {
            ctr[i] = 0.25 * (double)(i % 13) - 1.0 + 1e-3 * (double)i;
            a[i] = 1e6; /* stale contents that must not survive */
            c[i] = -7.0;
        }
        memcpy(keep, ctr, n * sizeof *ctr);
        memcpy(b, ctr, n * sizeof *ctr);
        memcpy(d, ctr, n * sizeof *ctr);
        dp_rng ra, rb, rc, rd;
        dp_rng_init(&ra, 91, DP_STREAM_NOISE);
        rb = rc = rd = ra;
        dp_rng_gaussian_around_par(&ra, a, ctr, n, 0.8, 1);
        dp_rng_add_gaussian_portable(&rb, b, n, 0.8);
        dp_rng_gaussian_around_par(&rc, c, ctr, n, 0.8, 3);
        dp_rng_gaussian_around_par(&rd, d, d, n, 0.8, 2);
        ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "n = %zu: around != copy + add", n);
        ck_assert_msg(memcmp(a, c, n * sizeof *a) == 0, "n = %zu: 1 and 3 threads differ", n);
        ck_assert_msg(memcmp(a, d, n * sizeof *a) == 0, "n = %zu: in place differs", n);
        ck_assert_msg(memcmp(ctr, keep, n * sizeof *ctr) == 0, "n = %zu: center written", n);
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) moved += a[i] != ctr[i];
        ck_assert_uint_ge(moved, n - n / 100); /* the noise is there */
        ck_assert_uint_eq(ra.position, rb.position);
        free(ctr), free(keep), free(a), free(b), free(c), free(d);
    }
}
END_TEST

/* noise-1.2c: dp_rng_add_gaussian_then draws dp_rng_add_gaussian_par's numbers and calls
 * its function on every chunk exactly once, each after that chunk's noise is in (the
 * function sees the noisy values: it copies them out), on 1, 2 and 3 threads; n = 0 calls
 * nothing and moves the generator on as the plain call does. A version that called the
 * function before the noise, skipped the ragged last chunk or ran a chunk twice fails. */
typedef struct then_probe {
    const double *src;
    double *copy;
    unsigned char *seen;    /* times each index was passed */
    pthread_mutex_t lock;
    size_t calls;
} then_probe;

static void then_copy(void *ctx, size_t lo, size_t hi)
{
    then_probe *p = ctx;
    ck_assert(lo < hi && hi - lo <= DP_NOISE_CHUNK);
    for (size_t i = lo; i < hi; i++) {
        p->copy[i] = p->src[i];
        p->seen[i]++;
    }
    pthread_mutex_lock(&p->lock);
    p->calls++;
    pthread_mutex_unlock(&p->lock);
}

START_TEST(test_then_chunks)
{
    const size_t lens[] = {0, 1, 65, DP_NOISE_CHUNK, 3 * DP_NOISE_CHUNK + 5};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++)
        for (int threads = 1; threads <= 3; threads++) {
            size_t n = lens[t], m = n ? n : 1;
            double *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
            double *copy = malloc(m * sizeof *copy);
            unsigned char *seen = calloc(m, 1);
            ck_assert(a && b && copy && seen);
            for (size_t i = 0; i < n; i++) a[i] = b[i] = 0.5 - 1e-4 * (double)i;
            dp_rng ra, rb;
            dp_rng_init(&ra, 17, DP_STREAM_NOISE);
            rb = ra;
            then_probe p = {.src = b, .copy = copy, .seen = seen};
            pthread_mutex_init(&p.lock, NULL);
            dp_rng_add_gaussian_par(&ra, a, n, 1.3, threads);
            dp_rng_add_gaussian_then(&rb, b, n, 1.3, threads, then_copy, &p);
            pthread_mutex_destroy(&p.lock);
            ck_assert_msg(n == 0 || memcmp(a, b, n * sizeof *a) == 0,
                          "n = %zu, %d threads: numbers differ", n, threads);
            ck_assert_msg(n == 0 || memcmp(a, copy, n * sizeof *a) == 0,
                          "n = %zu, %d threads: a chunk was passed before its noise", n, threads);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(seen[i] == 1, "n = %zu: index %zu passed %u times", n, i, seen[i]);
            ck_assert_uint_eq(p.calls, (n + DP_NOISE_CHUNK - 1) / DP_NOISE_CHUNK);
            ck_assert_uint_eq(ra.position, rb.position);
            free(a), free(b), free(copy), free(seen);
        }
}
END_TEST

/* noise-1.3: the documented word layout. Coordinate i of chunk 0 takes its first trial
 * from 32-bit word (i % 64) / 16 of block 16 (i / 64) + i % 16 of the chunk's stream:
 * layer x & 0xff, sign bit 8, magnitude x >> 9. When the magnitude lies inside the
 * layer's rectangle at 23 bits (below dp_zig_ki >> 29) the value is exactly sigma times
 * +-(float)mag * (float)(dp_zig_wi 2^29), and it is within float rounding of the value
 * dp_rng_gaussian's 52-bit ziggurat gives the same trial. About 1.5% of coordinates
 * finish from the spill stream; the test checks that fraction too. A generator that
 * shifted, reused or skipped words, or dropped the sign, fails here. */
START_TEST(test_word_layout)
{
    enum { N = 4096 };
    double *v = calloc(N, sizeof *v);
    ck_assert(v);
    dp_rng r;
    dp_rng_init(&r, 2024, DP_STREAM_NOISE);
    uint64_t chunk_stream = dp_mix64(dp_mix64(r.stream, r.position), 0);
    dp_rng_add_gaussian_par(&r, v, N, 2.0, 1);
    dp_zig_tables();
    int mismatched = 0, far = 0, spilled = 0;
    for (int i = 0; i < N; i++) {
        uint32_t ctr[4] = {(uint32_t)(16 * (i / 64) + i % 16), 0, (uint32_t)chunk_stream,
                           (uint32_t)(chunk_stream >> 32)};
        uint32_t key[2] = {2024, 0}, block[4];
        dp_philox4x32(ctr, key, block);
        uint32_t x = block[(i % 64) / 16], idx = x & 0xff, mag = x >> 9;
        if (mag >= (uint32_t)(dp_zig_ki[idx] >> 29)) {
            spilled++;
            continue;
        }
        float z = (float)mag * (float)ldexp(dp_zig_wi[idx], 29);
        if (x & 0x100u) z = -z;
        mismatched += v[i] != 2.0 * (double)z;
        double exact = (double)mag * ldexp(dp_zig_wi[idx], 29) * ((x & 0x100u) ? -1.0 : 1.0);
        far += fabs(v[i] / 2.0 - exact) > 0x1p-23 * fabs(exact);
    }
    ck_assert_int_eq(mismatched, 0);
    ck_assert_int_eq(far, 0);
    ck_assert_msg(spilled > N / 200 && spilled < N / 30, "%d of %d needed the spill path",
                  spilled, N);
    free(v);
}
END_TEST

static double phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* noise-2.1: the noise vector is N(0, sigma^2) per coordinate as a whole distribution:
 * moments of z = v / sigma (Var z = 1, Var z^2 = 2, Var z^4 = 96), KS over 10^6
 * coordinates, and the mass beyond the ziggurat's base edge r = 3.6541528853610088,
 * which only rejected first trials (the spill path) produce: 2 (1 - Phi(r)) = 2.58e-4,
 * checked to 5 sd over 4 x 10^6 coordinates. A dropped or mis-scaled noise, or a spill
 * path that returned the wrong values, fails here. */
START_TEST(test_distribution)
{
    enum { N = 1000000, NT = 4000000 };
    const double sigma = 0.75;
    double *v = calloc(NT, sizeof *v);
    ck_assert(v);
    dp_rng r;
    dp_rng_init(&r, 99, DP_STREAM_NOISE);
    dp_rng_add_gaussian_par(&r, v, NT, sigma, 2);
    double s1 = 0, s2 = 0, s4 = 0;
    for (int i = 0; i < N; i++) {
        double z = v[i] / sigma;
        s1 += z, s2 += z * z, s4 += z * z * z * z;
    }
    ck_assert_double_eq_tol(s1 / N, 0.0, 5.0 * sqrt(1.0 / N));
    ck_assert_double_eq_tol(s2 / N, 1.0, 5.0 * sqrt(2.0 / N));
    ck_assert_double_eq_tol(s4 / N, 3.0, 5.0 * sqrt(96.0 / N));
    long tail = 0;
    const double edge = 3.6541528853610088;
    for (int i = 0; i < NT; i++) tail += fabs(v[i] / sigma) > edge;
    double p = 2.0 * (1.0 - phi(edge)), mean = NT * p, sd = sqrt(NT * p * (1 - p));
    ck_assert_msg(fabs((double)tail - mean) < 5.0 * sd, "tail beyond r: %ld, expected %g +- %g",
                  tail, mean, sd);
    for (int i = 0; i < N; i++) v[i] /= sigma;
    qsort(v, N, sizeof *v, cmp_dbl);
    double d = 0.0;
    for (int i = 0; i < N; i++) {
        double f = phi(v[i]);
        double lo = f - (double)i / N, hi = (double)(i + 1) / N - f;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    ck_assert_msg(sqrt((double)N) * d < 1.95, "KS sqrt(n) D = %g", sqrt((double)N) * d);
    free(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("noise");
    test_add_case(s, "noise-1.1", test_philox16_lanes, 60);
    test_add_case(s, "noise-1.2", test_paths_agree, 60);
    test_add_case(s, "noise-1.2b", test_around_center, 60);
    test_add_case(s, "noise-1.2c", test_then_chunks, 60);
    test_add_case(s, "noise-1.3", test_word_layout, 60);
    test_add_case(s, "noise-2.1", test_distribution, 120);
    return test_run_suite(s);
}
