/* test_bassily.c: Check suite "bassily" for algorithms/bassily.c (Bassily et al. 2014 /
 * Lecture15 Alg. 3, mini-batch as in Zhang17 §4).
 *
 * bs-1.*  Lemma 15.5's sigma: b = 1 is dp_thm_lecture15_sgd_sigma; b = 50 against the
 *         formula evaluated with Python's math module (relative 1e-12); preconditions.
 * bs-2.*  the plan: T = (n/b)^2 rounded up to whole epochs, the schedules of Lemmas
 *         15.6-15.7.
 * bs-3.*  noise off is the same trainer loop with sigma = 0 bit for bit, and noise on is
 *         dp_sgd with noise multiplier sigma/L.
 * bs-4.*  one step's injected noise has variance sigma^2 (over 400 seeds).
 * bs-5.*  the loss falls as epsilon grows (mean over seeds).
 * bs-6.*  Huber regression: noise off is dperm's regression trainer with sigma = 0 bit
 *         for bit, and the plan uses the Huber constants.
 */
#include "tests/unit/test_util.h"
#include "tests/unit/convex_fixture.h"

#include <stdlib.h>

#include "algorithms/bassily.h"
#include "algorithms/privacy/theorems.h"

static dp_bassily_cfg base_cfg(void)
{
    return (dp_bassily_cfg){.eps = 0.5, .delta = 1e-3, .feature_bound = 1.0, .batch_size = 50,
                            .norm_bound = 3.0, .eval_every = 1, .noise = 1, .seed = 1};
}

START_TEST(test_sigma)
{
    double s1, s2;
    const long Ts[] = {10000, 100000, 1000000};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(dp_bassily_sigma(0.5, 1e-5, 2.0, Ts[i], 1000, 1, &s1, NULL), 0);
        ck_assert_int_eq(dp_thm_lecture15_sgd_sigma(0.5, 1e-5, 2.0, Ts[i], 1000, &s2, NULL), 0);
        ck_assert_msg(REL(s1, s2) <= 1e-15, "T %ld: %.17g vs %.17g", Ts[i], s1, s2);
    }
    /* b = 50, n = 1000, T = 400, eps 0.5, delta 1e-3, L = sqrt 2:
     * 8 L sqrt(T ln(2/delta) ln(2.5 T/(delta n/b))) / ((n/b) eps) = 205.19970915993318 */
    ck_assert_int_eq(dp_bassily_sigma(0.5, 1e-3, sqrt(2.0), 400, 1000, 50, &s1, NULL), 0);
    ck_assert_msg(REL(s1, 205.19970915993318) <= 1e-12, "%.17g", s1);
    dp_err e;
    s1 = 42;
    ck_assert_int_eq(dp_bassily_sigma(1.0, 1e-3, 1.0, 400, 1000, 50, &s1, &e), DP_EPRIVACY);
    ck_assert(strstr(e.msg, "eps < 1") != NULL && s1 == 42);
    /* (n/b) eps / (2 sqrt(2 T ln(2/delta))) >= 1: too few steps for the lemma */
    ck_assert_int_eq(dp_bassily_sigma(0.9, 1e-3, 1.0, 1, 1000, 1, &s1, &e), DP_EPRIVACY);
    ck_assert_int_eq(dp_bassily_sigma(0.5, 1e-3, 1.0, 10, 100, 101, &s1, &e), DP_EINVAL);
}
END_TEST

START_TEST(test_plan)
{
    dp_linear m = fixture_logistic(3, 0.0);
    dp_bassily_cfg c = base_cfg();
    dp_bassily_plan p;
    /* n = 1000, b = 50: (n/b)^2 = 400 = 20 epochs of 20 steps */
    ck_assert_int_eq(dp_bassily_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert_int_eq(p.T, 400);
    ck_assert_int_eq(p.epochs, 20);
    ck_assert(REL(p.sigma, 205.19970915993318) <= 1e-12);
    ck_assert(REL(p.noise_multiplier, 205.19970915993318 / sqrt(2.0)) <= 1e-12);
    /* Lemma 15.6: a = ||C|| / G, G = sqrt(L^2 + p (sigma/b)^2), p = 4 */
    double G = sqrt(2.0 + 4.0 * pow(205.19970915993318 / 50.0, 2));
    ck_assert(p.schedule == DP_LR_INVERSE_SQRT_T && REL(p.a, 3.0 / G) <= 1e-12);
    /* n = 1010: 20 steps an epoch, (20.2)^2 -> 409 -> 21 epochs, T = 420 */
    ck_assert_int_eq(dp_bassily_make_plan(&m, &c, 1010, &p, NULL), 0);
    ck_assert_int_eq(p.T, 420);
    c.norm_bound = 0;
    dp_err e;
    ck_assert_int_eq(dp_bassily_make_plan(&m, &c, 1000, &p, &e), DP_EINVAL);
    ck_assert(strstr(e.msg, "norm_bound") != NULL);
    c.step = 0.25; /* an explicit a needs no ||C|| */
    ck_assert_int_eq(dp_bassily_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(p.a == 0.25 && !p.step_from_theorem);
    dp_linear_destroy(&m);
    /* Lemma 15.7: mu = 0.2 steps 1/(mu t) */
    m = fixture_logistic(3, 0.2);
    c = base_cfg();
    ck_assert_int_eq(dp_bassily_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert(p.schedule == DP_LR_INVERSE_T && REL(p.a, 5.0) <= 1e-15);
    c.iterations = 1000; /* 50 epochs of 20 */
    ck_assert_int_eq(dp_bassily_make_plan(&m, &c, 1000, &p, NULL), 0);
    ck_assert_int_eq(p.T, 1000);
    dp_linear_destroy(&m);
}
END_TEST

static void train_both(const fixture *f, dp_bassily_cfg *c, dp_linear *a, dp_linear *b,
                       double nm)
{
    dp_bassily_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_bassily_train(a, c, &f->tr, &f->te, &p, &ra, NULL), 0);
    dp_train_cfg t = {.algorithm = DP_ALGO_DP_SGD, .epochs = p.epochs,
                      .batch_size = c->batch_size, .sampling = DP_SAMPLING_WOR,
                      .lr_schedule = p.schedule, .lr_a = p.a, .clip = p.L,
                      .noise_multiplier = nm < 0 ? p.noise_multiplier : nm,
                      .eval_every = 1, .seed = c->seed};
    fixture_train_linear(b, &t, f, &rb);
    ck_assert(memcmp(a->w, b->w, a->n_params * sizeof *a->w) == 0);
    ck_assert(ra.noise_std == rb.noise_std);
    dp_train_result_destroy(&ra);
    dp_train_result_destroy(&rb);
}

START_TEST(test_reductions)
{
    fixture f;
    fixture_make(&f, 600, 500, 3, 4);
    dp_bassily_cfg c = base_cfg();
    c.batch_size = 25;
    dp_linear a = fixture_logistic(3, 0.1), b = fixture_logistic(3, 0.1);
    c.noise = 0;
    train_both(&f, &c, &a, &b, 0.0);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    a = fixture_logistic(3, 0.1);
    b = fixture_logistic(3, 0.1);
    c.noise = 1;
    train_both(&f, &c, &a, &b, -1);
    dp_linear_destroy(&a);
    dp_linear_destroy(&b);
    fixture_free(&f);
}
END_TEST

/* n = b = 40, T = 1 (one step, eta = a = 1/mu at t = 1): w_1(noise) - w_1(clean) =
 * -a * noise / b, so noise = -(difference) b / a */
static double step_noise(const fixture *f, size_t k, double *z, size_t P)
{
    dp_bassily_cfg c = base_cfg();
    c.batch_size = 40;
    c.iterations = 1;
    c.eps = 0.05;
    c.seed = 500 + k;
    dp_linear a = fixture_logistic(3, 0.5), b = fixture_logistic(3, 0.5);
    dp_bassily_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_bassily_train(&a, &c, &f->tr, &f->te, &p, &ra, NULL), 0);
    c.noise = 0;
    ck_assert_int_eq(dp_bassily_train(&b, &c, &f->tr, &f->te, &p, &rb, NULL), 0);
    ck_assert_int_eq(p.T, 1);
    for (size_t j = 0; j < P; j++) z[j] = -(a.w[j] - b.w[j]) * 40.0 / p.a;
    train_pair_free(&a, &b, &ra, &rb);
    return p.sigma;
}

START_TEST(test_step_noise)
{
    /* the step's noise over 400 seeds (4 coordinates each) has variance sigma^2 */
    fixture f;
    fixture_make(&f, 60, 40, 3, 9);
    fixture_assert_noise(&f, 400, 4, step_noise, "bs-4.1 step noise");
    fixture_free(&f);
}
END_TEST

/* One run at eps with seed on m (convex_fixture.h's sweep). */
static void train_at(dp_linear *m, const fixture *f, double eps, uint64_t seed, int noise,
                     dp_train_result *r)
{
    dp_bassily_cfg c = base_cfg();
    c.eps = eps;
    c.seed = seed;
    c.eval_every = 1000;
    c.noise = noise;
    dp_bassily_plan p;
    ck_assert_int_eq(dp_bassily_train(m, &c, &f->tr, &f->te, &p, r, NULL), 0);
}

START_TEST(test_loss_falls_with_eps)
{
    /* mu = 0.1, b = 50, n = 2000 (T = 1600): mean over 8 seeds of the final regularized
     * training loss at eps 0.05, 0.2, 0.8 is strictly decreasing (its noise term is
     * ~ sigma^2 ~ 1/eps^2; the gaps are many times the seed-to-seed spread here) */
    fixture f;
    fixture_make(&f, 2400, 2000, 5, 5);
    const fixture_sweep sw = {.train = train_at, .d = 5, .l2 = 0.1, .eps = {0.05, 0.2, 0.8},
                              .seeds = 8, .seed0 = 70};
    double mean[3];
    fixture_assert_falls_with_eps(&f, &sw, mean);
    fixture_free(&f);
}
END_TEST

START_TEST(test_huber)
{
    double *x, *t;
    dp_cvx_set tr, te;
    fixture_regression(300, 250, 3, 2, &x, &t, &tr, &te);
    dp_linear a = fixture_huber(3, 0.5, 0.2), b = fixture_huber(3, 0.5, 0.2);
    dp_bassily_cfg c = base_cfg();
    c.batch_size = 25;
    c.noise = 0;
    dp_bassily_plan p;
    dp_train_result ra, rb;
    ck_assert_int_eq(dp_bassily_train(&a, &c, &tr, &te, &p, &ra, NULL), 0);
    ck_assert(REL(p.L, 0.5 * sqrt(2.0)) <= 1e-15 && p.T == 100); /* (250/25)^2 */
    dp_train_cfg s = {.algorithm = DP_ALGO_DP_SGD, .epochs = p.epochs, .batch_size = 25,
                      .sampling = DP_SAMPLING_WOR, .lr_schedule = p.schedule, .lr_a = p.a,
                      .clip = p.L, .noise_multiplier = 0.0, .eval_every = 1, .seed = 1};
    fixture_train_reg(&b, &s, &tr, &te, &rb);
    fixture_assert_noise_off(&a, &b, &ra, &rb);
    ck_assert(isfinite(ra.final.test_rmse));
    train_pair_free(&a, &b, &ra, &rb);
    free(x);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bassily");
    test_add_case(s, "bs-1.1", test_sigma, 10);
    test_add_case(s, "bs-2.1", test_plan, 10);
    test_add_case(s, "bs-3.1", test_reductions, 30);
    test_add_case(s, "bs-4.1", test_step_noise, 60);
    test_add_case(s, "bs-5.1", test_loss_falls_with_eps, 60);
    test_add_case(s, "bs-6.1", test_huber, 30);
    return test_run_suite(s);
}
