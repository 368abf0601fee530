/* cli_smoothing.c: `dperm smoothing [--out DIR] [--seed N] [--reference-dir DIR]`, the
 * part of DP-LSSGD that is about the Laplacian smoothing operator itself, with no training:
 *
 *   - Tables 3 and 4 (App. B): gamma and beta of Propositions 1 and 2 for sigma = 1..5
 *     and d = 1e3, 1e4, 1e5, from algorithms/privacy/theorems.c (the closed forms, beside
 *     the direct sums over the spectrum), next to the published numbers read from
 *     REFERENCE-DIR/lssgd_table3.yaml and lssgd_table4.yaml (reference.h). A cell agrees
 *     when ours, rounded to the digits the paper prints, is the printed number (the
 *     paper gives no spread, and the report's +-2-units band would be meaningless for
 *     constants below 1).
 *   - Fig. 2 (§2.2): the paper's two signals, v1 = sin(2 pi i/100) + 0.1 N(0, 1),
 *     i = 1..100, smoothed with sigma = 10, and v2 = sin(2 pi i/100) sin(2 pi j/100) +
 *     0.2 N(0, 1), i, j = 1..100, reshaped row-major into one vector of 10,000 and smoothed
 *     with sigma = 100, by dperm's own smoother (algorithms/smoothing.c, what dp_lssgd
 *     runs); the noise is drawn from the seed's DP_STREAM_NOISE stream. Written as data
 *     files and a gnuplot script (fig2.gp, restyle by hand) rendered to fig2.png, with
 *     the root-mean-square distance to the clean signal before and after smoothing, the
 *     figure's claim ("LS removes the noise") judged on those numbers.
 *
 * Everything lands in DIR (default results/lssgd_smoothing): report.md and report.html
 * (the same sections), fidelity.json (the cells that agree and the claim's verdict, in
 * `dperm report`'s shape, so the results index lists this report beside the others),
 * table3.csv, table4.csv, fig2_1d.dat, fig2_2d.dat, fig2.gp, fig2.png; then the index of
 * the folder above, where dperm keeps one (html.h). Exit 0; 2 for bad arguments or an
 * unreadable reference file (before anything is written); 1 when writing fails.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/privacy/theorems.h"
#include "algorithms/smoothing.h"
#include "harness/report/aggregate.h"
#include "harness/cli/cli.h"
#include "harness/report/gnuplot.h"
#include "harness/report/html.h"
#include "harness/report/reference.h"
#include "harness/report/report.h"
#include "harness/store/store.h"

static const char SMOOTHING_HELP[] =
    "usage: dperm smoothing [--out DIR] [--seed N] [--reference-dir DIR]\n"
    "\n"
    "DP-LSSGD's analysis of the Laplacian smoothing operator, no training: Tables 3 and 4\n"
    "(gamma and beta of Props 1 and 2 for sigma 1..5, d 1e3..1e5) beside the published\n"
    "numbers, and Fig. 2 (LS denoising of the paper's 1-D and 2-D signals by dperm's\n"
    "smoother) as a gnuplot figure, into DIR/report.md, table3.csv, table4.csv, fig2.*.\n"
    "\n"
    "options:\n"
    "  --out DIR            where to write (default results/lssgd_smoothing)\n"
    "  --seed N             seed of Fig. 2's noise (default 1)\n"
    "  --reference-dir DIR  folder of lssgd_table3.yaml and lssgd_table4.yaml\n"
    "                       (default configs/reference)\n";

enum { N_SIGMA = 5, N_DIM = 3, SIG1 = 100, SIG2 = 100 };
static const long DIMS[N_DIM] = {1000, 10000, 100000};

/* One of Tables 3, 4: ours (closed form and direct sum) per (d, sigma), the paper's. */
typedef struct const_table {
    const char *name, *symbol, *file;   /* "table3", "gamma", "lssgd_table3.yaml" */
    ref_table ref;
    double closed[N_DIM][N_SIGMA], direct[N_DIM][N_SIGMA];
    const ref_cell *paper[N_DIM][N_SIGMA];
    size_t matched, compared;
} const_table;

static int load_reference(const_table *t, const char *ref_dir, dp_err *err)
{
    char want[1024], path[1024];
    snprintf(want, sizeof want, "%s/%s", ref_dir, t->file);
    ref_resolve(want, ".", path, sizeof path);
    int rc = ref_table_load(&t->ref, path, err);
    if (rc == DP_EIO)
        dp_err_hint(err, "run from the repository root or pass --reference-dir, the folder "
                         "holding lssgd_table3.yaml and lssgd_table4.yaml");
    if (rc) return rc;
    if (t->ref.n_rows != 1 || strcmp(t->ref.rows[0], "d") || !t->ref.cols ||
        strcmp(t->ref.cols, "smoothing"))
        return dp_err_set(err, DP_ECONFIG, "%s: rows must be d and cols smoothing", path);
    for (int i = 0; i < N_DIM; i++)
        for (int s = 0; s < N_SIGMA; s++) {
            json_t *row = json_integer(DIMS[i]), *col = json_integer(s + 1);
            t->paper[i][s] = ref_table_find(&t->ref, &row, col);
            json_decref(row);
            json_decref(col);
        }
    return DP_OK;
}

/* Ours rounded to the printed decimals equals the printed number. */
static int agrees(const ref_cell *c, double ours)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", c->decimals, ours);
    return strtod(buf, NULL) == strtod(c->mean_text, NULL);
}

static void compute(const_table *t, int want_beta)
{
    for (int i = 0; i < N_DIM; i++)
        for (int s = 0; s < N_SIGMA; s++) {
            double g, b, gd, bd;
            /* sigma >= 1 and d >= 1000: the functions' only errors cannot occur */
            dp_thm_lssgd_constants(s + 1, DIMS[i], &g, &b, NULL);
            dp_thm_lssgd_constants_direct(s + 1, DIMS[i], &gd, &bd, NULL);
            t->closed[i][s] = want_beta ? b : g;
            t->direct[i][s] = want_beta ? bd : gd;
            const ref_cell *c = t->paper[i][s];
            if (!c) continue;
            t->compared++;
            t->matched += (size_t)agrees(c, t->closed[i][s]);
        }
}

static void table_md(agg_buf *b, const const_table *t)
{
    agg_buf_printf(b, "### %s: %s (Prop. %d)\n\n", t->ref.table, t->symbol,
                   t->name[5] == '3' ? 1 : 2);
    agg_buf_puts(b, "| d |");
    for (int s = 0; s < N_SIGMA; s++) agg_buf_printf(b, " sigma %d ours | paper |", s + 1);
    agg_buf_puts(b, "\n|---|");
    for (int s = 0; s < N_SIGMA; s++) agg_buf_puts(b, "---:|---:|");
    agg_buf_puts(b, "\n");
    for (int i = 0; i < N_DIM; i++) {
        agg_buf_printf(b, "| %ld |", DIMS[i]);
        for (int s = 0; s < N_SIGMA; s++) {
            const ref_cell *c = t->paper[i][s];
            int ok = c && agrees(c, t->closed[i][s]);
            agg_buf_printf(b, " %.6f%s | %s |", t->closed[i][s], c && !ok ? " †" : "",
                           c ? c->mean_text : "-");
        }
        agg_buf_puts(b, "\n");
    }
    double worst = 0;
    for (int i = 0; i < N_DIM; i++)
        for (int s = 0; s < N_SIGMA; s++)
            worst = fmax(worst, fabs(t->closed[i][s] - t->direct[i][s]) / t->direct[i][s]);
    agg_buf_printf(b, "\nOurs: the closed form of the proposition, six decimals; the direct "
                   "sum over the spectrum agrees to %.1e relative. %zu of %zu cells agree "
                   "with the paper when rounded to its digits († marks the others). Source: "
                   "%s.\n\n", worst, t->matched, t->compared, t->ref.file);
}

static void table_html(agg_buf *b, const const_table *t)
{
    agg_buf_printf(b, "<h3>%s: %s (Prop. %d)</h3>\n<table>\n<thead><tr><th>d</th>",
                   t->ref.table, t->symbol, t->name[5] == '3' ? 1 : 2);
    for (int s = 0; s < N_SIGMA; s++)
        agg_buf_printf(b, "<th>sigma %d ours</th><th>paper</th>", s + 1);
    agg_buf_puts(b, "</tr></thead>\n<tbody>\n");
    for (int i = 0; i < N_DIM; i++) {
        agg_buf_printf(b, "<tr><th>%ld</th>", DIMS[i]);
        for (int s = 0; s < N_SIGMA; s++) {
            const ref_cell *c = t->paper[i][s];
            int ok = c && agrees(c, t->closed[i][s]);
            agg_buf_printf(b, "<td%s>%.6f%s</td><td>", c && !ok ? " class=\"outside\"" : "",
                           t->closed[i][s], c && !ok ? " †" : "");
            html_escape(b, c ? c->mean_text : "-");
            agg_buf_puts(b, "</td>");
        }
        agg_buf_puts(b, "</tr>\n");
    }
    agg_buf_printf(b, "</tbody>\n</table>\n<p class=\"note\">%zu of %zu cells agree with the "
                   "paper when rounded to its digits († marks the others). Source: ",
                   t->matched, t->compared);
    html_escape(b, t->ref.file);
    agg_buf_puts(b, ".</p>\n");
}

/* fidelity.json in `dperm report`'s shape: per table the cells compared and those that
 * agree, and the claim's verdict. NULL on ENOMEM. */
static json_t *fidelity(const const_table *t3, const const_table *t4, int holds,
                        const char *detail)
{
    json_t *tables = json_array();
    const const_table *ts[2] = {t3, t4};
    if (!tables) return NULL;
    for (int k = 0; k < 2; k++) {
        char *cite = ref_table_citation(&ts[k]->ref);
        json_t *e = json_pack("{s:s, s:s, s:s*, s:I, s:I, s:I}", "name", ts[k]->name,
                              "reference", ts[k]->ref.file, "citation", cite,
                              "compared", (json_int_t)ts[k]->compared,
                              "within", (json_int_t)ts[k]->matched, "paper_only", (json_int_t)0);
        free(cite);
        if (!e || json_array_append_new(tables, e)) {
            json_decref(tables);
            return NULL;
        }
    }
    return json_pack("{s:o*, s:[{s:s, s:s, s:s}]}", "tables", tables, "claims", "text",
                     "LS removes the noise (Fig. 2)", "verdict",
                     holds ? "holds" : "does not hold", "detail", detail);
}

static int table_csv(const const_table *t, const char *dir, dp_err *err)
{
    agg_buf b;
    agg_buf_init(&b);
    agg_buf_printf(&b, "d,smoothing,%s_closed_form,%s_direct_sum,paper,agrees\n", t->symbol,
                   t->symbol);
    for (int i = 0; i < N_DIM; i++)
        for (int s = 0; s < N_SIGMA; s++) {
            const ref_cell *c = t->paper[i][s];
            agg_buf_printf(&b, "%ld,%d,%.17g,%.17g,%s,%s\n", DIMS[i], s + 1, t->closed[i][s],
                           t->direct[i][s], c ? c->mean_text : "",
                           c ? (agrees(c, t->closed[i][s]) ? "yes" : "no") : "");
        }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.csv", dir, t->name);
    int rc = b.oom ? dp_err_set(err, DP_ENOMEM, "out of memory") :
                     store_write_atomic(path, b.data, b.len, err);
    agg_buf_destroy(&b);
    return rc;
}

// ---- Fig. 2 -----------------------------------------------------------------------------

static double rms_diff(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s / (double)n);
}

typedef struct denoise {
    double rms_noisy, rms_smoothed;   /* distance to the clean signal */
} denoise;

/* clean, noisy, smoothed (n each) of one signal; smoothed = A_s^{-1} noisy. */
static int smooth_copy(const double *noisy, double *smoothed, size_t n, double s, dp_err *err)
{
    dp_smoother sm;
    int rc = dp_smoother_plan(&sm, n, s, err);
    if (rc) return rc;
    memcpy(smoothed, noisy, n * sizeof *noisy);
    dp_smoother_execute(&sm, smoothed);
    dp_smoother_destroy(&sm);
    return DP_OK;
}

static const char FIG2_GP[] =
    "# DP-LSSGD Fig. 2: Laplacian smoothing of a noisy 1-D and 2-D signal (dperm smoothing).\n"
    "if (!exists('fmt')) fmt = 'png'\n"
    "if (!exists('out')) out = 'fig2.'.fmt\n"
    "if (fmt eq 'png') { set terminal pngcairo size 1200,900 noenhanced }\n"
    "if (fmt eq 'svg') { set terminal svg size 1200,900 dynamic noenhanced }\n"
    "if (fmt eq 'pdf') { set terminal pdfcairo size 12in,9in noenhanced }\n"
    "set output out\n"
    "set multiplot layout 2,2\n"
    "set title '(a) 1-D: sin(x) + 0.1 N(0,1), LS sigma = 10'\n"
    "set xlabel 'x'\n"
    "set key bottom left\n"
    "plot 'fig2_1d.dat' using 1:3 with points pt 7 ps 0.6 lc rgb '#999999' title 'noisy', \\\n"
    "     '' using 1:2 with lines lw 2 lc rgb '#000000' title 'clean', \\\n"
    "     '' using 1:4 with lines lw 2 lc rgb '#d62728' title 'LS smoothed'\n"
    "unset key\n"
    "set size ratio -1\n"
    "set xlabel 'x'\n"
    "set ylabel 'y'\n"
    "set xrange [0:2*pi]\n"
    "set yrange [0:2*pi]\n"
    "set cbrange [-1.6:1.6]\n"
    "set palette defined (-1.6 '#2c7bb6', 0 '#ffffbf', 1.6 '#d7191c')\n"
    "set title '(b) 2-D original sin(x) sin(y)'\n"
    "plot 'fig2_2d.dat' using 1:2:3 with image\n"
    "set title '(c) noisy: + 0.2 N(0,1)'\n"
    "plot 'fig2_2d.dat' using 1:2:4 with image\n"
    "set title '(d) LS smoothed, sigma = 100 (row-major 1-D)'\n"
    "plot 'fig2_2d.dat' using 1:2:5 with image\n"
    "unset multiplot\n";

static int write_text(const char *dir, const char *name, const agg_buf *b, dp_err *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (b->oom) return dp_err_set(err, DP_ENOMEM, "out of memory writing %s", path);
    return store_write_atomic(path, b->data, b->len, err);
}

/* Writes fig2_1d.dat, fig2_2d.dat, fig2.gp and, when gnuplot is installed, fig2.png
 * (*drawn = 1); *png_note: what gnuplot printed while succeeding (caller frees) or NULL. */
static int fig2(const char *dir, unsigned long seed, denoise *d1, denoise *d2, int *drawn,
                char **png_note, dp_err *err)
{
    enum { N1 = SIG1, N2 = SIG2 * SIG2 };
    double *mem = malloc((3 * N1 + 3 * (size_t)N2) * sizeof *mem);
    if (!mem) return dp_err_set(err, DP_ENOMEM, "out of memory for Fig. 2's signals");
    double *c1 = mem, *v1 = c1 + N1, *u1 = v1 + N1;
    double *c2 = u1 + N1, *v2 = c2 + N2, *u2 = v2 + N2;
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_NOISE);
    for (int i = 1; i <= N1; i++) {
        c1[i - 1] = sin(2.0 * M_PI * i / 100.0);
        v1[i - 1] = c1[i - 1] + 0.1 * dp_rng_gaussian(&r);
    }
    for (int i = 1; i <= SIG2; i++)
        for (int j = 1; j <= SIG2; j++) {
            size_t k = (size_t)(i - 1) * SIG2 + (size_t)(j - 1); /* row-major */
            c2[k] = sin(2.0 * M_PI * i / 100.0) * sin(2.0 * M_PI * j / 100.0);
            v2[k] = c2[k] + 0.2 * dp_rng_gaussian(&r);
        }
    int rc = smooth_copy(v1, u1, N1, 10.0, err);
    if (!rc) rc = smooth_copy(v2, u2, N2, 100.0, err);
    agg_buf a, b, gp;
    agg_buf_init(&a), agg_buf_init(&b), agg_buf_init(&gp);
    if (!rc) {
        d1->rms_noisy = rms_diff(v1, c1, N1), d1->rms_smoothed = rms_diff(u1, c1, N1);
        d2->rms_noisy = rms_diff(v2, c2, N2), d2->rms_smoothed = rms_diff(u2, c2, N2);
        agg_buf_printf(&a, "# DP-LSSGD Fig. 2 (a), seed %lu: x = 2 pi i/100, clean, noisy, "
                       "smoothed (sigma 10)\n", seed);
        for (int i = 0; i < N1; i++)
            agg_buf_printf(&a, "%.6f %.9g %.9g %.9g\n", 2.0 * M_PI * (i + 1) / 100.0, c1[i],
                           v1[i], u1[i]);
        agg_buf_printf(&b, "# DP-LSSGD Fig. 2 (b-d), seed %lu: x = 2 pi i/100, y = 2 pi j/100, "
                       "clean, noisy, smoothed (sigma 100, row-major)\n", seed);
        for (int i = 0; i < SIG2; i++) {
            for (int j = 0; j < SIG2; j++) {
                size_t k = (size_t)i * SIG2 + (size_t)j;
                agg_buf_printf(&b, "%.6f %.6f %.9g %.9g %.9g\n", 2.0 * M_PI * (i + 1) / 100.0,
                               2.0 * M_PI * (j + 1) / 100.0, c2[k], v2[k], u2[k]);
            }
            agg_buf_puts(&b, "\n");
        }
        agg_buf_puts(&gp, FIG2_GP);
        rc = write_text(dir, "fig2_1d.dat", &a, err);
        if (!rc) rc = write_text(dir, "fig2_2d.dat", &b, err);
        if (!rc) rc = write_text(dir, "fig2.gp", &gp, err);
    }
    agg_buf_destroy(&a), agg_buf_destroy(&b), agg_buf_destroy(&gp);
    free(mem);
    *drawn = 0;
    *png_note = NULL;
    if (rc || !gnuplot_available()) return rc;
    char *image = NULL, *note = NULL;
    size_t len = 0;
    rc = gnuplot_render(dir, "fig2.gp", "png", &image, &len, &note, err);
    if (!rc) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fig2.png", dir);
        rc = store_write_atomic(path, image, len, err);
        *drawn = rc == DP_OK;
    }
    free(image);
    *png_note = note;
    return rc;
}

// ---- the command -------------------------------------------------------------------------

typedef struct smoothing_opts {
    const char *out, *ref_dir;
    unsigned long seed;
} smoothing_opts;

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, smoothing_opts *o)
{
    static const struct option longopts[] = {
        {"out", required_argument, 0, 'o'}, {"seed", required_argument, 0, 's'},
        {"reference-dir", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *o = (smoothing_opts){"results/lssgd_smoothing", "configs/reference", 1};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'r': o->ref_dir = optarg; break;
        case 's':
            o->seed = strtoul(optarg, &end, 10);
            if (end == optarg || *end || optarg[0] == '-')
                return cli_usage_error("smoothing", "--seed takes a whole number >= 0, got '%s'",
                                       optarg);
            break;
        case 'h': fputs(SMOOTHING_HELP, stdout); return EXIT_OK;
        case ':': return cli_usage_error("smoothing", "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error("smoothing", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("smoothing", "unexpected argument '%s'", argv[optind]);
    return -1;
}

/* What was computed: the two tables, Fig. 2's denoising in 1-D and 2-D, its image. */
typedef struct smoothing_result {
    const_table t3, t4;
    denoise d1, d2;
    int drawn;            /* fig2.png was drawn */
    char *png_note;       /* gnuplot's note, or NULL */
    unsigned long seed;
} smoothing_result;

/* The same sentence as a Markdown paragraph and an HTML one. */
static void both(agg_buf *md, agg_buf *html, const char *text)
{
    agg_buf_printf(md, "%s\n\n", text);
    agg_buf_puts(html, "<p>");
    html_escape(html, text);
    agg_buf_puts(html, "</p>\n");
}

/* report.md and report.html, which say the same, sentence for sentence; fidelity[3] are
 * the fidelity lines. */
static void pages(agg_buf *md, agg_buf *html, const smoothing_result *r, char fidelity[3][320])
{
    static const char TITLE[] = "DP-LSSGD Tables 3, 4 and Fig. 2 (the smoothing operator)";
    static const char FIG2[] = "Fig. 2: LS denoising (sigma 10 in 1-D, 100 in 2-D; noise seed";
    static const char HOW_2D[] = "The 2-D signal is smoothed as the paper does it: reshaped "
        "row-major into one vector of 10,000 and smoothed in 1-D (so along rows, with each "
        "row's end joined to the next row's start).";
    agg_buf_printf(md, "# Report: %s\n\nComputed by `dperm smoothing` (no training "
                   "runs).\n\n## Fidelity\n\n", TITLE);
    html_page_begin(html, TITLE);
    agg_buf_puts(html, "<h1>Report: ");
    html_escape(html, TITLE);
    agg_buf_puts(html, "</h1>\n<p>Computed by <code>dperm smoothing</code> (no training "
                       "runs).</p>\n<h2>Fidelity</h2>\n<ul>\n");
    for (int k = 0; k < 3; k++) {
        agg_buf_printf(md, "- %s\n", fidelity[k]);
        agg_buf_puts(html, "<li>");
        html_escape(html, fidelity[k]);
        agg_buf_puts(html, "</li>\n");
    }
    agg_buf_puts(md, "\n## Tables\n\n");
    agg_buf_puts(html, "</ul>\n<h2>Tables</h2>\n");
    table_md(md, &r->t3);
    table_md(md, &r->t4);
    table_html(html, &r->t3);
    table_html(html, &r->t4);
    agg_buf_printf(md, "CSV: [table3.csv](table3.csv), [table4.csv](table4.csv)\n\n"
                   "## Figures\n\n### %s %lu)\n\n", FIG2, r->seed);
    agg_buf_printf(html, "<p>CSV: <a href=\"table3.csv\">table3.csv</a>, "
                   "<a href=\"table4.csv\">table4.csv</a></p>\n<h2>Figures</h2>\n"
                   "<h3>%s %lu)</h3>\n", FIG2, r->seed);
    if (!r->drawn) {
        both(md, html, "gnuplot is not installed (install gnuplot-nox): fig2.png is not "
             "drawn; run `gnuplot fig2.gp` here once it is.");
    } else {
        agg_buf_puts(md, "![Fig. 2](fig2.png)\n\n");
        agg_buf_puts(html, "<p><img src=\"fig2.png\" alt=\"Fig. 2\"></p>\n");
        if (r->png_note) {
            char said[1024];
            snprintf(said, sizeof said, "gnuplot said: %s", r->png_note);
            both(md, html, said);
        }
    }
    agg_buf_printf(md, "%s Script: [fig2.gp](fig2.gp), data: fig2_1d.dat, fig2_2d.dat.\n",
                   HOW_2D);
    agg_buf_printf(html, "<p>%s Script: <a href=\"fig2.gp\">fig2.gp</a>, data: "
                   "<a href=\"fig2_1d.dat\">fig2_1d.dat</a>, "
                   "<a href=\"fig2_2d.dat\">fig2_2d.dat</a>.</p>\n", HOW_2D);
    html_page_end(html);
}

/* fidelity.json, report.html and report.md into out. */
static int write_report(const char *out, const smoothing_result *r, dp_err *err)
{
    int holds = r->d1.rms_smoothed < r->d1.rms_noisy && r->d2.rms_smoothed < r->d2.rms_noisy;
    char lines[3][320], detail[200];
    snprintf(lines[0], sizeof lines[0], "%s (gamma): %zu of %zu cells agree with the paper "
             "as printed.", r->t3.ref.table, r->t3.matched, r->t3.compared);
    snprintf(lines[1], sizeof lines[1], "%s (beta): %zu of %zu cells agree with the paper "
             "as printed.", r->t4.ref.table, r->t4.matched, r->t4.compared);
    snprintf(detail, sizeof detail, "RMS distance to the clean signal, noisy -> smoothed: "
             "1-D %.4f -> %.4f, 2-D %.4f -> %.4f", r->d1.rms_noisy, r->d1.rms_smoothed,
             r->d2.rms_noisy, r->d2.rms_smoothed);
    snprintf(lines[2], sizeof lines[2], "Claim \"LS removes the noise\" (Fig. 2): %s (%s).",
             holds ? "holds" : "does not hold", detail);
    agg_buf md, html;
    agg_buf_init(&md);
    agg_buf_init(&html);
    pages(&md, &html, r, lines);
    json_t *fj = fidelity(&r->t3, &r->t4, holds, detail);
    char *fjs = fj ? store_json_dumps(fj, 0) : NULL;
    json_decref(fj);
    agg_buf fb = {.data = fjs, .len = fjs ? strlen(fjs) : 0, .oom = !fjs};
    int rc = write_text(out, "fidelity.json", &fb, err);
    free(fjs);
    if (!rc) rc = write_text(out, "report.html", &html, err);
    if (!rc) rc = write_text(out, "report.md", &md, err);
    agg_buf_destroy(&md);
    agg_buf_destroy(&html);
    return rc;
}

int cli_smoothing(int argc, char **argv)
{
    smoothing_opts o;
    int status = parse_args(argc, argv, &o);
    if (status >= 0) return status;
    dp_err err;
    dp_err_clear(&err);
    smoothing_result r = {.t3 = {.name = "table3", .symbol = "gamma", .file = "lssgd_table3.yaml"},
                          .t4 = {.name = "table4", .symbol = "beta", .file = "lssgd_table4.yaml"},
                          .seed = o.seed};
    int rc = load_reference(&r.t3, o.ref_dir, &err);
    if (!rc) rc = load_reference(&r.t4, o.ref_dir, &err);
    if (rc) {
        cli_print_error(&err);
        ref_table_destroy(&r.t3.ref);
        ref_table_destroy(&r.t4.ref);
        return EXIT_USAGE;
    }
    compute(&r.t3, 0);
    compute(&r.t4, 1);
    rc = store_mkdirs(o.out, &err);
    if (!rc) rc = table_csv(&r.t3, o.out, &err);
    if (!rc) rc = table_csv(&r.t4, o.out, &err);
    if (!rc) rc = fig2(o.out, o.seed, &r.d1, &r.d2, &r.drawn, &r.png_note, &err);
    if (!rc) rc = write_report(o.out, &r, &err);
    if (!rc) { /* the folder above lists this report, where dperm keeps an index */
        char *index = NULL, skipped[4400] = "";
        rc = report_index(o.out, &index, skipped, sizeof skipped, &err);
        if (skipped[0]) fprintf(stderr, "dperm: note: the results index %s\n", skipped);
        free(index);
    }
    free(r.png_note);
    ref_table_destroy(&r.t3.ref);
    ref_table_destroy(&r.t4.ref);
    if (rc) {
        cli_print_error(&err);
        return EXIT_RUNS_FAILED;
    }
    printf("dperm: smoothing report in %s/report.md and report.html (Table 3: %zu of %zu, "
           "Table 4: %zu of %zu cells as printed)\n", o.out, r.t3.matched, r.t3.compared,
           r.t4.matched, r.t4.compared);
    return EXIT_OK;
}
