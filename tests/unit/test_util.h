/* test_util.h: what several Check programs share: registering a case (or a table of
 * cases) with a timeout, loading the privacy reference files, reading a numeric field, a
 * fresh temp folder and its removal, the relative error of a vector (test_rel_err) and
 * of a number (REL).
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_TEST_UTIL_H
#define DPERM_TEST_UTIL_H

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* 1, or 8 in the sanitizer tier (`make test-asan` sets DPERM_TEST_SANITIZED=1): loops over
 * long reference tables check every stride-th case there. The plain build checks every
 * number; the sanitizer build looks for memory and undefined-behaviour errors, which the
 * same code path shows on a few cases as on all of them, at ten times the cost. */
static inline size_t test_case_stride(void)
{
    const char *s = getenv("DPERM_TEST_SANITIZED");
    return s && s[0] == '1' ? 8 : 1;
}

/* Run every case of s (forked, CK_NORMAL output), free the runner; the process's exit
 * status: EXIT_SUCCESS when every case passed. */
static inline int test_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Add `test` as its own case `name` (used as the SQLite-style case id) with a timeout. */
static inline void test_add_case(Suite *s, const char *name, const TTest *test, double timeout)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
}

/* DIR/name as a JSON array, DIR = $DPERM_REFERENCE or tests/fixtures/privacy (copies of
 * shared/reference/privacy, relative to the repository root where `make` runs tests).
 * The files ship with the tests, so a missing one fails the case. Caller json_decref's. */
static inline json_t *test_load_reference(const char *name, const char *case_id)
{
    const char *dir = getenv("DPERM_REFERENCE");
    if (!dir || !*dir) dir = "tests/fixtures/privacy";
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "%s: cannot read %s (%s); run from the repository root or set "
                  "DPERM_REFERENCE to the folder holding the privacy reference files",
                  case_id, path, jerr.text);
    ck_assert_msg(json_is_array(root), "%s is not a JSON array", path);
    return root;
}

/* obj.key as a number; fails the case when missing or not a number. */
static inline double test_num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_number(v), "field %s missing or not a number", key);
    return json_number_value(v);
}

/* A new empty folder /tmp/PREFIX<random> into buf (mkdtemp). */
static inline void test_tmpdir(char *buf, size_t size, const char *prefix)
{
    snprintf(buf, size, "/tmp/%s" "XX" "XX" "XX", prefix); /* mkdtemp's six-letter template */
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

/* Remove dir and everything below it (rm -rf): the teardown of a test_tmpdir folder. */
static inline void test_rmtree(const char *dir)
{
    char cmd[1100];
    int n = snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(n > 0 && (size_t)n < sizeof cmd);
    ck_assert_int_eq(system(cmd), 0);
}

/* One row of a table of cases for test_add_cases: the case id and its test. */
typedef struct test_case_def {
    const char *id;
    const TTest *test;
} test_case_def;

/* Add each of cases[0..n) as its own case with a timeout, with setup and teardown as a
 * checked fixture (run in the case's own process, around the test) unless both are NULL:
 * a table instead of one registration block per case. */
static inline void test_add_cases(Suite *s, const test_case_def *cases, size_t n,
                                  double timeout, SFun setup, SFun teardown)
{
    for (size_t i = 0; i < n; i++) {
        TCase *tc = tcase_create(cases[i].id);
        if (setup || teardown) tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, timeout);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
}

/* ||a - b|| / ||b||, or ||a - b|| where b = 0 (a zero reference is then met in absolute
 * terms): the relative error of a vector against its reference. */
static inline double test_rel_err(const double *a, const double *b, size_t n)
{
    double num = 0.0, den = 0.0;
    for (size_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

/* |a - b| / |b|: the relative error of a against the reference value b, as the privacy
 * and convex suites bound it. A file that still defines REL itself must spell it exactly
 * so (an identical redefinition is allowed, C11 6.10.3p2; any other is an error). */
#define REL(a, b) (fabs((a) - (b)) / fabs(b))

#endif
