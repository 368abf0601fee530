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
#include "vec.h"

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
    cblas_sgemm(CblasRowMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n, (blasint)k, alpha,
                A, (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
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
