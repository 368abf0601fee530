/* test_grid.c: expanding experiment documents (harness/grid/grid.c): cartesian products in
 * document order, blocks with sub-grids merged over the base, dotted paths, zip groups,
 * scales, --only filters, run ids, and every expansion error with its position. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/grid/grid.h"

static cfg_doc parse_ok(const char *text)
{
    cfg_doc d;
    dp_err e;
    int rc = cfg_parse_string(&d, text, strlen(text), "g.yaml", &e);
    ck_assert_msg(rc == 0, "parse failed: %d:%d: %s", e.line, e.col, e.msg);
    return d;
}

/* Documents parsed by expand_ok: runs point at their file name, so they live until the
 * case's teardown. */
static cfg_doc docs[16];
static size_t n_docs;

static void teardown(void)
{
    for (size_t i = 0; i < n_docs; i++) cfg_doc_destroy(&docs[i]);
    n_docs = 0;
}

static grid expand_ok(const char *text, const char *scale, char **only, size_t n_only)
{
    ck_assert_uint_lt(n_docs, sizeof docs / sizeof docs[0]);
    cfg_doc *d = &docs[n_docs++];
    *d = parse_ok(text);
    grid g;
    dp_err e;
    int rc = grid_expand(d->root, scale, only, n_only, &g, &e);
    ck_assert_msg(rc == 0, "expand failed: %d:%d: %s", e.line, e.col, e.msg);
    return g;
}

/* Expansion must fail with DP_ECONFIG at line:col (0:0 for command-line errors). */
static void expand_err(const char *text, const char *scale, char **only, size_t n_only,
                       int line, int col, const char *phrase)
{
    cfg_doc d = parse_ok(text);
    grid g;
    dp_err e;
    dp_err_clear(&e);
    int rc = grid_expand(d.root, scale, only, n_only, &g, &e);
    ck_assert_int_eq(rc, DP_ECONFIG);
    ck_assert_int_eq(e.code, DP_ECONFIG);
    ck_assert_msg(e.line == line && e.col == col, "at %d:%d, expected %d:%d (%s)", e.line,
                  e.col, line, col, e.msg);
    ck_assert_msg(strstr(e.msg, phrase), "message '%s' lacks '%s'", e.msg, phrase);
    if (line) ck_assert_str_eq(e.file, "g.yaml");
    ck_assert_ptr_null(g.runs);
    ck_assert_uint_eq(g.n, 0);
    cfg_doc_destroy(&d);
}

/* Scalar text at path in run r ("-" when absent, "{map}" for a map). */
static const char *val(const grid *g, size_t r, const char *path)
{
    const cfg_node *n = cfg_get_path(g->runs[r].config, path);
    if (!n) return "-";
    if (n->kind != CFG_SCALAR) return n->kind == CFG_MAP ? "{map}" : "[list]";
    return n->value;
}

static void assert_ids_distinct(const grid *g)
{
    for (size_t i = 0; i < g->n; i++) {
        ck_assert_uint_eq(strlen(g->runs[i].id), 16);
        ck_assert_uint_eq(strspn(g->runs[i].id, "0123456789abcdef"), 16);
        for (size_t j = 0; j < i; j++) ck_assert_str_ne(g->runs[i].id, g->runs[j].id);
    }
}

#define BASE                                                                               \
    "experiment: g\n"                                                                      \
    "paper: test\n"                                                                        \
    "dataset: {name: synthetic}\n"                                                         \
    "model: {type: logistic}\n"                                                            \
    "train: {epochs: 2, batch_size: 10, lr: {schedule: inverse_t, a: 2.0}}\n"              \
    "algorithm: {name: dp_sgd, clip: 1.0}\n"
/* BASE is 6 lines: a grid starts on line 7. */

// ---- 1: expansion --------------------------------------------------------------------

/* grid-1.1: no grid is one run: the document without grid/scales/report. */
START_TEST(test_no_grid)
{
    grid g = expand_ok(BASE "epsilon: 1\nscales: {quick: {seed: 2}}\n"
                            "report: {tables: [{cell: test_accuracy}]}\n", NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 1);
    ck_assert_uint_eq(g.n_total, 1);
    ck_assert_uint_eq(g.runs[0].index, 0);
    ck_assert_str_eq(val(&g, 0, "experiment"), "g");
    ck_assert_str_eq(val(&g, 0, "epsilon"), "1");
    ck_assert_str_eq(val(&g, 0, "scales"), "-");
    ck_assert_str_eq(val(&g, 0, "report"), "-");
    ck_assert_str_eq(val(&g, 0, "grid"), "-");
    grid_destroy(&g);
    grid_destroy(&g); /* idempotent */
}
END_TEST

/* grid-1.2: two lists are a 3 x 3 product in document order, last one fastest. */
START_TEST(test_cartesian)
{
    grid g = expand_ok(BASE "grid: {epsilon: [0.5, 1, 2], seed: [1, 2, 3]}\n", NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 9);
    ck_assert_uint_eq(g.n_total, 9);
    static const char *const eps[] = {"0.5", "0.5", "0.5", "1", "1", "1", "2", "2", "2"};
    static const char *const seed[] = {"1", "2", "3", "1", "2", "3", "1", "2", "3"};
    for (size_t r = 0; r < 9; r++) {
        ck_assert_str_eq(val(&g, r, "epsilon"), eps[r]);
        ck_assert_str_eq(val(&g, r, "seed"), seed[r]);
        ck_assert_uint_eq(g.runs[r].index, r);
        ck_assert_str_eq(val(&g, r, "algorithm.name"), "dp_sgd");
    }
    assert_ids_distinct(&g);
    grid_destroy(&g);
}
END_TEST

/* grid-1.3: 5 epsilons x 4 smoothings (a sub-grid in a block) x 5 seeds = 100. */
START_TEST(test_hundred)
{
    grid g = expand_ok(BASE "grid:\n"
                            "  epsilon: [0.30, 0.25, 0.20, 0.15, 0.10]\n"
                            "  algorithm:\n"
                            "    - {name: dp_lssgd, smoothing: [0, 1, 2, 3]}\n"
                            "  seed: [1, 2, 3, 4, 5]\n",
                       NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 100);
    assert_ids_distinct(&g);
    ck_assert_str_eq(val(&g, 0, "algorithm.smoothing"), "0");
    ck_assert_str_eq(val(&g, 5, "algorithm.smoothing"), "1");
    ck_assert_str_eq(val(&g, 99, "epsilon"), "0.10");
    ck_assert_str_eq(val(&g, 99, "algorithm.smoothing"), "3");
    ck_assert_str_eq(val(&g, 99, "seed"), "5");
    ck_assert_str_eq(val(&g, 99, "algorithm.clip"), "1.0"); /* base default merged in */
    grid_destroy(&g);
}
END_TEST

/* grid-1.4: a list of blocks: sub-grids stay inside their block; each block is merged
 * over the base block at that key, so base defaults apply. */
START_TEST(test_blocks)
{
    grid g = expand_ok(BASE "grid:\n"
                            "  algorithm: [{name: sgd}, {name: dp_sgd, clip: [0.5, 1.0]}]\n",
                       NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 3);
    ck_assert_str_eq(val(&g, 0, "algorithm.name"), "sgd");
    ck_assert_str_eq(val(&g, 0, "algorithm.clip"), "1.0"); /* from the base block */
    ck_assert_str_eq(val(&g, 1, "algorithm.name"), "dp_sgd");
    ck_assert_str_eq(val(&g, 1, "algorithm.clip"), "0.5");
    ck_assert_str_eq(val(&g, 2, "algorithm.clip"), "1.0");
    assert_ids_distinct(&g);
    grid_destroy(&g);

    /* two sub-grids in one block multiply inside it; nested maps in blocks recurse */
    g = expand_ok(BASE "grid:\n  algorithm:\n    - {name: a}\n"
                       "    - {name: b, clip: [1, 2], noise: {k: [3, 4, 5]}}\n",
                  NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 7);
    ck_assert_str_eq(val(&g, 6, "algorithm.noise.k"), "5");
    ck_assert_str_eq(val(&g, 6, "algorithm.clip"), "2");
    grid_destroy(&g);
}
END_TEST

/* grid-1.5: dotted paths and nested maps assign inside blocks, keep the rest of the
 * base block, and create missing maps. */
START_TEST(test_paths)
{
    grid g = expand_ok(BASE "grid: {train.lr.a: [0.5, 1.0]}\n", NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_str_eq(val(&g, 1, "train.lr.a"), "1.0");
    ck_assert_str_eq(val(&g, 1, "train.lr.schedule"), "inverse_t");
    ck_assert_str_eq(val(&g, 1, "train.epochs"), "2");
    grid_destroy(&g);

    g = expand_ok(BASE "grid: {train: {batch_size: [64, 128]}, privacy.delta: [1e-5]}\n", NULL,
                  NULL, 0);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_str_eq(val(&g, 0, "train.batch_size"), "64");
    ck_assert_str_eq(val(&g, 1, "train.batch_size"), "128");
    ck_assert_str_eq(val(&g, 1, "train.lr.a"), "2.0");
    ck_assert_str_eq(val(&g, 1, "privacy.delta"), "1e-5"); /* created */
    grid_destroy(&g);
}
END_TEST

/* grid-1.6: zip varies lists together as one dimension. */
START_TEST(test_zip)
{
    grid g = expand_ok(BASE "grid:\n"
                            "  zip: {epsilon: [0.1, 0.2], algorithm.noise_multiplier: [4.0, 2.0]}\n"
                            "  seed: [1, 2]\n",
                       NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 4);
    static const char *const eps[] = {"0.1", "0.1", "0.2", "0.2"};
    static const char *const nm[] = {"4.0", "4.0", "2.0", "2.0"};
    static const char *const seed[] = {"1", "2", "1", "2"};
    for (size_t r = 0; r < 4; r++) {
        ck_assert_str_eq(val(&g, r, "epsilon"), eps[r]);
        ck_assert_str_eq(val(&g, r, "algorithm.noise_multiplier"), nm[r]);
        ck_assert_str_eq(val(&g, r, "seed"), seed[r]);
    }
    assert_ids_distinct(&g);
    grid_destroy(&g);

    /* nested maps inside zip are path prefixes */
    g = expand_ok(BASE "grid: {zip: {train: {epochs: [1, 2, 3], batch_size: [8, 16, 32]}}}\n",
                  NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 3);
    ck_assert_str_eq(val(&g, 2, "train.epochs"), "3");
    ck_assert_str_eq(val(&g, 2, "train.batch_size"), "32");
    grid_destroy(&g);
}
END_TEST

/* grid-1.7: zip as a list of groups: each group is its own dimension; a zip element
 * may be a block with its own sub-grid. */
START_TEST(test_zip_list)
{
    grid g = expand_ok(BASE "grid:\n"
                            "  zip:\n"
                            "    - {epsilon: [0.1, 0.2], train.epochs: [10, 20]}\n"
                            "    - {seed: [1, 2, 3], dataset.seed: [7, 8, 9]}\n",
                       NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 6);
    ck_assert_str_eq(val(&g, 4, "epsilon"), "0.2");
    ck_assert_str_eq(val(&g, 4, "train.epochs"), "20");
    ck_assert_str_eq(val(&g, 4, "seed"), "2");
    ck_assert_str_eq(val(&g, 4, "dataset.seed"), "8");
    ck_assert_str_eq(val(&g, 4, "dataset.name"), "synthetic");
    grid_destroy(&g);

    g = expand_ok(BASE "grid:\n  zip:\n    epsilon: [1, 2]\n"
                       "    algorithm: [{name: sgd}, {name: dp_sgd, clip: [0.5, 1.5]}]\n",
                  NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 3);
    ck_assert_str_eq(val(&g, 0, "epsilon"), "1");
    ck_assert_str_eq(val(&g, 2, "epsilon"), "2");
    ck_assert_str_eq(val(&g, 2, "algorithm.clip"), "1.5");
    grid_destroy(&g);
}
END_TEST

#define SCALED                                                                             \
    BASE "grid: {epsilon: [0.5, 1], seed: [1, 2, 3, 4, 5]}\n"                              \
         "scales:\n"                                                                       \
         "  quick: {train: {epochs: 5}, grid: {seed: [1, 2]}}\n"                           \
         "  full: {train: {epochs: 50}}\n"

/* grid-1.8: a scale is deep-merged first: train.epochs changes, other train keys stay,
 * grid.seed is replaced, grid.epsilon stays. */
START_TEST(test_scales)
{
    grid g = expand_ok(SCALED, NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 10);
    ck_assert_str_eq(val(&g, 0, "train.epochs"), "2");
    grid_destroy(&g);
    g = expand_ok(SCALED, "quick", NULL, 0);
    ck_assert_uint_eq(g.n, 4);
    for (size_t r = 0; r < 4; r++) {
        ck_assert_str_eq(val(&g, r, "train.epochs"), "5");
        ck_assert_str_eq(val(&g, r, "train.batch_size"), "10");
        ck_assert_str_eq(val(&g, r, "train.lr.a"), "2.0");
    }
    ck_assert_str_eq(val(&g, 3, "epsilon"), "1");
    ck_assert_str_eq(val(&g, 3, "seed"), "2");
    grid_destroy(&g);
    g = expand_ok(SCALED, "full", NULL, 0);
    ck_assert_uint_eq(g.n, 10);
    ck_assert_str_eq(val(&g, 9, "train.epochs"), "50");
    grid_destroy(&g);
}
END_TEST

/* grid-1.9: scalars and list-free maps in the grid are constants; a list may mix
 * values and blocks (a block replaces a non-map base value). */
START_TEST(test_constants_and_mixed)
{
    grid g = expand_ok(BASE "grid:\n"
                            "  train: {epochs: 7}\n"
                            "  seed: 4\n"
                            "  algorithm: {name: sgd}\n"
                            "  train.lr: [0.1, {schedule: inverse_t, a: [1, 2]}, {value: 3}]\n",
                       NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 4);
    for (size_t r = 0; r < 4; r++) {
        ck_assert_str_eq(val(&g, r, "train.epochs"), "7");
        ck_assert_str_eq(val(&g, r, "seed"), "4");
        ck_assert_str_eq(val(&g, r, "algorithm.name"), "sgd");
        ck_assert_str_eq(val(&g, r, "algorithm.clip"), "1.0");
    }
    ck_assert_str_eq(val(&g, 0, "train.lr"), "0.1"); /* a value replaces the base map */
    ck_assert_str_eq(val(&g, 1, "train.lr.schedule"), "inverse_t");
    ck_assert_str_eq(val(&g, 1, "train.lr.a"), "1");
    ck_assert_str_eq(val(&g, 2, "train.lr.a"), "2");
    /* a block merges over the base map: schedule and a stay, value is added */
    ck_assert_str_eq(val(&g, 3, "train.lr.value"), "3");
    ck_assert_str_eq(val(&g, 3, "train.lr.a"), "2.0");
    assert_ids_distinct(&g);
    grid_destroy(&g);
}
END_TEST

/* grid-1.10: grid values keep their grid positions in the run config. */
START_TEST(test_positions_kept)
{
    cfg_doc d = parse_ok(BASE "grid:\n  epsilon: [0.5, 1]\n  train.lr.a: [3]\n");
    grid g;
    dp_err e;
    ck_assert_int_eq(grid_expand(d.root, NULL, NULL, 0, &g, &e), 0);
    const cfg_node *eps = cfg_get(g.runs[1].config, "epsilon");
    ck_assert_int_eq(eps->line, 8);
    ck_assert_int_eq(eps->col, 18);
    ck_assert_int_eq(eps->key_line, 8);
    ck_assert_int_eq(eps->key_col, 3);
    ck_assert_str_eq(eps->file, "g.yaml");
    const cfg_node *a = cfg_get_path(g.runs[0].config, "train.lr.a");
    ck_assert_int_eq(a->line, 9);
    ck_assert_int_eq(a->col, 16);
    const cfg_node *ep = cfg_get_path(g.runs[0].config, "train.epochs");
    ck_assert_int_eq(ep->line, 5); /* base values keep theirs */
    grid_destroy(&g);
    cfg_doc_destroy(&d);
}
END_TEST

// ---- 2: errors -----------------------------------------------------------------------

/* grid-2.1: an empty list is an error at the list. */
START_TEST(test_err_empty_list)
{
    expand_err(BASE "grid:\n  epsilon: []\n", NULL, NULL, 0, 8, 12, "empty list");
    expand_err(BASE "grid:\n  algorithm: [{name: a, clip: []}]\n", NULL, NULL, 0, 8, 31,
               "empty list");
    expand_err(BASE "grid:\n  zip: {epsilon: [], seed: []}\n", NULL, NULL, 0, 8, 18,
               "empty list");
}
END_TEST

/* grid-2.2: zip lists of unequal length: at the first list that differs. */
START_TEST(test_err_zip_length)
{
    expand_err(BASE "grid:\n  zip:\n    epsilon: [0.1, 0.2]\n"
                    "    algorithm.noise_multiplier: [4.0, 2.0, 1.0]\n",
               NULL, NULL, 0, 10, 33,
               "zip lists must have the same length: 'algorithm.noise_multiplier' has 3 "
               "values, 'epsilon' has 2");
    expand_err(BASE "grid:\n  zip: [{epsilon: [1]}, {seed: [1, 2], train.epochs: [1]}]\n",
               NULL, NULL, 0, 8, 54, "same length");
    expand_err(BASE "grid:\n  zip: 3\n", NULL, NULL, 0, 8, 8, "zip: expected a map");
    expand_err(BASE "grid:\n  zip: {epsilon: 3}\n", NULL, NULL, 0, 8, 18,
               "expected a list of values to zip");
    expand_err(BASE "grid:\n  zip: [[1]]\n", NULL, NULL, 0, 8, 9, "each element");
}
END_TEST

/* grid-2.3: an unknown scale suggests a defined one, at the scales key. */
START_TEST(test_err_scale)
{
    expand_err(SCALED, "quik", NULL, 0, 8, 1,
               "unknown scale 'quik'; did you mean 'quick'? (defined: quick, full)");
    expand_err(SCALED, "tiny", NULL, 0, 8, 1, "unknown scale 'tiny' (defined: quick, full)");
    expand_err(BASE, "quick", NULL, 0, 1, 1, "the experiment defines no scales");
    expand_err(BASE "scales: {quick: 3}\n", "quick", NULL, 0, 7, 17, "expected a map");
}
END_TEST

/* grid-2.4: two runs with the same id: at the repeated value. */
START_TEST(test_err_duplicate_runs)
{
    expand_err(BASE "grid:\n  epsilon: [1, 2]\n  seed: [1, 2, 1]\n", NULL, NULL, 0, 9, 16,
               "grid runs 1 and 3 are the same run");
    expand_err(BASE "grid:\n  algorithm:\n    - {name: sgd}\n    - {name: sgd}\n", NULL, NULL,
               0, 10, 7, "same run");
    /* a grid constant equal to the base is no duplicate: it is one run */
    grid g = expand_ok(BASE "grid: {train.epochs: 2}\n", NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 1);
    grid_destroy(&g);
}
END_TEST

/* grid-1.x (list values): a list of lists varies a list-valued key, each inner list
 * being one value, assigned whole. */
START_TEST(test_list_values)
{
    grid g = expand_ok(BASE "grid:\n  model.hidden: [[512, 128], [32]]\n", NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 2);
    const cfg_node *h0 = cfg_get_path(g.runs[0].config, "model.hidden");
    const cfg_node *h1 = cfg_get_path(g.runs[1].config, "model.hidden");
    ck_assert(h0 && h0->kind == CFG_SEQ && h0->n_items == 2);
    ck_assert_str_eq(h0->items[1]->value, "128");
    ck_assert(h1 && h1->kind == CFG_SEQ && h1->n_items == 1);
    ck_assert_str_ne(g.runs[0].id, g.runs[1].id);
    grid_destroy(&g);
}
END_TEST

/* grid-2.5: shapes the grid cannot expand. */
START_TEST(test_err_shapes)
{
    expand_err(BASE "grid: [1, 2]\n", NULL, NULL, 0, 7, 7, "grid: expected a map");
    expand_err(BASE "grid:\n  train..lr: [1]\n", NULL, NULL, 0, 8, 3, "empty part");
    expand_err(BASE "grid:\n  .lr: [1]\n", NULL, NULL, 0, 8, 3, "empty part");
}
END_TEST

/* grid-2.6: a product beyond the cap fails before allocating it. */
START_TEST(test_err_too_many)
{
    char text[2048] = BASE "grid:\n";
    for (int k = 0; k < 4; k++) {
        char line[256];
        int n = snprintf(line, sizeof line, "  d%d: [", k);
        for (int v = 0; v < 20; v++) n += snprintf(line + n, sizeof line - (size_t)n, "%s%d",
                                                    v ? ", " : "", v);
        snprintf(line + n, sizeof line - (size_t)n, "]\n");
        strcat(text, line);
    }
    expand_err(text, NULL, NULL, 0, 7, 1, "more than 100000 runs");
}
END_TEST

// ---- 3: --only -----------------------------------------------------------------------

#define NINE BASE "grid: {epsilon: [0.5, 1, 2], seed: [1, 2, 3]}\n"

/* grid-3.1: one filter keeps matching runs (numbers compare as numbers), in order, with
 * their ids and full-expansion indices. */
START_TEST(test_only_basic)
{
    grid all = expand_ok(NINE, NULL, NULL, 0);
    const char *forms[] = {"epsilon=1", "epsilon=1.0", "epsilon=1e0", "epsilon=+1"};
    for (size_t f = 0; f < 4; f++) {
        char *only[] = {(char *)forms[f]};
        grid g = expand_ok(NINE, NULL, only, 1);
        ck_assert_uint_eq(g.n, 3);
        ck_assert_uint_eq(g.n_total, 9);
        for (size_t r = 0; r < 3; r++) {
            ck_assert_str_eq(val(&g, r, "epsilon"), "1");
            ck_assert_uint_eq(g.runs[r].index, 3 + r);
            ck_assert_str_eq(g.runs[r].id, all.runs[3 + r].id);
        }
        grid_destroy(&g);
    }
    grid_destroy(&all);
}
END_TEST

/* grid-3.2: repeated keys are OR, different keys AND. */
START_TEST(test_only_or_and)
{
    char *or_[] = {"epsilon=0.5", "epsilon=2"};
    grid g = expand_ok(NINE, NULL, or_, 2);
    ck_assert_uint_eq(g.n, 6);
    ck_assert_str_eq(val(&g, 3, "epsilon"), "2");
    grid_destroy(&g);
    char *and_[] = {"epsilon=0.5", "seed=3", "epsilon=2"};
    g = expand_ok(NINE, NULL, and_, 3);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_uint_eq(g.runs[0].index, 2);
    ck_assert_uint_eq(g.runs[1].index, 8);
    grid_destroy(&g);
    char *str[] = {"algorithm.name=sgd"};
    g = expand_ok(BASE "grid: {algorithm: [{name: sgd}, {name: dp_sgd}], seed: [1, 2]}\n",
                  NULL, str, 1);
    ck_assert_uint_eq(g.n, 2);
    ck_assert_str_eq(val(&g, 1, "seed"), "2");
    grid_destroy(&g);
}
END_TEST

/* grid-3.3: a key no run has is an error with a suggestion. */
START_TEST(test_only_unknown_key)
{
    char *a[] = {"epsilom=1"};
    expand_err(NINE, NULL, a, 1, 0, 0, "--only: no run has key 'epsilom'; did you mean 'epsilon'?");
    char *b[] = {"algorithm.nam=sgd"};
    expand_err(NINE, NULL, b, 1, 0, 0, "did you mean 'algorithm.name'?");
    char *c[] = {"momentum=1"};
    expand_err(NINE, NULL, c, 1, 0, 0, "no run has key 'momentum'");
}
END_TEST

/* grid-3.4: a value no run has, a malformed filter, a block key, an empty AND. */
START_TEST(test_only_bad_values)
{
    char *a[] = {"epsilon=0.3"};
    expand_err(NINE, NULL, a, 1, 0, 0, "no run has epsilon = 0.3 (its values: 0.5, 1, 2)");
    char *many[] = {"seed=99"};
    expand_err(BASE "grid: {seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}\n", NULL, many, 1,
               0, 0, "(its values: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)");
    char *b[] = {"epsilon"};
    expand_err(NINE, NULL, b, 1, 0, 0, "expected KEY=VALUE");
    char *c[] = {"=1"};
    expand_err(NINE, NULL, c, 1, 0, 0, "expected KEY=VALUE");
    char *d[] = {"algorithm=dp_sgd"};
    expand_err(NINE, NULL, d, 1, 0, 0, "is a block in every run");
    char *e[] = {"epsilon=0.1", "seed=2"};
    expand_err(BASE "grid: {zip: {epsilon: [0.1, 0.2], seed: [1, 2]}}\n", NULL, e, 2, 0, 0,
               "no run matches all the filters");
}
END_TEST

// ---- 4: run ids ----------------------------------------------------------------------

static void id_of(const char *text, char out[17])
{
    grid g = expand_ok(text, NULL, NULL, 0);
    ck_assert_uint_eq(g.n, 1);
    memcpy(out, g.runs[0].id, 17);
    grid_destroy(&g);
}

/* grid-4.1: the id is SHA-256 of the canonical JSON, first 16 hex digits (known answers
 * from Python's hashlib.sha256 on the same bytes). */
START_TEST(test_id_known_answer)
{
    char id[17];
    id_of("experiment: x\na: 1\n", id);
    ck_assert_str_eq(id, "015abd7f5cc57a2d"); /* sha256('{"a":1}') */
    id_of("paper: p\nepsilon: 0.5\nalgorithm: {name: sgd}\ndescription: d\n", id);
    ck_assert_str_eq(id, "6dbcc2fdd3fd1d6a"); /* {"algorithm":{"name":"sgd"},"epsilon":0.5} */
}
END_TEST

/* grid-4.2: ids are stable across expansions and independent of key order and of
 * experiment/paper/description. */
START_TEST(test_id_stable)
{
    grid a = expand_ok(NINE, NULL, NULL, 0), b = expand_ok(NINE, NULL, NULL, 0);
    for (size_t r = 0; r < 9; r++) ck_assert_str_eq(a.runs[r].id, b.runs[r].id);
    grid_destroy(&a);
    grid_destroy(&b);
    char x[17], y[17];
    id_of("experiment: one\nseed: 3\ntrain: {epochs: 2, lr: {a: 1, schedule: inverse_t}}\n", x);
    id_of("train:\n  lr:\n    schedule: inverse_t\n    a: 1\n  epochs: 2\nseed: 3\n"
          "experiment: two\npaper: P\ndescription: D\n", y);
    ck_assert_str_eq(x, y);
    /* a grid value and the same value written in the base give the same run */
    id_of("experiment: one\nseed: 3\ntrain: {epochs: 2, lr: {a: 1, schedule: inverse_t}}\n"
          "grid: {train.lr.a: [1]}\n", y);
    ck_assert_str_eq(x, y);
}
END_TEST

/* grid-4.3: any change of value changes the id (including int vs float and string vs
 * number, which are different values in the resolved config). */
START_TEST(test_id_differs)
{
    static const char *const variants[] = {
        "e: x\nseed: 3\ntrain: {epochs: 2, lr: {a: 1}}\n",
        "e: x\nseed: 4\ntrain: {epochs: 2, lr: {a: 1}}\n",
        "e: x\nseed: 3\ntrain: {epochs: 2, lr: {a: 2}}\n",
        "e: x\nseed: 3\ntrain: {epochs: 2, lr: {a: 1.0}}\n",
        "e: x\nseed: 3\ntrain: {epochs: 2, lr: {a: \"1\"}}\n",
        "e: x\nseed: 3\ntrain: {epochs: 2, lr: {b: 1}}\n",
        "e: y\nseed: 3\ntrain: {epochs: 2, lr: {a: 1}}\n",
        "e: x\nseed: 3\ntrain: {epochs: 2, lr: {a: 1}, x: ~}\n",
    };
    size_t n = sizeof variants / sizeof variants[0];
    char ids[8][17];
    for (size_t i = 0; i < n; i++) {
        id_of(variants[i], ids[i]);
        for (size_t j = 0; j < i; j++) ck_assert_str_ne(ids[i], ids[j]);
    }
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test);
    return tc;
}

static Suite *grid_suite(void)
{
    Suite *s = suite_create("grid");
    suite_add_tcase(s, tcase("grid-1.1", test_no_grid));
    suite_add_tcase(s, tcase("grid-1.2", test_cartesian));
    suite_add_tcase(s, tcase("grid-1.3", test_hundred));
    suite_add_tcase(s, tcase("grid-1.4", test_blocks));
    suite_add_tcase(s, tcase("grid-1.5", test_paths));
    suite_add_tcase(s, tcase("grid-1.6", test_zip));
    suite_add_tcase(s, tcase("grid-1.7", test_zip_list));
    suite_add_tcase(s, tcase("grid-1.8", test_scales));
    suite_add_tcase(s, tcase("grid-1.9", test_constants_and_mixed));
    suite_add_tcase(s, tcase("grid-1.10", test_positions_kept));
    suite_add_tcase(s, tcase("grid-2.1", test_err_empty_list));
    suite_add_tcase(s, tcase("grid-2.2", test_err_zip_length));
    suite_add_tcase(s, tcase("grid-2.3", test_err_scale));
    suite_add_tcase(s, tcase("grid-2.4", test_err_duplicate_runs));
    suite_add_tcase(s, tcase("grid-1.10", test_list_values));
    suite_add_tcase(s, tcase("grid-2.5", test_err_shapes));
    suite_add_tcase(s, tcase("grid-2.6", test_err_too_many));
    suite_add_tcase(s, tcase("grid-3.1", test_only_basic));
    suite_add_tcase(s, tcase("grid-3.2", test_only_or_and));
    suite_add_tcase(s, tcase("grid-3.3", test_only_unknown_key));
    suite_add_tcase(s, tcase("grid-3.4", test_only_bad_values));
    suite_add_tcase(s, tcase("grid-4.1", test_id_known_answer));
    suite_add_tcase(s, tcase("grid-4.2", test_id_stable));
    suite_add_tcase(s, tcase("grid-4.3", test_id_differs));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(grid_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
