/* test_linear_smooth.c: the DPlis gradient of linear models (algorithms/models/
 * linear_smooth.c; DPlis eq. 6, Alg. 2) against a brute force that materializes every
 * per-example, per-copy gradient, and its reduction to the DP-SGD composition.
 *
 * Reference: W + z_k rebuilt from linear.h's convention (a copy of the generator sought to
 * p0 + k, dp_rng_add_gaussian_par on one thread); example i's residual r_ik at W + z_k
 * from dp_linear_residuals(_reg) on a batch of one; its gradient r_ik [x_i; 1]^T written
 * out coordinate by coordinate, averaged over the copies, clipped and summed. Exact
 * algebra on both sides: norms and sums to a relative 1e-10, losses to 1e-12.
 * Reduction: K = 1 with sigma_s = 0 is dp_linear_pex_sqnorms + dp_linear_grad_accumulate
 * with the clip factors as scale (what train.c does) bit for bit; K = 1 at sigma_s > 0 is
 * the same at W + z_0; sigma_s = 0 with K = 3 agrees to 1e-12.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/linear.h"
#include "tests/unit/pexgrad_fixture.h"
#include "tests/unit/test_util.h"

#define PEX_TOL 1e-10
#define LOSS_TOL 1e-12
#define SIGMA_S 0.1
#define D 6
#define B 15

/* A model of the given loss with random weights, and a batch for it. */
typedef struct {
    dp_linear m;
    double x[B * D], t[B];
    int y[B];
} fixture;

static void setup(fixture *f, dp_loss_kind loss, uint64_t seed)
{
    int rc;
    if (loss == DP_LOSS_LOGISTIC) rc = dp_linear_init(&f->m, loss, D, 2, 0.0, NULL);
    else if (loss == DP_LOSS_SOFTMAX) rc = dp_linear_init(&f->m, loss, D, 4, 0.0, NULL);
    else rc = dp_linear_init_regression(&f->m, loss, D, 0.7, 0.0, NULL);
    ck_assert_int_eq(rc, DP_OK);
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    for (size_t j = 0; j < f->m.n_params; j++) f->m.w[j] = 0.5 * dp_rng_gaussian(&r);
    for (size_t i = 0; i < B * D; i++) f->x[i] = dp_rng_gaussian(&r);
    for (size_t i = 0; i < B; i++) {
        int nc = f->m.n_classes ? f->m.n_classes : 2;
        f->y[i] = (int)dp_rng_below(&r, (uint64_t)nc);
        f->t[i] = 2.0 * dp_rng_gaussian(&r); /* Huber 0.7: most residuals clamp */
    }
}

static int is_reg(const dp_linear *m) { return m->n_classes == 0; }

static double call(const fixture *f, double clip, int K, double sigma_s, dp_rng *r,
                   double *sum, double *sq, double *ws)
{
    if (is_reg(&f->m))
        return dp_linear_smoothed_clipped_grad_reg(&f->m, f->x, f->t, B, clip, K, 0, sigma_s, r,
                                                   sum, sq, ws);
    return dp_linear_smoothed_clipped_grad(&f->m, f->x, f->y, B, clip, K, 0, sigma_s, r, sum,
                                           sq, ws);
}

/* Brute force with materialized per-example gradients; returns the smoothed loss. */
static double brute(const fixture *f, double clip, int K, double sigma_s, const dp_rng *r0,
                    double *sq, double *sum)
{
    const dp_linear *m = &f->m;
    size_t P = m->n_params, kk = (size_t)m->k;
    double *pert = malloc(P * sizeof *pert), *avg = malloc(P * sizeof *avg);
    double r[8];
    ck_assert(pert && avg && kk <= 8);
    dp_linear mk = *m;
    mk.w = pert;
    memset(sum, 0, P * sizeof *sum);
    double loss = 0.0;
    for (size_t i = 0; i < B; i++) {
        memset(avg, 0, P * sizeof *avg);
        for (int k = 0; k < K; k++) {
            perturbed(pert, m->w, P, r0, k, sigma_s);
            loss += (is_reg(m) ? dp_linear_residuals_reg(&mk, f->x + i * D, f->t + i, 1, r)
                               : dp_linear_residuals(&mk, f->x + i * D, f->y + i, 1, r)) /
                    K;
            for (size_t j = 0; j < kk; j++) {
                for (size_t c = 0; c < D; c++) avg[j * (D + 1) + c] += r[j] * f->x[i * D + c];
                avg[j * (D + 1) + D] += r[j];
            }
        }
        for (size_t j = 0; j < P; j++) avg[j] /= K;
        add_clipped(avg, P, clip, &sq[i], sum);
    }
    free(pert), free(avg);
    return loss;
}

// ---- lins-1: against the brute force ----------------------------------------------------------

static void check_brute(dp_loss_kind loss, uint64_t seed)
{
    fixture f;
    setup(&f, loss, seed);
    size_t P = f.m.n_params;
    double *sum = malloc(P * sizeof *sum), *ref = malloc(P * sizeof *ref);
    double *w0 = malloc(P * sizeof *w0), *ws = malloc(dp_linear_smooth_ws(&f.m, B) * sizeof(double));
    double sq[B], sq_ref[B];
    ck_assert(sum && ref && w0 && ws);
    memcpy(w0, f.m.w, P * sizeof *w0);
    const int Ks[2] = {1, 3};
    for (int ki = 0; ki < 2; ki++) {
        int K = Ks[ki];
        dp_rng r0 = noise_rng(seed + (uint64_t)K);
        brute(&f, INFINITY, K, SIGMA_S, &r0, sq_ref, ref);
        const double tiny = 1e-3 * sqrt(sq_ref[0]);
        const double clips[3] = {median_norm(sq_ref, B), tiny, INFINITY};
        for (int ci = 0; ci < 3; ci++) {
            double loss_ref = brute(&f, clips[ci], K, SIGMA_S, &r0, sq_ref, ref);
            memset(sum, 0, P * sizeof *sum);
            dp_rng r = r0;
            double l = call(&f, clips[ci], K, SIGMA_S, &r, sum, sq, ws);
            ck_assert_uint_eq(r.position, r0.position + (uint64_t)K);
            ck_assert(memcmp(w0, f.m.w, P * sizeof *w0) == 0);
            for (size_t i = 0; i < B; i++)
                ck_assert_msg(fabs(sq[i] - sq_ref[i]) <= PEX_TOL * sq_ref[i],
                              "K %d C %g example %zu: %.17g vs %.17g", K, clips[ci], i,
                              sq[i], sq_ref[i]);
            ck_assert_msg(test_rel_err(sum, ref, P) <= PEX_TOL, "K %d C %g: relative error %g", K,
                          clips[ci], test_rel_err(sum, ref, P));
            ck_assert_double_eq_tol(l, loss_ref, LOSS_TOL * fabs(loss_ref));
            if (ci == 1)
                for (size_t i = 0; i < B; i++) ck_assert_double_gt(sqrt(sq[i]), tiny);
        }
    }
    free(sum), free(ref), free(w0), free(ws);
    dp_linear_destroy(&f.m);
}

START_TEST(test_logistic) { check_brute(DP_LOSS_LOGISTIC, 401); }
END_TEST

START_TEST(test_softmax) { check_brute(DP_LOSS_SOFTMAX, 402); }
END_TEST

START_TEST(test_squared) { check_brute(DP_LOSS_SQUARED, 403); }
END_TEST

START_TEST(test_huber) { check_brute(DP_LOSS_HUBER, 404); }
END_TEST

// ---- lins-2: reductions -------------------------------------------------------------------------

/* What train.c does for one DP-SGD batch: residuals, norms, clip factors, one GEMM. */
static double dpsgd(const fixture *f, const double *w, double clip, double *sum, double *sq)
{
    dp_linear mk = f->m;
    mk.w = (double *)w;
    size_t kk = (size_t)mk.k;
    double R[B * 4], ws[B * 4], scale[B];
    double loss = is_reg(&mk) ? dp_linear_residuals_reg(&mk, f->x, f->t, B, R)
                              : dp_linear_residuals(&mk, f->x, f->y, B, R);
    ck_assert(kk <= 4);
    dp_linear_pex_sqnorms(scale, f->x, R, B, D, mk.k);
    memcpy(sq, scale, sizeof scale);
    for (size_t i = 0; i < B; i++) {
        double nrm = sqrt(scale[i]);
        scale[i] = nrm > clip ? clip / nrm : 1.0;
    }
    dp_linear_grad_accumulate(sum, f->x, R, scale, B, D, mk.k, ws);
    return loss;
}

static void check_reductions(dp_loss_kind loss, uint64_t seed)
{
    fixture f;
    setup(&f, loss, seed);
    size_t P = f.m.n_params;
    double *sum = malloc(P * sizeof *sum), *ref = malloc(P * sizeof *ref);
    double *pert = malloc(P * sizeof *pert), *ws = malloc(dp_linear_smooth_ws(&f.m, B) * sizeof(double));
    double sq[B], sq_ref[B];
    ck_assert(sum && ref && pert && ws);
    memset(ref, 0, P * sizeof *ref);
    dpsgd(&f, f.m.w, INFINITY, ref, sq_ref);
    const double clips[3] = {median_norm(sq_ref, B), 1e-3 * sqrt(sq_ref[0]), INFINITY};
    dp_rng r0 = noise_rng(seed);
    for (int ci = 0; ci < 3; ci++) {
        double clip = clips[ci];
        memset(ref, 0, P * sizeof *ref);
        double lref = dpsgd(&f, f.m.w, clip, ref, sq_ref);
        memset(sum, 0, P * sizeof *sum);
        dp_rng r = r0;
        double l = call(&f, clip, 1, 0.0, &r, sum, sq, ws);
        ck_assert_uint_eq(r.position, r0.position + 1);
        ck_assert(memcmp(sum, ref, P * sizeof *sum) == 0);
        ck_assert(memcmp(sq, sq_ref, sizeof sq) == 0);
        ck_assert(l == lref);

        memset(sum, 0, P * sizeof *sum);
        r = r0;
        l = call(&f, clip, 3, 0.0, &r, sum, sq, ws);
        ck_assert_uint_eq(r.position, r0.position + 3);
        ck_assert_double_le(test_rel_err(sum, ref, P), 1e-12);
        for (size_t i = 0; i < B; i++)
            ck_assert_double_le(fabs(sq[i] - sq_ref[i]), 1e-12 * sq_ref[i]);
        ck_assert_double_eq_tol(l, lref, 1e-12 * fabs(lref));

        perturbed(pert, f.m.w, P, &r0, 0, SIGMA_S);
        memset(ref, 0, P * sizeof *ref);
        lref = dpsgd(&f, pert, clip, ref, sq_ref);
        memset(sum, 0, P * sizeof *sum);
        r = r0;
        l = call(&f, clip, 1, SIGMA_S, &r, sum, sq, ws);
        ck_assert(memcmp(sum, ref, P * sizeof *sum) == 0);
        ck_assert(memcmp(sq, sq_ref, sizeof sq) == 0);
        ck_assert(l == lref);

        /* accumulates: a second identical call doubles the sum (to rounding) */
        memcpy(ref, sum, P * sizeof *ref);
        r = r0;
        call(&f, clip, 1, SIGMA_S, &r, sum, NULL, ws);
        dp_scal(ref, 2.0, P);
        ck_assert_double_le(test_rel_err(sum, ref, P), 1e-15);
    }
    free(sum), free(ref), free(pert), free(ws);
    dp_linear_destroy(&f.m);
}

START_TEST(test_reduce)
{
    check_reductions(DP_LOSS_LOGISTIC, 501);
    check_reductions(DP_LOSS_SOFTMAX, 502);
    check_reductions(DP_LOSS_SQUARED, 503);
    check_reductions(DP_LOSS_HUBER, 504);
}
END_TEST

START_TEST(test_ws_size)
{
    fixture f;
    setup(&f, DP_LOSS_SOFTMAX, 601);
    ck_assert_uint_eq(dp_linear_smooth_ws(&f.m, 10), f.m.n_params + 10 * (3 * 4 + 1));
    ck_assert_uint_eq(dp_linear_smooth_ws(&f.m, 0), f.m.n_params);
    dp_linear_destroy(&f.m);
}
END_TEST

static Suite *linear_smooth_suite(void)
{
    Suite *s = suite_create("linear_smooth");
    test_add_case(s, "lins-1.1", test_logistic, 60);
    test_add_case(s, "lins-1.2", test_softmax, 60);
    test_add_case(s, "lins-1.3", test_squared, 60);
    test_add_case(s, "lins-1.4", test_huber, 60);
    test_add_case(s, "lins-2.1", test_reduce, 60);
    test_add_case(s, "lins-3.1", test_ws_size, 60);
    return s;
}

int main(void) { return test_run_suite(linear_smooth_suite()); }
