/* test_spec.c: the experiment schema (harness/spec/spec.c): defaults and typed fields of a
 * run_spec, and every validation error with its code, FILE:LINE:COL and message, for
 * the document (spec_check_document) and for resolved runs (plan_check). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/grid/grid.h"
#include "harness/spec/spec.h"
#include "harness/sweep/plan.h"

/* A valid dp_sgd run, one setting a line, so each test can replace line N. */
static const char *const RUN[] = {
    "experiment: s\n",    /* 1 */
    "dataset:\n",         /* 2 */
    "  name: synthetic\n", /* 3 */
    "  n: 200\n",         /* 4 */
    "model:\n",           /* 5 */
    "  type: logistic\n", /* 6 */
    "train:\n",           /* 7 */
    "  epochs: 2\n",      /* 8 */
    "  batch_size: 10\n", /* 9 */
    "  lr: 0.1\n",        /* 10 */
    "algorithm:\n",       /* 11 */
    "  name: dp_sgd\n",   /* 12 */
    "  clip: 1.0\n",      /* 13 */
    "epsilon: 1.0\n",     /* 14 */
};
#define RUN_LINES (sizeof RUN / sizeof RUN[0])

/* RUN with line `line` (1-based) replaced by repl ("" deletes it; 0 replaces nothing)
 * and `extra` appended. Returns a static buffer. */
static const char *run_with(size_t line, const char *repl, const char *extra)
{
    static char buf[4096];
    buf[0] = '\0';
    for (size_t i = 0; i < RUN_LINES; i++) strcat(buf, i + 1 == line ? repl : RUN[i]);
    strcat(buf, extra ? extra : "");
    return buf;
}

static cfg_doc parse_ok(const char *text)
{
    cfg_doc d;
    dp_err e;
    int rc = cfg_parse_string(&d, text, strlen(text), "s.yaml", &e);
    ck_assert_msg(rc == 0, "parse failed: %d:%d: %s", e.line, e.col, e.msg);
    return d;
}

static void assert_err(int rc, const dp_err *e, int line, int col, const char *phrase)
{
    ck_assert_int_eq(rc, DP_ECONFIG);
    ck_assert_int_eq(e->code, DP_ECONFIG);
    ck_assert_str_eq(e->file, "s.yaml");
    ck_assert_msg(e->line == line && e->col == col, "at %d:%d, expected %d:%d (%s)", e->line,
                  e->col, line, col, e->msg);
    ck_assert_msg(strstr(e->msg, phrase), "message '%s' lacks '%s'", e->msg, phrase);
}

static run_spec spec_ok(const char *text)
{
    cfg_doc d = parse_ok(text);
    run_spec s;
    dp_err e;
    int rc = plan_check(d.root, &s, &e);
    ck_assert_msg(rc == 0, "spec failed: %d:%d: %s", e.line, e.col, e.msg);
    cfg_doc_destroy(&d);
    return s;
}

/* plan_check on a document without grid must fail at line:col with phrase. */
static void spec_err(const char *text, int line, int col, const char *phrase)
{
    cfg_doc d = parse_ok(text);
    run_spec s;
    dp_err e;
    dp_err_clear(&e);
    assert_err(plan_check(d.root, &s, &e), &e, line, col, phrase);
    cfg_doc_destroy(&d);
}

static void doc_err(const char *text, int line, int col, const char *phrase)
{
    cfg_doc d = parse_ok(text);
    dp_err e;
    dp_err_clear(&e);
    assert_err(spec_check_document(d.root, &e), &e, line, col, phrase);
    cfg_doc_destroy(&d);
}

// ---- 1: valid runs -------------------------------------------------------------------

/* spec-1.1: a minimal dp_sgd run gets every documented default. */
START_TEST(test_defaults)
{
    run_spec s = spec_ok(run_with(0, "", NULL));
    ck_assert_str_eq(s.experiment, "s");
    ck_assert_str_eq(s.dataset, "synthetic");
    ck_assert_uint_eq(s.synthetic.n, 200);
    ck_assert_uint_eq(s.synthetic.d, 20);
    ck_assert_int_eq(s.synthetic.n_classes, 2);
    ck_assert_double_eq(s.synthetic.margin, 0.05);
    ck_assert_double_eq(s.synthetic.label_noise, 0);
    ck_assert_uint_eq(s.synthetic.seed, 1);
    ck_assert_double_eq(s.test_fraction, 0.2);
    ck_assert_int_eq(s.loss, DP_LOSS_LOGISTIC);
    ck_assert_double_eq(s.l2, 0);
    ck_assert_double_eq(s.delta, 1e-5);
    ck_assert_str_eq(s.accountant, "rdp");
    ck_assert_double_eq(s.epsilon, 1.0);
    ck_assert_int_eq(s.has_noise_multiplier, 0);
    ck_assert_str_eq(s.algorithm, "dp_sgd");
    ck_assert_int_eq(s.train.algorithm, DP_ALGO_DP_SGD);
    ck_assert_int_eq(s.train.epochs, 2);
    ck_assert_uint_eq(s.train.batch_size, 10);
    ck_assert_int_eq(s.train.sampling, DP_SAMPLING_POISSON);
    ck_assert_int_eq(s.train.lr_schedule, DP_LR_CONSTANT);
    ck_assert_double_eq(s.train.lr, 0.1);
    ck_assert_double_eq(s.train.clip, 1.0);
    ck_assert_double_eq(s.train.noise_multiplier, 0); /* calibrated later from epsilon */
    ck_assert_int_eq(s.train.eval_every, 1);
    ck_assert_uint_eq(s.seed, 1);
    ck_assert_uint_eq(s.train.seed, 1);
}
END_TEST

/* spec-1.2: every field set explicitly lands in the spec. */
START_TEST(test_all_fields)
{
    run_spec s = spec_ok("experiment: full-1.0\npaper: P\ndescription: D\n"
                         "dataset: {name: synthetic, n: 1000, d: 7, classes: 5, margin: 0,\n"
                         "          label_noise: 0.5, seed: 42, test_fraction: 0.5}\n"
                         "model: {type: softmax, l2: 1.0e-4}\n"
                         "privacy: {delta: 1.0e-6, accountant: rdp}\n"
                         "train: {epochs: 3, batch_size: 500, sampling: shuffle,\n"
                         "        lr: {schedule: step, value: 0.5, step_at: 100, factor: 1},\n"
                         "        eval_every: 2}\n"
                         "algorithm: {name: dp_sgd, clip: .inf, noise_multiplier: 1.5}\n"
                         "seed: 9\n");
    ck_assert_str_eq(s.experiment, "full-1.0");
    ck_assert_uint_eq(s.synthetic.n, 1000);
    ck_assert_uint_eq(s.synthetic.d, 7);
    ck_assert_int_eq(s.synthetic.n_classes, 5);
    ck_assert_double_eq(s.synthetic.margin, 0);
    ck_assert_double_eq(s.synthetic.label_noise, 0.5);
    ck_assert_uint_eq(s.synthetic.seed, 42);
    ck_assert_double_eq(s.test_fraction, 0.5);
    ck_assert_int_eq(s.loss, DP_LOSS_SOFTMAX);
    ck_assert_double_eq(s.l2, 1e-4);
    ck_assert_double_eq(s.delta, 1e-6);
    ck_assert_int_eq(s.train.sampling, DP_SAMPLING_SHUFFLE);
    ck_assert_int_eq(s.train.lr_schedule, DP_LR_STEP);
    ck_assert_double_eq(s.train.lr, 0.5);
    ck_assert_int_eq(s.train.lr_step_at, 100);
    ck_assert_double_eq(s.train.lr_step_factor, 1);
    ck_assert_int_eq(s.train.eval_every, 2);
    ck_assert(isinf(s.train.clip));
    ck_assert_int_eq(s.has_noise_multiplier, 1);
    ck_assert_double_eq(s.train.noise_multiplier, 1.5);
    ck_assert(isinf(s.epsilon)); /* no target: the noise is given */
    ck_assert_uint_eq(s.seed, 9);
    ck_assert_uint_eq(s.train.seed, 9);
}
END_TEST

/* spec-1.3: sgd: shuffle by default, no clipping or noise, epsilon ignored (a grid may
 * vary it across algorithms), .inf accepted. */
#define SGD_RUN                                                                            \
    "experiment: s\ndataset: {name: synthetic, n: 100}\nmodel: {type: logistic}\n"          \
    "algorithm: {name: sgd}\ntrain: {epochs: 1, batch_size: 8, lr: 0.1"

START_TEST(test_sgd)
{
    const char *texts[] = {SGD_RUN "}\nepsilon: 2\n", SGD_RUN "}\nepsilon: .inf\n",
                           SGD_RUN "}\n"};
    for (size_t i = 0; i < 3; i++) {
        run_spec s = spec_ok(texts[i]);
        ck_assert_str_eq(s.algorithm, "sgd");
        ck_assert_int_eq(s.train.algorithm, DP_ALGO_SGD);
        ck_assert_int_eq(s.train.sampling, DP_SAMPLING_SHUFFLE);
        ck_assert(isinf(s.train.clip) && s.train.clip > 0);
        ck_assert_double_eq(s.train.noise_multiplier, 0);
        ck_assert_int_eq(s.has_noise_multiplier, 0);
        ck_assert(isinf(s.epsilon));
    }
    run_spec s = spec_ok(SGD_RUN ", sampling: poisson}\n");
    ck_assert_int_eq(s.train.sampling, DP_SAMPLING_POISSON);
}
END_TEST

/* spec-1.4: learning-rate schedules. */
START_TEST(test_lr_schedules)
{
    run_spec s = spec_ok(run_with(10, "  lr: {schedule: inverse_t, a: 2}\n", NULL));
    ck_assert_int_eq(s.train.lr_schedule, DP_LR_INVERSE_T);
    ck_assert_double_eq(s.train.lr_a, 2);
    s = spec_ok(run_with(10, "  lr: {schedule: constant, value: 0.25}\n", NULL));
    ck_assert_int_eq(s.train.lr_schedule, DP_LR_CONSTANT);
    ck_assert_double_eq(s.train.lr, 0.25);
}
END_TEST

/* spec-1.5: the fixture experiment: document checks pass, every run (full and quick
 * scale) validates. */
START_TEST(test_fixture_runs)
{
    char path[512];
    const char *f = __FILE__, *cut = strstr(f, "unit/test_spec.c");
    snprintf(path, sizeof path, "%.*sfixtures/config/valid.yaml", cut ? (int)(cut - f) : 0, f);
    cfg_doc d;
    dp_err e;
    ck_assert_int_eq(cfg_parse_file(&d, path, &e), 0);
    ck_assert_int_eq(spec_check_document(d.root, &e), 0);
    const char *scales[] = {NULL, "quick"};
    const size_t counts[] = {6, 3};
    for (size_t k = 0; k < 2; k++) {
        grid g;
        ck_assert_int_eq(grid_expand(d.root, scales[k], NULL, 0, &g, &e), 0);
        ck_assert_uint_eq(g.n, counts[k]);
        for (size_t r = 0; r < g.n; r++) {
            run_spec s;
            int rc = plan_check(g.runs[r].config, &s, &e);
            ck_assert_msg(rc == 0, "run %zu: %d:%d: %s", r, e.line, e.col, e.msg);
            ck_assert_int_eq(s.train.epochs, k == 0 ? 3 : 1);
            ck_assert_int_eq(s.train.lr_schedule, DP_LR_INVERSE_T);
        }
        grid_destroy(&g);
    }
    cfg_doc_destroy(&d);
}
END_TEST

// ---- 2: document ---------------------------------------------------------------------

/* spec-2.1: top-level keys, experiment, metadata. */
START_TEST(test_doc_top)
{
    doc_err(run_with(0, "", "epsilom: 1\n"), 15, 1,
            "unknown key 'epsilom' in the experiment; did you mean 'epsilon'?");
    doc_err(run_with(1, "", NULL), 1, 1, "missing required key 'experiment'");
    doc_err(run_with(1, "experiment: my run\n", NULL), 1, 13, "experiment 'my run'");
    doc_err(run_with(1, "experiment: ..\n", NULL), 1, 13, "results folder");
    doc_err(run_with(1, "experiment: 2024\n", NULL), 1, 13,
            "experiment: expected a string, got '2024'");
    doc_err(run_with(0, "", "paper: [a]\n"), 15, 8, "paper: expected a string, got a list");
    doc_err(run_with(0, "", "description: 3\n"), 15, 14, "description: expected a string");
    cfg_doc d = parse_ok(run_with(1, "experiment: \"2024\"\n", NULL));
    ck_assert_int_eq(spec_check_document(d.root, NULL), 0);
    cfg_doc_destroy(&d);
}
END_TEST

/* spec-2.2: grid and scales shapes. */
START_TEST(test_doc_grid_scales)
{
    doc_err(run_with(0, "", "grid: {epsilom: [1, 2]}\n"), 15, 8,
            "unknown key 'epsilom' in grid; did you mean 'epsilon'?");
    doc_err(run_with(0, "", "grid: {trainn.epochs: [1, 2]}\n"), 15, 8,
            "unknown key 'trainn.epochs' in grid; did you mean 'train'?");
    /* a transposition is two Levenshtein edits: too far for a 5-letter word */
    doc_err(run_with(0, "", "grid: {trian.epochs: [1, 2]}\n"), 15, 8,
            "unknown key 'trian.epochs' in grid; did you mean 'train'?");
    doc_err(run_with(0, "", "grid: {optimizer: [1, 2]}\n"), 15, 8,
            "unknown key 'optimizer' in grid (a grid varies: dataset, model,");
    doc_err(run_with(0, "", "grid: {report: [1]}\n"), 15, 8, "a grid varies:");
    doc_err(run_with(0, "", "grid: [1]\n"), 15, 7, "grid: expected a map");
    doc_err(run_with(0, "", "grid: {zip: {sed: [1], epsilon: [2]}}\n"), 15, 14,
            "unknown key 'sed' in grid.zip; did you mean 'seed'?");
    doc_err(run_with(0, "", "grid: {zip: 1}\n"), 15, 13, "grid.zip: expected a map");
    doc_err(run_with(0, "", "grid: {zip: [{zip: {seed: [1]}}]}\n"), 15, 15, "zip inside zip");
    doc_err(run_with(0, "", "scales: [quick]\n"), 15, 9, "scales: expected a map");
    doc_err(run_with(0, "", "scales: {quick: 5}\n"), 15, 17, "scales.quick: expected a map");
    doc_err(run_with(0, "", "scales: {quick: {trains: {epochs: 1}}}\n"), 15, 18,
            "unknown key 'trains' in scales.quick; did you mean 'train'?");
    doc_err(run_with(0, "", "scales: {quick: {scales: {}}}\n"), 15, 18,
            "a scale cannot define scales");
    doc_err(run_with(0, "", "scales: {quick: {grid: {seedd: [1]}}}\n"), 15, 25,
            "in scales.quick.grid; did you mean 'seed'?");
}
END_TEST

/* spec-2.3: report tables. */
START_TEST(test_doc_tables)
{
    doc_err(run_with(0, "", "report: {tabels: []}\n"), 15, 10,
            "unknown key 'tabels' in report; did you mean 'tables'?");
    doc_err(run_with(0, "", "report: {tables: {cell: x}}\n"), 15, 18,
            "report.tables: expected a list");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cel: test_accuracy}\n"), 17, 8,
            "unknown key 'cel' in report.tables[0]; did you mean 'cell'?");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {rows: epsilon}\n"), 17, 7,
            "report.tables[0]: missing required key 'cell'");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: a, aggregate: avg}\n"), 17, 28,
            "unknown aggregate 'avg'");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: a, digits: 9}\n"), 17, 25,
            "report.tables[0].digits must be <= 8, got 9");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: a, rows: [epsilon, 1]}\n"), 17,
            33, "report.tables[0].rows: expected a string, got '1'");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: a, rows: []}\n"), 17, 23,
            "empty list");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: a, name: t1}\n"
                            "    - {cell: b, name: t1}\n"),
            18, 23, "report.tables[1].name 't1' is used twice (first at line 17)");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: a, name: a/b}\n"), 17, 23,
            "it names output files");
    doc_err(run_with(0, "", "report:\n  tables:\n    - 3\n"), 17, 7,
            "report.tables[0]: expected a map");
}
END_TEST

/* spec-2.4: report figures. */
START_TEST(test_doc_figures)
{
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch}\n"), 17, 7,
            "report.figures[0]: missing required key 'y'");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch, y: loss, logy: yes}\n"), 17,
            33, "report.figures[0].logy: expected true or false, got 'yes'");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch, y: loss, by: []}\n"), 17,
            31, "report.figures[0].by: empty list");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch, y: l, where: {seed: {a: 1}}}\n"),
            17, 38, "report.figures[0].where.seed: expected a value, or a non-empty list");
    doc_err(run_with(0, "", "report:\n  tables:\n    - {cell: l, where: {seed: []}}\n"),
            17, 31, "report.tables[0].where.seed: expected a value, or a non-empty list");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch, y: l, wheres: {seed: 1}}\n"),
            17, 24, "did you mean 'where'?");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch, y: l, where: 1}\n"), 17, 31,
            "report.figures[0].where: expected a map");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epoch, y: l, xmin: one}\n"), 17,
            30, "report.figures[0].xmin: expected a number, got 'one'");
    doc_err(run_with(0, "", "report:\n  figures:\n    - {x: epsilon, y: l, xmin: 1}\n"), 17,
            32, "report.figures[0].xmin: only a curve figure (x: iteration or epoch)");
    cfg_doc d = parse_ok(run_with(0, "", "report:\n  figures:\n"
                                         "    - {name: f, title: T, x: epoch, y: l, by: [a, b],\n"
                                         "       where: {epsilon: 1}, logx: false, logy: true,\n"
                                         "       errorbars: true}\n"));
    dp_err e;
    ck_assert_int_eq(spec_check_document(d.root, &e), 0);
    cfg_doc_destroy(&d);
}
END_TEST

// ---- 3: runs -------------------------------------------------------------------------

/* spec-3.1: top level of a run. */
START_TEST(test_run_top)
{
    spec_err(run_with(0, "", "grid: {seed: [1]}\n"), 15, 1,
             "'grid' belongs to the experiment document");
    spec_err(run_with(0, "", "seeds: 1\n"), 15, 1,
             "unknown key 'seeds' in the run config; did you mean 'seed'?");
    spec_err(run_with(0, "", "momentum: 1\n"), 15, 1,
             "unknown key 'momentum' in the run config (known keys: experiment, paper,");
    spec_err("experiment: s\nmodel: {type: logistic}\n", 1, 1,
             "missing required block 'dataset'");
    spec_err("experiment: s\ndataset: {name: synthetic}\nmodel: {type: logistic}\n"
             "algorithm: {name: sgd}\ntrain: 5\n", 5, 8, "train: expected a map");
    spec_err(run_with(0, "", "seed: -1\n"), 15, 7, "seed must be >= 0, got -1");
    spec_err(run_with(0, "", "seed: 1.5\n"), 15, 7, "seed: expected an integer, got '1.5'");
    spec_err(run_with(14, "epsilon: 0\n", NULL), 14, 10, "epsilon must be > 0, got 0");
    spec_err(run_with(14, "epsilon: -.inf\n", NULL), 14, 10, "epsilon must be > 0");
    spec_err(run_with(14, "epsilon: .nan\n", NULL), 14, 10, "epsilon must be > 0");
    spec_err(run_with(14, "epsilon: one\n", NULL), 14, 10, "epsilon: expected a number");
}
END_TEST

/* spec-3.2: dataset. */
START_TEST(test_run_dataset)
{
    spec_err(run_with(4, "  nn: 200\n", NULL), 4, 3,
             "unknown key 'nn' in dataset; did you mean 'n'?");
    spec_err(run_with(3, "", NULL), 2, 1, "dataset: missing required key 'name'");
    spec_err(run_with(3, "  name: imagenet\n", NULL), 3, 9,
             "unknown dataset 'imagenet' (known: synthetic, mnist, fashion_mnist");
    /* real datasets have their own size: the synthetic generator's keys are refused */
    spec_err(run_with(3, "  name: mnist\n", NULL), 4, 3,
             "dataset.n applies to the synthetic dataset only; mnist has its own size");
    spec_err(run_with(3, "  name: synthetc\n", NULL), 3, 9, "did you mean 'synthetic'?");
    spec_err(run_with(4, "  n: 5\n", NULL), 4, 6, "dataset.n must be >= 10, got 5");
    spec_err(run_with(4, "  n: many\n", NULL), 4, 6, "dataset.n: expected an integer");
    spec_err(run_with(4, "  n: 200\n  d: 0\n", NULL), 5, 6, "dataset.d must be >= 1, got 0");
    spec_err(run_with(4, "  n: 200\n  classes: 1\n", NULL), 5, 12,
             "dataset.classes must be >= 2, got 1");
    spec_err(run_with(4, "  n: 200\n  margin: 1\n", NULL), 5, 11,
             "dataset.margin must be in [0, 1), got 1");
    spec_err(run_with(4, "  n: 200\n  label_noise: 0.6\n", NULL), 5, 16,
             "dataset.label_noise must be in [0, 0.5], got 0.6");
    spec_err(run_with(4, "  n: 200\n  seed: -3\n", NULL), 5, 9, "dataset.seed must be >= 0");
    spec_err(run_with(4, "  n: 200\n  test_fraction: 1.0\n", NULL), 5, 18,
             "dataset.test_fraction must be in (0, 1), got 1.0");
    spec_err(run_with(4, "  n: 10\n  test_fraction: 0.01\n", NULL), 5, 18,
             "leaves no test examples");
    spec_err(run_with(4, "  n: 10\n  test_fraction: 0.97\n", NULL), 5, 18,
             "leaves no training examples");
}
END_TEST

/* spec-3.3: model and privacy. */
START_TEST(test_run_model_privacy)
{
    spec_err(run_with(6, "  l2: 0\n", NULL), 5, 1, "model: missing required key 'type'");
    spec_err(run_with(6, "", NULL), 5, 7, "model: expected a map of settings (key: value), "
                                          "got an empty value");
    spec_err(run_with(6, "  type: linear\n", NULL), 6, 9,
             "unknown model type 'linear' (known: logistic, softmax, squared, huber, mlp, mlp_inputpert, cnn_mnist, cnn_cifar, cnn_cifar_small, custom)");
    /* deep models: the fit is checked, naming both shapes; shape must match d */
    spec_err("experiment: s\ndataset: {name: synthetic, d: 20}\nmodel: {type: cnn_mnist}\n"
             "train: {epochs: 1, batch_size: 8, lr: 0.1}\nalgorithm: {name: sgd}\n", 3, 15,
             "model.type cnn_mnist does not fit dataset shape 1 x 1 x 20 with 2 classes");
    spec_err("experiment: s\ndataset: {name: synthetic, d: 20, shape: [1, 4, 4]}\n"
             "model: {type: mlp}\ntrain: {epochs: 1, batch_size: 8, lr: 0.1}\n"
             "algorithm: {name: sgd}\n", 2, 42, "dataset.shape 1 x 4 x 4 has 16 values per example, "
             "but dataset.d is 20");
    spec_err("experiment: s\ndataset: {name: synthetic}\nmodel: {type: softmax, hidden: [4]}\n"
             "train: {epochs: 1, batch_size: 8, lr: 0.1}\nalgorithm: {name: sgd}\n", 3, 24,
             "model.hidden applies to deep models, not to softmax");
    run_spec deep = spec_ok("experiment: s\ndataset: {name: synthetic, d: 16, classes: 3}\n"
                            "model: {type: mlp, hidden: [8, 4], activation: tanh}\n"
                            "train: {epochs: 1, batch_size: 8, lr: 0.1}\nalgorithm: {name: sgd}\n");
    ck_assert_int_eq(deep.deep, 1);
    ck_assert_uint_eq(deep.n_hidden, 2);
    ck_assert_int_eq(deep.hidden[1], 4);
    ck_assert_str_eq(deep.activation, "tanh");
    spec_err(run_with(4, "  n: 200\n  classes: 5\n", NULL), 7, 9,
             "model.type logistic needs 2 classes; dataset.classes is 5: use softmax");
    spec_err(run_with(6, "  type: softmax\n  l2: -1\n", NULL), 7, 7,
             "model.l2 must be >= 0 and finite, got -1");
    spec_err(run_with(6, "  type: softmax\n  l2: .inf\n", NULL), 7, 7, "model.l2 must be");
    spec_err(run_with(0, "", "privacy: {delta: 0}\n"), 15, 18,
             "privacy.delta must be in (0, 1), got 0");
    spec_err(run_with(0, "", "privacy: {delta: 1}\n"), 15, 18, "privacy.delta must be in (0, 1)");
    spec_err(run_with(0, "", "privacy: {accountant: rpd}\n"), 15, 23,
             "unknown accountant 'rpd'; did you mean 'rdp'? (known: rdp, rdp_classic, moments, "
             "rdp_wor, pld, advanced, basic, lssgd_theorem1, lecture15_gd, pld_wor)");
    spec_err(run_with(0, "", "privacy: {deltaa: 1e-5}\n"), 15, 11,
             "unknown key 'deltaa' in privacy; did you mean 'delta'?");
    spec_err(run_with(0, "", "privacy: 1e-5\n"), 15, 10, "privacy: expected a map");
    /* privacy.also_report: more accountants' epsilon for the same run (DPlis's classic
     * conversion beside the tight one) */
    run_spec ar = spec_ok(run_with(0, "", "privacy: {accountant: rdp_classic, "
                                   "also_report: [pld, rdp]}\n"));
    ck_assert_int_eq(ar.accountant_kind, DP_ACCOUNTANT_RDP_CLASSIC);
    ck_assert_uint_eq(ar.n_also_report, 2);
    ck_assert_int_eq(ar.also_report[0], DP_ACCOUNTANT_PLD);
    ck_assert_int_eq(ar.also_report[1], DP_ACCOUNTANT_RDP);
    ck_assert_uint_eq(spec_ok(run_with(0, "", "")).n_also_report, 0);
    spec_err(run_with(0, "", "privacy: {also_report: [pdl]}\n"), 15, 25,
             "privacy.also_report: unknown accountant 'pdl' (known: rdp, rdp_classic");
    spec_err(run_with(0, "", "privacy: {also_report: [pld, pld]}\n"), 15, 30,
             "privacy.also_report: 'pld' is listed twice");
    spec_err(run_with(0, "", "privacy: {also_report: pld}\n"), 15, 24,
             "privacy.also_report: expected a list of at most 8 accountants");
}
END_TEST

/* spec-3.4: train. */
START_TEST(test_run_train)
{
    spec_err(run_with(8, "  epocs: 2\n", NULL), 8, 3,
             "unknown key 'epocs' in train; did you mean 'epochs'?");
    spec_err(run_with(8, "", NULL), 7, 1, "train: missing required key 'epochs'");
    spec_err(run_with(8, "  epochs: 0\n", NULL), 8, 11, "train.epochs must be >= 1, got 0");
    spec_err(run_with(8, "  epochs: five\n", NULL), 8, 11,
             "train.epochs: expected an integer, got 'five'");
    spec_err(run_with(9, "", NULL), 7, 1, "train: missing required key 'batch_size'");
    spec_err(run_with(9, "  batch_size: 161\n", NULL), 9, 15,
             "train.batch_size 161 is larger than the 160 training examples (dataset.n 200 "
             "minus 40 test examples)");
    spec_err(run_with(9, "  batch_size: 10\n  sampling: poison\n", NULL), 10, 13,
             "unknown sampling 'poison'; did you mean 'poisson'?");
    spec_err(run_with(9, "  batch_size: 10\n  eval_every: 0\n", NULL), 10, 15,
             "train.eval_every must be >= 1");
    /* batch_size may equal the training-set size */
    run_spec s = spec_ok(run_with(9, "  batch_size: 160\n", NULL));
    ck_assert_uint_eq(s.train.batch_size, 160);
}
END_TEST

/* spec-3.5: train.lr. */
START_TEST(test_run_lr)
{
    spec_err(run_with(10, "", NULL), 7, 1, "train: missing required key 'lr'");
    spec_err(run_with(10, "  lr: 0\n", NULL), 10, 7, "train.lr must be > 0");
    spec_err(run_with(10, "  lr: fast\n", NULL), 10, 7, "train.lr: expected a number, got 'fast'");
    spec_err(run_with(10, "  lr: [0.1]\n", NULL), 10, 7, "expected a number or a map");
    spec_err(run_with(10, "  lr: {a: 1}\n", NULL), 10, 3,
             "train.lr: missing required key 'schedule'");
    spec_err(run_with(10, "  lr: {schedule: cosine}\n", NULL), 10, 18,
             "unknown schedule 'cosine' (known: constant, inverse_t, step, inverse_sqrt_t, inverse_epoch)");
    spec_err(run_with(10, "  lr: {schedule: inverse_t, value: 1}\n", NULL), 10, 29,
             "train.lr.value is not used by schedule 'inverse_t' (it takes: a)");
    spec_err(run_with(10, "  lr: {schedule: step, value: 1, step_at: 10}\n", NULL), 10, 3,
             "schedule 'step' needs 'factor'");
    spec_err(run_with(10, "  lr: {schedule: step, value: 1, step_at: 10, factor: 1.5}\n", NULL),
             10, 55, "train.lr.factor must be in (0, 1], got 1.5");
    spec_err(run_with(10, "  lr: {schedule: step, value: 1, step_at: 0, factor: 0.1}\n", NULL),
             10, 43, "train.lr.step_at must be >= 1");
    spec_err(run_with(10, "  lr: {schedule: inverse_t, a: -1}\n", NULL), 10, 32,
             "train.lr.a must be > 0");
    spec_err(run_with(10, "  lr: {schedule: constant, valu: 1}\n", NULL), 10, 28,
             "did you mean 'value'?");
}
END_TEST

/* spec-3.6: algorithm and the privacy target. */
START_TEST(test_run_algorithm)
{
    spec_err(run_with(12, "", NULL), 11, 1, "algorithm: missing required key 'name'");
    spec_err(run_with(12, "  name: newton\n", NULL), 12, 9,
             /* the list goes on with the convex drivers (test_registry checks it whole) */
             "unknown algorithm 'newton' (known: sgd, gd, adam, dp_sgd, dp_gd, dp_adam, "
             "dp_lssgd, dp_lsadam, dplis");
    spec_err(run_with(12, "  name: dpsgd\n", NULL), 12, 9, "did you mean 'dp_sgd'?");
    spec_err(run_with(13, "", NULL), 11, 1, "algorithm: missing required key 'clip'");
    spec_err(run_with(13, "  clip: 0\n", NULL), 13, 9, "algorithm.clip must be > 0 (or .inf)");
    spec_err(run_with(13, "  clip: 1\n  noise_multiplier: -1\n", NULL), 14, 21,
             "algorithm.noise_multiplier must be >= 0");
    spec_err(run_with(13, "  clip: 1\n  noise_multiplier: 1\n", NULL), 14, 3,
             "give either epsilon (the noise is calibrated to it) or "
             "algorithm.noise_multiplier, not both");
    spec_err(run_with(14, "", NULL), 11, 1,
             "dp_sgd needs a privacy target: set epsilon");
    spec_err(run_with(14, "epsilon: .inf\n", NULL), 14, 10, "epsilon .inf means no privacy");
    spec_err(run_with(10, "  lr: 0.1\n  sampling: shuffle\n", NULL), 11, 13,
             "epsilon calibration with privacy.accountant rdp assumes Poisson sampling; set "
             "train.sampling: poisson, or give algorithm.noise_multiplier");
    /* rdp_wor analyses fixed-size batches without replacement: its default sampling is
     * wor, and Poisson sampling does not fit it. */
    run_spec w = spec_ok("experiment: s\ndataset: {name: synthetic}\nmodel: {type: logistic}\n"
                         "privacy: {accountant: rdp_wor}\nepsilon: 1\n"
                         "train: {epochs: 1, batch_size: 8, lr: 0.1}\n"
                         "algorithm: {name: dp_sgd, clip: 1}\n");
    ck_assert_int_eq(w.train.sampling, DP_SAMPLING_WOR);
    ck_assert_int_eq(w.accountant_kind, DP_ACCOUNTANT_RDP_WOR);
    spec_err("experiment: s\ndataset: {name: synthetic}\nmodel: {type: logistic}\n"
             "privacy: {accountant: rdp_wor}\nepsilon: 1\n"
             "train: {epochs: 1, batch_size: 8, lr: 0.1, sampling: poisson}\n"
             "algorithm: {name: dp_sgd, clip: 1}\n", 6, 54,
             "privacy.accountant rdp_wor assumes fixed-size batches drawn without replacement; "
             "set train.sampling: wor");
    /* shuffle is fine with an explicit noise multiplier */
    run_spec s = spec_ok("experiment: s\ndataset: {name: synthetic}\nmodel: {type: logistic}\n"
                         "train: {epochs: 1, batch_size: 8, lr: 0.1, sampling: shuffle}\n"
                         "algorithm: {name: dp_sgd, clip: 1, noise_multiplier: 0}\n");
    ck_assert_int_eq(s.train.sampling, DP_SAMPLING_SHUFFLE);
    ck_assert_int_eq(s.has_noise_multiplier, 1);
    ck_assert_double_eq(s.train.noise_multiplier, 0);
}
END_TEST

/* spec-3.7: sgd rejects clip and noise_multiplier (hint for shared base blocks). */
START_TEST(test_run_sgd_rejects)
{
    spec_err(run_with(12, "  name: sgd\n", NULL), 13, 3,
             "algorithm.clip is not used by sgd; remove it");
    cfg_doc d = parse_ok(run_with(12, "  name: sgd\n  noise_multiplier: 2\n", NULL));
    /* line 13 is now noise_multiplier, line 14 clip: keys are checked in file order */
    run_spec s;
    dp_err e;
    assert_err(plan_check(d.root, &s, &e), &e, 13, 3,
               "algorithm.noise_multiplier is not used by sgd");
    ck_assert_ptr_nonnull(strstr(e.hint, "grid entries of the algorithms that use it"));
    cfg_doc_destroy(&d);
}
END_TEST

/* spec-3.9: the first-order family: each algorithm's keys, defaults and batches. */
START_TEST(test_run_family)
{
    const char *head = "experiment: s\ndataset: {name: synthetic, n: 200}\n"
                       "model: {type: softmax}\n";
    char buf[1024];
    /* dp_lssgd: smoothing defaults to 1, takes any finite value >= 0 */
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\nepsilon: 1\n"
             "algorithm: {name: dp_lssgd, clip: 1}\n", head);
    run_spec a = spec_ok(buf);
    ck_assert_double_eq(a.train.smoothing, 1.0);
    ck_assert_int_eq(a.train.update, DP_UPDATE_SGD);
    ck_assert_int_eq(a.train.algorithm, DP_ALGO_DP_SGD);
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\nepsilon: 1\n"
             "algorithm: {name: dp_lsadam, clip: 1, smoothing: 3, beta1: 0.5}\n", head);
    a = spec_ok(buf);
    ck_assert_double_eq(a.train.smoothing, 3.0);
    ck_assert_int_eq(a.train.update, DP_UPDATE_ADAM);
    ck_assert_double_eq(a.train.adam_beta1, 0.5);
    ck_assert_double_eq(a.train.adam_beta2, 0.999);
    ck_assert_double_eq(a.train.adam_eps, 1e-8);
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\n"
             "algorithm: {name: dp_lssgd, clip: 1, noise_multiplier: 1, smoothing: -1}\n", head);
    spec_err(buf, 5, 70, "algorithm.smoothing must be >= 0 and finite");
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\n"
             "algorithm: {name: adam, beta2: 1}\n", head);
    spec_err(buf, 5, 32, "algorithm.beta2 must be in [0, 1)");
    /* dplis: R and K default to the paper's 10 and 10 */
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\nepsilon: 1\n"
             "algorithm: {name: dplis, clip: 1}\n", head);
    a = spec_ok(buf);
    ck_assert_double_eq(a.train.dplis_radius, 10.0);
    ck_assert_int_eq(a.train.dplis_samples, 10);
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\nepsilon: 1\n"
             "algorithm: {name: dplis, clip: 1, samples: -1}\n", head);
    spec_err(buf, 6, 44, "algorithm.samples");
    /* keys an algorithm does not use */
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\n"
             "algorithm: {name: sgd, smoothing: 1}\n", head);
    spec_err(buf, 5, 24, "algorithm.smoothing is not used by sgd; remove it");
    snprintf(buf, sizeof buf, "%strain: {epochs: 1, batch_size: 8, lr: 0.1}\nepsilon: 1\n"
             "algorithm: {name: dp_sgd, clip: 1, beta1: 0.9}\n", head);
    spec_err(buf, 6, 36, "algorithm.beta1 is not used by dp_sgd");
    /* gd: the whole training set (160 of 200 with the default test fraction) each step */
    snprintf(buf, sizeof buf, "%strain: {epochs: 3, lr: 0.1}\nalgorithm: {name: gd}\n", head);
    a = spec_ok(buf);
    ck_assert_int_eq(a.train.sampling, DP_SAMPLING_FULL);
    ck_assert_uint_eq(a.train.batch_size, 160);
    /* a shared train block's batch_size and sampling do not apply to it */
    snprintf(buf, sizeof buf, "%strain: {epochs: 3, batch_size: 8, sampling: wor, lr: 0.1}\n"
             "algorithm: {name: gd}\n", head);
    a = spec_ok(buf);
    ck_assert_int_eq(a.train.sampling, DP_SAMPLING_FULL);
    ck_assert_uint_eq(a.train.batch_size, 160);
    /* dp_gd calibrates from epsilon under any accountant: q = 1 */
    snprintf(buf, sizeof buf, "%sprivacy: {accountant: rdp_wor}\nepsilon: 1\n"
             "train: {epochs: 3, lr: {schedule: inverse_sqrt_t, a: 0.5}}\n"
             "algorithm: {name: dp_gd, clip: 1}\n", head);
    a = spec_ok(buf);
    ck_assert_int_eq(a.train.sampling, DP_SAMPLING_FULL);
    ck_assert_int_eq(a.train.lr_schedule, DP_LR_INVERSE_SQRT_T);
    ck_assert_double_eq(a.train.lr_a, 0.5);
}
END_TEST

/* spec-4.1: a model as a layer list (model.type custom): every layer type parses with
 * its defaults; the built model is what the list says; errors name the layer. */
START_TEST(test_custom_layers)
{
    const char *head = "experiment: s\ndataset: {name: synthetic, n: 100, d: 64, classes: 3, "
                       "shape: [1, 8, 8]}\ntrain: {epochs: 1, batch_size: 8, lr: 0.1}\n"
                       "algorithm: {name: sgd}\n";
    char buf[2048];
    snprintf(buf, sizeof buf, "%smodel:\n  type: custom\n  layers:\n"
             "    - {type: conv, filters: 4, kernel: 3, padding: same}\n"
             "    - {type: relu}\n    - {type: maxpool, kernel: 2}\n"
             "    - {type: conv, filters: 2, kernel: 2, stride: 2, padding: 1}\n"
             "    - {type: tanh}\n    - {type: flatten}\n    - {type: dense, units: 6}\n"
             "    - {type: tempered_sigmoid, s: 3}\n    - {type: sigmoid}\n"
             "    - {type: dense, units: 3}\n", head);
    run_spec a = spec_ok(buf);
    ck_assert_uint_eq(a.n_layers, 10);
    ck_assert_int_eq(a.deep, 1);
    ck_assert_int_eq(a.layers[0].kind, DP_LAYER_CONV);
    ck_assert_int_eq(a.layers[0].padding, DP_PAD_SAME);
    ck_assert_int_eq(a.layers[0].stride, 1);
    ck_assert_int_eq(a.layers[2].stride, 2); /* maxpool stride defaults to its kernel */
    ck_assert_int_eq(a.layers[3].padding, 1);
    ck_assert_double_eq(a.layers[7].act.s, 3.0);
    ck_assert_double_eq(a.layers[7].act.t, 2.0);
    ck_assert_double_eq(a.layers[8].act.t, 1.0);
    dp_model m;
    dp_err e;
    ck_assert_int_eq(spec_build_model(&a, 3, 4, &m, &e), 0);
    /* conv 4x(3x3x1)+4, conv 2x(2x2x4)+2, dense 6x(2*3*3... : count from the shapes */
    ck_assert_uint_eq(m.n_layers, 10);
    ck_assert_uint_eq(m.layers[3].out_h, 3); /* (4 + 2 - 2) / 2 + 1 */
    dp_model_destroy(&m);
    snprintf(buf, sizeof buf, "%smodel:\n  type: custom\n", head);
    spec_err(buf, 5, 1, "model: missing required key 'layers'");
    snprintf(buf, sizeof buf, "%smodel:\n  type: custom\n  layers:\n    - {type: dense}\n",
             head);
    spec_err(buf, 8, 7, "model.layers[0]: missing required key 'units'");
    snprintf(buf, sizeof buf, "%smodel:\n  type: custom\n  layers:\n    - {type: dens}\n",
             head);
    spec_err(buf, 8, 14, "did you mean 'dense'?");
    snprintf(buf, sizeof buf, "%smodel:\n  type: mlp\n  layers: []\n", head);
    spec_err(buf, 7, 3, "model.layers needs model.type custom");
    snprintf(buf, sizeof buf, "%smodel:\n  type: custom\n  layers:\n"
             "    - {type: flatten}\n    - {type: dense, units: 4}\n", head);
    spec_err(buf, 6, 9, "model output has 4 values per example but the data have 3 classes");
}
END_TEST

/* spec-3.8: errors in values that came from the grid point into the grid. */
START_TEST(test_run_errors_in_grid)
{
    cfg_doc d = parse_ok(run_with(0, "", "grid:\n  epsilon: [1, -2]\n"
                                         "  algorithm: [{name: sgd}, {name: dp_sgd, clip: 1}]\n"));
    grid g;
    dp_err e;
    ck_assert_int_eq(spec_check_document(d.root, &e), 0);
    /* the base clip (line 13) is merged into the sgd block: reported there */
    ck_assert_int_eq(grid_expand(d.root, NULL, NULL, 0, &g, &e), 0);
    ck_assert_uint_eq(g.n, 4);
    run_spec s;
    assert_err(plan_check(g.runs[0].config, &s, &e), &e, 13, 3,
               "algorithm.clip is not used by sgd");
    ck_assert_int_eq(plan_check(g.runs[1].config, &s, &e), 0);
    assert_err(plan_check(g.runs[3].config, &s, &e), &e, 16, 16,
               "epsilon must be > 0, got -2");
    grid_destroy(&g);
    cfg_doc_destroy(&d);
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test);
    return tc;
}

static Suite *spec_suite(void)
{
    Suite *s = suite_create("spec");
    suite_add_tcase(s, tcase("spec-1.1", test_defaults));
    suite_add_tcase(s, tcase("spec-1.2", test_all_fields));
    suite_add_tcase(s, tcase("spec-1.3", test_sgd));
    suite_add_tcase(s, tcase("spec-1.4", test_lr_schedules));
    suite_add_tcase(s, tcase("spec-1.5", test_fixture_runs));
    suite_add_tcase(s, tcase("spec-2.1", test_doc_top));
    suite_add_tcase(s, tcase("spec-2.2", test_doc_grid_scales));
    suite_add_tcase(s, tcase("spec-2.3", test_doc_tables));
    suite_add_tcase(s, tcase("spec-2.4", test_doc_figures));
    suite_add_tcase(s, tcase("spec-3.1", test_run_top));
    suite_add_tcase(s, tcase("spec-3.2", test_run_dataset));
    suite_add_tcase(s, tcase("spec-3.3", test_run_model_privacy));
    suite_add_tcase(s, tcase("spec-3.4", test_run_train));
    suite_add_tcase(s, tcase("spec-3.5", test_run_lr));
    suite_add_tcase(s, tcase("spec-3.6", test_run_algorithm));
    suite_add_tcase(s, tcase("spec-3.7", test_run_sgd_rejects));
    suite_add_tcase(s, tcase("spec-3.8", test_run_errors_in_grid));
    suite_add_tcase(s, tcase("spec-3.9", test_run_family));
    suite_add_tcase(s, tcase("spec-4.1", test_custom_layers));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(spec_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
