/* progress.h: what a long sweep shows while it works.
 *
 * On a terminal: one live line on stderr, redrawn in place (runs done/total, failures,
 * elapsed, ETA). Otherwise (CI logs, files): one line per finished run. --quiet: nothing.
 */
#ifndef DPERM_PROGRESS_H
#define DPERM_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct progress {
    FILE *out;
    int live;            /* redraw one line (terminal) instead of one line per run */
    int quiet;
    size_t total;        /* runs to do in this invocation */
    size_t done, failed, diverged;
    double start;        /* monotonic seconds */
} progress;

void progress_init(progress *p, FILE *out, size_t total, int quiet);

/* One run finished: status is "ok", "diverged" or "failed"; detail is a short text
 * (e.g. "test_accuracy=0.912 1.3s" or the failure message). */
void progress_run_done(progress *p, const char *id, const char *status, const char *detail);

/* Clear the live line (before printing anything else, and at the end). */
void progress_finish(progress *p);

double progress_now(void);

#endif
