/* cli_run.c: `dperm run CONFIG`: parse, expand, validate and calibrate every run, then
 * execute the missing ones in worker processes and record them.
 *
 * Order matters for "nothing lost, nothing half-written": every run is validated and
 * calibrated before the results folder is touched, so a config error exits 2 having
 * written nothing; records are appended one whole line at a time by this process only;
 * summary.csv is replaced atomically at the end.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/report/aggregate.h"
#include "harness/env/blas_env.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_run_int.h"
#include "harness/config/config.h"
#include "harness/sweep/data_cache.h"
#include "harness/store/flat.h"
#include "harness/grid/grid.h"
#include "harness/report/html.h"
#include "harness/sweep/optimality.h"
#include "harness/sweep/plan.h"
#include "harness/sweep/pool.h"
#include "harness/sweep/progress.h"
#include "harness/env/provenance.h"
#include "harness/report/reference.h"
#include "harness/report/report_names.h"
#include "harness/sweep/runner.h"
#include "harness/sweep/shard.h"
#include "harness/sweep/shared_runs.h"
#include "harness/spec/spec.h"
#include "harness/store/record.h"
#include "harness/store/folder.h"
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
    if (rc == 0) rc = ref_check_document(s->doc.root, err);
    if (rc == 0)
        rc = grid_expand(s->doc.root, s->opt.scale, s->opt.only, s->opt.n_only, &s->g, err);
    if (rc == 0) rc = check_report_names(s, err);
    if (rc) return rc;
    s->specs = calloc(s->g.n ? s->g.n : 1, sizeof *s->specs);
    if (!s->specs) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < s->g.n; i++)
        rc = plan_run(s->g.runs[i].config, &s->data, s->specs, i, &s->specs[i], err);
    if (rc == 0) rc = pate_teachers_check(s->specs, s->g.runs, s->g.n, &s->data, err);
    if (rc) return rc;
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

/* The estimated cost of each of the sweep's n runs (shard.h's proxy) into cost (n): a
 * run that trains what an earlier one trains costs nothing, it goes with that run. */
static int estimate_costs(const sweep *s, uint64_t *cost, size_t **group_out, dp_err *err)
{
    size_t n = s->g.n, n_shared, *group = NULL;
    uint64_t *work = calloc(n ? n : 1, sizeof *work);
    if (!work) return dp_err_set(err, DP_ENOMEM, "out of memory");
    int rc = shared_runs_group(s->g.runs, s->specs, n, &group, &n_shared, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t j = 0;
        while (j < i && !same_model(&s->specs[j], &s->specs[i])) j++;
        work[i] = j < i ? work[j] : shard_model_work(&s->specs[i]);
        cost[i] = group[i] != i ? 0 : shard_run_cost(&s->specs[i], work[i]);
    }
    free(work);
    if (rc == 0 && group_out) *group_out = group;
    else free(group);
    return rc;
}

/* --shard I/N: keep this shard's runs (in grid order) and their estimated costs. The
 * partition is computed over the runs after --only, so every shard process must be given
 * the same --scale and --only (dperm slurm's script does). */
static int select_shard(sweep *s, dp_err *err)
{
    size_t n = s->g.n, *group = NULL;
    uint64_t *cost = calloc(n ? n : 1, sizeof *cost);
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    unsigned *owner = calloc(n ? n : 1, sizeof *owner);
    int rc = 0;
    if (!cost || !ids || !owner) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = estimate_costs(s, cost, &group, err))) goto out;
    for (size_t i = 0; i < n; i++) ids[i] = s->g.runs[i].id;
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
    free(ids);
    free(owner);
    return rc;
}

/* Longest first: the runs to do ordered by estimated cost, largest first (grid order among
 * equals), so that the last runs of a sweep are short ones and no worker sits idle
 * beside one long run at the end (greedy longest-processing-time, as shard.h). Each run
 * is seeded by its own config, so the order changes no record. */
static const uint64_t *g_order_cost;

static int by_cost_desc(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint64_t cx = g_order_cost[x], cy = g_order_cost[y];
    if (cx != cy) return cx > cy ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int order_longest_first(sweep *s, size_t *todo, size_t n_todo, dp_err *err)
{
    if (n_todo < 2) return 0;
    if (!s->cost) {
        if (!(s->cost = calloc(s->g.n, sizeof *s->cost)))
            return dp_err_set(err, DP_ENOMEM, "out of memory");
        int rc = estimate_costs(s, s->cost, NULL, err);
        if (rc) return rc;
    }
    g_order_cost = s->cost;
    qsort(todo, n_todo, sizeof *todo, by_cost_desc);
    g_order_cost = NULL;
    return 0;
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
    return record_new_failed(s->g.runs[job].id, s->g.runs[job].index, s->specs[job].experiment,
                             failure, cfg_to_json(s->g.runs[job].config), prov);
}

static int job_done(size_t job, json_t *record, const char *failure, void *ctx, dp_err *err)
{
    sweep *s = ctx;
    json_t *own = NULL;
    if (!record) record = own = failed_record(s, job, failure);
    if (!record) return dp_err_set(err, DP_ENOMEM, "out of memory");
    int rc = store_append_record(s->folder.fd, s->folder.runs_path, record, err);
    /* the runs that train what this one trained: copies of its record (a failed one
     * too, so that --resume retries the group together) */
    for (size_t j = job + 1; rc == 0 && s->copy_of && j < s->g.n; j++) {
        if (s->copy_of[j] != job) continue;
        json_t *copy = shared_runs_copy(record, &s->g.runs[j]);
        rc = copy ? store_append_record(s->folder.fd, s->folder.runs_path, copy, err)
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

/* The last line: what was done where, and what to run next. */
static void print_done(const sweep *s)
{
    if (s->opt.quiet) return;
    if (s->opt.sharded) {
        printf("dperm: shard %u/%u: %zu runs done in %s (%zu ok, %zu diverged, %zu failed); "
               "when every shard is done: dperm merge %s\n",
               s->opt.shard.index, s->opt.shard.count, s->prog.done, s->folder.runs_path,
               s->prog.done - s->prog.failed - s->prog.diverged, s->prog.diverged,
               s->prog.failed, s->dir);
        return;
    }
    char copied[96] = "";
    if (s->n_copied)
        snprintf(copied, sizeof copied, "; %zu more recorded as copies of runs that train "
                 "alike", s->n_copied);
    printf("dperm: %zu runs done in %s (%zu ok, %zu diverged, %zu failed%s); "
           "tables and figures: dperm report %s\n",
           s->prog.done, s->dir, s->prog.done - s->prog.failed - s->prog.diverged,
           s->prog.diverged, s->prog.failed, copied, s->dir);
}

/* Run todo[0..n_todo) in the workers, recording each as it arrives (job_done). */
static int execute(sweep *s, size_t *todo, size_t n_todo, dp_err *err)
{
    size_t n_later = 0;   /* runs whose records copy a run of this command's */
    for (size_t i = 0; i < s->g.n; i++) n_later += s->copy_of[i] != SIZE_MAX;
    size_t n_recorded = s->g.n - n_todo - n_later; /* copies of recorded runs included */
    if (!s->opt.quiet && (n_recorded || s->opt.resume))
        fprintf(stderr, "dperm: %zu of %zu runs already recorded in %s; running %zu\n",
                n_recorded, s->g.n, s->dir, n_todo);
    if (!s->opt.quiet && n_later + s->n_copied)
        fprintf(stderr, "dperm: %zu runs train what another run trains (a non-private run "
                "does not depend on epsilon): their records copy it, marked same_run_as\n",
                n_later + s->n_copied);
    progress_init(&s->prog, stderr, n_todo, s->opt.quiet);
    int workers = s->opt.jobs < (int)n_todo ? s->opt.jobs : (int)(n_todo ? n_todo : 1);
    pool_opts po = {.workers = workers,
                    .threads = blas_env_threads_per_worker(workers),
                    .tmpdir = s->folder.work_path};
    int rc = pool_run(todo, n_todo, &po, run_job, job_done, s, err);
    progress_finish(&s->prog);
    close(s->folder.fd);
    s->folder.fd = -1;
    /* Again now: a worker of a killed sweep can still be dying when this one starts, and
     * its temporary outlives the first sweep of them; by now it is surely gone. */
    store_remove_stale_temps(s->folder.work_path);
    rmdir(s->folder.work_path);
    return rc;
}

/* The exit status of a sweep stopped by rc (err says why, printed here with a hint). */
static int failure_status(sweep *s, int rc, int sweep_started, dp_err *err)
{
    /* Disk full or file size limit mid-sweep: every record written so far is whole and
     * kept, the run that could not be recorded is missing, so --resume finishes the sweep
     * once there is room. */
    char again[3 * PATH_MAX + 1024];
    cli_run_continue_command(s, again, sizeof again);
    if (rc == DP_EIO && sweep_started && !err->hint[0])
        dp_err_hint(err, "the records already in %s are kept; make room, then `%s` runs the "
                    "rest", s->dir, again);
    cli_print_error(err);
    if (rc == DP_ESTATE && strstr(err->msg, "interrupted")) {
        fprintf(stderr, "dperm: %zu runs recorded in %s; `%s` continues\n", s->prog.done, s->dir,
                again);
        return 130;
    }
    if (rc == DP_EIO && sweep_started) return EXIT_RUNS_FAILED;
    return rc == DP_ECONFIG || rc == DP_EINVAL || rc == DP_EDATA || rc == DP_ESTATE ||
                   rc == DP_EPRIVACY || rc == DP_EIO
               ? EXIT_USAGE
               : EXIT_RUNS_FAILED;
}

int cli_run(int argc, char **argv)
{
    sweep s;
    memset(&s, 0, sizeof s);
    s.folder.fd = -1;
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
    rc = cli_run_open_folder(&s, todo, &n_todo, &err);
    if (rc) goto fail;
    sweep_started = 1; /* from here an I/O error leaves earlier records in place */
    /* PATE's teachers, trained once per ensemble, before the runs that read their votes */
    rc = pate_teachers_prepare(s.specs, s.g.runs, todo, n_todo, &s.data, s.dir, s.opt.jobs,
                               s.opt.quiet ? NULL : stderr, &s.teachers, &err);
    if (rc == 0) rc = order_longest_first(&s, todo, n_todo, &err);
    if (rc == 0) rc = execute(&s, todo, n_todo, &err);

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
    print_done(&s);
    if (s.n_failed) status = EXIT_RUNS_FAILED;
    goto done;

fail:
    status = failure_status(&s, rc, sweep_started, &err);
done:
    store_sweep_close(&s.folder);
    pate_teachers_destroy(&s.teachers);
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
