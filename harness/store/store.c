/* store.c: runs.jsonl, atomic file replacement and JSON text for records (see store.h).
 *
 * Crash safety rests on two facts: a file is only ever replaced by rename(2) of a fully
 * written and fsync'd temporary in the same folder, and a record is appended by a single
 * write(2) of a whole line, so after a kill -9 the only possible damage is a missing
 * final newline, which readers ignore (Redis rdbSave and AOF habits).
 */
#include "harness/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/store/merge.h"

/* ---- JSON text ------------------------------------------------------------------------ */

/* Shortest decimal that reads back as the same double; integral values keep a ".0" so
 * the type survives a round trip. */
static void format_real(char *buf, size_t size, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    if (!strpbrk(buf, ".eEn")) strncat(buf, ".0", size - strlen(buf) - 1);
}

static int dump_value(FILE *f, json_t *v, int sort_keys);

static int dump_string(FILE *f, const char *s)
{
    json_t *tmp = json_string(s);
    if (!tmp) return -1;
    char *txt = json_dumps(tmp, JSON_ENCODE_ANY);
    json_decref(tmp);
    if (!txt) return -1;
    fputs(txt, f);
    free(txt);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int dump_object(FILE *f, json_t *v, int sort_keys)
{
    size_t n = json_object_size(v), i = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys) return -1;
    const char *k;
    json_t *item;
    json_object_foreach(v, k, item) keys[i++] = k;
    if (sort_keys) qsort(keys, n, sizeof *keys, cmp_str);
    int rc = 0;
    fputc('{', f);
    for (i = 0; i < n && rc == 0; i++) {
        if (i) fputc(',', f);
        rc = dump_string(f, keys[i]);
        fputc(':', f);
        if (rc == 0) rc = dump_value(f, json_object_get(v, keys[i]), sort_keys);
    }
    fputc('}', f);
    free(keys);
    return rc;
}

static int dump_value(FILE *f, json_t *v, int sort_keys)
{
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: return dump_object(f, v, sort_keys);
    case JSON_ARRAY: {
        fputc('[', f);
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i) fputc(',', f);
            if (dump_value(f, json_array_get(v, i), sort_keys)) return -1;
        }
        fputc(']', f);
        return 0;
    }
    case JSON_STRING: return dump_string(f, json_string_value(v));
    case JSON_INTEGER: fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); return 0;
    case JSON_REAL: {
        double d = json_real_value(v);
        if (!isfinite(d)) { fputs("null", f); return 0; }
        format_real(buf, sizeof buf, d);
        fputs(buf, f);
        return 0;
    }
    case JSON_TRUE: fputs("true", f); return 0;
    case JSON_FALSE: fputs("false", f); return 0;
    case JSON_NULL: fputs("null", f); return 0;
    }
    return -1;
}

char *store_json_dumps(json_t *v, int sort_keys)
{
    if (!v) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    int rc = dump_value(f, v, sort_keys);
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- files ---------------------------------------------------------------------------- */

int store_mkdirs(const char *path, dp_err *err)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return dp_err_set(err, DP_EIO, "%s: path too long", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return dp_err_set(err, DP_EIO, "cannot create folder %s: %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return dp_err_set(err, DP_EIO, "cannot create folder %s: %s", tmp, strerror(errno));
    return 0;
}

static void fsync_parent(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* This machine's name as it appears in temporaries' names ('/' replaced). */
static void temp_host(char *host, size_t size)
{
    if (gethostname(host, size) != 0) host[0] = '\0';
    host[size - 1] = '\0';
    for (char *h = host; *h; h++)
        if (*h == '/') *h = '_';
}

int store_write_atomic(const char *path, const char *data, size_t len, dp_err *err)
{
    /* Host and pid name the temporary: shards on several machines may write the same
     * file (the sweep manifest) in one shared folder at once, and pids repeat across
     * machines. Each rename is atomic, so the last one wins with a whole file. */
    char tmp[PATH_MAX], host[64] = "";
    temp_host(host, sizeof host);
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%s.%ld", path, host, (long)getpid()) >= (int)sizeof tmp)
        return dp_err_set(err, DP_EIO, "%s: path too long", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        int e = errno, rc = dp_err_set(err, DP_EIO, "cannot write %s: %s", tmp, strerror(errno));
        errno = e;
        return rc;
    }
    if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        int rc = dp_err_set(err, DP_EIO, "cannot write %s: %s", path, strerror(e));
        errno = e;
        return rc;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        int rc = dp_err_set(err, DP_EIO, "cannot replace %s: %s", path, strerror(e));
        errno = e;
        return rc;
    }
    fsync_parent(path);
    return 0;
}

/* Whether the process that named a temporary can still write to it. A zombie cannot:
 * the workers of a killed sweep are orphans, and an init that reaps them late (seen: a
 * container's pid 1 that takes seconds) leaves them as zombies that kill(pid, 0) still
 * finds, so their temporaries would outlive the next sweep. */
static int writer_alive(pid_t pid)
{
    if (kill(pid, 0) != 0 && errno == ESRCH) return 0;
    char path[64], stat_line[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1; /* no /proc: trust kill(2) */
    size_t n = fread(stat_line, 1, sizeof stat_line - 1, f);
    fclose(f);
    stat_line[n] = '\0';
    /* "pid (comm) S ...": the state follows the last ')', as comm may hold one. */
    const char *close_paren = strrchr(stat_line, ')');
    if (!close_paren || close_paren[1] != ' ') return 1;
    char state = close_paren[2];
    return !(state == 'Z' || state == 'X');
}

void store_remove_stale_temps(const char *dir)
{
    char host[64] = "", suffix[80], path[PATH_MAX];
    temp_host(host, sizeof host);
    int sl = snprintf(suffix, sizeof suffix, ".tmp.%s.", host);
    DIR *d = opendir(dir);
    if (!d || sl <= 0 || sl >= (int)sizeof suffix) {
        if (d) closedir(d);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *at = strstr(e->d_name, suffix);
        if (!at || at == e->d_name) continue;
        char *end;
        long pid = strtol(at + sl, &end, 10);
        if (*end != '\0' || pid <= 0) continue;
        /* Only a writer that no longer exists: a live one (another shard on this machine)
         * is about to rename its temporary. */
        if (writer_alive((pid_t)pid)) continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
}

int store_append_record(int fd, const char *path, json_t *record, dp_err *err)
{
    char *line = store_json_dumps(record, 0);
    if (!line) return dp_err_set(err, DP_ENOMEM, "out of memory writing a record");
    size_t len = strlen(line);
    line[len] = '\n'; /* open_memstream leaves room for the terminating NUL */
    struct stat st;
    off_t before = fstat(fd, &st) == 0 ? st.st_size : -1;
    /* One write(2) of the whole line. A regular file takes less only when it is about to
     * fail (disk full, file size limit): writing the rest then yields the errno that says
     * why (ENOSPC, EFBIG) instead of a bare short count. */
    size_t done = 0;
    int e = 0;
    while (done < len + 1) {
        ssize_t w = write(fd, line + done, len + 1 - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        done += (size_t)w;
    }
    free(line);
    if (e) {
        /* Never leave half a line: cut back to the old end. */
        if (before >= 0 && ftruncate(fd, before) != 0) { /* nothing more can be done */ }
        return dp_err_set(err, DP_EIO, "cannot append to %s: %s", path, strerror(e));
    }
    if (fsync(fd) != 0)
        return dp_err_set(err, DP_EIO, "cannot sync %s: %s", path, strerror(errno));
    return 0;
}

/* ---- reading -------------------------------------------------------------------------- */

int store_read_file(const char *path, char **out, size_t *len, dp_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return dp_err_set(err, DP_EIO, "cannot read %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 131072;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + n, 1, 65536, f);
        n += r;
        if (r < 65536) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return dp_err_set(err, DP_EIO, "cannot read %s", path);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

static int load_one(const char *path, json_t *records, json_t *origins, dp_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = store_read_file(path, &buf, &len, err);
    if (rc) return rc;
    int line = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        line++;
        if (!nl) break; /* a final line cut by a kill: not a record */
        *nl = '\0';
        if (nl > p) {
            json_error_t jerr;
            json_t *rec = json_loads(p, 0, &jerr);
            if (!rec || !json_is_object(rec)) {
                json_decref(rec);
                free(buf);
                return dp_err_set_at(err, DP_EDATA, path, line, rec ? 1 : jerr.column,
                                     "not a run record: %s",
                                     rec ? "expected a JSON object" : jerr.text);
            }
            json_array_append_new(records, rec);
            if (origins) {
                const char *base = strrchr(path, '/');
                json_array_append_new(origins, json_sprintf("%s:%d", base ? base + 1 : path, line));
            }
        }
        p = nl + 1;
    }
    free(buf);
    return 0;
}

int store_has_records(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/runs.jsonl", dir);
    if (access(path, F_OK) == 0) return 1;
    glob_t g;
    snprintf(path, sizeof path, "%s/runs.*-of-*.jsonl", dir);
    int grc = glob(path, 0, NULL, &g);
    int found = grc == 0 && g.gl_pathc > 0;
    if (grc == 0) globfree(&g);
    return found;
}

int store_load_file(const char *path, json_t **records, dp_err *err)
{
    json_t *all = json_array();
    if (!all) return dp_err_set(err, DP_ENOMEM, "out of memory");
    int rc = load_one(path, all, NULL, err);
    if (rc) {
        json_decref(all);
        return rc;
    }
    *records = all;
    return 0;
}

int store_load_stats(const char *dir, json_t **records, store_load_info *info, dp_err *err)
{
    char path[PATH_MAX];
    json_t *all = json_array(), *origins = json_array();
    store_load_info inf = {0};
    if (!all || !origins) {
        json_decref(all);
        json_decref(origins);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    snprintf(path, sizeof path, "%s/runs.jsonl", dir);
    int have_main = access(path, F_OK) == 0;
    int rc = have_main ? load_one(path, all, origins, err) : 0;
    inf.n_files = have_main;

    glob_t g;
    snprintf(path, sizeof path, "%s/runs.*-of-*.jsonl", dir);
    int grc = glob(path, 0, NULL, &g); /* glob sorts by name */
    if (rc == 0 && grc == 0)
        for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
            rc = load_one(g.gl_pathv[i], all, origins, err);
            inf.n_files++;
        }
    if (grc == 0) globfree(&g);
    if (rc == 0 && !have_main && grc != 0) {
        rc = dp_err_set(err, DP_EIO, "%s/runs.jsonl: no run records here", dir);
        dp_err_hint(err, "run `dperm run CONFIG` first, or give the folder it wrote (results/<experiment>)");
    }
    json_t *merged = NULL;
    merge_stats ms = {0};
    if (rc == 0) rc = merge_records(all, origins, &merged, &ms, err);
    json_decref(all);
    json_decref(origins);
    if (rc) return rc;
    inf.n_read = ms.n_read;
    inf.n_duplicates = ms.n_duplicates;
    inf.n_superseded = ms.n_superseded;
    if (info) *info = inf;
    *records = merged;
    return 0;
}

int store_load(const char *dir, json_t **records, dp_err *err)
{
    return store_load_stats(dir, records, NULL, err);
}
