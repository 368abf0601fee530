/* test_wang17_gd.c: Check suite "wang17_gd" for algorithms/wang17_gd.c (Wang, Ye & Xu 2017,
 * §6 DP-GD).
 *
 * w17-1.1  calibration: sigma = sqrt(T) * the analytic Gaussian sigma for 2G/n, exactly;
 *          against a Python bisection of Balle & Wang's profile (math.erfc, relative
 *          1e-9); the T steps' exact epsilon equals the target to 1e-9 relative (tight);
 *          0.999 sigma or sigma/2 spends more than eps; RDP (a valid, looser accountant)
 *          gives at least eps for the same noise.
 * w17-1.2  the theorem's T and eta: Python's value on a small problem; T = 1 when the log
 *          is below 1; bad parameters are DP_EINVAL naming them.
 * w17-2.1  the plan of a linear logistic model: G, beta, mu, sensitivity, T and eta from
 *          the theorem, sigma and c_effective against Python (1e-9); an explicit T keeps
 *          the theorem's beside it and rescales sigma by sqrt(T ratio).
 * w17-2.2  bad parameters: DP_EINVAL naming eps, delta, iterations, step_size, feature
 *          bound, the squared loss, mu = 0 without iterations, clip, a deep model without
 *          step or iterations, eval_every, a row outside the ball; the plan untouched.
 * w17-3.1  noise off is dperm's gd bit for bit (whole result), linear model.
 * w17-3.2  noise off is dperm's gd bit for bit on a deep model (mlp).
 * w17-4.1  the drawn noise, one step from w = 0 on real rows: (w_off - w_on)/eta is z,
 *          whose variance over 8 x 5001 coordinates is sigma^2 of the formula (5 standard
 *          errors: within 3.6%): dropping the noise, halving it or forgetting 1/n fails.
 * w17-4.2  the noise over T = 16 steps: rows with x = 0 and l2 = 0 leave w_j = -eta sum_t
 *          z_t, variance eta^2 T sigma^2 (sigma of the formula for T = 16, 8 x 4000
 *          coordinates, within 4%): a noise drawn once, or a step without it, fails.
 * w17-4.3  the drawn noise on a deep model (mlp, 1402 parameters, 16 seeds: within 4.8%),
 *          as w17-4.1.
 * w17-5.1  the released model's training loss falls as epsilon grows and approaches gd's.
 * The statistical checks are seeded (fixed outcome) and set at 5 standard errors.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/convex_fixture.h"

#include <stdlib.h>

#include "algorithms/models/model.h"
#include "algorithms/privacy/mechanisms.h"
#include "algorithms/privacy/rdp.h"
#include "algorithms/train_model.h"
#include "algorithms/wang17_gd.h"

static dp_wang17_cfg base_cfg(void)
{
    return (dp_wang17_cfg){.eps = 1.0, .delta = 1e-5, .feature_bound = 1.0, .eval_every = 10,
                           .noise = 1, .seed = 1};
}

/* The error's message contains what. */
static void assert_names(const dp_err *e, const char *what, const char *case_id)
{
    ck_assert_msg(strstr(e->msg, what) != NULL, "%s: '%s' does not name %s", case_id, e->msg,
                  what);
}

// ---- w17-1: calibration and theorem -------------------------------------------------------

START_TEST(test_calibration)
{
    const double G = sqrt(2.0);
    /* Python: T = 54, n = 1000, eps 1, delta 1e-5, bisection of Balle & Wang's delta(eps,
     * sigma) with math.erfc: sigma_1 = 0.010551819708349633, sigma = 0.07753972242989944 */
    double s;
    ck_assert_int_eq(dp_wang17_sigma(1.0, 1e-5, G, 1000, 54, &s, NULL), 0);
    ck_assert_msg(REL(s, 0.07753972242989944) <= 1e-9, "sigma %.17g", s);
    const struct { double eps, delta; long n, T; } cases[] = {
        {1.0, 1e-5, 1000, 54}, {0.01, 1e-5, 45000, 100}, {0.25, 1e-6, 30000, 5000},
        {3.0, 1e-3, 200, 1},   {0.1, 1e-8, 70000, 100}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double eps = cases[i].eps, delta = cases[i].delta, sens = 2.0 * G / (double)cases[i].n;
        long n = cases[i].n, T = cases[i].T;
        double s1, e, e2, ehalf, erdp;
        ck_assert_int_eq(dp_mech_gaussian_sigma_analytic(eps, delta, sens, &s1, NULL), 0);
        ck_assert_int_eq(dp_wang17_sigma(eps, delta, G, n, T, &s, NULL), 0);
        ck_assert_msg(s == sqrt((double)T) * s1, "case %zu: sigma %.17g", i, s);
        /* tight: the exact epsilon of the T steps is the target */
        ck_assert_int_eq(dp_wang17_epsilon(s, delta, G, n, T, &e, NULL), 0);
        ck_assert_msg(REL(e, eps) <= 1e-9, "case %zu: eps_tight %.17g vs %g", i, e, eps);
        double direct;
        ck_assert_int_eq(dp_mech_gaussian_epsilon_analytic(s / sqrt((double)T), delta, sens,
                                                           &direct, NULL), 0);
        ck_assert(e == direct);
        /* any less noise spends more */
        ck_assert_int_eq(dp_wang17_epsilon(0.999 * s, delta, G, n, T, &e2, NULL), 0);
        ck_assert_int_eq(dp_wang17_epsilon(0.5 * s, delta, G, n, T, &ehalf, NULL), 0);
        ck_assert_msg(e2 > eps * (1.0 + 1e-4) && ehalf > 1.5 * eps, "case %zu: %g %g", i, e2,
                      ehalf);
        /* RDP of T Gaussians with multiplier sigma/sens: a valid bound, never below */
        ck_assert_int_eq(dp_rdp_epsilon(1.0, s / sens, T, delta, DP_RDP_CONVERT_IMPROVED,
                                        &erdp, NULL, NULL), 0);
        ck_assert_msg(erdp >= eps * (1.0 - 1e-9), "case %zu: rdp %g < %g", i, erdp, eps);
    }
}
END_TEST

START_TEST(test_theorem)
{
    /* Python: arg = 1e6 / (6 * 2 * ln 1e5) = 7238.24; (0.6/0.1) ln(arg) = 53.32 -> 54 */
    long T;
    double eta;
    const double G = sqrt(2.0);
    ck_assert_int_eq(dp_wang17_theorem(G, 0.6, 0.1, 1000, 6, 1.0, 1e-5, &T, &eta, NULL), 0);
    ck_assert_int_eq(T, 54);
    ck_assert(eta == 1.0 / 0.6);
    /* n^2 eps^2 below p G^2 ln(1/delta): the log is negative, one step */
    ck_assert_int_eq(dp_wang17_theorem(G, 0.6, 0.1, 10, 6, 1.0, 1e-5, &T, &eta, NULL), 0);
    ck_assert_int_eq(T, 1);
    dp_err e;
    ck_assert_int_eq(dp_wang17_theorem(G, 0.6, 0.0, 1000, 6, 1.0, 1e-5, &T, &eta, &e),
                     DP_EINVAL);
    assert_names(&e, "mu", "w17-1.2");
    ck_assert_int_eq(dp_wang17_theorem(G, NAN, 0.1, 1000, 6, 1.0, 1e-5, &T, &eta, &e),
                     DP_EINVAL);
    assert_names(&e, "beta", "w17-1.2");
    ck_assert_int_eq(dp_wang17_theorem(G, 0.6, 0.1, 1000, 0, 1.0, 1e-5, &T, &eta, &e),
                     DP_EINVAL);
    assert_names(&e, "parameter count", "w17-1.2");
    ck_assert_int_eq(dp_wang17_theorem(G, 1e6, 1e-6, 1000, 6, 1.0, 1e-5, &T, &eta, &e),
                     DP_EINVAL);
    assert_names(&e, "give iterations", "w17-1.2");
    ck_assert_int_eq(dp_wang17_sigma(1.0, 1e-5, G, 1000, 0, &eta, &e), DP_EINVAL);
    assert_names(&e, "iterations", "w17-1.2");
    ck_assert_int_eq(dp_wang17_sigma(0.0, 1e-5, G, 1000, 5, &eta, &e), DP_EINVAL);
    assert_names(&e, "eps", "w17-1.2");
    ck_assert_int_eq(dp_wang17_epsilon(-1.0, 1e-5, G, 1000, 5, &eta, &e), DP_EINVAL);
    assert_names(&e, "sigma", "w17-1.2");
}
END_TEST

// ---- w17-2: plans --------------------------------------------------------------------------

START_TEST(test_plan)
{
    dp_linear m = fixture_logistic(5, 0.1);
    dp_wang17_cfg c = base_cfg();
    dp_wang17_plan p;
    ck_assert_int_eq(dp_wang17_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(p.G == sqrt(2.0) && p.mu == 0.1 && REL(p.beta, 0.6) <= 1e-15);
    ck_assert(p.sens == 2.0 * sqrt(2.0) / 1000.0);
    ck_assert_int_eq(p.T, 54);
    ck_assert_int_eq(p.T_theorem, 54);
    ck_assert(p.T_from_theorem && p.eta_from_theorem && p.eta == 1.0 / p.beta);
    ck_assert_msg(REL(p.sigma, 0.07753972242989944) <= 1e-9, "sigma %.17g", p.sigma);
    /* c = sigma^2 n^2 eps^2 / (G^2 T ln(1/delta)), Python: 4.83547381142555 */
    ck_assert_msg(REL(p.c_effective, 4.83547381142555) <= 1e-9, "c %.17g", p.c_effective);
    ck_assert(REL(p.eps_tight, 1.0) <= 1e-9);
    /* an explicit T and step: the theorem's T is kept beside them, sigma ~ sqrt(T) */
    c.iterations = 100;
    c.step = 0.5;
    dp_wang17_plan q;
    ck_assert_int_eq(dp_wang17_make_plan(&m, &c, 1000, &q, NULL), 0);
    ck_assert(q.T == 100 && q.T_theorem == 54 && !q.T_from_theorem);
    ck_assert(q.eta == 0.5 && !q.eta_from_theorem);
    ck_assert(REL(q.sigma, p.sigma * sqrt(100.0 / 54.0)) <= 1e-12);
    ck_assert(REL(q.c_effective, p.c_effective) <= 1e-12);
    /* mu = 0: no theorem T, an explicit one runs; eta stays 1/beta */
    dp_linear_destroy(&m);
    m = fixture_logistic(5, 0.0);
    c.step = 0.0;
    ck_assert_int_eq(dp_wang17_make_plan(&m, &c, 1000, &q, NULL), 0);
    ck_assert(q.T == 100 && q.T_theorem == 0 && REL(q.eta, 2.0) <= 1e-15);
    dp_linear_destroy(&m);
    /* deep: G is the clip, beta unknown */
    c.step = 0.25;
    ck_assert_int_eq(dp_wang17_make_plan_model(0.01, 1.5, &c, 1000, &q, NULL), 0);
    ck_assert(q.G == 1.5 && isnan(q.beta) && q.T == 100 && q.T_theorem == 0 && q.eta == 0.25);
    double s;
    ck_assert_int_eq(dp_wang17_sigma(1.0, 1e-5, 1.5, 1000, 100, &s, NULL), 0);
    ck_assert(q.sigma == s);
}
END_TEST

START_TEST(test_bad_parameters)
{
    dp_linear m = fixture_logistic(5, 0.1), z = fixture_logistic(5, 0.0), sq;
    ck_assert_int_eq(dp_linear_init_regression(&sq, DP_LOSS_SQUARED, 5, 0.0, 0.1, NULL), 0);
    dp_wang17_plan p, keep;
    memset(&p, 0x5a, sizeof p);
    keep = p;
    dp_err e;
    const struct {
        const dp_linear *m;
        double eps, delta, B, step;
        long T;
        const char *name;
    } bad[] = {{&m, 0.0, 1e-5, 1.0, 0.0, 0, "eps"},
               {&m, NAN, 1e-5, 1.0, 0.0, 0, "eps"},
               {&m, 1.0, 1.0, 1.0, 0.0, 0, "delta"},
               {&m, 1.0, 1e-5, 1.0, 0.0, -1, "iterations"},
               {&m, 1.0, 1e-5, 1.0, -0.5, 0, "step_size"},
               {&m, 1.0, 1e-5, 1.0, INFINITY, 0, "step_size"},
               {&m, 1.0, 1e-5, 0.0, 0.0, 0, "feature bound"},
               {&sq, 1.0, 1e-5, 1.0, 0.0, 10, "squared loss"},
               {&z, 1.0, 1e-5, 1.0, 0.0, 0, "give iterations"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dp_wang17_cfg c = base_cfg();
        c.eps = bad[i].eps;
        c.delta = bad[i].delta;
        c.feature_bound = bad[i].B;
        c.step = bad[i].step;
        c.iterations = bad[i].T;
        ck_assert_msg(dp_wang17_make_plan(bad[i].m, &c, 1000, &p, &e) == DP_EINVAL,
                      "case %zu accepted", i);
        assert_names(&e, bad[i].name, "w17-2.2");
        ck_assert(memcmp(&p, &keep, sizeof p) == 0);
    }
    /* deep models: clip, iterations and step are required */
    dp_wang17_cfg c = base_cfg();
    c.iterations = 10;
    c.step = 0.1;
    ck_assert_int_eq(dp_wang17_make_plan_model(0.01, 0.0, &c, 100, &p, &e), DP_EINVAL);
    assert_names(&e, "clip", "w17-2.2");
    c.step = 0.0;
    ck_assert_int_eq(dp_wang17_make_plan_model(0.01, 1.0, &c, 100, &p, &e), DP_EINVAL);
    assert_names(&e, "step_size", "w17-2.2");
    c.step = 0.1;
    c.iterations = 0;
    ck_assert_int_eq(dp_wang17_make_plan_model(0.01, 1.0, &c, 100, &p, &e), DP_EINVAL);
    assert_names(&e, "give iterations", "w17-2.2");
    ck_assert(memcmp(&p, &keep, sizeof p) == 0);
    /* training: eval_every, and a row outside the ball (nothing trained) */
    fixture f;
    fixture_make(&f, 60, 50, 5, 2);
    dp_train_result r;
    c = base_cfg();
    c.eval_every = 0;
    ck_assert_int_eq(dp_wang17_train(&m, &c, &f.tr, &f.te, &p, &r, &e), DP_EINVAL);
    assert_names(&e, "eval_every", "w17-2.2");
    dp_train_result_destroy(&r);
    c = base_cfg();
    c.feature_bound = 0.01;
    ck_assert_int_eq(dp_wang17_train(&m, &c, &f.tr, &f.te, &p, &r, &e), DP_EINVAL);
    assert_names(&e, "feature bound", "w17-2.2");
    for (size_t j = 0; j < m.n_params; j++) ck_assert(m.w[j] == 0.0);
    dp_train_result_destroy(&r);
    fixture_free(&f);
    dp_linear_destroy(&m);
    dp_linear_destroy(&z);
    dp_linear_destroy(&sq);
}
END_TEST

// ---- w17-3: noise off is gd ------------------------------------------------------------------

START_TEST(test_noise_off_is_gd)
{
    fixture f;
    fixture_make(&f, 500, 400, 4, 8);
    dp_linear a = fixture_logistic(4, 0.05), b = fixture_logistic(4, 0.05);
    dp_wang17_cfg c = base_cfg();
    c.noise = 0;
    dp_wang17_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_wang17_train(&a, &c, &f.tr, &f.te, &p, &ra, NULL), 0);
    ck_assert(p.T_from_theorem && p.T > 1);
    dp_train_cfg gd = fixture_gd_cfg(f.train.n, (int)p.T, p.eta, 10, 1);
    fixture_train_linear(&b, &gd, &f, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    ck_assert(train_same_result(&ra, &rb));
    train_pair_free(&a, &b, &ra, &rb);
    fixture_free(&f);
}
END_TEST

START_TEST(test_noise_off_is_gd_deep)
{
    fixture f;
    fixture_make(&f, 120, 100, 4, 5);
    dp_model a, b;
    fixture_model(&a, "mlp", 6, 4, 64, 3);
    fixture_model(&b, "mlp", 6, 4, 64, 3);
    dp_wang17_cfg c = base_cfg();
    c.noise = 0;
    c.iterations = 30;
    c.step = 0.3;
    dp_wang17_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_wang17_train_model(&a, &c, 0.01, 1.0, f.train.x, f.train.y, f.train.n,
                                           f.test.x, f.test.y, f.test.n, &p, &ra, NULL), 0);
    dp_train_cfg gd = fixture_gd_cfg(f.train.n, 30, 0.3, 10, 1);
    fixture_train_model(&b, &gd, 0.01, &f, &rb);
    ck_assert(memcmp(a.params, b.params, a.n_params * sizeof *a.params) == 0);
    ck_assert(train_same_result(&ra, &rb) && ra.noise_std == 0.0);
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
    dp_model_destroy(&a);
    dp_model_destroy(&b);
    fixture_free(&f);
}
END_TEST

// ---- w17-4: the noise drawn ------------------------------------------------------------------

START_TEST(test_noise_one_step)
{
    /* 40 training rows of 5000 features: one step from w = 0, eta 0.5, with and without
     * noise; w_on = -eta (g/n + z), w_off = -eta g/n, so z = (w_off - w_on) / eta */
    enum { SEEDS = 8 };
    const size_t d = 5000, P = d + 1;
    fixture f;
    fixture_make(&f, 60, 40, d, 4);
    double *z = malloc(SEEDS * P * sizeof *z);
    ck_assert(z != NULL);
    dp_wang17_cfg c = base_cfg();
    c.iterations = 1;
    c.step = 0.5;
    c.eps = 2.0;
    dp_wang17_plan p = {0};
    dp_train_result r;
    dp_linear off = fixture_logistic(d, 0.01);
    c.noise = 0;
    ck_assert_int_eq(dp_wang17_train(&off, &c, &f.tr, &f.te, &p, &r, NULL), 0);
    dp_train_result_destroy(&r);
    c.noise = 1;
    for (int k = 0; k < SEEDS; k++) {
        dp_linear on = fixture_logistic(d, 0.01);
        c.seed = 100 + (uint64_t)k;
        ck_assert_int_eq(dp_wang17_train(&on, &c, &f.tr, &f.te, &p, &r, NULL), 0);
        ck_assert(r.noise_std == p.sigma);
        for (size_t j = 0; j < P; j++) z[(size_t)k * P + j] = (off.w[j] - on.w[j]) / c.step;
        dp_train_result_destroy(&r);
        dp_linear_destroy(&on);
    }
    /* the std the theorem's calibration gives for T = 1 on these n rows */
    double sigma;
    ck_assert_int_eq(dp_wang17_sigma(2.0, 1e-5, sqrt(2.0), 40, 1, &sigma, NULL), 0);
    ck_assert(p.sigma == sigma);
    assert_variance(z, SEEDS * P, sigma * sigma, "w17-4.1 z_t");
    free(z);
    dp_linear_destroy(&off);
    fixture_free(&f);
}
END_TEST

START_TEST(test_noise_over_steps)
{
    /* rows x = 0: the data gradient of every weight but the bias is 0, and with l2 = 0
     * w_j = -eta sum_{t <= T} z_{t,j}: variance eta^2 T sigma^2 */
    enum { SEEDS = 8, T = 16 };
    const size_t n = 30, d = 4000, P = d + 1;
    double *x = calloc(n * d, sizeof *x), *w = malloc(SEEDS * d * sizeof *w);
    int *y = malloc(n * sizeof *y);
    ck_assert(x && w && y);
    for (size_t i = 0; i < n; i++) y[i] = (int)(i % 2);
    dp_cvx_set tr = {x, y, NULL, n}, te = {x, y, NULL, n};
    dp_wang17_cfg c = base_cfg();
    c.iterations = T;
    c.step = 0.7;
    c.eval_every = T;
    dp_wang17_plan p = {0};
    dp_train_result r;
    for (int k = 0; k < SEEDS; k++) {
        dp_linear m = fixture_logistic(d, 0.0);
        c.seed = 200 + (uint64_t)k;
        ck_assert_int_eq(dp_wang17_train(&m, &c, &tr, &te, &p, &r, NULL), 0);
        ck_assert_int_eq(r.iterations, T);
        memcpy(w + (size_t)k * d, m.w, d * sizeof *w); /* the bias, w[d], left out */
        ck_assert(m.n_params == P);
        dp_train_result_destroy(&r);
        dp_linear_destroy(&m);
    }
    double sigma;
    ck_assert_int_eq(dp_wang17_sigma(1.0, 1e-5, sqrt(2.0), (long)n, T, &sigma, NULL), 0);
    ck_assert(p.sigma == sigma);
    assert_variance(w, SEEDS * d, c.step * c.step * T * sigma * sigma, "w17-4.2 sum of z_t");
    free(x);
    free(w);
    free(y);
}
END_TEST

START_TEST(test_noise_deep)
{
    /* mlp 4 -> 200 -> 2: 1402 parameters; one step from the same initial weights */
    enum { SEEDS = 16 };
    fixture f;
    fixture_make(&f, 80, 60, 4, 6);
    dp_model off, on;
    fixture_model(&off, "mlp", 200, 4, 64, 9);
    const size_t P = off.n_params;
    ck_assert_uint_eq(P, 1402);
    double *z = malloc(SEEDS * P * sizeof *z);
    ck_assert(z != NULL);
    dp_wang17_cfg c = base_cfg();
    c.iterations = 1;
    c.step = 0.5;
    c.noise = 0;
    dp_wang17_plan p = {0};
    dp_train_result r;
    ck_assert_int_eq(dp_wang17_train_model(&off, &c, 0.01, 1.0, f.train.x, f.train.y,
                                           f.train.n, f.test.x, f.test.y, f.test.n, &p, &r,
                                           NULL), 0);
    dp_train_result_destroy(&r);
    c.noise = 1;
    for (int k = 0; k < SEEDS; k++) {
        fixture_model(&on, "mlp", 200, 4, 64, 9);
        c.seed = 300 + (uint64_t)k;
        ck_assert_int_eq(dp_wang17_train_model(&on, &c, 0.01, 1.0, f.train.x, f.train.y,
                                               f.train.n, f.test.x, f.test.y, f.test.n, &p,
                                               &r, NULL), 0);
        ck_assert(r.noise_std == p.sigma);
        for (size_t j = 0; j < P; j++)
            z[(size_t)k * P + j] = (off.params[j] - on.params[j]) / c.step;
        dp_train_result_destroy(&r);
        dp_model_destroy(&on);
    }
    double sigma;
    ck_assert_int_eq(dp_wang17_sigma(1.0, 1e-5, 1.0, 60, 1, &sigma, NULL), 0);
    ck_assert(p.sigma == sigma);
    assert_variance(z, SEEDS * P, sigma * sigma, "w17-4.3 deep z_t");
    free(z);
    dp_model_destroy(&off);
    fixture_free(&f);
}
END_TEST

// ---- w17-5: utility ----------------------------------------------------------------------------

/* One run at eps with seed on m, the theorem's T and eta (convex_fixture.h's sweep). */
static void train_at(dp_linear *m, const fixture *f, double eps, uint64_t seed, int noise,
                     dp_train_result *r)
{
    dp_wang17_cfg c = base_cfg();
    c.eps = eps;
    c.seed = seed;
    c.eval_every = 100000;
    c.noise = noise;
    dp_wang17_plan p;
    ck_assert_int_eq(dp_wang17_train(m, &c, &f->tr, &f->te, &p, r, NULL), 0);
}

START_TEST(test_loss_falls_with_eps)
{
    /* mean over 6 seeds of the released model's regularized training loss at eps 0.2, 1,
     * 5 (the theorem's T and eta): strictly decreasing, and at eps 5 within 0.01 of gd's
     * (eps 5's last seed with the noise off) */
    fixture f;
    fixture_make(&f, 1500, 1200, 5, 12);
    const fixture_sweep sw = {.train = train_at, .d = 5, .l2 = 0.1, .eps = {0.2, 1.0, 5.0},
                              .seeds = 6, .seed0 = 400};
    double mean[3];
    fixture_assert_falls_with_eps(&f, &sw, mean);
    double clean = fixture_sweep_run(&f, &sw, sw.eps[2], 405, 0);
    ck_assert_msg(fabs(mean[2] - clean) < 0.01, "eps 5: %g vs gd %g", mean[2], clean);
    fixture_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wang17_gd");
    test_add_case(s, "w17-1.1", test_calibration, 30);
    test_add_case(s, "w17-1.2", test_theorem, 10);
    test_add_case(s, "w17-2.1", test_plan, 10);
    test_add_case(s, "w17-2.2", test_bad_parameters, 30);
    test_add_case(s, "w17-3.1", test_noise_off_is_gd, 30);
    test_add_case(s, "w17-3.2", test_noise_off_is_gd_deep, 30);
    test_add_case(s, "w17-4.1", test_noise_one_step, 60);
    test_add_case(s, "w17-4.2", test_noise_over_steps, 60);
    test_add_case(s, "w17-4.3", test_noise_deep, 60);
    test_add_case(s, "w17-5.1", test_loss_falls_with_eps, 60);
    return test_run_suite(s);
}
