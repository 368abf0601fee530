/* convex_fixture.h: what the Check programs of the convex private algorithms share
 * (test_output_pert.c, test_bassily.c, test_rrpsgd.c, test_input_pert.c,
 * test_wang17_gd.c, test_deep_convex.c): a small, well-conditioned binary problem from
 * dperm's synthetic generator (rows in the unit ball by construction), the models and
 * the plain sgd/gd configs the algorithms are compared with, the check that an
 * algorithm with its noise off is its reference trainer, the mean/variance helpers of
 * the noise tests, and the two experiments every algorithm's suite runs: the injected
 * noise's variance over seeds, and the loss falling as epsilon grows. What the trainer
 * tests share as well (train_same_result, train_pair_free, train_weights_copy,
 * train_expect_einval) comes from train_fixture.h.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_CONVEX_FIXTURE_H
#define DPERM_CONVEX_FIXTURE_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"

#include "algorithms/convex_common.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"
#include "datasets/dataset.h"
#include "tests/unit/train_fixture.h"

/* The relative error of a against the reference value b (the hand values' tolerance). */
#define REL(a, b) (fabs((a) - (b)) / fabs(b))

// ---- data --------------------------------------------------------------------------------

typedef struct fixture {
    dp_dataset all, train, test;
    dp_cvx_set tr, te;
} fixture;

/* n examples (n_train of them for training) of a d-feature binary problem, labels with
 * 5% noise so the logistic minimizer is finite. */
static inline void fixture_make(fixture *f, size_t n, size_t n_train, size_t d, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    dp_synthetic_params p = {.n = n, .d = d, .n_classes = 2, .margin = 0.0,
                             .label_noise = 0.05, .seed = seed};
    ck_assert_int_eq(dp_synthetic_make(&f->all, &p, NULL), 0);
    ck_assert_int_eq(dp_dataset_split(&f->all, n_train, seed, &f->train, &f->test, NULL), 0);
    f->tr = (dp_cvx_set){f->train.x, f->train.y, NULL, f->train.n};
    f->te = (dp_cvx_set){f->test.x, f->test.y, NULL, f->test.n};
}

static inline void fixture_free(fixture *f)
{
    dp_dataset_destroy(&f->test);
    dp_dataset_destroy(&f->train);
    dp_dataset_destroy(&f->all);
}

/* A Huber-regression problem: n rows in the ball of radius 0.9, t = x_0 - x_1/2 + 0.3 +
 * N(0, 0.1^2); the first n_train rows train. Caller frees x and t. */
static inline void fixture_regression(size_t n, size_t n_train, size_t d, uint64_t seed,
                                      double **x, double **t, dp_cvx_set *tr, dp_cvx_set *te)
{
    double *X = malloc(n * d * sizeof *X), *T = malloc(n * sizeof *T);
    ck_assert(X && T && d >= 2);
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    for (size_t i = 0; i < n; i++) {
        double q = 0;
        for (size_t j = 0; j < d; j++) {
            X[i * d + j] = dp_rng_gaussian(&r);
            q += X[i * d + j] * X[i * d + j];
        }
        double f = 0.9 * dp_rng_uniform(&r) / sqrt(q);
        for (size_t j = 0; j < d; j++) X[i * d + j] *= f;
        T[i] = X[i * d] - 0.5 * X[i * d + 1] + 0.3 + 0.1 * dp_rng_gaussian(&r);
    }
    *tr = (dp_cvx_set){X, NULL, T, n_train};
    *te = (dp_cvx_set){X + n_train * d, NULL, T + n_train, n - n_train};
    *x = X;
    *t = T;
}

// ---- models ------------------------------------------------------------------------------

/* A linear model (weights 0) of loss with d features and `classes` classes. */
static inline dp_linear fixture_linear(dp_loss_kind loss, size_t d, int classes, double l2)
{
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, loss, d, classes, l2, NULL), 0);
    return m;
}

/* Binary logistic regression on d features: the model most checks train. */
static inline dp_linear fixture_logistic(size_t d, double l2)
{
    return fixture_linear(DP_LOSS_LOGISTIC, d, 2, l2);
}

/* Huber regression (parameter delta) on d features, for fixture_regression's rows. */
static inline dp_linear fixture_huber(size_t d, double delta, double l2)
{
    dp_linear m;
    ck_assert_int_eq(dp_linear_init_regression(&m, DP_LOSS_HUBER, d, delta, l2, NULL), 0);
    return m;
}

/* A deep model of two classes on `in` features: name "mlp" with one hidden layer of
 * `hidden` tanh units, or "mlp_inputpert" (hidden 0: its own layers, relu). The same seed
 * gives the same initial weights. */
static inline void fixture_model(dp_model *m, const char *name, int hidden, size_t in,
                                 size_t max_batch, uint64_t seed)
{
    dp_err e;
    const int h[] = {hidden};
    ck_assert_msg(dp_model_build_named(m, name, hidden ? h : NULL, hidden ? 1 : 0,
                                       hidden ? "tanh" : NULL, 1, 1, (int)in, 2, max_batch,
                                       seed, &e) == DP_OK,
                  "%s", e.msg);
}

/* Two deep models hold the same weights. */
static inline int fixture_same_params(const dp_model *a, const dp_model *b)
{
    return a->n_params == b->n_params &&
           memcmp(a->params, b->params, a->n_params * sizeof *a->params) == 0;
}

// ---- the reference trainers --------------------------------------------------------------

/* Plain sgd: batches of b drawn by s, constant step lr, nothing clipped. */
static inline dp_train_cfg fixture_sgd_cfg(dp_sampling s, size_t b, int epochs, double lr,
                                           int eval_every, uint64_t seed)
{
    return (dp_train_cfg){.algorithm = DP_ALGO_SGD, .epochs = epochs, .batch_size = b,
                          .sampling = s, .lr_schedule = DP_LR_CONSTANT, .lr = lr,
                          .clip = INFINITY, .eval_every = eval_every, .seed = seed};
}

/* Gradient descent on n rows: T full-batch steps of size lr. */
static inline dp_train_cfg fixture_gd_cfg(size_t n, int T, double lr, int eval_every,
                                          uint64_t seed)
{
    return fixture_sgd_cfg(DP_SAMPLING_FULL, n, T, lr, eval_every, seed);
}

/* dp_train_linear on f's training and test rows; fails the case unless it succeeds. */
static inline void fixture_train_linear(dp_linear *m, const dp_train_cfg *c, const fixture *f,
                                        dp_train_result *r)
{
    ck_assert_int_eq(dp_train_linear(m, c, f->train.x, f->train.y, f->train.n, f->test.x,
                                     f->test.y, f->test.n, r, NULL), 0);
}

/* dp_train_linear_reg on the regression sets tr and te; fails the case unless it
 * succeeds. */
static inline void fixture_train_reg(dp_linear *m, const dp_train_cfg *c, const dp_cvx_set *tr,
                                     const dp_cvx_set *te, dp_train_result *r)
{
    ck_assert_int_eq(dp_train_linear_reg(m, c, tr->x, tr->t, tr->n, te->x, te->t, te->n, r,
                                         NULL), 0);
}

/* dp_train_model on f's rows; fails the case (with the message) unless it succeeds. */
static inline void fixture_train_model(dp_model *m, const dp_train_cfg *c, double l2,
                                       const fixture *f, dp_train_result *r)
{
    dp_err e;
    int rc = dp_train_model(m, c, l2, f->train.x, f->train.y, f->train.n, f->test.x,
                            f->test.y, f->test.n, r, &e);
    ck_assert_msg(rc == DP_OK, "dp_train_model: %s", e.msg);
}

/* An algorithm run with its noise off (a, ra) is its reference trainer's run (b, rb): the
 * same weights bit for bit, the same final training loss, no noise reported. */
static inline void fixture_assert_noise_off(const dp_linear *a, const dp_linear *b,
                                            const dp_train_result *ra, const dp_train_result *rb)
{
    ck_assert(memcmp(a->w, b->w, a->n_params * sizeof *a->w) == 0);
    ck_assert(ra->final.train_loss == rb->final.train_loss && ra->noise_std == 0.0);
}

// ---- noise moments -----------------------------------------------------------------------

/* Sample mean and (unbiased) variance of v[0..n). */
static inline void sample_moments(const double *v, size_t n, double *mean, double *var)
{
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++) s += v[i];
    double m = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = ss / (double)(n - 1);
}

/* The variance of N normal samples is within 5 standard errors of sigma^2 when
 * |var / sigma^2 - 1| <= 5 sqrt(2 / (N - 1)) (chi-square with N - 1 degrees of freedom,
 * normal approximation; a false failure has probability ~6e-7). */
static inline void assert_variance(const double *v, size_t n, double sigma2, const char *what)
{
    double mean, var;
    sample_moments(v, n, &mean, &var);
    double tol = 5.0 * sqrt(2.0 / (double)(n - 1));
    ck_assert_msg(fabs(var / sigma2 - 1.0) <= tol, "%s: sample variance %.6g vs %.6g "
                  "(relative tolerance %.3g over %zu samples)", what, var, sigma2, tol, n);
    ck_assert_msg(fabs(mean) <= 5.0 * sqrt(sigma2 / (double)n), "%s: sample mean %.6g is not "
                  "0 within 5 standard errors (%zu samples)", what, mean, n);
}

// ---- the experiments every suite runs ----------------------------------------------------

/* One seed's draw of an algorithm's injected noise, k counting the seeds: its P
 * coordinates into z (recovered from a run with the noise and one without), and the
 * std they must have. */
typedef double (*fixture_draw_fn)(const fixture *f, size_t k, double *z, size_t P);

/* The noise of `seeds` draws of P coordinates has the variance the last draw's std gives
 * (assert_variance: 5 standard errors). */
static inline void fixture_assert_noise(const fixture *f, size_t seeds, size_t P,
                                        fixture_draw_fn draw, const char *what)
{
    double *z = malloc(seeds * P * sizeof *z), sig = 0;
    ck_assert_ptr_nonnull(z);
    for (size_t k = 0; k < seeds; k++) sig = draw(f, k, z + k * P, P);
    assert_variance(z, seeds * P, sig * sig, what);
    free(z);
}

/* One run of an algorithm on m at eps with seed, its noise on or off, trained on f's
 * rows, into r; fails the case unless it succeeds. */
typedef void (*fixture_train_fn)(dp_linear *m, const fixture *f, double eps, uint64_t seed,
                                 int noise, dp_train_result *r);

/* A sweep over epsilon: the algorithm, the logistic model it trains (d features, l2), the
 * three epsilons (ascending), the seeds at each (seed0, seed0 + 1, ...) and the measure
 * averaged over them: the final regularized training loss, or with grad2 the final
 * ||grad F||^2. */
typedef struct fixture_sweep {
    fixture_train_fn train;
    size_t d;
    double l2;
    double eps[3];
    int seeds;
    uint64_t seed0;
    int grad2;
} fixture_sweep;

/* The sweep's measure after one run at eps with seed (noise on or off) on a fresh model. */
static inline double fixture_sweep_run(const fixture *f, const fixture_sweep *sw, double eps,
                                       uint64_t seed, int noise)
{
    dp_linear m = fixture_logistic(sw->d, sw->l2);
    dp_train_result r;
    sw->train(&m, f, eps, seed, noise, &r);
    double v = sw->grad2 ? r.final.grad_norm * r.final.grad_norm : r.final.train_loss;
    dp_train_result_destroy(&r);
    dp_linear_destroy(&m);
    return v;
}

/* mean[e], the measure's mean over the seeds (noise on) at eps[e], falls strictly from
 * eps[0] to eps[2]. */
static inline void fixture_assert_falls_with_eps(const fixture *f, const fixture_sweep *sw,
                                                 double mean[3])
{
    for (int e = 0; e < 3; e++) {
        mean[e] = 0;
        for (int k = 0; k < sw->seeds; k++)
            mean[e] += fixture_sweep_run(f, sw, sw->eps[e], sw->seed0 + (uint64_t)k, 1) /
                       sw->seeds;
    }
    ck_assert_msg(mean[0] > mean[1] && mean[1] > mean[2], "%s %g %g %g",
                  sw->grad2 ? "||grad||^2" : "losses", mean[0], mean[1], mean[2]);
}

#endif
