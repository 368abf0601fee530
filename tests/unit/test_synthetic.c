/* test_synthetic.c: the synthetic generator (datasets/synthetic.c) and the seeded split
 * (datasets/dataset.c).
 *
 * The margin check replays step 1 of the construction documented in synthetic.c (the K
 * generating unit vectors are the first draws of stream DP_STREAM_DATA) and verifies the
 * promised gap for every row against those vectors.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "datasets/dataset.h"

static dp_synthetic_params params(size_t n, size_t d, int classes, double margin,
                                  double label_noise, uint64_t seed)
{
    dp_synthetic_params p = {.n = n, .d = d, .n_classes = classes, .margin = margin,
                             .label_noise = label_noise, .seed = seed};
    return p;
}

static int same_data(const dp_dataset *a, const dp_dataset *b)
{
    return a->n == b->n && a->d == b->d && a->n_classes == b->n_classes &&
           memcmp(a->x, b->x, a->n * a->d * sizeof *a->x) == 0 &&
           memcmp(a->y, b->y, a->n * sizeof *a->y) == 0;
}

// ---- synthetic-1: the generator ---------------------------------------------------------

START_TEST(test_determinism)
{
    dp_dataset a, b, c;
    dp_synthetic_params p = params(500, 8, 3, 0.05, 0.1, 77);
    ck_assert_int_eq(dp_synthetic_make(&a, &p, NULL), DP_OK);
    ck_assert_int_eq(dp_synthetic_make(&b, &p, NULL), DP_OK);
    ck_assert(same_data(&a, &b));
    p.seed = 78;
    ck_assert_int_eq(dp_synthetic_make(&c, &p, NULL), DP_OK);
    ck_assert(!same_data(&a, &c));
    ck_assert_str_eq(a.name, "synthetic");
    dp_dataset_destroy(&a);
    dp_dataset_destroy(&b);
    dp_dataset_destroy(&c);
}
END_TEST

static void check_shape(size_t n, size_t d, int classes, double margin)
{
    dp_dataset ds;
    dp_synthetic_params p = params(n, d, classes, margin, 0.0, 5);
    dp_err e;
    ck_assert_int_eq(dp_synthetic_make(&ds, &p, &e), DP_OK);
    ck_assert_uint_eq(ds.n, n);
    ck_assert_uint_eq(ds.d, d);
    ck_assert_int_eq(ds.n_classes, classes);
    int *count = calloc((size_t)classes, sizeof *count);
    ck_assert_ptr_nonnull(count);
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (size_t c = 0; c < d; c++) s += ds.x[i * d + c] * ds.x[i * d + c];
        /* One ulp of slack for this loop's own rounding of the norm. */
        ck_assert_msg(sqrt(s) <= 1.0 + 1e-15, "row %zu has norm %.17g", i, sqrt(s));
        ck_assert_int_ge(ds.y[i], 0);
        ck_assert_int_lt(ds.y[i], classes);
        count[ds.y[i]]++;
    }
    for (int k = 0; k < classes; k++) ck_assert_msg(count[k] > 0, "class %d absent", k);
    free(count);
    dp_dataset_destroy(&ds);
}

START_TEST(test_ball_and_labels)
{
    check_shape(2000, 2, 2, 0.0);
    check_shape(2000, 10, 2, 0.1);
    check_shape(3000, 5, 4, 0.05);
    check_shape(3000, 50, 10, 0.0);
}
END_TEST

/* Replay the generating vectors and check every row's label and gap. */
static void check_margin(size_t n, size_t d, int classes, double margin, uint64_t seed)
{
    dp_dataset ds;
    dp_synthetic_params p = params(n, d, classes, margin, 0.0, seed);
    ck_assert_int_eq(dp_synthetic_make(&ds, &p, NULL), DP_OK);
    int K = classes == 2 ? 1 : classes;
    double *W = malloc((size_t)K * d * sizeof *W);
    ck_assert_ptr_nonnull(W);
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_DATA);
    for (int k = 0; k < K; k++) {
        double *w = W + (size_t)k * d;
        for (size_t c = 0; c < d; c++) w[c] = dp_rng_gaussian(&r);
        dp_scal(w, 1.0 / dp_nrm2(w, d), d);
    }
    double min_gap = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double *x = ds.x + i * d;
        int label;
        double gap;
        if (K == 1) {
            double s = dp_dot(W, x, d);
            label = s > 0.0;
            gap = fabs(s);
        } else {
            double s[16];
            label = 0;
            for (int k = 0; k < K; k++) {
                s[k] = dp_dot(W + (size_t)k * d, x, d);
                if (s[k] > s[label]) label = k;
            }
            double second = -INFINITY;
            for (int k = 0; k < K; k++)
                if (k != label && s[k] > second) second = s[k];
            gap = s[label] - second;
        }
        ck_assert_int_eq(ds.y[i], label);
        ck_assert_msg(gap >= margin, "row %zu: gap %g < margin %g", i, gap, margin);
        if (gap < min_gap) min_gap = gap;
    }
    /* The rejection is active, not vacuous: with this many points some lie near the
     * boundary of the accepted region. */
    ck_assert_double_lt(min_gap, margin + 0.05);
    free(W);
    dp_dataset_destroy(&ds);
}

START_TEST(test_margin)
{
    check_margin(2000, 3, 2, 0.2, 9);
    check_margin(2000, 6, 5, 0.1, 10);
}
END_TEST

START_TEST(test_label_noise)
{
    /* Features do not depend on label_noise; labels differ from the clean ones with
     * probability label_noise (K-1)/K (the replacement may redraw the same class).
     * n = 20000, p = 0.3 * 3/4 = 0.225: 5 standard errors sqrt(p (1-p) / n) = 0.0148. */
    enum { N = 20000 };
    dp_dataset clean, noisy;
    dp_synthetic_params p = params(N, 4, 4, 0.0, 0.0, 21);
    ck_assert_int_eq(dp_synthetic_make(&clean, &p, NULL), DP_OK);
    p.label_noise = 0.3;
    ck_assert_int_eq(dp_synthetic_make(&noisy, &p, NULL), DP_OK);
    ck_assert_int_eq(memcmp(clean.x, noisy.x, N * 4 * sizeof *clean.x), 0);
    long changed = 0;
    for (int i = 0; i < N; i++) changed += clean.y[i] != noisy.y[i];
    double pr = 0.3 * 3.0 / 4.0;
    ck_assert_double_eq_tol((double)changed / N, pr, 5.0 * sqrt(pr * (1 - pr) / N));
    dp_dataset_destroy(&clean);
    dp_dataset_destroy(&noisy);
}
END_TEST

// ---- synthetic-2: the split -------------------------------------------------------------

START_TEST(test_split)
{
    /* Rows tagged by their index in column 0, so a copy can be traced to its origin. */
    enum { N = 101, D = 3 };
    dp_dataset all = {.n = N, .d = D, .n_classes = 3};
    snprintf(all.name, sizeof all.name, "tagged");
    all.x = malloc(N * D * sizeof *all.x);
    all.y = malloc(N * sizeof *all.y);
    ck_assert(all.x && all.y);
    for (int i = 0; i < N; i++) {
        all.x[i * D + 0] = i;
        all.x[i * D + 1] = 2.0 * i;
        all.x[i * D + 2] = -i;
        all.y[i] = i % 3;
    }
    dp_dataset tr, te, tr2, te2, tr3, te3;
    dp_err e;
    ck_assert_int_eq(dp_dataset_split(&all, 70, 4, &tr, &te, &e), DP_OK);
    ck_assert_uint_eq(tr.n, 70);
    ck_assert_uint_eq(te.n, 31);
    ck_assert_uint_eq(tr.d, D);
    ck_assert_int_eq(te.n_classes, 3);
    ck_assert_str_eq(tr.name, "tagged/train");
    ck_assert_str_eq(te.name, "tagged/test");
    int seen[N] = {0};
    const dp_dataset *parts[2] = {&tr, &te};
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < parts[p]->n; i++) {
            const double *x = parts[p]->x + i * D;
            int src = (int)x[0];
            ck_assert(src >= 0 && src < N && x[0] == src);
            ck_assert(x[1] == 2.0 * src && x[2] == -src);
            ck_assert_int_eq(parts[p]->y[i], src % 3);
            ck_assert_int_eq(seen[src], 0); /* disjoint, and no row twice */
            seen[src] = 1;
        }
    for (int i = 0; i < N; i++) ck_assert_int_eq(seen[i], 1); /* nothing lost */
    /* A split is not just the first rows. */
    int in_order = 1;
    for (size_t i = 0; i < tr.n; i++) in_order &= tr.x[i * D] == (double)i;
    ck_assert(!in_order);

    ck_assert_int_eq(dp_dataset_split(&all, 70, 4, &tr2, &te2, NULL), DP_OK);
    ck_assert(same_data(&tr, &tr2) && same_data(&te, &te2));
    ck_assert_int_eq(dp_dataset_split(&all, 70, 5, &tr3, &te3, NULL), DP_OK);
    ck_assert(!same_data(&tr, &tr3));

    dp_dataset_destroy(&tr3);
    dp_dataset_destroy(&te3);

    /* Both parts must be non-empty; on error the outputs are left empty. */
    ck_assert_int_eq(dp_dataset_split(&all, 0, 4, &tr3, &te3, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "n_train"));
    ck_assert_ptr_null(tr3.x);
    ck_assert_int_eq(dp_dataset_split(&all, N, 4, &tr3, &te3, &e), DP_EINVAL);

    dp_dataset_destroy(&tr);
    dp_dataset_destroy(&te);
    dp_dataset_destroy(&tr2);
    dp_dataset_destroy(&te2);
    dp_dataset_destroy(&all);
    dp_dataset_destroy(&all); /* a zeroed dataset is fine */
    dp_dataset_destroy(NULL);
}
END_TEST

/* synthetic-2.2: PATE's teacher parts: 7 parts of 101 rows cover them, disjoint, in
 * order, sizes 14 or 15; more parts than rows (a part would be empty) and an index past
 * the last are errors. */
START_TEST(test_part)
{
    enum { N = 101, D = 2, PARTS = 7 };
    dp_dataset all;
    ck_assert_int_eq(dp_dataset_alloc(&all, "tagged", N, D, 3, NULL), DP_OK);
    for (int i = 0; i < N; i++) {
        all.x[i * D] = i, all.x[i * D + 1] = -i;
        all.y[i] = i % 3;
    }
    size_t next = 0;
    dp_err e;
    for (size_t p = 0; p < PARTS; p++) {
        dp_dataset part;
        ck_assert_int_eq(dp_dataset_part(&all, PARTS, p, &part, &e), DP_OK);
        ck_assert(part.n == 14 || part.n == 15);
        for (size_t i = 0; i < part.n; i++, next++) {
            ck_assert(part.x[i * D] == (double)next && part.x[i * D + 1] == -(double)next);
            ck_assert_int_eq(part.y[i], (int)(next % 3));
        }
        dp_dataset_destroy(&part);
    }
    ck_assert_uint_eq(next, N);
    dp_dataset part;
    ck_assert_int_eq(dp_dataset_part(&all, N + 1, 0, &part, &e), DP_EINVAL);
    ck_assert_str_eq(e.msg, "102 parts of 101 rows: a part would be empty; use at most 101");
    ck_assert_int_eq(dp_dataset_part(&all, PARTS, PARTS, &part, &e), DP_EINVAL);
    ck_assert_ptr_null(part.x);
    dp_dataset_destroy(&all);
}
END_TEST

// ---- synthetic-3: bad parameters --------------------------------------------------------

static void expect_bad(dp_synthetic_params p, const char *field)
{
    dp_dataset ds;
    dp_err e;
    dp_err_clear(&e);
    ck_assert_int_eq(dp_synthetic_make(&ds, &p, &e), DP_EINVAL);
    ck_assert_int_eq(e.code, DP_EINVAL);
    ck_assert_msg(strstr(e.msg, field) != NULL, "message '%s' does not name %s", e.msg, field);
    ck_assert_ptr_null(ds.x);
    ck_assert_ptr_null(ds.y);
    ck_assert_uint_eq(ds.n, 0);
}

START_TEST(test_bad_params)
{
    expect_bad(params(0, 5, 2, 0.0, 0.0, 1), "dataset.n");
    expect_bad(params(10, 0, 2, 0.0, 0.0, 1), "dataset.d");
    expect_bad(params(10, 5, 1, 0.0, 0.0, 1), "dataset.classes");
    expect_bad(params(10, 5, 2, 1.0, 0.0, 1), "dataset.margin");
    expect_bad(params(10, 5, 2, -0.1, 0.0, 1), "dataset.margin");
    expect_bad(params(10, 5, 2, NAN, 0.0, 1), "dataset.margin");
    expect_bad(params(10, 5, 2, 0.0, 0.6, 1), "dataset.label_noise");
    expect_bad(params(10, 5, 2, 0.0, -0.1, 1), "dataset.label_noise");
}
END_TEST

START_TEST(test_hopeless_margin)
{
    /* In 400 dimensions |w . x| is about 1/20 for a uniform point of the ball: a margin of
     * 0.9 accepts essentially nothing, and the generator must say so instead of looping. */
    dp_dataset ds;
    dp_err e;
    dp_synthetic_params p = params(100, 400, 2, 0.9, 0.0, 1);
    ck_assert_int_eq(dp_synthetic_make(&ds, &p, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "dataset.margin"));
    ck_assert_ptr_nonnull(strstr(e.msg, "too large"));
    ck_assert(e.hint[0] != '\0');
    ck_assert_ptr_null(ds.x);
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test);
    return tc;
}

static Suite *synthetic_suite(void)
{
    Suite *s = suite_create("synthetic");
    suite_add_tcase(s, tcase("synthetic-1.1", test_determinism));
    suite_add_tcase(s, tcase("synthetic-1.2", test_ball_and_labels));
    suite_add_tcase(s, tcase("synthetic-1.3", test_margin));
    suite_add_tcase(s, tcase("synthetic-1.4", test_label_noise));
    suite_add_tcase(s, tcase("synthetic-2.1", test_split));
    suite_add_tcase(s, tcase("synthetic-2.2", test_part));
    suite_add_tcase(s, tcase("synthetic-3.1", test_bad_params));
    suite_add_tcase(s, tcase("synthetic-3.2", test_hopeless_margin));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(synthetic_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
