/* linear.c: linear models (binary logistic, multinomial softmax; squared and Huber
 * regression) with the per-example gradient algebra of linear.h.
 *
 * Sources: the logistic loss of Zhang17 §4 and InputPert §3 (labels in {-1, +1}), the
 * l2-regularized multinomial logistic (softmax) regression of DP-LSSGD §4.1, the Huber
 * regression of Zhang17 §4 (h_delta(u) = u^2/2 for |u| <= delta, delta (|u| - delta/2)
 * otherwise, u = <w, x> - y; used there on WINE and BIKE); the per-example gradient
 * identity ||r_i [x_i; 1]^T||_F = ||r_i|| sqrt(||x_i||^2 + 1) is the rank-one case of the
 * dense-layer trick in DESIGN.md, Performance.
 *
 * Shapes: x is (B, d) row-major, W is (k, d+1) with the bias in the last column, scores
 * and residuals are (B, k). Everything that touches a batch is BLAS-3: one GEMM for the
 * scores, one for the (scaled) gradient sum. Nothing here allocates per example; only
 * dp_linear_evaluate allocates, one block buffer per call (dp_linear_evaluate_reg, k = 1,
 * keeps its block on the stack).
 *
 * Choices where the papers are silent:
 *   - logistic class 1 -> y = +1, class 0 -> y = -1; predicted class is 1 iff s > 0.
 *   - softmax prediction is the first index of the largest score (ties -> lower class).
 *   - Zhang17 gives no value of the Huber delta (its delta symbol is also the privacy
 *     delta); it is a model parameter here, model.huber_delta. At |u| = delta both Huber
 *     branches agree in value (delta^2/2) and slope (+-delta); the quadratic one is used.
 *   - the squared loss u^2/2 (none of the five papers uses it) is the delta -> inf limit
 *     of Huber, kept as the smooth, non-Lipschitz reference.
 *   - numerics: with z = -y s, log(1 + e^z) = z + log1p(e^-z) for z > 0, else log1p(e^z),
 *     and sigmoid is evaluated through exp of a non-positive number, so no exp overflows
 *     at any finite score; softmax subtracts the row maximum before exponentiating.
 *   - numerics (regression): u^2/2 is evaluated as (u/2) u, finite up to |u| ~ 1.9e154 as
 *     the exact value is; the Huber linear branch never squares u. The evaluation's mean
 *     square is accumulated with a running scale (LAPACK dlassq), so the RMSE is finite
 *     for residuals of any finite size.
 */
#include "algorithms/models/linear.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"

static int is_classification(dp_loss_kind loss)
{
    return loss == DP_LOSS_LOGISTIC || loss == DP_LOSS_SOFTMAX;
}

static int is_regression(dp_loss_kind loss)
{
    return loss == DP_LOSS_SQUARED || loss == DP_LOSS_HUBER;
}

static const char *loss_name(dp_loss_kind loss)
{
    switch (loss) {
    case DP_LOSS_LOGISTIC: return "logistic";
    case DP_LOSS_SOFTMAX: return "softmax";
    case DP_LOSS_SQUARED: return "squared";
    case DP_LOSS_HUBER: return "huber";
    }
    return "unknown";
}

/* The checks and the allocation both constructors share; the loss-specific fields have
 * been validated by the caller. m is zeroed on entry and left zeroed on failure. */
static int alloc_params(dp_linear *m, dp_loss_kind loss, size_t d, int n_classes, int k,
                        double huber_delta, double l2, dp_err *err)
{
    if (d == 0) return dp_err_set(err, DP_EINVAL, "linear model needs d >= 1 features");
    if (!(l2 >= 0.0) || !isfinite(l2))
        return dp_err_set(err, DP_EINVAL, "model.l2 %g must be finite and >= 0", l2);
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
    m->huber_delta = huber_delta;
    m->n_params = n_params;
    m->w = w;
    return DP_OK;
}

int dp_linear_init(dp_linear *m, dp_loss_kind loss, size_t d, int n_classes, double l2,
                   dp_err *err)
{
    memset(m, 0, sizeof *m);
    if (is_regression(loss))
        return dp_err_set(err, DP_EINVAL,
                          "model.type %s is a regression loss: it needs real targets and "
                          "dp_linear_init_regression, not class labels",
                          loss_name(loss));
    if (!is_classification(loss))
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
    int k = loss == DP_LOSS_LOGISTIC ? 1 : n_classes;
    return alloc_params(m, loss, d, n_classes, k, 0.0, l2, err);
}

int dp_linear_init_regression(dp_linear *m, dp_loss_kind loss, size_t d, double huber_delta,
                              double l2, dp_err *err)
{
    memset(m, 0, sizeof *m);
    if (is_classification(loss))
        return dp_err_set(err, DP_EINVAL,
                          "model.type %s is a classification loss: it needs class labels "
                          "and dp_linear_init, not real targets",
                          loss_name(loss));
    if (!is_regression(loss))
        return dp_err_set(err, DP_EINVAL, "model.type: unknown loss kind %d", (int)loss);
    if (loss == DP_LOSS_HUBER) {
        if (!(huber_delta > 0.0) || !isfinite(huber_delta))
            return dp_err_set(err, DP_EINVAL, "model.huber_delta %g must be finite and > 0",
                              huber_delta);
    } else {
        huber_delta = 0.0; /* documented as ignored for the squared loss */
    }
    return alloc_params(m, loss, d, 0, 1, huber_delta, l2, err);
}

void dp_linear_init_uniform_fan_in(dp_linear *m, uint64_t seed)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_INIT);
    double bound = 1.0 / sqrt((double)m->d);
    for (size_t j = 0; j < m->n_params; j++)
        m->w[j] = -bound + 2.0 * bound * dp_rng_uniform(&r);
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

/* Squared row: u = s - t. Returns u^2/2, *r = u. (u/2) u cannot overflow before the
 * exact value does, unlike u u / 2. */
static inline double squared_row(double u, double *r)
{
    *r = u;
    return 0.5 * u * u;
}

/* Huber row (Zhang17 §4): u = s - t. Returns h_delta(u), *r = clamp(u, -delta, delta).
 * The test is written so that a NaN u takes the quadratic branch and stays NaN in both
 * outputs (the step-boundary check then sees it); an infinite u gives loss inf and
 * residual +-delta, the limits. */
static inline double huber_row(double u, double delta, double *r)
{
    double a = fabs(u);
    if (!(a > delta)) {
        *r = u;
        return 0.5 * u * u;
    }
    *r = copysign(delta, u);
    return delta * (a - 0.5 * delta);
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
    assert(is_classification(m->loss));
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

double dp_linear_residuals_reg(const dp_linear *m, const double *x, const double *t,
                               size_t B, double *R)
{
    assert(is_regression(m->loss) && m->k == 1);
    scores(m, x, B, R);
    double total = 0.0;
    if (m->loss == DP_LOSS_HUBER) {
        double delta = m->huber_delta;
        for (size_t i = 0; i < B; i++) total += huber_row(R[i] - t[i], delta, &R[i]);
    } else {
        for (size_t i = 0; i < B; i++) total += squared_row(R[i] - t[i], &R[i]);
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

int dp_linear_predict(const dp_linear *m, const double *x, size_t n, int *labels)
{
    if (!is_classification(m->loss)) return DP_EINVAL;
    if (n == 0) return DP_OK;
    size_t block = n < EVAL_BLOCK ? n : EVAL_BLOCK;
    int k = m->k;
    double *S = malloc(block * (size_t)k * sizeof *S);
    if (!S) return DP_ENOMEM;
    for (size_t start = 0; start < n; start += block) {
        size_t nb = n - start < block ? n - start : block;
        scores(m, x + start * m->d, nb, S);
        for (size_t i = 0; i < nb; i++) {
            if (m->loss == DP_LOSS_LOGISTIC) {
                labels[start + i] = S[i] > 0.0;
                continue;
            }
            const double *row = S + i * (size_t)k;
            int best = 0;
            for (int j = 1; j < k; j++)
                if (row[j] > row[best]) best = j;
            labels[start + i] = best;
        }
    }
    free(S);
    return DP_OK;
}

int dp_linear_evaluate(const dp_linear *m, const double *x, const int *y, size_t n,
                       double *mean_loss, double *accuracy)
{
    if (!is_classification(m->loss)) return DP_EINVAL;
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

/* Running sum of squares as scale^2 * ssq (LAPACK dlassq): no square of a large or tiny
 * value is ever formed, so sqrt(sum v^2) is finite whenever it is representable.
 * NaN and inf are counted apart so that they reach the result as NaN and inf. */
typedef struct {
    double scale, ssq;
    int nan, inf;
} sumsq;

static void sumsq_add(sumsq *a, double v)
{
    double x = fabs(v);
    if (isnan(v)) {
        a->nan = 1;
    } else if (isinf(v)) {
        a->inf = 1;
    } else if (x > a->scale) {
        double q = a->scale / x;
        a->ssq = 1.0 + a->ssq * q * q;
        a->scale = x;
    } else if (x > 0.0) {
        double q = x / a->scale;
        a->ssq += q * q;
    }
}

int dp_linear_evaluate_reg(const dp_linear *m, const double *x, const double *t, size_t n,
                           double *mean_loss, double *rmse)
{
    if (!is_regression(m->loss)) return DP_EINVAL;
    if (n == 0) {
        if (mean_loss) *mean_loss = NAN;
        if (rmse) *rmse = NAN;
        return DP_OK;
    }
    double S[EVAL_BLOCK]; /* k = 1: one block of scores fits on the stack */
    double inv_n = 1.0 / (double)n;
    double huber_mean = 0.0; /* sum of h_i / n: partial sums never exceed the mean */
    sumsq acc = {0.0, 0.0, 0, 0};
    for (size_t start = 0; start < n; start += EVAL_BLOCK) {
        size_t nb = n - start < EVAL_BLOCK ? n - start : EVAL_BLOCK;
        scores(m, x + start * m->d, nb, S);
        for (size_t i = 0; i < nb; i++) {
            double u = S[i] - t[start + i], r;
            sumsq_add(&acc, u);
            if (m->loss == DP_LOSS_HUBER)
                huber_mean += huber_row(u, m->huber_delta, &r) * inv_n;
        }
    }
    double ms_ratio = acc.ssq * inv_n; /* in [1/n, 1] unless every residual is 0 */
    double rms, half_ms;
    if (acc.nan || acc.inf) {
        rms = half_ms = acc.nan ? NAN : INFINITY;
    } else {
        rms = acc.scale * sqrt(ms_ratio);
        half_ms = 0.5 * acc.scale * (acc.scale * ms_ratio); /* = mean of u^2/2 */
    }
    if (mean_loss) *mean_loss = m->loss == DP_LOSS_HUBER ? huber_mean : half_ms;
    if (rmse) *rmse = rms;
    return DP_OK;
}
