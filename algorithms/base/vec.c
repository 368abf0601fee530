/* vec.c: the BLAS wrapper of vec.h over OpenBLAS's cblas, and the NaN/inf check.
 *
 * This is the only file that includes cblas.h (vec.h says why: one place to change the
 * BLAS). Sizes arrive as size_t and are narrowed to the BLAS integer; dperm's shapes
 * (examples x features of one batch or block) stay far below 2^31.
 *
 * Degenerate shapes are handled here rather than passed on: reference BLAS and OpenBLAS
 * reject a row-major leading dimension below max(1, columns) with an xerbla message on
 * stderr and skip the call, and an empty Poisson batch (k = 0 in the gradient GEMM) is a
 * normal event for the callers, not an error.
 */
#include "algorithms/base/vec.h"

#include <cblas.h>
#include <math.h>

double dp_dot(const double *x, const double *y, size_t n)
{
    if (n == 0) return 0.0;
    return cblas_ddot((blasint)n, x, 1, y, 1);
}

double dp_nrm2(const double *x, size_t n)
{
    if (n == 0) return 0.0;
    return cblas_dnrm2((blasint)n, x, 1);
}

void dp_axpy(double *y, double a, const double *x, size_t n)
{
    if (n == 0) return;
    cblas_daxpy((blasint)n, a, x, 1, y, 1);
}

void dp_scal(double *x, double a, size_t n)
{
    if (n == 0) return;
    cblas_dscal((blasint)n, a, x, 1);
}

void dp_gemm(int transa, int transb, size_t m, size_t n, size_t k, double alpha,
             const double *A, size_t lda, const double *B, size_t ldb, double beta,
             double *C, size_t ldc)
{
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == 0.0) {
        /* op(A) op(B) contributes nothing: C = beta C, with beta = 0 meaning "overwrite"
         * (BLAS semantics: C is not read, so NaN garbage in C does not survive). */
        for (size_t i = 0; i < m; i++) {
            double *c = C + i * ldc;
            if (beta == 0.0)
                for (size_t j = 0; j < n; j++) c[j] = 0.0;
            else if (beta != 1.0)
                for (size_t j = 0; j < n; j++) c[j] *= beta;
        }
        return;
    }
    cblas_dgemm(CblasRowMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n, (blasint)k, alpha,
                A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
}

void dp_gemv_t(double *y, const double *A, size_t m, size_t n, size_t lda, const double *x)
{
    if (m == 0 || n == 0) return;
    cblas_dgemv(CblasRowMajor, CblasTrans, (blasint)m, (blasint)n, 1.0, A, (blasint)lda, x, 1,
                1.0, y, 1);
}

void dp_sgemm(int transa, int transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
              size_t ldc)
{
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == 0.0f) { /* as dp_gemm: C = beta C, beta = 0 overwrites */
        for (size_t i = 0; i < m; i++) {
            float *c = C + i * ldc;
            if (beta == 0.0f)
                for (size_t j = 0; j < n; j++) c[j] = 0.0f;
            else if (beta != 1.0f)
                for (size_t j = 0; j < n; j++) c[j] *= beta;
        }
        return;
    }
    cblas_sgemm(CblasRowMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n, (blasint)k, alpha,
                A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
}

// ---- float conversions and sums ---------------------------------------------------------

/* Each kernel is written once (an always-inline body) and compiled twice: for the
 * baseline x86-64 instruction set and with AVX2, chosen per call by the CPU. The bodies
 * work in blocks of eight with the sums in eight running parts, which the compiler
 * turns into vector code without reordering a single operation, so both versions give
 * the same bits: no multiply and add are fused (-std=c11 keeps gcc from it, a pragma
 * clang, should a target have FMA). Measured on a Xeon (AVX-512): converting 100,352
 * doubles to float with their sum of squares takes 48 us as a scalar loop, 25 us
 * baseline, 13 us with AVX2 (AVX-512 is no faster: the loop is bound by memory). */
#define VEC_BLOCK 8

/* clang would fuse a * b + c into one FMA where the target has it, which rounds once
 * instead of twice: the paths would differ in the last bit. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

static inline __attribute__((always_inline)) void k_to_float(float *dst, const double *src,
                                                             size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] = (float)src[i + j];
    for (; i < n; i++) dst[i] = (float)src[i];
}

static inline __attribute__((always_inline)) void k_to_float_scaled(float *dst,
                                                                    const double *src,
                                                                    double a, size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] = (float)(a * src[i + j]);
    for (; i < n; i++) dst[i] = (float)(a * src[i]);
}

static inline __attribute__((always_inline)) void k_add_float(double *dst, const float *src,
                                                              size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] += (double)src[i + j];
    for (; i < n; i++) dst[i] += (double)src[i];
}

static inline __attribute__((always_inline)) void k_to_double(double *dst, const float *src,
                                                              size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] = (double)src[i + j];
    for (; i < n; i++) dst[i] = (double)src[i];
}

/* Returns sum src[i]^2 in eight parts; with store (a constant at every call, so the test
 * leaves the loop once inlined) also dst = src rounded to float. */
static inline __attribute__((always_inline)) double k_sumsq(float *dst, const double *src,
                                                            size_t n, int store)
{
    double acc[VEC_BLOCK] = {0.0};
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) {
            double v = src[i + j];
            if (store) dst[i + j] = (float)v;
            acc[j] += v * v;
        }
    for (size_t j = 0; i < n; i++, j++) {
        double v = src[i];
        if (store) dst[i] = (float)v;
        acc[j] += v * v;
    }
    double s = 0.0;
    for (size_t j = 0; j < VEC_BLOCK; j++) s += acc[j];
    return s;
}

static inline __attribute__((always_inline)) double k_dot_float(const float *x,
                                                                const float *y, size_t n)
{
    double acc[VEC_BLOCK] = {0.0};
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) acc[j] += (double)x[i + j] * (double)y[i + j];
    for (size_t j = 0; i < n; i++, j++) acc[j] += (double)x[i] * (double)y[i];
    double s = 0.0;
    for (size_t j = 0; j < VEC_BLOCK; j++) s += acc[j];
    return s;
}

static inline __attribute__((always_inline)) double k_dot8(const double *x, const double *y,
                                                           size_t n)
{
    double acc[VEC_BLOCK] = {0.0};
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) acc[j] += x[i + j] * y[i + j];
    for (size_t j = 0; i < n; i++, j++) acc[j] += x[i] * y[i];
    double s = 0.0;
    for (size_t j = 0; j < VEC_BLOCK; j++) s += acc[j];
    return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define VEC_AVX2 __attribute__((target("avx2")))
static VEC_AVX2 double dot8_avx2(const double *x, const double *y, size_t n)
{
    return k_dot8(x, y, n);
}
static VEC_AVX2 void to_float_avx2(float *d, const double *s, size_t n) { k_to_float(d, s, n); }
static VEC_AVX2 void to_float_scaled_avx2(float *d, const double *s, double a, size_t n)
{
    k_to_float_scaled(d, s, a, n);
}
static VEC_AVX2 void add_float_avx2(double *d, const float *s, size_t n) { k_add_float(d, s, n); }
static VEC_AVX2 void to_double_avx2(double *d, const float *s, size_t n) { k_to_double(d, s, n); }
static VEC_AVX2 double to_float_sumsq_avx2(float *d, const double *s, size_t n)
{
    return k_sumsq(d, s, n, 1);
}
static VEC_AVX2 double sumsq_avx2(const double *s, size_t n) { return k_sumsq(NULL, s, n, 0); }
static VEC_AVX2 double dot_float_avx2(const float *x, const float *y, size_t n)
{
    return k_dot_float(x, y, n);
}

static int have_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#define VEC_DISPATCH(call_avx2, call_base) \
    do {                                   \
        if (have_avx2()) call_avx2;        \
        else call_base;                    \
    } while (0)
#else
#define VEC_DISPATCH(call_avx2, call_base) \
    do {                                   \
        call_base;                         \
    } while (0)
#endif

void dp_to_float(float *dst, const double *src, size_t n)
{
    VEC_DISPATCH(to_float_avx2(dst, src, n), k_to_float(dst, src, n));
}

void dp_to_float_scaled(float *dst, const double *src, double a, size_t n)
{
    VEC_DISPATCH(to_float_scaled_avx2(dst, src, a, n), k_to_float_scaled(dst, src, a, n));
}

void dp_add_float(double *dst, const float *src, size_t n)
{
    VEC_DISPATCH(add_float_avx2(dst, src, n), k_add_float(dst, src, n));
}

void dp_to_double(double *dst, const float *src, size_t n)
{
    VEC_DISPATCH(to_double_avx2(dst, src, n), k_to_double(dst, src, n));
}

double dp_to_float_sumsq(float *dst, const double *src, size_t n)
{
    double s;
    VEC_DISPATCH(s = to_float_sumsq_avx2(dst, src, n), s = k_sumsq(dst, src, n, 1));
    return s;
}

double dp_sumsq(const double *x, size_t n)
{
    double s;
    VEC_DISPATCH(s = sumsq_avx2(x, n), s = k_sumsq(NULL, x, n, 0));
    return s;
}

double dp_dot_float(const float *x, const float *y, size_t n)
{
    double s;
    VEC_DISPATCH(s = dot_float_avx2(x, y, n), s = k_dot_float(x, y, n));
    return s;
}

double dp_dot8(const double *x, const double *y, size_t n)
{
    double s;
    VEC_DISPATCH(s = dot8_avx2(x, y, n), s = k_dot8(x, y, n));
    return s;
}

int dp_all_finite(const double *x, size_t n)
{
    /* isfinite relies on IEEE semantics: one more reason the build never uses
     * -ffast-math, under which compilers may fold this check to "true". */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

const char *dp_blas_corename(void)
{
    const char *s = openblas_get_corename();
    return s ? s : "unknown";
}

const char *dp_blas_config(void)
{
    const char *s = openblas_get_config();
    return s ? s : "unknown";
}

void dp_blas_set_threads(int n)
{
    openblas_set_num_threads(n < 1 ? 1 : n);
}

int dp_blas_threads(void)
{
    int n = openblas_get_num_threads();
    return n < 1 ? 1 : n;
}
