/* test_discrete_noise.c: the exact samplers of algorithms/base/discrete_noise.c
 * (Canonne, Kamath, Steinke 2020, Algs. 1-3) and their grid.
 *
 * Distribution checks draw from a seeded Philox byte source, so a pass is reproducible;
 * one case draws from getrandom. Tolerances: moments to 5 standard errors; Pearson's
 * chi-square against the exact pmf below the 0.001 critical value (Wilson-Hilferty).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/discrete_noise.h"
#include "tests/unit/test_util.h"

static dp_rng g_rng;

static void seeded(dp_bytes *b, uint64_t seed)
{
    dp_rng_init(&g_rng, seed, DP_STREAM_TEST);
    dp_bytes_init_rng(b, &g_rng);
}

/* The chi-square quantile at p = 0.001 for df degrees of freedom (Wilson-Hilferty). */
static double chi2_crit(int df)
{
    double a = 2.0 / (9.0 * df);
    return df * pow(1.0 - a + 3.0902 * sqrt(a), 3.0);
}

/* Pearson's statistic of counts[0..k) against probabilities p[0..k) over n draws. */
static double chi2(const long *counts, const double *p, int k, long n)
{
    double x = 0.0;
    for (int i = 0; i < k; i++) {
        double e = p[i] * (double)n;
        x += (counts[i] - e) * (counts[i] - e) / e;
    }
    return x;
}

/* dn-1.1: Bernoulli(exp(-num/den)) in integers: frequencies within 5 standard errors for
 * gamma below, at and above 1, with numbers far beyond 64 bits; gamma = 0 is always 1. */
START_TEST(test_bernoulli_exp)
{
    dp_bytes b;
    seeded(&b, 11);
    const dp_u128 big = (dp_u128)1 << 100;
    const struct { dp_u128 num, den; } cases[] = {
        {1, 3}, {1, 1}, {5, 2}, {7, 1}, {big + 1, big}, {big / 3 * 2, big / 3}, {3 * big, 4 * big},
    };
    const long N = 200000;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        long ones = 0;
        for (long i = 0; i < N; i++) ones += dp_bernoulli_exp(&b, cases[c].num, cases[c].den);
        double p = exp(-(double)cases[c].num / (double)cases[c].den);
        double se = sqrt(p * (1 - p) / N);
        ck_assert_msg(fabs((double)ones / N - p) <= 5 * se + 1e-12,
                      "case %zu: frequency %g, exp(-gamma) %g", c, (double)ones / N, p);
    }
    for (long i = 0; i < 1000; i++) ck_assert_int_eq(dp_bernoulli_exp(&b, 0, 7), 1);
    long ones = 0; /* gamma = 60: exp(-60) = 9e-27 */
    for (long i = 0; i < 10000; i++) ones += dp_bernoulli_exp(&b, 60 * big, big);
    ck_assert_int_eq(ones, 0);
    ck_assert_int_eq(dp_bytes_error(&b, NULL), 0);
}
END_TEST

/* Two-sided geometric pmf of Lap_Z(t/s) at y: (1 - r) / (1 + r) r^|y|, r = exp(-s/t). */
static double dlap_pmf(double s, double t, long y)
{
    double r = exp(-s / t);
    return (1 - r) / (1 + r) * pow(r, (double)labs(y));
}

/* dn-1.2: discrete Laplace, scales 3 and 5/2: exact pmf by chi-square over |y| <= 12
 * and a tail bin, mean 0 and variance 2r/(1-r)^2 to 5 standard errors. */
START_TEST(test_dlaplace)
{
    const uint64_t st[][2] = {{1, 3}, {2, 5}};
    for (int c = 0; c < 2; c++) {
        dp_bytes b;
        seeded(&b, 20 + (uint64_t)c);
        dp_dlaplace p;
        ck_assert_int_eq(dp_dlaplace_plan(&p, st[c][0], st[c][1], NULL), 0);
        enum { K = 12, BINS = 2 * K + 2 };
        long counts[BINS] = {0};
        double prob[BINS], tail = 1.0;
        for (int y = -K; y <= K; y++) tail -= prob[y + K] = dlap_pmf((double)st[c][0], (double)st[c][1], y);
        prob[BINS - 1] = tail;
        const long N = 200000;
        double sum = 0, sum2 = 0;
        for (long i = 0; i < N; i++) {
            int64_t y = dp_dlaplace_sample(&b, &p);
            counts[llabs(y) <= K ? y + K : BINS - 1]++;
            sum += (double)y;
            sum2 += (double)y * (double)y;
        }
        double r = exp(-(double)st[c][0] / (double)st[c][1]), var = 2 * r / ((1 - r) * (1 - r));
        double x = chi2(counts, prob, BINS, N);
        ck_assert_msg(x < chi2_crit(BINS - 1), "case %d: chi-square %g >= %g", c, x,
                      chi2_crit(BINS - 1));
        ck_assert_double_eq_tol(sum / N, 0.0, 5 * sqrt(var / N));
        /* var(Y^2) = E Y^4 - var^2 <= 25 var^2 for these scales (fourth moment of a
         * two-sided geometric is below 6x the normal's): 5 se with that bound */
        ck_assert_double_eq_tol(sum2 / N, var, 5 * sqrt(24 * var * var / N));
    }
}
END_TEST

/* dn-1.3: discrete Gaussian with sigma^2 = 4 (t = 2) and 1 (t = 1): the exact pmf
 * exp(-y^2/(2 S)) / sum, by chi-square over |y| <= 3 sigma and a tail bin; a proposal
 * scale far from sigma (S = 4, t = 4) gives the same law. */
START_TEST(test_dgauss_pmf)
{
    const struct { int S, t; } cases[] = {{4, 2}, {1, 1}, {4, 4}};
    for (int c = 0; c < 3; c++) {
        dp_bytes b;
        seeded(&b, 30 + (uint64_t)c);
        dp_dgauss g;
        ck_assert_int_eq(dp_dgauss_plan(&g, (dp_u128)cases[c].S, (uint64_t)cases[c].t, NULL), 0);
        int K = (int)(3 * sqrt((double)cases[c].S)), bins = 2 * K + 2;
        double norm = 0;
        for (int y = -80; y <= 80; y++) norm += exp(-(double)y * y / (2.0 * cases[c].S));
        long counts[64] = {0};
        double prob[64], tail = 1.0;
        for (int y = -K; y <= K; y++)
            tail -= prob[y + K] = exp(-(double)y * y / (2.0 * cases[c].S)) / norm;
        prob[bins - 1] = tail;
        const long N = 200000;
        for (long i = 0; i < N; i++) {
            int64_t y = dp_dgauss_sample(&b, &g);
            counts[llabs(y) <= K ? y + K : bins - 1]++;
        }
        double x = chi2(counts, prob, bins, N);
        ck_assert_msg(x < chi2_crit(bins - 1), "case %d: chi-square %g >= %g", c, x,
                      chi2_crit(bins - 1));
    }
}
END_TEST

/* n draws of p onto 0: their sum and sum of squares; returns how many fell off the grid. */
static int grid_moments(dp_bytes *b, const dp_grid_noise *p, long n, double *sum, double *sum2)
{
    int off_grid = 0;
    *sum = *sum2 = 0;
    for (long i = 0; i < n; i++) {
        double z = dp_grid_add(b, p, 0.0);
        off_grid += fmod(z, p->spacing) != 0.0;
        *sum += z;
        *sum2 += z * z;
    }
    return off_grid;
}

/* dn-1.4: the grid: a Gaussian of sigma 1.7 and a Laplace of scale 0.3, drawn onto 0:
 * every value a multiple of the spacing (a power of two, 2^-40 to 2^-41 of the scale),
 * the scale used within 2^-39 above the one asked for, mean and variance (sigma^2, 2 b^2)
 * to 5 standard errors; a value rounded to the grid first keeps x + noise on it. */
START_TEST(test_grid)
{
    dp_bytes b;
    seeded(&b, 40);
    dp_grid_noise p;
    ck_assert_int_eq(dp_grid_gaussian_plan(&p, 1.7, NULL), 0);
    ck_assert(p.spacing <= 1.7 * ldexp(1, -40) && p.spacing > 1.7 * ldexp(1, -41));
    ck_assert(p.scale >= 1.7 && p.scale <= 1.7 * (1 + ldexp(1, -39)));
    int e;
    ck_assert_double_eq(frexp(p.spacing, &e), 0.5);
    const long N = 200000;
    double sum, sum2;
    ck_assert_int_eq(grid_moments(&b, &p, N, &sum, &sum2), 0);
    ck_assert_double_eq_tol(sum / N, 0.0, 5 * 1.7 / sqrt((double)N));
    ck_assert_double_eq_tol(sum2 / N, 1.7 * 1.7, 5 * 1.7 * 1.7 * sqrt(2.0 / N));

    ck_assert_int_eq(dp_grid_laplace_plan(&p, 0.3, NULL), 0);
    ck_assert(p.spacing <= 0.3 * ldexp(1, -40) && p.scale == 0.3);
    ck_assert_int_eq(grid_moments(&b, &p, N, &sum, &sum2), 0);
    double var = 2 * 0.3 * 0.3; /* var(z^2) = E z^4 - var^2 = 24 b^4 - 4 b^4 = 5 var^2 */
    ck_assert_double_eq_tol(sum / N, 0.0, 5 * sqrt(var / N));
    ck_assert_double_eq_tol(sum2 / N, var, 5 * sqrt(5 * var * var / N));

    /* x + noise: the noisy value minus x rounded to the grid is a multiple of it */
    ck_assert_int_eq(dp_grid_gaussian_plan(&p, 0.01, NULL), 0);
    const double xs[] = {0.1, -3.14159, 1e6 + 1.0 / 3.0, 1e-30};
    for (size_t i = 0; i < 4; i++) {
        double q = dp_grid_snap(&p, xs[i]);
        ck_assert(fabs(q - xs[i]) <= p.spacing / 2);
        double y = dp_grid_add(&b, &p, xs[i]);
        ck_assert_double_eq(fmod(y - q, p.spacing), 0.0);
    }
}
END_TEST

/* dn-2.1: bad parameters are refused with DP_EINVAL and a message naming them. */
START_TEST(test_bad_parameters)
{
    dp_err e;
    dp_dlaplace l;
    dp_dgauss g;
    dp_grid_noise p;
    ck_assert_int_eq(dp_dlaplace_plan(&l, 0, 3, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "discrete Laplace"));
    ck_assert_int_eq(dp_dlaplace_plan(&l, 1, 0, &e), DP_EINVAL);
    ck_assert_int_eq(dp_dlaplace_plan(&l, 1, (UINT64_C(1) << 62) + 1, &e), DP_EINVAL);
    ck_assert_int_eq(dp_dgauss_plan(&g, 0, 1, &e), DP_EINVAL);
    ck_assert_int_eq(dp_dgauss_plan(&g, 6, 4, &e), DP_EINVAL); /* 4 does not divide 6 */
    ck_assert_ptr_nonnull(strstr(e.msg, "dividing"));
    ck_assert_int_eq(dp_dgauss_plan(&g, 4, 0, &e), DP_EINVAL);
    ck_assert_int_eq(dp_dgauss_plan(&g, (dp_u128)1 << 100, 1, &e), DP_EINVAL);
    const double bad[] = {0.0, -1.0, NAN, INFINITY, 1e-300};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(dp_grid_gaussian_plan(&p, bad[i], &e), DP_EINVAL);
        ck_assert_ptr_nonnull(strstr(e.msg, "sigma"));
        ck_assert_int_eq(dp_grid_laplace_plan(&p, bad[i], &e), DP_EINVAL);
    }
}
END_TEST

/* dn-3.1: getrandom as the source: two sources give different draws, and a Gaussian of
 * sigma 3 from it has variance 9 to 5 standard errors (not seeded: fails with probability
 * about 6e-7). */
START_TEST(test_os_source)
{
    dp_bytes a, c;
    ck_assert_int_eq(dp_bytes_init_os(&a, NULL), 0);
    ck_assert_int_eq(dp_bytes_init_os(&c, NULL), 0);
    ck_assert(dp_bytes_u64(&a) != dp_bytes_u64(&c) || dp_bytes_u64(&a) != dp_bytes_u64(&c));
    dp_grid_noise p;
    ck_assert_int_eq(dp_grid_gaussian_plan(&p, 3.0, NULL), 0);
    const long N = 50000;
    double sum2 = 0;
    for (long i = 0; i < N; i++) {
        double z = dp_grid_add(&a, &p, 0.0);
        sum2 += z * z;
    }
    ck_assert_int_eq(dp_bytes_error(&a, NULL), 0);
    ck_assert_double_eq_tol(sum2 / N, 9.0, 5 * 9.0 * sqrt(2.0 / N));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("discrete_noise");
    test_add_case(s, "dn-1.1", test_bernoulli_exp, 120);
    test_add_case(s, "dn-1.2", test_dlaplace, 120);
    test_add_case(s, "dn-1.3", test_dgauss_pmf, 120);
    test_add_case(s, "dn-1.4", test_grid, 120);
    test_add_case(s, "dn-2.1", test_bad_parameters, 30);
    test_add_case(s, "dn-3.1", test_os_source, 120);
    return test_run_suite(s);
}
