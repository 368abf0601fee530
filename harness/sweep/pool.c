/* pool.c: worker processes for runs (see pool.h). */
#include "harness/sweep/pool.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algorithms/base/vec.h"
#include "harness/store/store.h"

static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig)
{
    g_interrupted = sig;
}

typedef struct slot {
    pid_t pid;        /* 0 = free */
    size_t job;
} slot;

static void record_path(char *buf, size_t size, const char *tmpdir, size_t job)
{
    snprintf(buf, size, "%s/job-%zu.json", tmpdir, job);
}

/* Exit statuses of a child that ran its job but could not write the record file: the
 * parent turns them back into the errno (a full disk is the sweep's problem, not the
 * run's: the run is left unrecorded so --resume runs it again). */
enum { CHILD_EXIT_IO = 5, CHILD_EXIT_NOSPC = 6, CHILD_EXIT_FBIG = 7, CHILD_EXIT_DQUOT = 8 };

static int child_io_exit(int e)
{
    return e == ENOSPC ? CHILD_EXIT_NOSPC : e == EFBIG ? CHILD_EXIT_FBIG
         : e == EDQUOT ? CHILD_EXIT_DQUOT : CHILD_EXIT_IO;
}

static int child_io_errno(int code)
{
    return code == CHILD_EXIT_NOSPC ? ENOSPC : code == CHILD_EXIT_FBIG ? EFBIG
         : code == CHILD_EXIT_DQUOT ? EDQUOT : EIO;
}

/* The child's whole life: run, write the record file, exit. Never returns. */
static void child_main(size_t job, pid_t parent, const pool_opts *o, pool_run_fn run, void *ctx)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(3); /* the parent died before prctl took effect */
    dp_set_threads(o->threads);

    json_t *rec = run(job, ctx);
    if (!rec) _exit(4);
    char *text = store_json_dumps(rec, 0);
    json_decref(rec);
    if (!text) _exit(4);
    char path[PATH_MAX];
    record_path(path, sizeof path, o->tmpdir, job);
    dp_err err;
    int rc = store_write_atomic(path, text, strlen(text), &err);
    int e = errno; /* store_write_atomic leaves the cause in errno */
    free(text);
    _exit(rc == 0 ? 0 : child_io_exit(e));
}

static void describe_exit(char *buf, size_t size, int status)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "worker killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, size, "worker exited with status %d without a record%s",
                 WEXITSTATUS(status), WEXITSTATUS(status) == 4 ? " (out of memory)" : "");
    else
        snprintf(buf, size, "worker ended abnormally");
}

/* Collect one finished child's record (or its failure) and hand it to done. A child that
 * could not write its record file (disk full, file size limit) stops the sweep with that
 * error and leaves the run unrecorded. */
static int collect(slot *s, int status, const pool_opts *o, pool_done_fn done, void *ctx,
                   dp_err *err)
{
    char path[PATH_MAX], failure[256];
    record_path(path, sizeof path, o->tmpdir, s->job);
    if (WIFEXITED(status) && WEXITSTATUS(status) >= CHILD_EXIT_IO &&
        WEXITSTATUS(status) <= CHILD_EXIT_DQUOT) {
        unlink(path);
        s->pid = 0;
        return dp_err_set(err, DP_EIO, "cannot write %s: %s", path,
                          strerror(child_io_errno(WEXITSTATUS(status))));
    }
    json_t *rec = NULL;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        json_error_t jerr;
        rec = json_load_file(path, 0, &jerr);
        if (!rec) snprintf(failure, sizeof failure, "unreadable worker record: %s", jerr.text);
    } else {
        describe_exit(failure, sizeof failure, status);
    }
    unlink(path);
    int rc = done(s->job, rec, rec ? NULL : failure, ctx, err);
    json_decref(rec);
    s->pid = 0;
    return rc;
}

/* Record files a killed pool left behind. Their numbers are positions in that pool's job
 * list, not this one's: a file whose run was recorded before the kill, or whose number is
 * past the end of this list, would never be collected, and the folder never removed. Their
 * runs are either in runs.jsonl already or in this list again. */
static void remove_old_records(const char *tmpdir)
{
    DIR *d = opendir(tmpdir);
    if (!d) return;
    struct dirent *e;
    char path[PATH_MAX];
    while ((e = readdir(d)) != NULL) {
        size_t job;
        int end = 0;
        if (sscanf(e->d_name, "job-%zu.json%n", &job, &end) == 1 && e->d_name[end] == '\0' &&
            snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
}

int pool_run(const size_t *jobs, size_t n, const pool_opts *o, pool_run_fn run,
             pool_done_fn done, void *ctx, dp_err *err)
{
    remove_old_records(o->tmpdir);
    int workers = o->workers < 1 ? 1 : o->workers;
    slot *slots = calloc((size_t)workers, sizeof *slots);
    if (!slots) return dp_err_set(err, DP_ENOMEM, "out of memory");

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: waitpid must return on a signal */
    sigemptyset(&sa.sa_mask);
    g_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    pid_t parent = getpid();
    size_t next = 0, running = 0;
    int rc = 0;
    while ((next < n && rc == 0 && !g_interrupted) || running > 0) {
        /* Fill free slots. */
        while (next < n && running < (size_t)workers && rc == 0 && !g_interrupted) {
            int k = 0;
            while (slots[k].pid != 0) k++;
            fflush(NULL); /* the child must not re-flush the parent's buffers */
            pid_t pid = fork();
            if (pid < 0) {
                rc = dp_err_set(err, DP_EIO, "cannot start a worker: %s", strerror(errno));
                break;
            }
            if (pid == 0) {
                free(slots); /* the parent's bookkeeping: the worker never reads it */
                child_main(jobs[next], parent, o, run, ctx);
            }
            slots[k].pid = pid;
            slots[k].job = jobs[next++];
            running++;
        }
        if (running == 0) break;
        if (g_interrupted) {
            for (int k = 0; k < workers; k++)
                if (slots[k].pid) kill(slots[k].pid, SIGTERM);
        }
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            rc = dp_err_set(err, DP_EIO, "waiting for workers: %s", strerror(errno));
            break;
        }
        for (int k = 0; k < workers; k++) {
            if (slots[k].pid != pid) continue;
            running--;
            if (g_interrupted) { /* stopped on purpose: no record, resumable */
                char path[PATH_MAX];
                record_path(path, sizeof path, o->tmpdir, slots[k].job);
                unlink(path);
                slots[k].pid = 0;
            } else {
                int drc = collect(&slots[k], status, o, done, ctx, err);
                if (drc && rc == 0) rc = drc;
            }
            break;
        }
    }
    /* An error above may leave workers running: stop and reap them. */
    for (int k = 0; k < workers; k++) {
        if (!slots[k].pid) continue;
        kill(slots[k].pid, SIGKILL);
        waitpid(slots[k].pid, NULL, 0);
    }
    if (g_interrupted && rc == 0)
        rc = dp_err_set(err, DP_ESTATE, "interrupted by signal %d", (int)g_interrupted);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(slots);
    return rc;
}
