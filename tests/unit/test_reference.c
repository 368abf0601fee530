/* test_reference.c: the reader of published-number files (harness/report/reference.h) and the
 * band test. The valid case is the repository's own transcription of DP-LSSGD Table 2
 * (configs/reference/lssgd_table2.yaml; tests run from the repository root); each
 * malformed case is a small file written here, with the FILE:LINE:COL it must name.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/test_util.h"
#include "harness/report/reference.h"

static char tmpdir[256];

/* A reference file holding `text` in a fresh folder; returns its path (static). */
static const char *write_ref(const char *text)
{
    static char path[512];
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm_test_ref_");
    snprintf(path, sizeof path, "%s/ref.yaml", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void cleanup(const char *path)
{
    remove(path);
    rmdir(tmpdir);
}

#define HEAD "source: {paper: P, table: T}\nrows: algorithm.smoothing\ncols: epsilon\n"

/* The file must be refused at line:col with a message containing `part`. */
static void bad(const char *text, int line, int col, const char *part)
{
    const char *path = write_ref(text);
    ref_table t;
    dp_err err;
    dp_err_clear(&err);
    int rc = ref_table_load(&t, path, &err);
    ck_assert_msg(rc == DP_ECONFIG, "expected DP_ECONFIG for:\n%s\ngot %d (%s)", text, rc,
                  err.msg);
    ck_assert_msg(err.line == line && err.col == col, "position %d:%d, expected %d:%d (%s)",
                  err.line, err.col, line, col, err.msg);
    ck_assert_msg(strstr(err.msg, part) != NULL, "message '%s' lacks '%s'", err.msg, part);
    ck_assert_str_eq(err.file, path);
    cleanup(path);
}

/* ref-1.1: the DP-LSSGD Table 2 transcription loads with its 20 cells as printed. */
START_TEST(test_lssgd_table2)
{
    ref_table t;
    dp_err err;
    int rc = ref_table_load(&t, "configs/reference/lssgd_table2.yaml", &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_uint_eq(t.n_cells, 20);
    ck_assert_double_eq(t.scale, 100);
    ck_assert_int_eq(t.runs, 5);
    ck_assert_str_eq(t.rows[0], "algorithm.smoothing");
    ck_assert_str_eq(t.cols, "epsilon");
    ck_assert_str_eq(t.metric, "test_accuracy");
    /* sigma = 0 at eps 0.10 and sigma = 3 at eps 0.30, as printed in the paper */
    json_t *s0 = json_integer(0), *s3 = json_integer(3), *e1 = json_real(0.1),
           *e3 = json_real(0.3);
    const ref_cell *c = ref_table_find(&t, &s0, e1);
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->mean_text, "73.49");
    ck_assert_str_eq(c->std_text, "1.60");
    ck_assert_int_eq(c->decimals, 2);
    c = ref_table_find(&t, &s3, e3);
    ck_assert_ptr_nonnull(c);
    ck_assert_double_eq_tol(c->mean, 85.11, 1e-12);
    ck_assert_double_eq_tol(c->std, 0.45, 1e-12);
    char *cite = ref_table_citation(&t);
    ck_assert_ptr_nonnull(strstr(cite, "Table 2, §4.1"));
    free(cite);
    json_decref(s0);
    json_decref(s3);
    json_decref(e1);
    json_decref(e3);
    ref_table_destroy(&t);
}
END_TEST

/* ref-1.2: rows with several paths, no cols, no std, values typed as YAML types them. */
START_TEST(test_tuple_rows)
{
    const char *path = write_ref("source: {paper: P, table: T, page: 7}\n"
                                 "rows: [algorithm.name, train.lr]\n"
                                 "cells:\n"
                                 "  - {row: [dp_sgd, 0.5], mean: 81}\n"
                                 "  - {row: [dplis, 0.5], mean: 83.5}\n");
    ref_table t;
    dp_err err;
    ck_assert_int_eq(ref_table_load(&t, path, &err), 0);
    ck_assert_ptr_null(t.cols);
    ck_assert_double_eq(t.scale, 1);
    json_t *row[2] = {json_string("dplis"), json_real(0.50)};
    const ref_cell *c = ref_table_find(&t, row, NULL);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(c->has_std, 0);
    ck_assert_int_eq(c->decimals, 1);
    char *cite = ref_table_citation(&t);
    ck_assert_str_eq(cite, "P, T, p. 7");
    free(cite);
    json_decref(row[0]);
    json_decref(row[1]);
    ref_table_destroy(&t);
    cleanup(path);
}
END_TEST

/* ref-2.1: every malformed file is refused at its position. */
START_TEST(test_malformed)
{
    bad("source: {paper: P, table: T}\nrows: a\ncellz: []\n", 3, 1,
        "unknown key 'cellz' in the reference; did you mean 'cells'?");
    bad("source: {paper: P}\nrows: a\ncells: [{row: 1, mean: 2}]\n", 1, 1,
        "missing required key 'table'");
    bad("rows: a\ncells: [{row: 1, mean: 2}]\n", 1, 1, "missing required key 'source'");
    bad(HEAD "cells: []\n", 4, 8, "cells: expected a non-empty list");
    bad(HEAD "cells:\n  - {row: 0, col: 0.1, mean: high}\n", 5, 30, "expected a number");
    bad(HEAD "cells:\n  - {row: 0, mean: 70}\n", 5, 5, "missing required key 'col'");
    bad(HEAD "cells:\n  - {row: [0, 1], col: 0.1, mean: 70}\n", 5, 11,
        "expected 1 value (one per rows path), got 2");
    bad(HEAD "cells:\n  - {row: 0, col: 0.1, mean: 70, std: -1}\n", 5, 39, "must be >= 0");
    bad(HEAD "cells:\n  - {row: 0, col: 0.1, mean: 70}\n  - {row: 0.0, col: 0.10, mean: 71}\n",
        6, 5, "a second cell for the same row and col (first at line 5)");
    bad("source: {paper: P, table: T}\nrows: a\ncells:\n  - {row: 0, col: 1, mean: 70}\n", 4,
        14, "the reference has no `cols` path");
    bad(HEAD "scale: 0\ncells:\n  - {row: 0, col: 0.1, mean: 70}\n", 4, 8, "scale");
    bad(HEAD "cells:\n  - {row: 0, col: 0.1, mean: 70, sd: 1}\n", 5, 34,
        "unknown key 'sd' in cells[0]; did you mean 'std'?");
    bad(HEAD "cells:\n  - {row: {a: 1}, col: 0.1, mean: 70}\n", 5, 11, "expected a single value");
    bad(HEAD "band_factor: 1\ncells:\n  - {row: 0, col: 0.1, mean: 70}\n", 4, 14, "> 1");
}
END_TEST

/* ref-2.2: a file that is not there is an I/O error, not a crash. */
START_TEST(test_missing_file)
{
    ref_table t;
    dp_err err;
    ck_assert_int_ne(ref_table_load(&t, "/nonexistent/dperm/ref.yaml", &err), 0);
    char out[256];
    ck_assert_int_eq(ref_resolve("nope/ref.yaml", "/nonexistent", out, sizeof out), 0);
    ck_assert_int_eq(ref_resolve("configs/reference/lssgd_table2.yaml", "/x", out, sizeof out), 1);
    ck_assert_str_eq(out, "configs/reference/lssgd_table2.yaml");
    ck_assert_int_eq(ref_resolve("lssgd_table2.yaml", "configs/reference", out, sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, "/configs/reference/lssgd_table2.yaml"));
    /* not in base itself: found in the folder above it */
    ck_assert_int_eq(ref_resolve("reference/lssgd_table2.yaml", "configs/reference", out,
                                 sizeof out), 1);
    ck_assert_ptr_nonnull(strstr(out, "/configs/reference/lssgd_table2.yaml"));
}
END_TEST

/* ref-3.1: the band: mean ± 2 std with a std, ± 2 printed units without; edges inside. */
START_TEST(test_band)
{
    ref_cell c = {0};
    double d;
    c.mean = 81.74;
    c.std = 0.96;
    c.has_std = 1;
    ck_assert_int_eq(ref_outside_band(&c, 81.74 + 1.92, &d), 0);   /* the edge: inside */
    ck_assert_double_eq_tol(d, 1.92, 1e-12);
    ck_assert_int_eq(ref_outside_band(&c, 81.74 - 1.93, &d), 1);
    ck_assert_int_eq(ref_outside_band(&c, 83.00, &d), 0);
    c.std = 0;   /* a printed std of 0: only the value itself is inside */
    ck_assert_int_eq(ref_outside_band(&c, 81.74, &d), 0);
    ck_assert_int_eq(ref_outside_band(&c, 81.75, &d), 1);
    c.has_std = 0;   /* no std: ± 2 points */
    ck_assert_int_eq(ref_outside_band(&c, 83.74, &d), 0);
    ck_assert_int_eq(ref_outside_band(&c, 79.73, &d), 1);
    ck_assert_double_eq_tol(d, -2.01, 1e-12);
}
END_TEST

/* ref-3.2: band_factor F: a cell without std is inside within a factor F of the paper's
 * value (edges inside, both signs must be positive); a printed std still rules. */
START_TEST(test_band_factor)
{
    const char *path = write_ref(HEAD "band_factor: 2\ncells:\n"
                                      "  - {row: 0, col: 0.1, mean: 0.0106}\n"
                                      "  - {row: 1, col: 0.1, mean: 5.0, std: 0.5}\n");
    ref_table t;
    dp_err err;
    ck_assert_msg(ref_table_load(&t, path, &err) == 0, "%s", err.msg);
    ck_assert_double_eq(t.band_factor, 2);
    const ref_cell *c = &t.cells[0];
    double d;
    ck_assert_int_eq(ref_outside_band(c, 0.0212, &d), 0);   /* the edges: inside */
    ck_assert_int_eq(ref_outside_band(c, 0.0053, &d), 0);
    ck_assert_int_eq(ref_outside_band(c, 0.0213, &d), 1);
    ck_assert_int_eq(ref_outside_band(c, 0.0052, &d), 1);
    ck_assert_double_eq_tol(d, 0.0052 - 0.0106, 1e-15);
    ck_assert_int_eq(ref_outside_band(c, 1.5, &d), 1);      /* within 2 points, not 2x */
    ck_assert_int_eq(ref_outside_band(c, -0.0106, &d), 1);
    ck_assert_int_eq(ref_outside_band(&t.cells[1], 6.0, &d), 0);   /* mean ± 2 std */
    ck_assert_int_eq(ref_outside_band(&t.cells[1], 9.0, &d), 1);   /* within 2x, not 2 std */
    ref_table_destroy(&t);
    cleanup(path);
}
END_TEST

static Suite *reference_suite(void)
{
    Suite *s = suite_create("reference");
    test_add_case(s, "ref-1.1", test_lssgd_table2, 10);
    test_add_case(s, "ref-1.2", test_tuple_rows, 10);
    test_add_case(s, "ref-2.1", test_malformed, 10);
    test_add_case(s, "ref-2.2", test_missing_file, 10);
    test_add_case(s, "ref-3.1", test_band, 10);
    test_add_case(s, "ref-3.2", test_band_factor, 10);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(reference_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
