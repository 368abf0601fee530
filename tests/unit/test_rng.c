/* test_rng.c: Philox4x32-10 against the Random123 known answers, determinism and stream
 * layout, and the distributions' moments (algorithms/base/rng.c).
 *
 * Statistical tolerances: every moment check allows 5 standard errors of the sample
 * statistic, with the standard error computed from the distribution's own higher moment
 * (stated at each check); for N = 10^6 draws a correct generator fails one such check
 * with probability about 6e-7. Chi-square tests use the 1 - 1e-4 quantile. All draws are
 * seeded, so a pass is reproducible, not luck that changes from run to run.
 * Check records the location of every passing assertion (one write() each), so loops over
 * 10^6 draws count failures and assert once after the loop.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"

#define N_DRAWS 1000000
#define N_SE 5.0

/* |est - expect| <= N_SE * se, with se = sqrt(var_of_one_term / N). */
#define CHECK_MOMENT(est, expect, var_term, n)                                               \
    ck_assert_double_eq_tol((est), (expect), N_SE * sqrt((var_term) / (double)(n)))

// ---- rng-1: the block function ---------------------------------------------------------

/* Random123 kat_vectors, lines "philox4x32 10 CTR[4] KEY[2] -> OUT[4]". */
START_TEST(test_kat_vectors)
{
    static const struct {
        uint32_t ctr[4], key[2], out[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t v = 0; v < sizeof kat / sizeof kat[0]; v++) {
        uint32_t out[4];
        dp_philox4x32(kat[v].ctr, kat[v].key, out);
        for (int j = 0; j < 4; j++)
            ck_assert_msg(out[j] == kat[v].out[j], "vector %zu word %d: %08x != %08x", v, j,
                          out[j], kat[v].out[j]);
    }
}
END_TEST

/* The stream's words are the blocks at counter (pos lo, pos hi, stream lo, stream hi)
 * under key (seed lo, seed hi), consumed in order: the layout rng.h promises. */
START_TEST(test_counter_layout)
{
    uint64_t seed = 0x0123456789abcdefull, stream = 0xfedcba9876543210ull;
    uint64_t pos = (5ull << 32) | 7u; /* exercises the high word of the position */
    dp_rng r;
    dp_rng_init(&r, seed, stream);
    dp_rng_seek(&r, pos);
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    /* nine blocks: across two refills of the four-block buffer */
    for (int b = 0; b < 9; b++) {
        uint64_t p = pos + (uint64_t)b;
        uint32_t ctr[4] = {(uint32_t)p, (uint32_t)(p >> 32), (uint32_t)stream,
                           (uint32_t)(stream >> 32)};
        uint32_t out[4];
        dp_philox4x32(ctr, key, out);
        for (int j = 0; j < 4; j++) ck_assert_uint_eq(dp_rng_u32(&r), out[j]);
    }
    /* u64 = first word | second word << 32 */
    dp_rng_seek(&r, 0);
    uint32_t ctr0[4] = {0, 0, (uint32_t)stream, (uint32_t)(stream >> 32)}, out0[4];
    dp_philox4x32(ctr0, key, out0);
    ck_assert_uint_eq(dp_rng_u64(&r), (uint64_t)out0[0] | ((uint64_t)out0[1] << 32));
    /* a u64 whose two words straddle a refill: word 15 of block 3, word 0 of block 4 */
    dp_rng_seek(&r, 0);
    for (int i = 0; i < 15; i++) (void)dp_rng_u32(&r);
    uint32_t ctr3[4] = {3, 0, (uint32_t)stream, (uint32_t)(stream >> 32)}, out3[4];
    uint32_t ctr4[4] = {4, 0, (uint32_t)stream, (uint32_t)(stream >> 32)}, out4[4];
    dp_philox4x32(ctr3, key, out3);
    dp_philox4x32(ctr4, key, out4);
    ck_assert_uint_eq(dp_rng_u64(&r), (uint64_t)out3[3] | ((uint64_t)out4[0] << 32));
}
END_TEST

// ---- rng-2: determinism and independence ------------------------------------------------

START_TEST(test_determinism_and_seek)
{
    dp_rng a, b;
    dp_rng_init(&a, 42, DP_STREAM_TEST);
    dp_rng_init(&b, 42, DP_STREAM_TEST);
    uint32_t words[64];
    for (int i = 0; i < 64; i++) {
        words[i] = dp_rng_u32(&a);
        ck_assert_uint_eq(words[i], dp_rng_u32(&b));
    }
    /* Seeking to block 5 replays words 20.. exactly. */
    dp_rng_seek(&b, 5);
    for (int i = 20; i < 64; i++) ck_assert_uint_eq(dp_rng_u32(&b), words[i]);

    /* After a seek, Gaussian draws depend on the position alone, whatever was drawn
     * before (no state survives the jump). */
    dp_rng c, e;
    dp_rng_init(&c, 7, DP_STREAM_NOISE);
    dp_rng_init(&e, 7, DP_STREAM_NOISE);
    (void)dp_rng_gaussian(&c);
    dp_rng_seek(&c, 100);
    dp_rng_seek(&e, 100);
    for (int i = 0; i < 5; i++) ck_assert(dp_rng_gaussian(&c) == dp_rng_gaussian(&e));

    /* Save/restore is a struct copy (rng.h), also mid-block. */
    (void)dp_rng_u32(&c);
    (void)dp_rng_gaussian(&c);
    dp_rng saved = c;
    double g1 = dp_rng_gaussian(&c), u1 = dp_rng_uniform(&c);
    c = saved;
    ck_assert(dp_rng_gaussian(&c) == g1);
    ck_assert(dp_rng_uniform(&c) == u1);
}
END_TEST

/* A wide generator draws the words of a plain one, in the same order, through every kind
 * of draw (32-bit words, 64-bit words that straddle a refill, uniforms, normals with their
 * rejected trials), across seeks, at positions where the counter's low word carries into
 * its high word and at the noise's spill position 2^63; only its position moves by
 * sixteen blocks per refill. A refill that skipped or reordered blocks, or laid out their
 * words otherwise, fails. */
START_TEST(test_wide_generator)
{
    const uint64_t starts[] = {0, 5, 0xfffffff9u, (uint64_t)1 << 63, UINT64_MAX - 40};
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
        dp_rng a, w;
        dp_rng_init(&a, 0x1234567890abcdefu, DP_STREAM_NOISE);
        dp_rng_init_wide(&w, 0x1234567890abcdefu, DP_STREAM_NOISE);
        dp_rng_seek(&a, starts[k]);
        dp_rng_seek(&w, starts[k]);
        for (int i = 0; i < 300; i++) {
            switch (i % 5) {
            case 0: ck_assert_uint_eq(dp_rng_u32(&a), dp_rng_u32(&w)); break;
            case 1: ck_assert(dp_rng_u64(&a) == dp_rng_u64(&w)); break;
            case 2: ck_assert(dp_rng_uniform(&a) == dp_rng_uniform(&w)); break;
            default: ck_assert(dp_rng_gaussian(&a) == dp_rng_gaussian(&w)); break;
            }
        }
        dp_rng_init_wide(&w, 3, DP_STREAM_TEST);
        dp_rng_init(&a, 3, DP_STREAM_TEST);
        dp_rng_seek(&w, starts[k]);
        dp_rng_seek(&a, starts[k]);
        for (int i = 0; i < 65; i++) ck_assert_uint_eq(dp_rng_u32(&a), dp_rng_u32(&w));
        /* 65 words: two refills of sixteen blocks, five of four */
        ck_assert(w.position == starts[k] + 32 && a.position == starts[k] + 20);
    }
}
END_TEST

static int sequences_differ(dp_rng *a, dp_rng *b)
{
    int same = 0;
    for (int i = 0; i < 256; i++) same += dp_rng_u32(a) == dp_rng_u32(b);
    /* Independent streams agree on a 32-bit word with probability 2^-32 each. */
    return same <= 1;
}

START_TEST(test_streams_and_seeds_differ)
{
    dp_rng a, b;
    dp_rng_init(&a, 1, DP_STREAM_BATCH);
    dp_rng_init(&b, 1, DP_STREAM_NOISE);
    ck_assert(sequences_differ(&a, &b));
    dp_rng_init(&a, 1, DP_STREAM_BATCH);
    dp_rng_init(&b, 2, DP_STREAM_BATCH);
    ck_assert(sequences_differ(&a, &b));
    /* Seeds that differ only in the high word of the key. */
    dp_rng_init(&a, 1, DP_STREAM_BATCH);
    dp_rng_init(&b, 1 | (1ull << 32), DP_STREAM_BATCH);
    ck_assert(sequences_differ(&a, &b));
    /* Streams that differ only in the high word of the stream id. */
    dp_rng_init(&a, 1, 3);
    dp_rng_init(&b, 1, 3 | (1ull << 32));
    ck_assert(sequences_differ(&a, &b));
}
END_TEST

START_TEST(test_mix64)
{
    ck_assert_uint_eq(dp_mix64(1, 2), dp_mix64(1, 2));
    ck_assert_uint_ne(dp_mix64(1, 2), dp_mix64(2, 1));
    ck_assert_uint_ne(dp_mix64(0, 0), 0);
    /* Avalanche: flipping one input bit flips about half the output bits. Over 64 bits x
     * 200 inputs x 2 arguments = 25600 trials of Binomial(64, 1/2) (sd 4 per trial), the
     * mean is 32 with se 4/sqrt(25600) = 0.025; allow +-1 (a weak mixer misses by more). */
    dp_rng r;
    dp_rng_init(&r, 3, DP_STREAM_TEST);
    double flips = 0.0;
    int trials = 0;
    for (int s = 0; s < 200; s++) {
        uint64_t a = dp_rng_u64(&r), b = dp_rng_u64(&r), h = dp_mix64(a, b);
        for (int bit = 0; bit < 64; bit++) {
            flips += __builtin_popcountll(h ^ dp_mix64(a ^ (1ull << bit), b));
            flips += __builtin_popcountll(h ^ dp_mix64(a, b ^ (1ull << bit)));
            trials += 2;
        }
    }
    ck_assert_double_eq_tol(flips / trials, 32.0, 1.0);
}
END_TEST

// ---- rng-3: continuous distributions ----------------------------------------------------

START_TEST(test_uniform_moments)
{
    dp_rng r;
    dp_rng_init(&r, 11, DP_STREAM_TEST);
    double s1 = 0.0, s2 = 0.0, mn = 1.0, mx = 0.0;
    long outside = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        double u = dp_rng_uniform(&r);
        outside += !(u >= 0.0 && u < 1.0);
        s1 += u;
        s2 += (u - 0.5) * (u - 0.5);
        if (u < mn) mn = u;
        if (u > mx) mx = u;
    }
    CHECK_MOMENT(s1 / N_DRAWS, 0.5, 1.0 / 12.0, N_DRAWS);   /* Var U = 1/12 */
    CHECK_MOMENT(s2 / N_DRAWS, 1.0 / 12.0, 1.0 / 180.0, N_DRAWS); /* 1/80 - 1/144 */
    /* With 10^6 draws the extremes are within ~1e-5 of the ends (P(miss) ~ e^-10). */
    ck_assert_int_eq(outside, 0);
    ck_assert(mn < 1e-5 && mx > 1.0 - 1e-5);

    double p1 = 0.0;
    for (int i = 0; i < N_DRAWS; i++) {
        double u = dp_rng_uniform_pos(&r);
        outside += !(u > 0.0 && u <= 1.0);
        p1 += u;
    }
    ck_assert_int_eq(outside, 0);
    CHECK_MOMENT(p1 / N_DRAWS, 0.5, 1.0 / 12.0, N_DRAWS);
}
END_TEST

START_TEST(test_gaussian_moments)
{
    dp_rng r;
    dp_rng_init(&r, 12, DP_STREAM_TEST);
    double s1 = 0.0, s2 = 0.0, s4 = 0.0;
    for (int i = 0; i < N_DRAWS; i++) {
        double z = dp_rng_gaussian(&r);
        s1 += z;
        s2 += z * z;
        s4 += z * z * z * z;
    }
    CHECK_MOMENT(s1 / N_DRAWS, 0.0, 1.0, N_DRAWS);  /* Var Z = 1 */
    CHECK_MOMENT(s2 / N_DRAWS, 1.0, 2.0, N_DRAWS);  /* Var Z^2 = 3 - 1 */
    CHECK_MOMENT(s4 / N_DRAWS, 3.0, 96.0, N_DRAWS); /* Var Z^4 = 105 - 9 */
}
END_TEST

/* The normal CDF, for the distribution tests below. */
static double phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* rng-3.4: the ziggurat's output is N(0, 1) as a whole distribution, not only in its
 * moments: (a) Kolmogorov-Smirnov over 10^6 draws, sqrt(n) D below 1.95 (p = 0.001);
 * (b) the mass beyond the base layer's edge r = 3.6541528853610088, which only the tail
 * algorithm produces: 2 (1 - Phi(r)) = 2.58e-4, so 4e6 draws give 1033 +- 32, checked
 * to 5 sd; (c) a chi-square over 100 equiprobable bins (99 dof: below 148.2, the 0.999
 * quantile). A wrong table, wedge test or tail fails at least one of them. */
START_TEST(test_gaussian_distribution)
{
    enum { N = 1000000, NT = 4000000, BINS = 100 };
    double *z = malloc(N * sizeof *z);
    ck_assert_ptr_nonnull(z);
    dp_rng r;
    dp_rng_init(&r, 21, DP_STREAM_TEST);
    long counts[BINS] = {0};
    for (int i = 0; i < N; i++) {
        z[i] = dp_rng_gaussian(&r);
        int b = (int)(phi(z[i]) * BINS);
        counts[b < BINS ? b : BINS - 1]++;
    }
    qsort(z, N, sizeof *z, cmp_dbl);
    double d = 0.0;
    for (int i = 0; i < N; i++) {
        double f = phi(z[i]);
        double lo = f - (double)i / N, hi = (double)(i + 1) / N - f;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    ck_assert_msg(sqrt((double)N) * d < 1.95, "KS sqrt(n) D = %g", sqrt((double)N) * d);
    double chi2 = 0.0, expect = (double)N / BINS;
    for (int b = 0; b < BINS; b++) chi2 += (counts[b] - expect) * (counts[b] - expect) / expect;
    ck_assert_msg(chi2 < 148.2, "chi-square over %d bins = %g", BINS, chi2);
    free(z);

    const double edge = 3.6541528853610088;
    long tail = 0;
    for (int i = 0; i < NT; i++)
        if (fabs(dp_rng_gaussian(&r)) > edge) tail++;
    double p = 2.0 * (1.0 - phi(edge)), mean = NT * p, sd = sqrt(NT * p * (1 - p));
    ck_assert_msg(fabs((double)tail - mean) < 5.0 * sd, "tail beyond r: %ld, expected %g +- %g",
                  tail, mean, sd);
}
END_TEST

/* rng-3.5: parallel noise gives the same vector for any thread count (fixed chunks with
 * their own streams), has the right moments, moves its generator by exactly one block,
 * and a second call draws different noise. */
START_TEST(test_add_gaussian_par)
{
    enum { N = 3 * DP_NOISE_CHUNK + 1234 };
    double *ref = calloc(N, sizeof *ref), *v = calloc(N, sizeof *v);
    ck_assert(ref && v);
    dp_rng r;
    dp_rng_init(&r, 31, DP_STREAM_NOISE);
    dp_rng_add_gaussian_par(&r, ref, N, 2.0, 1);
    ck_assert_uint_eq(r.position, 1);
    const int threads[] = {2, 3, 7, 64, 0};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        memset(v, 0, N * sizeof *v);
        dp_rng q;
        dp_rng_init(&q, 31, DP_STREAM_NOISE);
        dp_rng_add_gaussian_par(&q, v, N, 2.0, threads[t]);
        ck_assert_msg(memcmp(v, ref, N * sizeof *v) == 0, "threads %d differ", threads[t]);
    }
    double m = 0.0, s2 = 0.0;
    for (int i = 0; i < N; i++) {
        m += ref[i];
        s2 += ref[i] * ref[i];
    }
    CHECK_MOMENT(m / N, 0.0, 4.0, N);        /* Var = sigma^2 = 4 */
    CHECK_MOMENT(s2 / N, 4.0, 2.0 * 16.0, N); /* Var of X^2 = 2 sigma^4 */
    memset(v, 0, N * sizeof *v);
    dp_rng_add_gaussian_par(&r, v, N, 2.0, 2);
    ck_assert(memcmp(v, ref, N * sizeof *v) != 0);
    ck_assert_uint_eq(r.position, 2);
    dp_rng_add_gaussian_par(&r, v, 0, 2.0, 2); /* empty: fine */
    free(ref);
    free(v);
}
END_TEST

START_TEST(test_add_gaussian)
{
    enum { N = 200000 };
    double *v = malloc(N * sizeof *v);
    float *f = malloc(N * sizeof *f);
    ck_assert(v && f);
    for (int i = 0; i < N; i++) {
        v[i] = 5.0;
        f[i] = 5.0f;
    }
    dp_rng r;
    dp_rng_init(&r, 13, DP_STREAM_TEST);
    dp_rng_add_gaussian(&r, v, N, 3.0);
    dp_rng_add_gaussianf(&r, f, N, 3.0);
    double m = 0.0, s2 = 0.0, mf = 0.0, s2f = 0.0;
    for (int i = 0; i < N; i++) {
        m += v[i];
        s2 += (v[i] - 5.0) * (v[i] - 5.0);
        mf += f[i];
        s2f += (f[i] - 5.0) * (f[i] - 5.0);
    }
    CHECK_MOMENT(m / N, 5.0, 9.0, N);             /* Var = sigma^2 */
    CHECK_MOMENT(s2 / N, 9.0, 2.0 * 81.0, N);     /* Var (sigma Z)^2 = 2 sigma^4 */
    CHECK_MOMENT(mf / N, 5.0, 9.0, N);
    CHECK_MOMENT(s2f / N, 9.0, 2.0 * 81.0, N);
    free(v);
    free(f);
}
END_TEST

START_TEST(test_laplace_moments)
{
    const double b = 2.0;
    dp_rng r;
    dp_rng_init(&r, 14, DP_STREAM_TEST);
    double s1 = 0.0, sa = 0.0, s2 = 0.0;
    long bad = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        double x = dp_rng_laplace(&r, b);
        bad += !isfinite(x);
        s1 += x;
        sa += fabs(x);
        s2 += x * x;
    }
    ck_assert_int_eq(bad, 0);
    double b2 = b * b;
    CHECK_MOMENT(s1 / N_DRAWS, 0.0, 2.0 * b2, N_DRAWS);          /* Var X = 2 b^2 */
    CHECK_MOMENT(sa / N_DRAWS, b, b2, N_DRAWS);                   /* |X| ~ Exp: var b^2 */
    CHECK_MOMENT(s2 / N_DRAWS, 2.0 * b2, 20.0 * b2 * b2, N_DRAWS); /* E X^4 = 24 b^4 */
}
END_TEST

START_TEST(test_gamma_moments)
{
    /* Shapes below 1 (the boost), at 1, and above. Mean k theta, variance k theta^2;
     * se of the mean from Var X = k theta^2, of the variance estimate (known mean) from
     * Var (X - mu)^2 = mu4 - sigma^4 = 3k(k+2) theta^4 - k^2 theta^4 = (2k^2 + 6k) theta^4. */
    static const double shapes[] = {0.3, 1.0, 2.5, 10.0};
    const double theta = 1.5;
    dp_rng r;
    dp_rng_init(&r, 15, DP_STREAM_TEST);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        double k = shapes[s], mu = k * theta, var = k * theta * theta;
        double s1 = 0.0, s2 = 0.0;
        long bad = 0;
        for (int i = 0; i < N_DRAWS; i++) {
            double x = dp_rng_gamma(&r, k, theta);
            bad += !(x >= 0.0 && isfinite(x));
            s1 += x;
            s2 += (x - mu) * (x - mu);
        }
        ck_assert_int_eq(bad, 0);
        CHECK_MOMENT(s1 / N_DRAWS, mu, var, N_DRAWS);
        CHECK_MOMENT(s2 / N_DRAWS, var, (2 * k * k + 6 * k) * pow(theta, 4), N_DRAWS);
    }
}
END_TEST

// ---- rng-4: integers and permutations ---------------------------------------------------

/* Chi-square statistic of counts against equal expected frequencies. */
static double chi_square(const long *count, int cells, long total)
{
    double e = (double)total / cells, x2 = 0.0;
    for (int c = 0; c < cells; c++) x2 += (count[c] - e) * (count[c] - e) / e;
    return x2;
}

START_TEST(test_below_uniform)
{
    dp_rng r;
    dp_rng_init(&r, 16, DP_STREAM_TEST);
    ck_assert_uint_eq(dp_rng_below(&r, 1), 0);

    /* n = 10: chi-square with 9 degrees of freedom, 1 - 1e-4 quantile 33.72. */
    long count[10] = {0}, outside = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        uint64_t v = dp_rng_below(&r, 10);
        if (v < 10)
            count[v]++;
        else
            outside++;
    }
    ck_assert_int_eq(outside, 0);
    ck_assert_double_lt(chi_square(count, 10, N_DRAWS), 33.72);

    /* n = 3 * 2^62: a plain x mod n would give [0, 2^62) twice the weight of the rest
     * (2^64 = n + 2^62), so the first third would get 1/2 of the draws instead of 1/3.
     * Cells = v / 2^62; chi-square with 2 df, 1 - 1e-4 quantile 18.42. */
    const uint64_t n = 3ull << 62;
    long third[3] = {0};
    for (int i = 0; i < 300000; i++) {
        uint64_t v = dp_rng_below(&r, n);
        if (v < n)
            third[v >> 62]++;
        else
            outside++;
    }
    ck_assert_int_eq(outside, 0);
    ck_assert_double_lt(chi_square(third, 3, 300000), 18.42);
}
END_TEST

START_TEST(test_shuffle_permutation)
{
    enum { N = 1000 };
    size_t idx[N];
    int seen[N] = {0};
    for (size_t i = 0; i < N; i++) idx[i] = i;
    dp_rng r;
    dp_rng_init(&r, 17, DP_STREAM_TEST);
    dp_rng_shuffle(&r, idx, N);
    size_t fixed = 0;
    for (size_t i = 0; i < N; i++) {
        ck_assert_uint_lt(idx[i], N);
        ck_assert_int_eq(seen[idx[i]], 0);
        seen[idx[i]] = 1;
        fixed += idx[i] == i;
    }
    /* Fixed points of a uniform permutation ~ Poisson(1): more than 10 has p ~ 1e-8. */
    ck_assert_uint_le(fixed, 10);
    dp_rng_shuffle(&r, idx, 0); /* empty and single-element shuffles are no-ops */
    dp_rng_shuffle(&r, idx, 1);

    /* All 6 orders of 3 items equally likely: chi-square 5 df, 1 - 1e-4 quantile 25.74. */
    long count[6] = {0};
    const long trials = 600000;
    for (long t = 0; t < trials; t++) {
        size_t p[3] = {0, 1, 2};
        dp_rng_shuffle(&r, p, 3);
        count[p[0] * 2 + (p[1] > p[2])]++; /* first item (3 ways) x order of the rest */
    }
    ck_assert_double_lt(chi_square(count, 6, trials), 25.74);
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 120); /* generous: sanitizer builds are ~10x slower */
    tcase_add_test(tc, test);
    return tc;
}

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    suite_add_tcase(s, tcase("rng-1.1", test_kat_vectors));
    suite_add_tcase(s, tcase("rng-1.2", test_counter_layout));
    suite_add_tcase(s, tcase("rng-2.1", test_determinism_and_seek));
    suite_add_tcase(s, tcase("rng-2.2", test_streams_and_seeds_differ));
    suite_add_tcase(s, tcase("rng-2.3", test_mix64));
    suite_add_tcase(s, tcase("rng-2.4", test_wide_generator));
    suite_add_tcase(s, tcase("rng-3.1", test_uniform_moments));
    suite_add_tcase(s, tcase("rng-3.2", test_gaussian_moments));
    suite_add_tcase(s, tcase("rng-3.3", test_add_gaussian));
    suite_add_tcase(s, tcase("rng-3.4", test_gaussian_distribution));
    suite_add_tcase(s, tcase("rng-3.5", test_add_gaussian_par));
    suite_add_tcase(s, tcase("rng-3.4", test_laplace_moments));
    suite_add_tcase(s, tcase("rng-3.5", test_gamma_moments));
    suite_add_tcase(s, tcase("rng-4.1", test_below_uniform));
    suite_add_tcase(s, tcase("rng-4.2", test_shuffle_permutation));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rng_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
