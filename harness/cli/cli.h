/* cli.h: the subcommands of bin/dperm and what they share. Each cli_X returns the
 * process exit status: 0 all good, 1 some runs failed, 2 usage/config/data error. */
#ifndef DPERM_CLI_H
#define DPERM_CLI_H

#include "algorithms/base/err.h"

enum { EXIT_OK = 0, EXIT_RUNS_FAILED = 1, EXIT_USAGE = 2,
       EXIT_AUDIT_VIOLATION = 3 /* dperm audit: a lower bound exceeds its claimed epsilon */ };

/* "dperm: FILE:LINE:COL: message" (position parts only when known), then the hint on a
 * second line "dperm: hint: ..." when there is one. */
void cli_print_error(const dp_err *e);
/* Print a usage error ("dperm run: ...") plus "see `dperm run --help`"; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cli_run(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_slurm(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_privacy(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_data(int argc, char **argv);
int cli_audit(int argc, char **argv);
int cli_smoothing(int argc, char **argv);

#endif
