/* linear_fixture.h: what the Check programs of the linear models share (test_linear.c
 * for the classification losses, test_linear_regression.c for the regression ones): the
 * relative error of a vector, the loss of either kind, the library's side of the
 * per-example checks, and the check of the mean gradient against central finite
 * differences, which both files make on their own problems. Labels y select the
 * classification path (dp_linear_residuals), targets t the regression one
 * (dp_linear_residuals_reg); the other is NULL.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_LINEAR_FIXTURE_H
#define DPERM_LINEAR_FIXTURE_H

#include <check.h>
#include <math.h>
#include <string.h>

#include "algorithms/models/linear.h"

/* ||a - b|| / ||b||; no guard for b = 0: every reference here is non-zero, and a zero
 * one (a broken reference) gives inf or NaN and fails the check. */
static inline double linear_rel_err(const double *a, const double *b, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num) / sqrt(den);
}

/* The total loss of the B examples and their residuals R, labels y or targets t (the
 * other NULL). */
static inline double linear_residuals(const dp_linear *m, const double *x, const int *y,
                                      const double *t, size_t B, double *R)
{
    return y ? dp_linear_residuals(m, x, y, B, R) : dp_linear_residuals_reg(m, x, t, B, R);
}

/* The mean loss of the B examples; R is scratch. */
static inline double linear_mean_loss(const dp_linear *m, const double *x, const int *y,
                                      const double *t, size_t B, double *R)
{
    return linear_residuals(m, x, y, t, B, R) / (double)B;
}

/* The library's side of the per-example checks on B examples: g and ref (n_params) start
 * from the same non-zero values, so that grad_accumulate must add to g, not overwrite it
 * (the caller adds its textbook sum to ref); then the residuals R, the squared norms sq
 * and g += sum_i scale_i g_i. Returns the total loss. */
static inline double linear_pex_run(const dp_linear *m, const double *x, const int *y,
                                    const double *t, size_t B, const double *scale, double *R,
                                    double *sq, double *ws, double *g, double *ref)
{
    for (size_t j = 0; j < m->n_params; j++) g[j] = ref[j] = 0.25 * (double)j;
    double total = linear_residuals(m, x, y, t, B, R);
    dp_linear_pex_sqnorms(sq, x, R, B, m->d, m->k);
    dp_linear_grad_accumulate(g, x, R, scale, B, m->d, m->k, ws);
    return total;
}

/* The mean gradient from the residuals R that the caller computed on the B examples
 * (dp_linear_grad_accumulate into g, zeroed here, divided by B) against central finite
 * differences of linear_mean_loss with h = 1e-5 over every parameter: relative error
 * <= 1e-6 (truncation O(h^2) ~ 1e-10, rounding O(eps / h) ~ 1e-11; the files' headers say
 * more). g and fd hold n_params, ws what grad_accumulate needs; R is overwritten. `what`
 * ends the failure message ("" or the case's settings). */
static inline void linear_check_fd(dp_linear *m, const double *x, const int *y,
                                   const double *t, size_t B, double *R, double *ws, double *g,
                                   double *fd, const char *what)
{
    size_t P = m->n_params;
    memset(g, 0, P * sizeof *g);
    dp_linear_grad_accumulate(g, x, R, NULL, B, m->d, m->k, ws);
    for (size_t j = 0; j < P; j++) g[j] /= B;

    const double h = 1e-5;
    for (size_t j = 0; j < P; j++) {
        double w0 = m->w[j];
        m->w[j] = w0 + h;
        double lp = linear_mean_loss(m, x, y, t, B, R);
        m->w[j] = w0 - h;
        double lm = linear_mean_loss(m, x, y, t, B, R);
        m->w[j] = w0;
        fd[j] = (lp - lm) / (2 * h);
    }
    double e = linear_rel_err(g, fd, P);
    ck_assert_msg(e <= 1e-6, "gradient vs finite differences%s: relative error %g", what, e);
}

#endif
