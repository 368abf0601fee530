/* test_shard.c: the --shard partition (disjoint, covering, deterministic, balanced),
 * parsing I/N, and the cost proxy; combining the record files of shards (merge.c). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/test_util.h"
#include "harness/grid/grid.h"
#include "harness/store/merge.h"
#include "harness/sweep/plan.h"
#include "harness/sweep/runner.h"
#include "harness/sweep/shard.h"

/* ids "r0000".. and costs from a small LCG: varied, reproducible. */
static void make_runs(size_t n, char (*idbuf)[8], const char **ids, uint64_t *cost, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        snprintf(idbuf[i], 8, "r%04zu", i);
        ids[i] = idbuf[i];
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        cost[i] = 1 + (seed >> 33) % 1000;
    }
}

/* shard-1.1: every run goes to exactly one shard in [0, N), for N from 1 to more shards
 * than runs; the loads add up to the total cost. */
START_TEST(disjoint_and_covering)
{
    enum { N = 97 };
    char idbuf[N][8];
    const char *ids[N];
    uint64_t cost[N], load[200];
    unsigned owner[N];
    make_runs(N, idbuf, ids, cost, 7);
    uint64_t total = 0;
    for (size_t i = 0; i < N; i++) total += cost[i];
    const unsigned counts[] = {1, 2, 3, 8, 64, 97, 150};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        dp_err err;
        memset(owner, 0xff, sizeof owner);
        ck_assert_int_eq(shard_assign(ids, cost, N, counts[c], owner, load, &err), 0);
        uint64_t sum = 0, per_shard = 0;
        for (size_t i = 0; i < N; i++) ck_assert_uint_lt(owner[i], counts[c]);
        for (unsigned s = 0; s < counts[c]; s++) {
            sum += load[s];
            per_shard = 0;
            for (size_t i = 0; i < N; i++)
                if (owner[i] == s) per_shard += cost[i];
            ck_assert_uint_eq(per_shard, load[s]);
        }
        ck_assert_uint_eq(sum, total);
    }
}
END_TEST

/* shard-1.2: the partition depends on the set of (id, cost), not on the order in which a
 * process lists them: every shard process computes the same one. */
START_TEST(deterministic)
{
    enum { N = 60 };
    char idbuf[N][8];
    const char *ids[N], *rids[N];
    uint64_t cost[N], rcost[N];
    unsigned a[N], b[N], again[N];
    make_runs(N, idbuf, ids, cost, 3);
    cost[5] = cost[6] = cost[7] = 500; /* ties are broken by id */
    for (size_t i = 0; i < N; i++) {
        rids[i] = ids[(i * 37) % N]; /* 37 is prime to 60: a permutation */
        rcost[i] = cost[(i * 37) % N];
    }
    dp_err err;
    ck_assert_int_eq(shard_assign(ids, cost, N, 7, a, NULL, &err), 0);
    ck_assert_int_eq(shard_assign(ids, cost, N, 7, again, NULL, &err), 0);
    ck_assert_int_eq(shard_assign(rids, rcost, N, 7, b, NULL, &err), 0);
    for (size_t i = 0; i < N; i++) {
        ck_assert_uint_eq(a[i], again[i]);
        ck_assert_uint_eq(b[i], a[(i * 37) % N]);
    }
}
END_TEST

/* shard-1.3: balanced by cost, not count: greedy LPT's bound, max load <= total/N +
 * the largest cost (Graham), and one expensive run gets a shard of its own. */
START_TEST(balanced)
{
    enum { N = 200 };
    char idbuf[N][8];
    const char *ids[N];
    uint64_t cost[N], load[16];
    unsigned owner[N];
    make_runs(N, idbuf, ids, cost, 11);
    uint64_t total = 0, largest = 0;
    for (size_t i = 0; i < N; i++) {
        total += cost[i];
        if (cost[i] > largest) largest = cost[i];
    }
    dp_err err;
    ck_assert_int_eq(shard_assign(ids, cost, N, 16, owner, load, &err), 0);
    for (unsigned s = 0; s < 16; s++) ck_assert_uint_le(load[s], total / 16 + largest);

    /* 9 runs: one of cost 80, eight of cost 10: two shards get 80 and 80 (not 5 + 4 runs). */
    const char *few[9] = {"a", "b", "c", "d", "e", "f", "g", "h", "big"};
    uint64_t fc[9] = {10, 10, 10, 10, 10, 10, 10, 10, 80};
    unsigned fo[9];
    uint64_t fl[2];
    ck_assert_int_eq(shard_assign(few, fc, 9, 2, fo, fl, &err), 0);
    ck_assert_uint_eq(fl[0], 80);
    ck_assert_uint_eq(fl[1], 80);
    for (size_t i = 0; i < 8; i++) ck_assert_uint_ne(fo[i], fo[8]);
}
END_TEST

/* shard-2.1: I/N parsing and the shard file name. */
START_TEST(parse_spec)
{
    shard_spec s;
    dp_err err;
    char name[64];
    ck_assert_int_eq(shard_parse("0/1", &s, &err), 0);
    ck_assert_int_eq(shard_parse("63/64", &s, &err), 0);
    ck_assert_uint_eq(s.index, 63);
    ck_assert_uint_eq(s.count, 64);
    shard_file_name(&s, name, sizeof name);
    ck_assert_str_eq(name, "runs.63-of-64.jsonl");
    const char *bad[] = {"", "3", "/4", "1/", "4/4", "-1/4", "1/0", "a/b", "1/4x", "1 /4",
                         "0/100001", "99999999999999999999/2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(shard_parse(bad[i], &s, &err) == DP_EINVAL, "'%s' accepted", bad[i]);
}
END_TEST

/* shard-3.1: the cost proxy: epochs x n_train x model size, doubled for DP-SGD; a deep
 * model counts its multiply-adds (conv layers: per output position). */
START_TEST(cost_proxy)
{
    static const char yaml[] =
        "experiment: t\n"
        "dataset: {name: synthetic, n: 1000, d: 10, classes: 3}\n"
        "model: {type: softmax}\n"
        "train: {epochs: 5, batch_size: 10, lr: 0.1}\n"
        "algorithm: {name: sgd}\n";
    cfg_doc doc = {0};
    grid g = {0};
    run_spec s;
    dp_err err;
    ck_assert_int_eq(cfg_parse_string(&doc, yaml, strlen(yaml), "t.yaml", &err), 0);
    ck_assert_int_eq(grid_expand(doc.root, NULL, NULL, 0, &g, &err), 0);
    ck_assert_int_eq(plan_check(g.runs[0].config, &s, &err), 0);
    grid_destroy(&g);
    cfg_doc_destroy(&doc);
    ck_assert_uint_eq(s.n_train, 800); /* the default test_fraction 0.2 */
    uint64_t w = shard_model_work(&s);
    ck_assert_uint_eq(w, 3 * 11);
    ck_assert_uint_eq(shard_run_cost(&s, w), 5ULL * 800 * 33);
    s.train.algorithm = DP_ALGO_DP_SGD;
    ck_assert_uint_eq(shard_run_cost(&s, w), 2ULL * 5 * 800 * 33);
    /* DPlis with K = 10 copies: (3K + 1) / 4 DP-SGD steps; R = 0 runs no copies */
    s.train.dplis_samples = 10;
    ck_assert_uint_eq(shard_run_cost(&s, w), 2ULL * 5 * 800 * 33);
    s.train.dplis_radius = 10.0;
    ck_assert_uint_eq(shard_run_cost(&s, w), 2ULL * 5 * 800 * 33 * 31 / 4);
    s.train.dplis_samples = 0;
    s.train.dplis_radius = 0.0;

    /* mlp 784 -> 32 -> 10: 784*32 + 32 (activation) + 32*10 multiply-adds. */
    s.deep = 1;
    strcpy(s.model_name, "mlp");
    strcpy(s.activation, "relu");
    s.hidden[0] = 32;
    s.n_hidden = 1;
    s.in_c = 1, s.in_h = 28, s.in_w = 28;
    s.synthetic.n_classes = 10;
    ck_assert_uint_eq(shard_model_work(&s), 784 * 32 + 32 + 32 * 10);
    /* The MNIST CNN: conv layers count per output position, so its work is over ten
     * times its 26,010 parameters. */
    strcpy(s.model_name, "cnn_mnist");
    s.n_hidden = 0;
    ck_assert_uint_gt(shard_model_work(&s), 400000);
    /* ... and each counted 4 times (shard.h): more than 3x mlp_784_512_128_10's 468,864,
     * as it takes 3.4x its time, so a sweep starts its CNN runs first */
    ck_assert_uint_gt(shard_model_work(&s), 3 * 468864);
}
END_TEST

/* ---- merge.c ------------------------------------------------------------------------- */

static json_t *rec(const char *id, const char *status, double acc, double wall, const char *host)
{
    return json_pack("{s:i, s:s, s:s, s:{s:f}, s:{s:f, s:f}, s:{s:[i]}, s:{s:s}}", "schema", 1,
                     "id", id, "status", status, "config", "lr", 0.5, "metrics", "test_accuracy",
                     acc, "wall_seconds", wall, "curves", "iteration", 1, "provenance", "host",
                     host);
}

/* merge-1.1: equal results (provenance and timings aside) are one record; a failed
 * record gives way to a success; order is the order of first reading. */
START_TEST(merge_dedupe)
{
    json_t *in = json_array(), *out;
    json_array_append_new(in, rec("b", "ok", 0.9, 1.0, "node1"));
    json_array_append_new(in, rec("a", "failed", 0.0, 0.1, "node1"));
    json_array_append_new(in, rec("b", "ok", 0.9, 2.5, "node7"));
    json_array_append_new(in, rec("a", "ok", 0.8, 1.0, "node2"));
    json_array_append_new(in, rec("c", "failed", 0.0, 0.1, "node1"));
    json_array_append_new(in, rec("c", "failed", 0.0, 0.2, "node3"));
    merge_stats st;
    dp_err err;
    ck_assert_int_eq(merge_records(in, NULL, &out, &st, &err), 0);
    ck_assert_uint_eq(json_array_size(out), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(out, 0), "id")), "b");
    json_t *a = json_array_get(out, 1);
    ck_assert_str_eq(json_string_value(json_object_get(a, "id")), "a");
    ck_assert_str_eq(json_string_value(json_object_get(a, "status")), "ok");
    json_t *c = json_array_get(out, 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(c, "provenance"), "host")),
                     "node3"); /* all failed: the latest attempt */
    ck_assert_uint_eq(st.n_read, 6);
    ck_assert_uint_eq(st.n_duplicates, 2);
    ck_assert_uint_eq(st.n_superseded, 1);
    json_decref(in);
    json_decref(out);
}
END_TEST

/* merge-1.2: two different results for one id are refused, naming both places. */
START_TEST(merge_conflict)
{
    json_t *in = json_array(), *origins = json_array(), *out = NULL;
    json_array_append_new(in, rec("a", "ok", 0.9, 1.0, "n"));
    json_array_append_new(origins, json_string("runs.0-of-2.jsonl:1"));
    json_array_append_new(in, rec("a", "ok", 0.91, 1.0, "n"));
    json_array_append_new(origins, json_string("runs.1-of-2.jsonl:4"));
    dp_err err;
    ck_assert_int_eq(merge_records(in, origins, &out, NULL, &err), DP_EDATA);
    ck_assert_ptr_null(out);
    ck_assert_ptr_nonnull(strstr(err.msg, "run a has different results"));
    ck_assert_ptr_nonnull(strstr(err.msg, "runs.0-of-2.jsonl:1"));
    ck_assert_ptr_nonnull(strstr(err.msg, "runs.1-of-2.jsonl:4"));
    /* ok against diverged is a conflict too */
    json_object_set_new(json_array_get(in, 1), "status", json_string("diverged"));
    json_object_set_new(json_object_get(json_array_get(in, 1), "metrics"), "test_accuracy",
                        json_real(0.9));
    ck_assert_int_eq(merge_records(in, origins, &out, NULL, &err), DP_EDATA);
    ck_assert(!merge_same_result(json_array_get(in, 0), json_array_get(in, 1)));
    json_decref(in);
    json_decref(origins);
}
END_TEST

/* merge-1.3 (regression: report's hand-made records without ids were refused): a record
 * without an id matches nothing and is kept. */
START_TEST(merge_without_id)
{
    json_t *in = json_array(), *out;
    json_array_append_new(in, json_pack("{s:s}", "status", "ok"));
    json_array_append_new(in, json_pack("{s:s}", "status", "ok"));
    json_array_append_new(in, rec("a", "ok", 0.9, 1.0, "n"));
    dp_err err;
    ck_assert_int_eq(merge_records(in, NULL, &out, NULL, &err), 0);
    ck_assert_uint_eq(json_array_size(out), 3);
    json_decref(in);
    json_decref(out);
}
END_TEST

static Suite *shard_suite(void)
{
    Suite *s = suite_create("shard");
    test_add_case(s, "shard-1.1", disjoint_and_covering, 10);
    test_add_case(s, "shard-1.2", deterministic, 10);
    test_add_case(s, "shard-1.3", balanced, 10);
    test_add_case(s, "shard-2.1", parse_spec, 10);
    test_add_case(s, "shard-3.1", cost_proxy, 30);
    test_add_case(s, "merge-1.1", merge_dedupe, 10);
    test_add_case(s, "merge-1.2", merge_conflict, 10);
    test_add_case(s, "merge-1.3", merge_without_id, 10);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(shard_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
