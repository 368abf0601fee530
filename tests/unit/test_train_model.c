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
#include "tests/unit/test_util.h"
#include "tests/unit/train_fixture.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"

enum { D = 16, K = 3 }; /* features, viewed as a (1, 4, 4) image; classes */

/* Synthetic train (3/4) and test (1/4) data, d = 16, 3 classes. */
static void make_data(train_data *S, size_t n, double margin, uint64_t seed)
{
    train_data_make(S, n, D, K, margin, seed);
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

/* The two architectures the loops over arch check alike: arch 0 the mlp with one hidden
 * layer of `hidden` units, arch 1 the cnn with its pool. */
static void new_arch(dp_model *m, int arch, int hidden, size_t max_batch, uint64_t seed)
{
    if (arch == 0)
        new_mlp(m, (const int[]){hidden}, 1, max_batch, seed);
    else
        new_cnn(m, 1, max_batch, seed);
}

static int train(dp_model *m, const dp_train_cfg *c, double l2, const train_data *S,
                 dp_train_result *res, dp_err *e)
{
    return dp_train_model(m, c, l2, S->train.x, S->train.y, S->train.n, S->test.x,
                          S->test.y, S->test.n, res, e);
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

static void expect_invalid(dp_model *m, const dp_train_cfg *c, double l2,
                           const train_data *S, const char *field)
{
    dp_train_result res;
    dp_err e;
    dp_err_clear(&e);
    train_expect_einval(train(m, c, l2, S, &res, &e), &e, &res, field);
}

START_TEST(test_validation)
{
    train_data S;
    make_data(&S, 200, 0.0, 3); /* 150 train, 50 test */
    dp_model m;
    new_mlp(&m, (const int[]){8}, 1, 16, 1);
    double *w0 = train_weights_copy(m.params, m.n_params);

    /* each dp_sgd config of train_fixture.h with one field broken fails naming it */
    dp_train_cfg c;
    const char *field;
    for (int i = 0; train_broken_cfg(i, &c, &field); i++)
        expect_invalid(&m, &c, 0.0, &S, field);

    c = train_base_cfg(DP_ALGO_SGD, 10, 1);
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
    train_data_free(&S);
}
END_TEST

/* The metrics a curve point must hold for m's current weights, computed directly. */
static void reference_point(dp_model *m, double l2, const train_data *S, dp_curve_point *p)
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
    train_data S;
    make_data(&S, 400, 0.0, 4); /* 300 train: 7 steps per epoch with b = 40 */
    size_t n_cases;
    const train_curve_case *cases = train_curve_cases(&n_cases);
    const double l2 = 0.01;
    for (size_t t = 0; t < n_cases; t++) {
        dp_model m;
        new_mlp(&m, (const int[]){12}, 1, 32, 10 + t);
        dp_curve_point ref0, ref1;
        reference_point(&m, l2, &S, &ref0);
        dp_train_cfg c =
            train_base_cfg(t % 2 ? DP_ALGO_DP_SGD : DP_ALGO_SGD, 40, cases[t].epochs);
        c.eval_every = cases[t].every;
        c.sampling = t == 2 ? DP_SAMPLING_WOR : DP_SAMPLING_SHUFFLE;
        c.noise_multiplier = 0.5;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, l2, &S, &res, NULL), DP_OK);
        ck_assert(!res.diverged);
        train_assert_curve(&res, &cases[t], 40, S.train.n);
        ck_assert_double_eq(res.curve[0].epoch, 0.0);
        expect_point(&res.curve[0], &ref0);
        /* The final point describes the weights the model now holds. */
        reference_point(&m, l2, &S, &ref1);
        expect_point(&res.final, &ref1);
        ck_assert_double_eq(res.noise_std, t % 2 ? 0.5 : 0.0);
        dp_train_result_destroy(&res);
        dp_model_destroy(&m);
    }
    train_data_free(&S);
}
END_TEST

// ---- trainm-2: sgd == dp_sgd(sigma 0, C inf), noise, gathering -----------------------------

START_TEST(test_sgd_equals_dpsgd)
{
    /* b = 24 > max_batch = 16: every step gathers and runs the batch in two pieces. An
     * mlp and a cnn (whose conv layer stores per-example gradients when clipping, so a
     * clipped path with C = inf would not be bit-identical to the plain one). */
    train_data S;
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
        dp_train_cfg ca, cb;
        train_sgd_and_dpsgd(samplings[s % 3], 24, 3, 1.0, &ca, &cb);
        dp_train_result ra, rb;
        ck_assert_int_eq(train(&a, &ca, 1e-3, &S, &ra, NULL), DP_OK);
        ck_assert_int_eq(train(&b, &cb, 1e-3, &S, &rb, NULL), DP_OK);
        train_assert_sgd_is_dpsgd(a.params, b.params, a.n_params, &ra, &rb);
        ck_assert_int_eq(ra.iterations, 3 * (300 / 24));
        /* Training moved the weights and lowered the loss (not a vacuous equality). */
        ck_assert_double_lt(ra.final.train_loss, ra.curve[0].train_loss);
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    train_data_free(&S);
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
    train_data S;
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
        dp_train_cfg ca = train_base_cfg(DP_ALGO_DP_SGD, batches[s], 1);
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
        train_assert_noise_step(a.params, b.params, a.n_params, v0, s);
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    train_data_free(&S);
}
END_TEST

START_TEST(test_clipping)
{
    /* One full-batch step (b = n = 30) with C below every per-example gradient norm must
     * equal the brute-force step: each example's gradient from dp_model_loss_grad on
     * that example alone, scaled by C / ||g_i||, summed, divided by b, plus l2 w.
     * Relative error <= 1e-10 (the same sums in another order). The data part of the
     * update is then at most eta C in norm. */
    train_data S;
    make_data(&S, 40, 0.0, 15); /* 30 train */
    size_t n = S.train.n;
    const double C = 1e-3, eta = 0.3, l2 = 0.05;
    for (int arch = 0; arch < 2; arch++) {
        dp_model m;
        new_arch(&m, arch, 12, 8, 16);
        size_t P = m.n_params;
        double *w0 = train_weights_copy(m.params, P), *ref = calloc(P, sizeof *ref);
        double *gi = malloc(P * sizeof *gi);
        ck_assert(ref && gi);
        for (size_t i = 0; i < n; i++) {
            memset(gi, 0, P * sizeof *gi);
            dp_model_loss_grad(&m, S.train.x + i * D, S.train.y + i, 1, gi);
            double nrm = dp_nrm2(gi, P);
            ck_assert_double_gt(nrm, C); /* every example is clipped */
            dp_axpy(ref, C / nrm, gi, P);
        }
        for (size_t j = 0; j < P; j++) ref[j] = w0[j] - eta * (ref[j] / (double)n + l2 * w0[j]);

        dp_train_cfg c = train_base_cfg(DP_ALGO_DP_SGD, n, 1);
        c.lr = eta;
        c.clip = C;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, l2, &S, &res, NULL), DP_OK);
        ck_assert_int_eq(res.iterations, 1);
        /* Not vacuous: the clipped sum of 30 norm-C directions keeps a good part. */
        train_assert_clipped_step(m.params, w0, ref, P, eta, l2, C);
        dp_train_result_destroy(&res);
        free(w0);
        free(ref);
        free(gi);
        dp_model_destroy(&m);
    }
    train_data_free(&S);
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
    train_data S;
    make_data(&S, 400, 0.0, 8);
    for (int arch = 0; arch < 2; arch++) {
        dp_model a, b;
        new_arch(&a, arch, 24, 7, 9);
        new_arch(&b, arch, 24, 512, 9);
        dp_train_cfg c = train_base_cfg(DP_ALGO_DP_SGD, 40, 3);
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
    train_data_free(&S);
}
END_TEST

START_TEST(test_step_bits)
{
    /* One full-batch step (b = n = 30, examples in order) of sgd and of dp_sgd (C = 0.2,
     * no noise) is w0 - eta (g / n + l2 w0), g the model's own sum over the batch
     * (dp_model_loss_grad, dp_model_clipped_grad), bit for bit: on a model built for 64
     * (one chunk: the trainer's gradient split between double and float, the update's
     * sum of both and its float weights) and for 8 (pieces, each added in double as the
     * model's chunks are). Then a second step from the float weights the update wrote
     * matches the same formula from the first step's weights: a stale or unwritten float
     * copy, a float part summed across pieces or left behind would not. And dp_sgd with
     * noise (sigma 0.7): g plus the noise stream's vector noise, as the formula adds it;
     * in one chunk the trainer draws the noise apart from g and skips g where the model
     * leaves it zero (train_step.c): the same bits, or this fails (a bias gradient left
     * out, a range skipped that holds one). */
    train_data S;
    make_data(&S, 40, 0.0, 16); /* 30 train */
    size_t n = S.train.n;
    const double eta = 0.3, l2 = 0.02, C = 0.2;
    for (int v = 0; v < 6; v++) {
        size_t max_batch = v & 1 ? 8 : 64;
        int dp = v >= 2;
        double sigma = v >= 4 ? 0.7 : 0.0;
        dp_rng r;
        dp_rng_init(&r, 1, DP_STREAM_NOISE); /* the trainer's noise: seed 1 */
        dp_model m;
        new_mlp(&m, (const int[]){12}, 1, max_batch, 17);
        size_t P = m.n_params;
        double *w = train_weights_copy(m.params, P), *g = malloc(P * sizeof *g);
        ck_assert_ptr_nonnull(g);
        dp_train_cfg c = train_base_cfg(dp ? DP_ALGO_DP_SGD : DP_ALGO_SGD, n, 1);
        c.sampling = DP_SAMPLING_FULL;
        c.lr = eta;
        c.clip = C;
        c.noise_multiplier = sigma;
        c.max_steps = 0;
        for (int steps = 1; steps <= 2; steps++) {
            memset(g, 0, P * sizeof *g);
            dp_model_float_params_fresh(&m, 0);
            memcpy(m.params, w, P * sizeof *w); /* the weights of the last step */
            if (dp)
                dp_model_clipped_grad(&m, S.train.x, S.train.y, n, C, g, NULL);
            else
                dp_model_loss_grad(&m, S.train.x, S.train.y, n, g);
            if (sigma > 0.0) dp_rng_add_gaussian_par(&r, g, P, sigma * C, 1);
            for (size_t j = 0; j < P; j++) w[j] = w[j] - eta * (g[j] / (double)n + l2 * w[j]);
        }
        /* the trainer, from the initial weights, two epochs of one step */
        dp_model t;
        new_mlp(&t, (const int[]){12}, 1, max_batch, 17);
        c.epochs = 2;
        dp_train_result res;
        ck_assert_int_eq(train(&t, &c, l2, &S, &res, NULL), DP_OK);
        ck_assert_int_eq(res.iterations, 2);
        ck_assert_msg(memcmp(t.params, w, P * sizeof *w) == 0, "case %d", v);
        dp_train_result_destroy(&res);
        dp_model_destroy(&t);
        free(w), free(g);
        dp_model_destroy(&m);
    }
    train_data_free(&S);
}
END_TEST

// ---- trainm-3: learning, determinism, divergence -------------------------------------------

START_TEST(test_learns_separable)
{
    train_data S;
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
        dp_train_cfg c = train_base_cfg(cases[t].algo, 32, 30);
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
    train_data_free(&S);
}
END_TEST

START_TEST(test_determinism)
{
    train_data S;
    make_data(&S, 400, 0.0, 14);
    dp_model a, b, e;
    new_cnn(&a, 1, 16, 3);
    new_cnn(&b, 1, 16, 3);
    new_cnn(&e, 1, 16, 3);
    dp_train_cfg c = train_base_cfg(DP_ALGO_DP_SGD, 25, 3);
    c.sampling = DP_SAMPLING_POISSON;
    c.clip = 0.5;
    c.noise_multiplier = 1.1;
    dp_train_result r1, r2, r3;
    ck_assert_int_eq(train(&a, &c, 1e-3, &S, &r1, NULL), DP_OK);
    ck_assert_int_eq(train(&b, &c, 1e-3, &S, &r2, NULL), DP_OK);
    c.seed = 2;
    ck_assert_int_eq(train(&e, &c, 1e-3, &S, &r3, NULL), DP_OK);
    train_assert_deterministic(a.params, b.params, e.params, a.n_params, &r1, &r2, &r3);
    dp_model_destroy(&a);
    dp_model_destroy(&b);
    dp_model_destroy(&e);
    train_data_free(&S);
}
END_TEST

START_TEST(test_divergence)
{
    /* lr = 1e300: the first step throws the weights near 1e300, after which the logits
     * or the next step overflow. Training stops, the model holds finite weights, and the
     * reported metrics are finite (those of the last finite weights if they evaluate to
     * finite numbers, else the last finite curve point). */
    train_data S;
    make_data(&S, 200, 0.0, 11);
    for (int arch = 0; arch < 2; arch++) {
        dp_model m;
        new_arch(&m, arch, 16, 32, 5);
        dp_train_cfg c = train_base_cfg(arch ? DP_ALGO_DP_SGD : DP_ALGO_SGD, 10, 5);
        c.lr = 1e300;
        c.noise_multiplier = 1.0;
        dp_train_result res;
        ck_assert_int_eq(train(&m, &c, 1.0, &S, &res, NULL), DP_OK);
        train_assert_diverged(&res, m.params, m.n_params);
        for (size_t i = 0; i < res.n_curve; i++) {
            ck_assert(isfinite(res.curve[i].train_loss) && isfinite(res.curve[i].grad_norm));
            if (i) ck_assert_int_gt(res.curve[i].iteration, res.curve[i - 1].iteration);
        }
        dp_train_result_destroy(&res);
        dp_model_destroy(&m);
    }
    train_data_free(&S);
}
END_TEST

START_TEST(test_divergence_final)
{
    /* Three steps at lr 1 (l2 = 100: each multiplies the weights by about -99), then lr
     * 1e308 (the schedule's step at iteration 3) overflows the fourth. No evaluation falls
     * in between (eval_every 5), so the final point is the metrics of the third step's
     * weights, which the model holds and which evaluate to finite numbers: a second
     * curve point, equal to the metrics computed afresh from the model. (The failed
     * update rounded its non-finite weights into the float copy of the parameters; a
     * final evaluation that took that copy would not be finite, and the result would
     * fall back to the first point.) */
    train_data S;
    make_data(&S, 40, 0.0, 18); /* 30 train: 3 steps of 10 an epoch */
    dp_model m;
    new_mlp(&m, (const int[]){12}, 1, 32, 19);
    dp_train_cfg c = train_base_cfg(DP_ALGO_SGD, 10, 5);
    c.sampling = DP_SAMPLING_WOR;
    c.lr = 1.0;
    c.lr_schedule = DP_LR_STEP;
    c.lr_step_at = 3;
    c.lr_step_factor = 1e308;
    c.eval_every = 5;
    const double l2 = 100.0;
    dp_train_result res;
    double *home = m.params;
    ck_assert_int_eq(train(&m, &c, l2, &S, &res, NULL), DP_OK);
    ck_assert_int_eq(res.diverged, 1);
    ck_assert_int_eq(res.iterations, 3);
    /* The plain step wrote each step's weights into the trainer's second buffer and moved
     * the model there (three moves: the third step's weights are in that buffer); the
     * trainer moved the model home with them before it freed that buffer. */
    ck_assert_ptr_eq(m.params, home);
    for (size_t i = 0; i < m.n_layers; i++)
        if (m.layers[i].n_w)
            ck_assert(m.layers[i].w == home + m.layers[i].w_off &&
                      m.layers[i].b == home + m.layers[i].b_off);
    ck_assert_uint_eq(res.n_curve, 2);
    dp_curve_point ref;
    reference_point(&m, l2, &S, &ref);
    ck_assert(isfinite(ref.train_loss) && ref.train_loss > 1e6); /* the weights grew */
    expect_point(&res.final, &ref);
    dp_train_result_destroy(&res);
    dp_model_destroy(&m);
    train_data_free(&S);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("train_model");
    test_add_case(s, "trainm-1.1", test_validation, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-1.2", test_curve_layout, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-2.1", test_sgd_equals_dpsgd, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-2.2", test_noise_variance, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-2.3", test_gather_pieces, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-2.4", test_clipping, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-2.5", test_step_bits, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-3.1", test_learns_separable, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-3.2", test_determinism, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-3.3", test_divergence, TRAIN_CASE_TIMEOUT);
    test_add_case(s, "trainm-3.4", test_divergence_final, TRAIN_CASE_TIMEOUT);
    return test_run_suite(s);
}
