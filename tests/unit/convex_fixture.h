/* convex_fixture.h: what the Check programs of the convex private algorithms share
 * (test_output_pert.c, test_bassily.c, test_rrpsgd.c, test_input_pert.c): a small,
 * well-conditioned binary problem from dperm's synthetic generator (rows in the unit
 * ball by construction) and the mean/variance helpers of the noise tests.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_CONVEX_FIXTURE_H
#define DPERM_CONVEX_FIXTURE_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"

#include "algorithms/convex_common.h"
#include "datasets/dataset.h"

typedef struct fixture {
    dp_dataset all, train, test;
    dp_cvx_set tr, te;
} fixture;

/* n examples (n_train of them for training) of a d-feature binary problem, labels with
 * 5% noise so the logistic minimizer is finite. */
static inline void fixture_make(fixture *f, size_t n, size_t n_train, size_t d, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    dp_synthetic_params p = {.n = n, .d = d, .n_classes = 2, .margin = 0.0,
                             .label_noise = 0.05, .seed = seed};
    ck_assert_int_eq(dp_synthetic_make(&f->all, &p, NULL), 0);
    ck_assert_int_eq(dp_dataset_split(&f->all, n_train, seed, &f->train, &f->test, NULL), 0);
    f->tr = (dp_cvx_set){f->train.x, f->train.y, NULL, f->train.n};
    f->te = (dp_cvx_set){f->test.x, f->test.y, NULL, f->test.n};
}

static inline void fixture_free(fixture *f)
{
    dp_dataset_destroy(&f->test);
    dp_dataset_destroy(&f->train);
    dp_dataset_destroy(&f->all);
}

/* A Huber-regression problem: n rows in the ball of radius 0.9, t = x_0 - x_1/2 + 0.3 +
 * N(0, 0.1^2); the first n_train rows train. Caller frees x and t. */
static inline void fixture_regression(size_t n, size_t n_train, size_t d, uint64_t seed,
                                      double **x, double **t, dp_cvx_set *tr, dp_cvx_set *te)
{
    double *X = malloc(n * d * sizeof *X), *T = malloc(n * sizeof *T);
    ck_assert(X && T && d >= 2);
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    for (size_t i = 0; i < n; i++) {
        double q = 0;
        for (size_t j = 0; j < d; j++) {
            X[i * d + j] = dp_rng_gaussian(&r);
            q += X[i * d + j] * X[i * d + j];
        }
        double f = 0.9 * dp_rng_uniform(&r) / sqrt(q);
        for (size_t j = 0; j < d; j++) X[i * d + j] *= f;
        T[i] = X[i * d] - 0.5 * X[i * d + 1] + 0.3 + 0.1 * dp_rng_gaussian(&r);
    }
    *tr = (dp_cvx_set){X, NULL, T, n_train};
    *te = (dp_cvx_set){X + n_train * d, NULL, T + n_train, n - n_train};
    *x = X;
    *t = T;
}

/* Sample mean and (unbiased) variance of v[0..n). */
static inline void sample_moments(const double *v, size_t n, double *mean, double *var)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) s += v[i];
    double m = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = ss / (double)(n - 1);
}

/* The variance of N normal samples is within 5 standard errors of sigma^2 when
 * |var / sigma^2 - 1| <= 5 sqrt(2 / (N - 1)) (chi-square with N - 1 degrees of freedom,
 * normal approximation; a false failure has probability ~6e-7). */
static inline void assert_variance(const double *v, size_t n, double sigma2, const char *what)
{
    double mean, var;
    sample_moments(v, n, &mean, &var);
    double tol = 5.0 * sqrt(2.0 / (double)(n - 1));
    ck_assert_msg(fabs(var / sigma2 - 1.0) <= tol, "%s: sample variance %.6g vs %.6g "
                  "(relative tolerance %.3g over %zu samples)", what, var, sigma2, tol, n);
    ck_assert_msg(fabs(mean) <= 5.0 * sqrt(sigma2 / (double)n), "%s: sample mean %.6g is not "
                  "0 within 5 standard errors (%zu samples)", what, mean, n);
}

#endif
