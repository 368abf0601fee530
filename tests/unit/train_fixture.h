/* train_fixture.h: what the Check programs of the first-order trainers share
 * (test_train.c for dp_train_linear, test_train_model.c for dp_train_model, and through
 * convex_fixture.h the convex algorithms' tests, which compare against those trainers):
 * the base config, synthetic train/test data, the comparison of two results, a copy of
 * the weights, freeing a pair of runs, and the checks both trainers must pass alike.
 * The checks take weights as arrays (a dp_linear's w, a dp_model's params) so one piece
 * of code serves both kinds of model.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_TRAIN_FIXTURE_H
#define DPERM_TRAIN_FIXTURE_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/models/linear.h"
#include "algorithms/train.h"
#include "datasets/dataset.h"

/* Each case's timeout in seconds: sanitizer builds are slow; speed is not tested here. */
#define TRAIN_CASE_TIMEOUT 300

/* Every field set, so a test changes only what it is about. */
static inline dp_train_cfg train_base_cfg(dp_algorithm algo, size_t b, int epochs)
{
    dp_train_cfg c = {
        .algorithm = algo,
        .epochs = epochs,
        .batch_size = b,
        .sampling = DP_SAMPLING_SHUFFLE,
        .lr_schedule = DP_LR_CONSTANT,
        .lr = 0.5,
        .lr_a = 1.0,
        .lr_step_at = 1,
        .lr_step_factor = 0.1,
        .clip = 1.0,
        .noise_multiplier = 0.0,
        .eval_every = 1,
        .seed = 1,
    };
    return c;
}

/* Synthetic train (3/4 of the rows) and test (1/4) data, no label noise. */
typedef struct train_data {
    dp_dataset train, test;
} train_data;

static inline void train_data_make(train_data *D, size_t n, size_t d, int classes,
                                   double margin, uint64_t seed)
{
    dp_synthetic_params p = {.n = n, .d = d, .n_classes = classes, .margin = margin,
                             .label_noise = 0.0, .seed = seed};
    dp_dataset all;
    dp_err e;
    ck_assert_msg(dp_synthetic_make(&all, &p, &e) == DP_OK, "%s", e.msg);
    ck_assert_int_eq(dp_dataset_split(&all, n * 3 / 4, seed, &D->train, &D->test, &e), DP_OK);
    dp_dataset_destroy(&all);
}

static inline void train_data_free(train_data *D)
{
    dp_dataset_destroy(&D->train);
    dp_dataset_destroy(&D->test);
}

/* The same training run: divergence, step count and every curve point, bit for bit. */
static inline int train_same_result(const dp_train_result *a, const dp_train_result *b)
{
    return a->diverged == b->diverged && a->iterations == b->iterations &&
           a->n_curve == b->n_curve && memcmp(&a->final, &b->final, sizeof a->final) == 0 &&
           memcmp(a->curve, b->curve, a->n_curve * sizeof *a->curve) == 0;
}

/* Frees two linear models trained side by side and their results. */
static inline void train_pair_free(dp_linear *a, dp_linear *b, dp_train_result *ra,
                                   dp_train_result *rb)
{
    dp_train_result_destroy(ra);
    dp_train_result_destroy(rb);
    dp_linear_destroy(a);
    dp_linear_destroy(b);
}

/* A copy of P weights (to show later that a refused call trained nothing); caller frees. */
static inline double *train_weights_copy(const double *w, size_t P)
{
    double *w0 = malloc(P * sizeof *w0);
    ck_assert_ptr_nonnull(w0);
    memcpy(w0, w, P * sizeof *w0);
    return w0;
}

// ---- validation --------------------------------------------------------------------------

/* The i-th dp_sgd config with one field broken that both trainers refuse, and the field
 * the message must name; 0 past the last. The batch-size message assumes the 150
 * training rows of train_data_make(200 rows). */
static inline int train_broken_cfg(int i, dp_train_cfg *c, const char **field)
{
    *c = train_base_cfg(DP_ALGO_DP_SGD, 10, 1);
    switch (i) {
    case 0: c->batch_size = 500;
            *field = "train.batch_size 500 exceeds the 150 training examples"; break;
    case 1: c->batch_size = 0; *field = "train.batch_size"; break;
    case 2: c->epochs = 0; *field = "train.epochs"; break;
    case 3: c->clip = 0.0; *field = "algorithm.clip"; break;
    case 4: c->clip = NAN; *field = "algorithm.clip"; break;
    case 5: c->clip = INFINITY; c->noise_multiplier = 1.0;
            *field = "algorithm.noise_multiplier"; break;
    case 6: c->noise_multiplier = -1.0; *field = "algorithm.noise_multiplier"; break;
    case 7: c->algorithm = (dp_algorithm)7; *field = "algorithm.name"; break;
    case 8: c->lr = 0.0; *field = "train.lr"; break;
    case 9: c->lr_schedule = DP_LR_INVERSE_T; c->lr_a = -1.0; *field = "train.lr.a"; break;
    case 10: c->lr_schedule = DP_LR_STEP; c->lr_step_at = 0; *field = "train.lr.step_at";
             break;
    case 11: c->eval_every = 0; *field = "train.eval_every"; break;
    case 12: c->sampling = (dp_sampling)9; *field = "train.sampling"; break;
    default: return 0;
    }
    return 1;
}

/* A trainer's return rc, error e and result res for a refused config: DP_EINVAL, the
 * message names field (NULL: any message), no curve is left behind. Frees res. */
static inline void train_expect_einval(int rc, const dp_err *e, dp_train_result *res,
                                       const char *field)
{
    ck_assert_int_eq(rc, DP_EINVAL);
    if (field)
        ck_assert_msg(strstr(e->msg, field) != NULL, "message '%s' does not name %s", e->msg,
                      field);
    ck_assert_ptr_null(res->curve);
    dp_train_result_destroy(res);
}

// ---- curve layout ------------------------------------------------------------------------

/* epochs with eval_every `every` give n_points curve points (iteration 0, every every-th
 * epoch, the end once). */
typedef struct train_curve_case {
    int epochs, every;
    size_t n_points;
} train_curve_case;

static inline const train_curve_case *train_curve_cases(size_t *count)
{
    static const train_curve_case cases[] = {{7, 3, 4}, {6, 3, 3}, {1, 5, 2}, {4, 1, 5}};
    *count = sizeof cases / sizeof cases[0];
    return cases;
}

/* The curve of a run of k.epochs epochs of n_train / b steps on n_train rows: k.n_points
 * points, the first at iteration 0, then ascending at whole epochs that are multiples of
 * k.every or the end, each with its epoch; the final point is the last one. */
static inline void train_assert_curve(const dp_train_result *res, const train_curve_case *k,
                                      size_t b, size_t n_train)
{
    long steps = (long)(n_train / b);
    ck_assert_uint_eq(res->n_curve, k->n_points);
    ck_assert_int_eq(res->iterations, steps * k->epochs);
    ck_assert_int_eq(res->curve[0].iteration, 0);
    for (size_t i = 1; i < res->n_curve; i++) {
        long it = res->curve[i].iteration;
        ck_assert_int_gt(it, res->curve[i - 1].iteration);
        ck_assert(it % steps == 0 && ((it / steps) % k->every == 0 || it == res->iterations));
        ck_assert_double_eq_tol(res->curve[i].epoch, (double)it * (double)b / (double)n_train,
                                1e-12);
    }
    ck_assert_int_eq(memcmp(&res->final, &res->curve[res->n_curve - 1], sizeof res->final), 0);
    ck_assert_int_eq(res->final.iteration, res->iterations);
}

// ---- sgd == dp_sgd, noise, clipping ------------------------------------------------------

/* sgd (ca) and the dp_sgd that must equal it bit for bit (cb: C = inf, sigma = 0), on
 * sampling s with an a/t schedule. ca's clip and noise are set to values sgd must
 * ignore. */
static inline void train_sgd_and_dpsgd(dp_sampling s, size_t b, int epochs, double lr_a,
                                       dp_train_cfg *ca, dp_train_cfg *cb)
{
    *ca = train_base_cfg(DP_ALGO_SGD, b, epochs);
    ca->sampling = s;
    ca->lr_schedule = DP_LR_INVERSE_T;
    ca->lr_a = lr_a;
    ca->eval_every = 2;
    ca->clip = 0.01; /* ignored by sgd */
    ca->noise_multiplier = 3.0;
    *cb = *ca;
    cb->algorithm = DP_ALGO_DP_SGD;
    cb->clip = INFINITY;
    cb->noise_multiplier = 0.0;
}

/* The runs of train_sgd_and_dpsgd's two configs: the same P weights (wa, wb) and result,
 * no noise, no divergence. */
static inline void train_assert_sgd_is_dpsgd(const double *wa, const double *wb, size_t P,
                                             const dp_train_result *ra,
                                             const dp_train_result *rb)
{
    ck_assert_int_eq(memcmp(wa, wb, P * sizeof *wa), 0);
    ck_assert(train_same_result(ra, rb));
    ck_assert_double_eq(ra->noise_std, 0.0);
    ck_assert_double_eq(rb->noise_std, 0.0);
    ck_assert(!ra->diverged);
}

/* One step without (wa) and with (wb) noise from the same weights and batch: the P
 * differences wb - wa are N(0, v0) each. sum(diff^2) / v0 ~ chi-square(P), mean P and sd
 * sqrt(2P): the ratio to P within 5 sd; the mean difference 0 within 5 sd, sqrt(v0 / P).
 * s names the sampling in the message. */
static inline void train_assert_noise_step(const double *wa, const double *wb, size_t P,
                                           double v0, int s)
{
    double ss = 0.0, sum = 0.0;
    for (size_t j = 0; j < P; j++) {
        double diff = wb[j] - wa[j];
        ss += diff * diff;
        sum += diff;
    }
    double ratio = ss / v0 / (double)P;
    ck_assert_msg(fabs(ratio - 1.0) <= 5.0 * sqrt(2.0 / (double)P),
                  "sampling %d: noise variance ratio %g", s, ratio);
    ck_assert_double_eq_tol(sum / (double)P, 0.0, 5.0 * sqrt(v0 / (double)P));
}

/* One full-batch dp_sgd step from w0 to w (P weights, step eta, l2, clip C below every
 * example's gradient norm) against the brute-force step ref: relative error <= 1e-10
 * (the same sums in another order); the data part of the update is at most eta C in
 * norm, and not vacuous: the clipped sum of the rows' norm-C directions keeps a good
 * part of it. */
static inline void train_assert_clipped_step(const double *w, const double *w0,
                                             const double *ref, size_t P, double eta,
                                             double l2, double C)
{
    double num = 0.0, den = 0.0, upd = 0.0;
    for (size_t j = 0; j < P; j++) {
        num += (w[j] - ref[j]) * (w[j] - ref[j]);
        den += ref[j] * ref[j];
        double data_part = w[j] - w0[j] + eta * l2 * w0[j];
        upd += data_part * data_part;
    }
    ck_assert_double_le(sqrt(num / den), 1e-10);
    ck_assert_double_le(sqrt(upd), eta * C * (1.0 + 1e-12));
    ck_assert_double_gt(sqrt(upd), 0.05 * eta * C);
}

// ---- determinism, divergence -------------------------------------------------------------

/* Runs a and b of one config and e of the same with another seed (P weights each): a and
 * b are the same bit for bit, e differs. Frees the three results (r3 twice: harmless). */
static inline void train_assert_deterministic(const double *wa, const double *wb,
                                              const double *we, size_t P, dp_train_result *r1,
                                              dp_train_result *r2, dp_train_result *r3)
{
    ck_assert_int_eq(memcmp(wa, wb, P * sizeof *wa), 0);
    ck_assert(train_same_result(r1, r2));
    ck_assert(memcmp(wa, we, P * sizeof *wa) != 0);
    dp_train_result_destroy(r1);
    dp_train_result_destroy(r2);
    dp_train_result_destroy(r3);
    dp_train_result_destroy(r3); /* twice is harmless */
}

/* A run whose rate overflows the weights, 5 epochs of 15 steps (150 training rows,
 * b = 10): stopped early as diverged, the model holds finite weights w (P), and the
 * final point (the last curve point) and every curve point's loss are finite. */
static inline void train_assert_diverged(const dp_train_result *res, const double *w, size_t P)
{
    ck_assert_int_eq(res->diverged, 1);
    ck_assert_int_lt(res->iterations, 5 * 15);
    ck_assert(dp_all_finite(w, P));
    ck_assert_uint_ge(res->n_curve, 1);
    ck_assert_int_eq(memcmp(&res->final, &res->curve[res->n_curve - 1], sizeof res->final), 0);
    ck_assert(isfinite(res->final.train_loss) && isfinite(res->final.test_loss) &&
              isfinite(res->final.test_accuracy) && isfinite(res->final.grad_norm));
    for (size_t i = 0; i < res->n_curve; i++) ck_assert(isfinite(res->curve[i].train_loss));
}

#endif
