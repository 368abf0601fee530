/* test_vec.c: the GEMM wrappers of algorithms/base/vec.c split large products across
 * dperm's threads; the results must be the product (against a plain triple loop) and the
 * same bits on 1, 2, 3 and 5 threads. The shapes include the two that OpenBLAS's own
 * threads computed differently on one and two threads (256 x 512 x 784 on SkylakeX
 * kernels, 1024 x 10 x 784 on Haswell kernels), each transpose, a leading dimension wider
 * than the matrix, and sides that are not a multiple of the block. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "tests/unit/test_util.h"

typedef struct gemm_shape {
    int ta, tb;
    size_t m, n, k, pad; /* pad: extra columns in every leading dimension */
} gemm_shape;

static const gemm_shape SHAPES[] = {
    {0, 0, 256, 512, 784, 0},  {0, 1, 1024, 10, 784, 0}, {1, 0, 10, 784, 1100, 0},
    {1, 1, 300, 197, 333, 3},  {0, 0, 65, 1000, 129, 5},  {1, 0, 784, 512, 256, 0},
};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

static double frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (double)(*s >> 8) / (double)(1u << 24) - 0.5;
}

/* op(A) (m,k) and op(B) (k,n) stored with their leading dimensions; C (m,n). */
typedef struct gemm_data {
    size_t rows_a, cols_a, rows_b, cols_b, lda, ldb, ldc;
    double *A, *B, *C0;
    float *Af, *Bf, *Cf0;
} gemm_data;

static gemm_data make_data(const gemm_shape *g)
{
    gemm_data d;
    d.rows_a = g->ta ? g->k : g->m, d.cols_a = g->ta ? g->m : g->k;
    d.rows_b = g->tb ? g->n : g->k, d.cols_b = g->tb ? g->k : g->n;
    d.lda = d.cols_a + g->pad, d.ldb = d.cols_b + g->pad, d.ldc = g->n + g->pad;
    d.A = malloc(d.rows_a * d.lda * sizeof *d.A);
    d.B = malloc(d.rows_b * d.ldb * sizeof *d.B);
    d.C0 = malloc(g->m * d.ldc * sizeof *d.C0);
    d.Af = malloc(d.rows_a * d.lda * sizeof *d.Af);
    d.Bf = malloc(d.rows_b * d.ldb * sizeof *d.Bf);
    d.Cf0 = malloc(g->m * d.ldc * sizeof *d.Cf0);
    ck_assert(d.A && d.B && d.C0 && d.Af && d.Bf && d.Cf0);
    unsigned s = 12345u;
    for (size_t i = 0; i < d.rows_a * d.lda; i++) d.Af[i] = (float)(d.A[i] = frand(&s));
    for (size_t i = 0; i < d.rows_b * d.ldb; i++) d.Bf[i] = (float)(d.B[i] = frand(&s));
    for (size_t i = 0; i < g->m * d.ldc; i++) d.Cf0[i] = (float)(d.C0[i] = frand(&s));
    return d;
}

static void free_data(gemm_data *d)
{
    free(d->A), free(d->B), free(d->C0), free(d->Af), free(d->Bf), free(d->Cf0);
}

static double op_a(const gemm_shape *g, const gemm_data *d, size_t i, size_t p)
{
    return g->ta ? d->A[p * d->lda + i] : d->A[i * d->lda + p];
}

static double op_b(const gemm_shape *g, const gemm_data *d, size_t p, size_t j)
{
    return g->tb ? d->B[j * d->ldb + p] : d->B[p * d->ldb + j];
}

/* The shape's double product on `threads` threads, alpha 0.75, beta -0.5. */
static double *run_dgemm(const gemm_shape *g, const gemm_data *d, int threads)
{
    double *C = malloc(g->m * d->ldc * sizeof *C);
    ck_assert(C != NULL);
    memcpy(C, d->C0, g->m * d->ldc * sizeof *C);
    dp_set_threads(threads);
    dp_gemm(g->ta, g->tb, g->m, g->n, g->k, 0.75, d->A, d->lda, d->B, d->ldb, -0.5, C, d->ldc);
    dp_set_threads(1);
    return C;
}

static float *run_sgemm(const gemm_shape *g, const gemm_data *d, int threads)
{
    float *C = malloc(g->m * d->ldc * sizeof *C);
    ck_assert(C != NULL);
    memcpy(C, d->Cf0, g->m * d->ldc * sizeof *C);
    dp_set_threads(threads);
    dp_sgemm(g->ta, g->tb, g->m, g->n, g->k, 0.75f, d->Af, d->lda, d->Bf, d->ldb, -0.5f, C,
             d->ldc);
    dp_set_threads(1);
    return C;
}

/* Every element against the triple loop: within 1e-12 (double) and 2e-5 (float) of the sum
 * of |terms|, the rounding of k products in either precision; padding untouched. */
static void check_product(const gemm_shape *g, const gemm_data *d, const double *C,
                          const float *Cf)
{
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < d->ldc; j++) {
            size_t at = i * d->ldc + j;
            if (j >= g->n) {
                ck_assert_msg(C[at] == d->C0[at] && Cf[at] == d->Cf0[at],
                              "padding (%zu, %zu) written", i, j);
                continue;
            }
            double want = -0.5 * d->C0[at], size = 0.5 * fabs(d->C0[at]);
            for (size_t p = 0; p < g->k; p++) {
                double t = 0.75 * op_a(g, d, i, p) * op_b(g, d, p, j);
                want += t, size += fabs(t);
            }
            ck_assert_msg(fabs(C[at] - want) <= 1e-12 * size, "dgemm (%zu, %zu): %.17g, want %.17g",
                          i, j, C[at], want);
            ck_assert_msg(fabs(Cf[at] - want) <= 2e-5 * size, "sgemm (%zu, %zu): %.9g, want %.17g",
                          i, j, (double)Cf[at], want);
        }
}

START_TEST(test_gemm_threads)
{
    const gemm_shape *g = &SHAPES[_i];
    gemm_data d = make_data(g);
    double *C1 = run_dgemm(g, &d, 1);
    float *Cf1 = run_sgemm(g, &d, 1);
    check_product(g, &d, C1, Cf1);
    static const int threads[] = {2, 3, 5};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        double *C = run_dgemm(g, &d, threads[t]);
        float *Cf = run_sgemm(g, &d, threads[t]);
        ck_assert_msg(memcmp(C, C1, g->m * d.ldc * sizeof *C) == 0,
                      "dgemm %zu x %zu x %zu (ta %d, tb %d): %d threads differ from 1", g->m,
                      g->n, g->k, g->ta, g->tb, threads[t]);
        ck_assert_msg(memcmp(Cf, Cf1, g->m * d.ldc * sizeof *Cf) == 0,
                      "sgemm %zu x %zu x %zu (ta %d, tb %d): %d threads differ from 1", g->m,
                      g->n, g->k, g->ta, g->tb, threads[t]);
        free(C), free(Cf);
    }
    free(C1), free(Cf1);
    free_data(&d);
}
END_TEST

/* The budget is what was set, at least 1. */
START_TEST(test_thread_budget)
{
    dp_set_threads(3);
    ck_assert_int_eq(dp_threads(), 3);
    dp_set_threads(0);
    ck_assert_int_eq(dp_threads(), 1);
}
END_TEST

/* The element kernels against their plain loops, bit for bit, on lengths around the
 * vector width (the AVX2 path's body and its scalar tail): dp_keep_positive is ReLU's
 * select (+0.0 where keep <= 0 or keep is NaN, v's own bits, -0.0 and NaN included,
 * where keep > 0), also in place (dst = keep = v, and dst = v); dp_add_scaled is
 * dst += a * src with the product rounded first; dp_to_float_scaled rounds that product
 * to float and adds it as dp_add_scaled does; dp_plus_float is b + (double)src. */
START_TEST(test_element_kernels)
{
    unsigned seed = 11;
    for (size_t n = 0; n <= 37; n++) {
        double keep[40] = {0}, v[40] = {0}, dst[40], ref[40], b[40], acc[40], acc_ref[40];
        float f[40];
        for (size_t i = 0; i < n; i++) {
            keep[i] = frand(&seed);
            v[i] = frand(&seed) * 3.0;
            b[i] = frand(&seed);
            f[i] = (float)frand(&seed);
            acc[i] = acc_ref[i] = frand(&seed);
        }
        if (n > 3) keep[1] = 0.0, keep[2] = -0.0, keep[3] = NAN;
        if (n > 6) keep[4] = keep[5] = keep[6] = 1.0, v[4] = -0.0, v[5] = NAN, v[6] = -2.0;
        for (size_t i = 0; i < n; i++) ref[i] = keep[i] > 0.0 ? v[i] : 0.0;
        dp_keep_positive(dst, keep, v, n);
        ck_assert_msg(n == 0 || memcmp(dst, ref, n * sizeof *dst) == 0, "keep_positive n=%zu", n);
        for (size_t i = 0; i < n; i++) /* +0.0 exactly where dropped, never -0.0 */
            if (!(keep[i] > 0.0)) ck_assert(!signbit(dst[i]) && dst[i] == 0.0);
        memcpy(dst, v, n * sizeof *dst);
        dp_keep_positive(dst, keep, dst, n); /* dst = v */
        ck_assert(n == 0 || memcmp(dst, ref, n * sizeof *dst) == 0);
        memcpy(dst, v, n * sizeof *dst);
        dp_keep_positive(dst, dst, dst, n); /* ReLU in place */
        for (size_t i = 0; i < n; i++) ref[i] = v[i] > 0.0 ? v[i] : 0.0;
        ck_assert(n == 0 || memcmp(dst, ref, n * sizeof *dst) == 0);

        volatile double a = 0.37; /* volatile: the reference product is rounded, not fused */
        for (size_t i = 0; i < n; i++) {
            double p = a * v[i];
            acc_ref[i] += p;
        }
        dp_add_scaled(acc, a, v, n);
        ck_assert_msg(n == 0 || memcmp(acc, acc_ref, n * sizeof *acc) == 0, "add_scaled n=%zu", n);
        /* the scaled errors with the bias gradient in the same pass: a * v rounded to
         * float, and the same product added into acc as dp_add_scaled adds it */
        float fs[40], fs_ref[40];
        for (size_t i = 0; i < n; i++) fs_ref[i] = (float)(a * v[i]);
        dp_add_scaled(acc_ref, a, v, n);
        dp_to_float_scaled(fs, acc, v, a, n);
        ck_assert_msg(n == 0 || memcmp(fs, fs_ref, n * sizeof *fs) == 0, "to_float_scaled %zu", n);
        ck_assert_msg(n == 0 || memcmp(acc, acc_ref, n * sizeof *acc) == 0, "its sum n=%zu", n);
        dp_to_float_scaled(fs, NULL, v, a, n);
        ck_assert(n == 0 || memcmp(fs, fs_ref, n * sizeof *fs) == 0);
        for (size_t i = 0; i < n; i++) ref[i] = b[i] + (double)f[i];
        dp_plus_float(dst, b, f, n);
        ck_assert_msg(n == 0 || memcmp(dst, ref, n * sizeof *dst) == 0, "plus_float n=%zu", n);
    }
}
END_TEST

/* The fused kernels' test lengths: 0 to 37 around the vector width (body and tail), then
 * 128 and a hidden layer's 512. */
#define N_FUSED_LENS 40
static size_t fused_len(size_t t)
{
    return t <= 37 ? t : t == 38 ? 128 : 512;
}

/* dp_plus_relu_to_float_sumsq is dp_plus_float, dp_keep_positive in place and
 * dp_to_float_sumsq, bit for bit (outputs and the sum), on lengths around the vector width
 * and a hidden layer's 512, with sums that are negative, -0.0 and NaN (all to +0.0). A
 * version that kept -0.0, summed the squares before the ReLU or in another order fails. */
START_TEST(test_plus_relu_fused)
{
    unsigned seed = 5;
    for (size_t t = 0; t < N_FUSED_LENS; t++) {
        size_t n = fused_len(t);
        double b[512] = {0}, dst[512], ref[512];
        float f[512] = {0}, af[512], af_ref[512];
        for (size_t i = 0; i < n; i++) {
            b[i] = frand(&seed) - 0.5;
            f[i] = (float)(frand(&seed) - 0.5);
        }
        if (n > 3) b[1] = 0.0, f[1] = -0.0f, b[2] = 1.0, f[2] = NAN, b[3] = -0.25, f[3] = 0.25f;
        dp_plus_float(ref, b, f, n);
        dp_keep_positive(ref, ref, ref, n);
        double s_ref = dp_to_float_sumsq(af_ref, ref, n);
        double s = dp_plus_relu_to_float_sumsq(dst, af, b, f, n);
        ck_assert_msg(n == 0 || memcmp(dst, ref, n * sizeof *dst) == 0, "outputs n=%zu", n);
        ck_assert_msg(n == 0 || memcmp(af, af_ref, n * sizeof *af) == 0, "floats n=%zu", n);
        ck_assert_msg(memcmp(&s, &s_ref, sizeof s) == 0, "sum n=%zu: %a vs %a", n, s, s_ref);
        for (size_t i = 0; i < n; i++) ck_assert(!signbit(dst[i]));
    }
}
END_TEST

/* dp_relu_grad_sumsq is dp_to_double, dp_keep_positive in place and dp_sumsq, bit for bit,
 * with keep <= 0, -0.0 and NaN (dropped to +0.0) and a kept -0.0 error (kept). */
START_TEST(test_relu_grad_fused)
{
    unsigned seed = 9;
    for (size_t t = 0; t < N_FUSED_LENS; t++) {
        size_t n = fused_len(t);
        double keep[512] = {0}, dst[512], ref[512];
        float f[512] = {0};
        for (size_t i = 0; i < n; i++) {
            keep[i] = frand(&seed) - 0.3;
            f[i] = (float)(frand(&seed) - 0.5);
        }
        if (n > 4) keep[1] = -0.0, keep[2] = NAN, keep[3] = 1.0, f[3] = -0.0f, keep[4] = 0.0;
        dp_to_double(ref, f, n);
        dp_keep_positive(ref, keep, ref, n);
        double s_ref = dp_sumsq(ref, n);
        double s = dp_relu_grad_sumsq(dst, keep, f, n);
        ck_assert_msg(n == 0 || memcmp(dst, ref, n * sizeof *dst) == 0, "errors n=%zu", n);
        ck_assert_msg(memcmp(&s, &s_ref, sizeof s) == 0, "sum n=%zu: %a vs %a", n, s, s_ref);
        if (n > 4) ck_assert(signbit(dst[3]) && !signbit(dst[1]) && !signbit(dst[2]));
    }
}
END_TEST

/* dp_sgd_update against the loop of its contract, one element at a time, bit for bit, on
 * the fused lengths (dp_sgd_update_to against dp_sgd_update: the same outputs, its w not
 * written), with and without the float gradient and the float weights, b = 256
 * and b = 37 (a division that a reciprocal would not reproduce) and mu = 0 and 0.01; the
 * float gradient and the direction are left zero; a new weight that overflows (or comes
 * from a NaN direction) is reported, in the body and in the tail. */
START_TEST(test_sgd_update)
{
    unsigned seed = 10;
    enum { M = 512 };
    for (size_t t = 0; t < N_FUSED_LENS; t++)
        for (int v = 0; v < 8; v++) {
            size_t n = fused_len(t);
            int has_gf = v & 1, has_wf = (v >> 1) & 1;
            double b = v & 4 ? 37.0 : 256.0, mu = v & 4 ? 0.01 : 0.0, eta = 0.3;
            double w[M], wp[M], d[M], w_ref[M], wp_ref[M];
            float gf[M], wf[M], wf_ref[M];
            for (size_t i = 0; i < n; i++) {
                w[i] = frand(&seed) - 0.5, d[i] = 40.0 * (frand(&seed) - 0.5);
                gf[i] = (float)(frand(&seed) - 0.5), wf[i] = wf_ref[i] = 7.0f;
            }
            for (size_t i = 0; i < n; i++) {
                double s = has_gf ? d[i] + (double)gf[i] : d[i];
                wp_ref[i] = w[i];
                w_ref[i] = w[i] - eta * (s / b + mu * w[i]);
                if (has_wf) wf_ref[i] = (float)w_ref[i];
            }
            /* dp_sgd_update_to on copies: the same new weights in another buffer */
            double w_to_mem[M + 3], w_in[M], d_to[M];
            double *w_to = w_to_mem + t % 4; /* every alignment of the streamed stores */
            float gf_to[M], wf_to[M];
            memcpy(w_in, w, n * sizeof *w), memcpy(d_to, d, n * sizeof *d);
            memcpy(gf_to, gf, n * sizeof *gf), memcpy(wf_to, wf, n * sizeof *wf);
            int bad_to = dp_sgd_update_to(w_to, w_in, d_to, has_gf ? gf_to : NULL,
                                          has_wf ? wf_to : NULL, b, mu, eta, n);
            int bad = dp_sgd_update(w, wp, d, has_gf ? gf : NULL, has_wf ? wf : NULL, b, mu,
                                    eta, n);
            ck_assert_int_eq(bad_to, bad);
            ck_assert_msg(n == 0 || memcmp(w_to, w, n * sizeof *w) == 0, "to: w n=%zu v=%d", n, v);
            ck_assert(n == 0 || memcmp(w_in, wp, n * sizeof *w) == 0); /* w_in not written */
            ck_assert(n == 0 || memcmp(wf_to, wf, n * sizeof *wf) == 0);
            ck_assert(n == 0 || memcmp(d_to, d, n * sizeof *d) == 0);
            ck_assert(n == 0 || memcmp(gf_to, gf, n * sizeof *gf) == 0);
            ck_assert_int_eq(bad, 0);
            ck_assert_msg(n == 0 || memcmp(w, w_ref, n * sizeof *w) == 0, "w n=%zu v=%d", n, v);
            ck_assert(n == 0 || memcmp(wp, wp_ref, n * sizeof *wp) == 0);
            ck_assert(n == 0 || memcmp(wf, wf_ref, n * sizeof *wf) == 0);
            for (size_t i = 0; i < n; i++) {
                ck_assert(d[i] == 0.0 && !signbit(d[i]));
                if (has_gf) ck_assert(gf[i] == 0.0f);
            }
            if (n == 0) continue;
            for (size_t k = 0; k < 4; k++) { /* an overflow, a NaN; first, last element */
                size_t at = k < 2 ? 0 : n - 1;
                w[at] = k % 2 ? 0.0 : 1.797e308, d[at] = k % 2 ? NAN : -1e308;
                memcpy(d_to, d, n * sizeof *d);
                ck_assert_int_eq(dp_sgd_update_to(w_to, w, d_to, NULL, NULL, b, 0.0, eta, n), 1);
                ck_assert(!isfinite(w_to[at]));
                ck_assert_int_eq(dp_sgd_update(w, wp, d, NULL, NULL, b, 0.0, eta, n), 1);
                ck_assert(!isfinite(w[at]));
                w[at] = 0.0; /* d is zero again: every new weight finite */
                ck_assert_int_eq(dp_sgd_update(w, wp, d, NULL, NULL, b, 0.0, eta, n), 0);
            }
        }
}
END_TEST

/* dp_sgd_update_noised is dp_sgd_update_to on the noised sum d[j] + z[j], bit for bit (new
 * weights, wf, d and gf left zero, the return), with and without gf and wf, b = 256 and
 * b = 37, mu = 0 and 0.01, at every alignment of the streamed stores; with d NULL it is
 * the same on a d of +0.0 and leaves d alone. Element 0 holds w = -0.0 and z = -0.0: with
 * d NULL the sum +0.0 + z is +0.0 and the new weight -0.0 - 0.3 (+0.0 / b) is -0.0 when
 * mu = 0, where a kernel that took z alone as the sum gives +0.0. A non-finite new weight
 * is reported with and without d. */
START_TEST(test_sgd_update_noised)
{
    unsigned seed = 11;
    enum { M = 512 };
    for (size_t t = 0; t < N_FUSED_LENS; t++)
        for (int v = 0; v < 16; v++) {
            size_t n = fused_len(t);
            int has_gf = v & 1, has_wf = (v >> 1) & 1, has_d = (v >> 3) & 1;
            double b = v & 4 ? 37.0 : 256.0, mu = v & 4 ? 0.01 : 0.0, eta = 0.3;
            double w[M], d[M], z[M], d_ref[M], w_ref_mem[M + 3], w_new_mem[M + 3];
            float gf[M], gf_ref[M], wf[M], wf_ref[M];
            double *w_ref = w_ref_mem + (t + 1) % 4, *w_new = w_new_mem + t % 4;
            for (size_t i = 0; i < n; i++) {
                w[i] = frand(&seed) - 0.5, z[i] = 3.0 * (frand(&seed) - 0.5);
                d[i] = has_d ? 40.0 * (frand(&seed) - 0.5) : 0.0;
                gf[i] = gf_ref[i] = (float)(frand(&seed) - 0.5), wf[i] = wf_ref[i] = 7.0f;
            }
            if (n > 0) w[0] = -0.0, z[0] = -0.0, gf[0] = gf_ref[0] = 0.0f;
            for (size_t i = 0; i < n; i++) d_ref[i] = d[i] + z[i];
            int bad_ref = dp_sgd_update_to(w_ref, w, d_ref, has_gf ? gf_ref : NULL,
                                           has_wf ? wf_ref : NULL, b, mu, eta, n);
            int bad = dp_sgd_update_noised(w_new, w, has_d ? d : NULL, z, has_gf ? gf : NULL,
                                           has_wf ? wf : NULL, b, mu, eta, n);
            ck_assert_int_eq(bad, bad_ref);
            ck_assert_msg(n == 0 || memcmp(w_new, w_ref, n * sizeof *w) == 0, "w n=%zu v=%d", n,
                          v);
            ck_assert(n == 0 || memcmp(wf, wf_ref, n * sizeof *wf) == 0);
            ck_assert(n == 0 || memcmp(gf, gf_ref, n * sizeof *gf) == 0);
            ck_assert(n == 0 || memcmp(d, d_ref, n * sizeof *d) == 0); /* +0.0 either way */
            if (n > 0 && !has_d && mu == 0.0) ck_assert(signbit(w_new[0])); /* -0.0 - (+0.0) */
            if (n == 0) continue;
            for (size_t k = 0; k < 2; k++) { /* an overflow in the first, then the last */
                size_t at = k ? n - 1 : 0;
                double w_at = w[at], z_at = z[at];
                w[at] = 1.797e308, z[at] = -1e308;
                ck_assert_int_eq(dp_sgd_update_noised(w_new, w, has_d ? d : NULL, z, NULL, NULL,
                                                      b, 0.0, eta, n), 1);
                ck_assert(!isfinite(w_new[at]));
                w[at] = w_at, z[at] = z_at;
                ck_assert_int_eq(dp_sgd_update_noised(w_new, w, has_d ? d : NULL, z, NULL, NULL,
                                                      b, 0.0, eta, n), 0);
            }
        }
}
END_TEST

/* dp_sgd_update_noised_ranges over [lo, hi) is dp_sgd_update_noised over the same
 * parameters, bit for bit, whatever the ranges without d (d +0.0 there): none, ranges
 * inside, across either end of, before or after [lo, hi), touching each other, and the
 * whole of it. A piece given the wrong noise offset, a range run with d where it should
 * not (d is a sentinel there, not +0.0) or a piece left out fails. */
START_TEST(test_sgd_update_noised_ranges)
{
    enum { N = 300 };
    static const size_t lohi[][2] = {{0, N}, {17, 261}, {5, 6}, {100, 100}};
    static const size_t zero_sets[][8] = {
        {0},           {20, 40},        {0, 17, 200, 300}, {3, 30, 30, 90},
        {250, 280, 0}, {0, 300},        {2, 9, 261, 299},  {18, 19, 21, 150},
    };
    static const size_t n_zero[] = {0, 1, 2, 2, 1, 1, 2, 2};
    unsigned seed = 12;
    double w[N], d[N], d_ref[N], z[N], w_new[N], w_ref[N];
    float gf[N], gf_ref[N], wf[N], wf_ref[N];
    for (size_t l = 0; l < sizeof lohi / sizeof lohi[0]; l++)
        for (size_t s = 0; s < sizeof n_zero / sizeof n_zero[0]; s++) {
            size_t lo = lohi[l][0], hi = lohi[l][1];
            for (size_t i = 0; i < N; i++) {
                w[i] = frand(&seed), d[i] = d_ref[i] = 9.0 * frand(&seed);
                z[i] = frand(&seed), gf[i] = gf_ref[i] = (float)frand(&seed);
                wf[i] = wf_ref[i] = 7.0f, w_new[i] = w_ref[i] = 5.0;
            }
            for (size_t k = 0; k < n_zero[s]; k++)
                for (size_t i = zero_sets[s][2 * k]; i < zero_sets[s][2 * k + 1]; i++)
                    d[i] = d_ref[i] = +0.0;
            /* inside the ranges d is not read: a sentinel there shows a piece that reads it */
            double sentinel = 1e6;
            for (size_t k = 0; k < n_zero[s]; k++)
                for (size_t i = zero_sets[s][2 * k]; i < zero_sets[s][2 * k + 1]; i++)
                    d[i] = sentinel;
            ck_assert_int_eq(dp_sgd_update_noised(w_ref + lo, w + lo, d_ref + lo, z,
                                                  gf_ref + lo, wf_ref + lo, 37.0, 0.01, 0.3,
                                                  hi - lo),
                             0);
            ck_assert_int_eq(dp_sgd_update_noised_ranges(w_new, w, d, z, gf, wf, 37.0, 0.01, 0.3,
                                                         lo, hi, zero_sets[s], n_zero[s]),
                             0);
            ck_assert_msg(memcmp(w_new, w_ref, sizeof w_new) == 0, "w l=%zu s=%zu", l, s);
            ck_assert(memcmp(wf, wf_ref, sizeof wf) == 0);
            ck_assert(memcmp(gf, gf_ref, sizeof gf) == 0);
            for (size_t i = 0; i < N; i++) {
                int in_zero = 0;
                for (size_t k = 0; k < n_zero[s]; k++)
                    in_zero |= i >= zero_sets[s][2 * k] && i < zero_sets[s][2 * k + 1];
                /* d: zeroed with d, left alone in the ranges without it */
                double want = in_zero ? sentinel : d_ref[i];
                ck_assert_msg(memcmp(&d[i], &want, sizeof want) == 0, "d[%zu] l=%zu s=%zu", i,
                              l, s);
            }
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("vec");
    TCase *tc = tcase_create("gemm");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_gemm_threads, 0, (int)N_SHAPES);
    tcase_add_test(tc, test_thread_budget);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("elements");
    tcase_add_test(te, test_element_kernels);
    tcase_add_test(te, test_plus_relu_fused);
    tcase_add_test(te, test_relu_grad_fused);
    tcase_add_test(te, test_sgd_update);
    tcase_add_test(te, test_sgd_update_noised);
    tcase_add_test(te, test_sgd_update_noised_ranges);
    suite_add_tcase(s, te);
    return test_run_suite(s);
}
