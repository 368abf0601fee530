/* cli_run.c: `dperm run CONFIG`: parse, expand, validate and calibrate every run, then
 * execute the missing ones in worker processes and record them.
 *
 * Order matters for "nothing lost, nothing half-written": every run is validated and
 * calibrated before the results folder is touched, so a config error exits 2 having
 * written nothing; records are appended one whole line at a time by this process only;
 * summary.csv is replaced atomically at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/report/aggregate.h"
#include "harness/env/blas_env.h"
#include "harness/cli/cli.h"
#include "harness/config/config.h"
#include "harness/sweep/data_cache.h"
#include "harness/store/flat.h"
#include "harness/grid/grid.h"
#include "harness/report/html.h"
#include "harness/sweep/optimality.h"
#include "harness/sweep/pool.h"
#include "harness/sweep/progress.h"
#include "harness/env/provenance.h"
#include "harness/report/report_names.h"
#include "harness/sweep/runner.h"
#include "harness/sweep/shard.h"
#include "harness/sweep/shared_runs.h"
#include "harness/spec/spec.h"
#include "harness/store/record.h"
#include "harness/store/store.h"
#include "harness/store/summary.h"

static const char RUN_HELP[] =
    "usage: dperm run CONFIG.yaml [options]\n"
    "\n"
    "Expand the experiment grid of CONFIG into runs, execute them in parallel and record\n"
    "each in results/<experiment>/runs.jsonl (plus summary.csv).\n"
    "\n"
    "options:\n"
    "  -j, --jobs N          worker processes (default: number of cores)\n"
    "  -o, --out DIR         results folder (default: results/<experiment>)\n"
    "      --resume          run only the runs not yet recorded in the folder\n"
    "      --dry-run         print the expanded runs and their count; run nothing\n"
    "      --scale NAME      apply the config's scales.NAME overrides (e.g. quick)\n"
    "      --only KEY=VALUE  keep runs whose KEY (dotted path) equals VALUE; repeatable\n"
    "                        (same key: any of the values; different keys: all)\n"
    "      --data-dir DIR    first folder to look for dataset files in\n"
    "      --shard I/N       run only slice I (0..N-1) of N cost-balanced slices of the\n"
    "                        grid, recorded in runs.I-of-N.jsonl (see `dperm merge`);\n"
    "                        with --dry-run: the slice's runs and estimated costs\n"
    "      --secure-noise    privacy noise from the OS's CSPRNG by exact discrete samplers\n"
    "                        (sets privacy.secure_noise: true; runs not reproducible)\n"
    "  -q, --quiet           no progress output\n"
    "  -h, --help            this text\n"
    "\n"
    "exit status: 0 all runs ok or diverged (or failed for want of a dataset marked\n"
    "dataset.required: false), 1 some runs failed (the others are recorded), 2 usage,\n"
    "config or data error (nothing run, nothing written).\n";

typedef struct run_opts {
    const char *config;
    int jobs;
    const char *out;
    int resume, dry_run, quiet;
    const char *scale;
    char **only;
    size_t n_only;
    const char *data_dir;
    int sharded;
    shard_spec shard;
    int secure_noise;     /* --secure-noise: privacy.secure_noise: true over the YAML */
} run_opts;

/* Everything the parent knows about the sweep; shared read-only with the workers. */
typedef struct sweep {
    run_opts opt;
    cfg_doc doc;
    grid g;               /* runs to consider (after --only) */
    run_spec *specs;      /* validated + calibrated, one per g.runs[i] */
    data_cache data;      /* real datasets, loaded once before the workers fork */
    uint64_t *cost;       /* --shard: estimated cost of each kept run */
    uint64_t cost_kept, cost_all;
    char dir[PATH_MAX];
    int fd;               /* runs.jsonl (or the shard's file), O_APPEND */
    char runs_path[PATH_MAX + 64];
    char tmpdir[PATH_MAX + 32]; /* the workers' record files (one per shard) */
    progress prog;
    size_t n_failed;
    size_t *group;        /* shared_runs_group: the first run training what run i trains */
    size_t n_shared;      /* runs whose group is another run */
    size_t *copy_of;      /* open_folder: the run whose record run i's copies (SIZE_MAX:
                             none; run i trains, or was recorded before) */
    size_t n_copied;      /* records written as copies by this command */
} sweep;

static int parse_args(int argc, char **argv, run_opts *o)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, 0, 'j'},   {"out", required_argument, 0, 'o'},
        {"resume", no_argument, 0, 'r'},       {"dry-run", no_argument, 0, 'n'},
        {"scale", required_argument, 0, 's'},  {"only", required_argument, 0, 'O'},
        {"data-dir", required_argument, 0, 'd'}, {"quiet", no_argument, 0, 'q'},
        {"shard", required_argument, 0, 'S'},  {"secure-noise", no_argument, 0, 'N'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)cores : 1;
    o->only = calloc((size_t)argc, sizeof *o->only);
    if (!o->only) return cli_usage_error("run", "out of memory");
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":j:o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > 1024)
                return cli_usage_error("run", "-j takes a number of workers from 1 to 1024, got '%s'", optarg);
            o->jobs = (int)j;
            break;
        }
        case 'o': o->out = optarg; break;
        case 'r': o->resume = 1; break;
        case 'n': o->dry_run = 1; break;
        case 's': o->scale = optarg; break;
        case 'O':
            if (!strchr(optarg, '=') || optarg[0] == '=')
                return cli_usage_error("run", "--only takes KEY=VALUE, got '%s'", optarg);
            o->only[o->n_only++] = optarg;
            break;
        case 'd': o->data_dir = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'N': o->secure_noise = 1; break;
        case 'S': {
            dp_err e;
            if (shard_parse(optarg, &o->shard, &e) != 0) return cli_usage_error("run", "%s", e.msg);
            o->sharded = 1;
            break;
        }
        case 'h': fputs(RUN_HELP, stdout); exit(EXIT_OK);
        case ':': return cli_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("run", "missing CONFIG.yaml");
    if (optind + 1 < argc) return cli_usage_error("run", "unexpected argument '%s'", argv[optind + 1]);
    o->config = argv[optind];
    if (o->data_dir) {
        struct stat st;
        if (stat(o->data_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return cli_usage_error("run", "--data-dir %s is not a folder", o->data_dir);
    }
    return 0;
}

/* Validate and calibrate every run before anything is written. */
/* The report block's config paths against every run of the grid (the whole grid, not only
 * what --only keeps: a table may group by a key the kept runs lack). */
static int check_report_names(const sweep *s, dp_err *err)
{
    const cfg_node *report = cfg_get(s->doc.root, "report");
    if (!report) return 0;
    grid full = {0};
    const grid *g = &s->g;
    int rc = 0;
    if (s->opt.n_only) {
        if ((rc = grid_expand(s->doc.root, s->opt.scale, NULL, 0, &full, err))) return rc;
        g = &full;
    }
    cfg_node **configs = malloc((g->n ? g->n : 1) * sizeof *configs);
    report_names names = {0};
    if (!configs) rc = dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < g->n; i++) configs[i] = g->runs[i].config;
    if (!rc && report_names_from_configs(&names, configs, g->n))
        rc = dp_err_set(err, DP_ENOMEM, "out of memory checking the report block");
    if (!rc) rc = report_names_check(report, &names, err);
    report_names_destroy(&names);
    free(configs);
    grid_destroy(&full);
    return rc;
}

static int prepare(sweep *s, dp_err *err)
{
    /* Notes even with -q: a fallback changes which data the runs use. */
    data_cache_init(&s->data, s->opt.data_dir, stderr);
    int rc = cfg_parse_file(&s->doc, s->opt.config, err);
    /* Before expansion, so the runs' configs (and ids) say it as if the YAML did. */
    if (rc == 0 && s->opt.secure_noise)
        rc = cfg_set_scalar(s->doc.root, "privacy", "secure_noise", "true", err);
    if (rc == 0) rc = spec_check_document(s->doc.root, err);
    if (rc == 0)
        rc = grid_expand(s->doc.root, s->opt.scale, s->opt.only, s->opt.n_only, &s->g, err);
    if (rc == 0) rc = check_report_names(s, err);
    if (rc) return rc;
    s->specs = calloc(s->g.n ? s->g.n : 1, sizeof *s->specs);
    if (!s->specs) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->g.n; i++) {
        run_spec *sp = &s->specs[i];
        rc = spec_from_config(s->g.runs[i].config, sp, err);
        if (rc == 0) rc = data_cache_bind(&s->data, sp, s->g.runs[i].config, err);
        /* Runs of a grid share few distinct (q, steps, delta, epsilon): reuse them. */
        for (size_t j = 0; rc == 0 && j < i; j++) {
            const run_spec *o = &s->specs[j];
            if (o->train.algorithm == sp->train.algorithm && !sp->has_noise_multiplier &&
                o->accountant_kind == sp->accountant_kind && o->neighbours == sp->neighbours &&
                !o->has_noise_multiplier && o->epsilon == sp->epsilon && o->delta == sp->delta &&
                o->train.batch_size == sp->train.batch_size &&
                o->n_train == sp->n_train &&
                runner_planned_steps(o) == runner_planned_steps(sp)) {
                sp->train.noise_multiplier = o->train.noise_multiplier;
                goto calibrated;
            }
        }
        if (rc == 0) {
            const cfg_node *at = cfg_get(s->g.runs[i].config, "epsilon");
            rc = runner_calibrate(sp, at ? at : s->g.runs[i].config, err);
        }
    calibrated:
        if (rc == 0) rc = runner_plan_readouts(sp, cfg_get(s->g.runs[i].config, "train"), err);
        if (rc) return rc;
    }
    size_t n_secure = 0;
    for (size_t i = 0; i < s->g.n; i++) n_secure += s->specs[i].secure_noise != 0;
    if (n_secure) /* once per sweep, even with --quiet: these records cannot be rerun */
        fprintf(stderr, "dperm: note: %zu of %zu runs draw their privacy noise from the "
                "operating system's CSPRNG (privacy.secure_noise): not reproducible by "
                "design; their records say \"reproducible\": false\n", n_secure, s->g.n);
    size_t n_unbounded = 0;
    for (size_t i = 0; i < s->g.n; i++)
        n_unbounded += strcmp(s->specs[i].algo->name, "input_perturbation") == 0;
    if (n_unbounded) /* once per sweep, even with --quiet: privacy is the product */
        fprintf(stderr, "dperm: warning: %zu of %zu runs are input_perturbation, whose "
                "epsilon (InputPert Thm 1) dperm audit contradicts: their records give it "
                "as epsilon_claimed, with epsilon_spent null (docs/privacy.md, Empirical "
                "privacy audit)\n",
                n_unbounded, s->g.n);
    /* delta is the chance of a privacy failure; above 1/n a mechanism that publishes one
     * training row at random meets the definition. Warned, not refused: papers do it. */
    size_t n_loose = 0, n_private = 0, worst = 0;
    for (size_t i = 0; i < s->g.n; i++) {
        const run_spec *sp = &s->specs[i];
        if (!sp->algo->private_ || sp->n_train == 0) continue;
        n_private++;
        if (sp->delta > 1.0 / (double)sp->n_train) {
            if (n_loose == 0 || sp->delta * (double)sp->n_train >
                                    s->specs[worst].delta * (double)s->specs[worst].n_train)
                worst = i;
            n_loose++;
        }
    }
    if (n_loose)
        fprintf(stderr, "dperm: warning: %zu of %zu private runs have privacy.delta above 1/n "
                "(e.g. delta %g with n = %zu training rows): such a delta permits releasing a "
                "training row outright; use delta < 1/n (commonly 1/n^1.1 or smaller)\n",
                n_loose, n_private, s->specs[worst].delta, s->specs[worst].n_train);
    const char *exp = s->specs && s->g.n ? s->specs[0].experiment : "";
    if (s->opt.out)
        snprintf(s->dir, sizeof s->dir, "%s", s->opt.out);
    else
        snprintf(s->dir, sizeof s->dir, "results/%s", exp);
    return 0;
}

/* Same model, same work per example: deep models are built once per distinct shape. */
static int same_model(const run_spec *a, const run_spec *b)
{
    return a->deep == b->deep && a->loss == b->loss && !strcmp(a->model_name, b->model_name) &&
           a->n_hidden == b->n_hidden &&
           !memcmp(a->hidden, b->hidden, a->n_hidden * sizeof a->hidden[0]) &&
           !strcmp(a->activation, b->activation) && a->in_c == b->in_c && a->in_h == b->in_h &&
           a->in_w == b->in_w && a->synthetic.n_classes == b->synthetic.n_classes &&
           a->n_layers == b->n_layers &&
           !memcmp(a->layers, b->layers, a->n_layers * sizeof a->layers[0]);
}

/* --shard I/N: keep this shard's runs (in grid order) and their estimated costs. The
 * partition is computed over the runs after --only, so every shard process must be given
 * the same --scale and --only (dperm slurm's script does). */
static int select_shard(sweep *s, dp_err *err)
{
    size_t n = s->g.n;
    uint64_t *cost = calloc(n ? n : 1, sizeof *cost), *work = calloc(n ? n : 1, sizeof *work);
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    unsigned *owner = calloc(n ? n : 1, sizeof *owner);
    int rc = 0;
    if (!cost || !work || !ids || !owner) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto out;
    }
    /* a run that trains what an earlier one trains costs nothing and goes with it */
    size_t *group = NULL, n_shared;
    if ((rc = shared_runs_group(s->g.runs, s->specs, n, &group, &n_shared, err))) goto out;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && !same_model(&s->specs[j], &s->specs[i])) j++;
        work[i] = j < i ? work[j] : shard_model_work(&s->specs[i]);
        cost[i] = group[i] != i ? 0 : shard_run_cost(&s->specs[i], work[i]);
        ids[i] = s->g.runs[i].id;
    }
    rc = shard_assign(ids, cost, n, s->opt.shard.count, owner, NULL, err);
    for (size_t i = 0; rc == 0 && i < n; i++) owner[i] = owner[group[i]];
    free(group);
    if (rc) goto out;
    /* Compact runs, specs and costs to this shard's, freeing the others' configs. */
    size_t k = 0;
    s->cost_all = s->cost_kept = 0;
    for (size_t i = 0; i < n; i++) {
        s->cost_all = s->cost_all + cost[i] < s->cost_all ? UINT64_MAX : s->cost_all + cost[i];
        if (owner[i] != s->opt.shard.index) {
            cfg_free(s->g.runs[i].config);
            continue;
        }
        s->cost_kept = s->cost_kept + cost[i] < s->cost_kept ? UINT64_MAX : s->cost_kept + cost[i];
        s->g.runs[k] = s->g.runs[i];
        s->specs[k] = s->specs[i];
        cost[k] = cost[i];
        k++;
    }
    s->g.n = k;
    s->cost = cost;
    cost = NULL;
out:
    free(cost);
    free(work);
    free(ids);
    free(owner);
    return rc;
}

static void dry_run(const sweep *s)
{
    flat *fs = calloc(s->g.n ? s->g.n : 1, sizeof *fs);
    const char **keys = NULL;
    long nk = 0;
    if (fs) {
        for (size_t i = 0; i < s->g.n; i++) {
            json_t *j = cfg_to_json(s->g.runs[i].config);
            flat_add(&fs[i], NULL, j);
            json_decref(j);
        }
        nk = flat_varying(fs, s->g.n, &keys);
    }
    for (size_t i = 0; i < s->g.n; i++) {
        printf("%4zu  %s ", s->g.runs[i].index + 1, s->g.runs[i].id);
        for (long k = 0; fs && k < nk; k++) {
            const char *v = flat_get(&fs[i], keys[k]);
            printf(" %s=%s", keys[k], v ? v : "-");
        }
        if (s->specs[i].train.algorithm == DP_ALGO_DP_SGD)
            printf("  (noise_multiplier %.4g)", s->specs[i].train.noise_multiplier);
        if (s->group && s->group[i] != i)
            printf("  (trained once with run %zu)", s->g.runs[s->group[i]].index + 1);
        if (s->cost) printf("  cost %.3g", (double)s->cost[i]);
        putchar('\n');
    }
    if (s->opt.sharded)
        printf("shard %u/%u: %zu runs, estimated cost %.3g of %.3g (%.1f%%; a balanced share is "
               "%.1f%%)\n",
               s->opt.shard.index, s->opt.shard.count, s->g.n, (double)s->cost_kept,
               (double)s->cost_all,
               s->cost_all ? 100.0 * (double)s->cost_kept / (double)s->cost_all : 0.0,
               100.0 / s->opt.shard.count);
    if (s->opt.sharded)
        ; /* the shard's line above says it */
    else if (s->g.n < s->g.n_total)
        printf("%zu runs (of %zu in the grid; --only kept %zu)\n", s->g.n, s->g.n_total, s->g.n);
    else
        printf("%zu runs\n", s->g.n);
    if (s->n_shared) /* a note: the listing's last line stays the count */
        fprintf(stderr, "dperm: note: %zu of these runs train what an earlier run trains (a "
                "non-private run does not depend on epsilon): each group trains once, its "
                "other runs' records are copies marked same_run_as\n", s->n_shared);
    for (size_t i = 0; fs && i < s->g.n; i++) flat_destroy(&fs[i]);
    free(fs);
    free(keys);
}

/* ---- the command that continues a sweep ------------------------------------------------ */

/* Append " arg" to buf (size n), in single quotes when the shell would split or expand
 * it, so the hint can be pasted as it is. */
static void append_arg(char *buf, size_t n, const char *arg)
{
    size_t len = strlen(buf);
    int plain = arg[0] != '\0';
    for (const char *c = arg; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
                    *c))
            plain = 0;
    if (plain) {
        snprintf(buf + len, n - len, " %s", arg);
        return;
    }
    snprintf(buf + len, n - len, " '");
    for (const char *c = arg; *c; c++) {
        len = strlen(buf);
        if (*c == '\'') snprintf(buf + len, n - len, "'\\''");
        else snprintf(buf + len, n - len, "%c", *c);
    }
    len = strlen(buf);
    snprintf(buf + len, n - len, "'");
}

/* "dperm run CONFIG ... --resume" with every option that shapes the sweep (its folder, its
 * scale, the --only filters, the data folder, the shard, secure noise): the exact command
 * that continues this sweep in this folder. Without --out or --scale a resume plans the
 * default folder at full scale, which is another sweep. */
static void continue_command(const sweep *s, char *buf, size_t n)
{
    snprintf(buf, n, "dperm run");
    append_arg(buf, n, s->opt.config);
    if (s->opt.scale) {
        append_arg(buf, n, "--scale");
        append_arg(buf, n, s->opt.scale);
    }
    for (size_t i = 0; i < s->opt.n_only; i++) {
        append_arg(buf, n, "--only");
        append_arg(buf, n, s->opt.only[i]);
    }
    if (s->opt.data_dir) {
        append_arg(buf, n, "--data-dir");
        append_arg(buf, n, s->opt.data_dir);
    }
    if (s->opt.sharded) {
        char shard[64];
        snprintf(shard, sizeof shard, "%u/%u", s->opt.shard.index, s->opt.shard.count);
        append_arg(buf, n, "--shard");
        append_arg(buf, n, shard);
    }
    if (s->opt.secure_noise) append_arg(buf, n, "--secure-noise");
    append_arg(buf, n, "--out");
    append_arg(buf, n, s->dir);
    append_arg(buf, n, "--resume");
}

/* ---- the results folder -------------------------------------------------------------- */

/* The manifest: every id of the full expansion (before --only) under this scale, so a
 * --resume with an edited grid is caught. */
static json_t *manifest_json(const sweep *s, const grid *full)
{
    json_t *ids = json_array();
    for (size_t i = 0; i < full->n; i++) json_array_append_new(ids, json_string(full->runs[i].id));
    return json_pack("{s:i, s:s, s:s?, s:o}", "schema", 1, "experiment",
                     s->g.n ? s->specs[0].experiment : "", "scale", s->opt.scale, "ids", ids);
}

static int read_text(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (!buf || n < 0 || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return -1;
    }
    buf[n] = '\0';
    fclose(f);
    *out = buf;
    *len = (size_t)n;
    return 0;
}

/* "the grid changed: N new runs, M kept, K recorded ones no longer in it", once, even with
 * --quiet: a resume that runs other runs than before says so. */
static void grid_change_note(json_t *ids, json_t *records)
{
    size_t n_new = 0, n_kept = 0, n_gone = 0, i, r;
    json_t *id, *rec;
    json_t *have = json_object();
    if (!have) return;
    json_array_foreach(records, r, rec) {
        const char *rid = json_string_value(json_object_get(rec, "id"));
        if (rid) json_object_set_new(have, rid, json_true());
    }
    json_t *want = json_object();
    json_array_foreach(ids, i, id) {
        if (!json_is_string(id)) continue;
        if (json_object_get(have, json_string_value(id))) n_kept++;
        else n_new++;
        if (want) json_object_set_new(want, json_string_value(id), json_true());
    }
    const char *key;
    json_t *v;
    json_object_foreach(have, key, v) n_gone += want && !json_object_get(want, key);
    fprintf(stderr, "dperm: note: the grid changed since this folder's last sweep: %zu new "
            "run%s to run, %zu recorded and kept, %zu recorded run%s no longer in the grid "
            "(kept in runs.jsonl, left out of reports)\n", n_new, n_new == 1 ? "" : "s",
            n_kept, n_gone, n_gone == 1 ? "" : "s");
    json_decref(have);
    json_decref(want);
}

/* DIR/config.original.yaml: the experiment file as given; DIR/config.yaml: the experiment
 * as this sweep runs it, which `dperm report` reads. Without --scale or --secure-noise the
 * two are the same text; with them config.yaml is the document with the scale merged in
 * (and privacy.secure_noise set), written as JSON (which is YAML) under a comment saying
 * so: a quick-scale folder then shows the epochs and seeds its runs had. Reals in 15
 * significant digits (0.3, not 0.29999999999999999): the values of a hand-written file. */
static int write_configs(const sweep *s, const char *text, size_t len, dp_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config.original.yaml", s->dir);
    int rc = store_write_atomic(path, text, len, err);
    if (rc) return rc;
    snprintf(path, sizeof path, "%s/config.yaml", s->dir);
    if (!s->opt.scale && !s->opt.secure_noise) return store_write_atomic(path, text, len, err);
    cfg_node *doc = NULL;
    if ((rc = grid_scaled_document(s->doc.root, s->opt.scale, &doc, err))) return rc;
    json_t *j = cfg_to_json(doc);
    cfg_free(doc);
    char *body = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(j);
    agg_buf b;
    agg_buf_init(&b);
    agg_buf_printf(&b, "# The experiment as this folder's sweep ran it: %s", s->opt.config);
    if (s->opt.scale) agg_buf_printf(&b, " with scales.%s merged in", s->opt.scale);
    if (s->opt.secure_noise) agg_buf_puts(&b, " and --secure-noise");
    agg_buf_puts(&b, " (JSON, which is YAML; the file as given: config.original.yaml).\n");
    if (body) agg_buf_printf(&b, "%s\n", body);
    free(body);
    rc = !body || b.oom ? dp_err_set(err, DP_ENOMEM, "out of memory")
                        : store_write_atomic(path, agg_buf_str(&b), b.len, err);
    agg_buf_destroy(&b);
    return rc;
}

/* Decide what to run. Fills todo[] with indices into s->g.runs. */
static int open_folder(sweep *s, size_t *todo, size_t *n_todo, dp_err *err)
{
    char path[PATH_MAX + 32];
    json_t **done = NULL, **from = NULL; /* per run: its done record; per group: a done one */
    size_t *trainer = NULL, *now = NULL, n_now = 0; /* per group: the run that trains; runs
                                                       copying a done record now */
    grid full = {0};
    int rc = grid_expand(s->doc.root, s->opt.scale, NULL, 0, &full, err);
    if (rc) return rc;
    json_t *manifest = manifest_json(s, &full);
    grid_destroy(&full);
    if (!manifest) return dp_err_set(err, DP_ENOMEM, "out of memory");

    /* A folder dperm keeps experiments' folders and their index in (results/quick/ of
     * make reproduce) is no experiment's folder: records there would mix with the index
     * and would be listed by no report. */
    snprintf(path, sizeof path, "%s/%s", s->dir, HTML_RESULTS_MARK);
    if (access(path, F_OK) == 0) {
        rc = dp_err_set(err, DP_ESTATE, "%s holds other experiments' results folders and "
                        "their index, not one experiment's runs", s->dir);
        dp_err_hint(err, "pass --out %s/NAME (or rename the experiment: its `experiment:` "
                    "key names the folder)", s->dir);
        json_decref(manifest);
        return rc;
    }

    /* A shard appends to its own file only: no two processes ever append to one file,
     * even on a shared file system where O_APPEND is not atomic across machines. */
    json_t *records = NULL, *own = NULL, *old = NULL;
    char fname[64] = "runs.jsonl";
    if (s->opt.sharded) shard_file_name(&s->opt.shard, fname, sizeof fname);
    snprintf(s->runs_path, sizeof s->runs_path, "%s/%s", s->dir, fname);
    int have_own = access(s->runs_path, F_OK) == 0;
    int have_any = store_has_records(s->dir);
    if (have_any) {
        /* Every file of the folder: a run done by any shard (or merged) is done. */
        rc = store_load(s->dir, &records, err);
        if (rc) goto out;
    }
    if (have_own) {
        rc = store_load_file(s->runs_path, &own, err);
        if (rc) goto out;
    }
    /* Other shards' files are expected in a shard's folder; only its own file, or for
     * a whole sweep any record, means this command was already run here. */
    if ((s->opt.sharded ? have_own : have_any) && !s->opt.resume) {
        if (s->opt.sharded)
            rc = dp_err_set(err, DP_ESTATE, "%s already holds %zu run records of shard %u/%u",
                            s->dir, json_array_size(own), s->opt.shard.index, s->opt.shard.count);
        else
            rc = dp_err_set(err, DP_ESTATE, "%s already holds %zu run records", s->dir,
                            json_array_size(records));
        dp_err_hint(err, "pass --resume to run only the missing runs, or --out DIR to start a new folder");
        goto out;
    }
    /* The manifest: a shard checks it even in a folder without records yet, since
     * another shard of a different grid may have started there a moment ago. */
    snprintf(path, sizeof path, "%s/sweep.json", s->dir);
    old = json_load_file(path, 0, NULL);
    const char *old_scale = old ? json_string_value(json_object_get(old, "scale")) : NULL;
    const char *new_scale = s->opt.scale;
    if (old && (have_any || s->opt.sharded) &&
        strcmp(old_scale ? old_scale : "", new_scale ? new_scale : "") != 0) {
        /* no --scale is the config as written: the full scale */
        rc = dp_err_set(err, DP_ESTATE, "%s holds a sweep at scale %s; this command plans scale %s",
                        s->dir, old_scale ? old_scale : "full", new_scale ? new_scale : "full");
        if (old_scale)
            dp_err_hint(err, "pass --scale %s to continue it, or --out DIR for this sweep",
                        old_scale);
        else
            dp_err_hint(err, "leave out --scale to continue it, or use --out DIR for this sweep");
        goto out;
    }
    if (old && (have_any || s->opt.sharded) &&
        !json_equal(json_object_get(old, "ids"), json_object_get(manifest, "ids"))) {
        if (s->opt.sharded) {
            /* shards of one submission must agree on the grid they split */
            rc = dp_err_set(err, DP_ESTATE, "%s: the expanded grid differs from the one this "
                            "folder's shards were started with", s->opt.config);
            dp_err_hint(err, "change a sharded sweep's grid between submissions only after "
                        "`dperm merge`; or use --out DIR for the new grid");
            goto out;
        }
        /* An edited grid extends the sweep: its new runs run, its recorded ones stay done,
         * and records of runs no longer in it are kept but left out of reports. */
        grid_change_note(json_object_get(manifest, "ids"), records);
    }

    /* Done = the last record of an id says ok or diverged; failed runs (record_failed:
     * a missing or unknown status too) are retried. */
    size_t n_failed_records = 0, n = s->g.n;
    done = calloc(n + 1, sizeof *done);
    from = calloc(n + 1, sizeof *from);
    trainer = malloc((n + 1) * sizeof *trainer);
    now = malloc((n + 1) * sizeof *now);
    s->copy_of = malloc((n + 1) * sizeof *s->copy_of);
    if (!done || !from || !trainer || !now || !s->copy_of) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t r = 0; records && r < json_array_size(records); r++) {
            json_t *rec = json_array_get(records, r);
            if (strcmp(json_string_value(json_object_get(rec, "id")) ?: "", s->g.runs[i].id) != 0)
                continue;
            done[i] = record_failed(rec) ? NULL : rec;
        }
        if (done[i] && !from[s->group[i]]) from[s->group[i]] = done[i];
        trainer[i] = s->copy_of[i] = SIZE_MAX;
    }
    /* A group of runs that train alike (shared_runs.h) trains once: an undone run copies
     * a done member's record now, else the group's first undone run trains and the
     * others copy its record when it arrives (job_done). */
    *n_todo = 0;
    for (size_t i = 0; i < n; i++) {
        size_t g = s->group[i];
        if (done[i]) continue;
        if (from[g]) now[n_now++] = i;
        else if (trainer[g] == SIZE_MAX) todo[(*n_todo)++] = trainer[g] = i;
        else s->copy_of[i] = trainer[g];
    }
    for (size_t r = 0; own && r < json_array_size(own); r++)
        n_failed_records += (size_t)record_failed(json_array_get(own, r));

    /* The folder holding the experiment's is a results root dperm may index when dperm
     * makes it now, or when it is the default results/ (html.h). */
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", s->dir);
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(parent, sizeof parent, ".");
    int parent_existed = access(parent, F_OK) == 0;
    rc = store_mkdirs(s->dir, err);
    if (rc) goto out;
    if (!parent_existed || !s->opt.out) {
        snprintf(path, sizeof path, "%s/%s", parent, HTML_RESULTS_MARK);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd); /* a mark that cannot be made only means no index */
    }
    if (s->opt.sharded)
        snprintf(s->tmpdir, sizeof s->tmpdir, "%s/.work.%u-of-%u", s->dir, s->opt.shard.index,
                 s->opt.shard.count);
    else
        snprintf(s->tmpdir, sizeof s->tmpdir, "%s/.work", s->dir);
    rc = store_mkdirs(s->tmpdir, err);
    if (rc) goto out;
    /* Left by a kill between writing and renaming a file: never read, only in the way. */
    store_remove_stale_temps(s->dir);
    store_remove_stale_temps(s->tmpdir);
    /* The config as given (report reads it) and the manifest, each replaced atomically. */
    char *text;
    size_t len;
    if (read_text(s->opt.config, &text, &len) != 0) {
        rc = dp_err_set(err, DP_EIO, "cannot read %s: %s", s->opt.config, strerror(errno));
        goto out;
    }
    rc = write_configs(s, text, len, err);
    free(text);
    if (rc) goto out;
    /* Shards of one grid write the same bytes; once there, their manifest stays. */
    if (!(old && s->opt.sharded)) {
        char *mtext = store_json_dumps(manifest, 0);
        if (!mtext) {
            rc = dp_err_set(err, DP_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(path, sizeof path, "%s/sweep.json", s->dir);
        rc = store_write_atomic(path, mtext, strlen(mtext), err);
        free(mtext);
        if (rc) goto out;
    }

    /* Retried failures are dropped from this process's file first (atomically), so the
     * file keeps one line per id. */
    if (n_failed_records > 0) {
        char *buf = NULL;
        size_t blen = 0;
        FILE *f = open_memstream(&buf, &blen);
        for (size_t r = 0; f && r < json_array_size(own); r++) {
            json_t *rec = json_array_get(own, r);
            if (record_failed(rec)) continue;
            char *line = store_json_dumps(rec, 0);
            if (line) fprintf(f, "%s\n", line);
            free(line);
        }
        if (!f || fclose(f) != 0) {
            free(buf);
            rc = dp_err_set(err, DP_ENOMEM, "out of memory");
            goto out;
        }
        rc = store_write_atomic(s->runs_path, buf, blen, err);
        free(buf);
        if (rc) goto out;
    } else if (have_own) {
        /* A kill mid-append can leave a final line without newline: cut it off so the
         * next append starts on a fresh line. */
        struct stat st;
        if (stat(s->runs_path, &st) == 0 && st.st_size > 0) {
            FILE *f = fopen(s->runs_path, "r+b");
            if (f) {
                off_t keep = st.st_size;
                char ch;
                while (keep > 0 && fseeko(f, keep - 1, SEEK_SET) == 0 && fread(&ch, 1, 1, f) == 1 && ch != '\n')
                    keep--;
                fclose(f);
                if (keep != st.st_size && truncate(s->runs_path, keep) != 0) {
                    rc = dp_err_set(err, DP_EIO, "cannot repair %s: %s", s->runs_path, strerror(errno));
                    goto out;
                }
            }
        }
    }
    s->fd = open(s->runs_path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (s->fd < 0) rc = dp_err_set(err, DP_EIO, "cannot open %s: %s", s->runs_path, strerror(errno));
    for (size_t k = 0; rc == 0 && k < n_now; k++) {
        json_t *copy = shared_runs_copy(from[s->group[now[k]]], &s->g.runs[now[k]]);
        rc = copy ? store_append_record(s->fd, s->runs_path, copy, err)
                  : dp_err_set(err, DP_ENOMEM, "out of memory");
        json_decref(copy);
        s->n_copied += rc == 0;
    }
out:
    free(done);
    free(from);
    free(trainer);
    free(now);
    json_decref(records);
    json_decref(own);
    json_decref(old);
    json_decref(manifest);
    return rc;
}

/* ---- workers ------------------------------------------------------------------------- */

static json_t *run_job(size_t job, void *ctx)
{
    sweep *s = ctx;
    /* Fault injection for the tests of the failure path (SQLite's habit): the worker of
     * the run with this grid number (1-based, as --dry-run shows) crashes. */
    const char *crash = getenv("DPERM_TEST_CRASH_RUN");
    if (crash && strtoul(crash, NULL, 10) == s->g.runs[job].index + 1) abort();
    return runner_execute(&s->g.runs[job], &s->specs[job]);
}

/* A record for a worker that died without writing one. */
static json_t *failed_record(const sweep *s, size_t job, const char *failure)
{
    char now[32];
    provenance_utc_now(now, sizeof now);
    json_t *prov = provenance_json();
    if (prov) json_object_set_new(prov, "finished", json_string(now));
    return json_pack("{s:i, s:s, s:I, s:s, s:s, s:s, s:o, s:{}, s:{}, s:o*}",
                     "schema", RECORD_SCHEMA,
                     "id", s->g.runs[job].id,
                     "index", (json_int_t)s->g.runs[job].index,
                     "experiment", s->specs[job].experiment,
                     "status", "failed",
                     "message", failure,
                     "config", cfg_to_json(s->g.runs[job].config),
                     "metrics", "curves",
                     "provenance", prov);
}

static int job_done(size_t job, json_t *record, const char *failure, void *ctx, dp_err *err)
{
    sweep *s = ctx;
    json_t *own = NULL;
    if (!record) record = own = failed_record(s, job, failure);
    if (!record) return dp_err_set(err, DP_ENOMEM, "out of memory");
    int rc = store_append_record(s->fd, s->runs_path, record, err);
    /* the runs that train what this one trained: copies of its record (a failed one
     * too, so that --resume retries the group together) */
    for (size_t j = job + 1; rc == 0 && s->copy_of && j < s->g.n; j++) {
        if (s->copy_of[j] != job) continue;
        json_t *copy = shared_runs_copy(record, &s->g.runs[j]);
        rc = copy ? store_append_record(s->fd, s->runs_path, copy, err)
                  : dp_err_set(err, DP_ENOMEM, "out of memory");
        json_decref(copy);
        s->n_copied += rc == 0;
        if (rc == 0 && record_failed(record) && !s->specs[j].data_missing[0]) s->n_failed++;
    }
    const char *status = record_status(record);
    char detail[300];
    json_t *m = json_object_get(record, "metrics");
    if (strcmp(status, "failed") == 0) {
        /* a run of an optional dataset that is not here failed by design: the report
         * shows it as data missing, and it does not fail the sweep */
        if (!s->specs[job].data_missing[0]) s->n_failed++;
        snprintf(detail, sizeof detail, "%s",
                 json_string_value(json_object_get(record, "message")) ?: "failed");
    } else {
        /* a classifier's accuracy, or a regression model's rmse */
        const char *key = json_is_number(json_object_get(m, "test_accuracy")) ? "test_accuracy"
                                                                               : "test_rmse";
        double v = json_number_value(json_object_get(m, key));
        /* "of TARGET" only for a run calibrated to an epsilon (one given its noise
         * multiplier has no target: its metrics.epsilon is null) */
        if (json_is_number(json_object_get(m, "epsilon_spent")) &&
            json_is_number(json_object_get(m, "epsilon")))
            snprintf(detail, sizeof detail, "%s=%.4f epsilon_spent=%.4g of %.4g (%.1fs)", key, v,
                     json_number_value(json_object_get(m, "epsilon_spent")),
                     json_number_value(json_object_get(m, "epsilon")),
                     json_number_value(json_object_get(m, "wall_seconds")));
        else if (json_is_number(json_object_get(m, "epsilon_spent")))
            snprintf(detail, sizeof detail, "%s=%.4f epsilon_spent=%.4g (%.1fs)", key, v,
                     json_number_value(json_object_get(m, "epsilon_spent")),
                     json_number_value(json_object_get(m, "wall_seconds")));
        else
            snprintf(detail, sizeof detail, "%s=%.4f (%.1fs)", key, v,
                     json_number_value(json_object_get(m, "wall_seconds")));
    }
    progress_run_done(&s->prog, s->g.runs[job].id, status, detail);
    json_decref(own);
    return rc;
}

/* ---- command ------------------------------------------------------------------------- */

int cli_run(int argc, char **argv)
{
    sweep s;
    memset(&s, 0, sizeof s);
    s.fd = -1;
    int rc = parse_args(argc, argv, &s.opt);
    if (rc) {
        free(s.opt.only);
        return rc;
    }
    dp_err err;
    dp_err_clear(&err);
    size_t *todo = NULL, n_todo = 0;
    int status = EXIT_OK;
    int sweep_started = 0;

    rc = prepare(&s, &err);
    if (rc) goto fail;
    if (s.opt.sharded && (rc = select_shard(&s, &err))) goto fail;
    if ((rc = shared_runs_group(s.g.runs, s.specs, s.g.n, &s.group, &s.n_shared, &err)))
        goto fail;
    if (s.opt.dry_run) {
        dry_run(&s);
        goto done;
    }
    /* F(w*) of the runs that record an optimality gap, once per problem, before fork. */
    rc = optimality_prepare(s.specs, s.g.runs, s.g.n, &err);
    if (rc) goto fail;
    todo = calloc(s.g.n ? s.g.n : 1, sizeof *todo);
    if (!todo) {
        rc = dp_err_set(&err, DP_ENOMEM, "out of memory");
        goto fail;
    }
    rc = open_folder(&s, todo, &n_todo, &err);
    if (rc) goto fail;
    sweep_started = 1; /* from here an I/O error leaves earlier records in place */

    size_t n_later = 0;   /* runs whose records copy a run of this command's */
    for (size_t i = 0; i < s.g.n; i++) n_later += s.copy_of[i] != SIZE_MAX;
    size_t n_recorded = s.g.n - n_todo - n_later; /* copies of recorded runs included */
    if (!s.opt.quiet && (n_recorded || s.opt.resume))
        fprintf(stderr, "dperm: %zu of %zu runs already recorded in %s; running %zu\n",
                n_recorded, s.g.n, s.dir, n_todo);
    if (!s.opt.quiet && n_later + s.n_copied)
        fprintf(stderr, "dperm: %zu runs train what another run trains (a non-private run "
                "does not depend on epsilon): their records copy it, marked same_run_as\n",
                n_later + s.n_copied);
    progress_init(&s.prog, stderr, n_todo, s.opt.quiet);
    int workers = s.opt.jobs < (int)n_todo ? s.opt.jobs : (int)(n_todo ? n_todo : 1);
    pool_opts po = {.workers = workers,
                    .blas_threads = blas_env_threads_per_worker(workers),
                    .tmpdir = s.tmpdir};
    rc = pool_run(todo, n_todo, &po, run_job, job_done, &s, &err);
    progress_finish(&s.prog);
    close(s.fd);
    s.fd = -1;
    /* Again now: a worker of a killed sweep can still be dying when this one starts, and
     * its temporary outlives the first sweep of them; by now it is surely gone. */
    store_remove_stale_temps(s.tmpdir);
    rmdir(s.tmpdir);

    /* summary.csv reflects everything recorded, even after an interrupt. Shards leave
     * it to `dperm merge`: N processes rewriting one file from each other's half-written
     * records would be wasted work. */
    dp_err serr;
    int src = s.opt.sharded ? 0 : summary_write(s.dir, &serr);
    if (rc) goto fail;
    if (src) {
        cli_print_error(&serr);
        status = EXIT_RUNS_FAILED;
    }
    if (!s.opt.quiet && s.opt.sharded)
        printf("dperm: shard %u/%u: %zu runs done in %s (%zu ok, %zu diverged, %zu failed); "
               "when every shard is done: dperm merge %s\n",
               s.opt.shard.index, s.opt.shard.count, s.prog.done, s.runs_path,
               s.prog.done - s.prog.failed - s.prog.diverged, s.prog.diverged, s.prog.failed,
               s.dir);
    else if (!s.opt.quiet) {
        char copied[96] = "";
        if (s.n_copied)
            snprintf(copied, sizeof copied, "; %zu more recorded as copies of runs that train "
                     "alike", s.n_copied);
        printf("dperm: %zu runs done in %s (%zu ok, %zu diverged, %zu failed%s); "
               "tables and figures: dperm report %s\n",
               s.prog.done, s.dir, s.prog.done - s.prog.failed - s.prog.diverged,
               s.prog.diverged, s.prog.failed, copied, s.dir);
    }
    if (s.n_failed) status = EXIT_RUNS_FAILED;
    goto done;

fail:
    /* Disk full or file size limit mid-sweep: every record written so far is whole and
     * kept, the run that could not be recorded is missing, so --resume finishes the sweep
     * once there is room. */
    char again[3 * PATH_MAX + 1024];
    continue_command(&s, again, sizeof again);
    if (rc == DP_EIO && sweep_started && !err.hint[0])
        dp_err_hint(&err, "the records already in %s are kept; make room, then `%s` runs the "
                    "rest", s.dir, again);
    cli_print_error(&err);
    if (rc == DP_ESTATE && strstr(err.msg, "interrupted")) {
        fprintf(stderr, "dperm: %zu runs recorded in %s; `%s` continues\n", s.prog.done, s.dir,
                again);
        status = 130;
    } else if (rc == DP_EIO && sweep_started) {
        status = EXIT_RUNS_FAILED;
    } else {
        status = (rc == DP_ECONFIG || rc == DP_EINVAL || rc == DP_EDATA || rc == DP_ESTATE ||
                  rc == DP_EPRIVACY || rc == DP_EIO)
                     ? EXIT_USAGE
                     : EXIT_RUNS_FAILED;
    }
done:
    if (s.fd >= 0) close(s.fd);
    free(s.group);
    free(s.copy_of);
    free(todo);
    free(s.specs);
    free(s.cost);
    data_cache_destroy(&s.data);
    grid_destroy(&s.g);
    cfg_doc_destroy(&s.doc);
    free(s.opt.only);
    return status;
}
