/* cli_common.c: error printing shared by the subcommands. */
#include <stdarg.h>
#include <stdio.h>

#include "harness/cli/cli.h"

void cli_print_error(const dp_err *e)
{
    if (e->file[0] && e->line > 0)
        fprintf(stderr, "dperm: %s:%d:%d: %s\n", e->file, e->line, e->col > 0 ? e->col : 1,
                e->msg);
    else if (e->file[0])
        fprintf(stderr, "dperm: %s: %s\n", e->file, e->msg);
    else
        fprintf(stderr, "dperm: %s\n", e->msg);
    if (e->hint[0]) fprintf(stderr, "dperm: hint: %s\n", e->hint);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dperm %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; see `dperm %s --help`\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}
