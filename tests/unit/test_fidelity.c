/* test_fidelity.c: a report beside a paper's numbers (harness/report/report.h with
 * fidelity.h, html.h, table.h): band marks in every format, best-of selection, cells
 * without runs or without data, claim verdicts, HTML escaping and the index.
 *
 * The fixture (values chosen so every statistic is exact at the printed precision):
 *   algorithm a, epsilon 1: lr 0.1 -> 0.79 0.80 0.81 (mean 0.80, std 0.01),
 *                           lr 0.5 -> 0.69 0.70 0.71 (0.70)
 *   algorithm a, epsilon 2: lr 0.1 -> 0.84 0.85 0.86 (0.85), lr 0.5 -> 0.89 0.90 0.91 (0.90)
 *   algorithm b, epsilon 1: lr 0.1 -> 0.74 0.75 0.76 (0.75), lr 0.5 -> 0.59 0.60 0.61 (0.60)
 *   algorithm b, epsilon 2: every run failed: "dataset 'cifar10' not found in: ..."
 * The reference (percent, scale 100): a/1 80.5 ± 0.2, a/2 90.0 (no std), b/1 70.0 ± 1.0,
 * b/2 72 ± 1. With `select: {best_over: train.lr}`: a/1 chooses 0.1 (80.00, outside
 * 80.5 ± 0.4), a/2 chooses 0.5 (90.00, inside 90 ± 2 points), b/1 chooses 0.1 (75.00,
 * outside 70 ± 2), b/2 has no data: 1 of 3 compared cells inside the band. Figures take
 * the same `select` per point (fid-1.3).
 */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/test_util.h"
#include "harness/config/config.h"
#include "harness/report/html.h"
#include "harness/store/folder.h"
#include "harness/report/reference.h"
#include "harness/report/report.h"
#include "harness/spec/spec.h"

static char tmpdir[256];   /* the parent; the experiment folder is tmpdir/exp */
static char expdir[300];

static void rec(FILE *f, int *index, const char *algo, double eps, double lr, int seed,
                double acc, int failed)
{
    fprintf(f, "{\"schema\":1,\"id\":\"%016x\",\"index\":%d,\"experiment\":\"fid\","
               "\"status\":\"%s\",", 0xf000 + *index, *index, failed ? "failed" : "ok");
    (*index)++;
    if (failed)
        fprintf(f, "\"message\":\"dataset 'cifar10' not found in: /data; run `make data` or "
                   "pass --data-dir\",\"metrics\":{},");
    else
        fprintf(f, "\"metrics\":{\"test_accuracy\":%.17g},", acc);
    fprintf(f, "\"config\":{\"algorithm\":{\"name\":\"%s\"},\"epsilon\":%g,\"train\":{\"lr\":%g},"
               "\"seed\":%d},\"dataset\":{\"name\":\"%s\",\"requested\":\"mnist\","
               "\"fallback\":true},"
               "\"provenance\":{\"dperm_version\":\"0.1.0\",\"git_revision\":\"abc\"}}\n",
            algo, eps, lr, seed, failed ? "none" : "fashion_mnist");
}

static void write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", expdir, rel);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void fixture(void)
{
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm_test_fid_");
    snprintf(expdir, sizeof expdir, "%s/exp", tmpdir);
    ck_assert_int_eq(mkdir(expdir, 0755), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", expdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    int index = 0;
    static const double base[2][2][2] = {{{0.80, 0.70}, {0.85, 0.90}}, {{0.75, 0.60}, {0, 0}}};
    for (int a = 0; a < 2; a++)
        for (int e = 0; e < 2; e++)
            for (int l = 0; l < 2; l++)
                for (int s = 1; s <= 3; s++)
                    rec(f, &index, a ? "b" : "a", e + 1, l ? 0.5 : 0.1, s,
                        base[a][e][l] + 0.01 * (s - 2), a == 1 && e == 1);
    fclose(f);
    write_file("ref.yaml", "source: {paper: \"Fixture <paper> & co\", table: Table 1, page: 2}\n"
                           "metric: test_accuracy\nunit: percent\nscale: 100\nruns: 3\n"
                           "rows: algorithm.name\ncols: epsilon\ncells:\n"
                           "  - {row: a, col: 1, mean: 80.5, std: 0.2}\n"
                           "  - {row: a, col: 2, mean: 90.0}\n"
                           "  - {row: b, col: 1, mean: 70.0, std: 1.0}\n"
                           "  - {row: b, col: 2, mean: 72, std: 1}\n"
                           /* a column and a row our grid does not have (a quick scale's
                            * epochs are not the paper's): paper cells without runs too */
                           "  - {row: a, col: 26, mean: 92.6}\n"
                           "  - {row: c, col: 1, mean: 50.0}\n");
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void cleanup(void)
{
    nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *slurp(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", expdir, rel);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s not written", rel);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

#define BEST_TABLE "{\"name\": \"best\", \"rows\": \"algorithm.name\", \"cols\": \"epsilon\", " \
                   "\"cell\": \"test_accuracy\", \"reference\": \"ref.yaml\", " \
                   "\"select\": {\"best_over\": \"train.lr\"}}"

static int build(const char *spec_text, const char *formats, dp_err *err)
{
    json_error_t je;
    json_t *spec = json_loads(spec_text, 0, &je);
    ck_assert_msg(spec != NULL, "bad spec: %s", je.text);
    report_result r;
    int rc = report_build(expdir, spec, formats, &r, err);
    if (rc == 0) report_result_destroy(&r);
    json_decref(spec);
    return rc;
}

static void build_ok(const char *spec_text, const char *formats)
{
    dp_err err;
    int rc = build(spec_text, formats, &err);
    ck_assert_msg(rc == 0, "report_build: %s", err.msg);
}

#define HAS(s, part) ck_assert_msg(strstr((s), (part)) != NULL, "missing: %s\nin:\n%s", part, s)

/* fid-1.1: best of the learning rates, beside the paper, marked outside its band. */
START_TEST(test_best_of_beside_paper)
{
    fixture();
    build_ok("{\"tables\": [" BEST_TABLE "], \"figures\": []}", "md,csv,tex,html");
    char *md = slurp("tables/best.md");
    HAS(md, "| algorithm.name | epsilon=1 ours | paper | diff | epsilon=2 ours | paper | diff |");
    HAS(md, "| a | 80.0 ± 1.0 (n=3, train.lr=0.1) † | 80.5 ± 0.2 | -0.5 | "
            "90.0 ± 1.0 (n=3, train.lr=0.5) | 90.0 | 0.0 |");
    HAS(md, "| b | 75.0 ± 1.0 (n=3, train.lr=0.1) † | 70.0 ± 1.0 | +5.0 | data missing | "
            "72 ± 1 | — |");
    HAS(md, "Best of 2 configurations per cell: the value of train.lr with the highest mean "
            "test_accuracy over seeds (privacy spent on the search not accounted).");
    HAS(md, "Within the paper's band: 1 of 3 compared cells.");
    HAS(md, "Ours lies outside the paper's band in 2 cells, marked †.");
    ck_assert_ptr_null(strstr(md, "(-0.5); algorithm.name=b")); /* marked, not listed again */
    HAS(md, "3 cells with a paper value have no runs of ours to compare.");
    HAS(md, "Data: some runs of this table used fashion_mnist instead of mnist, which was not "
            "found, so their numbers do not reproduce the paper's experiment.");
    char *csv = slurp("tables/best.csv");
    HAS(csv, "algorithm.name,epsilon,metric,mean,std,n,min,max,median,best_over,chosen,"
             "configurations,paper_mean,paper_std,paper_scale,diff,outside_band,note\n");
    HAS(csv, "a,1,test_accuracy,0.8,0.01,3,0.79,0.81,0.8,train.lr,0.1,2,80.5,0.2,100,-0.5,1,\n");
    HAS(csv, "b,2,test_accuracy,,,0,,,,train.lr,,0,72,1,100,,,data missing\n");
    char *tex = slurp("tables/best.tex");
    HAS(tex, "\\begin{tabular}{lrrrrrr}");
    HAS(tex, "\\multicolumn{3}{c}{epsilon = 1}");
    HAS(tex, "a & 80.0 $\\pm$ 1.0 (n=3, train.lr=0.1)$^\\dagger$ & 80.5 $\\pm$ 0.2 & -0.5");
    HAS(tex, "Fixture \\textless{}paper\\textgreater{} \\& co");
    char *html = slurp("report.html");
    HAS(html, "<td class=\"outside\">80.0 ± 1.0 (n=3, train.lr=0.1) †</td>");
    HAS(html, "Fixture &lt;paper&gt; &amp; co");
    HAS(html, "fashion_mnist (fallback: mnist requested) (18 runs), none (fallback: mnist requested) (6 runs)");
    ck_assert_ptr_null(strstr(html, "<paper>"));
    char *rep = slurp("report.md");
    HAS(rep, "## Fidelity\n\n- Table best: 1 of 3 compared cells within the paper's band "
             "(Fixture <paper> & co, Table 1, p. 2); 3 paper cells without runs of ours.");
    free(md);
    free(csv);
    free(tex);
    free(html);
    free(rep);
    cleanup();
}
END_TEST

/* fid-1.2: prefer min, and a cell without any run says "no runs". */
START_TEST(test_prefer_min_and_no_runs)
{
    fixture();
    build_ok("{\"tables\": [{\"name\": \"low\", \"rows\": \"algorithm.name\", \"cols\": "
             "\"epsilon\", \"where\": {\"algorithm.name\": \"a\"}, \"select\": {\"best_over\": "
             "\"train.lr\", \"prefer\": \"min\"}}, {\"name\": \"none\", \"rows\": "
             "\"algorithm.name\", \"cols\": \"train.lr\", \"where\": {\"epsilon\": 2}}], "
             "\"figures\": []}", "md");
    char *md = slurp("tables/low.md");
    HAS(md, "| a | 0.700 ± 0.010 (n=3, train.lr=0.5) | 0.850 ± 0.010 (n=3, train.lr=0.1) |");
    HAS(md, "with the lowest mean test_accuracy");
    free(md);
    md = slurp("tables/none.md");
    HAS(md, "| b | data missing | data missing |");
    free(md);
    cleanup();
}
END_TEST

/* fid-1.3: a figure's `select` keeps, per point, the runs of the best learning rate:
 * highest mean by default for accuracy, lowest with prefer: min; the figure says so. */
START_TEST(test_figure_select)
{
    fixture();
    build_ok("{\"tables\": [], \"figures\": [{\"name\": \"hi\", \"x\": \"epsilon\", "
             "\"y\": \"test_accuracy\", \"by\": \"algorithm.name\", \"select\": "
             "{\"best_over\": \"train.lr\"}}, {\"name\": \"lo\", \"x\": \"epsilon\", "
             "\"y\": \"test_accuracy\", \"by\": \"algorithm.name\", \"select\": "
             "{\"best_over\": \"train.lr\", \"prefer\": \"min\"}}]}", "md");
    char *hi = slurp("figures/hi.dat"), *lo = slurp("figures/lo.dat"), *md = slurp("report.md");
    /* a: 0.80 (lr 0.1) at eps 1, 0.90 (lr 0.5) at eps 2; b: 0.75 (lr 0.1) at eps 1 */
    HAS(hi, "# series: a\n1 0.8 0.01 3\n2 0.9 0.01 3\n");
    HAS(hi, "# series: b\n1 0.75 0.01 3\n");
    HAS(lo, "# series: a\n1 0.7 0.01 3\n2 0.85 0.01 3\n");
    HAS(lo, "# series: b\n1 0.6 0.01 3\n");
    HAS(md, "Each point is the best of up to 2 values of train.lr (the highest mean of "
            "test_accuracy; privacy spent on the search not accounted).");
    HAS(md, "the lowest mean of test_accuracy");
    free(hi);
    free(lo);
    free(md);
    cleanup();
}
END_TEST

/* fidelity.json of the last report (the caller decrefs), its claims' verdicts checked
 * against want[0..n). */
static json_t *fidelity_with_verdicts(const char *const *want, size_t n)
{
    char *f = slurp("fidelity.json");
    json_t *j = json_loads(f, 0, NULL);
    free(f);
    ck_assert_ptr_nonnull(j);
    json_t *cl = json_object_get(j, "claims");
    ck_assert_uint_eq(json_array_size(cl), n);
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cl, i), "verdict")),
                         want[i]);
    return j;
}

/* fid-2.1: claims: holds, does not hold, not enough data; both directions; averages. */
START_TEST(test_claims)
{
    fixture();
    build_ok("{\"tables\": [" BEST_TABLE "], \"figures\": [], \"claims\": ["
             "{\"text\": \"a beats b at every eps\", \"table\": \"best\", "
             "\"better\": {\"algorithm.name\": \"a\"}, \"than\": {\"algorithm.name\": \"b\"}},"
             "{\"text\": \"b beats a at every eps\", \"table\": \"best\", "
             "\"better\": {\"algorithm.name\": \"b\"}, \"than\": {\"algorithm.name\": [\"a\"]}},"
             "{\"text\": \"a beats b on average\", \"table\": [\"best\"], \"for\": \"on_average\","
             " \"better\": {\"algorithm.name\": \"a\"}, \"than\": {\"algorithm.name\": \"b\"}},"
             "{\"text\": \"b is lower\", \"table\": \"best\", \"for\": \"on_average\", "
             "\"higher_is_better\": false, \"better\": {\"algorithm.name\": \"b\"}, "
             "\"than\": {\"algorithm.name\": \"a\"}}]}",
             "md,html");
    static const char *const want[] = {"not enough data", "does not hold", "holds", "holds"};
    json_t *j = fidelity_with_verdicts(want, 4);
    json_t *cl = json_object_get(j, "claims");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cl, 1), "detail")),
                     "best: algorithm.name=b 0.75 vs algorithm.name=a 0.8 at epsilon=1");
    json_t *t0 = json_array_get(json_object_get(j, "tables"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(t0, "compared")), 3);
    ck_assert_int_eq(json_integer_value(json_object_get(t0, "within")), 1);
    ck_assert_uint_eq(json_array_size(json_object_get(t0, "outside")), 2);
    char *md = slurp("report.md");
    HAS(md, "- Claim \"b beats a at every eps\": does not hold (best: algorithm.name=b 0.75 vs "
            "algorithm.name=a 0.8 at epsilon=1).");
    char *html = slurp("report.html");
    HAS(html, "<li class=\"fails\">Claim &quot;b beats a at every eps&quot;: does not hold");
    json_decref(j);
    free(md);
    free(html);
    cleanup();
}
END_TEST

/* fid-2.1b: `within`: "almost the same" instead of "beats", both ways; a = 0.80, b = 0.75
 * at epsilon 1, b has no runs at epsilon 2. */
START_TEST(test_claims_within)
{
    fixture();
    build_ok("{\"tables\": [" BEST_TABLE "], \"figures\": [], \"claims\": ["
             "{\"text\": \"a is b within 0.06\", \"table\": \"best\", \"for\": \"on_average\","
             " \"within\": 0.06, \"better\": {\"algorithm.name\": \"a\"},"
             " \"than\": {\"algorithm.name\": \"b\"}},"
             "{\"text\": \"b is a within 0.06\", \"table\": \"best\", \"for\": \"on_average\","
             " \"within\": 0.06, \"better\": {\"algorithm.name\": \"b\"},"
             " \"than\": {\"algorithm.name\": \"a\"}},"
             "{\"text\": \"a is b within 0.04\", \"table\": \"best\", \"for\": \"on_average\","
             " \"within\": 0.04, \"better\": {\"algorithm.name\": \"a\"},"
             " \"than\": {\"algorithm.name\": \"b\"}},"
             "{\"text\": \"a is b within 0.06 at every eps\", \"table\": \"best\","
             " \"within\": 0.06, \"better\": {\"algorithm.name\": \"a\"},"
             " \"than\": {\"algorithm.name\": \"b\"}}]}",
             "md");
    static const char *const want[] = {"holds", "holds", "does not hold", "not enough data"};
    json_t *j = fidelity_with_verdicts(want, 4);
    json_t *cl = json_object_get(j, "claims");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cl, 2), "detail")),
                     "best: mean of algorithm.name=a 0.8 vs algorithm.name=b 0.75 over 1 column");
    json_decref(j);
    dp_err err;
    ck_assert_int_eq(build("{\"tables\": [" BEST_TABLE "], \"claims\": [{\"text\": \"x\", "
                           "\"table\": \"best\", \"within\": -1, \"better\": "
                           "{\"algorithm.name\": \"a\"}, \"than\": {\"algorithm.name\": \"b\"}}]}",
                           "md", &err), DP_ECONFIG);
    HAS(err.msg, "report.claims[0].within: expected a number >= 0");
    cleanup();
}
END_TEST

/* fid-2.2: claims and references that cannot be used stop the report, writing nothing. */
START_TEST(test_bad_claims_and_references)
{
    fixture();
    dp_err err;
    ck_assert_int_eq(build("{\"tables\": [" BEST_TABLE "], \"claims\": [{\"text\": \"x\", "
                           "\"table\": \"nope\", \"better\": {\"a\": 1}, \"than\": {\"a\": 2}}]}",
                           "md", &err), DP_ECONFIG);
    HAS(err.msg, "report.claims[0].table 'nope': no such table");
    ck_assert_int_eq(build("{\"tables\": [" BEST_TABLE "], \"claims\": [{\"text\": \"x\", "
                           "\"table\": \"best\", \"better\": {\"epsilon\": 1}, \"than\": "
                           "{\"algorithm.name\": \"b\"}}]}", "md", &err), DP_ECONFIG);
    HAS(err.msg, "better.epsilon is not one of the table's rows paths");
    ck_assert_int_eq(build("{\"tables\": [{\"rows\": \"algorithm.name\", \"cols\": \"epsilon\", "
                           "\"reference\": \"missing.yaml\"}]}", "md", &err), DP_EIO);
    HAS(err.msg, "'missing.yaml' not found");
    ck_assert_int_eq(build("{\"tables\": [{\"rows\": \"train.lr\", \"cols\": \"epsilon\", "
                           "\"reference\": \"ref.yaml\"}]}", "md", &err), DP_ECONFIG);
    HAS(err.msg, "differ from those of report.tables[0]");
    write_file("bad.yaml", "source: {paper: P, table: T}\nrows: algorithm.name\ncols: epsilon\n"
                           "cells:\n  - {row: a, col: 1, mean: x}\n");
    ck_assert_int_eq(build("{\"tables\": [{\"rows\": \"algorithm.name\", \"cols\": \"epsilon\", "
                           "\"reference\": \"bad.yaml\"}]}", "md", &err), DP_ECONFIG);
    ck_assert_int_eq(err.line, 5);
    ck_assert_int_eq(err.col, 28);
    char path[512];
    snprintf(path, sizeof path, "%s/report.md", expdir);
    ck_assert_int_ne(access(path, F_OK), 0);
    cleanup();
}
END_TEST

/* fid-3.1: HTML escaping of text, and an index linking experiments with a report. */
START_TEST(test_html_escape_and_index)
{
    agg_buf b;
    agg_buf_init(&b);
    html_escape(&b, "<a href=\"x\">Tom & Jerry's</a>");
    ck_assert_str_eq(agg_buf_str(&b), "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
    agg_buf_destroy(&b);

    fixture();
    build_ok("{\"tables\": [" BEST_TABLE "], \"figures\": []}", "md,html");
    char other[512];
    snprintf(other, sizeof other, "%s/no_report", tmpdir);
    ck_assert_int_eq(mkdir(other, 0755), 0);
    char *path = NULL, skipped[512];
    dp_err err;
    /* not a results folder dperm made: no index */
    ck_assert_int_eq(report_index(expdir, &path, skipped, sizeof skipped, &err), 0);
    ck_assert_ptr_null(path);
    ck_assert_str_eq(skipped, "");
    char mark[600];
    snprintf(mark, sizeof mark, "%s/%s", tmpdir, STORE_RESULTS_MARK);
    FILE *m = fopen(mark, "w");
    ck_assert_ptr_nonnull(m);
    fclose(m);
    ck_assert_int_eq(report_index(expdir, &path, skipped, sizeof skipped, &err), 0);
    ck_assert_ptr_nonnull(path);
    ck_assert_ptr_nonnull(strstr(path, "/index.html"));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char text[4096] = "";
    ck_assert_uint_gt(fread(text, 1, sizeof text - 1, f), 0);
    fclose(f);
    HAS(text, "<a href=\"exp/report.html\">exp</a>");
    HAS(text, "1 of 3 cells within the paper&#39;s band");
    ck_assert_ptr_null(strstr(text, "no_report"));
    ck_assert_ptr_null(strstr(text, "http"));
    free(path);
    cleanup();
}
END_TEST

/* The document "experiment: x\nreport:\n" + body must be refused at line:col. */
static void doc_bad(const char *body, int line, int col, const char *part)
{
    char text[2048];
    snprintf(text, sizeof text, "experiment: x\nreport:\n  tables:\n    - {name: t, cell: a, "
             "rows: r}\n%s", body);
    cfg_doc d;
    dp_err err;
    dp_err_clear(&err);
    ck_assert_int_eq(cfg_parse_string(&d, text, strlen(text), "exp.yaml", &err), 0);
    int rc = spec_check_document(d.root, &err);
    if (rc == 0) rc = ref_check_document(d.root, &err);
    cfg_doc_destroy(&d);
    ck_assert_msg(rc == DP_ECONFIG, "accepted:\n%s", text);
    ck_assert_msg(err.line == line && err.col == col, "at %d:%d, expected %d:%d: %s", err.line,
                  err.col, line, col, err.msg);
    ck_assert_msg(strstr(err.msg, part) != NULL, "'%s' lacks '%s'", err.msg, part);
}

/* fid-4.1: the report block's select, claims and formats are checked at their position. */
START_TEST(test_validation)
{
    doc_bad("    - {cell: a, select: {best: train.lr}}\n", 5, 26,
            "unknown key 'best' in report.tables[1].select");
    doc_bad("    - {cell: a, select: {by: acc}}\n", 5, 17, "missing required key 'best_over'");
    doc_bad("    - {cell: a, select: {best_over: lr, prefer: most}}\n", 5, 49, "most");
    doc_bad("  claims:\n    - {text: x, table: nope, better: {r: 1}, than: {r: 0}}\n", 6, 24,
            "report.claims[0].table 'nope': no table of report.tables has that name");
    doc_bad("  claims:\n    - {text: x, table: t, better: {r: 1}}\n", 6, 7,
            "missing required key 'than'");
    doc_bad("  claims:\n    - {text: x, table: t, better: {}, than: {r: 0}}\n", 6, 35,
            "name at least one rows path");
    doc_bad("  claims:\n    - {text: x, table: t, better: {r: 1}, than: {r: 0}, for: all}\n", 6,
            62, "all");
    doc_bad("  claims:\n    - {text: x, table: t, better: {r: 1}, than: {r: 0}, "
            "higher_is_better: maybe}\n", 6, 75, "higher_is_better");
    doc_bad("  claims:\n    - {text: x, table: t, better: {r: 1}, than: {r: 0}, "
            "within: -0.1}\n", 6, 65, "within");
    doc_bad("  formats: [md, docx]\n", 5, 17, "unknown format 'docx'");
    doc_bad("    - {cell: a, reference: /nonexistent/ref.yaml}\n", 5, 28,
            "report.tables[1].reference: file '/nonexistent/ref.yaml' not found");
    /* a well-formed block passes */
    const char *ok = "experiment: x\nreport:\n  formats: md,html\n  tables:\n"
                     "    - {cell: a, rows: r, select: {best_over: lr, by: b, prefer: min}}\n"
                     "  claims:\n    - {text: x, table: [table1], better: {r: [1, 2]}, than: "
                     "{r: 0}, for: on_average, higher_is_better: false}\n";
    cfg_doc d;
    dp_err err;
    ck_assert_int_eq(cfg_parse_string(&d, ok, strlen(ok), "exp.yaml", &err), 0);
    ck_assert_msg(spec_check_document(d.root, &err) == 0, "%s", err.msg);
    cfg_doc_destroy(&d);
}
END_TEST

static Suite *fidelity_suite(void)
{
    Suite *s = suite_create("fidelity");
    test_add_case(s, "fid-1.1", test_best_of_beside_paper, 30);
    test_add_case(s, "fid-1.2", test_prefer_min_and_no_runs, 30);
    test_add_case(s, "fid-1.3", test_figure_select, 30);
    test_add_case(s, "fid-2.1", test_claims, 30);
    test_add_case(s, "fid-2.1b", test_claims_within, 30);
    test_add_case(s, "fid-2.2", test_bad_claims_and_references, 30);
    test_add_case(s, "fid-3.1", test_html_escape_and_index, 30);
    test_add_case(s, "fid-4.1", test_validation, 30);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fidelity_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
