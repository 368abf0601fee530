/* vec.h: the BLAS wrapper, the only place that includes cblas.h, plus small vector helpers.
 *
 * Row-major throughout. No function here allocates or fails.
 * Leaf header: includes nothing else of the project.
 */
#ifndef DPERM_VEC_H
#define DPERM_VEC_H

#include <stddef.h>

double dp_dot(const double *x, const double *y, size_t n);
double dp_nrm2(const double *x, size_t n);
/* y += a * x */
void dp_axpy(double *y, double a, const double *x, size_t n);
/* x *= a */
void dp_scal(double *x, double a, size_t n);

/* C (m,n) = alpha * op(A) op(B) + beta * C, row-major; transa/transb are 0 or 1.
 * op(A) is (m,k), op(B) is (k,n). A large product runs on dp_threads() threads, with the
 * same bits on any number of them. */
void dp_gemm(int transa, int transb, size_t m, size_t n, size_t k, double alpha,
             const double *A, size_t lda, const double *B, size_t ldb, double beta,
             double *C, size_t ldc);

/* y (n) += A^T x for A (m,n) row-major with leading dimension lda, x (m): a weighted sum
 * of A's rows, read once (a GEMM with one row would first copy A into packed panels). */
void dp_gemv_t(double *y, const double *A, size_t m, size_t n, size_t lda, const double *x);

/* The same in single precision: the float products of the dense and conv layers (and
 * `dperm bench`'s sgemm ceiling). k = 0 or alpha = 0 gives C = beta C, as dp_gemm. */
void dp_sgemm(int transa, int transb, size_t m, size_t n, size_t k, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
              size_t ldc);

/* Single precision behind a double interface (the float layers: models/dense.c,
 * models/conv.c). Each result is the same bits on every x86-64 CPU: the AVX2 path the
 * CPU may take runs the same operations in the same order as the plain one (sums in
 * eight running parts, i mod 8, added in order at the end; no fused multiply-add). */

/* dst (n) = src rounded to float. */
void dp_to_float(float *dst, const double *src, size_t n);
/* dst (n) = a * src rounded to float (the product in double) and, when sum (n) is not
 * NULL, sum += that product in double: dp_add_scaled's bits, in the same pass. */
void dp_to_float_scaled(float *dst, double *sum, const double *src, double a, size_t n);
/* dst (n) = src rounded to float; returns the sum of squares of src (in double). */
double dp_to_float_sumsq(float *dst, const double *src, size_t n);
/* dst (n) += src. */
void dp_add_float(double *dst, const float *src, size_t n);
/* dst (n) = src. */
void dp_to_double(double *dst, const float *src, size_t n);
/* dst (n) = b + src (a product's result plus a bias row). */
void dp_plus_float(double *dst, const double *b, const float *src, size_t n);
/* dst (n) += a * src, product then sum, as the loop writes it (BLAS daxpy may fuse them:
 * other bits). */
void dp_add_scaled(double *dst, double a, const double *src, size_t n);
/* dst (n) = keep > 0 ? v : +0.0, with no branch on the data (ReLU and its derivative);
 * dst may alias keep or v. */
void dp_keep_positive(double *dst, const double *keep, const double *v, size_t n);
/* dst (n) = v = max(b + src, +0.0) (NaN to +0.0), af (n) = v rounded to float; returns the
 * sum of v^2: dp_plus_float, dp_keep_positive in place and dp_to_float_sumsq in one pass,
 * the same bits. A dense layer, its ReLU and the next dense layer's input, fused. */
double dp_plus_relu_to_float_sumsq(double *dst, float *af, const double *b, const float *src,
                                   size_t n);
/* dst (n) = keep > 0 ? (double)src : +0.0; returns the sum of dst^2: dp_to_double,
 * dp_keep_positive in place and dp_sumsq in one pass, the same bits. A dense layer's
 * input errors through the ReLU before it, with their squared norm. */
double dp_relu_grad_sumsq(double *dst, const double *keep, const float *src, size_t n);
/* sum of x[i]^2 in double, summed as dp_to_float_sumsq does. */
double dp_sumsq(const double *x, size_t n);
/* sum of x[i] y[i] over floats, each product and the sum in double. */
double dp_dot_float(const float *x, const float *y, size_t n);
/* sum of x[i] y[i] in double, summed as dp_sumsq does: for short vectors, where a BLAS
 * call costs more than the products. */
double dp_dot8(const double *x, const double *y, size_t n);

/* The plain step's update of n parameters (train_step.c), for each j:
 *   s = d[j] + gf[j]  (gf may be NULL: s = d[j]; else gf[j] = 0 afterwards),
 *   w_prev[j] = w[j],  w[j] -= eta (s / b + mu w[j]),  d[j] = 0,
 *   wf[j] = the new w[j] rounded to float (wf may be NULL),
 * in that order of operations on every CPU (vector code where it has AVX2: the same
 * bits). Returns 1 if some new w[j] is not finite, else 0. The arrays do not overlap. */
int dp_sgd_update(double *w, double *w_prev, double *d, float *gf, float *wf, double b,
                  double mu, double eta, size_t n);
/* dp_sgd_update writing the new weights to w_new instead (w is read, not written, and no
 * w_prev is kept): the same new weights, wf, d and gf, bit for bit, and the same return.
 * For a caller that keeps two weight buffers and swaps them (train_step.c): the old
 * weights stay where they were, at no cost. w_new overlaps none of the others. */
int dp_sgd_update_to(double *w_new, const double *w, double *d, float *gf, float *wf,
                     double b, double mu, double eta, size_t n);

/* dp_sgd_update_to with the step's noise given apart, in z (n: the products sigma Z_j of
 * dp_rng_gaussian_chunks): the sum is d[j] + z[j] (the noised d[j] of the vector noise,
 * bit for bit), then gf[j] added as there; with d NULL the sum is +0.0 + z[j], what it is
 * when d[j] is +0.0, and d is neither read nor written. For a caller whose d is +0.0
 * wherever its model left the gradient in gf: those ranges skip d's reads and writes. */
int dp_sgd_update_noised(double *w_new, const double *w, double *d, const double *z,
                         float *gf, float *wf, double b, double mu, double eta, size_t n);

/* dp_sgd_update_noised over the parameters [lo, hi), z holding their noise (z[0] for lo),
 * without d inside the ranges [zero[2k], zero[2k+1]) (ascending, disjoint; n_zero of
 * them), where d must be +0.0, and with it elsewhere. Returns 1 if a new weight is not
 * finite, else 0. */
int dp_sgd_update_noised_ranges(double *w_new, const double *w, double *d, const double *z,
                                float *gf, float *wf, double b, double mu, double eta,
                                size_t lo, size_t hi, const size_t *zero, size_t n_zero);

/* 1 if every x[i] is finite, 0 otherwise (NaN/inf check at step boundaries). */
int dp_all_finite(const double *x, size_t n);

/* The BLAS kernel set in use (openblas_get_corename()) and configuration string. */
const char *dp_blas_corename(void);
const char *dp_blas_config(void);
/* dperm's thread budget in this process (1 until set): the threads that a large GEMM, a
 * model's lanes and a step's noise may use. The BLAS itself always runs one thread, so no
 * result depends on the budget (vec.c says why). */
void dp_set_threads(int n);
int dp_threads(void);
/* on = 1: every GEMM this thread makes is one single-threaded BLAS call, whatever its size,
 * for code that is itself one of several threads with a fixed share of the work (a model's
 * lanes, model_run.c), where the split would only cost speed. Returns the old setting. */
int dp_gemm_unsplit(int on);

#endif
