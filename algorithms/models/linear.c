/* linear.c: linear models (binary logistic, multinomial softmax) with the per-example
 * gradient algebra of linear.h.
 *
 * Sources: the logistic loss of Zhang17 §4 and InputPert §3 (labels in {-1, +1}), the
 * l2-regularized multinomial logistic (softmax) regression of DP-LSSGD §4.1; the
 * per-example gradient identity ||r_i [x_i; 1]^T||_F = ||r_i|| sqrt(||x_i||^2 + 1) is the
 * rank-one case of the dense-layer trick in DESIGN.md, Performance.
 *
 * Shapes: x is (B, d) row-major, W is (k, d+1) with the bias in the last column, scores
 * and residuals are (B, k). Everything that touches a batch is BLAS-3: one GEMM for the
 * scores, one for the (scaled) gradient sum. Nothing here allocates per example; only
 * dp_linear_evaluate allocates, one block buffer per call.
 *
 * Choices where the papers are silent:
 *   - logistic class 1 -> y = +1, class 0 -> y = -1; predicted class is 1 iff s > 0.
 *   - softmax prediction is the first index of the largest score (ties -> lower class).
 *   - numerics: with z = -y s, log(1 + e^z) = z + log1p(e^-z) for z > 0, else log1p(e^z),
 *     and sigmoid is evaluated through exp of a non-positive number, so no exp overflows
 *     at any finite score; softmax subtracts the row maximum before exponentiating.
 */
#include "linear.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/vec.h"

int dp_linear_init(dp_linear *m, dp_loss_kind loss, size_t d, int n_classes, double l2,
                   dp_err *err)
{
    memset(m, 0, sizeof *m);
    if (loss != DP_LOSS_LOGISTIC && loss != DP_LOSS_SOFTMAX)
        return dp_err_set(err, DP_EINVAL, "model.type: unknown loss kind %d", (int)loss);
    if (d == 0) return dp_err_set(err, DP_EINVAL, "linear model needs d >= 1 features");
    if (n_classes < 2)
        return dp_err_set(err, DP_EINVAL, "linear model needs n_classes >= 2, got %d",
                          n_classes);
    if (loss == DP_LOSS_LOGISTIC && n_classes != 2)
        return dp_err_set(err, DP_EINVAL,
                          "model.type logistic is binary but the data have %d classes; "
                          "use softmax",
                          n_classes);
    if (!(l2 >= 0.0) || !isfinite(l2))
        return dp_err_set(err, DP_EINVAL, "model.l2 %g must be finite and >= 0", l2);

    int k = loss == DP_LOSS_LOGISTIC ? 1 : n_classes;
    if (d >= SIZE_MAX / sizeof(double) / (size_t)k - 1)
        return dp_err_set(err, DP_ENOMEM, "linear model of %zu x %d parameters is too large",
                          d + 1, k);
    size_t n_params = (size_t)k * (d + 1);
    double *w = calloc(n_params, sizeof *w);
    if (!w)
        return dp_err_set(err, DP_ENOMEM, "out of memory for %zu model parameters", n_params);
    m->loss = loss;
    m->d = d;
    m->n_classes = n_classes;
    m->k = k;
    m->l2 = l2;
    m->n_params = n_params;
    m->w = w;
    return DP_OK;
}

void dp_linear_destroy(dp_linear *m)
{
    if (!m) return;
    free(m->w);
    memset(m, 0, sizeof *m);
}

// ---- per-row losses ---------------------------------------------------------------------

/* log(1 + e^z) without overflow or cancellation. */
static inline double log1pexp(double z)
{
    return z > 0.0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* 1 / (1 + e^-z) through exp of a non-positive argument. */
static inline double sigmoid(double z)
{
    if (z >= 0.0) return 1.0 / (1.0 + exp(-z));
    double e = exp(z);
    return e / (1.0 + e);
}

/* Logistic row: score s, class c. Returns the loss; *r = dloss/ds = -y sigmoid(-y s). */
static inline double logistic_row(double s, int c, double *r)
{
    double y = c == 1 ? 1.0 : -1.0;
    double z = -y * s;
    *r = -y * sigmoid(z);
    return log1pexp(z);
}

/* Softmax row in place: s (k) holds the scores on entry and softmax(s) - onehot(c) on exit.
 * Returns log-sum-exp(s) - s_c. */
static inline double softmax_row(double *s, int c, int k)
{
    double mx = s[0];
    for (int j = 1; j < k; j++)
        if (s[j] > mx) mx = s[j];
    double sc = s[c];
    double sum = 0.0;
    for (int j = 0; j < k; j++) {
        s[j] = exp(s[j] - mx); /* in (0, 1]: no overflow */
        sum += s[j];
    }
    double inv = 1.0 / sum; /* sum >= 1: the maximum contributes exp(0) */
    for (int j = 0; j < k; j++) s[j] *= inv;
    s[c] -= 1.0;
    return (mx - sc) + log(sum);
}

/* S (B,k) = X W[:, :d]^T + bias: one GEMM, then the bias column added row by row. */
static void scores(const dp_linear *m, const double *x, size_t B, double *S)
{
    size_t d = m->d, ldw = d + 1;
    int k = m->k;
    dp_gemm(0, 1, B, (size_t)k, d, 1.0, x, d, m->w, ldw, 0.0, S, (size_t)k);
    for (size_t i = 0; i < B; i++)
        for (int j = 0; j < k; j++) S[i * (size_t)k + j] += m->w[(size_t)j * ldw + d];
}

// ---- batch kernels ----------------------------------------------------------------------

double dp_linear_residuals(const dp_linear *m, const double *x, const int *y, size_t B,
                           double *R)
{
    int k = m->k;
    scores(m, x, B, R);
    double total = 0.0;
    if (m->loss == DP_LOSS_LOGISTIC) {
        for (size_t i = 0; i < B; i++) total += logistic_row(R[i], y[i], &R[i]);
    } else {
        for (size_t i = 0; i < B; i++) {
            assert(y[i] >= 0 && y[i] < k);
            total += softmax_row(R + i * (size_t)k, y[i], k);
        }
    }
    return total;
}

void dp_linear_pex_sqnorms(double *sqnorm, const double *x, const double *R, size_t B,
                           size_t d, int k)
{
    for (size_t i = 0; i < B; i++) {
        const double *r = R + i * (size_t)k;
        double rr = 0.0;
        for (int j = 0; j < k; j++) rr += r[j] * r[j];
        double xx = dp_dot(x + i * d, x + i * d, d);
        sqnorm[i] = rr * (xx + 1.0);
    }
}

void dp_linear_grad_accumulate(double *g, const double *x, const double *R,
                               const double *scale, size_t B, size_t d, int k, double *ws)
{
    size_t kk = (size_t)k, ldg = d + 1;
    const double *Rs = R;
    if (scale) {
        for (size_t i = 0; i < B; i++)
            for (size_t j = 0; j < kk; j++) ws[i * kk + j] = scale[i] * R[i * kk + j];
        Rs = ws;
    }
    /* g[:, :d] (k,d) += Rs^T (k,B) X (B,d): the whole batch's gradient in one GEMM. */
    dp_gemm(1, 0, kk, d, B, 1.0, Rs, kk, x, d, 1.0, g, ldg);
    /* Bias column: the input's constant 1 makes it the column sums of Rs. */
    for (size_t j = 0; j < kk; j++) {
        double s = 0.0;
        for (size_t i = 0; i < B; i++) s += Rs[i * kk + j];
        g[j * ldg + d] += s;
    }
}

// ---- evaluation -------------------------------------------------------------------------

/* Rows per block: large enough for GEMM efficiency, small enough (1024 * k doubles) to
 * stay in cache and to bound the one allocation. */
#define EVAL_BLOCK 1024

int dp_linear_evaluate(const dp_linear *m, const double *x, const int *y, size_t n,
                       double *mean_loss, double *accuracy)
{
    if (n == 0) {
        /* No examples: both means are undefined; report NaN rather than a made-up 0. */
        if (mean_loss) *mean_loss = NAN;
        if (accuracy) *accuracy = NAN;
        return DP_OK;
    }
    size_t block = n < EVAL_BLOCK ? n : EVAL_BLOCK;
    int k = m->k;
    double *S = malloc(block * (size_t)k * sizeof *S);
    if (!S) return DP_ENOMEM;

    double loss = 0.0;
    size_t correct = 0;
    for (size_t start = 0; start < n; start += block) {
        size_t nb = n - start < block ? n - start : block;
        const double *xb = x + start * m->d;
        const int *yb = y + start;
        scores(m, xb, nb, S);
        for (size_t i = 0; i < nb; i++) {
            double r;
            if (m->loss == DP_LOSS_LOGISTIC) {
                double s = S[i];
                loss += logistic_row(s, yb[i], &r);
                correct += (s > 0.0 ? 1 : 0) == yb[i];
            } else {
                double *row = S + i * (size_t)k;
                int best = 0;
                for (int j = 1; j < k; j++)
                    if (row[j] > row[best]) best = j;
                correct += best == yb[i];
                loss += softmax_row(row, yb[i], k);
            }
        }
    }
    free(S);
    if (mean_loss) *mean_loss = loss / (double)n;
    if (accuracy) *accuracy = (double)correct / (double)n;
    return DP_OK;
}
