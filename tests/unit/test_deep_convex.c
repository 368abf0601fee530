/* test_deep_convex.c: Check suite "deep_convex": the convex papers' private algorithms on
 * deep models (input_pert.c, bassily.c and rrpsgd.c through dp_train_model) and the
 * trainer's max_steps they rest on (train_common.c).
 *
 * The reference for the deep runs is ref_train below: the trainer's wor loop written out
 * one step at a time (Fisher-Yates draws from DP_STREAM_BATCH, gradients of the gathered
 * rows clipped or not, one dp_noise_add_gaussian call per step on DP_STREAM_NOISE,
 * d = g/b + l2 w, w -= eta_t d). It shares no code with train_common.c's loop, so runs
 * that stop inside an epoch and noisy runs can be compared bit for bit with it.
 *
 * dc-1.1  max_steps inside an epoch (shuffle): iterations, curve points at the epochs and
 *         at the stop, the prefix of the curve equal to an unbounded run's, a longer
 *         horizon moves the weights, the epoch count no longer matters.
 * dc-1.2  max_steps inside an epoch (wor, sgd and dp_sgd with noise) equals ref_train for
 *         exactly that many steps, bit for bit.
 * dc-1.3  max_steps = k steps_per_epoch equals epochs = k; max_steps >= epochs *
 *         steps_per_epoch has no effect (whole results, bit for bit); eval_every still
 *         gets its point at the stop.
 * dc-1.4  dp_train_linear: max_steps inside an epoch equals dp_rrpsgd_run's own loop
 *         (noise off) bit for bit; k epochs' worth equals epochs = k.
 * dc-1.5  max_steps < 0 is DP_EINVAL for both trainers, naming the field, nothing trained.
 * dc-2.1  InputPert on mlp_inputpert, noise off: dp_train_model's full-batch GD bit for
 *         bit (whole result), noise_std 0.
 * dc-2.2  InputPert's deep plan: sigma^2 = dp_thm_inputpert_sigma2 with G = sqrt(B^2 + 1),
 *         Delta = l2 (relative 1e-12; B = 1 also against Python's value); no step, l2 = 0,
 *         bad B are DP_EINVAL; result.noise_std == plan.sigma.
 * dc-2.3  InputPert with noise: GD on x + Z rebuilt from DP_STREAM_NOISE at plan.sigma,
 *         bit for bit (weights and every curve point but the last, which is the clean
 *         training data's dp_model_curve_point); the weights differ from noise off; Z has
 *         variance sigma^2 (chi-square bound, convex_fixture.h).
 * dc-2.4  rows outside feature_bound are refused (DP_EINVAL, model untouched); a row of
 *         norm exactly B is accepted.
 * dc-3.1  Bassily's deep plan: sigma = dp_bassily_sigma(eps, delta, clip, T, n, b),
 *         noise_multiplier = sigma/clip, G, schedules; missing or invalid clip DP_EINVAL.
 * dc-3.2  Bassily, noise off: dp_train_model (dp_sgd, wor, clip, sigma 0, the plan's
 *         schedule) bit for bit, and ref_train.
 * dc-3.3  Bassily, noise on: ref_train with std noise_multiplier * clip bit for bit,
 *         different from noise off, result.noise_std = sigma.
 * dc-4.1  RRPSGD's deep plan: sigma = dp_thm_zhang17_rrpsgd_noise(eps, delta, clip, n) and
 *         Alg. 2's formula (1e-12); no step, bad clip DP_EINVAL; rounds > n^2 DP_EPRIVACY.
 * dc-4.2  RRPSGD, noise off, R = 123 rounds on n = 50 rows: exactly R iterations, final
 *         point at R; dp_train_model (dp_sgd, b = 1, wor, clip, max_steps R, sigma 0) bit
 *         for bit (whole result), and ref_train.
 * dc-4.3  RRPSGD, noise on: noise_std = plan.sigma, ref_train with that std bit for bit,
 *         different from noise off.
 * Everything is seeded; the only statistical check (dc-2.3) is at 5 standard errors.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/convex_fixture.h"

#include <stdlib.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/bassily.h"
#include "algorithms/input_pert.h"
#include "algorithms/models/model.h"
#include "algorithms/privacy/theorems.h"
#include "algorithms/rrpsgd.h"
#include "algorithms/train.h"
#include "algorithms/train_model.h"

enum { D = 4 }; /* features: the fixture's rows are in the unit ball */

// ---- helpers ----------------------------------------------------------------------------

/* Three models with the same initial weights (convex_fixture.h's fixture_model on D
 * inputs): one run and the two it is compared with. */
static void build3(dp_model *a, dp_model *b, dp_model *c0, const char *name, int hidden,
                   size_t max_batch, uint64_t seed)
{
    fixture_model(a, name, hidden, D, max_batch, seed);
    fixture_model(b, name, hidden, D, max_batch, seed);
    fixture_model(c0, name, hidden, D, max_batch, seed);
}

static void destroy3(dp_model *a, dp_model *b, dp_model *c0)
{
    dp_model_destroy(a);
    dp_model_destroy(b);
    dp_model_destroy(c0);
}

/* The same run, including the noise reported. */
static int same_result(const dp_train_result *a, const dp_train_result *b)
{
    return train_same_result(a, b) && a->noise_std == b->noise_std;
}

/* A refused training call (its return rc, error e, result r): DP_EINVAL naming field (NULL:
 * any message), no curve, m's weights still w0. Frees r. */
static void expect_refused(int rc, const dp_err *e, dp_train_result *r, const dp_model *m,
                           const double *w0, const char *field)
{
    train_expect_einval(rc, e, r, field);
    ck_assert(memcmp(w0, m->params, m->n_params * sizeof *w0) == 0);
}

/* The plain sgd of the max_steps checks: step 0.2, a point every epoch, seed 7. */
static dp_train_cfg sgd_cfg(dp_sampling s, size_t b, int epochs)
{
    return fixture_sgd_cfg(s, b, epochs, 0.2, 1, 7);
}

/* The trainer's wor loop, written out (see the file's header). */
typedef struct ref_run {
    size_t b;                /* batch size, <= the model's max_batch */
    double clip;             /* INFINITY: the plain gradient (sgd) */
    double std;              /* noise std per coordinate on the sum; 0: none */
    dp_lr_schedule schedule; /* constant (lr), inverse_t or inverse_sqrt_t (lr = a) */
    double lr;
    double l2;
    long steps;
    uint64_t seed;
} ref_run;

static void ref_train(dp_model *m, const ref_run *c, const double *x, const int *y, size_t n)
{
    size_t d = m->in_size, P = m->n_params;
    ck_assert(c->b >= 1 && c->b <= n && c->b <= m->max_batch);
    size_t *idx = malloc(n * sizeof *idx);
    double *xb = malloc(c->b * d * sizeof *xb), *g = malloc(P * sizeof *g);
    int *yb = malloc(c->b * sizeof *yb);
    ck_assert(idx && xb && g && yb);
    for (size_t i = 0; i < n; i++) idx[i] = i;
    dp_rng batch;
    dp_rng_init(&batch, c->seed, DP_STREAM_BATCH);
    dp_noise noise;
    ck_assert_int_eq(dp_noise_init(&noise, c->seed, DP_STREAM_NOISE, 0, NULL), 0);
    for (long t = 1; t <= c->steps; t++) {
        /* b Fisher-Yates steps; idx[j] is final once step j is done */
        for (size_t j = 0; j < c->b; j++) {
            size_t k = j + (size_t)dp_rng_below(&batch, n - j), tmp = idx[j];
            idx[j] = idx[k];
            idx[k] = tmp;
            memcpy(xb + j * d, x + idx[j] * d, d * sizeof *xb);
            yb[j] = y[idx[j]];
        }
        memset(g, 0, P * sizeof *g);
        if (isfinite(c->clip))
            dp_model_clipped_grad(m, xb, yb, c->b, c->clip, g, NULL);
        else
            dp_model_loss_grad(m, xb, yb, c->b, g);
        if (c->std > 0.0) dp_noise_add_gaussian(&noise, g, P, c->std, 1);
        double eta = c->schedule == DP_LR_INVERSE_T        ? c->lr / (double)t
                     : c->schedule == DP_LR_INVERSE_SQRT_T ? c->lr / sqrt((double)t)
                                                           : c->lr;
        double b = (double)c->b, *w = m->params;
        for (size_t q = 0; q < P; q++) {
            double dq = g[q] / b + c->l2 * w[q];
            w[q] -= eta * dq;
        }
    }
    free(idx);
    free(xb);
    free(g);
    free(yb);
}

/* a's weights are ref_train's, run on m (a's initial weights) with f's training rows;
 * what is the message otherwise. */
static void assert_written_out(const dp_model *a, dp_model *m, const ref_run *ref,
                               const fixture *f, const char *what)
{
    ref_train(m, ref, f->train.x, f->train.y, f->train.n);
    ck_assert_msg(fixture_same_params(a, m), "%s", what);
}

// ---- dc-1: max_steps ---------------------------------------------------------------------

START_TEST(test_max_steps_mid_epoch)
{
    fixture f;
    fixture_make(&f, 80, 60, D, 11); /* b = 8: 7 steps per epoch */
    dp_model a, b, c;
    build3(&a, &b, &c, "mlp", 6, 16, 3);
    dp_train_cfg cfg = sgd_cfg(DP_SAMPLING_SHUFFLE, 8, 4);
    cfg.max_steps = 17; /* 3 steps into epoch 3 */
    dp_train_result ra, rb, rc;
    fixture_train_model(&a, &cfg, 0.01, &f, &ra);
    ck_assert_int_eq(ra.iterations, 17);
    ck_assert_int_eq(ra.final.iteration, 17);
    ck_assert(ra.final.epoch == 17.0 * 8.0 / 60.0);
    ck_assert_uint_eq(ra.n_curve, 4);
    const long want[] = {0, 7, 14, 17};
    for (size_t k = 0; k < 4; k++) ck_assert_int_eq(ra.curve[k].iteration, want[k]);
    ck_assert(memcmp(&ra.final, &ra.curve[3], sizeof ra.final) == 0);
    ck_assert(!ra.diverged);

    /* unbounded: the same first three points (same batches, same steps), then 21, 28 */
    cfg.max_steps = 0;
    fixture_train_model(&b, &cfg, 0.01, &f, &rb);
    ck_assert_int_eq(rb.iterations, 28);
    ck_assert(memcmp(ra.curve, rb.curve, 3 * sizeof *ra.curve) == 0);
    ck_assert(!fixture_same_params(&a, &b));

    /* more epochs allowed change nothing once max_steps stops the run; one more step does */
    dp_train_result_destroy(&rb);
    dp_model_destroy(&b);
    fixture_model(&b, "mlp", 6, D, 16, 3);
    cfg.max_steps = 17;
    cfg.epochs = 50;
    fixture_train_model(&b, &cfg, 0.01, &f, &rb);
    ck_assert(same_result(&ra, &rb) && fixture_same_params(&a, &b));
    cfg.max_steps = 18;
    fixture_train_model(&c, &cfg, 0.01, &f, &rc);
    ck_assert_int_eq(rc.iterations, 18);
    ck_assert(!fixture_same_params(&a, &c));

    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    dp_train_result_destroy(&rc);
    destroy3(&a, &b, &c);
    fixture_free(&f);
}
END_TEST

START_TEST(test_max_steps_reference)
{
    fixture f;
    fixture_make(&f, 60, 40, D, 12); /* b = 3: 13 steps per epoch */
    for (int dp = 0; dp < 2; dp++) {
        dp_model a, b;
        fixture_model(&a, "mlp", 5, D, 8, 4);
        fixture_model(&b, "mlp", 5, D, 8, 4);
        dp_train_cfg cfg = sgd_cfg(DP_SAMPLING_WOR, 3, 5);
        cfg.max_steps = 20; /* 7 steps into epoch 2 */
        if (dp) {
            cfg.algorithm = DP_ALGO_DP_SGD;
            cfg.clip = 0.5;
            cfg.noise_multiplier = 1.1;
        }
        dp_train_result r;
        fixture_train_model(&a, &cfg, 0.02, &f, &r);
        ck_assert_int_eq(r.iterations, 20);
        ck_assert_int_eq(r.final.iteration, 20);
        ck_assert(r.noise_std == (dp ? 1.1 * 0.5 : 0.0));
        ref_run ref = {.b = 3, .clip = cfg.clip, .std = r.noise_std,
                       .schedule = DP_LR_CONSTANT, .lr = 0.2, .l2 = 0.02, .steps = 20,
                       .seed = 7};
        assert_written_out(&a, &b, &ref, &f,
                           dp ? "dc-1.2 dp_sgd: max_steps 20 is not 20 written-out steps"
                              : "dc-1.2 sgd: max_steps 20 is not 20 written-out steps");
        dp_train_result_destroy(&r);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    fixture_free(&f);
}
END_TEST

START_TEST(test_max_steps_whole_epochs)
{
    fixture f;
    fixture_make(&f, 80, 60, D, 13); /* b = 8: 7 steps per epoch */
    dp_model a, b;
    dp_train_result ra, rb;
    /* max_steps = 2 epochs' worth, epochs 5, against epochs 2; then a horizon at and past
     * epochs * 7 against none */
    const long max[] = {14, 21, 22, 1000};
    const int ep_a[] = {5, 3, 3, 3}, ep_b[] = {2, 3, 3, 3};
    for (int k = 0; k < 4; k++) {
        fixture_model(&a, "mlp", 6, D, 16, 5);
        fixture_model(&b, "mlp", 6, D, 16, 5);
        dp_train_cfg ca = sgd_cfg(DP_SAMPLING_SHUFFLE, 8, ep_a[k]), cb = ca;
        ca.max_steps = max[k];
        cb.epochs = ep_b[k];
        fixture_train_model(&a, &ca, 0.0, &f, &ra);
        fixture_train_model(&b, &cb, 0.0, &f, &rb);
        ck_assert_msg(same_result(&ra, &rb) && fixture_same_params(&a, &b),
                      "dc-1.3 max_steps %ld", max[k]);
        ck_assert_int_eq(ra.iterations, 7L * ep_b[k]);
        dp_train_result_destroy(&ra);
        dp_train_result_destroy(&rb);
        dp_model_destroy(&a);
        dp_model_destroy(&b);
    }
    /* eval_every 2 epochs, stop at 17: points at 0, 14 and the stop */
    fixture_model(&a, "mlp", 6, D, 16, 5);
    dp_train_cfg c = sgd_cfg(DP_SAMPLING_SHUFFLE, 8, 10);
    c.eval_every = 2;
    c.max_steps = 17;
    fixture_train_model(&a, &c, 0.0, &f, &ra);
    ck_assert_uint_eq(ra.n_curve, 3);
    ck_assert(ra.curve[0].iteration == 0 && ra.curve[1].iteration == 14 &&
              ra.curve[2].iteration == 17 && ra.final.iteration == 17);
    dp_train_result_destroy(&ra);
    dp_model_destroy(&a);
    fixture_free(&f);
}
END_TEST

START_TEST(test_max_steps_linear)
{
    fixture f;
    fixture_make(&f, 70, 50, D, 14);
    dp_linear a = fixture_logistic(D, 0.05), b = fixture_logistic(D, 0.05);
    /* RRPSGD's own loop with the noise off is sgd with wor batches of one for R rounds */
    dp_rrpsgd_cfg rc = {.eps = 0.5, .delta = 1e-3, .feature_bound = 1.0, .step = 0.3,
                        .eval_every = 1000, .noise = 0, .seed = 7};
    dp_rrpsgd_plan p;
    ck_assert_int_eq(dp_rrpsgd_make_plan(&a, &rc, f.train.n, &p, NULL), 0);
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_rrpsgd_run(&a, &rc, &p, 77, &f.tr, &f.te, &ra, NULL), 0);
    dp_train_cfg t = sgd_cfg(DP_SAMPLING_WOR, 1, 4);
    t.lr = 0.3;
    t.max_steps = 77; /* 27 steps into epoch 2 */
    fixture_train_linear(&b, &t, &f, &rb);
    ck_assert_int_eq(rb.iterations, 77);
    ck_assert_int_eq(rb.final.iteration, 77);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    train_pair_free(&a, &b, &ra, &rb);

    /* two epochs' worth of steps with epochs 6 is epochs 2 */
    a = fixture_logistic(D, 0.05);
    b = fixture_logistic(D, 0.05);
    dp_train_cfg ta = sgd_cfg(DP_SAMPLING_SHUFFLE, 5, 6), tb = ta;
    ta.max_steps = 20;
    tb.epochs = 2;
    fixture_train_linear(&a, &ta, &f, &ra);
    fixture_train_linear(&b, &tb, &f, &rb);
    ck_assert(same_result(&ra, &rb));
    ck_assert(memcmp(a.w, b.w, a.n_params * sizeof *a.w) == 0);
    train_pair_free(&a, &b, &ra, &rb);
    fixture_free(&f);
}
END_TEST

START_TEST(test_max_steps_invalid)
{
    fixture f;
    fixture_make(&f, 40, 30, D, 15);
    dp_model m;
    fixture_model(&m, "mlp", 3, D, 8, 6);
    double *w0 = train_weights_copy(m.params, m.n_params);
    dp_train_cfg c = sgd_cfg(DP_SAMPLING_SHUFFLE, 5, 2);
    c.max_steps = -1;
    dp_train_result r;
    dp_err e;
    expect_refused(dp_train_model(&m, &c, 0.0, f.train.x, f.train.y, f.train.n, f.test.x,
                                  f.test.y, f.test.n, &r, &e),
                   &e, &r, &m, w0, "max_steps");
    dp_linear l = fixture_logistic(D, 0.0);
    train_expect_einval(dp_train_linear(&l, &c, f.train.x, f.train.y, f.train.n, f.test.x,
                                        f.test.y, f.test.n, &r, &e),
                        &e, &r, "max_steps");
    dp_linear_destroy(&l);
    free(w0);
    dp_model_destroy(&m);
    fixture_free(&f);
}
END_TEST

// ---- dc-2: input perturbation on a deep model -------------------------------------------

static dp_input_pert_cfg ip_cfg(void)
{
    return (dp_input_pert_cfg){.eps = 1.0, .delta = 1e-5, .feature_bound = 1.0,
                               .iterations = 30, .step = 0.5, .eval_every = 10, .noise = 1,
                               .seed = 9};
}

static int ip_train(dp_model *m, const dp_input_pert_cfg *c, double l2, const fixture *f,
                    dp_input_pert_plan *p, dp_train_result *r, dp_err *e)
{
    return dp_input_pert_train_model(m, c, l2, f->train.x, f->train.y, f->train.n, f->test.x,
                                     f->test.y, f->test.n, p, r, e);
}

START_TEST(test_ip_noise_off)
{
    fixture f;
    fixture_make(&f, 200, 150, D, 21);
    dp_model a, b;
    fixture_model(&a, "mlp_inputpert", 0, D, 64, 8);
    fixture_model(&b, "mlp_inputpert", 0, D, 64, 8);
    ck_assert(fixture_same_params(&a, &b) && a.n_params == (D + 1) * D + (D + 1) * 2);
    dp_input_pert_cfg c = ip_cfg();
    c.noise = 0;
    dp_input_pert_plan p;
    dp_train_result ra, rb;
    dp_err e;
    ck_assert_msg(ip_train(&a, &c, 0.1, &f, &p, &ra, &e) == 0, "%s", e.msg);
    dp_train_cfg gd = fixture_gd_cfg(f.train.n, 30, 0.5, 10, 9);
    fixture_train_model(&b, &gd, 0.1, &f, &rb);
    ck_assert(fixture_same_params(&a, &b));
    ck_assert(same_result(&ra, &rb) && ra.noise_std == 0.0 && ra.iterations == 30);
    ck_assert(ra.final.train_loss < ra.curve[0].train_loss); /* GD did train */
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    dp_model_destroy(&a);
    dp_model_destroy(&b);
    fixture_free(&f);
}
END_TEST

START_TEST(test_ip_plan)
{
    dp_input_pert_cfg c = ip_cfg();
    dp_input_pert_plan p;
    dp_err e;
    /* B = 1, l2 = 0.1, T = 50, n = 1000, eps 1, delta 1e-5: test_input_pert.c's value
     * from Python, sigma^2 = 0.007429971745423535 (G = sqrt 2) */
    c.iterations = 50;
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.1, &c, 1000, &p, &e), 0);
    ck_assert(REL(p.sigma2, 0.007429971745423535) <= 1e-12);
    /* B = 2.5, l2 = 0.03, T = 30, n = 150: the theorem with G = sqrt(B^2 + 1) */
    c.iterations = 30;
    c.feature_bound = 2.5;
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.03, &c, 150, &p, &e), 0);
    double cc, s2;
    ck_assert_int_eq(dp_thm_inputpert_c_classic(1e-5, &cc, NULL), 0);
    ck_assert_int_eq(dp_thm_inputpert_sigma2(1.0, 1e-5, sqrt(7.25), 0.03, 30, 150, cc, &s2,
                                             NULL), 0);
    ck_assert_msg(REL(p.sigma * p.sigma, s2) <= 1e-12, "sigma^2 %.17g vs %.17g",
                  p.sigma * p.sigma, s2);
    ck_assert(REL(p.G, sqrt(7.25)) <= 1e-15 && p.Delta == 0.03 && p.T == 30);
    ck_assert(p.step == 0.5 && !p.step_default && isnan(p.beta));

    /* refusals leave the plan alone */
    dp_input_pert_plan q = p;
    c.step = 0.0;
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.03, &c, 150, &q, &e), DP_EINVAL);
    c.step = 0.5;
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.0, &c, 150, &q, &e), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "strongly convex"));
    c.feature_bound = 0.0;
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.03, &c, 150, &q, &e), DP_EINVAL);
    c.feature_bound = INFINITY;
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.03, &c, 150, &q, &e), DP_EINVAL);
    ck_assert(memcmp(&q, &p, sizeof p) == 0);

    /* the trainer: same plan, noise_std = sigma; l2 = 0 refused before anything runs */
    fixture f;
    fixture_make(&f, 200, 150, D, 22);
    dp_model m;
    fixture_model(&m, "mlp_inputpert", 0, D, 64, 8);
    double *w0 = train_weights_copy(m.params, m.n_params);
    dp_train_result r;
    c = ip_cfg();
    expect_refused(ip_train(&m, &c, 0.0, &f, &q, &r, &e), &e, &r, &m, w0, NULL);
    c.step = 0.0;
    expect_refused(ip_train(&m, &c, 0.1, &f, &q, &r, &e), &e, &r, &m, w0, NULL);
    c.step = 0.5;
    ck_assert_msg(ip_train(&m, &c, 0.1, &f, &q, &r, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(dp_input_pert_make_plan_model(0.1, &c, f.train.n, &p, NULL), 0);
    ck_assert(memcmp(&q, &p, sizeof p) == 0);
    ck_assert(r.noise_std == p.sigma && p.sigma > 0.0);
    dp_train_result_destroy(&r);
    free(w0);
    dp_model_destroy(&m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_ip_noise)
{
    fixture f;
    fixture_make(&f, 200, 150, D, 23);
    size_t n = f.train.n;
    dp_model a, b, c0;
    build3(&a, &b, &c0, "mlp_inputpert", 0, 64, 8);
    dp_input_pert_cfg c = ip_cfg();
    dp_input_pert_plan p;
    dp_train_result ra, rb, rc;
    dp_err e;
    ck_assert_msg(ip_train(&a, &c, 0.1, &f, &p, &ra, &e) == 0, "%s", e.msg);
    ck_assert(p.sigma > 0.1); /* n = 150, T = 30: noise of the rows' own scale */

    /* x + Z, Z from DP_STREAM_NOISE of the seed at plan.sigma, then GD on it */
    double *xp = malloc(n * D * sizeof *xp);
    ck_assert_ptr_nonnull(xp);
    dp_noise nz;
    ck_assert_int_eq(dp_noise_init(&nz, 9, DP_STREAM_NOISE, 0, NULL), 0);
    dp_input_pert_perturb(&nz, xp, f.train.x, n, D, p.sigma);
    dp_train_cfg gd = fixture_gd_cfg(n, 30, 0.5, 10, 9);
    ck_assert_int_eq(dp_train_model(&b, &gd, 0.1, xp, f.train.y, n, f.test.x, f.test.y,
                                    f.test.n, &rb, NULL), 0);
    ck_assert_msg(fixture_same_params(&a, &b), "dc-2.3: the weights are not GD's on x + sigma Z");
    ck_assert(ra.n_curve == rb.n_curve && ra.n_curve == 4 && ra.iterations == 30);
    /* earlier points are on the perturbed rows GD saw; the last on the clean rows */
    ck_assert(memcmp(ra.curve, rb.curve, (ra.n_curve - 1) * sizeof *ra.curve) == 0);
    dp_curve_point clean = rb.final;
    ck_assert_int_eq(dp_model_curve_point(&b, 0.1, f.train.x, f.train.y, n, f.test.x, f.test.y,
                                          f.test.n, &clean, NULL), 0);
    ck_assert(memcmp(&ra.final, &clean, sizeof clean) == 0);
    ck_assert(memcmp(&ra.final, &ra.curve[ra.n_curve - 1], sizeof clean) == 0);
    ck_assert(ra.final.iteration == 30 && ra.final.train_loss != rb.final.train_loss);

    /* noise off moves the weights elsewhere */
    c.noise = 0;
    ck_assert_int_eq(ip_train(&c0, &c, 0.1, &f, &p, &rc, NULL), 0);
    ck_assert(!fixture_same_params(&a, &c0));

    /* Z = xp - x, here and on 20000 more rows of 5: variance sigma^2 within 5 standard
     * errors of the chi-square (assert_variance) */
    for (size_t i = 0; i < n * D; i++) xp[i] -= f.train.x[i];
    assert_variance(xp, n * D, p.sigma2, "dc-2.3 the training rows' noise");
    const size_t big = 20000 * 5;
    double *z = calloc(big, sizeof *z);
    ck_assert_ptr_nonnull(z);
    ck_assert_int_eq(dp_noise_init(&nz, 10, DP_STREAM_NOISE, 0, NULL), 0);
    dp_input_pert_perturb(&nz, z, z, 20000, 5, p.sigma);
    assert_variance(z, big, p.sigma2, "dc-2.3 feature noise");
    free(z);
    free(xp);
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    dp_train_result_destroy(&rc);
    destroy3(&a, &b, &c0);
    fixture_free(&f);
}
END_TEST

START_TEST(test_ip_bound)
{
    fixture f;
    fixture_make(&f, 200, 150, D, 24);
    dp_model m;
    fixture_model(&m, "mlp_inputpert", 0, D, 64, 8);
    double *w0 = train_weights_copy(m.params, m.n_params);
    dp_input_pert_cfg c = ip_cfg();
    c.feature_bound = 0.5;
    /* the fixture's rows fill the unit ball, so some have norm > 0.5 */
    dp_input_pert_plan p;
    dp_train_result r;
    dp_err e;
    expect_refused(ip_train(&m, &c, 0.1, &f, &p, &r, &e), &e, &r, &m, w0, NULL);
    /* row 17 scaled to norm 1.5 > B = 1: refused; to norm exactly 1: accepted */
    double *x17 = f.train.x + 17 * D, nrm = sqrt(x17[0] * x17[0] + x17[1] * x17[1] +
                                                x17[2] * x17[2] + x17[3] * x17[3]);
    ck_assert(nrm > 0.0);
    for (int j = 0; j < D; j++) x17[j] *= 1.5 / nrm;
    c.feature_bound = 1.0;
    expect_refused(ip_train(&m, &c, 0.1, &f, &p, &r, &e), &e, &r, &m, w0, "17");
    for (int j = 0; j < D; j++) x17[j] /= 1.5;
    ck_assert_msg(ip_train(&m, &c, 0.1, &f, &p, &r, &e) == 0, "%s", e.msg);
    dp_train_result_destroy(&r);
    free(w0);
    dp_model_destroy(&m);
    fixture_free(&f);
}
END_TEST

// ---- dc-3: Bassily et al. on a deep model -----------------------------------------------

static dp_bassily_cfg bs_cfg(void)
{
    return (dp_bassily_cfg){.eps = 0.5, .delta = 1e-3, .feature_bound = 1.0,
                            .batch_size = 10, .norm_bound = 3.0, .eval_every = 4, .noise = 1,
                            .seed = 5};
}

static int bs_train(dp_model *m, const dp_bassily_cfg *c, double l2, double clip,
                    const fixture *f, dp_bassily_plan *p, dp_train_result *r, dp_err *e)
{
    return dp_bassily_train_model(m, c, l2, clip, f->train.x, f->train.y, f->train.n,
                                  f->test.x, f->test.y, f->test.n, p, r, e);
}

START_TEST(test_bs_plan)
{
    dp_model m;
    fixture_model(&m, "mlp", 6, D, 16, 2);
    dp_bassily_cfg c = bs_cfg();
    dp_bassily_plan p;
    dp_err e;
    /* n = 120, b = 10: T = (n/b)^2 = 144 = 12 epochs of 12 steps */
    ck_assert_msg(dp_bassily_make_plan_model(&m, 0.0, 0.7, &c, 120, &p, &e) == 0, "%s", e.msg);
    ck_assert(p.T == 144 && p.epochs == 12 && p.L == 0.7 && p.mu == 0.0 && isnan(p.beta));
    double s;
    ck_assert_int_eq(dp_bassily_sigma(0.5, 1e-3, 0.7, 144, 120, 10, &s, NULL), 0);
    ck_assert(p.sigma == s && p.noise_multiplier == s / 0.7);
    double G = sqrt(0.49 + (double)m.n_params * (s / 10) * (s / 10));
    ck_assert(REL(p.G, G) <= 1e-15);
    ck_assert(p.schedule == DP_LR_INVERSE_SQRT_T && p.a == 3.0 / p.G && p.step_from_theorem);
    /* mu > 0: a/t with a = 1/mu, or the given step; T requested rounds up to an epoch */
    c.iterations = 30;
    ck_assert_int_eq(dp_bassily_make_plan_model(&m, 0.05, 0.7, &c, 120, &p, NULL), 0);
    ck_assert(p.T == 36 && p.schedule == DP_LR_INVERSE_T && REL(p.a, 20.0) <= 1e-15);
    c.step = 0.4;
    ck_assert_int_eq(dp_bassily_make_plan_model(&m, 0.05, 0.7, &c, 120, &p, NULL), 0);
    ck_assert(p.a == 0.4 && !p.step_from_theorem);

    /* the clip is the Lipschitz bound: required, positive and finite */
    dp_bassily_plan q = p;
    const double bad[] = {0.0, -1.0, NAN, INFINITY};
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(dp_bassily_make_plan_model(&m, 0.0, bad[k], &c, 120, &q, &e),
                         DP_EINVAL);
        ck_assert_ptr_nonnull(strstr(e.msg, "clip"));
    }
    ck_assert(memcmp(&q, &p, sizeof p) == 0);
    fixture f;
    fixture_make(&f, 160, 120, D, 31);
    double *w0 = train_weights_copy(m.params, m.n_params);
    dp_train_result r;
    expect_refused(bs_train(&m, &c, 0.0, 0.0, &f, &q, &r, &e), &e, &r, &m, w0, NULL);
    free(w0);
    dp_model_destroy(&m);
    fixture_free(&f);
}
END_TEST

START_TEST(test_bs_noise_off)
{
    fixture f;
    fixture_make(&f, 160, 120, D, 32);
    dp_model a, b, c0;
    build3(&a, &b, &c0, "mlp", 6, 16, 2);
    dp_bassily_cfg c = bs_cfg();
    c.noise = 0;
    dp_bassily_plan p;
    dp_train_result ra, rb;
    dp_err e;
    ck_assert_msg(bs_train(&a, &c, 0.0, 0.7, &f, &p, &ra, &e) == 0, "%s", e.msg);
    ck_assert(ra.noise_std == 0.0 && ra.iterations == 144 && !ra.diverged);
    dp_train_cfg t = {.algorithm = DP_ALGO_DP_SGD, .epochs = 12, .batch_size = 10,
                      .sampling = DP_SAMPLING_WOR, .lr_schedule = DP_LR_INVERSE_SQRT_T,
                      .lr_a = p.a, .clip = 0.7, .noise_multiplier = 0.0, .eval_every = 4,
                      .seed = 5};
    fixture_train_model(&b, &t, 0.0, &f, &rb);
    ck_assert(fixture_same_params(&a, &b) && same_result(&ra, &rb));
    ref_run ref = {.b = 10, .clip = 0.7, .schedule = DP_LR_INVERSE_SQRT_T, .lr = p.a,
                   .steps = 144, .seed = 5};
    assert_written_out(&a, &c0, &ref, &f, "dc-3.2: not the written-out loop");
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    destroy3(&a, &b, &c0);
    fixture_free(&f);
}
END_TEST

START_TEST(test_bs_noise_on)
{
    fixture f;
    fixture_make(&f, 160, 120, D, 33);
    dp_model a, b, c0;
    build3(&a, &b, &c0, "mlp", 6, 16, 2);
    dp_bassily_cfg c = bs_cfg();
    c.step = 0.05;
    dp_bassily_plan p;
    dp_train_result ra, rc;
    dp_err e;
    /* l2 > 0: eta_t = a/t with the given a */
    ck_assert_msg(bs_train(&a, &c, 0.01, 0.7, &f, &p, &ra, &e) == 0, "%s", e.msg);
    ck_assert(!ra.diverged && ra.iterations == 144);
    double std = p.noise_multiplier * 0.7;
    ck_assert(ra.noise_std == std && REL(ra.noise_std, p.sigma) <= 4e-16 && p.sigma > 1.0);
    /* std: what the trainer multiplies out, sigma up to one rounding of sigma/clip */
    ref_run ref = {.b = 10, .clip = 0.7, .std = std, .schedule = DP_LR_INVERSE_T,
                   .lr = 0.05, .l2 = 0.01, .steps = 144, .seed = 5};
    assert_written_out(&a, &b, &ref, &f, "dc-3.3: not the written-out loop with noise std sigma");
    c.noise = 0;
    ck_assert_int_eq(bs_train(&c0, &c, 0.01, 0.7, &f, &p, &rc, NULL), 0);
    ck_assert(!fixture_same_params(&a, &c0) && rc.noise_std == 0.0);
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rc);
    destroy3(&a, &b, &c0);
    fixture_free(&f);
}
END_TEST

// ---- dc-4: RRPSGD on a deep model --------------------------------------------------------

static dp_rrpsgd_cfg rr_cfg(void)
{
    return (dp_rrpsgd_cfg){.eps = 0.5, .delta = 1e-3, .feature_bound = 1.0, .step = 0.01,
                           .eval_every = 60, .noise = 1, .seed = 3};
}

static int rr_run(dp_model *m, const dp_rrpsgd_cfg *c, const dp_rrpsgd_plan *p, long R,
                  const fixture *f, dp_train_result *r, dp_err *e)
{
    return dp_rrpsgd_run_model(m, c, p, R, 0.01, f->train.x, f->train.y, f->train.n,
                               f->test.x, f->test.y, f->test.n, r, e);
}

START_TEST(test_rr_plan)
{
    dp_model m;
    fixture_model(&m, "mlp", 5, D, 4, 1);
    dp_rrpsgd_cfg c = rr_cfg();
    dp_rrpsgd_plan p;
    dp_err e;
    ck_assert_msg(dp_rrpsgd_make_plan_model(&m, 0.01, 0.8, &c, 50, &p, &e) == 0, "%s", e.msg);
    double s;
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_noise(0.5, 1e-3, 0.8, 50, &s, NULL), 0);
    ck_assert(p.sigma == s);
    /* Alg. 2: s^2 = 4 L^2 ln(3n/delta) ln(2/delta) / eps^2 */
    double s2 = 4 * 0.64 * log(3 * 50 / 1e-3) * log(2 / 1e-3) / 0.25;
    ck_assert_msg(REL(p.sigma * p.sigma, s2) <= 1e-12, "%.17g vs %.17g", p.sigma * p.sigma,
                  s2);
    ck_assert(p.L == 0.8 && p.eta == 0.01 && p.m == 2500 && !p.step_from_theorem);
    ck_assert(isnan(p.D_F) && isnan(p.beta));

    dp_rrpsgd_plan q = p;
    c.step = 0.0; /* Thm 5's step needs beta and D_F */
    ck_assert_int_eq(dp_rrpsgd_make_plan_model(&m, 0.01, 0.8, &c, 50, &q, &e), DP_EINVAL);
    c.step = 0.01;
    const double bad[] = {0.0, -1.0, NAN, INFINITY};
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(dp_rrpsgd_make_plan_model(&m, 0.01, bad[k], &c, 50, &q, &e),
                         DP_EINVAL);
    c.rounds = 2501;
    ck_assert_int_eq(dp_rrpsgd_make_plan_model(&m, 0.01, 0.8, &c, 50, &q, &e), DP_EPRIVACY);
    ck_assert(memcmp(&q, &p, sizeof p) == 0);
    c.rounds = 2500;
    ck_assert_int_eq(dp_rrpsgd_make_plan_model(&m, 0.01, 0.8, &c, 50, &q, &e), 0);
    ck_assert(q.m == 2500);
    dp_model_destroy(&m);
}
END_TEST

START_TEST(test_rr_noise_off)
{
    fixture f;
    fixture_make(&f, 70, 50, D, 41);
    dp_model a, b, c0;
    build3(&a, &b, &c0, "mlp", 5, 4, 1);
    dp_rrpsgd_cfg c = rr_cfg();
    c.noise = 0;
    dp_rrpsgd_plan p;
    dp_train_result ra, rb;
    dp_err e;
    ck_assert_int_eq(dp_rrpsgd_make_plan_model(&a, 0.01, 0.8, &c, f.train.n, &p, NULL), 0);
    ck_assert_msg(rr_run(&a, &c, &p, 123, &f, &ra, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(ra.iterations, 123);
    ck_assert_int_eq(ra.final.iteration, 123);
    ck_assert(ra.final.epoch == 123.0 / 50.0 && ra.noise_std == 0.0 && !ra.diverged);
    /* eval_every 60 rounds: every ceil(60/50) = 2 epochs, and at R: 0, 100, 123 */
    ck_assert(ra.n_curve == 3 && ra.curve[1].iteration == 100);
    dp_train_cfg t = {.algorithm = DP_ALGO_DP_SGD, .epochs = 3, .max_steps = 123,
                      .batch_size = 1, .sampling = DP_SAMPLING_WOR,
                      .lr_schedule = DP_LR_CONSTANT, .lr = 0.01, .clip = 0.8,
                      .eval_every = 2, .seed = 3};
    fixture_train_model(&b, &t, 0.01, &f, &rb);
    ck_assert(fixture_same_params(&a, &b) && same_result(&ra, &rb));
    ref_run ref = {.b = 1, .clip = 0.8, .schedule = DP_LR_CONSTANT, .lr = 0.01, .l2 = 0.01,
                   .steps = 123, .seed = 3};
    assert_written_out(&a, &c0, &ref, &f, "dc-4.2: not 123 written-out rounds");
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    destroy3(&a, &b, &c0);
    fixture_free(&f);
}
END_TEST

START_TEST(test_rr_noise_on)
{
    fixture f;
    fixture_make(&f, 70, 50, D, 42);
    dp_model a, b, c0;
    build3(&a, &b, &c0, "mlp", 5, 4, 1);
    dp_rrpsgd_cfg c = rr_cfg();
    dp_rrpsgd_plan p;
    dp_train_result ra, rc;
    dp_err e;
    ck_assert_int_eq(dp_rrpsgd_make_plan_model(&a, 0.01, 0.8, &c, f.train.n, &p, NULL), 0);
    ck_assert_msg(rr_run(&a, &c, &p, 123, &f, &ra, &e) == 0, "%s", e.msg);
    ck_assert(ra.iterations == 123 && !ra.diverged);
    double s;
    ck_assert_int_eq(dp_thm_zhang17_rrpsgd_noise(0.5, 1e-3, 0.8, 50, &s, NULL), 0);
    /* the trainer adds (sigma/L) L: sigma up to one rounding of the division */
    ck_assert_msg(REL(ra.noise_std, p.sigma) <= 4e-16 && p.sigma == s,
                  "noise_std %.17g, plan sigma %.17g, Alg. 2's %.17g", ra.noise_std, p.sigma,
                  s);
    ck_assert(ra.noise_std == p.sigma / 0.8 * 0.8);
    ref_run ref = {.b = 1, .clip = 0.8, .std = ra.noise_std, .schedule = DP_LR_CONSTANT,
                   .lr = 0.01, .l2 = 0.01, .steps = 123, .seed = 3};
    assert_written_out(&a, &b, &ref, &f, "dc-4.3: not 123 written-out rounds with noise sigma");
    c.noise = 0;
    ck_assert_int_eq(rr_run(&c0, &c, &p, 123, &f, &rc, NULL), 0);
    ck_assert(!fixture_same_params(&a, &c0));
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rc);
    destroy3(&a, &b, &c0);
    fixture_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("deep_convex");
    test_add_case(s, "dc-1.1", test_max_steps_mid_epoch, 30);
    test_add_case(s, "dc-1.2", test_max_steps_reference, 30);
    test_add_case(s, "dc-1.3", test_max_steps_whole_epochs, 30);
    test_add_case(s, "dc-1.4", test_max_steps_linear, 30);
    test_add_case(s, "dc-1.5", test_max_steps_invalid, 30);
    test_add_case(s, "dc-2.1", test_ip_noise_off, 30);
    test_add_case(s, "dc-2.2", test_ip_plan, 30);
    test_add_case(s, "dc-2.3", test_ip_noise, 30);
    test_add_case(s, "dc-2.4", test_ip_bound, 30);
    test_add_case(s, "dc-3.1", test_bs_plan, 30);
    test_add_case(s, "dc-3.2", test_bs_noise_off, 30);
    test_add_case(s, "dc-3.3", test_bs_noise_on, 30);
    test_add_case(s, "dc-4.1", test_rr_plan, 30);
    test_add_case(s, "dc-4.2", test_rr_noise_off, 30);
    test_add_case(s, "dc-4.3", test_rr_noise_on, 30);
    return test_run_suite(s);
}
