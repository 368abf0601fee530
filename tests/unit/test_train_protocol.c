/* test_train_protocol.c: the rest of DP-LSSGD's released protocol as settings of the
 * first-order loop (algorithms/train.h): PyTorch nn.Linear's initialization, the largest
 * per-example gradient norm of a run (dp_train_result.max_example_grad_norm), the zero
 * values of the new fields reproducing the loop as it was, and the config keys that set
 * them (harness/spec/spec.c, spec_algorithm.c, spec_model.c). test_train_published.c has the
 * clipping, schedule, batches and smoothing.
 *
 * Tolerances: 1e-12 relative against hand computations (the softmax written out here,
 * per-example norms ||p - e_y|| sqrt(||x||^2 + 1)); the initialization's moments at 5
 * standard errors; "bit for bit" is memcmp of weights and curves.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"
#include "harness/spec/spec.h"
#include "harness/sweep/plan.h"
#include "tests/unit/test_util.h"

static dp_train_cfg base_cfg(size_t b, int epochs)
{
    return (dp_train_cfg){.algorithm = DP_ALGO_DP_SGD, .epochs = epochs, .batch_size = b,
                          .sampling = DP_SAMPLING_SHUFFLE, .lr_schedule = DP_LR_CONSTANT,
                          .lr = 0.5, .clip = 1.0, .eval_every = 1, .seed = 5};
}

static void gaussians(double *v, size_t n, uint64_t seed, double scale)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    for (size_t i = 0; i < n; i++) v[i] = scale * dp_rng_gaussian(&r);
}

/* Softmax data: n rows of d Gaussian features scaled by `scale`, labels i mod k. */
static void make_rows(size_t n, size_t d, int k, double scale, uint64_t seed, double *x, int *y)
{
    gaussians(x, n * d, seed, scale);
    for (size_t i = 0; i < n; i++) y[i] = (int)(i % (size_t)k);
}

static int same_run(const dp_linear *a, const dp_linear *b, const dp_train_result *ra,
                    const dp_train_result *rb)
{
    return memcmp(a->w, b->w, a->n_params * sizeof *a->w) == 0 &&
           ra->iterations == rb->iterations && ra->n_curve == rb->n_curve &&
           memcmp(ra->curve, rb->curve, ra->n_curve * sizeof *ra->curve) == 0;
}

// ---- tp-5: uniform_fan_in initialization ------------------------------------------------

/* tp-5.1: every weight and bias in [-1/sqrt(d), 1/sqrt(d)); the same seed gives the same
 * weights, another seed others; over 10 x 785 draws the mean is 0 and the variance
 * bound^2 / 3 within 5 standard errors (se of the mean bound / sqrt(3 P), of the variance
 * about bound^2 sqrt(4 / (45 P))). */
START_TEST(test_uniform_fan_in)
{
    enum { D = 784, K = 10 };
    dp_linear a, b, c;
    ck_assert_int_eq(dp_linear_init(&a, DP_LOSS_SOFTMAX, D, K, 0.0, NULL), DP_OK);
    ck_assert_int_eq(dp_linear_init(&b, DP_LOSS_SOFTMAX, D, K, 0.0, NULL), DP_OK);
    ck_assert_int_eq(dp_linear_init(&c, DP_LOSS_SOFTMAX, D, K, 0.0, NULL), DP_OK);
    dp_linear_init_uniform_fan_in(&a, 9);
    dp_linear_init_uniform_fan_in(&b, 9);
    dp_linear_init_uniform_fan_in(&c, 10);
    size_t P = a.n_params;
    ck_assert_int_eq(memcmp(a.w, b.w, P * sizeof *a.w), 0);
    ck_assert(memcmp(a.w, c.w, P * sizeof *a.w) != 0);
    double bound = 1.0 / sqrt((double)D), sum = 0.0, ss = 0.0;
    for (size_t j = 0; j < P; j++) {
        ck_assert(a.w[j] >= -bound && a.w[j] < bound);
        sum += a.w[j];
        ss += a.w[j] * a.w[j];
    }
    double mean = sum / (double)P, var = ss / (double)P - mean * mean;
    ck_assert_double_eq_tol(mean, 0.0, 5.0 * bound / sqrt(3.0 * (double)P));
    ck_assert_double_eq_tol(var, bound * bound / 3.0,
                            5.0 * bound * bound * sqrt(4.0 / (45.0 * (double)P)));
    /* The biases (last column) are drawn too. */
    int bias_nonzero = 0;
    for (size_t j = 0; j < K; j++) bias_nonzero += a.w[j * (D + 1) + D] != 0.0;
    ck_assert_int_eq(bias_nonzero, K);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    dp_linear_destroy(&c);
}
END_TEST

/* tp-5.2: cfg.init uniform_fan_in makes the trainer start from those weights (drawn with
 * cfg.seed): the first curve point is the loss of dp_linear_init_uniform_fan_in's
 * weights, whatever the model held; a deep model refuses it (it is initialized when
 * built). */
START_TEST(test_init_in_trainer)
{
    enum { N = 30, D = 7, K = 3 };
    double x[N * D];
    int y[N];
    make_rows(N, D, K, 1.0, 61, x, y);
    dp_linear m, ref;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, D, K, 0.0, NULL), DP_OK);
    ck_assert_int_eq(dp_linear_init(&ref, DP_LOSS_SOFTMAX, D, K, 0.0, NULL), DP_OK);
    for (size_t j = 0; j < m.n_params; j++) m.w[j] = 3.0; /* overwritten */
    dp_train_cfg c = base_cfg(10, 1);
    c.init = DP_INIT_UNIFORM_FAN_IN;
    dp_train_result res;
    ck_assert_int_eq(dp_train_linear(&m, &c, x, y, N, x, y, N, &res, NULL), DP_OK);
    dp_linear_init_uniform_fan_in(&ref, c.seed);
    double loss;
    ck_assert_int_eq(dp_linear_evaluate(&ref, x, y, N, &loss, NULL), DP_OK);
    ck_assert_double_eq_tol(res.curve[0].train_loss, loss, 1e-12 * loss);
    ck_assert_double_eq_tol(res.curve[0].test_loss, loss, 1e-12 * loss);
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    dp_linear_destroy(&ref);

    const int hidden[1] = {4};
    dp_model dm;
    ck_assert_int_eq(dp_model_build_named(&dm, "mlp", hidden, 1, "relu", 1, 1, D, K, 10, 1,
                                          NULL), DP_OK);
    dp_err e;
    ck_assert_int_eq(dp_train_model(&dm, &c, 0.0, x, y, N, x, y, N, &res, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model.init"));
    dp_train_result_destroy(&res);
    dp_model_destroy(&dm);
}
END_TEST

// ---- tp-6: the largest per-example gradient norm ----------------------------------------

/* The largest ||p_i - e_{y_i}|| sqrt(||x_i||^2 + 1) over the rows at weights w (k, d+1),
 * the softmax written out. */
static double hand_max_norm(const double *w, const double *x, const int *y, size_t n,
                            size_t d, int k)
{
    double best = 0.0, s[8];
    ck_assert(k <= 8);
    for (size_t i = 0; i < n; i++) {
        const double *xi = x + i * d;
        double mx = -INFINITY, sum = 0.0, rr = 0.0, xx = 1.0;
        for (int j = 0; j < k; j++) {
            s[j] = w[(size_t)j * (d + 1) + d];
            for (size_t c = 0; c < d; c++) s[j] += w[(size_t)j * (d + 1) + c] * xi[c];
            if (s[j] > mx) mx = s[j];
        }
        for (int j = 0; j < k; j++) sum += (s[j] = exp(s[j] - mx));
        for (int j = 0; j < k; j++) {
            double r = s[j] / sum - (j == y[i] ? 1.0 : 0.0);
            rr += r * r;
        }
        for (size_t c = 0; c < d; c++) xx += xi[c] * xi[c];
        if (sqrt(rr * xx) > best) best = sqrt(rr * xx);
    }
    return best;
}

/* tp-6.1: a linear softmax model, full batches (every row in every step), two steps: the
 * result is the larger of the hand maxima at w_0 and at w_1 (w_1 from the same run
 * stopped after one step), in both clip modes and with C below every norm (the norm is
 * taken before clipping). sgd, and dp_sgd with C = inf per example (noise-free, sgd bit
 * for bit), track nothing (NaN); batch-mean mode with C = inf does. DPlis tracks the norms
 * of its K-averaged gradients: finite and positive. */
START_TEST(test_max_norm_linear)
{
    enum { N = 9, D = 4, K = 3 };
    double x[N * D], w0[K * (D + 1)], w1[K * (D + 1)];
    int y[N];
    make_rows(N, D, K, 2.0, 71, x, y);
    gaussians(w0, K * (D + 1), 72, 1.0);
    const double clips[3] = {1e-3, 1e-3, INFINITY};
    const dp_clip_mode modes[3] = {DP_CLIP_PER_EXAMPLE, DP_CLIP_BATCH_MEAN_PER_TENSOR,
                                   DP_CLIP_BATCH_MEAN_PER_TENSOR};
    for (int t = 0; t < 3; t++) {
        double got[2];
        for (long steps = 1; steps <= 2; steps++) {
            dp_linear m;
            ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, D, K, 0.01, NULL), DP_OK);
            memcpy(m.w, w0, sizeof w0);
            dp_train_cfg c = base_cfg(N, 2);
            c.clip = clips[t];
            c.clip_mode = modes[t];
            c.max_steps = steps;
            dp_train_result res;
            ck_assert_int_eq(dp_train_linear(&m, &c, x, y, N, x, y, N, &res, NULL), DP_OK);
            got[steps - 1] = res.max_example_grad_norm;
            if (steps == 1) memcpy(w1, m.w, sizeof w1);
            dp_train_result_destroy(&res);
            dp_linear_destroy(&m);
        }
        double g0 = hand_max_norm(w0, x, y, N, D, K), g1 = hand_max_norm(w1, x, y, N, D, K);
        ck_assert(g0 > 1e-3 && g1 > 1e-3);
        ck_assert_double_eq_tol(got[0], g0, 1e-12 * g0);
        ck_assert_double_eq_tol(got[1], fmax(g0, g1), 1e-12 * g0);
    }
    for (int t = 0; t < 3; t++) {
        dp_linear m;
        ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_SOFTMAX, D, K, 0.0, NULL), DP_OK);
        dp_train_cfg c = base_cfg(3, 1);
        if (t == 0) c.algorithm = DP_ALGO_SGD;
        if (t == 1) c.clip = INFINITY;
        if (t == 2) c.noise_multiplier = 1.0, c.dplis_samples = 3, c.dplis_radius = 2.0;
        dp_train_result res;
        ck_assert_int_eq(dp_train_linear(&m, &c, x, y, N, x, y, N, &res, NULL), DP_OK);
        if (t < 2)
            ck_assert(isnan(res.max_example_grad_norm));
        else
            ck_assert(isfinite(res.max_example_grad_norm) && res.max_example_grad_norm > 0.0);
        dp_train_result_destroy(&res);
        dp_linear_destroy(&m);
    }
}
END_TEST

/* tp-6.2: a deep model reports the largest of the norms its layers compute for clipping
 * (dp_model_clipped_grad's sqnorms at the starting weights, one full-batch step), in both
 * clip modes; 1e-12 relative. */
START_TEST(test_max_norm_deep)
{
    enum { N = 10, D = 6, K = 3 };
    const int hidden[1] = {5};
    double x[N * D];
    int y[N];
    make_rows(N, D, K, 1.0, 81, x, y);
    for (int mode = 0; mode < 2; mode++) {
        dp_model m;
        ck_assert_int_eq(dp_model_build_named(&m, "mlp", hidden, 1, "tanh", 1, 1, D, K, N, 2,
                                              NULL), DP_OK);
        double *g = calloc(m.n_params, sizeof *g), sq[N], want = 0.0;
        ck_assert(g);
        dp_model_clipped_grad(&m, x, y, N, 1.0, g, sq);
        for (int i = 0; i < N; i++) want = fmax(want, sqrt(sq[i]));
        dp_train_cfg c = base_cfg(N, 1);
        c.clip = 0.1;
        c.clip_mode = mode ? DP_CLIP_BATCH_MEAN_PER_TENSOR : DP_CLIP_PER_EXAMPLE;
        dp_train_result res;
        ck_assert_int_eq(dp_train_model(&m, &c, 0.0, x, y, N, x, y, N, &res, NULL), DP_OK);
        ck_assert_double_eq_tol(res.max_example_grad_norm, want, 1e-12 * want);
        dp_train_result_destroy(&res);
        free(g);
        dp_model_destroy(&m);
    }
}
END_TEST

// ---- tp-7: the zero values are the loop as it was ---------------------------------------

/* tp-7.1: a noisy dp_lssgd run with the new fields left zero equals the same run with
 * them set to their named defaults, bit for bit; and the settings that cannot act in a
 * configuration change nothing there: partial_batch keep when b divides n, l2 after
 * smoothing and the per-tensor layout with smoothing 0, the once-per-epoch schedule with
 * one step per epoch (= inverse_t), batch-mean clipping with C = inf and no noise (= the
 * plain mean gradient), uniform_fan_in's weights given as the model's own. */
START_TEST(test_defaults_bit_for_bit)
{
    enum { N = 48, D = 5, K = 3 };
    double x[N * D];
    int y[N];
    make_rows(N, D, K, 1.0, 91, x, y);
    enum { N_CASES = 7 };
    for (int t = 0; t < N_CASES; t++) {
        dp_train_cfg a = base_cfg(8, 3);
        a.noise_multiplier = 0.9;
        a.smoothing = 1.0;
        a.lr_schedule = DP_LR_INVERSE_T;
        a.lr_a = 0.8;
        dp_train_cfg b = a;
        dp_linear ma, mb;
        ck_assert_int_eq(dp_linear_init(&ma, DP_LOSS_SOFTMAX, D, K, 0.02, NULL), DP_OK);
        ck_assert_int_eq(dp_linear_init(&mb, DP_LOSS_SOFTMAX, D, K, 0.02, NULL), DP_OK);
        switch (t) {
        case 0:
            b.clip_mode = DP_CLIP_PER_EXAMPLE, b.partial_batch = DP_PARTIAL_DROP;
            b.l2_placement = DP_L2_IN_GRADIENT, b.smoothing_layout = DP_SMOOTH_VECTOR;
            b.init = DP_INIT_AS_GIVEN;
            break;
        case 1: b.partial_batch = DP_PARTIAL_KEEP; break; /* 48 = 6 x 8 */
        case 2:
            a.smoothing = b.smoothing = 0.0;
            b.l2_placement = DP_L2_AFTER_SMOOTHING, b.smoothing_layout = DP_SMOOTH_PER_TENSOR;
            break;
        case 3:
            a.batch_size = b.batch_size = N, a.sampling = b.sampling = DP_SAMPLING_FULL;
            b.lr_schedule = DP_LR_INVERSE_EPOCH;
            break;
        case 4:
            a.clip = b.clip = INFINITY, a.noise_multiplier = b.noise_multiplier = 0.0;
            b.clip_mode = DP_CLIP_BATCH_MEAN_PER_TENSOR;
            break;
        case 5:
            b.init = DP_INIT_UNIFORM_FAN_IN;
            dp_linear_init_uniform_fan_in(&ma, a.seed);
            break;
        default: /* the same for sgd, which ignores clip_mode */
            a.algorithm = b.algorithm = DP_ALGO_SGD;
            b.clip_mode = DP_CLIP_BATCH_MEAN_PER_TENSOR;
            break;
        }
        dp_train_result ra, rb;
        ck_assert_int_eq(dp_train_linear(&ma, &a, x, y, N, x, y, N, &ra, NULL), DP_OK);
        ck_assert_int_eq(dp_train_linear(&mb, &b, x, y, N, x, y, N, &rb, NULL), DP_OK);
        ck_assert_msg(same_run(&ma, &mb, &ra, &rb), "case %d differs", t);
        ck_assert(!ra.diverged && ra.iterations > 0);
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_linear_destroy(&ma);
        dp_linear_destroy(&mb);
    }
}
END_TEST

// ---- tp-8: the config keys --------------------------------------------------------------

static int spec_of(const char *text, run_spec *s, dp_err *e)
{
    cfg_doc d;
    ck_assert_int_eq(cfg_parse_string(&d, text, strlen(text), "p.yaml", e), 0);
    int rc = plan_check(d.root, s, e);
    cfg_doc_destroy(&d);
    return rc;
}

/* tp-8.1: the YAML keys reach dp_train_cfg (absent: the zero values), and the refusals the
 * library would make come back as config errors at the key. */
START_TEST(test_config_keys)
{
    static const char base[] =
        "experiment: p\n"
        "dataset: {name: synthetic, n: 200, d: 6, classes: 3}\n"
        "model: {type: softmax, l2: 1.0e-4%s}\n"
        "train: {epochs: 2, batch_size: 16, lr: %s%s}\n"
        "algorithm: {name: dp_lssgd, clip: 1.0, noise_multiplier: 1.0%s}\n";
    char text[1024];
    run_spec s;
    dp_err e;
    snprintf(text, sizeof text, base, "", "0.1", "", "");
    ck_assert_msg(spec_of(text, &s, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(s.train.clip_mode, DP_CLIP_PER_EXAMPLE);
    ck_assert_int_eq(s.train.partial_batch, DP_PARTIAL_DROP);
    ck_assert_int_eq(s.train.l2_placement, DP_L2_IN_GRADIENT);
    ck_assert_int_eq(s.train.smoothing_layout, DP_SMOOTH_VECTOR);
    ck_assert_int_eq(s.train.init, DP_INIT_AS_GIVEN);

    snprintf(text, sizeof text, base, ", init: uniform_fan_in", "{schedule: inverse_epoch, a: 2}",
             ", sampling: shuffle, partial_batch: keep, l2_placement: after_smoothing",
             ", clip_mode: batch_mean_per_tensor, smoothing_layout: per_tensor");
    ck_assert_msg(spec_of(text, &s, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(s.train.clip_mode, DP_CLIP_BATCH_MEAN_PER_TENSOR);
    ck_assert_int_eq(s.train.partial_batch, DP_PARTIAL_KEEP);
    ck_assert_int_eq(s.train.l2_placement, DP_L2_AFTER_SMOOTHING);
    ck_assert_int_eq(s.train.smoothing_layout, DP_SMOOTH_PER_TENSOR);
    ck_assert_int_eq(s.train.init, DP_INIT_UNIFORM_FAN_IN);
    ck_assert_int_eq(s.train.lr_schedule, DP_LR_INVERSE_EPOCH);
    ck_assert_double_eq(s.train.lr_a, 2.0);

    /* keep with a sampling that has no partial batch: at the key */
    snprintf(text, sizeof text, base, "", "0.1", ", partial_batch: keep, sampling: wor", "");
    ck_assert_int_eq(spec_of(text, &s, &e), DP_ECONFIG);
    ck_assert_int_eq(e.line, 4);
    ck_assert_ptr_nonnull(strstr(e.msg, "train.partial_batch keep needs train.sampling shuffle"));
    /* unknown values get a suggestion */
    snprintf(text, sizeof text, base, "", "0.1", "", ", clip_mode: batch_mean_per_tensr");
    ck_assert_int_eq(spec_of(text, &s, &e), DP_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "did you mean 'batch_mean_per_tensor'"));
    snprintf(text, sizeof text, base, ", init: uniform_fanin", "0.1", "", "");
    ck_assert_int_eq(spec_of(text, &s, &e), DP_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "did you mean 'uniform_fan_in'"));
    snprintf(text, sizeof text, base, "", "0.1", ", l2_placement: after", "");
    ck_assert_int_eq(spec_of(text, &s, &e), DP_ECONFIG);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown l2_placement 'after'"));
}
END_TEST

static Suite *protocol_suite(void)
{
    Suite *s = suite_create("train_protocol");
    test_add_case(s, "tp-5.1", test_uniform_fan_in, 60);
    test_add_case(s, "tp-5.2", test_init_in_trainer, 60);
    test_add_case(s, "tp-6.1", test_max_norm_linear, 60);
    test_add_case(s, "tp-6.2", test_max_norm_deep, 60);
    test_add_case(s, "tp-7.1", test_defaults_bit_for_bit, 60);
    test_add_case(s, "tp-8.1", test_config_keys, 60);
    return s;
}

int main(void)
{
    return test_run_suite(protocol_suite());
}
