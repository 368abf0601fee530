/* progress.c: the live progress line and per-run lines (see progress.h). */
#include "harness/sweep/progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void format_duration(char *buf, size_t size, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

void progress_init(progress *p, FILE *out, size_t total, int quiet)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->quiet = quiet;
    p->live = !quiet && isatty(fileno(out));
    p->total = total;
    p->start = progress_now();
}

void progress_run_done(progress *p, const char *id, const char *status, const char *detail)
{
    p->done++;
    if (strcmp(status, "failed") == 0) p->failed++;
    if (strcmp(status, "diverged") == 0) p->diverged++;
    if (p->quiet) return;
    double elapsed = progress_now() - p->start;
    char el[32], eta[32];
    format_duration(el, sizeof el, elapsed);
    if (p->done < p->total)
        format_duration(eta, sizeof eta, elapsed / (double)p->done * (double)(p->total - p->done));
    else
        snprintf(eta, sizeof eta, "0:00");
    if (p->live) {
        /* A failure is worth a permanent line; successes only move the counter. */
        if (strcmp(status, "failed") == 0)
            fprintf(p->out, "\r\033[Kdperm: run %s failed: %s\n", id, detail);
        fprintf(p->out, "\r\033[K[%zu/%zu] %zu failed, %zu diverged  elapsed %s  eta %s",
                p->done, p->total, p->failed, p->diverged, el, eta);
    } else {
        fprintf(p->out, "dperm: [%zu/%zu] %s %s %s (elapsed %s, eta %s)\n", p->done, p->total,
                id, status, detail, el, eta);
    }
    fflush(p->out);
}

void progress_finish(progress *p)
{
    if (p->live && p->done > 0) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
    }
}
