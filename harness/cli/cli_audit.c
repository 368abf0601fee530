/* cli_audit.c: `dperm audit CONFIG`: the empirical privacy audit of every run of an
 * experiment file's grid (audit.h), printed as a table (or JSON) and optionally written
 * to a folder.
 *
 * Exit status: 0 every audited lower bound stays at or below its claimed epsilon;
 * 3 (EXIT_AUDIT_VIOLATION) at least one exceeds its claim; 1 a trial failed (a library
 * error; the other audits are still reported); 2 usage, config or data error (nothing run,
 * nothing written).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algorithms/base/vec.h"
#include "harness/store/record.h"
#include "harness/sweep/audit.h"
#include "harness/cli/cli.h"
#include "harness/store/store.h"

static const char AUDIT_HELP[] =
    "usage: dperm audit CONFIG.yaml [options]\n"
    "\n"
    "Empirical privacy audit: train each private run of CONFIG's grid many times on its\n"
    "training set and on the set plus one canary example, pick the best threshold test on\n"
    "the released weights, and turn its error rates into a lower bound on epsilon\n"
    "(Clopper-Pearson, Jagielski et al. 2020). A bound above the claimed epsilon is a\n"
    "violation. Settings come from the config's audit: block; options override them.\n"
    "\n"
    "options:\n"
    "      --trials N        trainings per data set (half choose the threshold, half\n"
    "                        evaluate it); default audit.trials or 1000\n"
    "      --confidence C    confidence of the lower bound, in (0, 1); default 0.95\n"
    "      --seed S          seed of the trials (integer >= 0); default audit.seed or 1\n"
    "      --json            print JSON instead of the table\n"
    "  -o, --out DIR         also write DIR/audit.md and DIR/audit.json (DIR must not hold\n"
    "                        an audit already)\n"
    "      --data-dir DIR    first folder to look for dataset files in\n"
    "  -h, --help            this text\n"
    "\n"
    "exit status: 0 every bound below its claim, 3 a violation was found, 1 a trial\n"
    "failed, 2 usage, config or data error (nothing run, nothing written).\n";

typedef struct audit_cli {
    const char *config, *out, *data_dir;
    int json;
    audit_overrides ov;
} audit_cli;

static int parse_args(int argc, char **argv, audit_cli *o)
{
    static const struct option longopts[] = {
        {"trials", required_argument, 0, 'T'}, {"confidence", required_argument, 0, 'C'},
        {"seed", required_argument, 0, 'S'},   {"json", no_argument, 0, 'J'},
        {"out", required_argument, 0, 'o'},    {"data-dir", required_argument, 0, 'd'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'T': {
            long t = strtol(optarg, &end, 10);
            if (*end || t < 10 || t > 10000000)
                return cli_usage_error("audit", "--trials takes a number from 10 to 10000000, "
                                       "got '%s'", optarg);
            o->ov.trials = t;
            break;
        }
        case 'C': {
            double v = strtod(optarg, &end);
            if (*end || !(v > 0.0 && v < 1.0))
                return cli_usage_error("audit", "--confidence takes a number in (0, 1), got "
                                       "'%s'", optarg);
            o->ov.confidence = v;
            break;
        }
        case 'S': {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*end || !*optarg || optarg[0] == '-' || errno)
                return cli_usage_error("audit", "--seed takes an integer >= 0, got '%s'",
                                       optarg);
            o->ov.seed = (uint64_t)v;
            o->ov.has_seed = 1;
            break;
        }
        case 'J': o->json = 1; break;
        case 'o': o->out = optarg; break;
        case 'd': o->data_dir = optarg; break;
        case 'h': fputs(AUDIT_HELP, stdout); exit(EXIT_OK);
        case ':': return cli_usage_error("audit", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("audit", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("audit", "missing CONFIG.yaml");
    if (optind + 1 < argc)
        return cli_usage_error("audit", "unexpected argument '%s'", argv[optind + 1]);
    o->config = argv[optind];
    struct stat st;
    if (o->data_dir && (stat(o->data_dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return cli_usage_error("audit", "--data-dir %s is not a folder", o->data_dir);
    return 0;
}

static const char *verdict(const audit_result *r)
{
    return r->violation ? "VIOLATION" : "below claim";
}

/* The table as markdown: one row per audit. ok[i] = 0 marks an audit whose trials failed. */
static char *table_md(const audit_result *r, const int *ok, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "| algorithm | epsilon | delta | trials | FPR | FNR | threshold | "
               "eps lower bound | verdict |\n");
    fprintf(f, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (size_t i = 0; i < n; i++) {
        if (!ok[i]) {
            fprintf(f, "| %s | %g | %g | %ld | | | | | failed |\n", r[i].algorithm,
                    r[i].epsilon, r[i].delta, r[i].trials);
            continue;
        }
        const dp_audit_bound *b = &r[i].bound;
        fprintf(f, "| %s | %g | %g | %ld | %.4f | %.4f | %.4g | %.3f | %s |\n", r[i].algorithm,
                r[i].epsilon, r[i].delta, r[i].trials, b->fpr, b->fnr, b->threshold,
                b->eps_lower, verdict(&r[i]));
    }
    fclose(f);
    return buf;
}

static json_t *results_json(const audit_cli *o, const audit_set *a, const audit_result *r,
                            const int *ok, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) {
        const dp_audit_bound *b = &r[i].bound;
        json_t *e = json_pack("{s:s, s:o, s:o, s:I, s:o, s:s}", "algorithm", r[i].algorithm,
                              "epsilon", record_number(r[i].epsilon), "delta", record_number(r[i].delta),
                              "trials", (json_int_t)r[i].trials, "canary_norm",
                              record_number(r[i].canary_norm), "verdict",
                              ok[i] ? verdict(&r[i]) : "failed");
        json_object_set_new(e, "neighbours",
                            json_string(r[i].neighbours == AUDIT_NEIGHBOURS_REPLACE_ONE
                                            ? "replace_one" : "add_remove"));
        if (r[i].neighbours == AUDIT_NEIGHBOURS_REPLACE_ONE)
            json_object_set_new(e, "canary_pair",
                                json_string(r[i].pair == AUDIT_PAIR_MIRROR ? "mirror" : "relabel"));
        if (ok[i]) {
            json_object_set_new(e, "threshold", record_number(b->threshold));
            json_object_set_new(e, "evaluated_without", json_integer(b->n_out));
            json_object_set_new(e, "evaluated_with", json_integer(b->n_in));
            json_object_set_new(e, "false_positives", json_integer(b->false_pos));
            json_object_set_new(e, "false_negatives", json_integer(b->false_neg));
            json_object_set_new(e, "fpr", record_number(b->fpr));
            json_object_set_new(e, "fnr", record_number(b->fnr));
            json_object_set_new(e, "fpr_upper", record_number(b->fpr_upper));
            json_object_set_new(e, "fnr_upper", record_number(b->fnr_upper));
            json_object_set_new(e, "epsilon_lower_bound", record_number(b->eps_lower));
            json_object_set_new(e, "seconds", record_number(r[i].seconds));
        }
        json_object_set_new(e, "run", cfg_to_json(a->g.runs[i].config));
        json_array_append_new(list, e);
    }
    return json_pack("{s:i, s:s, s:f, s:I, s:s, s:o}", "schema", AUDIT_SCHEMA, "config", o->config,
                     "confidence", a->opts.confidence, "seed", (json_int_t)a->opts.seed,
                     "statistic", a->opts.statistic == AUDIT_STAT_LOSS ? "loss" : "projection",
                     "audits", list);
}

/* DIR must not hold an audit: a finished one is never replaced. */
static int check_out(const char *dir, dp_err *err)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/audit.json", dir);
    if (access(p, F_OK) == 0) {
        dp_err_set(err, DP_ESTATE, "%s already exists: an audit is never overwritten", p);
        dp_err_hint(err, "pass another --out folder, or remove %s", p);
        return DP_ESTATE;
    }
    return 0;
}

static int write_out(const char *dir, const char *md, const char *js, dp_err *err)
{
    char p[PATH_MAX];
    int rc = store_mkdirs(dir, err);
    snprintf(p, sizeof p, "%s/audit.md", dir);
    if (rc == 0) rc = store_write_atomic(p, md, strlen(md), err);
    snprintf(p, sizeof p, "%s/audit.json", dir);
    if (rc == 0) rc = store_write_atomic(p, js, strlen(js), err);
    return rc;
}

int cli_audit(int argc, char **argv)
{
    audit_cli o;
    int status = parse_args(argc, argv, &o);
    if (status) return status;
    dp_err err;
    dp_err_clear(&err);
    audit_set a;
    if (audit_set_load(&a, o.config, &o.ov, o.data_dir, &err) ||
        (o.out && check_out(o.out, &err))) {
        cli_print_error(&err);
        audit_set_destroy(&a);
        return EXIT_USAGE;
    }
    /* Trials are small problems, run one after another: a second thread per GEMM of a few
     * hundred rows costs more than it saves. */
    dp_set_threads(1);
    a.progress = stderr;
    size_t n = a.g.n;
    audit_result *r = calloc(n ? n : 1, sizeof *r);
    int *ok = calloc(n ? n : 1, sizeof *ok);
    if (!r || !ok) {
        fprintf(stderr, "dperm: out of memory\n");
        status = EXIT_RUNS_FAILED;
        goto done;
    }
    int failed = 0, violated = 0;
    for (size_t i = 0; i < n; i++) {
        dp_err_clear(&err);
        if (audit_set_run_one(&a, i, &r[i], &err)) {
            failed = 1;
            fprintf(stderr, "dperm audit: %zu/%zu %s epsilon %g: failed: %s\n", i + 1, n,
                    r[i].algorithm, r[i].epsilon, err.msg);
            continue;
        }
        ok[i] = 1;
        violated |= r[i].violation;
        fprintf(stderr, "dperm audit: %zu/%zu %s epsilon %g: lower bound %.3f, %s (%ld trials "
                "per data set, %.1f s)\n", i + 1, n, r[i].algorithm, r[i].epsilon,
                r[i].bound.eps_lower, verdict(&r[i]), r[i].trials, r[i].seconds);
    }
    char *md = table_md(r, ok, n);
    json_t *j = results_json(&o, &a, r, ok, n);
    char *js = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    if (!md || !js) {
        fprintf(stderr, "dperm: out of memory\n");
        status = EXIT_RUNS_FAILED;
    } else {
        fputs(o.json ? js : md, stdout);
        if (o.json) fputc('\n', stdout);
        if (o.out && write_out(o.out, md, js, &err)) {
            cli_print_error(&err);
            status = EXIT_RUNS_FAILED;
        } else {
            status = failed ? EXIT_RUNS_FAILED : violated ? EXIT_AUDIT_VIOLATION : EXIT_OK;
        }
    }
    free(md);
    free(js);
    json_decref(j);
done:
    free(r);
    free(ok);
    audit_set_destroy(&a);
    return status;
}
