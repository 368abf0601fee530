/* test_store.c: run records round-trip through runs.jsonl, atomic writes, the reader's
 * handling of cut and malformed lines, summary.csv, and dotted flattening. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/test_util.h"
#include "harness/store/flat.h"
#include "harness/store/record.h"
#include "harness/store/store.h"
#include "harness/store/summary.h"

static char tmpdir[256];

static void setup(void)
{
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm-test-store.");
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_text(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static json_t *sample_record(const char *id, double acc)
{
    return json_pack("{s:i, s:s, s:s, s:{s:s, s:f, s:{s:f}}, s:{s:f, s:f, s:n}, s:{s:[i,i]}}",
                     "schema", 1, "id", id, "status", "ok", "config", "name", "dp_sgd", "epsilon",
                     0.1, "train", "lr", 0.5, "metrics", "test_accuracy", acc, "train_loss",
                     1.0 / 3.0, "grad_norm", "curves", "iteration", 0, 10);
}

/* store-1.1: numbers print in their shortest round-trip form and read back bit for bit. */
START_TEST(shortest_round_trip)
{
    const double values[] = {0.1, 1.0 / 3.0, 1e-5, 2.0, -0.0, 1e300, 5e-324, 0.30000000000000004};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        json_t *v = json_real(values[i]);
        char *txt = store_json_dumps(v, 0);
        json_t *back = json_loads(txt, JSON_DECODE_ANY, NULL);
        ck_assert_ptr_nonnull(back);
        double b = json_number_value(back);
        ck_assert_msg(memcmp(&b, &values[i], sizeof b) == 0, "%s did not round-trip", txt);
        json_decref(v);
        json_decref(back);
        free(txt);
    }
    json_t *v = json_real(0.1);
    char *txt = store_json_dumps(v, 0);
    ck_assert_str_eq(txt, "0.1");
    free(txt);
    json_decref(v);
    v = json_real(2.0);
    txt = store_json_dumps(v, 0);
    ck_assert_str_eq(txt, "2.0"); /* stays a real */
    free(txt);
    json_decref(v);
}
END_TEST

/* store-1.2: jansson cannot hold NaN/inf (records write null instead); keys are sorted on
 * request and strings escaped; a NULL value dumps to NULL rather than crashing. */
START_TEST(nonfinite_and_strings)
{
    ck_assert_ptr_null(json_real(NAN));
    ck_assert_ptr_null(store_json_dumps(NULL, 0));
    json_t *v = json_pack("{s:s, s:n, s:b}", "c", "q\"uote\n", "a", "b", 1);
    char *txt = store_json_dumps(v, 1);
    ck_assert_str_eq(txt, "{\"a\":null,\"b\":true,\"c\":\"q\\\"uote\\n\"}");
    free(txt);
    json_decref(v);
}
END_TEST

/* store-1.3: records appended then loaded are equal to what was written. */
START_TEST(append_load_round_trip)
{
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", tmpdir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    ck_assert_int_ge(fd, 0);
    dp_err err;
    json_t *r1 = sample_record("00000000000000aa", 0.9), *r2 = sample_record("00000000000000bb", 0.8);
    ck_assert_int_eq(store_append_record(fd, path, r1, &err), 0);
    ck_assert_int_eq(store_append_record(fd, path, r2, &err), 0);
    close(fd);
    json_t *all;
    ck_assert_int_eq(store_load(tmpdir, &all, &err), 0);
    ck_assert_uint_eq(json_array_size(all), 2);
    ck_assert(json_equal(r1, json_array_get(all, 0)));
    ck_assert(json_equal(r2, json_array_get(all, 1)));
    json_decref(r1);
    json_decref(r2);
    json_decref(all);
}
END_TEST

/* store-1.4: a final line without newline (a kill mid-append) is not a record. */
START_TEST(cut_final_line_ignored)
{
    write_text("runs.jsonl", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\"sta");
    json_t *all;
    dp_err err;
    ck_assert_int_eq(store_load(tmpdir, &all, &err), 0);
    ck_assert_uint_eq(json_array_size(all), 2);
    json_decref(all);
}
END_TEST

/* store-1.5: a malformed complete line is an error naming FILE:LINE. */
START_TEST(malformed_line_is_error)
{
    write_text("runs.jsonl", "{\"id\":\"a\"}\n{\"id\": oops}\n");
    json_t *all = NULL;
    dp_err err;
    ck_assert_int_eq(store_load(tmpdir, &all, &err), DP_EDATA);
    ck_assert_int_eq(err.line, 2);
    ck_assert_ptr_nonnull(strstr(err.file, "runs.jsonl"));
    ck_assert_ptr_null(all);
}
END_TEST

/* store-1.6: a folder without records is DP_EIO with a hint. */
START_TEST(missing_runs_is_error)
{
    json_t *all = NULL;
    dp_err err;
    ck_assert_int_eq(store_load(tmpdir, &all, &err), DP_EIO);
    ck_assert(err.hint[0] != '\0');
}
END_TEST

/* store-1.7: shard files runs.I-of-N.jsonl are read after runs.jsonl, in name order. */
START_TEST(shards_loaded)
{
    write_text("runs.jsonl", "{\"id\":\"a\"}\n");
    write_text("runs.1-of-2.jsonl", "{\"id\":\"c\"}\n");
    write_text("runs.0-of-2.jsonl", "{\"id\":\"b\"}\n");
    json_t *all;
    dp_err err;
    ck_assert_int_eq(store_load(tmpdir, &all, &err), 0);
    ck_assert_uint_eq(json_array_size(all), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(all, 1), "id")), "b");
    json_decref(all);
}
END_TEST

/* store-2.1: an atomic write replaces the file and leaves no temporary behind; a write
 * into a folder that does not exist fails and creates nothing. */
START_TEST(atomic_write)
{
    char path[512];
    dp_err err;
    snprintf(path, sizeof path, "%s/f.txt", tmpdir);
    ck_assert_int_eq(store_write_atomic(path, "old", 3, &err), 0);
    ck_assert_int_eq(store_write_atomic(path, "new!", 4, &err), 0);
    FILE *f = fopen(path, "r");
    char buf[16] = {0};
    ck_assert_uint_eq(fread(buf, 1, sizeof buf - 1, f), 4);
    fclose(f);
    ck_assert_str_eq(buf, "new!");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) = 1", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/nope/f.txt", tmpdir);
    ck_assert_int_eq(store_write_atomic(path, "x", 1, &err), DP_EIO);
}
END_TEST

/* Create NAME.tmp.HOST.PID in tmpdir for pid, as store_write_atomic names it. */
static void write_temp_of(pid_t pid, char *name, size_t size)
{
    char host[64] = "";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    for (char *h = host; *h; h++)
        if (*h == '/') *h = '_';
    snprintf(name, size, "job-1.json.tmp.%s.%ld", host, (long)pid);
    write_text(name, "{");
}

static int temp_exists(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return access(path, F_OK) == 0;
}

/* store-2.2: a stale temporary is removed when its writer is gone, or a zombie (a killed
 * sweep's orphaned worker that init has not reaped yet: kill(pid, 0) still finds it),
 * and kept while its writer lives. */
START_TEST(stale_temps_of_zombies)
{
    char live_name[256], zombie_name[256];
    pid_t live = fork();
    ck_assert_int_ge(live, 0);
    if (live == 0) {
        pause();
        _exit(0);
    }
    pid_t zombie = fork();
    ck_assert_int_ge(zombie, 0);
    if (zombie == 0) _exit(0);
    /* Not reaped: wait until it is a zombie, without collecting it. */
    siginfo_t info;
    ck_assert_int_eq(waitid(P_PID, (id_t)zombie, &info, WEXITED | WNOWAIT), 0);
    write_temp_of(live, live_name, sizeof live_name);
    write_temp_of(zombie, zombie_name, sizeof zombie_name);
    store_remove_stale_temps(tmpdir);
    ck_assert(temp_exists(live_name));
    ck_assert(!temp_exists(zombie_name));
    kill(live, SIGKILL);
    waitpid(live, NULL, 0);
    waitpid(zombie, NULL, 0);
    store_remove_stale_temps(tmpdir);
    ck_assert(!temp_exists(live_name));
}
END_TEST

/* store-3.1: summary.csv has the union of columns, quotes where needed, blanks for null. */
/* One meaning of "failed" for every reader: resume, merge and reports. A record without a
 * status, or with an unknown one, is failed (resume retries it), as a "failed" one is. */
START_TEST(record_vocabulary)
{
    static const struct {
        const char *json, *status;
    } cases[] = {
        {"{\"status\": \"ok\"}", "ok"},
        {"{\"status\": \"diverged\"}", "diverged"},
        {"{\"status\": \"failed\"}", "failed"},
        {"{}", "failed"},
        {"{\"status\": \"done\"}", "failed"},
        {"{\"status\": 1}", "failed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *r = json_loads(cases[i].json, 0, NULL);
        ck_assert_ptr_nonnull(r);
        ck_assert_str_eq(record_status(r), cases[i].status);
        ck_assert_int_eq(record_failed(r), !strcmp(cases[i].status, "failed"));
        json_decref(r);
    }
    json_t *x = record_number(NAN), *y = record_number(0.25);
    ck_assert(json_is_null(x));
    ck_assert(json_is_real(y) && json_real_value(y) == 0.25);
    json_decref(x);
    json_decref(y);
}
END_TEST

/* Every record begins alike: record_new's fields in schema order, a failed record's empty
 * metrics and curves, and a provenance only when given. */
START_TEST(record_builders)
{
    json_t *r = record_new("00ff", 7, "exp", RECORD_OK, NULL, json_pack("{s:i}", "seed", 1));
    ck_assert_ptr_nonnull(r);
    char *text = json_dumps(r, JSON_PRESERVE_ORDER | JSON_COMPACT);
    ck_assert_str_eq(text, "{\"schema\":1,\"id\":\"00ff\",\"index\":7,\"experiment\":"
                           "\"exp\",\"status\":\"ok\",\"config\":{\"seed\":1}}");
    free(text);
    json_decref(r);
    r = record_new_failed("00ff", 7, "exp", "worker died", json_object(), NULL);
    text = json_dumps(r, JSON_PRESERVE_ORDER | JSON_COMPACT);
    ck_assert_str_eq(text, "{\"schema\":1,\"id\":\"00ff\",\"index\":7,\"experiment\":"
                           "\"exp\",\"status\":\"failed\",\"message\":\"worker died\","
                           "\"config\":{},\"metrics\":{},\"curves\":{}}");
    ck_assert(record_failed(r));
    free(text);
    json_decref(r);
    r = record_new_failed("a", 0, "e", "m", json_object(), json_pack("{s:s}", "host", "h"));
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "provenance"), "host")),
                     "h");
    json_decref(r);
    ck_assert_ptr_null(record_new("a", 0, "e", RECORD_OK, NULL, NULL));
}
END_TEST

START_TEST(summary_csv)
{
    write_text("runs.jsonl",
               "{\"id\":\"a\",\"status\":\"ok\",\"config\":{\"x\":{\"y\":1}},\"metrics\":{\"acc\":0.5}}\n"
               "{\"id\":\"b\",\"status\":\"failed\",\"message\":\"bad, \\\"really\\\"\","
               "\"config\":{\"x\":{\"y\":2},\"z\":\"s\"},\"metrics\":{\"acc\":null}}\n");
    dp_err err;
    ck_assert_int_eq(summary_write(tmpdir, &err), 0);
    char path[512], buf[512] = {0};
    snprintf(path, sizeof path, "%s/summary.csv", tmpdir);
    FILE *f = fopen(path, "r");
    ck_assert_uint_gt(fread(buf, 1, sizeof buf - 1, f), 0);
    fclose(f);
    ck_assert_str_eq(buf, "id,status,message,x.y,metrics.acc,z\n"
                          "a,ok,,1,0.5,\n"
                          "b,failed,\"bad, \"\"really\"\"\",2,,s\n");
}
END_TEST

/* store-4.1: flat_varying finds exactly the keys whose values differ. */
START_TEST(flat_varying_keys)
{
    flat fs[3] = {{0}};
    const char *docs[] = {"{\"a\":1,\"b\":{\"c\":2,\"d\":\"x\"}}", "{\"a\":1,\"b\":{\"c\":3,\"d\":\"x\"}}",
                          "{\"a\":1,\"b\":{\"c\":2,\"d\":\"x\"},\"e\":true}"};
    for (int i = 0; i < 3; i++) {
        json_t *j = json_loads(docs[i], 0, NULL);
        ck_assert_int_eq(flat_add(&fs[i], NULL, j), 0);
        json_decref(j);
    }
    const char **keys;
    long n = flat_varying(fs, 3, &keys);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(keys[0], "b.c");
    ck_assert_str_eq(keys[1], "e");
    ck_assert_str_eq(flat_get(&fs[1], "b.c"), "3");
    free(keys);
    for (int i = 0; i < 3; i++) flat_destroy(&fs[i]);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *t = tcase_create("store");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, shortest_round_trip);
    tcase_add_test(t, nonfinite_and_strings);
    tcase_add_test(t, append_load_round_trip);
    tcase_add_test(t, cut_final_line_ignored);
    tcase_add_test(t, malformed_line_is_error);
    tcase_add_test(t, missing_runs_is_error);
    tcase_add_test(t, shards_loaded);
    tcase_add_test(t, atomic_write);
    tcase_add_test(t, stale_temps_of_zombies);
    tcase_add_test(t, record_vocabulary);
    tcase_add_test(t, record_builders);
    tcase_add_test(t, summary_csv);
    tcase_add_test(t, flat_varying_keys);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(store_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
