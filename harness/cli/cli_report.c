/* cli_report.c: `dperm report DIR`: tables and figures from DIR/runs.jsonl, using the
 * `report:` section of the experiment file the sweep copied into DIR/config.yaml. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/config/config.h"
#include "harness/report/report.h"
#include "harness/report/report_names.h"
#include "harness/store/store.h"

static const char REPORT_HELP[] =
    "usage: dperm report DIR [--format md,csv,tex,html,png,svg,pdf]\n"
    "\n"
    "Aggregate DIR/runs.jsonl (mean ± std over seeds) into the tables and figures of the\n"
    "experiment's `report:` section (DIR/config.yaml), or default ones. Nothing is re-run.\n"
    "The shard files DIR/runs.I-of-N.jsonl are read too (combined as `dperm merge` does,\n"
    "in memory), so a sharded sweep can be reported before or without merging.\n"
    "A table with a `reference:` file prints the paper's published numbers beside ours,\n"
    "with the difference and a dagger where ours falls outside the paper's band.\n"
    "Writes DIR/tables/*.md|.csv|.tex, DIR/figures/*.png|.svg|.pdf (+ .gp script and .dat\n"
    "data), DIR/report.md, DIR/report.html, DIR/fidelity.json, and the index of every\n"
    "experiment beside DIR (DIR/../index.html) when report.html is written.\n"
    "\n"
    "options:\n"
    "  --format LIST   comma list of md, csv, tex, html, png, svg, pdf (default: the\n"
    "                  report block's `formats`, else md,csv,tex,html,png)\n"
    "  -q, --quiet     do not list the files written\n";

int cli_report(int argc, char **argv)
{
    static const struct option longopts[] = {{"format", required_argument, 0, 'f'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *formats = NULL;
    int quiet = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': formats = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(REPORT_HELP, stdout); return EXIT_OK;
        case ':': return cli_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("report", "missing the results folder DIR");
    if (optind + 1 < argc) return cli_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
    const char *dir = argv[optind];

    dp_err err;
    dp_err_clear(&err);
    cfg_doc doc = {0};
    json_t *spec = NULL;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/config.yaml", dir);
    if (access(path, F_OK) == 0) {
        if (cfg_parse_file(&doc, path, &err) != 0) {
            cli_print_error(&err);
            return EXIT_USAGE;
        }
        cfg_node *rep = cfg_get(doc.root, "report");
        if (rep) spec = cfg_to_json(rep);
        /* its names against what the runs have, before any table is built */
        json_t *records = NULL;
        report_names names = {0};
        int rc = rep && store_has_records(dir) ? store_load(dir, &records, &err) : 0;
        if (rc == 0 && records && report_names_from_records(&names, records))
            rc = dp_err_set(&err, DP_ENOMEM, "out of memory checking the report block");
        if (rc == 0 && records) rc = report_names_check(rep, &names, &err);
        report_names_destroy(&names);
        json_decref(records);
        if (rc) {
            cli_print_error(&err);
            json_decref(spec);
            cfg_doc_destroy(&doc);
            return EXIT_USAGE;
        }
    }
    report_result res = {0};
    int rc = report_build(dir, spec, formats, &res, &err);
    json_decref(spec);
    cfg_doc_destroy(&doc);
    if (rc) {
        cli_print_error(&err);
        return EXIT_USAGE;
    }
    /* the page was written: refresh the index of the experiments beside it */
    char *index = NULL, skipped[4400] = "";
    for (size_t i = 0; i < res.n_files; i++) {
        size_t n = strlen(res.files[i]);
        if (n < 12 || strcmp(res.files[i] + n - 12, "/report.html")) continue;
        if (report_index(dir, &index, skipped, sizeof skipped, &err)) {
            cli_print_error(&err);
            report_result_destroy(&res);
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < res.n_warnings; i++) fprintf(stderr, "dperm: note: %s\n", res.warnings[i]);
    if (skipped[0]) fprintf(stderr, "dperm: note: the results index %s\n", skipped);
    if (!quiet) {
        printf("dperm: report of %zu runs (%zu ok, %zu diverged, %zu failed) in %s:\n",
               res.n_records, res.n_ok, res.n_diverged, res.n_failed, dir);
        for (size_t i = 0; i < res.n_files; i++) printf("  %s\n", res.files[i]);
        if (index) printf("  %s\n", index);
    }
    free(index);
    report_result_destroy(&res);
    return EXIT_OK;
}
