/* test_train_published.c: the pieces of DP-LSSGD's released protocol as settings of the
 * first-order loop (algorithms/train.h; shared/reference/authors-code.md): batch-mean
 * clipping per tensor and its noise, the once-per-epoch a / t_0 schedule, kept partial
 * batches, the weight decay after smoothing and the per-tensor smoothing layout.
 *
 * Each step is checked against a hand computation from w (softmax written out here, the
 * smoothing by dp_smoother on the vectors the text names): one full-batch step from
 * random weights, so the step is the whole difference. Tolerances: 1e-12 relative for
 * the arithmetic (sums in another order); statistical checks at 5 standard errors, stated
 * where made; every draw is seeded. The initialization, the per-example norm tracking and
 * the defaults are test_train_protocol.c.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "algorithms/smoothing.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"
#include "tests/unit/test_util.h"

static dp_train_cfg one_step_cfg(size_t n, double eta)
{
    return (dp_train_cfg){.algorithm = DP_ALGO_DP_SGD, .epochs = 1, .batch_size = n,
                          .sampling = DP_SAMPLING_SHUFFLE, .lr_schedule = DP_LR_CONSTANT,
                          .lr = eta, .clip = INFINITY, .eval_every = 1, .seed = 7};
}

static void gaussians(double *v, size_t n, uint64_t seed, double scale)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    for (size_t i = 0; i < n; i++) v[i] = scale * dp_rng_gaussian(&r);
}

/* A softmax problem of n rows, d features, k classes (labels i mod k) and its model with
 * Gaussian weights. */
typedef struct problem {
    size_t n, d;
    int k;
    double *x;
    int *y;
    dp_linear m;
} problem;

static void problem_make(problem *p, size_t n, size_t d, int k, double l2, uint64_t seed)
{
    p->n = n, p->d = d, p->k = k;
    p->x = malloc(n * d * sizeof *p->x);
    p->y = malloc(n * sizeof *p->y);
    ck_assert(p->x && p->y);
    gaussians(p->x, n * d, seed, 1.0);
    for (size_t i = 0; i < n; i++) p->y[i] = (int)(i % (size_t)k);
    ck_assert_int_eq(dp_linear_init(&p->m, DP_LOSS_SOFTMAX, d, k, l2, NULL), DP_OK);
    gaussians(p->m.w, p->m.n_params, seed + 1, 0.5);
}

static void problem_free(problem *p)
{
    free(p->x);
    free(p->y);
    dp_linear_destroy(&p->m);
}

/* g (k, d+1) = (1/n) sum_i (softmax(W [x_i; 1]) - e_{y_i}) [x_i; 1]^T at weights w,
 * written out; sq (n, may be NULL) the squared per-example norms. */
static void hand_mean_grad(const problem *p, const double *w, double *g, double *sq)
{
    size_t d = p->d, k = (size_t)p->k;
    double s[16];
    ck_assert(k <= 16);
    memset(g, 0, k * (d + 1) * sizeof *g);
    for (size_t i = 0; i < p->n; i++) {
        const double *xi = p->x + i * d;
        double mx = -INFINITY, sum = 0.0, rr = 0.0, xx = 1.0;
        for (size_t j = 0; j < k; j++) {
            s[j] = w[j * (d + 1) + d];
            for (size_t c = 0; c < d; c++) s[j] += w[j * (d + 1) + c] * xi[c];
            if (s[j] > mx) mx = s[j];
        }
        for (size_t j = 0; j < k; j++) sum += (s[j] = exp(s[j] - mx));
        for (size_t j = 0; j < k; j++) {
            double r = s[j] / sum - (j == (size_t)p->y[i] ? 1.0 : 0.0);
            rr += r * r;
            for (size_t c = 0; c < d; c++) g[j * (d + 1) + c] += r * xi[c] / (double)p->n;
            g[j * (d + 1) + d] += r / (double)p->n;
        }
        for (size_t c = 0; c < d; c++) xx += xi[c] * xi[c];
        if (sq) sq[i] = rr * xx;
    }
}

/* One training run of cfg on p (train and test set the same rows). */
static dp_train_result run(problem *p, const dp_train_cfg *c)
{
    dp_train_result res;
    dp_err e;
    int rc = dp_train_linear(&p->m, c, p->x, p->y, p->n, p->x, p->y, p->n, &res, &e);
    ck_assert_msg(rc == DP_OK, "%s", e.msg);
    return res;
}

static double rel_diff(const double *a, const double *b, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / (den > 0 ? den : 1.0));
}

/* The squared norms of W (columns < d of every row) and b (column d) of a (k, d+1) g. */
static void tensor_sqnorms(const double *g, size_t d, size_t k, double *w2, double *b2)
{
    *w2 = *b2 = 0.0;
    for (size_t j = 0; j < k; j++)
        for (size_t c = 0; c <= d; c++) *(c < d ? w2 : b2) += g[j * (d + 1) + c] * g[j * (d + 1) + c];
}

// ---- tp-1: batch-mean clipping per tensor -----------------------------------------------

/* tp-1.1: 2 classes, 3 features, a batch of 4. The step is w - eta (clip_C(mean W grad),
 * clip_C(mean b grad)) - eta mu w, each tensor clipped apart: with C below both norms,
 * between them, and above both (nothing clipped). 1e-12 relative. */
START_TEST(test_batch_mean_clip_by_hand)
{
    enum { N = 4, D = 3, K = 2 };
    const double eta = 0.7, mu = 0.1;
    problem p;
    problem_make(&p, N, D, K, mu, 12);
    size_t P = p.m.n_params;
    double w0[K * (D + 1)], g[K * (D + 1)], want[K * (D + 1)], w2, b2;
    memcpy(w0, p.m.w, sizeof w0);
    hand_mean_grad(&p, w0, g, NULL);
    tensor_sqnorms(g, D, K, &w2, &b2);
    double lo = fmin(sqrt(w2), sqrt(b2)), hi = fmax(sqrt(w2), sqrt(b2));
    ck_assert_double_gt(hi, 1.5 * lo); /* so that "between" clips one tensor only */
    const double clips[3] = {0.5 * lo, sqrt(lo * hi), 2.0 * hi};
    for (int t = 0; t < 3; t++) {
        double C = clips[t];
        double fw = sqrt(w2) > C ? C / sqrt(w2) : 1.0, fb = sqrt(b2) > C ? C / sqrt(b2) : 1.0;
        for (size_t j = 0; j < P; j++) {
            double f = j % (D + 1) == D ? fb : fw;
            want[j] = w0[j] - eta * (f * g[j] + mu * w0[j]);
        }
        memcpy(p.m.w, w0, sizeof w0);
        dp_train_cfg c = one_step_cfg(N, eta);
        c.clip = C;
        c.clip_mode = DP_CLIP_BATCH_MEAN_PER_TENSOR;
        dp_train_result res = run(&p, &c);
        ck_assert_int_eq(res.iterations, 1);
        ck_assert_msg(rel_diff(p.m.w, want, P) <= 1e-12, "C = %g: %g", C,
                      rel_diff(p.m.w, want, P));
        dp_train_result_destroy(&res);
        if (t == 0) {
            /* Not per-example clipping: that step differs. */
            memcpy(p.m.w, w0, sizeof w0);
            c.clip_mode = DP_CLIP_PER_EXAMPLE;
            res = run(&p, &c);
            ck_assert_double_gt(rel_diff(p.m.w, want, P), 1e-3);
            dp_train_result_destroy(&res);
        }
    }
    problem_free(&p);
}
END_TEST

/* tp-1.2: the noise is N(0, nu^2) per coordinate of the mean, nu = sigma C / b. Two runs
 * from the same weights and batches (separate streams), with and without noise: 30 rows
 * with b = 16 and the partial batch kept give two steps (16 and 14 rows, nu = sigma C / 16
 * on both). eta = 1e-6 keeps the clipped means of the two runs equal to ~1e-6 relative, so
 * w_noisy - w_clean = -eta (z_1 + z_2), z_t ~ N(0, nu^2 I): over P = 10 x 1000
 * coordinates sum(diff^2) / (2 eta^2 nu^2) ~ chi-square(P), accepted within 5 sd (ratio
 * 1 +- 0.071); a noise of sigma C (not over b), of sigma C / 14 on the partial batch
 * (ratio 1.15) or none fail. Their mean is 0 within 5 sd. */
START_TEST(test_batch_mean_noise_std)
{
    enum { N = 30, D = 999, K = 10 };
    const double eta = 1e-6, sigma = 0.7, C = 1e-2;
    problem a, b;
    problem_make(&a, N, D, K, 0.0, 21);
    problem_make(&b, N, D, K, 0.0, 21);
    dp_train_cfg c = one_step_cfg(16, eta);
    c.clip = C;
    c.clip_mode = DP_CLIP_BATCH_MEAN_PER_TENSOR;
    c.partial_batch = DP_PARTIAL_KEEP;
    dp_train_result ra = run(&a, &c);
    c.noise_multiplier = sigma;
    dp_train_result rb = run(&b, &c);
    ck_assert_int_eq(ra.iterations, 2);
    ck_assert_int_eq(rb.iterations, 2);
    ck_assert_double_eq_tol(rb.noise_std, sigma * C, 1e-15);
    size_t P = a.m.n_params;
    double nu = sigma * C / 16.0, ss = 0.0, sum = 0.0;
    for (size_t j = 0; j < P; j++) {
        double z = (b.m.w[j] - a.m.w[j]) / -eta;
        ss += z * z;
        sum += z;
    }
    double ratio = ss / (2.0 * nu * nu * (double)P);
    ck_assert_msg(fabs(ratio - 1.0) <= 5.0 * sqrt(2.0 / P), "variance ratio %g", ratio);
    ck_assert_double_eq_tol(sum / (double)P, 0.0, 5.0 * sqrt(2.0 * nu * nu / (double)P));
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    problem_free(&a);
    problem_free(&b);
}
END_TEST

/* tp-1.3: a deep model's tensors are its layers' weights and biases: one full-batch step
 * of an MLP (3 tensors clipped, 1 not, with C the median tensor norm) equals the mean
 * gradient of dp_model_loss_grad clipped tensor by tensor, plus l2 w. 1e-9 relative: the
 * model's products are float (dense.c) and the trainer gathers the batch in its shuffled
 * order, so its weight-gradient sums run over the examples in another order and round
 * apart by about 1e-7 of the gradient; the step moves the weights by a small part of
 * their size, which leaves about 1e-9 of the weights (measured 4.8e-10). A wrong factor
 * on one tensor is off by far more. */
START_TEST(test_batch_mean_clip_deep)
{
    enum { N = 12, D = 6, K = 3 };
    const double eta = 0.4, l2 = 0.05;
    const int hidden[1] = {5};
    dp_model m;
    dp_err e;
    ck_assert_msg(dp_model_build_named(&m, "mlp", hidden, 1, "tanh", 1, 1, D, K, N, 3, &e) ==
                  DP_OK, "%s", e.msg);
    double x[N * D];
    int y[N];
    gaussians(x, N * D, 31, 1.0);
    for (int i = 0; i < N; i++) y[i] = i % K;
    size_t P = m.n_params;
    double *w0 = malloc(P * sizeof *w0), *g = calloc(P, sizeof *g), *want = malloc(P * sizeof *want);
    ck_assert(w0 && g && want);
    memcpy(w0, m.params, P * sizeof *w0);
    dp_model_loss_grad(&m, x, y, N, g);
    double norms[8];
    size_t off[8], len[8], nt = 0;
    for (size_t l = 0; l < m.n_layers; l++) {
        const dp_layer *L = &m.layers[l];
        if (L->n_w) off[nt] = L->w_off, len[nt++] = L->n_w;
        if (L->n_b) off[nt] = L->b_off, len[nt++] = L->n_b;
    }
    ck_assert_uint_eq(nt, 4);
    for (size_t t = 0; t < nt; t++) {
        double ss = 0.0;
        for (size_t j = 0; j < len[t]; j++) ss += pow(g[off[t] + j] / N, 2);
        norms[t] = sqrt(ss);
    }
    double sorted[4];
    memcpy(sorted, norms, sizeof sorted);
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (sorted[j] < sorted[i]) {
                double tmp = sorted[i];
                sorted[i] = sorted[j], sorted[j] = tmp;
            }
    double C = 0.5 * (sorted[0] + sorted[1]); /* one tensor below C, three above */
    for (size_t t = 0; t < nt; t++) {
        double f = norms[t] > C ? C / norms[t] : 1.0;
        for (size_t j = off[t]; j < off[t] + len[t]; j++)
            want[j] = w0[j] - eta * (f * g[j] / N + l2 * w0[j]);
    }
    dp_train_cfg c = one_step_cfg(N, eta);
    c.clip = C;
    c.clip_mode = DP_CLIP_BATCH_MEAN_PER_TENSOR;
    dp_train_result res;
    ck_assert_msg(dp_train_model(&m, &c, l2, x, y, N, x, y, N, &res, &e) == DP_OK, "%s", e.msg);
    ck_assert_int_eq(res.iterations, 1);
    ck_assert_double_le(rel_diff(m.params, want, P), 1e-9);
    dp_train_result_destroy(&res);
    free(w0), free(g), free(want);
    dp_model_destroy(&m);
}
END_TEST

// ---- tp-2: the once-per-epoch schedule --------------------------------------------------

/* The indicator problem of test_train.c: x_i = e_i (d = n), every label 1, w = 0 and tiny
 * rates: each step moves the bias by eta_t / 2 (residual -sigmoid(0) = -1/2, to ~1e-8
 * relative), so the bias after T steps is sum_{t <= T} eta_t / 2. */
static void indicator_data(size_t n, double **x, int **y)
{
    *x = calloc(n * n, sizeof **x);
    *y = malloc(n * sizeof **y);
    ck_assert(*x && *y);
    for (size_t i = 0; i < n; i++) {
        (*x)[i * n + i] = 1.0;
        (*y)[i] = 1;
    }
}

/* tp-2.1: n = 8, b = 2: 4 steps per epoch, 3 epochs. Stopping after T = 1..12 steps
 * (max_steps) reads every step's rate from the bias: eta_T = 2 (bias_T - bias_{T-1})
 * must be a / t_0, t_0 = 1, 5, 9 the first iteration of T's epoch (1e-6 relative). The
 * same runs with inverse_t give a / T instead. */
START_TEST(test_inverse_epoch_rates)
{
    enum { N = 8, B = 2, EPOCHS = 3, T = N / B * EPOCHS };
    const double a = 1e-8;
    double *x;
    int *y;
    indicator_data(N, &x, &y);
    for (int sched = 0; sched < 2; sched++) {
        double prev = 0.0;
        for (long t = 1; t <= T; t++) {
            dp_linear m;
            ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, N, 2, 0.0, NULL), DP_OK);
            dp_train_cfg c = one_step_cfg(B, 1.0);
            c.algorithm = DP_ALGO_SGD;
            c.epochs = EPOCHS;
            c.lr_schedule = sched ? DP_LR_INVERSE_T : DP_LR_INVERSE_EPOCH;
            c.lr_a = a;
            c.max_steps = t;
            dp_train_result res;
            ck_assert_int_eq(dp_train_linear(&m, &c, x, y, N, x, y, N, &res, NULL), DP_OK);
            ck_assert_int_eq(res.iterations, t);
            double bias = m.w[N], eta = 2.0 * (bias - prev);
            long t0 = 1 + (t - 1) / (N / B) * (N / B);
            double want = sched ? a / (double)t : a / (double)t0;
            ck_assert_msg(fabs(eta - want) <= 1e-6 * want, "%s step %ld: rate %g, want %g",
                          sched ? "inverse_t" : "inverse_epoch", t, eta, want);
            prev = bias;
            dp_train_result_destroy(&res);
            dp_linear_destroy(&m);
        }
    }
    free(x);
    free(y);
}
END_TEST

// ---- tp-3: shuffled passes with the partial batch kept ----------------------------------

/* Per-example weights of the indicator problem after training with cfg c (sgd). */
static void indicator_run(size_t n, const dp_train_cfg *c, double *w, dp_train_result *res)
{
    double *x;
    int *y;
    indicator_data(n, &x, &y);
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, n, 2, 0.0, NULL), DP_OK);
    ck_assert_int_eq(dp_train_linear(&m, c, x, y, n, x, y, n, res, NULL), DP_OK);
    memcpy(w, m.w, n * sizeof *w);
    dp_linear_destroy(&m);
    free(x);
    free(y);
}

/* tp-3.1: n = 50, b = 8, 3 epochs: 6 full batches and one of 2 per pass, 7 steps per
 * epoch (6 with drop). Example i's weight moves by eta / (2 |B|) per use, |B| its batch's
 * real size, so 2 w_i / eta = k_i / 8 + m_i / 2 with k_i full-batch and m_i partial-batch
 * uses. Every example used exactly once per epoch (k_i + m_i = 3) makes m_i =
 * (16 w_i / eta - 3) / 3 a whole number in 0..3, with sum 2 per epoch; dividing the
 * partial batch by b instead would give m_i / 8 and no whole numbers. Curve epochs are
 * whole passes. */
START_TEST(test_partial_batch_kept)
{
    enum { N = 50, B = 8, EPOCHS = 3 };
    const double eta = 1e-8;
    double w[N];
    dp_train_result res;
    dp_train_cfg c = one_step_cfg(B, eta);
    c.algorithm = DP_ALGO_SGD;
    c.epochs = EPOCHS;
    c.partial_batch = DP_PARTIAL_KEEP;
    indicator_run(N, &c, w, &res);
    ck_assert_int_eq(res.iterations, 7 * EPOCHS);
    ck_assert_uint_eq(res.n_curve, EPOCHS + 1);
    for (size_t i = 0; i < res.n_curve; i++) ck_assert_double_eq(res.curve[i].epoch, (double)i);
    dp_train_result_destroy(&res);
    double partial_uses = 0.0;
    for (int i = 0; i < N; i++) {
        double m = (16.0 * w[i] / eta - 3.0) / 3.0;
        ck_assert_msg(fabs(m - round(m)) <= 1e-4, "example %d: m = %g", i, m);
        ck_assert(round(m) >= 0.0 && round(m) <= EPOCHS);
        partial_uses += round(m);
    }
    ck_assert_double_eq(partial_uses, 2.0 * EPOCHS);

    c.partial_batch = DP_PARTIAL_DROP;
    indicator_run(N, &c, w, &res);
    ck_assert_int_eq(res.iterations, 6 * EPOCHS);
    dp_train_result_destroy(&res);

    /* keep needs shuffled passes */
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, 2, 2, 0.0, NULL), DP_OK);
    double x[4] = {1, 0, 0, 1};
    int y[2] = {0, 1};
    dp_err e;
    c = one_step_cfg(1, 0.1);
    c.partial_batch = DP_PARTIAL_KEEP;
    c.sampling = DP_SAMPLING_POISSON;
    ck_assert_int_eq(dp_train_linear(&m, &c, x, y, 2, x, y, 2, &res, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "train.partial_batch keep needs train.sampling shuffle"));
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
}
END_TEST

// ---- tp-4: weight decay after smoothing, per-tensor smoothing ---------------------------

/* v (k, d+1) <- A_s^{-1} v: as one vector, or W (k x d, row-major) and b (k) apart. */
static void hand_smooth(double *v, size_t d, size_t k, double s, int per_tensor)
{
    dp_smoother sm;
    if (!per_tensor) {
        ck_assert_int_eq(dp_smoother_plan(&sm, k * (d + 1), s, NULL), DP_OK);
        dp_smoother_execute(&sm, v);
        dp_smoother_destroy(&sm);
        return;
    }
    double *W = malloc(k * d * sizeof *W), *b = malloc(k * sizeof *b);
    ck_assert(W && b);
    for (size_t j = 0; j < k; j++) {
        memcpy(W + j * d, v + j * (d + 1), d * sizeof *W);
        b[j] = v[j * (d + 1) + d];
    }
    ck_assert_int_eq(dp_smoother_plan(&sm, k * d, s, NULL), DP_OK);
    dp_smoother_execute(&sm, W);
    dp_smoother_destroy(&sm);
    ck_assert_int_eq(dp_smoother_plan(&sm, k, s, NULL), DP_OK);
    dp_smoother_execute(&sm, b);
    dp_smoother_destroy(&sm);
    for (size_t j = 0; j < k; j++) {
        memcpy(v + j * (d + 1), W + j * d, d * sizeof *W);
        v[j * (d + 1) + d] = b[j];
    }
    free(W);
    free(b);
}

/* tp-4.1, tp-4.2: one full-batch dp_lssgd step (C = inf, no noise: the direction is the
 * data gradient g) from random weights, for both l2 placements and both layouts of a
 * linear model: in_gradient w - eta A^{-1}(g + mu w), after_smoothing
 * w - eta (A^{-1} g + mu w), A^{-1} over the k(d+1) vector or over W and b apart. Each
 * against the hand computation (1e-12 relative), and the four steps pairwise different. */
START_TEST(test_l2_placement_and_layout)
{
    enum { N = 20, D = 5, K = 3, P = K * (D + 1) };
    const double eta = 0.3, mu = 0.3, s = 1.5;
    problem p;
    problem_make(&p, N, D, K, mu, 41);
    double w0[P], g[P], got[4][P];
    memcpy(w0, p.m.w, sizeof w0);
    hand_mean_grad(&p, w0, g, NULL);
    for (int layout = 0; layout < 2; layout++)
        for (int after = 0; after < 2; after++) {
            double v[P], want[P];
            for (size_t j = 0; j < P; j++) v[j] = g[j] + (after ? 0.0 : mu * w0[j]);
            hand_smooth(v, D, K, s, layout);
            for (size_t j = 0; j < P; j++) want[j] = w0[j] - eta * (v[j] + (after ? mu * w0[j] : 0.0));
            memcpy(p.m.w, w0, sizeof w0);
            dp_train_cfg c = one_step_cfg(N, eta);
            c.smoothing = s;
            c.smoothing_layout = layout ? DP_SMOOTH_PER_TENSOR : DP_SMOOTH_VECTOR;
            c.l2_placement = after ? DP_L2_AFTER_SMOOTHING : DP_L2_IN_GRADIENT;
            dp_train_result res = run(&p, &c);
            ck_assert_msg(rel_diff(p.m.w, want, P) <= 1e-12, "layout %d after %d: %g", layout,
                          after, rel_diff(p.m.w, want, P));
            memcpy(got[2 * layout + after], p.m.w, sizeof w0);
            dp_train_result_destroy(&res);
        }
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) ck_assert_double_gt(rel_diff(got[i], got[j], P), 1e-6);
    problem_free(&p);
}
END_TEST

/* tp-4.3: a deep model is smoothed per parameter tensor whatever the layout says: both
 * layouts train a noisy dp_lssgd MLP to the same weights and curve, bit for bit. */
START_TEST(test_deep_layout_is_per_tensor)
{
    enum { N = 40, D = 6, K = 3 };
    const int hidden[1] = {5};
    double x[N * D];
    int y[N];
    gaussians(x, N * D, 51, 1.0);
    for (int i = 0; i < N; i++) y[i] = i % K;
    dp_model m[2];
    dp_train_result res[2];
    for (int layout = 0; layout < 2; layout++) {
        ck_assert_int_eq(dp_model_build_named(&m[layout], "mlp", hidden, 1, "relu", 1, 1, D,
                                              K, 8, 3, NULL), DP_OK);
        dp_train_cfg c = one_step_cfg(8, 0.2);
        c.epochs = 3;
        c.clip = 1.0;
        c.noise_multiplier = 0.8;
        c.smoothing = 2.0;
        c.smoothing_layout = layout ? DP_SMOOTH_PER_TENSOR : DP_SMOOTH_VECTOR;
        ck_assert_int_eq(dp_train_model(&m[layout], &c, 0.01, x, y, N, x, y, N, &res[layout],
                                        NULL), DP_OK);
    }
    ck_assert_int_eq(memcmp(m[0].params, m[1].params, m[0].n_params * sizeof(double)), 0);
    ck_assert_uint_eq(res[0].n_curve, res[1].n_curve);
    ck_assert_int_eq(memcmp(res[0].curve, res[1].curve, res[0].n_curve * sizeof *res[0].curve), 0);
    for (int l = 0; l < 2; l++) {
        dp_train_result_destroy(&res[l]);
        dp_model_destroy(&m[l]);
    }
}
END_TEST

static Suite *published_suite(void)
{
    Suite *s = suite_create("train_published");
    test_add_case(s, "tp-1.1", test_batch_mean_clip_by_hand, 60);
    test_add_case(s, "tp-1.2", test_batch_mean_noise_std, 120);
    test_add_case(s, "tp-1.3", test_batch_mean_clip_deep, 60);
    test_add_case(s, "tp-2.1", test_inverse_epoch_rates, 60);
    test_add_case(s, "tp-3.1", test_partial_batch_kept, 60);
    test_add_case(s, "tp-4.1", test_l2_placement_and_layout, 60);
    test_add_case(s, "tp-4.3", test_deep_layout_is_per_tensor, 60);
    return s;
}

int main(void)
{
    return test_run_suite(published_suite());
}
