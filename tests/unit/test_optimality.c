/* test_optimality.c: the optimality-gap pieces of the harness (harness/optimality.c).
 *
 * Cases:
 *   opt-1.1  optimality_gap absent is false; true on a deep model is a config error at
 *            the key (line:col) saying why; a non-boolean value is a config error.
 *   opt-1.2  optimality_prepare: F(w*) equals dp_erm_solve's on the same synthetic
 *            training split (exactly: the same computation), runs of one problem share
 *            it, a different l2 gets its own (and a larger one: F* grows with mu).
 *   opt-1.3  a problem without a minimizer (separable, l2 0) is a config error at the key.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../algorithms/erm_exact.h"
#include "../../harness/optimality.h"
#include "../../harness/runner.h"
#include "test_util.h"

#define BASE "experiment: t\n"                                                          \
             "dataset: {name: synthetic, n: 300, d: 5, classes: 2, margin: %s, "        \
             "label_noise: %s, seed: 2}\n"                                               \
             "model: {type: %s, l2: %s}\n"                                               \
             "train: {epochs: 1, batch_size: 10, lr: 0.1}\n"                             \
             "algorithm: {name: sgd}\n"                                                  \
             "optimality_gap: %s\n"

/* Parse and validate one run config; returns spec_from_config's code. */
static int load(cfg_doc *doc, run_spec *s, dp_err *e, const char *margin, const char *noise,
                const char *type, const char *l2, const char *gap)
{
    char text[1024];
    snprintf(text, sizeof text, BASE, margin, noise, type, l2, gap);
    ck_assert_int_eq(cfg_parse_string(doc, text, strlen(text), "o.yaml", e), 0);
    return spec_from_config(doc->root, s, e);
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
    ck_assert_int_eq(s.optimality_gap, 1);
    cfg_doc_destroy(&d);
    ck_assert_int_eq(load(&d, &s, &e, "0.0", "0.1", "mlp, hidden: [8]", "0.01", "true"), DP_ECONFIG);
    ck_assert_int_eq(e.line, 6);
    ck_assert_ptr_nonnull(strstr(e.msg, "deep"));
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
    ck_assert_int_eq(dp_dataset_split(&all, runner_train_size(&s[0]), s[0].synthetic.seed,
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

static Suite *opt_suite(void)
{
    Suite *s = suite_create("optimality");
    test_add_case(s, "opt-1.1", opt_1_1_read, 10);
    test_add_case(s, "opt-1.2", opt_1_2_prepare, 10);
    test_add_case(s, "opt-1.3", opt_1_3_no_minimizer, 10);
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
