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
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

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

void dp_gemv_t(double *y, const double *A, size_t m, size_t n, size_t lda, const double *x)
{
    if (m == 0 || n == 0) return;
    cblas_dgemv(CblasRowMajor, CblasTrans, (blasint)m, (blasint)n, 1.0, A, (blasint)lda, x, 1,
                1.0, y, 1);
}

// ---- GEMM on dperm's threads ------------------------------------------------------------

/* Why dperm splits its GEMMs itself. OpenBLAS on several threads does not give the bits it
 * gives on one: measured on this project's machines (OpenBLAS 0.3.21), a 256 x 512 x 784
 * dgemm on SkylakeX kernels and a 10 x 784 x 1024 one on Haswell kernels differ in the last
 * bits between one and two threads (the threads' shares reach kernels that handle their
 * edges differently). Records would then depend on -j and on how many runs a sweep had
 * left. So the BLAS always runs one thread, and a large product is cut here into blocks
 * that depend on its shape alone; threads take whole blocks, so every element is the same
 * BLAS call on the same block whichever thread, and however many, computes it. */

static int dp_thread_budget = 1;
static _Thread_local int gemm_unsplit;

int dp_gemm_unsplit(int on)
{
    int was = gemm_unsplit;
    gemm_unsplit = on;
    return was;
}

void dp_set_threads(int n)
{
    dp_thread_budget = n < 1 ? 1 : n;
    openblas_set_num_threads(1);
}

int dp_threads(void)
{
    return dp_thread_budget;
}

/* Multiply-adds below which a product is one BLAS call: 2^23 take about 0.3 ms on one
 * core of this project's machines, ten times what starting a thread costs. */
#define GEMM_SPLIT_MIN ((double)(1 << 23))
/* C is cut into GEMM_PARTS blocks of rows (or columns), or fewer, each a multiple of
 * GEMM_ALIGN long (a multiple of every kernel's register tile, so the blocks' edges are
 * the product's own). Fewer, longer blocks reuse each packed panel more: a 1024^3 product
 * on two threads of this project's Xeon ran at 213 / 195 / 179 / 162 GFLOP/s (sgemm) with
 * 2 / 4 / 8 / 16 parts, OpenBLAS's own threads at about 210. Four parts cost 9% there and
 * still feed four threads. */
#define GEMM_PARTS 4
#define GEMM_ALIGN 64

typedef struct gemm_job {
    int single, ta, tb, by_rows;
    size_t m, n, k, lda, ldb, ldc;
    size_t block, blocks; /* rows (columns) of C per block; how many */
    double alpha, beta;
    const void *A, *B;
    void *C;
    atomic_size_t next;
} gemm_job;

static void gemm_call(const gemm_job *g, size_t m, size_t n, const void *A, const void *B,
                      void *C)
{
    enum CBLAS_TRANSPOSE ta = g->ta ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE tb = g->tb ? CblasTrans : CblasNoTrans;
    if (g->single)
        cblas_sgemm(CblasRowMajor, ta, tb, (blasint)m, (blasint)n, (blasint)g->k,
                    (float)g->alpha, A, (blasint)g->lda, B, (blasint)g->ldb, (float)g->beta,
                    C, (blasint)g->ldc);
    else
        cblas_dgemm(CblasRowMajor, ta, tb, (blasint)m, (blasint)n, (blasint)g->k, g->alpha,
                    A, (blasint)g->lda, B, (blasint)g->ldb, g->beta, C, (blasint)g->ldc);
}

/* Block b of the product: C's rows (by_rows) or columns [b * block, ...). */
static void gemm_block(const gemm_job *g, size_t b)
{
    size_t es = g->single ? sizeof(float) : sizeof(double);
    size_t lo = b * g->block, dim = g->by_rows ? g->m : g->n;
    size_t len = dim - lo < g->block ? dim - lo : g->block;
    const char *A = g->A, *B = g->B;
    char *C = g->C;
    if (g->by_rows) /* op(A)'s rows lo..: A's rows, or A's columns when transposed */
        gemm_call(g, len, g->n, A + (g->ta ? lo : lo * g->lda) * es, B, C + lo * g->ldc * es);
    else            /* op(B)'s columns lo..: B's columns, or B's rows when transposed */
        gemm_call(g, g->m, len, A, B + (g->tb ? lo * g->ldb : lo) * es, C + lo * es);
}

static void *gemm_worker(void *arg)
{
    gemm_job *g = arg;
    for (size_t b; (b = atomic_fetch_add(&g->next, 1)) < g->blocks;) gemm_block(g, b);
    return NULL;
}

static void gemm(gemm_job *g)
{
    if (gemm_unsplit || (double)g->m * (double)g->n * (double)g->k < GEMM_SPLIT_MIN) {
        gemm_call(g, g->m, g->n, g->A, g->B, g->C);
        return;
    }
    g->by_rows = g->m >= g->n;
    size_t dim = g->by_rows ? g->m : g->n, part = (dim + GEMM_PARTS - 1) / GEMM_PARTS;
    g->block = (part + GEMM_ALIGN - 1) / GEMM_ALIGN * GEMM_ALIGN;
    g->blocks = (dim + g->block - 1) / g->block;
    atomic_init(&g->next, 0);
    size_t T = (size_t)dp_thread_budget;
    if (T > g->blocks) T = g->blocks; /* <= GEMM_PARTS */
    pthread_t tid[GEMM_PARTS];
    int started[GEMM_PARTS] = {0};
    for (size_t t = 1; t < T; t++) started[t] = pthread_create(&tid[t], NULL, gemm_worker, g) == 0;
    gemm_worker(g); /* a thread that did not start leaves its blocks to this one */
    for (size_t t = 1; t < T; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}

/* C = beta C for the degenerate products (k = 0 or alpha = 0), with beta = 0 meaning
 * "overwrite" (BLAS semantics: C is not read, so NaN garbage in C does not survive). */
#define SCALE_ONLY(T, m, n, beta, C, ldc)                                                   \
    for (size_t i = 0; i < (m); i++) {                                                     \
        T *c = (C) + i * (ldc);                                                            \
        if ((beta) == 0)                                                                   \
            for (size_t j = 0; j < (n); j++) c[j] = 0;                                     \
        else if ((beta) != 1)                                                              \
            for (size_t j = 0; j < (n); j++) c[j] *= (beta);                               \
    }

void dp_gemm(int transa, int transb, size_t m, size_t n, size_t k, double alpha,
             const double *A, size_t lda, const double *B, size_t ldb, double beta,
             double *C, size_t ldc)
{
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == 0.0) {
        SCALE_ONLY(double, m, n, beta, C, ldc);
        return;
    }
    gemm_job g = {.single = 0, .ta = transa, .tb = transb, .m = m, .n = n, .k = k,
                  .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha, .beta = beta,
                  .A = A, .B = B, .C = C};
    gemm(&g);
}

void dp_sgemm(int transa, int transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
              size_t ldc)
{
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == 0.0f) {
        SCALE_ONLY(float, m, n, beta, C, ldc);
        return;
    }
    /* float alpha and beta are exact in double and back */
    gemm_job g = {.single = 1, .ta = transa, .tb = transb, .m = m, .n = n, .k = k,
                  .lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha, .beta = beta,
                  .A = A, .B = B, .C = C};
    gemm(&g);
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

static inline __attribute__((always_inline)) void k_to_float_scaled(float *restrict dst,
                                                                    double *restrict sum,
                                                                    const double *restrict src,
                                                                    double a, size_t n,
                                                                    int has_sum)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) {
            double p = a * src[i + j];
            dst[i + j] = (float)p;
            if (has_sum) sum[i + j] += p;
        }
    for (; i < n; i++) {
        double p = a * src[i];
        dst[i] = (float)p;
        if (has_sum) sum[i] += p;
    }
}

static inline __attribute__((always_inline)) void k_add_float(double *dst, const float *src,
                                                              size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] += (double)src[i + j];
    for (; i < n; i++) dst[i] += (double)src[i];
}

/* dst = b + src: a float product's result plus the bias, in double. */
static inline __attribute__((always_inline)) void k_plus_float(double *restrict dst,
                                                               const double *restrict b,
                                                               const float *src, size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] = b[i + j] + (double)src[i + j];
    for (; i < n; i++) dst[i] = b[i] + (double)src[i];
}

/* dst += a * src, the product rounded before the sum (no fused multiply-add). */
static inline __attribute__((always_inline)) void k_add_scaled(double *restrict dst, double a,
                                                               const double *restrict src,
                                                               size_t n)
{
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) dst[i + j] += a * src[i + j];
    for (; i < n; i++) dst[i] += a * src[i];
}

/* dst = v where keep > 0, else +0.0 (ReLU: keep = v; its derivative: keep = the output).
 * A select, not a branch: on random-signed data a branch mispredicts on half the
 * elements. dst may be v or keep, so the compiler does not vectorize this body; the AVX2
 * path below does the same select with a compare mask. */
static inline __attribute__((always_inline)) void k_keep_positive(double *dst,
                                                                  const double *keep,
                                                                  const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, v + i, sizeof bits);
        bits &= (uint64_t)0 - (uint64_t)(keep[i] > 0.0);
        memcpy(dst + i, &bits, sizeof bits);
    }
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

/* v where cond, else +0.0, by a mask on the bits (no branch on the data: see
 * k_keep_positive). */
static inline __attribute__((always_inline)) double keep_if(int cond, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits &= (uint64_t)0 - (uint64_t)cond;
    memcpy(&v, &bits, sizeof bits);
    return v;
}

static inline __attribute__((always_inline)) double positive_or_zero(double v)
{
    return keep_if(v > 0.0, v);
}

/* k_plus_float, then k_keep_positive in place, then k_sumsq with store, per element in
 * one pass: the ReLU as a select (v > 0 ? v : +0.0 is keep_positive's mask: NaN and -0.0
 * give +0.0) and the squares summed in k_sumsq's eight parts in its order. */
static inline __attribute__((always_inline)) double k_plus_relu_sumsq(
    double *restrict dst, float *restrict af, const double *restrict b,
    const float *restrict src, size_t n)
{
    double acc[VEC_BLOCK] = {0.0};
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) {
            double v = positive_or_zero(b[i + j] + (double)src[i + j]);
            dst[i + j] = v;
            af[i + j] = (float)v;
            acc[j] += v * v;
        }
    for (size_t j = 0; i < n; i++, j++) {
        double v = positive_or_zero(b[i] + (double)src[i]);
        dst[i] = v;
        af[i] = (float)v;
        acc[j] += v * v;
    }
    double s = 0.0;
    for (size_t j = 0; j < VEC_BLOCK; j++) s += acc[j];
    return s;
}

/* k_to_double, k_keep_positive in place, then k_sumsq, per element in one pass (the
 * select keeps src's own bits, -0.0 and NaN included, where keep > 0). */
static inline __attribute__((always_inline)) double k_relu_grad_sumsq(
    double *restrict dst, const double *restrict keep, const float *restrict src, size_t n)
{
    double acc[VEC_BLOCK] = {0.0};
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) {
            double v = keep_if(keep[i + j] > 0.0, (double)src[i + j]);
            dst[i + j] = v;
            acc[j] += v * v;
        }
    for (size_t j = 0; i < n; i++, j++) {
        double v = keep_if(keep[i] > 0.0, (double)src[i]);
        dst[i] = v;
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

/* The plain step's update of parameter k (dp_sgd_update, dp_sgd_update_to), with the sum
 * of the new weight times zero into nz: +-0 while every new weight is finite, NaN from the
 * first that is not. */
#define SGD_UPDATE_ONE(k, nz)                                 \
    do {                                                      \
        double s_ = has_z ? (has_d ? d[k] : 0.0) + z[k] : d[k]; \
        if (has_gf) {                                         \
            s_ += (double)gf[k];                              \
            gf[k] = 0.0f;                                     \
        }                                                     \
        double w_ = w[k], u_ = s_ / b + mu * w_, n_ = w_ - eta * u_; \
        if (has_d) d[k] = 0.0;                                \
        if (to) {                                             \
            w_new[k] = n_;                                    \
        } else {                                              \
            w_prev[k] = w_;                                   \
            w[k] = n_;                                        \
        }                                                     \
        if (has_wf) wf[k] = (float)n_;                        \
        nz += 0.0 * n_;                                       \
    } while (0)

static inline __attribute__((always_inline)) int k_sgd_update(
    double *restrict w, double *restrict w_prev, double *restrict w_new, double *restrict d,
    const double *restrict z, float *restrict gf, float *restrict wf, double b, double mu,
    double eta, size_t n, int has_gf, int has_wf, int to, int has_d, int has_z)
{
    double nz[VEC_BLOCK] = {0.0};
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK)
        for (size_t j = 0; j < VEC_BLOCK; j++) SGD_UPDATE_ONE(i + j, nz[j]);
    for (size_t j = 0; i < n; i++, j++) SGD_UPDATE_ONE(i, nz[j]);
    double t = 0.0;
    for (size_t j = 0; j < VEC_BLOCK; j++) t += nz[j];
    return t != t;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VEC_AVX2 __attribute__((target("avx2")))
static VEC_AVX2 double dot8_avx2(const double *x, const double *y, size_t n)
{
    return k_dot8(x, y, n);
}
static VEC_AVX2 void to_float_avx2(float *d, const double *s, size_t n) { k_to_float(d, s, n); }
static VEC_AVX2 void to_float_scaled_avx2(float *d, const double *s, double a, size_t n)
{
    k_to_float_scaled(d, NULL, s, a, n, 0);
}
static VEC_AVX2 void to_float_scaled_sum_avx2(float *d, double *sum, const double *s, double a,
                                              size_t n)
{
    k_to_float_scaled(d, sum, s, a, n, 1);
}
static VEC_AVX2 void add_float_avx2(double *d, const float *s, size_t n) { k_add_float(d, s, n); }
static VEC_AVX2 void to_double_avx2(double *d, const float *s, size_t n) { k_to_double(d, s, n); }
static VEC_AVX2 void plus_float_avx2(double *d, const double *b, const float *s, size_t n)
{
    k_plus_float(d, b, s, n);
}
static VEC_AVX2 void add_scaled_avx2(double *d, double a, const double *s, size_t n)
{
    k_add_scaled(d, a, s, n);
}
static VEC_AVX2 void keep_positive_avx2(double *d, const double *k, const double *v, size_t n)
{
    size_t i = 0;
    const __m256d zero = _mm256_setzero_pd();
    for (; i + 4 <= n; i += 4) { /* both loads before the store: d may alias k or v */
        __m256d mask = _mm256_cmp_pd(_mm256_loadu_pd(k + i), zero, _CMP_GT_OQ);
        _mm256_storeu_pd(d + i, _mm256_and_pd(mask, _mm256_loadu_pd(v + i)));
    }
    k_keep_positive(d + i, k + i, v + i, n - i);
}
static VEC_AVX2 double to_float_sumsq_avx2(float *d, const double *s, size_t n)
{
    return k_sumsq(d, s, n, 1);
}
static VEC_AVX2 double sumsq_avx2(const double *s, size_t n) { return k_sumsq(NULL, s, n, 0); }
/* The fused ReLU kernels by hand: with the select the compiler keeps a branch per element,
 * which on random signs mispredicts half the time (it made them slower than the passes they
 * replace). Here the select is a compare mask, and the squares go into the eight parts of
 * k_sumsq as two registers of four (lanes 0-3 and 4-7), then its tail and its sum in
 * order: the same operations, the same bits. */
static VEC_AVX2 double sum_parts(__m256d lo, __m256d hi, const double *v, size_t n)
{
    double acc[VEC_BLOCK];
    _mm256_storeu_pd(acc, lo);
    _mm256_storeu_pd(acc + 4, hi);
    for (size_t j = 0; j < n; j++) acc[j] += v[j] * v[j];
    double s = 0.0;
    for (size_t j = 0; j < VEC_BLOCK; j++) s += acc[j];
    return s;
}
static VEC_AVX2 double relu_grad_sumsq_avx2(double *d, const double *k, const float *s,
                                            size_t n)
{
    const __m256d zero = _mm256_setzero_pd();
    __m256d lo = zero, hi = zero;
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK) {
        __m256d a = _mm256_and_pd(_mm256_cmp_pd(_mm256_loadu_pd(k + i), zero, _CMP_GT_OQ),
                                  _mm256_cvtps_pd(_mm_loadu_ps(s + i)));
        __m256d b = _mm256_and_pd(_mm256_cmp_pd(_mm256_loadu_pd(k + i + 4), zero, _CMP_GT_OQ),
                                  _mm256_cvtps_pd(_mm_loadu_ps(s + i + 4)));
        _mm256_storeu_pd(d + i, a);
        _mm256_storeu_pd(d + i + 4, b);
        lo = _mm256_add_pd(lo, _mm256_mul_pd(a, a));
        hi = _mm256_add_pd(hi, _mm256_mul_pd(b, b));
    }
    for (size_t j = i; j < n; j++) d[j] = keep_if(k[j] > 0.0, (double)s[j]);
    return sum_parts(lo, hi, d + i, n - i);
}
static VEC_AVX2 double plus_relu_sumsq_avx2(double *d, float *af, const double *b,
                                            const float *s, size_t n)
{
    const __m256d zero = _mm256_setzero_pd();
    __m256d lo = zero, hi = zero;
    size_t i = 0;
    for (; i + VEC_BLOCK <= n; i += VEC_BLOCK) {
        __m256d x = _mm256_add_pd(_mm256_loadu_pd(b + i), _mm256_cvtps_pd(_mm_loadu_ps(s + i)));
        __m256d y = _mm256_add_pd(_mm256_loadu_pd(b + i + 4),
                                  _mm256_cvtps_pd(_mm_loadu_ps(s + i + 4)));
        x = _mm256_and_pd(_mm256_cmp_pd(x, zero, _CMP_GT_OQ), x);
        y = _mm256_and_pd(_mm256_cmp_pd(y, zero, _CMP_GT_OQ), y);
        _mm256_storeu_pd(d + i, x);
        _mm256_storeu_pd(d + i + 4, y);
        _mm_storeu_ps(af + i, _mm256_cvtpd_ps(x));
        _mm_storeu_ps(af + i + 4, _mm256_cvtpd_ps(y));
        lo = _mm256_add_pd(lo, _mm256_mul_pd(x, x));
        hi = _mm256_add_pd(hi, _mm256_mul_pd(y, y));
    }
    for (size_t j = i; j < n; j++) {
        d[j] = positive_or_zero(b[j] + (double)s[j]);
        af[j] = (float)d[j];
    }
    return sum_parts(lo, hi, d + i, n - i);
}
static VEC_AVX2 double dot_float_avx2(const float *x, const float *y, size_t n)
{
    return k_dot_float(x, y, n);
}

/* The in-place instances, one per combination of the flags, each compiled for AVX2 (the
 * ones into another buffer are below). */
#define SGD_UPDATE_AVX2(name, g, f)                                                         \
    static VEC_AVX2 int name(double *w, double *w_prev, double *w_new, double *d, float *gf, \
                             float *wf, double b, double mu, double eta, size_t n)           \
    {                                                                                        \
        return k_sgd_update(w, w_prev, w_new, d, NULL, gf, wf, b, mu, eta, n, g, f, 0, 1, 0); \
    }
SGD_UPDATE_AVX2(sgd_update_avx2, 0, 0)
SGD_UPDATE_AVX2(sgd_update_gf_avx2, 1, 0)
SGD_UPDATE_AVX2(sgd_update_wf_avx2, 0, 1)
SGD_UPDATE_AVX2(sgd_update_gf_wf_avx2, 1, 1)

/* The update into another buffer (dp_sgd_update_to) with AVX2 intrinsics: the operations
 * of SGD_UPDATE_ONE on four parameters at a time (the same bits: no fused operations),
 * the new weights written with non-temporal stores. Why: they are read again only by the
 * next step's update (the forward pass reads their float copy), so loading their lines
 * into the cache before writing them, as an ordinary store does, only doubled the
 * traffic; streamed, the DP-SGD step of mlp_784_512_128_10 took 0.96-0.97 of its time
 * (in one process against the version before, alternating). The fence orders the
 * streamed stores before whatever the caller does next. */
static inline __attribute__((always_inline)) VEC_AVX2 int k_sgd_update_to_avx2(
    const double *restrict w, double *restrict w_new, double *restrict d,
    const double *restrict z, float *restrict gf, float *restrict wf, double b, double mu,
    double eta, size_t n, int has_gf, int has_wf, int has_d, int has_z)
{
    /* the scalar loop up to the first 32-byte boundary of w_new, and for the tail */
    size_t head = (size_t)(-(uintptr_t)w_new & 31) / sizeof *w_new, i;
    if (head > n) head = n;
    int bad = k_sgd_update((double *)w, NULL, w_new, d, z, gf, wf, b, mu, eta, head, has_gf,
                           has_wf, 1, has_d, has_z);
    const __m256d vb = _mm256_set1_pd(b), vmu = _mm256_set1_pd(mu), veta = _mm256_set1_pd(eta);
    const __m256d zero = _mm256_setzero_pd();
    __m256d nz = zero;
    for (i = head; i + 4 <= n; i += 4) {
        __m256d s = has_d ? _mm256_loadu_pd(d + i) : zero;
        if (has_z) s = _mm256_add_pd(s, _mm256_loadu_pd(z + i));
        if (has_gf) {
            s = _mm256_add_pd(s, _mm256_cvtps_pd(_mm_loadu_ps(gf + i)));
            _mm_storeu_ps(gf + i, _mm_setzero_ps());
        }
        __m256d wv = _mm256_loadu_pd(w + i);
        __m256d u = _mm256_add_pd(_mm256_div_pd(s, vb), _mm256_mul_pd(vmu, wv));
        __m256d nv = _mm256_sub_pd(wv, _mm256_mul_pd(veta, u));
        if (has_d) _mm256_storeu_pd(d + i, zero);
        _mm256_stream_pd(w_new + i, nv);
        if (has_wf) _mm_storeu_ps(wf + i, _mm256_cvtpd_ps(nv));
        nz = _mm256_add_pd(nz, _mm256_mul_pd(zero, nv));
    }
    _mm_sfence();
    double t[4];
    _mm256_storeu_pd(t, nz);
    double sum = (t[0] + t[1]) + (t[2] + t[3]);
    bad |= sum != sum;
    return bad | k_sgd_update((double *)w + i, NULL, w_new + i, has_d ? d + i : d,
                              has_z ? z + i : z, has_gf ? gf + i : gf, has_wf ? wf + i : wf,
                              b, mu, eta, n - i, has_gf, has_wf, 1, has_d, has_z);
}

/* Instances: the sum in d (dp_sgd_update_to); the noise in z and the sum in d, or
 * without d the sum +0.0 (dp_sgd_update_noised). */
#define SGD_UPDATE_TO_AVX2(name, g, f, hd, hz)                                              \
    static VEC_AVX2 int name(const double *w, double *w_new, double *d, const double *z,     \
                             float *gf, float *wf, double b, double mu, double eta, size_t n) \
    {                                                                                        \
        return k_sgd_update_to_avx2(w, w_new, d, z, gf, wf, b, mu, eta, n, g, f, hd, hz);    \
    }
SGD_UPDATE_TO_AVX2(sgd_update_to_avx2, 0, 0, 1, 0)
SGD_UPDATE_TO_AVX2(sgd_update_gf_to_avx2, 1, 0, 1, 0)
SGD_UPDATE_TO_AVX2(sgd_update_wf_to_avx2, 0, 1, 1, 0)
SGD_UPDATE_TO_AVX2(sgd_update_gf_wf_to_avx2, 1, 1, 1, 0)
SGD_UPDATE_TO_AVX2(sgd_noised_avx2, 0, 0, 0, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_gf_avx2, 1, 0, 0, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_wf_avx2, 0, 1, 0, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_gf_wf_avx2, 1, 1, 0, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_d_avx2, 0, 0, 1, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_d_gf_avx2, 1, 0, 1, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_d_wf_avx2, 0, 1, 1, 1)
SGD_UPDATE_TO_AVX2(sgd_noised_d_gf_wf_avx2, 1, 1, 1, 1)

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

void dp_to_float_scaled(float *dst, double *sum, const double *src, double a, size_t n)
{
    if (sum)
        VEC_DISPATCH(to_float_scaled_sum_avx2(dst, sum, src, a, n),
                     k_to_float_scaled(dst, sum, src, a, n, 1));
    else
        VEC_DISPATCH(to_float_scaled_avx2(dst, src, a, n),
                     k_to_float_scaled(dst, NULL, src, a, n, 0));
}

void dp_add_float(double *dst, const float *src, size_t n)
{
    VEC_DISPATCH(add_float_avx2(dst, src, n), k_add_float(dst, src, n));
}

void dp_to_double(double *dst, const float *src, size_t n)
{
    VEC_DISPATCH(to_double_avx2(dst, src, n), k_to_double(dst, src, n));
}

void dp_plus_float(double *dst, const double *b, const float *src, size_t n)
{
    VEC_DISPATCH(plus_float_avx2(dst, b, src, n), k_plus_float(dst, b, src, n));
}

void dp_add_scaled(double *dst, double a, const double *src, size_t n)
{
    VEC_DISPATCH(add_scaled_avx2(dst, a, src, n), k_add_scaled(dst, a, src, n));
}

void dp_keep_positive(double *dst, const double *keep, const double *v, size_t n)
{
    VEC_DISPATCH(keep_positive_avx2(dst, keep, v, n), k_keep_positive(dst, keep, v, n));
}

double dp_plus_relu_to_float_sumsq(double *dst, float *af, const double *b, const float *src,
                                   size_t n)
{
    double s;
    VEC_DISPATCH(s = plus_relu_sumsq_avx2(dst, af, b, src, n),
                 s = k_plus_relu_sumsq(dst, af, b, src, n));
    return s;
}

double dp_relu_grad_sumsq(double *dst, const double *keep, const float *src, size_t n)
{
    double s;
    VEC_DISPATCH(s = relu_grad_sumsq_avx2(dst, keep, src, n),
                 s = k_relu_grad_sumsq(dst, keep, src, n));
    return s;
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

/* The AVX2 instance of the flags where the CPU has AVX2, else the portable loop. */
#if defined(__x86_64__) && defined(__GNUC__)
#define SGD_CALL(name, g, f, t)                                                              \
    (have_avx2() ? name(w, w_prev, w_new, d, gf, wf, b, mu, eta, n)                          \
                 : k_sgd_update(w, w_prev, w_new, d, NULL, gf, wf, b, mu, eta, n, g, f, t, 1, 0))
#define SGD_TO_CALL(name, g, f, hd, hz)                                                      \
    (have_avx2() ? name(w, w_new, d, z, gf, wf, b, mu, eta, n)                               \
                 : k_sgd_update((double *)w, NULL, w_new, d, z, gf, wf, b, mu, eta, n, g, f, 1, \
                                hd, hz))
#else
#define SGD_CALL(name, g, f, t)                                                              \
    k_sgd_update(w, w_prev, w_new, d, NULL, gf, wf, b, mu, eta, n, g, f, t, 1, 0)
#define SGD_TO_CALL(name, g, f, hd, hz)                                                      \
    k_sgd_update((double *)w, NULL, w_new, d, z, gf, wf, b, mu, eta, n, g, f, 1, hd, hz)
#endif

int dp_sgd_update(double *w, double *w_prev, double *d, float *gf, float *wf, double b,
                  double mu, double eta, size_t n)
{
    double *w_new = NULL;
    switch ((gf != NULL) | (wf != NULL) << 1) {
    case 0: return SGD_CALL(sgd_update_avx2, 0, 0, 0);
    case 1: return SGD_CALL(sgd_update_gf_avx2, 1, 0, 0);
    case 2: return SGD_CALL(sgd_update_wf_avx2, 0, 1, 0);
    default: return SGD_CALL(sgd_update_gf_wf_avx2, 1, 1, 0);
    }
}

int dp_sgd_update_to(double *w_new, const double *w, double *d, float *gf, float *wf,
                     double b, double mu, double eta, size_t n)
{
    const double *z = NULL;
    switch ((gf != NULL) | (wf != NULL) << 1) {
    case 0: return SGD_TO_CALL(sgd_update_to_avx2, 0, 0, 1, 0);
    case 1: return SGD_TO_CALL(sgd_update_gf_to_avx2, 1, 0, 1, 0);
    case 2: return SGD_TO_CALL(sgd_update_wf_to_avx2, 0, 1, 1, 0);
    default: return SGD_TO_CALL(sgd_update_gf_wf_to_avx2, 1, 1, 1, 0);
    }
}

int dp_sgd_update_noised(double *w_new, const double *w, double *d, const double *z,
                         float *gf, float *wf, double b, double mu, double eta, size_t n)
{
    switch ((gf != NULL) | (wf != NULL) << 1 | (d != NULL) << 2) {
    case 0: return SGD_TO_CALL(sgd_noised_avx2, 0, 0, 0, 1);
    case 1: return SGD_TO_CALL(sgd_noised_gf_avx2, 1, 0, 0, 1);
    case 2: return SGD_TO_CALL(sgd_noised_wf_avx2, 0, 1, 0, 1);
    case 3: return SGD_TO_CALL(sgd_noised_gf_wf_avx2, 1, 1, 0, 1);
    case 4: return SGD_TO_CALL(sgd_noised_d_avx2, 0, 0, 1, 1);
    case 5: return SGD_TO_CALL(sgd_noised_d_gf_avx2, 1, 0, 1, 1);
    case 6: return SGD_TO_CALL(sgd_noised_d_wf_avx2, 0, 1, 1, 1);
    default: return SGD_TO_CALL(sgd_noised_d_gf_wf_avx2, 1, 1, 1, 1);
    }
}

/* One piece [a, e) of dp_sgd_update_noised_ranges: z holds [lo, ...). */
static int noised_piece(double *w_new, const double *w, double *d, const double *z, float *gf,
                        float *wf, double b, double mu, double eta, size_t lo, size_t a,
                        size_t e, int with_d)
{
    return dp_sgd_update_noised(w_new + a, w + a, with_d ? d + a : NULL, z + (a - lo),
                                gf ? gf + a : NULL, wf ? wf + a : NULL, b, mu, eta, e - a);
}

int dp_sgd_update_noised_ranges(double *w_new, const double *w, double *d, const double *z,
                                float *gf, float *wf, double b, double mu, double eta,
                                size_t lo, size_t hi, const size_t *zero, size_t n_zero)
{
    int bad = 0;
    size_t a = lo;
    for (size_t k = 0; k < n_zero && a < hi; k++) {
        size_t zlo = zero[2 * k], zhi = zero[2 * k + 1];
        if (zhi <= a) continue;
        if (zlo >= hi) break;
        if (zlo > a) bad |= noised_piece(w_new, w, d, z, gf, wf, b, mu, eta, lo, a, zlo, 1);
        size_t e = zhi < hi ? zhi : hi;
        a = zlo > a ? zlo : a;
        bad |= noised_piece(w_new, w, d, z, gf, wf, b, mu, eta, lo, a, e, 0);
        a = e;
    }
    if (a < hi) bad |= noised_piece(w_new, w, d, z, gf, wf, b, mu, eta, lo, a, hi, 1);
    return bad;
}
