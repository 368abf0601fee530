/* main.c: bin/dperm, command dispatch and exit codes.
 *
 * dperm: a reproducible benchmark harness for differentially private empirical risk
 * minimization. See docs/yaml.md and docs/results.md for the concepts, the YAML schema and the result files.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness/env/blas_env.h"
#include "harness/cli/cli.h"
#include "harness/env/provenance.h"

/* Every command: its name, what runs it, and the line `dperm --help` prints for it (git's
 * commands[] in git.c). Usage lines are "NAME ARGS" padded to one column. */
static const struct command {
    const char *name, *args;
    int (*run)(int argc, char **argv);
    const char *summary;
} COMMANDS[] = {
    {"run", "CONFIG.yaml", cli_run, "expand an experiment grid and execute its runs in parallel"},
    {"report", "DIR", cli_report, "tables and figures from DIR/runs.jsonl (no re-running)"},
    {"merge", "DIR", cli_merge, "combine the shard files of DIR into runs.jsonl (run --shard I/N)"},
    {"slurm", "CONFIG.yaml", cli_slurm,
     "write (and --submit) a Slurm job array running the grid in shards"},
    {"list", "WHAT", cli_list, "algorithms | models | datasets | accountants"},
    {"privacy", "...", cli_privacy,
     "privacy calculator (epsilon for a noise level, noise for a target)"},
    {"data", "...", cli_data, "real datasets: list | info NAME | check (where, shapes, checksums)"},
    {"bench", "...", cli_bench, "throughput benchmark of per-example gradients"},
    {"audit", "CONFIG.yaml", cli_audit, "empirical privacy audit: a lower bound on each run's epsilon"},
    {"smoothing", "", cli_smoothing, "DP-LSSGD's smoothing operator: Tables 3, 4 (gamma, beta), Fig. 2"},
};
#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

static void print_help(FILE *f)
{
    fputs("usage: dperm COMMAND [options]\n\ncommands:\n", f);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char usage[32];
        snprintf(usage, sizeof usage, "%s %s", COMMANDS[i].name, COMMANDS[i].args);
        fprintf(f, "  %-18s  %s\n", usage, COMMANDS[i].summary);
    }
    fputs("\n"
          "  dperm COMMAND --help   options of a command\n"
          "  dperm --version        version, git revision and linked library versions\n"
          "\n"
          "exit status: 0 all good; 1 some runs failed (the others are recorded);\n"
          "2 usage, config or data error (nothing was run, nothing was written).\n", f);
}

int main(int argc, char **argv)
{
    blas_env_setup(argv);
    /* Past a file size limit (ulimit -f) the kernel sends SIGXFSZ, whose default action
     * kills the process mid-sweep; ignored, the write fails with EFBIG instead and dperm
     * reports it like a full disk, keeping every record already written. Workers inherit
     * it. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        provenance_print_versions(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(cmd, COMMANDS[i].name)) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "dperm: unknown command '%s'; see `dperm --help`\n", cmd);
    return EXIT_USAGE;
}
