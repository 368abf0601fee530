/* test_optimality.c: the optimality-gap pieces of the harness (harness/sweep/optimality.c).
 *
 * Cases:
 *   opt-1.1  optimality_gap absent is false, false is 0, true is on (on a linear model and
 *            on a deep one: the default reference epochs); a non-boolean scalar is a config
 *            error.
 *   opt-1.2  optimality_prepare: F(w*) equals dp_erm_solve's on the same synthetic
 *            training split (exactly: the same computation), runs of one problem share
 *            it, a different l2 gets its own (and a larger one: F* grows with mu).
 *   opt-1.3  a problem without a minimizer (separable, l2 0) is a config error at the key.
 *   opt-1.4  {reference_epochs: N} is on with N epochs ({} with the default); a bad value
 *            (a word, a list, an empty value, N < 1, N not an integer, an unknown key) is a
 *            config error at its line:col naming what is expected.
 *   opt-1.5  deep model: optimality_prepare's f_star equals, bit for bit, the lowest
 *            train_loss of the reference training done here directly (the model built from
 *            its layer sizes, seed 1, Adam lr 1e-3, batches of 128, N epochs, the runner's
 *            test set); runs differing only in their run seed share it; another l2 or
 *            another N is another problem.
 *   opt-1.6  the same problem is solved once: preparing 6 runs of one deep problem costs
 *            about what preparing one does (CPU time), not 6 times as much.
 *   opt-1.7  optimality_record_deep: f_star, optimality_gap = F(w) - F_ref exactly (F(w) by
 *            dp_model_curve_point on the training set, negative when the run beats the
 *            reference: never clamped) and an f_star_method naming the reference; a linear
 *            run's f_star_method is "erm_exact".
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "algorithms/erm_exact.h"
#include "algorithms/train_model.h"
#include "harness/sweep/optimality.h"
#include "harness/sweep/plan.h"
#include "harness/sweep/runner.h"
#include "tests/unit/test_util.h"

#define BASE "experiment: t\n"                                                          \
             "dataset: {name: synthetic, n: 300, d: 5, classes: 2, margin: %s, "        \
             "label_noise: %s, seed: 2}\n"                                               \
             "model: {type: %s, l2: %s}\n"                                               \
             "train: {epochs: 1, batch_size: 10, lr: 0.1}\n"                             \
             "algorithm: {name: sgd}\n"                                                  \
             "optimality_gap: %s\n"

/* Parse and validate one run config; returns plan_check's code. */
static int load(cfg_doc *doc, run_spec *s, dp_err *e, const char *margin, const char *noise,
                const char *type, const char *l2, const char *gap)
{
    char text[1024];
    snprintf(text, sizeof text, BASE, margin, noise, type, l2, gap);
    ck_assert_int_eq(cfg_parse_string(doc, text, strlen(text), "o.yaml", e), 0);
    return plan_check(doc->root, s, e);
}

START_TEST(opt_1_1_read)
{
    cfg_doc d;
    run_spec s;
    dp_err e;
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "logistic", "0.01", "false"), 0);
    ck_assert_int_eq(s.optimality_gap, 0);
    cfg_doc_destroy(&d);
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "logistic", "0.01", "true"), 0);
    ck_assert_int_eq(s.optimality_gap, OPTIMALITY_REFERENCE_EPOCHS);
    cfg_doc_destroy(&d);
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "mlp, hidden: [8]", "0.01", "true"), 0);
    ck_assert_int_eq(s.deep, 1);
    ck_assert_int_eq(s.optimality_gap, 50);
    cfg_doc_destroy(&d);
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "logistic", "0.01", "maybe"), DP_ECONFIG);
    cfg_doc_destroy(&d);
}
END_TEST

START_TEST(opt_1_2_prepare)
{
    cfg_doc d[3];
    run_spec s[3];
    grid_run runs[3];
    dp_err e;
    const char *l2[3] = {"0.01", "0.01", "0.1"};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(load(&d[i], &s[i], &e, "0.0", "0.1", "logistic", l2[i], "true"), 0);
        runs[i].config = d[i].root;
    }
    ck_assert_int_eq(optimality_prepare(s, runs, 3, &e), 0);
    ck_assert(s[0].f_star == s[1].f_star);
    ck_assert(s[2].f_star > s[0].f_star);
    /* The reference: the runner's split of the same synthetic data, solved directly. */
    dp_dataset all = {0}, tr = {0}, te = {0};
    ck_assert_int_eq(dp_synthetic_make(&all, &s[0].synthetic, &e), 0);
    ck_assert_int_eq(dp_dataset_split(&all, s[0].n_train, s[0].synthetic.seed,
                                      &tr, &te, &e), 0);
    dp_linear m;
    ck_assert_int_eq(dp_linear_init(&m, DP_LOSS_LOGISTIC, tr.d, 2, 0.01, &e), 0);
    dp_erm_data D = {tr.x, tr.y, NULL, tr.n};
    dp_erm_result r;
    ck_assert_int_eq(dp_erm_solve(&m, &D, NULL, 0, 0, &r, &e), 0);
    ck_assert(r.f == s[0].f_star);
    dp_linear_destroy(&m);
    dp_dataset_destroy(&te);
    dp_dataset_destroy(&tr);
    dp_dataset_destroy(&all);
    for (int i = 0; i < 3; i++) cfg_doc_destroy(&d[i]);
}
END_TEST

START_TEST(opt_1_3_no_minimizer)
{
    cfg_doc d;
    run_spec s;
    grid_run run;
    dp_err e;
    /* margin 0.1 and no label noise: separable; l2 0: no minimizer */
    ck_assert_int_eq(load(&d, &s, &e, "0.1", "0.0", "logistic", "0", "true"), 0);
    run.config = d.root;
    ck_assert_int_eq(optimality_prepare(&s, &run, 1, &e), DP_ECONFIG);
    ck_assert_int_eq(e.line, 6);
    ck_assert_ptr_nonnull(strstr(e.msg, "separable"));
    cfg_doc_destroy(&d);
}
END_TEST

START_TEST(opt_1_4_reference_epochs)
{
    cfg_doc d;
    run_spec s;
    dp_err e;
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "mlp, hidden: [8]", "0.01",
                          "{reference_epochs: 7}"), 0);
    ck_assert_int_eq(s.optimality_gap, 7);
    cfg_doc_destroy(&d);
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "mlp, hidden: [8]", "0.01", "{}"), 0);
    ck_assert_int_eq(s.optimality_gap, OPTIMALITY_REFERENCE_EPOCHS);
    cfg_doc_destroy(&d);
    /* a linear model takes the map too (and ignores N) */
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "logistic", "0.01",
                          "{reference_epochs: 3}"), 0);
    ck_assert_int_ne(s.optimality_gap, 0);
    cfg_doc_destroy(&d);
    /* bad values: the value (or the unknown key) at line 6, with what is expected */
    static const struct {
        const char *value, *msg;
        int col;
    } bad[] = {
        {"maybe", "expected true, false or {reference_epochs: N}", 17},
        {"[1, 2]", "got a list", 17},
        {"", "got an empty value", 16},
        {"5", "got '5'", 17},
        {"\"true\"", "got the quoted string \"true\"", 17},
        {"{reference_epochs: 0}", "optimality_gap.reference_epochs must be >= 1, got 0", 36},
        {"{reference_epochs: -3}", "must be >= 1", 36},
        {"{reference_epochs: 2.5}", "optimality_gap.reference_epochs: expected an integer", 36},
        {"{reference_epochs: yes}", "expected an integer", 36},
        {"{reference_epoch: 5}", "did you mean 'reference_epochs'", 18},
        {"{epochs: 5, reference_epochs: 5}", "unknown key 'epochs' in optimality_gap", 18},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "mlp, hidden: [8]", "0.01",
                              bad[i].value), DP_ECONFIG);
        ck_assert_msg(e.line == 6 && e.col == bad[i].col, "%s: at %d:%d", bad[i].value,
                      e.line, e.col);
        ck_assert_msg(strstr(e.msg, bad[i].msg), "%s: %s", bad[i].value, e.msg);
        cfg_doc_destroy(&d);
    }
}
END_TEST

/* A small deep problem: an MLP with one hidden layer of 8 on 5 features, 3 classes. */
static int load_deep(cfg_doc *doc, run_spec *s, dp_err *e, const char *l2, const char *gap,
                     int seed)
{
    char text[1024];
    snprintf(text, sizeof text,
             "experiment: t\n"
             "dataset: {name: synthetic, n: 300, d: 5, classes: 3, label_noise: 0.1, seed: 2}\n"
             "model: {type: mlp, hidden: [8], l2: %s}\n"
             "train: {epochs: 1, batch_size: 10, lr: 0.1}\n"
             "algorithm: {name: sgd}\n"
             "optimality_gap: %s\n"
             "seed: %d\n",
             l2, gap, seed);
    ck_assert_int_eq(cfg_parse_string(doc, text, strlen(text), "o.yaml", e), 0);
    return plan_check(doc->root, s, e);
}

/* The runner's training and test split of s's synthetic data. */
static void split(const run_spec *s, dp_dataset *all, dp_dataset *tr, dp_dataset *te)
{
    dp_err e;
    ck_assert_int_eq(dp_synthetic_make(all, &s->synthetic, &e), 0);
    ck_assert_int_eq(dp_dataset_split(all, s->n_train, s->synthetic.seed, tr, te, &e),
                     0);
}

START_TEST(opt_1_5_deep_prepare)
{
    enum { N = 5 };
    cfg_doc d[N];
    run_spec s[N];
    grid_run runs[N];
    dp_err e;
    /* 0 and 1 differ only in the run seed; 2 in l2; 3 in the reference epochs; 4 is
     * linear on the same data */
    ck_assert_int_eq(load_deep(&d[0], &s[0], &e, "0.01", "{reference_epochs: 4}", 1), 0);
    ck_assert_int_eq(load_deep(&d[1], &s[1], &e, "0.01", "{reference_epochs: 4}", 9), 0);
    ck_assert_int_eq(load_deep(&d[2], &s[2], &e, "0.1", "{reference_epochs: 4}", 1), 0);
    ck_assert_int_eq(load_deep(&d[3], &s[3], &e, "0.01", "{reference_epochs: 6}", 1), 0);
    ck_assert_int_eq(load(&d[4], &s[4], &e, "0.0", "0.1", "logistic", "0.01", "true"), 0);
    for (int i = 0; i < N; i++) runs[i].config = d[i].root;
    ck_assert_int_eq(optimality_prepare(s, runs, N, &e), 0);
    for (int i = 0; i < N; i++) ck_assert(isfinite(s[i].f_star));
    ck_assert(s[1].f_star == s[0].f_star);
    ck_assert(s[2].f_star != s[0].f_star);
    ck_assert(s[3].f_star < s[0].f_star); /* 2 more epochs of Adam at lr 1e-3 go lower */

    /* The reference done here directly: the runner's split, the model from its sizes
     * (seed 1), Adam, evaluated on the runner's test set (the test set does not touch
     * the weights, so the training objective is the same bit for bit). */
    dp_dataset all = {0}, tr = {0}, te = {0};
    split(&s[0], &all, &tr, &te);
    ck_assert_uint_eq(tr.n, 240);
    int hidden[1] = {8};
    dp_model m;
    ck_assert_int_eq(dp_model_build_named(&m, "mlp", hidden, 1, "relu", 1, 1, 5, 3, 128, 1,
                                          &e), 0);
    dp_train_cfg cfg = {.algorithm = DP_ALGO_SGD, .epochs = 4, .batch_size = 128,
                        .sampling = DP_SAMPLING_SHUFFLE, .lr_schedule = DP_LR_CONSTANT,
                        .lr = 1e-3, .clip = INFINITY, .update = DP_UPDATE_ADAM,
                        .adam_beta1 = 0.9, .adam_beta2 = 0.999, .adam_eps = 1e-8,
                        .eval_every = 1, .seed = 1};
    dp_train_result r;
    ck_assert_int_eq(dp_train_model(&m, &cfg, 0.01, tr.x, tr.y, tr.n, te.x, te.y, te.n, &r, &e),
                     0);
    ck_assert_uint_eq(r.n_curve, 5); /* iteration 0 and after each of the 4 epochs */
    double best = INFINITY;
    for (size_t i = 0; i < r.n_curve; i++)
        if (r.curve[i].train_loss < best) best = r.curve[i].train_loss;
    ck_assert(best == s[0].f_star);
    dp_train_result_destroy(&r);
    dp_model_destroy(&m);
    dp_dataset_destroy(&te);
    dp_dataset_destroy(&tr);
    dp_dataset_destroy(&all);
    for (int i = 0; i < N; i++) cfg_doc_destroy(&d[i]);
}
END_TEST

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

START_TEST(opt_1_6_solved_once)
{
    enum { N = 6 };
    cfg_doc d[N];
    run_spec s[N];
    grid_run runs[N];
    dp_err e;
    for (int i = 0; i < N; i++) {   /* one problem, six run seeds */
        ck_assert_int_eq(load_deep(&d[i], &s[i], &e, "0.01", "{reference_epochs: 1000}", i + 1),
                         0);
        runs[i].config = d[i].root;
    }
    double t0 = cpu_now();
    ck_assert_int_eq(optimality_prepare(s, runs, 1, &e), 0);
    double one = cpu_now() - t0;
    double f = s[0].f_star;
    t0 = cpu_now();
    ck_assert_int_eq(optimality_prepare(s, runs, N, &e), 0);
    double six = cpu_now() - t0;
    for (int i = 0; i < N; i++) ck_assert(s[i].f_star == f);
    /* solved six times would be ~6x; solved once ~1x */
    ck_assert_msg(six < 3.0 * one, "one problem: %.3f s for 1 run, %.3f s for %d", one, six, N);
    for (int i = 0; i < N; i++) cfg_doc_destroy(&d[i]);
}
END_TEST

START_TEST(opt_1_7_record)
{
    cfg_doc d;
    run_spec s;
    grid_run run;
    dp_err e;
    ck_assert_int_eq(load_deep(&d, &s, &e, "0.01", "{reference_epochs: 3}", 1), 0);
    run.config = d.root;
    ck_assert_int_eq(optimality_prepare(&s, &run, 1, &e), 0);
    dp_dataset all = {0}, tr = {0}, te = {0};
    split(&s, &all, &tr, &te);
    /* a "run": the model from another seed, trained by plain SGD */
    dp_model m;
    ck_assert_int_eq(spec_build_model(&s, tr.n_classes, 10, &m, &e), 0);
    dp_train_result r;
    ck_assert_int_eq(dp_train_model(&m, &s.train, s.l2, tr.x, tr.y, tr.n, te.x, te.y, te.n, &r,
                                    &e), 0);
    dp_curve_point pt;
    ck_assert_int_eq(dp_model_curve_point(&m, s.l2, tr.x, tr.y, tr.n, te.x, te.y, te.n, &pt, &e),
                     0);
    json_t *metrics = json_object();
    optimality_record_deep(&s, &m, &tr, metrics);
    ck_assert(json_real_value(json_object_get(metrics, "f_star")) == s.f_star);
    double gap = json_real_value(json_object_get(metrics, "optimality_gap"));
    ck_assert(gap == pt.train_loss - s.f_star);
    ck_assert(pt.train_loss == r.final.train_loss);
    const char *method = json_string_value(json_object_get(metrics, "f_star_method"));
    ck_assert_ptr_nonnull(method);
    ck_assert_ptr_nonnull(strstr(method, "non-private Adam reference: 3 epochs, batch 128"));
    ck_assert_ptr_nonnull(strstr(method, "non-convex"));
    /* a run that beats the reference: its gap is negative, as computed */
    run_spec low = s;
    low.f_star = pt.train_loss + 0.5;
    optimality_record_deep(&low, &m, &tr, metrics);
    ck_assert(json_real_value(json_object_get(metrics, "optimality_gap")) ==
              pt.train_loss - low.f_star);
    ck_assert(json_real_value(json_object_get(metrics, "optimality_gap")) < 0);
    json_decref(metrics);
    dp_train_result_destroy(&r);
    dp_model_destroy(&m);
    dp_dataset_destroy(&te);
    dp_dataset_destroy(&tr);
    dp_dataset_destroy(&all);
    cfg_doc_destroy(&d);

    /* linear: unchanged numbers, and the method named */
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "logistic", "0.01", "true"), 0);
    run.config = d.root;
    ck_assert_int_eq(optimality_prepare(&s, &run, 1, &e), 0);
    split(&s, &all, &tr, &te);
    dp_linear lm;
    ck_assert_int_eq(dp_linear_init(&lm, DP_LOSS_LOGISTIC, tr.d, 2, 0.01, &e), 0);
    metrics = json_object();
    optimality_record(&s, &lm, &tr, metrics);
    ck_assert_str_eq(json_string_value(json_object_get(metrics, "f_star_method")), "erm_exact");
    ck_assert(json_real_value(json_object_get(metrics, "optimality_gap")) >= 0);
    json_decref(metrics);
    dp_linear_destroy(&lm);
    dp_dataset_destroy(&te);
    dp_dataset_destroy(&tr);
    dp_dataset_destroy(&all);
    cfg_doc_destroy(&d);
}
END_TEST

static Suite *opt_suite(void)
{
    Suite *s = suite_create("optimality");
    test_add_case(s, "opt-1.1", opt_1_1_read, 10);
    test_add_case(s, "opt-1.2", opt_1_2_prepare, 10);
    test_add_case(s, "opt-1.3", opt_1_3_no_minimizer, 10);
    test_add_case(s, "opt-1.4", opt_1_4_reference_epochs, 10);
    test_add_case(s, "opt-1.5", opt_1_5_deep_prepare, 30);
    test_add_case(s, "opt-1.6", opt_1_6_solved_once, 60);
    test_add_case(s, "opt-1.7", opt_1_7_record, 30);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(opt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
