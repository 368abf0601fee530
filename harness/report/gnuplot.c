/* gnuplot.c: running gnuplot to make an image (see gnuplot.h).
 *
 * fork + exec rather than popen: popen goes through /bin/sh (quoting of paths) and
 * gives either stdin or stdout, while what is needed is stderr, where gnuplot reports
 * errors as
 *          plot data index 0 using 1:2 ...
 *                                        ^
 *     "loss.gp" line 27: all points y value undefined!
 * The line naming the script and its line number is the message; it becomes the
 * error's FILE:LINE, so `dperm report` prints it like a config error.
 */
#include "harness/report/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STDERR_KEEP 4096   /* bytes of gnuplot's stderr kept for the message */

int gnuplot_available(void)
{
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char exe[4096];
        int len = snprintf(exe, sizeof exe, "%.*s/gnuplot", (int)n, n ? path : ".");
        if (len > 0 && (size_t)len < sizeof exe && access(exe, X_OK) == 0) return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/* The message in gnuplot's stderr: the first `"FILE" line N: message` (N to *line),
 * else the first non-blank line. text is modified. */
static void problem(char *text, char *msg, size_t size, int *line)
{
    char *first = NULL;
    *line = 0;
    for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n")) {
        s += strspn(s, " \t");
        if (!*s) continue;
        if (!first) first = s;
        char *at = strstr(s, "\" line ");
        int n = 0, used = 0;
        if (*s == '"' && at && sscanf(at, "\" line %d:%n", &n, &used) == 1 && used > 0) {
            *line = n;
            snprintf(msg, size, "%s", at + used + strspn(at + used, " "));
            return;
        }
    }
    snprintf(msg, size, "%s", first ? first : "exited with an error and no message");
}

/* Run gnuplot as described in gnuplot.h, without the image handling. */
static int run(const char *dir, const char *script, const char *fmt, const char *out,
               char **note, dp_err *err)
{
    *note = NULL;
    char *setvars = NULL;
    if (asprintf(&setvars, "fmt='%s'; out='%s'", fmt, out) < 0)
        return dp_err_set(err, DP_ENOMEM, "out of memory running gnuplot");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        free(setvars);
        return dp_err_set(err, DP_EIO, "cannot run gnuplot: pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        free(setvars);
        return dp_err_set(err, DP_EIO, "cannot run gnuplot: fork: %s", strerror(errno));
    }
    if (pid == 0) {   /* child: only async-signal-safe calls until exec */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
        }
        dup2(fds[1], 2);   /* dup2 clears close-on-exec on the copy */
        if (chdir(dir) != 0) _exit(126);
        execlp("gnuplot", "gnuplot", "-e", setvars, script, (char *)NULL);
        _exit(127);
    }
    free(setvars);
    close(fds[1]);
    char text[STDERR_KEEP + 1], sink[1024];
    size_t kept = 0;
    for (;;) {   /* keep the start, drain the rest so gnuplot never blocks on a full pipe */
        ssize_t r = kept < STDERR_KEEP ? read(fds[0], text + kept, STDERR_KEEP - kept)
                                       : read(fds[0], sink, sizeof sink);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        if (kept < STDERR_KEEP) kept += (size_t)r;
    }
    text[kept] = '\0';
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return dp_err_set(err, DP_EIO, "cannot run gnuplot: waitpid: %s", strerror(errno));
    }

    char msg[400];
    int line = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (kept > 0) {
            problem(text, msg, sizeof msg, &line);
            if (!(*note = strdup(msg)))
                return dp_err_set(err, DP_ENOMEM, "out of memory running gnuplot");
        }
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && kept == 0) {
        dp_err_set(err, DP_EIO, "cannot execute gnuplot");
        dp_err_hint(err, "install gnuplot-nox (make deps)");
        return DP_EIO;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 126 && kept == 0)
        snprintf(msg, sizeof msg, "cannot enter folder %s", dir);
    else if (WIFSIGNALED(status) && kept == 0)
        snprintf(msg, sizeof msg, "killed by signal %d", WTERMSIG(status));
    else
        problem(text, msg, sizeof msg, &line);
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, script) < 0) path = NULL;
    dp_err_set_at(err, DP_EIO, path ? path : script, line, 0, "gnuplot failed (%s): %s", fmt,
                  msg);
    dp_err_hint(err, "run `gnuplot %s` in %s to see its whole output", script, dir);
    free(path);
    return DP_EIO;
}

static int read_file(const char *path, char **data, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    struct stat st;
    *data = NULL;
    if (fstat(fileno(fp), &st) != 0 || st.st_size <= 0 ||
        !(*data = malloc((size_t)st.st_size)) ||
        fread(*data, 1, (size_t)st.st_size, fp) != (size_t)st.st_size) {
        free(*data);
        *data = NULL;
        fclose(fp);
        return -1;
    }
    *len = (size_t)st.st_size;
    fclose(fp);
    return 0;
}

int gnuplot_render(const char *dir, const char *script, const char *fmt, char **image,
                   size_t *len, char **note, dp_err *err)
{
    *image = NULL;
    *len = 0;
    *note = NULL;
    char tmp[256], *path = NULL;
    snprintf(tmp, sizeof tmp, ".%.160s.%ld.%.8s.tmp", script, (long)getpid(), fmt);
    if (asprintf(&path, "%s/%s", dir, tmp) < 0)
        return dp_err_set(err, DP_ENOMEM, "out of memory running gnuplot");
    int rc = run(dir, script, fmt, tmp, note, err);
    if (rc == 0 && read_file(path, image, len) != 0)
        rc = dp_err_set(err, DP_EIO, "gnuplot made no %s image from %s/%s", fmt, dir, script);
    if (rc) {
        free(*note);
        *note = NULL;
    }
    unlink(path);
    free(path);
    return rc;
}
