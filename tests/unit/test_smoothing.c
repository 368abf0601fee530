/* test_smoothing.c: DP-LSSGD's Laplacian smoothing (smoothing.h) against the definition:
 * u = A_s^{-1} v must satisfy A_s u = v, (A_s u)_i = (1 + 2s) u_i - s u_{i-1} - s u_{i+1}
 * (periodic), to 1e-12 relative; s = 0 leaves v untouched bit for bit; the symbol's
 * consequences (the mean is preserved; smoothing shrinks the noise variance). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/smoothing.h"

static void apply_A(const double *u, double *out, size_t d, double s)
{
    for (size_t i = 0; i < d; i++) {
        double left = u[(i + d - 1) % d], right = u[(i + 1) % d];
        out[i] = (1.0 + 2.0 * s) * u[i] - s * left - s * right;
    }
}

/* smooth-1.1: A_s (A_s^{-1} v) = v for lengths 1..7850 (odd, even, prime, MNIST softmax's
 * 7850) and s from 1e-9 (wrap sums of a few terms) to 100 (DP-LSSGD Fig. 2's 2-D signal:
 * kernel ratio 0.905, wrap sums over the whole period for the short lengths). */
START_TEST(solves_the_system)
{
    const size_t ds[] = {1, 2, 3, 7, 64, 127, 1000, 7850};
    const double ss[] = {1e-9, 0.5, 1.0, 2.0, 3.0, 10.0, 100.0};
    dp_rng r;
    dp_rng_init(&r, 3, DP_STREAM_TEST);
    for (size_t a = 0; a < sizeof ds / sizeof ds[0]; a++)
        for (size_t b = 0; b < sizeof ss / sizeof ss[0]; b++) {
            size_t d = ds[a];
            double *v = malloc(d * sizeof *v), *u = malloc(d * sizeof *u), *back = malloc(d * sizeof *back);
            for (size_t i = 0; i < d; i++) v[i] = dp_rng_gaussian(&r);
            memcpy(u, v, d * sizeof *v);
            dp_smoother sm;
            dp_err err;
            ck_assert_int_eq(dp_smoother_plan(&sm, d, ss[b], &err), 0);
            dp_smoother_execute(&sm, u);
            apply_A(u, back, d, ss[b]);
            double num = 0, den = 0;
            for (size_t i = 0; i < d; i++) {
                num += (back[i] - v[i]) * (back[i] - v[i]);
                den += v[i] * v[i];
            }
            ck_assert_msg(sqrt(num / den) <= 1e-12, "d %zu s %g: residual %g", d, ss[b], sqrt(num / den));
            /* the constant mode has symbol 1: the mean is kept */
            double mv = 0, mu = 0;
            for (size_t i = 0; i < d; i++) mv += v[i], mu += u[i];
            ck_assert_double_eq_tol(mu, mv, 1e-10 * (1 + fabs(mv)));
            dp_smoother_destroy(&sm);
            free(v), free(u), free(back);
        }
}
END_TEST

/* smooth-1.2: s = 0 is the identity, bit for bit (DP-LSSGD with smoothing 0 = DP-SGD). */
START_TEST(zero_is_identity)
{
    double v[5] = {1.5, -2.25, 3e-300, NAN, 7.0}, u[5];
    memcpy(u, v, sizeof v);
    dp_smoother sm;
    dp_err err;
    ck_assert_int_eq(dp_smoother_plan(&sm, 5, 0.0, &err), 0);
    dp_smoother_execute(&sm, u);
    ck_assert(memcmp(u, v, sizeof v) == 0);
    dp_smoother_destroy(&sm);
}
END_TEST

/* smooth-1.3: smoothing white noise of variance 1 leaves variance (1/d) sum_k 1/symbol_k^2,
 * below 1 for s > 0 (the variance reduction DP-LSSGD relies on). */
START_TEST(reduces_noise_variance)
{
    enum { D = 4096 };
    double *v = malloc(D * sizeof *v);
    dp_rng r;
    dp_rng_init(&r, 4, DP_STREAM_TEST);
    for (size_t i = 0; i < D; i++) v[i] = dp_rng_gaussian(&r);
    dp_smoother sm;
    dp_err err;
    ck_assert_int_eq(dp_smoother_plan(&sm, D, 1.0, &err), 0);
    dp_smoother_execute(&sm, v);
    double var = 0, expect = 0;
    for (size_t i = 0; i < D; i++) var += v[i] * v[i];
    var /= D;
    for (size_t k = 0; k < D; k++) {
        double sym = 1.0 + 2.0 - 2.0 * cos(2.0 * M_PI * (double)k / D);
        expect += 1.0 / (sym * sym);
    }
    expect /= D;
    ck_assert_double_eq_tol(var, expect, 0.1 * expect);
    ck_assert(expect < 0.5);
    dp_smoother_destroy(&sm);
    free(v);
}
END_TEST

/* smooth-1.4: bad parameters are errors naming them; destroy is safe on zeroed. */
START_TEST(bad_input)
{
    dp_smoother sm;
    dp_err err;
    ck_assert_int_eq(dp_smoother_plan(&sm, 0, 1.0, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "length"));
    ck_assert_int_eq(dp_smoother_plan(&sm, 8, -1.0, &err), DP_EINVAL);
    ck_assert_int_eq(dp_smoother_plan(&sm, 8, NAN, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "constant"));
    dp_smoother_destroy(&sm);
    dp_smoother_destroy(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("smoothing");
    TCase *t = tcase_create("smoothing");
    tcase_add_test(t, solves_the_system);
    tcase_add_test(t, zero_is_identity);
    tcase_add_test(t, reduces_noise_variance);
    tcase_add_test(t, bad_input);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
