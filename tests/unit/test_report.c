/* test_report.c: `dperm report` (harness/report/report.h) on runs.jsonl fixtures written here.
 *
 * The main fixture is a sweep of 2 algorithms x 3 epsilons x 3 seeds (18 ok runs) plus
 * one failed and one diverged run (seed 4), written in reverse grid order so the report
 * has to sort by index. Its numbers are chosen so every expected statistic is exact to
 * the printed precision (values are computed here, references by hand):
 *   test_accuracy = base + step * rank(epsilon) + spread * (seed - 2)
 *     sgd:    base 0.90, step 0.01, spread 0.01  -> means 0.90 0.91 0.92, std 0.01
 *     dp_sgd: base 0.70, step 0.05, spread 0.02  -> means 0.70 0.75 0.80, std 0.02
 *   curves: iteration 0 10 20 30,
 *   train_loss = scale * (1, 1/2, 1/4, 1/8) + epsilon + 0.1 * (seed - 2), scale 1 (sgd)
 *     or 2 (dp_sgd): over seeds the mean is scale * 2^-k + epsilon and the std is 0.1.
 * Figures need gnuplot; without it the image assertions are skipped with a note.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/test_util.h"
#include "harness/report/gnuplot.h"
#include "harness/report/report.h"

static const char *const ALGOS[] = {"sgd", "dp_sgd"};
static const double EPS[] = {2, 0.5, 1};          /* grid order; rank is 1, 0, 2 */
static const int EPS_RANK[] = {2, 0, 1};

static char tmpdir[256];

// ---- helpers ----------------------------------------------------------------------------

static void record(FILE *f, int index, const char *algo, double eps, int seed,
                   const char *status)
{
    int a = strcmp(algo, "sgd") == 0 ? 0 : 1;
    int rank = 0;
    for (int e = 0; e < 3; e++)
        if (EPS[e] == eps) rank = EPS_RANK[e];
    double base = a == 0 ? 0.90 : 0.70, step = a == 0 ? 0.01 : 0.05, spread = a == 0 ? 0.01 : 0.02;
    double acc = base + step * rank + spread * (seed - 2);
    double scale = a == 0 ? 1 : 2;
    fprintf(f, "{\"schema\":1,\"id\":\"%016x\",\"index\":%d,\"experiment\":\"fixture\","
               "\"status\":\"%s\",", 0xab00 + index, index, status);
    if (!strcmp(status, "failed")) fprintf(f, "\"message\":\"out of memory in worker\",");
    fprintf(f, "\"config\":{\"experiment\":\"fixture\",\"dataset\":{\"name\":\"synthetic\","
               "\"n\":100},\"algorithm\":{\"name\":\"%s\"%s},\"epsilon\":%.17g,\"seed\":%d,"
               "\"train\":{\"epochs\":2,\"batch_size\":10}},",
            algo, a ? ",\"clip\":1.0" : "", eps, seed);
    if (!strcmp(status, "failed")) {
        fprintf(f, "\"metrics\":{},\"curves\":{},");
    } else if (!strcmp(status, "diverged")) {
        fprintf(f, "\"metrics\":{\"test_accuracy\":null,\"train_loss\":null},"
                   "\"curves\":{\"iteration\":[0,10],\"train_loss\":[1.0,null]},");
    } else {
        fprintf(f, "\"metrics\":{\"test_accuracy\":%.17g,\"train_loss\":%.17g,"
                   "\"epsilon_spent\":%.17g},", acc, 0.1 * scale + eps, eps * 0.99);
        fprintf(f, "\"curves\":{\"iteration\":[0,10,20,30],\"epoch\":[0,0.5,1,1.5],"
                   "\"train_loss\":[");
        for (int k = 0; k < 4; k++)
            fprintf(f, "%s%.17g", k ? "," : "", scale / (1 << k) + eps + 0.1 * (seed - 2));
        fprintf(f, "]},");
    }
    fprintf(f, "\"provenance\":{\"dperm_version\":\"0.1.0\",\"git_revision\":\"abc123def456\","
               "\"blas_core\":\"Haswell\",\"host\":\"testhost\",\"started\":"
               "\"2024-01-01T00:00:00Z\"}}\n");
}

/* A fresh folder with the main fixture (only_eps > 0: just the runs of that epsilon). */
static void write_fixture(double only_eps)
{
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm_test_report_");
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    /* reverse grid order, with the failed and diverged runs in the middle */
    for (int i = 17; i >= 0; i--) {
        int a = i / 9, e = (i / 3) % 3, seed = i % 3 + 1;
        if (only_eps > 0 && EPS[e] != only_eps) continue;
        record(f, i, ALGOS[a], EPS[e], seed, "ok");
        if (i == 9 && (only_eps <= 0 || only_eps == 0.5))
            record(f, 18, "dp_sgd", 0.5, 4, "failed");
        if (i == 4 && only_eps <= 0) record(f, 19, "sgd", 2, 4, "diverged");
    }
    fclose(f);
}

/* A fresh folder whose runs.jsonl holds `text`. */
static void write_runs(const char *text)
{
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm_test_report_");
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void remove_fixture(void)
{
    if (tmpdir[0]) nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    tmpdir[0] = '\0';
}

/* Contents of tmpdir/rel (NUL-terminated, caller frees), or NULL when absent. */
static char *slurp(const char *rel, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    if (len) *len = (size_t)n;
    return s;
}

static int exists(const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    return access(path, F_OK) == 0;
}

static json_t *spec_of(const char *text)
{
    json_error_t je;
    json_t *s = json_loads(text, 0, &je);
    ck_assert_msg(s != NULL, "bad test spec: %s", je.text);
    return s;
}

/* report_build on tmpdir that must succeed. */
static void build_ok(const char *spec_text, const char *formats, report_result *r)
{
    json_t *spec = spec_text ? spec_of(spec_text) : NULL;
    dp_err err;
    int rc = report_build(tmpdir, spec, formats, r, &err);
    ck_assert_msg(rc == 0, "report_build: %s (hint: %s)", err.msg, err.hint);
    json_decref(spec);
}

static int have_gnuplot(void)
{
    if (gnuplot_available()) return 1;
    printf("note: gnuplot not installed; image assertions skipped\n");
    return 0;
}

#define ACC_TABLE "{\"tables\": [{\"name\": \"acc\", \"rows\": \"algorithm.name\", " \
                  "\"cols\": \"epsilon\", \"cell\": \"test_accuracy\", " \
                  "\"aggregate\": \"mean_std\"}], \"figures\": []}"

// ---- tables -----------------------------------------------------------------------------

/* report-1.1: the Markdown cells: exact mean ± std strings, numeric column order, grid row order. */
START_TEST(test_md_cells)
{
    write_fixture(0);
    report_result r;
    build_ok(ACC_TABLE, "md,csv", &r);
    char *md = slurp("tables/acc.md", NULL);
    ck_assert_ptr_nonnull(md);
    /* epsilon columns sorted numerically although the grid lists 2, 0.5, 1; rows in grid
     * order (sgd first) although the file is in reverse order */
    ck_assert_ptr_nonnull(strstr(md, "| algorithm.name | epsilon=0.5 | epsilon=1 | epsilon=2 |\n"
                                     "|---|---:|---:|---:|\n"));
    ck_assert_ptr_nonnull(strstr(md, "| sgd | 0.900 ± 0.010 (n=3) | 0.910 ± 0.010 (n=3) | "
                                     "0.920 ± 0.010 (n=3) |\n"
                                     "| dp_sgd | 0.700 ± 0.020 (n=3) | 0.750 ± 0.020 (n=3) | "
                                     "0.800 ± 0.020 (n=3) |\n"));
    ck_assert_ptr_nonnull(strstr(md, "### test_accuracy by algorithm.name and epsilon\n"));
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.2: the long CSV: one line per cell with every statistic. */
START_TEST(test_csv_rows)
{
    write_fixture(0);
    report_result r;
    build_ok(ACC_TABLE, "csv", &r);
    char *csv = slurp("tables/acc.csv", NULL);
    ck_assert_ptr_nonnull(csv);
    ck_assert_str_eq(csv,
                     "algorithm.name,epsilon,metric,mean,std,n,min,max,median\n"
                     "sgd,0.5,test_accuracy,0.9,0.01,3,0.89,0.91,0.9\n"
                     "sgd,1,test_accuracy,0.91,0.01,3,0.9,0.92,0.91\n"
                     "sgd,2,test_accuracy,0.92,0.01,3,0.91,0.93,0.92\n"
                     "dp_sgd,0.5,test_accuracy,0.7,0.02,3,0.68,0.72,0.7\n"
                     "dp_sgd,1,test_accuracy,0.75,0.02,3,0.73,0.77,0.75\n"
                     "dp_sgd,2,test_accuracy,0.8,0.02,3,0.78,0.82,0.8\n");
    ck_assert(!exists("tables/acc.md"));   /* md not asked for */
    ck_assert(exists("report.md"));        /* the index always is */
    free(csv);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.3: ok/failed/diverged counted, and the bad runs listed in the table's terms. */
START_TEST(test_status_counts)
{
    write_fixture(0);
    report_result r;
    build_ok(ACC_TABLE, "md", &r);
    ck_assert_uint_eq(r.n_records, 20);
    ck_assert_uint_eq(r.n_ok, 18);
    ck_assert_uint_eq(r.n_failed, 1);
    ck_assert_uint_eq(r.n_diverged, 1);
    char *md = slurp("tables/acc.md", NULL);
    ck_assert_ptr_nonnull(strstr(md, "Runs: 18 ok, 1 failed, 1 diverged. Cells: test_accuracy, "
                                     "mean ± sample std (n ok runs).\n"));
    ck_assert_ptr_nonnull(strstr(md, "- failed: algorithm.name=dp_sgd, epsilon=0.5, seed=4 "
                                     "(run 000000000000ab12): out of memory in worker\n"));
    ck_assert_ptr_nonnull(strstr(md, "- diverged: algorithm.name=sgd, epsilon=2, seed=4 "
                                     "(run 000000000000ab13)\n"));
    /* rows x cols cover every config here: nothing pooled but seeds */
    ck_assert_ptr_null(strstr(md, "pool"));
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.3b: failed runs that share a message are listed under it once, with their
 * count; a run with a message of its own keeps its one line. */
START_TEST(test_failures_grouped)
{
    write_fixture(0);
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", tmpdir);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    record(f, 20, "dp_sgd", 1, 4, "failed");
    record(f, 21, "dp_sgd", 2, 4, "failed");
    fclose(f);
    report_result r;
    build_ok(ACC_TABLE, "md", &r);
    char *md = slurp("tables/acc.md", NULL);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "- failed, 3 runs: out of memory in worker\n"
                                     "  - algorithm.name=dp_sgd, epsilon=0.5, seed=4 (run 000000000000ab12)\n"));
    ck_assert_ptr_nonnull(strstr(md, "  - algorithm.name=dp_sgd, epsilon=2, seed=4 (run 000000000000ab15)\n"));
    ck_assert_ptr_null(strstr(md, "- failed: "));
    const char *p = md;
    int n = 0;
    while ((p = strstr(p, "out of memory in worker"))) n++, p++;
    ck_assert_int_eq(n, 1);
    ck_assert_ptr_nonnull(strstr(md, "- diverged: algorithm.name=sgd, epsilon=2, seed=4 "));
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.4: median/min aggregates, digits, a table `where`, no cols, n = 1 cells, empty cells. */
START_TEST(test_other_aggregates)
{
    write_fixture(0);
    report_result r;
    build_ok("{\"tables\": ["
             "{\"name\": \"med\", \"rows\": [\"algorithm.name\"], \"aggregate\": \"median\","
             " \"digits\": 2, \"where\": {\"epsilon\": 1}},"
             "{\"name\": \"lo\", \"rows\": \"algorithm.name\", \"cols\": \"epsilon\","
             " \"aggregate\": \"min\"},"
             "{\"name\": \"one\", \"rows\": \"algorithm.name\", \"cols\": \"seed\","
             " \"where\": {\"epsilon\": 0.5}}], \"figures\": []}", "md,csv", &r);
    char *med = slurp("tables/med.md", NULL), *lo = slurp("tables/lo.md", NULL),
         *one = slurp("tables/one.md", NULL);
    /* no cols: one value column named after the metric; where keeps epsilon = 1 only,
     * so nothing but seeds is pooled and the failed/diverged runs are out of the table */
    ck_assert_ptr_nonnull(strstr(med, "| algorithm.name | test_accuracy |\n|---|---:|\n"
                                      "| sgd | 0.91 |\n| dp_sgd | 0.75 |\n"));
    ck_assert_ptr_nonnull(strstr(med, "Runs: 6 ok, 0 failed, 0 diverged."));
    ck_assert_ptr_nonnull(strstr(lo, "| sgd | 0.890 | 0.900 | 0.910 |\n"));
    /* one run per cell: no ±; the failed seed-4 run makes an empty column */
    ck_assert_ptr_nonnull(strstr(one, "| algorithm.name | seed=1 | seed=2 | seed=3 | seed=4 |\n"));
    ck_assert_ptr_nonnull(strstr(one, "| sgd | 0.890 (n=1) | 0.900 (n=1) | 0.910 (n=1) | no runs |\n"));
    free(med);
    free(lo);
    free(one);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.4b: std and range aggregates (DPlis Table 10's stability columns): the spread
 * with its run count, "no spread" for one run, and claims judged on the spread itself. */
START_TEST(test_spread_aggregates)
{
    write_fixture(0);
    report_result r;
    build_ok("{\"tables\": ["
             "{\"name\": \"sd\", \"rows\": \"algorithm.name\", \"cols\": \"epsilon\","
             " \"aggregate\": \"std\"},"
             "{\"name\": \"rg\", \"rows\": \"algorithm.name\", \"cols\": \"epsilon\","
             " \"aggregate\": \"range\"},"
             "{\"name\": \"one\", \"rows\": \"algorithm.name\", \"cols\": \"seed\","
             " \"aggregate\": \"std\", \"where\": {\"epsilon\": 0.5}}], \"figures\": [],"
             " \"claims\": [{\"text\": \"sgd runs agree more\", \"table\": \"sd\","
             " \"better\": {\"algorithm.name\": \"sgd\"}, \"than\": {\"algorithm.name\": \"dp_sgd\"},"
             " \"higher_is_better\": false},"
             " {\"text\": \"dp_sgd runs agree more\", \"table\": \"rg\","
             " \"better\": {\"algorithm.name\": \"dp_sgd\"}, \"than\": {\"algorithm.name\": \"sgd\"},"
             " \"higher_is_better\": false}]}", "md", &r);
    char *sd = slurp("tables/sd.md", NULL), *rg = slurp("tables/rg.md", NULL),
         *one = slurp("tables/one.md", NULL), *rep = slurp("report.md", NULL);
    /* sgd: 0.89, 0.90, 0.91 at every epsilon; dp_sgd: std 0.02 */
    ck_assert_ptr_nonnull(strstr(sd, "| sgd | 0.010 (n=3) | 0.010 (n=3) | 0.010 (n=3) |\n"));
    ck_assert_ptr_nonnull(strstr(sd, "| dp_sgd | 0.020 (n=3) |"));
    ck_assert_ptr_nonnull(strstr(sd, "sample std over ok runs"));
    ck_assert_ptr_nonnull(strstr(rg, "| sgd | 0.020 (n=3) | 0.020 (n=3) | 0.020 (n=3) |\n"));
    ck_assert_ptr_nonnull(strstr(rg, "| dp_sgd | 0.040 (n=3) |"));
    ck_assert_ptr_nonnull(strstr(one, "| sgd | n=1, no spread | n=1, no spread | n=1, no spread |"));
    /* the claims compare the spreads, not the means (sgd's mean is the higher) */
    ck_assert_ptr_nonnull(strstr(rep, "\"sgd runs agree more\": holds"));
    ck_assert_ptr_nonnull(strstr(rep, "\"dp_sgd runs agree more\": does not hold"));
    free(sd);
    free(rg);
    free(one);
    free(rep);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.5: a cell pooling runs of different configs says so (under the table and as a warning). */
START_TEST(test_pooled_note)
{
    write_fixture(0);
    report_result r;
    build_ok("{\"tables\": [{\"name\": \"pooled\", \"rows\": \"algorithm.name\"}],"
             " \"figures\": []}", "md", &r);
    char *md = slurp("tables/pooled.md", NULL);
    ck_assert_ptr_nonnull(strstr(md, "| sgd | 0.910 ± 0.012 (n=9) |\n"));
    ck_assert_ptr_nonnull(strstr(md, "Cells pool runs that differ in: epsilon (add them"));
    ck_assert_uint_eq(r.n_warnings, 1);
    ck_assert_ptr_nonnull(strstr(r.warnings[0], "table pooled: cells pool runs that differ "
                                                "in epsilon"));
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

// ---- defaults ---------------------------------------------------------------------------

/* report-1.6: the default table and figure, with and without a varying epsilon. */
START_TEST(test_default_spec)
{
    write_fixture(0);
    report_result r;
    build_ok(NULL, "md,csv", &r);
    char *md = slurp("tables/summary.md", NULL);
    ck_assert_ptr_nonnull(md);
    /* rows: algorithm.name only (algorithm.clip follows from it, seed is excluded);
     * cols: epsilon, since it varies */
    ck_assert_ptr_nonnull(strstr(md, "| algorithm.name | epsilon=0.5 | epsilon=1 | epsilon=2 |\n"));
    ck_assert_ptr_nonnull(strstr(md, "| dp_sgd | 0.700 ± 0.020 (n=3) |"));
    /* the default figure: test_accuracy against epsilon, one series per algorithm; its
     * data and script are written even without an image format */
    char *dat = slurp("figures/test_accuracy_vs_epsilon.dat", NULL);
    ck_assert_ptr_nonnull(dat);
    ck_assert_ptr_nonnull(strstr(dat, "# series: sgd\n0.5 0.9 0.01 3\n1 0.91 0.01 3\n"
                                      "2 0.92 0.01 3\n"));
    ck_assert_ptr_nonnull(strstr(dat, "# series: dp_sgd\n0.5 0.7 0.02 3\n"));
    ck_assert(exists("figures/test_accuracy_vs_epsilon.gp"));
    ck_assert(!exists("figures/test_accuracy_vs_epsilon.png"));
    free(md);
    free(dat);
    report_result_destroy(&r);
    remove_fixture();

    /* one epsilon only: no cols, and the default figure is train_loss against iteration */
    write_fixture(0.5);
    build_ok(NULL, "md", &r);
    md = slurp("tables/summary.md", NULL);
    ck_assert_ptr_nonnull(strstr(md, "| algorithm.name | test_accuracy |\n|---|---:|\n"
                                     "| sgd | 0.900 ± 0.010 (n=3) |\n"));
    dat = slurp("figures/train_loss_vs_iteration.dat", NULL);
    ck_assert_ptr_nonnull(dat);
    ck_assert_ptr_nonnull(strstr(dat, "# series: sgd\n0 1.5 0.1 3\n10 1 0.1 3\n"
                                      "20 0.75 0.1 3\n30 0.625 0.1 3\n"));
    free(md);
    free(dat);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* A fresh folder of `algos` x `n_eps` ok runs (algorithm a0, a1, ...; epsilon 1, 2, ...),
 * each with a training curve of `points` points. */
static void write_curve_runs(int algos, int n_eps, int points)
{
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm_test_report_");
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (int a = 0, i = 0; a < algos; a++)
        for (int e = 1; e <= n_eps; e++, i++) {
            fprintf(f, "{\"schema\":1,\"id\":\"%016x\",\"index\":%d,\"experiment\":\"curves\","
                       "\"status\":\"ok\",\"config\":{\"experiment\":\"curves\",\"algorithm\":"
                       "{\"name\":\"a%d\"},\"epsilon\":%d,\"seed\":1},\"metrics\":"
                       "{\"test_accuracy\":0.%d,\"train_loss\":1},\"curves\":{\"iteration\":[",
                    0xcd00 + i, i, a, e, 50 + a);
            for (int k = 0; k < points; k++) fprintf(f, "%s%d", k ? "," : "", 10 * k);
            fprintf(f, "],\"train_loss\":[");
            for (int k = 0; k < points; k++) fprintf(f, "%s%g", k ? "," : "", 1.0 / (k + 1));
            fprintf(f, "]}}\n");
        }
    fclose(f);
}

/* report-1.6b: the default figure is left out, with a sentence under "Figures" saying why,
 * when it could not be read: training curves of 2 points (drawn from 3), more than 12
 * curves (drawn at 12), against iteration and against epsilon; none recorded, or no run
 * finished. */
START_TEST(test_default_figure_left_out)
{
    static const struct {
        int algos, n_eps, points;
        const char *file; /* the default figure's data, or NULL: left out */
        const char *why;
    } cases[] = {
        {2, 1, 2, NULL, "(train_loss against iteration) would have 2 points per curve"},
        {2, 1, 3, "figures/train_loss_vs_iteration.dat", NULL},
        {13, 1, 5, NULL, "(train_loss against iteration) would draw 13 curves"},
        {12, 1, 5, "figures/train_loss_vs_iteration.dat", NULL},
        {13, 2, 2, NULL, "(test_accuracy against epsilon) would draw 13 curves"},
        {12, 2, 2, "figures/test_accuracy_vs_epsilon.dat", NULL},
        {2, 1, 0, NULL, "no run recorded a training curve"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        write_curve_runs(cases[c].algos, cases[c].n_eps, cases[c].points);
        report_result r;
        build_ok(NULL, "md,html", &r);
        char *md = slurp("report.md", NULL), *html = slurp("report.html", NULL);
        if (cases[c].file) {
            ck_assert_msg(exists(cases[c].file), "case %zu: %s", c, cases[c].file);
            ck_assert_ptr_null(strstr(md, "No figure"));
        } else {
            ck_assert_msg(!exists("figures"), "case %zu drew a figure", c);
            const char *at = strstr(md, "## Figures\n\nNo figure: ");
            ck_assert_msg(at && strstr(at, cases[c].why), "case %zu: %s", c, md);
            ck_assert_ptr_nonnull(strstr(html, "<h2>Figures</h2>\n<p class=\"note\">No figure"));
        }
        ck_assert_uint_eq(r.n_warnings, 0);
        free(md);
        free(html);
        report_result_destroy(&r);
        remove_fixture();
    }
    /* no run finished (a dataset missing): nothing to draw, whatever the curves */
    write_runs("{\"schema\":1,\"id\":\"00000000000000a1\",\"index\":0,\"status\":\"failed\","
               "\"message\":\"data missing\",\"config\":{\"experiment\":\"x\",\"seed\":1},"
               "\"metrics\":{},\"curves\":{}}\n");
    report_result r;
    build_ok(NULL, "md", &r);
    char *md = slurp("report.md", NULL);
    ck_assert_ptr_nonnull(strstr(md, "## Figures\n\nNo figure: no run finished"));
    ck_assert(!exists("figures"));
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.7b: the key shows only the series' paths that differ between series (one that
 * `where` holds fixed would repeat on every line), and series after gnuplot's 8 colours
 * are dashed. */
START_TEST(test_key_paths_and_dashes)
{
    write_fixture(0);
    report_result r;
    build_ok("{\"tables\": [], \"figures\": [{\"name\": \"loss\", \"x\": \"iteration\","
             " \"y\": \"train_loss\", \"by\": [\"algorithm.name\", \"epsilon\"], \"where\":"
             " {\"epsilon\": 0.5}}]}", "md", &r);
    char *gp = slurp("figures/loss.gp", NULL);
    ck_assert_ptr_nonnull(strstr(gp, "set key outside right top Left reverse title 'Algorithm'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "title 'sgd', \\\n"));
    ck_assert_ptr_nonnull(strstr(gp, "title 'dp_sgd'\n"));
    ck_assert_ptr_null(strstr(gp, "0.5'"));
    ck_assert_ptr_null(strstr(gp, " dt "));
    free(gp);
    report_result_destroy(&r);
    remove_fixture();

    write_curve_runs(10, 1, 3);
    build_ok("{\"tables\": [], \"figures\": [{\"name\": \"many\", \"x\": \"iteration\","
             " \"y\": \"train_loss\", \"by\": \"algorithm.name\"}]}", "md", &r);
    gp = slurp("figures/many.gp", NULL);
    ck_assert_ptr_nonnull(strstr(gp, "lc 8 lw 2 pt 7 ps 0.6 title 'a7'"));
    ck_assert_ptr_nonnull(strstr(gp, "lc 9 lw 2 dt 2 pt 7 ps 0.6 title 'a8'"));
    ck_assert_ptr_nonnull(strstr(gp, "lc 10 lw 2 dt 2 pt 7 ps 0.6 title 'a9'"));
    free(gp);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

// ---- figures ----------------------------------------------------------------------------

#define LOSS_FIGURE "{\"tables\": [], \"figures\": [{\"name\": \"loss\", \"title\": \"Loss\"," \
                    " \"x\": \"iteration\", \"y\": \"train_loss\", \"by\": \"algorithm.name\"," \
                    " \"where\": {\"epsilon\": 0.5}, \"logy\": true}]}"

/* report-1.7: a curve figure: `where` filter, point-wise means over seeds in the .dat, the .gp. */
START_TEST(test_where_and_curve_means)
{
    write_fixture(0);
    report_result r;
    build_ok(LOSS_FIGURE, "md", &r);
    char *dat = slurp("figures/loss.dat", NULL);
    ck_assert_ptr_nonnull(dat);
    /* only the epsilon = 0.5 runs, averaged point-wise over the 3 seeds (mean
     * scale * 2^-k + 0.5, std 0.1); the diverged run (epsilon 2) is not there */
    ck_assert_ptr_nonnull(strstr(dat, "\n# series: sgd\n0 1.5 0.1 3\n10 1 0.1 3\n"
                                      "20 0.75 0.1 3\n30 0.625 0.1 3\n\n\n"
                                      "# series: dp_sgd\n0 2.5 0.1 3\n10 1.5 0.1 3\n"
                                      "20 1 0.1 3\n30 0.75 0.1 3\n"));
    char *gp = slurp("figures/loss.gp", NULL);
    ck_assert_ptr_nonnull(gp);
    ck_assert_ptr_nonnull(strstr(gp, "set logscale y\n"));
    /* 0.525 .. 2.6 is less than a decade: round tics every 0.5 instead of decades */
    ck_assert_ptr_nonnull(strstr(gp, "set ytics (1, 1.5, 2, 2.5)"));
    ck_assert_ptr_nonnull(strstr(gp, "set autoscale fix\n"));
    ck_assert_ptr_nonnull(strstr(gp, "set title 'Loss'\n"));
    ck_assert_ptr_nonnull(strstr(gp, "set terminal pngcairo size 900,600"));
    ck_assert_ptr_nonnull(strstr(gp, "data index 0 using 1:($2-$3):($2+$3) with filledcurves"));
    ck_assert_ptr_nonnull(strstr(gp, "title 'dp_sgd'\n"));
    free(dat);
    free(gp);
    report_result_destroy(&r);

    /* xmin leaves out the points before it (here the untrained model at iteration 0),
     * and only those: 10 is kept */
    build_ok("{\"tables\": [], \"figures\": [{\"name\": \"loss\", \"x\": \"iteration\","
             " \"y\": \"train_loss\", \"by\": \"algorithm.name\", \"where\": {\"epsilon\":"
             " 0.5}, \"xmin\": 10}]}", "md", &r);
    dat = slurp("figures/loss.dat", NULL);
    ck_assert_ptr_nonnull(strstr(dat, "\n# series: sgd\n10 1 0.1 3\n20 0.75 0.1 3\n"
                                      "30 0.625 0.1 3\n\n\n# series: dp_sgd\n10 1.5 0.1 3\n"));
    ck_assert_ptr_null(strstr(dat, "\n0 "));
    free(dat);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.8: gnuplot makes PNG, SVG and PDF, installed atomically and listed. */
START_TEST(test_images)
{
    if (!have_gnuplot()) return;
    write_fixture(0);
    report_result r;
    build_ok(LOSS_FIGURE, "md,png,svg,pdf", &r);
    size_t len = 0;
    char *png = slurp("figures/loss.png", &len);
    ck_assert_ptr_nonnull(png);
    ck_assert_uint_gt(len, 1000);
    ck_assert_int_eq(memcmp(png, "\x89PNG\r\n\x1a\n", 8), 0);
    char *svg = slurp("figures/loss.svg", NULL), *pdf = slurp("figures/loss.pdf", NULL);
    ck_assert_ptr_nonnull(svg);
    ck_assert_ptr_nonnull(strstr(svg, "<svg"));
    ck_assert_ptr_nonnull(pdf);
    ck_assert_int_eq(memcmp(pdf, "%PDF-", 5), 0);
    /* every file is listed, and no temporary is left behind */
    int listed = 0;
    for (size_t i = 0; i < r.n_files; i++) listed += strstr(r.files[i], "figures/loss.") != NULL;
    ck_assert_int_eq(listed, 5);   /* dat gp png svg pdf */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a %s/figures | grep -q tmp", tmpdir);
    ck_assert_int_ne(system(cmd), 0);
    free(png);
    free(svg);
    free(pdf);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.9: scalar figures: categorical x, x from a metric, no error bars, a figure without data. */
START_TEST(test_scalar_figures)
{
    write_fixture(0);
    report_result r;
    build_ok("{\"tables\": [], \"figures\": ["
             "{\"name\": \"cat\", \"x\": \"algorithm.name\", \"y\": \"test_accuracy\","
             " \"where\": {\"epsilon\": [0.5, 1]}},"
             "{\"name\": \"spent\", \"x\": \"epsilon_spent\", \"y\": \"test_accuracy\","
             " \"by\": \"algorithm.name\", \"errorbars\": false},"
             "{\"name\": \"empty\", \"x\": \"epsilon\", \"y\": \"no_such_metric\"}]}",
             have_gnuplot() ? "png" : "md", &r);
    /* categories at 0, 1 with their labels; epsilon 0.5 and 1 pooled (noted) */
    char *dat = slurp("figures/cat.dat", NULL);
    ck_assert_ptr_nonnull(strstr(dat, "\n0 0.905 0.0104880884817 6 \"sgd\"\n"
                                      "1 0.725 0.0327108544676 6 \"dp_sgd\"\n"));
    char *gp = slurp("figures/cat.gp", NULL);
    ck_assert_ptr_nonnull(strstr(gp, "set xtics ('sgd' 0, 'dp_sgd' 1)\n"));
    free(dat);
    free(gp);
    /* x from the metrics: one point per distinct epsilon_spent; no bars when told so */
    dat = slurp("figures/spent.dat", NULL);
    ck_assert_ptr_nonnull(strstr(dat, "# series: sgd\n0.495 0.9 0.01 3\n0.99 0.91 0.01 3\n"
                                      "1.98 0.92 0.01 3\n"));
    gp = slurp("figures/spent.gp", NULL);
    ck_assert_ptr_null(strstr(gp, "yerrorlines"));
    /* no data: a note, no files, not an error */
    ck_assert(!exists("figures/empty.dat"));
    int noted = 0;
    for (size_t i = 0; i < r.n_warnings; i++)
        noted += strstr(r.warnings[i], "figure empty: no data points") != NULL;
    ck_assert_int_eq(noted, 1);
    free(dat);
    free(gp);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

// ---- report.md --------------------------------------------------------------------------

/* report-1.10: report.md: header, counts, provenance, tables inline, figure links. */
START_TEST(test_report_md)
{
    int gnuplot = have_gnuplot();
    write_fixture(0);
    report_result r;
    build_ok(NULL, gnuplot ? "md,csv,png" : "md,csv", &r);
    char *md = slurp("report.md", NULL);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "# Report: fixture\n\n"
                                     "20 runs in runs.jsonl: 18 ok, 1 failed, 1 diverged.\n"));
    ck_assert_ptr_nonnull(strstr(md, "git abc123def456, BLAS core Haswell, host testhost"));
    ck_assert_ptr_nonnull(strstr(md, "## Tables\n\n### test_accuracy by algorithm.name and "
                                     "epsilon\n"));
    ck_assert_ptr_nonnull(strstr(md, "| sgd | 0.900 ± 0.010 (n=3) |"));
    ck_assert_ptr_nonnull(strstr(md, "CSV: [tables/summary.csv](tables/summary.csv)\n"));
    ck_assert_ptr_nonnull(strstr(md, "## Figures\n\n### Test accuracy vs Privacy budget "
                                     "epsilon by Algorithm\n"));
    if (gnuplot)
        ck_assert_ptr_nonnull(strstr(md, "![Test accuracy vs Privacy budget epsilon by Algorithm]"
                                         "(figures/test_accuracy_vs_epsilon.png)"));
    ck_assert_ptr_nonnull(strstr(md, "[figures/test_accuracy_vs_epsilon.dat]"));
    /* the last file written is report.md itself */
    ck_assert_ptr_nonnull(strstr(r.files[r.n_files - 1], "/report.md"));
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.11: labels with Markdown and CSV specials are escaped; absent values. */
START_TEST(test_escaping)
{
    write_runs("{\"index\":0,\"status\":\"ok\",\"config\":{\"algorithm\":{\"name\":"
               "\"a|b\"}},\"metrics\":{\"test_accuracy\":0.5}}\n"
               "{\"index\":1,\"status\":\"ok\",\"config\":{\"algorithm\":{\"name\":"
               "\"c, \\\"d\\\"\"},\"lr\":0.1},\"metrics\":{\"test_accuracy\":0.25}}\n");
    report_result r;
    build_ok("{\"tables\": [{\"name\": \"t\", \"rows\": [\"algorithm.name\", \"lr\"]}],"
             " \"figures\": []}", "md,csv", &r);
    char *md = slurp("tables/t.md", NULL), *csv = slurp("tables/t.csv", NULL);
    ck_assert_ptr_nonnull(strstr(md, "| a\\|b | — | 0.500 (n=1) |\n"));
    ck_assert_str_eq(csv, "algorithm.name,lr,metric,mean,std,n,min,max,median\n"
                          "a|b,,test_accuracy,0.5,,1,0.5,0.5,0.5\n"
                          "\"c, \"\"d\"\"\",0.1,test_accuracy,0.25,,1,0.25,0.25,0.25\n");
    /* no experiment in the records: the folder's name heads report.md */
    char *rep = slurp("report.md", NULL);
    ck_assert_ptr_nonnull(strstr(rep, "# Report: dperm_test_report_"));
    free(md);
    free(csv);
    free(rep);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

/* report-1.12: the static fixture (tests/fixtures/report/runs.jsonl, the same sweep)
 * reads back to the same numbers; epochs as x; provenance.host as an object. */
START_TEST(test_static_fixture)
{
    const char *f = __FILE__, *cut = strstr(f, "unit/test_report.c");
    char src[512], cmd[1200];
    snprintf(src, sizeof src, "%.*sfixtures/report/runs.jsonl", cut ? (int)(cut - f) : 0, f);
    write_runs("");
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/runs.jsonl'", src, tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    report_result r;
    build_ok("{\"figures\": [{\"name\": \"ep\", \"x\": \"epoch\", \"by\": \"algorithm.name\","
             " \"where\": {\"epsilon\": 0.5}}]}", "csv", &r);
    ck_assert_uint_eq(r.n_ok, 18);
    char *csv = slurp("tables/summary.csv", NULL), *dat = slurp("figures/ep.dat", NULL);
    ck_assert_ptr_nonnull(strstr(csv, "sgd,0.5,test_accuracy,0.9,0.01,3,0.89,0.91,0.9\n"));
    ck_assert_ptr_nonnull(strstr(dat, "# series: sgd\n0 1.5 0.1 3\n0.5 1 0.1 3\n"
                                      "1 0.75 0.1 3\n1.5 0.625 0.1 3\n"));
    /* the host as the runner records it: an object */
    char *rep = slurp("report.md", NULL);
    ck_assert_ptr_nonnull(strstr(rep, ", host testhost (Test CPU, 2 cores), started "));
    free(rep);
    free(csv);
    free(dat);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

// ---- errors -----------------------------------------------------------------------------

/* report-2.1: missing folder, unknown format, bad spec entries, empty runs.jsonl. */
START_TEST(test_bad_inputs)
{
    report_result r;
    dp_err err;
    ck_assert_int_eq(report_build("/nonexistent/dperm", NULL, "md", &r, &err), DP_EIO);
    write_fixture(0);
    ck_assert_int_eq(report_build(tmpdir, NULL, "md,docx", &r, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "'docx'"));
    ck_assert_int_eq(report_build(tmpdir, NULL, ",", &r, &err), DP_EINVAL);
    json_t *spec = spec_of("{\"tables\": [{\"aggregate\": \"mode\"}]}");
    ck_assert_int_eq(report_build(tmpdir, spec, "md", &r, &err), DP_ECONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "report.tables[0].aggregate 'mode'"));
    json_decref(spec);
    spec = spec_of("{\"figures\": [{\"name\": \"../escape\"}]}");
    ck_assert_int_eq(report_build(tmpdir, spec, "md", &r, &err), DP_ECONFIG);
    json_decref(spec);
    /* two tables of one name would overwrite each other: refused */
    spec = spec_of("{\"tables\": [{\"name\": \"x\"}, {\"name\": \"x\"}]}");
    ck_assert_int_eq(report_build(tmpdir, spec, "md", &r, &err), DP_ECONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "two entries write tables/x.md"));
    json_decref(spec);
    spec = spec_of("{\"tables\": [{\"rows\": 3}]}");
    ck_assert_int_eq(report_build(tmpdir, spec, "md", &r, &err), DP_ECONFIG);
    ck_assert_ptr_nonnull(strstr(err.msg, "report.tables[0].rows"));
    json_decref(spec);
    ck_assert_ptr_null(r.files);
    remove_fixture();

    /* an empty runs.jsonl is malformed data, with a hint to run first */
    test_tmpdir(tmpdir, sizeof tmpdir, "dperm_test_report_");
    char path[512];
    snprintf(path, sizeof path, "%s/runs.jsonl", tmpdir);
    fclose(fopen(path, "w"));
    ck_assert_int_eq(report_build(tmpdir, NULL, "md", &r, &err), DP_EDATA);
    ck_assert_ptr_nonnull(strstr(err.hint, "dperm run"));
    remove_fixture();
}
END_TEST

/* report_build of `spec` on the main fixture (left in tmpdir) with PATH = a folder
 * holding only an executable `gnuplot` running the shell `body` (NULL: no gnuplot). */
static int build_with_gnuplot(const char *body, const char *spec_text, report_result *r,
                              dp_err *err)
{
    char bin[256], exe[300], *old = strdup(getenv("PATH") ? getenv("PATH") : "");
    test_tmpdir(bin, sizeof bin, "dperm_test_path_");
    snprintf(exe, sizeof exe, "%s/gnuplot", bin);
    if (body) {
        FILE *f = fopen(exe, "w");
        fprintf(f, "#!/bin/sh\n%s\n", body);
        fclose(f);
        chmod(exe, 0755);
    }
    write_fixture(0);
    json_t *spec = spec_text ? spec_of(spec_text) : NULL;
    setenv("PATH", bin, 1);   /* the fake uses shell builtins only */
    int rc = report_build(tmpdir, spec, "md,png", r, err);
    setenv("PATH", old, 1);
    json_decref(spec);
    unlink(exe);
    rmdir(bin);
    free(old);
    return rc;
}

/* report-2.2: no gnuplot on PATH: an error with the install hint, and nothing written. */
START_TEST(test_gnuplot_missing)
{
    report_result r;
    dp_err err;
    ck_assert_int_eq(build_with_gnuplot(NULL, NULL, &r, &err), DP_EIO);
    ck_assert_ptr_nonnull(strstr(err.hint, "install gnuplot-nox (make deps)"));
    ck_assert(!exists("report.md"));   /* checked before anything is written */
    ck_assert(!exists("tables"));
    remove_fixture();
}
END_TEST

/* report-2.3: gnuplot failing: its message, at the .gp line it names. */
START_TEST(test_gnuplot_fails)
{
    report_result r;
    dp_err err;
    int rc = build_with_gnuplot("echo '' >&2\necho '    plot data' >&2\n"
                                "echo '\"loss.gp\" line 7: all points y value undefined!' >&2\n"
                                "exit 1", LOSS_FIGURE, &r, &err);
    ck_assert_int_eq(rc, DP_EIO);
    ck_assert_str_eq(err.msg, "gnuplot failed (png): all points y value undefined!");
    ck_assert_int_eq(err.line, 7);
    ck_assert_ptr_nonnull(strstr(err.file, "/figures/loss.gp"));
    ck_assert(exists("figures/loss.gp"));   /* kept, to debug by hand */
    ck_assert(!exists("figures/loss.png"));
    ck_assert(!exists("report.md"));
    remove_fixture();
}
END_TEST

/* report-2.4: what gnuplot prints while succeeding becomes a warning; its output file
 * is installed under the figure's name. */
START_TEST(test_gnuplot_warns)
{
    report_result r;
    dp_err err;
    int rc = build_with_gnuplot("for a; do case \"$a\" in *out=*) o=${a#*out=\\'}; "
                                "o=${o%\\'};; esac; done\n"
                                "printf '\\211PNGfake' > \"$o\"\n"
                                "echo 'warning: Skipping data file with no valid points' >&2",
                                LOSS_FIGURE, &r, &err);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert_uint_eq(r.n_warnings, 1);
    ck_assert_str_eq(r.warnings[0], "figure loss (png): gnuplot: warning: Skipping data file "
                                    "with no valid points");
    char *png = slurp("figures/loss.png", NULL);
    ck_assert_ptr_nonnull(png);
    ck_assert_int_eq(memcmp(png, "\x89PNGfake", 8), 0);
    char *md = slurp("report.md", NULL);
    ck_assert_ptr_nonnull(strstr(md, "## Notes\n\n- figure loss (png): gnuplot: warning"));
    free(png);
    free(md);
    report_result_destroy(&r);
    remove_fixture();
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test);
    return tc;
}

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    suite_add_tcase(s, tcase("report-1.1", test_md_cells));
    suite_add_tcase(s, tcase("report-1.2", test_csv_rows));
    suite_add_tcase(s, tcase("report-1.3", test_status_counts));
    suite_add_tcase(s, tcase("report-1.3b", test_failures_grouped));
    suite_add_tcase(s, tcase("report-1.4", test_other_aggregates));
    suite_add_tcase(s, tcase("report-1.4b", test_spread_aggregates));
    suite_add_tcase(s, tcase("report-1.5", test_pooled_note));
    suite_add_tcase(s, tcase("report-1.6", test_default_spec));
    suite_add_tcase(s, tcase("report-1.6b", test_default_figure_left_out));
    suite_add_tcase(s, tcase("report-1.7b", test_key_paths_and_dashes));
    suite_add_tcase(s, tcase("report-1.7", test_where_and_curve_means));
    suite_add_tcase(s, tcase("report-1.8", test_images));
    suite_add_tcase(s, tcase("report-1.9", test_scalar_figures));
    suite_add_tcase(s, tcase("report-1.10", test_report_md));
    suite_add_tcase(s, tcase("report-1.11", test_escaping));
    suite_add_tcase(s, tcase("report-1.12", test_static_fixture));
    suite_add_tcase(s, tcase("report-2.1", test_bad_inputs));
    suite_add_tcase(s, tcase("report-2.2", test_gnuplot_missing));
    suite_add_tcase(s, tcase("report-2.3", test_gnuplot_fails));
    suite_add_tcase(s, tcase("report-2.4", test_gnuplot_warns));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(report_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
