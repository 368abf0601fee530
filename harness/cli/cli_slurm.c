/* cli_slurm.c: `dperm slurm CONFIG`: a Slurm job array that runs a grid in shards, and
 * a dependent job that merges and reports.
 *
 * dperm runs on Slurm as it is, with nothing of its own on the cluster: array task I
 * runs `dperm run CONFIG --shard I/N --resume` with the same binary and config (absolute
 * paths, so the jobs may start in any folder of a shared file system), each shard writing
 * its own runs.I-of-N.jsonl. --resume makes a re-submission after a partial failure run
 * only the missing runs. The report job waits for the whole array (afterok) and runs
 * `dperm merge` then `dperm report`.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/config/config.h"
#include "harness/grid/grid.h"
#include "harness/sweep/shard.h"
#include "harness/report/reference.h"
#include "harness/spec/spec.h"
#include "harness/sweep/plan.h"
#include "harness/store/store.h"

static const char SLURM_HELP[] =
    "usage: dperm slurm CONFIG.yaml [options]\n"
    "\n"
    "Write a Slurm batch script running the grid of CONFIG as a job array (task I runs\n"
    "`dperm run CONFIG --shard I/N --resume`), and a report job that runs after every task\n"
    "succeeded (`dperm merge DIR` then `dperm report DIR`). Scripts go to DIR/slurm/, task\n"
    "logs to DIR/slurm/logs/. Submitting again after a partial failure runs only the\n"
    "missing runs.\n"
    "\n"
    "options:\n"
    "      --shards N           array tasks (default: the number of runs, at most 64)\n"
    "      --runs-per-task K    instead of --shards: N = ceil(runs / K)\n"
    "      --max-parallel M     at most M tasks at once (--array=0-(N-1)%M; default N)\n"
    "      --partition P        sbatch --partition\n"
    "      --time T             sbatch --time per task (e.g. 30, 2:00:00, 1-12)\n"
    "      --cpus-per-task C    sbatch --cpus-per-task, and dperm run -j C (default 1)\n"
    "      --mem M              sbatch --mem per task (e.g. 4G)\n"
    "      --sbatch-arg ARG     any other sbatch option, for both jobs; repeatable\n"
    "                           (e.g. --sbatch-arg=--account=proj)\n"
    "  -o, --out DIR            results folder (default: results/<experiment>)\n"
    "      --scale NAME         passed to dperm run\n"
    "      --only KEY=VALUE     passed to dperm run; repeatable\n"
    "      --data-dir DIR       passed to dperm run\n"
    "      --submit             submit both with sbatch and print the job ids\n"
    "  -h, --help               this text\n"
    "\n"
    "exit status: 0 written (and submitted); 2 usage or config error, or sbatch failed.\n";

enum { DEFAULT_MAX_SHARDS = 64, MAX_ARGS = 64 };

typedef struct slurm_opts {
    const char *config, *out, *partition, *time, *mem, *scale, *data_dir;
    long shards, runs_per_task, max_parallel, cpus;
    const char *sbatch_args[MAX_ARGS];
    size_t n_sbatch;
    const char *only[MAX_ARGS];
    size_t n_only;
    int submit;
} slurm_opts;

static int parse_count(const char *flag, const char *v, long max, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < 1 || x > max)
        return cli_usage_error("slurm", "%s takes a whole number from 1 to %ld, got '%s'", flag, max, v);
    *out = x;
    return 0;
}

/* Values that end up on an #SBATCH line: one token, no shell or line breaks. */
static int check_token(const char *flag, const char *v, const char *allowed)
{
    if (!*v) return cli_usage_error("slurm", "%s needs a value", flag);
    for (const char *p = v; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr(allowed, *p))
            return cli_usage_error("slurm", "%s: '%s' has a character sbatch would not take ('%c')",
                                   flag, v, *p);
    return 0;
}

static int parse_args(int argc, char **argv, slurm_opts *o)
{
    enum { O_SHARDS = 256, O_RPT, O_MAXPAR, O_PART, O_TIME, O_CPUS, O_MEM, O_SBATCH, O_SCALE,
           O_ONLY, O_DATA, O_SUBMIT };
    static const struct option longopts[] = {
        {"shards", required_argument, 0, O_SHARDS},
        {"runs-per-task", required_argument, 0, O_RPT},
        {"max-parallel", required_argument, 0, O_MAXPAR},
        {"partition", required_argument, 0, O_PART},
        {"time", required_argument, 0, O_TIME},
        {"cpus-per-task", required_argument, 0, O_CPUS},
        {"mem", required_argument, 0, O_MEM},
        {"sbatch-arg", required_argument, 0, O_SBATCH},
        {"out", required_argument, 0, 'o'},
        {"scale", required_argument, 0, O_SCALE},
        {"only", required_argument, 0, O_ONLY},
        {"data-dir", required_argument, 0, O_DATA},
        {"submit", no_argument, 0, O_SUBMIT},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->cpus = 1;
    int c, rc = 0;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case O_SHARDS: rc = parse_count("--shards", optarg, SHARD_MAX, &o->shards); break;
        case O_RPT: rc = parse_count("--runs-per-task", optarg, 1000000000L, &o->runs_per_task); break;
        case O_MAXPAR: rc = parse_count("--max-parallel", optarg, SHARD_MAX, &o->max_parallel); break;
        case O_CPUS: rc = parse_count("--cpus-per-task", optarg, 1024, &o->cpus); break;
        case O_PART: o->partition = optarg; rc = check_token("--partition", optarg, "_-.,"); break;
        case O_TIME: o->time = optarg; rc = check_token("--time", optarg, ":-"); break;
        case O_MEM: o->mem = optarg; rc = check_token("--mem", optarg, ""); break;
        case O_SBATCH:
            if (optarg[0] != '-' || strpbrk(optarg, "\n\r"))
                return cli_usage_error("slurm", "--sbatch-arg takes one sbatch option such as "
                                       "--account=NAME, got '%s'", optarg);
            if (o->n_sbatch == MAX_ARGS) return cli_usage_error("slurm", "too many --sbatch-arg");
            o->sbatch_args[o->n_sbatch++] = optarg;
            break;
        case 'o': o->out = optarg; break;
        case O_SCALE: o->scale = optarg; break;
        case O_ONLY:
            if (!strchr(optarg, '=') || optarg[0] == '=')
                return cli_usage_error("slurm", "--only takes KEY=VALUE, got '%s'", optarg);
            if (o->n_only == MAX_ARGS) return cli_usage_error("slurm", "too many --only");
            o->only[o->n_only++] = optarg;
            break;
        case O_DATA: o->data_dir = optarg; break;
        case O_SUBMIT: o->submit = 1; break;
        case 'h': fputs(SLURM_HELP, stdout); exit(EXIT_OK);
        case ':': return cli_usage_error("slurm", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("slurm", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (o->shards && o->runs_per_task)
        return cli_usage_error("slurm", "give either --shards or --runs-per-task, not both");
    if (optind >= argc) return cli_usage_error("slurm", "missing CONFIG.yaml");
    if (optind + 1 < argc) return cli_usage_error("slurm", "unexpected argument '%s'", argv[optind + 1]);
    o->config = argv[optind];
    return 0;
}

/* ---- scripts --------------------------------------------------------------------------- */

/* s in single quotes for sh ('\'' for a quote inside). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* The #SBATCH lines both jobs share. */
static void common_lines(FILE *f, const slurm_opts *o)
{
    if (o->partition) fprintf(f, "#SBATCH --partition=%s\n", o->partition);
    if (o->time) fprintf(f, "#SBATCH --time=%s\n", o->time);
    if (o->mem) fprintf(f, "#SBATCH --mem=%s\n", o->mem);
    for (size_t i = 0; i < o->n_sbatch; i++) fprintf(f, "#SBATCH %s\n", o->sbatch_args[i]);
}

typedef struct paths {
    char exe[PATH_MAX], config[PATH_MAX], dir[PATH_MAX], data_dir[PATH_MAX];
    char array_script[PATH_MAX + 32], report_script[PATH_MAX + 32], logs[PATH_MAX + 16];
} paths;

static char *array_script(const slurm_opts *o, const paths *p, const char *exp, size_t n_runs,
                          long n, long max_par, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    fprintf(f, "#!/bin/sh\n"
               "# Written by `dperm slurm`: experiment %s, %zu runs in %ld shards.\n"
               "# Task I runs shard I/%ld into runs.I-of-%ld.jsonl; --resume skips runs already\n"
               "# recorded, so submitting this again after a failure runs only what is missing.\n",
            exp, n_runs, n, n, n);
    fprintf(f, "#SBATCH --job-name=dperm-%s\n", exp);
    fprintf(f, "#SBATCH --array=0-%ld%%%ld\n", n - 1, max_par);
    fprintf(f, "#SBATCH --cpus-per-task=%ld\n", o->cpus);
    fprintf(f, "#SBATCH --output=%s/%%x-%%A_%%a.out\n", p->logs);
    common_lines(f, o);
    fputs("exec ", f);
    put_quoted(f, p->exe);
    fputs(" run ", f);
    put_quoted(f, p->config);
    fprintf(f, " --shard \"$SLURM_ARRAY_TASK_ID/%ld\" -j \"${SLURM_CPUS_PER_TASK:-%ld}\" --resume --out ",
            n, o->cpus);
    put_quoted(f, p->dir);
    if (o->scale) {
        fputs(" --scale ", f);
        put_quoted(f, o->scale);
    }
    for (size_t i = 0; i < o->n_only; i++) {
        fputs(" --only ", f);
        put_quoted(f, o->only[i]);
    }
    if (o->data_dir) {
        fputs(" --data-dir ", f);
        put_quoted(f, p->data_dir);
    }
    fputc('\n', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *report_script(const slurm_opts *o, const paths *p, const char *exp, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    fprintf(f, "#!/bin/sh\n"
               "# Written by `dperm slurm`: merges the shards of experiment %s and reports.\n"
               "# Submitted with --dependency=afterok on the array; if a task fails, Slurm\n"
               "# cancels this job (--kill-on-invalid-dep) and a re-submission makes a new one.\n",
            exp);
    fprintf(f, "#SBATCH --job-name=dperm-%s-report\n", exp);
    fputs("#SBATCH --cpus-per-task=1\n#SBATCH --kill-on-invalid-dep=yes\n", f);
    fprintf(f, "#SBATCH --output=%s/%%x-%%j.out\n", p->logs);
    common_lines(f, o);
    /* merge exits 1 when runs are missing or failed (e.g. a grid run with --only): the
     * report of what is there is still wanted; 2 (conflicting results) stops. */
    fputs("DPERM=", f);
    put_quoted(f, p->exe);
    fputs("\nDIR=", f);
    put_quoted(f, p->dir);
    fputs("\n\"$DPERM\" merge \"$DIR\"\nstatus=$?\n"
          "if [ \"$status\" -gt 1 ]; then exit \"$status\"; fi\n"
          "exec \"$DPERM\" report \"$DIR\"\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- sbatch ---------------------------------------------------------------------------- */

/* Run sbatch --parsable [--dependency=afterok:DEP] SCRIPT; the job id into id. */
static int sbatch(const char *script, const char *dep, char *id, size_t size, dp_err *err)
{
    int fds[2];
    if (pipe(fds) != 0) return dp_err_set(err, DP_EIO, "pipe: %s", strerror(errno));
    char depopt[96];
    snprintf(depopt, sizeof depopt, "--dependency=afterok:%s", dep ? dep : "");
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return dp_err_set(err, DP_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (dep) execlp("sbatch", "sbatch", "--parsable", depopt, script, (char *)NULL);
        else execlp("sbatch", "sbatch", "--parsable", script, (char *)NULL);
        fprintf(stderr, "dperm: cannot run sbatch: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char out[256];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fds[0], out + n, sizeof out - 1 - n)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0) n += (size_t)r;
    out[n] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        dp_err_set(err, DP_EIO, "sbatch %s failed (%s %d)", script,
                   WIFEXITED(status) ? "exit status" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        dp_err_hint(err, WIFEXITED(status) && WEXITSTATUS(status) == 127
                             ? "sbatch is not on PATH: run this on a Slurm login node, or submit the scripts by hand"
                             : "see sbatch's message above; the scripts are written and can be submitted by hand");
        return DP_EIO;
    }
    /* --parsable prints "JOBID" or "JOBID;CLUSTER". */
    size_t k = strspn(out, "0123456789");
    if (k == 0 || k >= size) return dp_err_set(err, DP_EIO, "sbatch printed no job id: '%s'", out);
    memcpy(id, out, k);
    id[k] = '\0';
    return 0;
}

/* ---- command ------------------------------------------------------------------------- */

/* Absolute paths: the jobs start wherever Slurm puts them. Makes DIR/slurm/logs. */
static int make_paths(const slurm_opts *o, const char *experiment, paths *p, dp_err *err)
{
    ssize_t el = readlink("/proc/self/exe", p->exe, sizeof p->exe - 1);
    if (el <= 0)
        return dp_err_set(err, DP_EIO, "cannot find the dperm binary (/proc/self/exe): %s",
                          strerror(errno));
    p->exe[el] = '\0';
    if (!realpath(o->config, p->config))
        return dp_err_set(err, DP_EIO, "%s: %s", o->config, strerror(errno));
    if (o->data_dir && !realpath(o->data_dir, p->data_dir))
        return dp_err_set(err, DP_EIO, "--data-dir %s: %s", o->data_dir, strerror(errno));
    char dir[PATH_MAX];
    if (o->out) snprintf(dir, sizeof dir, "%s", o->out);
    else snprintf(dir, sizeof dir, "results/%s", experiment);
    char logs[PATH_MAX + 16];
    snprintf(logs, sizeof logs, "%s/slurm/logs", dir);
    int rc = store_mkdirs(logs, err);
    if (rc) return rc;
    if (!realpath(dir, p->dir)) return dp_err_set(err, DP_EIO, "%s: %s", dir, strerror(errno));
    snprintf(p->logs, sizeof p->logs, "%s/slurm/logs", p->dir);
    snprintf(p->array_script, sizeof p->array_script, "%s/slurm/array.sbatch", p->dir);
    snprintf(p->report_script, sizeof p->report_script, "%s/slurm/report.sbatch", p->dir);
    return 0;
}

/* sbatch the array, then the report job after it; say what was submitted. */
static int submit(const paths *p, long n_tasks, dp_err *err)
{
    char array_id[64], report_id[64];
    int rc = sbatch(p->array_script, NULL, array_id, sizeof array_id, err);
    if (rc) return rc;
    if ((rc = sbatch(p->report_script, array_id, report_id, sizeof report_id, err))) {
        fprintf(stderr, "dperm: array job %s was submitted; `scancel %s` stops it\n", array_id,
                array_id);
        return rc;
    }
    printf("array job: %s (%ld tasks; logs in %s)\n", array_id, n_tasks, p->logs);
    printf("report job: %s (after every task succeeded: dperm merge, dperm report %s)\n",
           report_id, p->dir);
    return 0;
}

int cli_slurm(int argc, char **argv)
{
    slurm_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    dp_err err;
    dp_err_clear(&err);
    cfg_doc doc = {0};
    grid g = {0};
    run_spec spec;
    paths *p = calloc(1, sizeof *p);
    char *text = NULL;
    size_t len = 0;
    int status = EXIT_USAGE;
    if (!p) return EXIT_RUNS_FAILED;

    /* The grid is expanded and every run validated now, so a config error shows here,
     * not in N failed array tasks. */
    rc = cfg_parse_file(&doc, o.config, &err);
    if (rc == 0) rc = spec_check_document(doc.root, &err);
    if (rc == 0) rc = ref_check_document(doc.root, &err);
    if (rc == 0) rc = grid_expand(doc.root, o.scale, (char *const *)o.only, o.n_only, &g, &err);
    for (size_t i = 0; rc == 0 && i < g.n; i++) rc = plan_check(g.runs[i].config, &spec, &err);
    if (rc) goto fail;
    if (g.n == 0) {
        rc = dp_err_set(&err, DP_ECONFIG, "%s: the grid has no runs", o.config);
        goto fail;
    }
    long n = o.shards ? o.shards
             : o.runs_per_task ? (long)((g.n + (size_t)o.runs_per_task - 1) / (size_t)o.runs_per_task)
             : (long)(g.n < DEFAULT_MAX_SHARDS ? g.n : DEFAULT_MAX_SHARDS);
    if ((size_t)n > g.n) {
        fprintf(stderr, "dperm: note: %ld shards for %zu runs; using %zu (one run each)\n", n, g.n, g.n);
        n = (long)g.n;
    }
    long max_par = o.max_parallel && o.max_parallel < n ? o.max_parallel : n;
    if (n > 1000)
        fprintf(stderr, "dperm: note: %ld array tasks; Slurm's default MaxArraySize (1001) allows "
                        "1000: if sbatch refuses, use --runs-per-task or fewer --shards\n", n);

    if ((rc = make_paths(&o, spec.experiment, p, &err))) goto fail;

    if (!(text = array_script(&o, p, spec.experiment, g.n, n, max_par, &len))) goto oom;
    if ((rc = store_write_atomic(p->array_script, text, len, &err))) goto fail;
    free(text);
    if (!(text = report_script(&o, p, spec.experiment, &len))) goto oom;
    if ((rc = store_write_atomic(p->report_script, text, len, &err))) goto fail;
    printf("dperm: %zu runs in %ld shards (%ld at once, %ld cpus each):\n  %s\n  %s\n", g.n, n,
           max_par, o.cpus, p->array_script, p->report_script);

    if (o.submit) {
        if ((rc = submit(p, n, &err))) goto fail;
    } else {
        printf("submit: sbatch --parsable %s, then sbatch --dependency=afterok:JOBID %s "
               "(or run dperm slurm ... --submit)\n", p->array_script, p->report_script);
    }
    status = EXIT_OK;
    goto done;
oom:
    rc = dp_err_set(&err, DP_ENOMEM, "out of memory");
fail:
    cli_print_error(&err);
    status = rc == DP_ENOMEM ? EXIT_RUNS_FAILED : EXIT_USAGE;
done:
    free(text);
    free(p);
    grid_destroy(&g);
    cfg_doc_destroy(&doc);
    return status;
}
