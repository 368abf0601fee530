/* discovery.c: where a dataset's files are, and their SHA-256.
 *
 * Search order (docs/datasets.md): --data-dir, each folder of $DPERM_DATA
 * (':'-separated), datasets/data (what `make data` fills), the same folder of the
 * repository the running program was built in (REPO/bin/dperm) or an installed prefix's
 * share/dperm/datasets (PREFIX/bin/dperm), /usr/share/datasets (Debian's dataset-*
 * packages). Within a root, a dataset is looked for in each of its catalog
 * folders (e.g. uci/adult, then adult), so the layouts of ../shared/datasets, of
 * `make data` and of Debian all work. The first folder holding every file wins: files of
 * one dataset are never mixed across folders. A file catalogued as X.gz is also accepted
 * plain as X (and X as X.gz); its published sum then does not apply (exact[] says so).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "datasets/data.h"

static void add_dir(dp_data_search *s, const char *d, size_t len)
{
    if (len == 0 || s->n == DP_DATA_MAX_DIRS || len >= sizeof s->dirs[0]) return;
    memcpy(s->dirs[s->n], d, len);
    s->dirs[s->n][len] = '\0';
    while (len > 1 && s->dirs[s->n][len - 1] == '/') s->dirs[s->n][--len] = '\0';
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->dirs[i], s->dirs[s->n]) == 0) return; /* listed once */
    s->n++;
}

/* The repository's datasets/data beside the running program (REPO/bin/dperm), or an
 * installed one's PREFIX/share/dperm/datasets (PREFIX/bin/dperm), when that folder exists
 * and is not the working folder's datasets/data: what `make data` fetched is then found
 * whatever folder dperm runs from. */
static void add_beside_binary(dp_data_search *s)
{
    char exe[PATH_MAX], dir[PATH_MAX + 32], a[PATH_MAX], b[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) { /* REPO/bin/dperm -> REPO */
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe) return;
        *slash = '\0';
    }
    /* a source tree's datasets/data, or an installed prefix's share/dperm/datasets */
    static const char *const beside[] = {"datasets/data", "share/dperm/datasets"};
    for (int k = 0; k < 2; k++) {
        snprintf(dir, sizeof dir, "%s/%s", exe, beside[k]);
        if (!realpath(dir, a)) continue;
        if (realpath("datasets/data", b) && strcmp(a, b) == 0) continue;
        add_dir(s, dir, strlen(dir));
    }
}

void dp_data_search_init(dp_data_search *s, const char *data_dir)
{
    memset(s, 0, sizeof *s);
    if (data_dir) add_dir(s, data_dir, strlen(data_dir));
    const char *env = getenv("DPERM_DATA");
    while (env && *env) {
        const char *colon = strchr(env, ':');
        size_t len = colon ? (size_t)(colon - env) : strlen(env);
        add_dir(s, env, len);
        env = colon ? colon + 1 : NULL;
    }
    add_dir(s, "datasets/data", strlen("datasets/data"));
    add_beside_binary(s);
    add_dir(s, "/usr/share/datasets", strlen("/usr/share/datasets"));
}

void dp_data_search_text(const dp_data_search *s, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", s->dirs[i]);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir/name, or its plain / .gz twin. 1 found (exact: 1 for the catalogued name). */
static int find_file(const char *dir, const char *name, char *out, size_t size, int *exact)
{
    snprintf(out, size, "%s/%s", dir, name);
    *exact = 1;
    if (is_file(out)) return 1;
    *exact = 0;
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
        snprintf(out, size, "%s/%.*s", dir, (int)(n - 3), name);
    else
        snprintf(out, size, "%s/%s.gz", dir, name);
    return is_file(out);
}

/* Every file of info in dir? Fills out on success. */
static int all_in(const dp_data_info *info, const char *dir, dp_data_found *out)
{
    for (size_t i = 0; i < info->n_files; i++)
        if (!find_file(dir, info->files[i].name, out->paths[i], sizeof out->paths[i],
                       &out->exact[i]))
            return 0;
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    return 1;
}

int dp_data_locate(const dp_data_info *info, const dp_data_search *s, dp_data_found *out,
                   dp_err *err)
{
    memset(out, 0, sizeof *out);
    char dir[1024];
    for (size_t r = 0; r < s->n; r++) {
        const char *f = info->folders;
        while (f && *f) {
            const char *colon = strchr(f, ':');
            int len = colon ? (int)(colon - f) : (int)strlen(f);
            snprintf(dir, sizeof dir, "%s/%.*s", s->dirs[r], len, f);
            if (is_dir(dir) && all_in(info, dir, out)) return DP_OK;
            /* CIFAR-10 also as the distributed archive, in its folder or the root. */
            if (info->format == DP_FMT_CIFAR) {
                const char *where[2] = {dir, s->dirs[r]};
                for (int k = 0; k < 2; k++) {
                    snprintf(out->paths[0], sizeof out->paths[0], "%s/cifar-10-binary.tar.gz",
                             where[k]);
                    if (is_file(out->paths[0])) {
                        snprintf(out->dir, sizeof out->dir, "%s", where[k]);
                        out->archive = 1;
                        return DP_OK;
                    }
                }
            }
            f = colon ? colon + 1 : NULL;
        }
    }
    memset(out, 0, sizeof *out);
    char searched[2048];
    dp_data_search_text(s, searched, sizeof searched);
    return dp_err_set(err, DP_EDATA, "dataset '%s' not found in: %s; %s, or set DPERM_DATA "
                      "to the folder holding it", info->name, searched, info->how_to_get);
}

int dp_sha256_file(const char *path, char hex[65], dp_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return dp_err_set_at(err, DP_EIO, path, 0, 0, "cannot open the file");
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    unsigned char *buf = malloc(1u << 20);
    if (!buf) {
        fclose(f);
        return dp_err_set(err, DP_ENOMEM, "out of memory hashing %s", path);
    }
    size_t n;
    while ((n = fread(buf, 1, 1u << 20, f)) > 0) sha256_update(&ctx, n, buf);
    int bad = ferror(f);
    fclose(f);
    free(buf);
    if (bad) return dp_err_set_at(err, DP_EIO, path, 0, 0, "read error");
    unsigned char dig[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, dig);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", dig[i]);
    return DP_OK;
}
