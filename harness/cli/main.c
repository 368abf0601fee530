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

static const char MAIN_HELP[] =
    "usage: dperm COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run CONFIG.yaml     expand an experiment grid and execute its runs in parallel\n"
    "  report DIR          tables and figures from DIR/runs.jsonl (no re-running)\n"
    "  merge DIR           combine the shard files of DIR into runs.jsonl (run --shard I/N)\n"
    "  slurm CONFIG.yaml   write (and --submit) a Slurm job array running the grid in shards\n"
    "  list WHAT           algorithms | models | datasets | accountants\n"
    "  privacy ...         privacy calculator (epsilon for a noise level, noise for a target)\n"
    "  data ...            real datasets: list | info NAME | check (where, shapes, checksums)\n"
    "  bench ...           throughput benchmark of per-example gradients\n"
    "  audit CONFIG.yaml   empirical privacy audit: a lower bound on each run's epsilon\n"
    "  smoothing           DP-LSSGD's smoothing operator: Tables 3, 4 (gamma, beta), Fig. 2\n"
    "\n"
    "  dperm COMMAND --help   options of a command\n"
    "  dperm --version        version, git revision and linked library versions\n"
    "\n"
    "exit status: 0 all good; 1 some runs failed (the others are recorded);\n"
    "2 usage, config or data error (nothing was run, nothing was written).\n";

int main(int argc, char **argv)
{
    blas_env_setup(argv);
    /* Past a file size limit (ulimit -f) the kernel sends SIGXFSZ, whose default action
     * kills the process mid-sweep; ignored, the write fails with EFBIG instead and dperm
     * reports it like a full disk, keeping every record already written. Workers inherit
     * it. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        fputs(MAIN_HELP, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(MAIN_HELP, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        provenance_print_versions(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "run")) return cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return cli_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge")) return cli_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "slurm")) return cli_slurm(argc - 1, argv + 1);
    if (!strcmp(cmd, "list")) return cli_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "privacy")) return cli_privacy(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cli_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "data")) return cli_data(argc - 1, argv + 1);
    if (!strcmp(cmd, "audit")) return cli_audit(argc - 1, argv + 1);
    if (!strcmp(cmd, "smoothing")) return cli_smoothing(argc - 1, argv + 1);
    fprintf(stderr, "dperm: unknown command '%s'; see `dperm --help`\n", cmd);
    return EXIT_USAGE;
}
