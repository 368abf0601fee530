/* test_noise_source.c: the mechanisms' noise source (algorithms/base/noise_source.c):
 * seeded mode is the Philox functions the mechanisms called before, bit for bit; secure
 * mode draws on a grid from getrandom, so two secure trainings with one seed differ while
 * two seeded ones are identical.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/models/linear.h"
#include "algorithms/train.h"
#include "datasets/dataset.h"
#include "tests/unit/test_util.h"

enum { N = 100003 }; /* more than three noise chunks, not a multiple of one */

/* ns-1.1: seeded add_gaussian is dp_rng_add_gaussian_par (any thread count), set_gaussian
 * sigma * dp_rng_gaussian in order, add_laplace dp_rng_laplace in order: same bits. */
START_TEST(test_seeded_identical)
{
    double *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    dp_noise n;
    dp_rng r;
    for (int threads = 1; threads <= 2; threads++) {
        memset(a, 0, N * sizeof *a);
        memset(b, 0, N * sizeof *b);
        ck_assert_int_eq(dp_noise_init(&n, 42, DP_STREAM_NOISE, 0, NULL), 0);
        dp_rng_init(&r, 42, DP_STREAM_NOISE);
        dp_noise_add_gaussian(&n, a, N, 0.7, threads);
        dp_rng_add_gaussian_par(&r, b, N, 0.7, threads);
        dp_noise_add_gaussian(&n, a, N, 1.3, threads); /* the stream goes on the same way */
        dp_rng_add_gaussian_par(&r, b, N, 1.3, threads);
        ck_assert_int_eq(memcmp(a, b, N * sizeof *a), 0);
    }
    dp_noise_set_gaussian(&n, a, 1000, 2.5);
    for (int i = 0; i < 1000; i++) b[i] = 2.5 * dp_rng_gaussian(&r);
    ck_assert_int_eq(memcmp(a, b, 1000 * sizeof *a), 0);
    dp_noise_add_laplace(&n, a, 1000, 0.4);
    for (int i = 0; i < 1000; i++) b[i] += dp_rng_laplace(&r, 0.4);
    ck_assert_int_eq(memcmp(a, b, 1000 * sizeof *a), 0);
    ck_assert_int_eq(dp_noise_check(&n, NULL), 0);
    ck_assert_double_eq(dp_noise_snap(&n, 0.1), 0.1);
    free(a);
    free(b);
}
END_TEST

/* ns-1.2: secure: two sources with the same seed draw different noise; every noisy value
 * minus its input rounded to the grid is a multiple of the spacing; variance sigma^2 to
 * 5 standard errors (getrandom: fails with probability about 6e-7). */
START_TEST(test_secure)
{
    double *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    dp_noise n, m;
    ck_assert_int_eq(dp_noise_init(&n, 42, DP_STREAM_NOISE, 1, NULL), 0);
    ck_assert_int_eq(dp_noise_init(&m, 42, DP_STREAM_NOISE, 1, NULL), 0);
    ck_assert(dp_noise_is_secure(&n));
    for (int i = 0; i < N; i++) a[i] = b[i] = 0.25 + i * 1e-3 / 3.0;
    dp_noise_add_gaussian(&n, a, N, 0.7, 2);
    dp_noise_add_gaussian(&m, b, N, 0.7, 2);
    ck_assert_int_ne(memcmp(a, b, N * sizeof *a), 0);
    double g = n.grid.spacing, s2 = 0;
    int off = 0;
    for (int i = 0; i < N; i++) {
        double x = 0.25 + i * 1e-3 / 3.0, q = dp_noise_snap(&n, x);
        off += fmod(a[i] - q, g) != 0.0;
        s2 += (a[i] - q) * (a[i] - q);
    }
    ck_assert_int_eq(off, 0);
    ck_assert_double_eq_tol(s2 / N, 0.49, 5 * 0.49 * sqrt(2.0 / N));
    dp_noise_set_gaussian(&n, a, 1000, 2.5);
    dp_noise_add_laplace(&n, a, 1000, 0.4);
    ck_assert_int_eq(dp_noise_check(&n, NULL), 0);
    free(a);
    free(b);
}
END_TEST

/* ns-1.3: a scale without a grid (sigma 1e-300) is reported by dp_noise_check, and the
 * source adds nothing more after it. */
START_TEST(test_bad_scale)
{
    dp_noise n;
    dp_err e;
    double x[3] = {1, 2, 3};
    ck_assert_int_eq(dp_noise_init(&n, 1, DP_STREAM_NOISE, 1, NULL), 0);
    dp_noise_add_gaussian(&n, x, 3, 1e-300, 1);
    ck_assert_int_eq(dp_noise_check(&n, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "sigma"));
    ck_assert_double_eq(x[2], 3.0);
}
END_TEST

/* ns-2.1: DP-SGD trained twice with one seed: seeded runs give identical weights, secure
 * runs different ones (and still learn: the noise has the same scale). */
START_TEST(test_training)
{
    dp_synthetic_params sp = {.n = 1200, .d = 10, .n_classes = 2, .margin = 0.05, .seed = 3};
    dp_dataset all, tr, te;
    ck_assert_int_eq(dp_synthetic_make(&all, &sp, NULL), 0);
    ck_assert_int_eq(dp_dataset_split(&all, 900, 3, &tr, &te, NULL), 0);
    dp_train_cfg c = {.algorithm = DP_ALGO_DP_SGD, .epochs = 3, .batch_size = 50,
                      .sampling = DP_SAMPLING_POISSON, .lr_schedule = DP_LR_CONSTANT,
                      .lr = 0.5, .clip = 1.0, .noise_multiplier = 1.0, .eval_every = 1,
                      .seed = 9};
    double *w[4];
    for (int k = 0; k < 4; k++) {
        c.secure_noise = k >= 2;
        dp_linear m;
        dp_train_result res;
        ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, tr.d, 2, 0.0, NULL), 0);
        ck_assert_int_eq(dp_train_linear(&m, &c, tr.x, tr.y, tr.n, te.x, te.y, te.n, &res, NULL), 0);
        ck_assert(!res.diverged && res.final.test_accuracy > 0.6);
        w[k] = malloc(m.n_params * sizeof *w[k]);
        memcpy(w[k], m.w, m.n_params * sizeof *w[k]);
        size_t P = m.n_params;
        dp_train_result_destroy(&res);
        dp_linear_destroy(&m);
        if (k == 3) {
            ck_assert_int_eq(memcmp(w[0], w[1], P * sizeof *w[0]), 0);
            ck_assert_int_ne(memcmp(w[2], w[3], P * sizeof *w[0]), 0);
            ck_assert_int_ne(memcmp(w[0], w[2], P * sizeof *w[0]), 0);
        }
    }
    for (int k = 0; k < 4; k++) free(w[k]);
    dp_dataset_destroy(&all);
    dp_dataset_destroy(&tr);
    dp_dataset_destroy(&te);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("noise_source");
    test_add_case(s, "ns-1.1", test_seeded_identical, 60);
    test_add_case(s, "ns-1.2", test_secure, 120);
    test_add_case(s, "ns-1.3", test_bad_scale, 30);
    test_add_case(s, "ns-2.1", test_training, 120);
    return test_run_suite(s);
}
