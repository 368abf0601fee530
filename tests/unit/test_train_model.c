/* test_train_model.c: SGD and DP-SGD on layered models (algorithms/train_model.c).
 *
 * The sampling, schedule and divergence logic is shared with the linear trainer and
 * tested in depth by test_train.c; here the model's side of the loop is checked:
 *   - validation names the field, and leaves no curve behind;
 *   - curve layout, and the metrics of a point against dp_model_evaluate /
 *     dp_model_loss_grad computed independently (1e-12 relative: same sums, maybe
 *     another order);
 *   - sgd == dp_sgd with sigma = 0, C = inf bit for bit, for every sampling, with batches
 *     larger than the model's max_batch (so the gather buffer is refilled within a step);
 *   - clipping, through one full-batch step against per-example gradients formed one
 *     example at a time;
 *   - the noise, through one step of dp_sgd minus the same step with sigma = 0 (same
 *     batch: the batch and noise streams are separate), which is exactly -eta noise / b;
 *   - gathering in pieces: max_batch 7 and max_batch >= n give the same training up to
 *     rounding;
 *   - learning a separable problem (mlp and a tiny cnn), determinism, divergence.
 * Statistical tolerances are 5 standard errors, stated at each check; all draws seeded.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"
#include "datasets/dataset.h"

enum { D = 16, K = 3 }; /* features, viewed as a (1, 4, 4) image; classes */

static dp_train_cfg base_cfg(dp_algorithm algo, size_t b, int epochs)
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

/* Synthetic train (3/4) and test (1/4) data, d = 16, 3 classes. */
typedef struct data {
    dp_dataset train, test;
} data;

static void make_data(data *S, size_t n, double margin, uint64_t seed)
{
    dp_synthetic_params p = {.n = n, .d = D, .n_classes = K, .margin = margin,
                             .label_noise = 0.0, .seed = seed};
    dp_dataset all;
    dp_err e;
    ck_assert_msg(dp_synthetic_make(&all, &p, &e) == DP_OK, "%s", e.msg);
    ck_assert_int_eq(dp_dataset_split(&all, n * 3 / 4, seed, &S->train, &S->test, &e), DP_OK);
    dp_dataset_destroy(&all);
}

static void free_data(data *S)
{
    dp_dataset_destroy(&S->train);
    dp_dataset_destroy(&S->test);
}

/* flatten, (dense h, relu) per hidden size, dense 3; input (1, 4, 4). */
static void new_mlp(dp_model *m, const int *hidden, size_t n_hidden, size_t max_batch,
                    uint64_t seed)
{
    dp_err e;
    ck_assert_msg(dp_model_build_named(m, "mlp", hidden, n_hidden, "relu", 1, 4, 4, K,
                                       max_batch, seed, &e) == DP_OK,
                  "%s", e.msg);
}

/* conv 8 3x3 same, relu, [maxpool 2 stride 1,] flatten, dense 3; input (1, 4, 4). The
 * pool exercises the model's argmax workspaces; it also costs accuracy on these data
 * (labels are linear in x, a max over neighbours is not), so the learning test omits it. */
static void new_cnn(dp_model *m, int pool, size_t max_batch, uint64_t seed)
{
    dp_layer_spec s[5] = {
        {.kind = DP_LAYER_CONV, .units = 8, .kernel = 3, .stride = 1, .padding = DP_PAD_SAME},
        {.kind = DP_LAYER_ACT, .act = {.kind = DP_ACT_RELU}},
    };
    size_t n = 2;
    if (pool) s[n++] = (dp_layer_spec){.kind = DP_LAYER_MAXPOOL, .kernel = 2, .stride = 1};
    s[n++] = (dp_layer_spec){.kind = DP_LAYER_FLATTEN};
    s[n++] = (dp_layer_spec){.kind = DP_LAYER_DENSE, .units = K};
    dp_err e;
    ck_assert_msg(dp_model_build(m, s, n, 1, 4, 4, K, max_batch, seed, &e) == DP_OK, "%s",
                  e.msg);
}

static int train(dp_model *m, const dp_train_cfg *c, double l2, const data *S,
                 dp_train_result *res, dp_err *e)
{
    return dp_train_model(m, c, l2, S->train.x, S->train.y, S->train.n, S->test.x,
                          S->test.y, S->test.n, res, e);
}

static int same_result(const dp_train_result *a, const dp_train_result *b)
{
    return a->diverged == b->diverged && a->iterations == b->iterations &&
           a->n_curve == b->n_curve && memcmp(&a->final, &b->final, sizeof a->final) == 0 &&
           memcmp(a->curve, b->curve, a->n_curve * sizeof *a->curve) == 0;
}

static double rel_diff(const double *a, const double *b, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

// ---- trainm-1: validation, curves ---------------------------------------------------------

static void expect_invalid(dp_model *m, const dp_train_cfg *c, double l2, const data *S,
                           const char *field)
{
    dp_train_result res;
    dp_err e;
    dp_err_clear(&e);
    ck_assert_int_eq(train(m, c, l2, S, &res, &e), DP_EINVAL);
    ck_assert_msg(strstr(e.msg, field) != NULL, "message '%s' does not name %s", e.msg, field);
    ck_assert_ptr_null(res.curve);
    dp_train_result_destroy(&res);
}

/* A dp_sgd config with one field broken by `edit` must fail naming `field`. */
#define EXPECT_INVALID(m, S, edit, field)                                                    \
    do {                                                                                     \
        dp_train_cfg c_ = base_cfg(DP_ALGO_DP_SGD, 10, 1);                                   \
        edit;                                                                                \
        expect_invalid((m), &c_, 0.0, (S), (field));                                         \
    } while (0)

START_TEST(test_validation)
{
    data S;
    make_data(&S, 200, 0.0, 3); /* 150 train, 50 test */
    dp_model m;
    new_mlp(&m, (const int[]){8}, 1, 16, 1);
    double *w0 = malloc(m.n_params * sizeof *w0);
    ck_assert_ptr_nonnull(w0);
    memcpy(w0, m.params, m.n_params * sizeof *w0);

    EXPECT_INVALID(&m, &S, c_.batch_size = 500,
                   "train.batch_size 500 exceeds the 150 training examples");
    EXPECT_INVALID(&m, &S, c_.batch_size = 0, "train.batch_size");
    EXPECT_INVALID(&m, &S, c_.epochs = 0, "train.epochs");
    EXPECT_INVALID(&m, &S, c_.clip = 0.0, "algorithm.clip");
    EXPECT_INVALID(&m, &S, c_.clip = NAN, "algorithm.clip");
    EXPECT_INVALID(&m, &S, (c_.clip = INFINITY, c_.noise_multiplier = 1.0),
                   "algorithm.noise_multiplier");
    EXPECT_INVALID(&m, &S, c_.noise_multiplier = -1.0, "algorithm.noise_multiplier");
    EXPECT_INVALID(&m, &S, c_.algorithm = (dp_algorithm)7, "algorithm.name");
    EXPECT_INVALID(&m, &S, c_.lr = 0.0, "train.lr");
    EXPECT_INVALID(&m, &S, (c_.lr_schedule = DP_LR_INVERSE_T, c_.lr_a = -1.0), "train.lr.a");
    EXPECT_INVALID(&m, &S, (c_.lr_schedule = DP_LR_STEP, c_.lr_step_at = 0),
                   "train.lr.step_at");
    EXPECT_INVALID(&m, &S, c_.eval_every = 0, "train.eval_every");
    EXPECT_INVALID(&m, &S, c_.sampling = (dp_sampling)9, "train.sampling");

    dp_train_cfg c = base_cfg(DP_ALGO_SGD, 10, 1);
    expect_invalid(&m, &c, -1.0, &S, "model.l2");
    expect_invalid(&m, &c, NAN, &S, "model.l2");
    expect_invalid(&m, &c, INFINITY, &S, "model.l2");
    int y17 = S.train.y[17];
    S.train.y[17] = K;
    expect_invalid(&m, &c, 0.0, &S, "y[17]");
    S.train.y[17] = y17;
    int y3 = S.test.y[3];
    S.test.y[3] = -1;
    expect_invalid(&m, &c, 0.0, &S, "test label y[3]");
    S.test.y[3] = y3;
    /* Nothing was trained by the failed calls. */
    ck_assert_int_eq(memcmp(w0, m.params, m.n_params * sizeof *w0), 0);

    dp_train_result res;
    dp_err e;
    ck_assert_int_eq(dp_train_model(&m, &c, 0.0, S.train.x, S.train.y, S.train.n, S.test.x,
                                    S.test.y, 0, &res, &e),
                     DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "test set"));
    dp_train_result_destroy(&res);

    m.params[5] = NAN;
    expect_invalid(&m, &c, 0.0, &S, "initial weights");
    dp_model empty;
    memset(&empty, 0, sizeof empty);
    expect_invalid(&empty, &c, 0.0, &S, "model is not built");

    /* sgd ignores clip and noise entirely. */
    m.params[5] = w0[5];
    c.clip = -3.0;
    c.noise_multiplier = NAN;
    ck_assert_int_eq(train(&m, &c, 0.0, &S, &res, NULL), DP_OK);
    ck_assert_double_eq(res.noise_std, 0.0);
    dp_train_result_destroy(&res);

    free(w0);
    dp_model_destroy(&m);
    free_data(&S);
}
END_TEST

/* The metrics a curve point must hold for m's current weights, computed directly. */
static void reference_point(dp_model *m, double l2, const data *S, dp_curve_point *p)
{
    size_t P = m->n_params, n = S->train.n;
    double *g = calloc(P, sizeof *g);
    ck_assert_ptr_nonnull(g);
    double loss;
    ck_assert_int_eq(dp_model_evaluate(m, S->train.x, S->train.y, n, &loss, NULL), DP_OK);
    dp_model_loss_grad(m, S->train.x, S->train.y, n, g);
    double gg = 0.0;
    for (size_t j = 0; j < P; j++) {
        double gj = g[j] / (double)n + l2 * m->params[j];
        gg += gj * gj;
    }
    p->train_loss = loss + 0.5 * l2 * dp_dot(m->params, m->params, P);
    p->grad_norm = sqrt(gg);
    ck_assert_int_eq(dp_model_evaluate(m, S->test.x, S->test.y, S->test.n, &p->test_loss,
                                       &p->test_accuracy),
                     DP_OK);
    free(g);
}

static void expect_point(const dp_curve_point *got, const dp_curve_point *ref)
{
    ck_assert_double_eq_tol(got->train_loss, ref->train_loss, 1e-12 * fabs(ref->train_loss));
    ck_assert_double_eq_tol(got->grad_norm, ref->grad_norm, 1e-12 * fabs(ref->grad_norm));
    ck_assert_double_eq_tol(got->test_loss, ref->test_loss, 1e-12 * fabs(ref->test_loss));
    ck_assert_double_eq(got->test_accuracy, ref->test_accuracy);
}

START_TEST(test_curve_layout)
{
    data S;
    make_data(&S, 400, 0.0, 4); /* 300 train: 7 steps per epoch with b = 40 */
    static const struct {
        int epochs, every;
        size_t n_points;
    } cases[] = {{7, 3, 4}, {6, 3, 3}, {1, 5, 2}, {4, 1, 5}};
    const double l2 = 0.01;
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        dp_model m;
        new_mlp(&m, (const int[]){12}, 1, 32, 10 + t);
        dp_curve_point ref0, ref1;
        reference_point(&m, l2, &S, &ref0);
        dp_train_cfg c = base_cfg(t % 2 ? DP_ALGO_DP_SGD : DP_ALGO_SGD, 40, cases[t].epochs);
        c.eval_every = cases[t].every;
        c.sampling = t == 2 ? DP_SAMPLING_WOR : DP_SAMPLING_SHUFFLE;
        c.noise_multiplier = 0.5;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, l2, &S, &res, NULL), DP_OK);
        ck_assert(!res.diverged);
        ck_assert_uint_eq(res.n_curve, cases[t].n_points);
        ck_assert_int_eq(res.iterations, 7L * cases[t].epochs);
        ck_assert_int_eq(res.curve[0].iteration, 0);
        ck_assert_double_eq(res.curve[0].epoch, 0.0);
        expect_point(&res.curve[0], &ref0);
        for (size_t i = 1; i < res.n_curve; i++) {
            long it = res.curve[i].iteration;
            ck_assert_int_gt(it, res.curve[i - 1].iteration);
            ck_assert(it % 7 == 0 && ((it / 7) % cases[t].every == 0 || it == res.iterations));
            ck_assert_double_eq_tol(res.curve[i].epoch, it * 40.0 / 300.0, 1e-12);
        }
        ck_assert_int_eq(memcmp(&res.final, &res.curve[res.n_curve - 1], sizeof res.final), 0);
        ck_assert_int_eq(res.final.iteration, res.iterations);
        /* The final point describes the weights the model now holds. */
        reference_point(&m, l2, &S, &ref1);
        expect_point(&res.final, &ref1);
        ck_assert_double_eq(res.noise_std, t % 2 ? 0.5 : 0.0);
        dp_train_result_destroy(&res);
        dp_model_destroy(&m);
    }
    free_data(&S);
}
END_TEST

// ---- trainm-2: sgd == dp_sgd(sigma 0, C inf), noise, gathering -----------------------------

START_TEST(test_sgd_equals_dpsgd)
{
    /* b = 24 > max_batch = 16: every step gathers and runs the batch in two pieces. An
     * mlp and a cnn (whose conv layer stores per-example gradients when clipping, so a
     * clipped path with C = inf would not be bit-identical to the plain one). */
    data S;
    make_data(&S, 400, 0.0, 5);
    dp_sampling samplings[3] = {DP_SAMPLING_SHUFFLE, DP_SAMPLING_POISSON, DP_SAMPLING_WOR};
    for (int s = 0; s < 6; s++) {
        dp_model a, b;
        if (s < 3) {
            new_mlp(&a, (const int[]){20, 10}, 2, 16, 7);
            new_mlp(&b, (const int[]){20, 10}, 2, 16, 7);
        } else {
            new_cnn(&a, 1, 16, 7);
            new_cnn(&b, 1, 16, 7);
        }
        dp_train_cfg ca = base_cfg(DP_ALGO_SGD, 24, 3);
        ca.sampling = samplings[s % 3];
        ca.lr_schedule = DP_LR_INVERSE_T;
        ca.lr_a = 1.0;
        ca.eval_every = 2;
        ca.clip = 0.01; /* ignored by sgd */
        ca.noise_multiplier = 3.0;
        dp_train_cfg cb = ca;
        cb.algorithm = DP_ALGO_DP_SGD;
        cb.clip = INFINITY;
        cb.noise_multiplier = 0.0;
        dp_train_result ra, rb;
        ck_assert_int_eq(train(&a, &ca, 1e-3, &S, &ra, NULL), DP_OK);
        ck_assert_int_eq(train(&b, &cb, 1e-3, &S, &rb, NULL), DP_OK);
        ck_assert_int_eq(memcmp(a.params, b.params, a.n_params * sizeof *a.params), 0);
        ck_assert(same_result(&ra, &rb));
        ck_assert_double_eq(ra.noise_std, 0.0);
        ck_assert_double_eq(rb.noise_std, 0.0);
        ck_assert(!ra.diverged);
        ck_assert_int_eq(ra.iterations, 3 * (300 / 24));
        /* Training moved the weights and lowered the loss (not a vacuous equality). */
        ck_assert_double_lt(ra.final.train_loss, ra.curve[0].train_loss);
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    free_data(&S);
}
END_TEST

START_TEST(test_noise_variance)
{
    /* One step from the same weights, dp_sgd with sigma = 0.7 and with sigma = 0, same C
     * (clipping active in both) and the same batch (separate streams): the difference of
     * the weights is -eta N(0, (sigma C)^2 I) / b, each coordinate of variance
     * v0 = (eta sigma C / b)^2. With P = 5123 coordinates, sum(diff^2) / v0 ~ chi-square(P):
     * mean P, sd sqrt(2P). Accept within 5 sd, a ratio in 1 +- 0.099: dropping the noise
     * (ratio 0), doubling it (4) or using sigma instead of sigma C (C = 2: 0.25) fail.
     * The mean difference must be 0 within 5 sd, 5 sqrt(v0 / P). */
    data S;
    make_data(&S, 40, 0.0, 6); /* 30 train */
    dp_sampling samplings[3] = {DP_SAMPLING_SHUFFLE, DP_SAMPLING_POISSON, DP_SAMPLING_WOR};
    /* One step each: floor(30 / b) = 1 (Poisson: q = 16/30, the batch has random size). */
    size_t batches[3] = {30, 16, 20};
    const double sigma = 0.7, C = 2.0, eta = 0.5;
    for (int s = 0; s < 3; s++) {
        dp_model a, b;
        new_mlp(&a, (const int[]){256}, 1, 8, 21);
        new_mlp(&b, (const int[]){256}, 1, 8, 21);
        ck_assert_uint_eq(a.n_params, 5123);
        dp_train_cfg ca = base_cfg(DP_ALGO_DP_SGD, batches[s], 1);
        ca.sampling = samplings[s];
        ca.lr = eta;
        ca.clip = C;
        ca.seed = 1234 + (uint64_t)s;
        dp_train_cfg cb = ca;
        cb.noise_multiplier = sigma;
        dp_train_result ra, rb;
        ck_assert_int_eq(train(&a, &ca, 0.1, &S, &ra, NULL), DP_OK);
        ck_assert_int_eq(train(&b, &cb, 0.1, &S, &rb, NULL), DP_OK);
        ck_assert_int_eq(ra.iterations, 1);
        ck_assert_int_eq(rb.iterations, 1);
        ck_assert_double_eq_tol(rb.noise_std, sigma * C, 1e-15);
        double v0 = pow(eta * sigma * C / (double)batches[s], 2);
        size_t P = a.n_params;
        double ss = 0.0, sum = 0.0;
        for (size_t j = 0; j < P; j++) {
            double diff = b.params[j] - a.params[j];
            ss += diff * diff;
            sum += diff;
        }
        double ratio = ss / v0 / (double)P;
        ck_assert_msg(fabs(ratio - 1.0) <= 5.0 * sqrt(2.0 / (double)P),
                      "sampling %d: noise variance ratio %g", s, ratio);
        ck_assert_double_eq_tol(sum / (double)P, 0.0, 5.0 * sqrt(v0 / (double)P));
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    free_data(&S);
}
END_TEST

START_TEST(test_clipping)
{
    /* One full-batch step (b = n = 30) with C below every per-example gradient norm must
     * equal the brute-force step: each example's gradient from dp_model_loss_grad on
     * that example alone, scaled by C / ||g_i||, summed, divided by b, plus l2 w.
     * Relative error <= 1e-10 (the same sums in another order). The data part of the
     * update is then at most eta C in norm. */
    data S;
    make_data(&S, 40, 0.0, 15); /* 30 train */
    size_t n = S.train.n;
    const double C = 1e-3, eta = 0.3, l2 = 0.05;
    for (int arch = 0; arch < 2; arch++) {
        dp_model m;
        if (arch == 0)
            new_mlp(&m, (const int[]){12}, 1, 8, 16);
        else
            new_cnn(&m, 1, 8, 16);
        size_t P = m.n_params;
        double *w0 = malloc(P * sizeof *w0), *ref = calloc(P, sizeof *ref);
        double *gi = malloc(P * sizeof *gi);
        ck_assert(w0 && ref && gi);
        memcpy(w0, m.params, P * sizeof *w0);
        for (size_t i = 0; i < n; i++) {
            memset(gi, 0, P * sizeof *gi);
            dp_model_loss_grad(&m, S.train.x + i * D, S.train.y + i, 1, gi);
            double nrm = dp_nrm2(gi, P);
            ck_assert_double_gt(nrm, C); /* every example is clipped */
            dp_axpy(ref, C / nrm, gi, P);
        }
        for (size_t j = 0; j < P; j++) ref[j] = w0[j] - eta * (ref[j] / (double)n + l2 * w0[j]);

        dp_train_cfg c = base_cfg(DP_ALGO_DP_SGD, n, 1);
        c.lr = eta;
        c.clip = C;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, l2, &S, &res, NULL), DP_OK);
        ck_assert_int_eq(res.iterations, 1);
        ck_assert_double_le(rel_diff(m.params, ref, P), 1e-10);
        double upd = 0.0;
        for (size_t j = 0; j < P; j++) {
            double data_part = m.params[j] - w0[j] + eta * l2 * w0[j];
            upd += data_part * data_part;
        }
        ck_assert_double_le(sqrt(upd), eta * C * (1.0 + 1e-12));
        /* Not vacuous: the clipped sum of 30 norm-C directions keeps a good part. */
        ck_assert_double_gt(sqrt(upd), 0.05 * eta * C);
        dp_train_result_destroy(&res);
        free(w0);
        free(ref);
        free(gi);
        dp_model_destroy(&m);
    }
    free_data(&S);
}
END_TEST

START_TEST(test_gather_pieces)
{
    /* The same DP-SGD training (clipping, noise, Poisson batches of about 40) on a model
     * built for max_batch 7 (every batch gathered and run in pieces of 7) and for 512
     * (whole): the same steps up to rounding, 1e-7 relative on the weights after 3
     * epochs. The models' products are float (dense.c, conv.c) and a weight gradient's
     * float sums end where a piece ends, so the pieces round apart by about 1e-7 per
     * step (measured 1.6e-9 after 3 epochs); a wrong offset moves the weights by far
     * more. Guards the gather loop's offsets. */
    data S;
    make_data(&S, 400, 0.0, 8);
    for (int arch = 0; arch < 2; arch++) {
        dp_model a, b;
        if (arch == 0) {
            new_mlp(&a, (const int[]){24}, 1, 7, 9);
            new_mlp(&b, (const int[]){24}, 1, 512, 9);
        } else {
            new_cnn(&a, 1, 7, 9);
            new_cnn(&b, 1, 512, 9);
        }
        dp_train_cfg c = base_cfg(DP_ALGO_DP_SGD, 40, 3);
        c.sampling = DP_SAMPLING_POISSON;
        c.clip = 0.3;
        c.noise_multiplier = 0.8;
        c.lr = 0.3;
        dp_train_result ra, rb;
        ck_assert_int_eq(train(&a, &c, 1e-3, &S, &ra, NULL), DP_OK);
        ck_assert_int_eq(train(&b, &c, 1e-3, &S, &rb, NULL), DP_OK);
        ck_assert_double_le(rel_diff(a.params, b.params, a.n_params), 1e-7);
        ck_assert_double_eq_tol(ra.final.train_loss, rb.final.train_loss, 1e-7);
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    free_data(&S);
}
END_TEST

// ---- trainm-3: learning, determinism, divergence -------------------------------------------

START_TEST(test_learns_separable)
{
    data S;
    make_data(&S, 2000, 0.1, 12); /* 1500 train, 500 test, margin 0.1 */
    static const struct {
        int cnn;
        dp_algorithm algo;
        double min_acc;
    } cases[] = {{0, DP_ALGO_SGD, 0.95}, {1, DP_ALGO_SGD, 0.95}, {0, DP_ALGO_DP_SGD, 0.9}};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        dp_model m;
        if (cases[t].cnn)
            new_cnn(&m, 0, 64, 13);
        else
            new_mlp(&m, (const int[]){32}, 1, 64, 13);
        dp_train_cfg c = base_cfg(cases[t].algo, 32, 30);
        c.lr = 0.5;
        c.eval_every = 10;
        c.clip = 1.0;
        c.noise_multiplier = 0.5;
        c.sampling = cases[t].algo == DP_ALGO_DP_SGD ? DP_SAMPLING_POISSON : DP_SAMPLING_SHUFFLE;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, 1e-4, &S, &res, NULL), DP_OK);
        ck_assert(!res.diverged);
        ck_assert_msg(res.final.test_accuracy >= cases[t].min_acc, "case %zu: accuracy %g",
                      t, res.final.test_accuracy);
        ck_assert_double_lt(res.final.train_loss, 0.5 * res.curve[0].train_loss);
        ck_assert_double_lt(res.final.grad_norm, res.curve[0].grad_norm);
        dp_train_result_destroy(&res);
        dp_model_destroy(&m);
    }
    free_data(&S);
}
END_TEST

START_TEST(test_determinism)
{
    data S;
    make_data(&S, 400, 0.0, 14);
    dp_model a, b, e;
    new_cnn(&a, 1, 16, 3);
    new_cnn(&b, 1, 16, 3);
    new_cnn(&e, 1, 16, 3);
    dp_train_cfg c = base_cfg(DP_ALGO_DP_SGD, 25, 3);
    c.sampling = DP_SAMPLING_POISSON;
    c.clip = 0.5;
    c.noise_multiplier = 1.1;
    dp_train_result r1, r2, r3;
    ck_assert_int_eq(train(&a, &c, 1e-3, &S, &r1, NULL), DP_OK);
    ck_assert_int_eq(train(&b, &c, 1e-3, &S, &r2, NULL), DP_OK);
    ck_assert_int_eq(memcmp(a.params, b.params, a.n_params * sizeof *a.params), 0);
    ck_assert(same_result(&r1, &r2));
    c.seed = 2;
    ck_assert_int_eq(train(&e, &c, 1e-3, &S, &r3, NULL), DP_OK);
    ck_assert(memcmp(a.params, e.params, a.n_params * sizeof *a.params) != 0);
    dp_train_result_destroy(&r1);
    dp_train_result_destroy(&r2);
    dp_train_result_destroy(&r3);
    dp_train_result_destroy(&r3); /* twice is harmless */
    dp_model_destroy(&a);
    dp_model_destroy(&b);
    dp_model_destroy(&e);
    free_data(&S);
}
END_TEST

START_TEST(test_divergence)
{
    /* lr = 1e300: the first step throws the weights near 1e300, after which the logits
     * or the next step overflow. Training stops, the model holds finite weights, and the
     * reported metrics are finite (those of the last finite weights if they evaluate to
     * finite numbers, else the last finite curve point). */
    data S;
    make_data(&S, 200, 0.0, 11);
    for (int arch = 0; arch < 2; arch++) {
        dp_model m;
        if (arch == 0)
            new_mlp(&m, (const int[]){16}, 1, 32, 5);
        else
            new_cnn(&m, 1, 32, 5);
        dp_train_cfg c = base_cfg(arch ? DP_ALGO_DP_SGD : DP_ALGO_SGD, 10, 5);
        c.lr = 1e300;
        c.noise_multiplier = 1.0;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, 1.0, &S, &res, NULL), DP_OK);
        ck_assert_int_eq(res.diverged, 1);
        ck_assert_int_lt(res.iterations, 5 * 15);
        ck_assert(dp_all_finite(m.params, m.n_params));
        ck_assert_uint_ge(res.n_curve, 1);
        ck_assert_int_eq(memcmp(&res.final, &res.curve[res.n_curve - 1], sizeof res.final),
                         0);
        ck_assert(isfinite(res.final.train_loss) && isfinite(res.final.test_loss) &&
                  isfinite(res.final.test_accuracy) && isfinite(res.final.grad_norm));
        for (size_t i = 0; i < res.n_curve; i++) {
            ck_assert(isfinite(res.curve[i].train_loss) && isfinite(res.curve[i].grad_norm));
            if (i) ck_assert_int_gt(res.curve[i].iteration, res.curve[i - 1].iteration);
        }
        dp_train_result_destroy(&res);
        dp_model_destroy(&m);
    }
    free_data(&S);
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 300); /* sanitizer builds are slow; speed is not tested here */
    tcase_add_test(tc, test);
    return tc;
}

static Suite *train_model_suite(void)
{
    Suite *s = suite_create("train_model");
    suite_add_tcase(s, tcase("trainm-1.1", test_validation));
    suite_add_tcase(s, tcase("trainm-1.2", test_curve_layout));
    suite_add_tcase(s, tcase("trainm-2.1", test_sgd_equals_dpsgd));
    suite_add_tcase(s, tcase("trainm-2.2", test_noise_variance));
    suite_add_tcase(s, tcase("trainm-2.3", test_gather_pieces));
    suite_add_tcase(s, tcase("trainm-2.4", test_clipping));
    suite_add_tcase(s, tcase("trainm-3.1", test_learns_separable));
    suite_add_tcase(s, tcase("trainm-3.2", test_determinism));
    suite_add_tcase(s, tcase("trainm-3.3", test_divergence));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(train_model_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
