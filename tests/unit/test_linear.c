/* test_linear.c: the linear models of algorithms/models/linear.c against naive references.
 *
 * References: central finite differences of the mean loss (truncation O(h^2) ~ 1e-10 and
 * rounding O(eps / h) ~ 1e-11 for h = 1e-5, so a relative error <= 1e-6 has ample room
 * and still catches any wrong term), and a per-example loop that forms each gradient
 * r_i [x_i; 1]^T explicitly with textbook formulas (relative error <= 1e-10: both sides
 * are exact algebra up to a few roundings).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/linear.h"
#include "tests/unit/linear_fixture.h"
#include "tests/unit/test_util.h"

/* Random problem: x (B,d) Gaussian, labels uniform, weights Gaussian * wscale. */
static void random_problem(dp_rng *r, dp_linear *m, double *x, int *y, size_t B,
                           double wscale)
{
    for (size_t i = 0; i < B * m->d; i++) x[i] = dp_rng_gaussian(r);
    for (size_t i = 0; i < B; i++) y[i] = (int)dp_rng_below(r, (uint64_t)m->n_classes);
    for (size_t j = 0; j < m->n_params; j++) m->w[j] = wscale * dp_rng_gaussian(r);
}

/* Textbook residual of one example (no stabilization; fine for moderate scores). */
static double naive_residual(const dp_linear *m, const double *x, int y, double *r)
{
    size_t d = m->d;
    double s[16];
    for (int j = 0; j < m->k; j++) {
        s[j] = m->w[j * (d + 1) + d];
        for (size_t c = 0; c < d; c++) s[j] += m->w[j * (d + 1) + c] * x[c];
    }
    if (m->loss == DP_LOSS_LOGISTIC) {
        double yy = y == 1 ? 1.0 : -1.0;
        r[0] = -yy / (1.0 + exp(yy * s[0]));
        return log(1.0 + exp(-yy * s[0]));
    }
    double z = 0.0;
    for (int j = 0; j < m->k; j++) z += exp(s[j]);
    for (int j = 0; j < m->k; j++) r[j] = exp(s[j]) / z - (j == y ? 1.0 : 0.0);
    return log(z) - s[y];
}

// ---- linear-1: construction -------------------------------------------------------------

START_TEST(test_init)
{
    dp_linear m;
    dp_err e;
    dp_err_clear(&e);
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 5, 3, 0.0, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "logistic"));
    ck_assert_ptr_null(m.w);
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 5, 1, 0.0, &e), DP_EINVAL);
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 0, 3, 0.0, &e), DP_EINVAL);
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 5, 3, -1.0, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "l2"));
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 5, 3, NAN, &e), DP_EINVAL);
    ck_assert_int_eq(dp_linear_init(&m, (dp_loss_kind)7, 5, 3, 0.0, &e), DP_EINVAL);

    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 5, 2, 0.1, &e), DP_OK);
    ck_assert_int_eq(m.k, 1);
    ck_assert_uint_eq(m.n_params, 6);
    for (size_t j = 0; j < m.n_params; j++) ck_assert(m.w[j] == 0.0);
    dp_linear_destroy(&m);
    ck_assert_ptr_null(m.w);
    dp_linear_destroy(&m); /* twice is harmless */

    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 5, 4, 0.0, &e), DP_OK);
    ck_assert_int_eq(m.k, 4);
    ck_assert_uint_eq(m.n_params, 24);
    dp_linear_destroy(&m);
}
END_TEST

// ---- linear-2: gradients against finite differences -------------------------------------

static void check_gradient_fd(dp_loss_kind loss, int n_classes)
{
    enum { B = 13, D = 7 };
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, loss, D, n_classes, 0.0, NULL), DP_OK);
    double x[B * D], R[B * 16], ws[B * 16];
    int y[B];
    dp_rng r;
    dp_rng_init(&r, 100 + (uint64_t)n_classes, DP_STREAM_TEST);
    random_problem(&r, &m, x, y, B, 0.5);

    size_t P = m.n_params;
    double *g = calloc(P, sizeof *g), *fd = calloc(P, sizeof *fd);
    ck_assert(g && fd);
    dp_linear_residuals(&m, x, y, B, R);
    linear_check_fd(&m, x, y, NULL, B, R, ws, g, fd, "");
    free(g);
    free(fd);
    dp_linear_destroy(&m);
}

START_TEST(test_grad_fd_logistic) { check_gradient_fd(DP_LOSS_LOGISTIC, 2); }
END_TEST

START_TEST(test_grad_fd_softmax) { check_gradient_fd(DP_LOSS_SOFTMAX, 4); }
END_TEST

// ---- linear-3: per-example algebra against the brute-force loop -------------------------

static void check_per_example(dp_loss_kind loss, int n_classes)
{
    enum { B = 9, D = 6 };
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, loss, D, n_classes, 0.0, NULL), DP_OK);
    double x[B * D], R[B * 16], ws[B * 16], sq[B], scale[B], rn[16];
    int y[B];
    dp_rng r;
    dp_rng_init(&r, 200 + (uint64_t)n_classes, DP_STREAM_TEST);
    random_problem(&r, &m, x, y, B, 0.7);
    for (int i = 0; i < B; i++) scale[i] = dp_rng_uniform_pos(&r);

    size_t P = m.n_params, k = (size_t)m.k;
    double *g = malloc(P * sizeof *g), *ref = malloc(P * sizeof *ref),
           *gi = malloc(P * sizeof *gi);
    ck_assert(g && ref && gi);
    /* g and ref start equal and non-zero: grad_accumulate must add, not overwrite. */
    double total = linear_pex_run(&m, x, y, NULL, B, scale, R, sq, ws, g, ref);

    double naive_total = 0.0;
    for (int i = 0; i < B; i++) {
        naive_total += naive_residual(&m, x + i * D, y[i], rn);
        ck_assert_double_le(linear_rel_err(R + i * k, rn, k), 1e-10);
        double nn = 0.0;
        for (size_t j = 0; j < k; j++)
            for (size_t c = 0; c <= D; c++) {
                double v = rn[j] * (c < D ? x[i * D + c] : 1.0);
                gi[j * (D + 1) + c] = v;
                nn += v * v;
            }
        ck_assert_double_eq_tol(sq[i], nn, 1e-10 * nn);
        for (size_t j = 0; j < P; j++) ref[j] += scale[i] * gi[j];
    }
    ck_assert_double_eq_tol(total, naive_total, 1e-10 * fabs(naive_total));
    ck_assert_double_le(linear_rel_err(g, ref, P), 1e-10);

    /* scale = NULL means all ones. */
    for (size_t j = 0; j < P; j++) g[j] = ref[j] = 0.0;
    dp_linear_grad_accumulate(g, x, R, NULL, B, D, m.k, ws);
    for (int i = 0; i < B; i++) scale[i] = 1.0;
    dp_linear_grad_accumulate(ref, x, R, scale, B, D, m.k, ws);
    ck_assert_double_le(linear_rel_err(g, ref, P), 1e-15);

    /* An empty batch adds nothing. */
    memcpy(ref, g, P * sizeof *g);
    dp_linear_grad_accumulate(g, x, R, NULL, 0, D, m.k, ws);
    ck_assert_int_eq(memcmp(g, ref, P * sizeof *g), 0);

    free(g);
    free(ref);
    free(gi);
    dp_linear_destroy(&m);
}

START_TEST(test_per_example_logistic) { check_per_example(DP_LOSS_LOGISTIC, 2); }
END_TEST

START_TEST(test_per_example_softmax) { check_per_example(DP_LOSS_SOFTMAX, 5); }
END_TEST

// ---- linear-4: numerical stability and evaluation ---------------------------------------

START_TEST(test_stability_logistic)
{
    /* x = 0, so the score is the bias alone: s = +-1e4, where exp(1e4) overflows. */
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 3, 2, 0.0, NULL), DP_OK);
    double x[4 * 3] = {0}, R[4];
    int y[4] = {1, 0, 1, 0};
    static const double bias[2] = {1e4, -1e4};
    for (int b = 0; b < 2; b++) {
        m.w[3] = bias[b];
        double total = dp_linear_residuals(&m, x, y, 4, R);
        ck_assert(isfinite(total));
        /* Correct class: loss log1p(e^-1e4) = 0 in double, residual -> 0.
         * Wrong class: loss 1e4 + log1p(e^-1e4) = 1e4, |residual| = 1. */
        ck_assert_double_eq_tol(total, 2e4, 1e-12 * 2e4);
        for (int i = 0; i < 4; i++) {
            int correct = (bias[b] > 0) == (y[i] == 1);
            double yy = y[i] == 1 ? 1.0 : -1.0;
            ck_assert(isfinite(R[i]));
            ck_assert_double_eq_tol(R[i], correct ? 0.0 : -yy, 1e-300);
        }
        double ml, acc;
        ck_assert_int_eq(dp_linear_evaluate(&m, x, y, 4, &ml, &acc), DP_OK);
        ck_assert_double_eq_tol(ml, 5e3, 1e-12 * 5e3);
        ck_assert_double_eq(acc, 0.5);
    }
    dp_linear_destroy(&m);
}
END_TEST

START_TEST(test_stability_softmax)
{
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, 2, 3, 0.0, NULL), DP_OK);
    double x[3 * 2] = {0}, R[3 * 3];
    int y[3] = {0, 1, 2};
    m.w[0 * 3 + 2] = 1e4; /* scores (1e4, -1e4, 0) */
    m.w[1 * 3 + 2] = -1e4;
    m.w[2 * 3 + 2] = 0.0;
    double total = dp_linear_residuals(&m, x, y, 3, R);
    /* Losses: log-sum-exp = 1e4 (+ e^-1e4 terms, 0 in double), minus s_y: 0, 2e4, 1e4. */
    ck_assert_double_eq_tol(total, 3e4, 1e-12 * 3e4);
    for (int i = 0; i < 3; i++) {
        ck_assert_double_eq_tol(R[i * 3 + 0], (y[i] == 0 ? 0.0 : 1.0), 1e-300);
        ck_assert_double_eq_tol(R[i * 3 + 1], (y[i] == 1 ? -1.0 : 0.0), 1e-300);
        ck_assert_double_eq_tol(R[i * 3 + 2], (y[i] == 2 ? -1.0 : 0.0), 1e-300);
    }
    double ml, acc;
    ck_assert_int_eq(dp_linear_evaluate(&m, x, y, 3, &ml, &acc), DP_OK);
    ck_assert_double_eq_tol(ml, 1e4, 1e-12 * 1e4);
    ck_assert_double_eq_tol(acc, 1.0 / 3.0, 1e-15);
    dp_linear_destroy(&m);
}
END_TEST

/* evaluate over several blocks (n > 1024) agrees with a naive loop. */
static void check_evaluate(dp_loss_kind loss, int n_classes)
{
    enum { N = 2600, D = 5 };
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, loss, D, n_classes, 0.0, NULL), DP_OK);
    double *x = malloc(N * D * sizeof *x), rn[16];
    int *y = malloc(N * sizeof *y);
    ck_assert(x && y);
    dp_rng r;
    dp_rng_init(&r, 300 + (uint64_t)n_classes, DP_STREAM_TEST);
    random_problem(&r, &m, x, y, N, 1.0);

    double loss_ref = 0.0;
    long correct = 0;
    static int preds[N];
    for (int i = 0; i < N; i++) {
        loss_ref += naive_residual(&m, x + i * D, y[i], rn);
        int pred;
        if (loss == DP_LOSS_LOGISTIC) {
            /* r = -y sigmoid(-y s); s > 0 iff the loss of class 1 is the smaller one. */
            double s = m.w[D];
            for (int c = 0; c < D; c++) s += m.w[c] * x[i * D + c];
            pred = s > 0.0;
        } else {
            /* argmax p = argmax (r + onehot(y)) */
            pred = 0;
            for (int j = 1; j < m.k; j++)
                if (rn[j] + (j == y[i]) > rn[pred] + (pred == y[i])) pred = j;
        }
        correct += pred == y[i];
        preds[i] = pred;
    }
    /* dp_linear_predict gives the same labels (PATE's teachers vote with it) */
    int *got = malloc(N * sizeof *got);
    ck_assert(got != NULL);
    ck_assert_int_eq(dp_linear_predict(&m, x, N, got), DP_OK);
    ck_assert_mem_eq(got, preds, N * sizeof *got);
    free(got);
    double ml, acc;
    ck_assert_int_eq(dp_linear_evaluate(&m, x, y, N, &ml, &acc), DP_OK);
    ck_assert_double_eq_tol(ml, loss_ref / N, 1e-10 * loss_ref / N);
    ck_assert_double_eq_tol(acc, (double)correct / N, 1e-15);
    ck_assert_int_eq(dp_linear_evaluate(&m, x, y, N, NULL, NULL), DP_OK);
    ck_assert_int_eq(dp_linear_evaluate(&m, x, y, 0, &ml, &acc), DP_OK);
    ck_assert(isnan(ml) && isnan(acc));
    free(x);
    free(y);
    dp_linear_destroy(&m);
}

START_TEST(test_evaluate_logistic) { check_evaluate(DP_LOSS_LOGISTIC, 2); }
END_TEST

START_TEST(test_evaluate_softmax) { check_evaluate(DP_LOSS_SOFTMAX, 6); }
END_TEST

static Suite *linear_suite(void)
{
    Suite *s = suite_create("linear");
    test_add_case(s, "linear-1.1", test_init, 60);
    test_add_case(s, "linear-2.1", test_grad_fd_logistic, 60);
    test_add_case(s, "linear-2.2", test_grad_fd_softmax, 60);
    test_add_case(s, "linear-3.1", test_per_example_logistic, 60);
    test_add_case(s, "linear-3.2", test_per_example_softmax, 60);
    test_add_case(s, "linear-4.1", test_stability_logistic, 60);
    test_add_case(s, "linear-4.2", test_stability_softmax, 60);
    test_add_case(s, "linear-4.3", test_evaluate_logistic, 60);
    test_add_case(s, "linear-4.4", test_evaluate_softmax, 60);
    return s;
}

int main(void) { return test_run_suite(linear_suite()); }
