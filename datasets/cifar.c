/* cifar.c: the binary version of CIFAR-10, as batch files or inside the .tar.gz.
 *
 * Source: Krizhevsky (2009), "Learning Multiple Layers of Features from Tiny Images";
 * https://www.cs.toronto.edu/~kriz/cifar.html (no explicit license; cite the report).
 * Format: each batch (data_batch_1..5.bin, test_batch.bin) is 10000 records of 3073
 * bytes: one label byte 0..9, then 1024 red, 1024 green, 1024 blue bytes of a 32x32
 * image, row-major; that is already the CHW layout dperm's models use.
 * cifar-10-binary.tar.gz holds them under cifar-10-batches-bin/ (plus batches.meta.txt
 * and readme.html), as a POSIX ustar archive: 512-byte headers (name at 0, octal size
 * at 124, checksum at 148, type at 156), each member padded to 512 bytes.
 *
 * Checks: every file's length is a whole number of records (a partial record is
 * "truncated"), every label is 0..9, every tar header's checksum is right, and all six
 * members are present. The training batches come first, then the test batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "datasets/data_int.h"

#define CIFAR_D 3072u
#define CIFAR_REC (CIFAR_D + 1u)
#define CIFAR_LABEL_MAX 9
#define TAR_BLOCK 512

static int grow(dp_raw *raw, size_t n, const char *path, dp_err *err)
{
    uint8_t *px = realloc(raw->px, n * CIFAR_D);
    if (!px) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
    raw->px = px;
    int *y = realloc(raw->y, n * sizeof *y);
    if (!y) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
    raw->y = y;
    return DP_OK;
}

/* Read records from f until `limit` bytes (or the end of the stream when limit is
 * SIZE_MAX). `what` names the source in messages (a file, or "archive:member"). */
static int read_records(dp_raw *raw, gzFile f, size_t limit, const char *path,
                        const char *what, dp_err *err)
{
    unsigned char rec[CIFAR_REC];
    size_t record = 0, consumed = 0;
    for (;;) {
        if (limit != SIZE_MAX && consumed == limit) break;
        int r = gzread(f, rec, CIFAR_REC);
        if (r < 0) {
            int z;
            return dp_err_set_at(err, DP_EDATA, path, 0, 0, "%s: corrupt gzip data: %s", what,
                                 gzerror(f, &z));
        }
        if (r == 0) {
            if (limit != SIZE_MAX)
                return dp_err_set_at(err, DP_EDATA, path, 0, 0,
                                     "%s: truncated: the archive ends inside the member", what);
            break;
        }
        if ((unsigned)r < CIFAR_REC || (limit != SIZE_MAX && limit - consumed < CIFAR_REC))
            return dp_err_set_at(err, DP_EDATA, path, 0, 0,
                                 "%s: truncated: record %zu has %d of %u bytes (a batch is "
                                 "records of 1 label + 3072 pixel bytes)",
                                 what, record + 1, r, CIFAR_REC);
        if (rec[0] > CIFAR_LABEL_MAX)
            return dp_err_set_at(err, DP_EDATA, path, 0, 0,
                                 "%s: record %zu: label %u is outside 0..%d", what, record + 1,
                                 rec[0], CIFAR_LABEL_MAX);
        if (raw->n % 1024 == 0) {
            int rc = grow(raw, raw->n + 1024, path, err);
            if (rc) return rc;
        }
        raw->y[raw->n] = rec[0];
        memcpy(raw->px + raw->n * CIFAR_D, rec + 1, CIFAR_D);
        raw->n++;
        record++;
        consumed += CIFAR_REC;
    }
    if (record == 0)
        return dp_err_set_at(err, DP_EDATA, path, 0, 0, "%s: no records", what);
    return DP_OK;
}

static void set_shape(dp_raw *raw)
{
    raw->d = CIFAR_D;
    raw->c = 3;
    raw->h = raw->w = 32;
    raw->n_classes = CIFAR_LABEL_MAX + 1;
}

int dp_cifar_read_files(dp_raw *raw, const char *const *paths, size_t n_train_files,
                        size_t n_test_files, dp_err *err)
{
    set_shape(raw);
    for (size_t i = 0; i < n_train_files + n_test_files; i++) {
        if (i == n_train_files) raw->n_official_train = raw->n;
        gzFile f = gzopen(paths[i], "rb");
        if (!f) return dp_err_set_at(err, DP_EIO, paths[i], 0, 0, "cannot open the file");
        int rc = read_records(raw, f, SIZE_MAX, paths[i], "batch", err);
        gzclose(f);
        if (rc) return rc;
    }
    if (n_test_files == 0) raw->n_official_train = raw->n;
    return DP_OK;
}

/* ---- the .tar.gz -------------------------------------------------------------------- */

static const char *const MEMBERS[] = {"data_batch_1.bin", "data_batch_2.bin",
                                      "data_batch_3.bin", "data_batch_4.bin",
                                      "data_batch_5.bin", "test_batch.bin"};
#define N_MEMBERS 6

static int octal(const unsigned char *p, size_t len, size_t *out)
{
    size_t v = 0, i = 0;
    while (i < len && p[i] == ' ') i++;
    if (i == len || p[i] < '0' || p[i] > '7') return -1;
    for (; i < len && p[i] >= '0' && p[i] <= '7'; i++) v = v * 8 + (size_t)(p[i] - '0');
    if (i < len && p[i] != ' ' && p[i] != '\0') return -1;
    *out = v;
    return 0;
}

static int header_ok(const unsigned char *h)
{
    size_t stored, sum = 0;
    if (octal(h + 148, 8, &stored)) return 0;
    for (int i = 0; i < TAR_BLOCK; i++) sum += (i >= 148 && i < 156) ? ' ' : h[i];
    return sum == stored;
}

static int skip(gzFile f, size_t n)
{
    unsigned char b[TAR_BLOCK];
    while (n > 0) {
        unsigned k = n > TAR_BLOCK ? TAR_BLOCK : (unsigned)n;
        if (gzread(f, b, k) != (int)k) return -1;
        n -= k;
    }
    return 0;
}

/* Member data is read in archive order into one table per member, then appended in the
 * canonical order (batches 1..5, test), whatever order the archive stores them in. */
int dp_cifar_read_tar(dp_raw *raw, const char *path, dp_err *err)
{
    dp_raw part[N_MEMBERS];
    memset(part, 0, sizeof part);
    unsigned char h[TAR_BLOCK];
    int rc = DP_OK, seen[N_MEMBERS] = {0};
    long block = 0;
    gzFile f = gzopen(path, "rb");
    if (!f) return dp_err_set_at(err, DP_EIO, path, 0, 0, "cannot open the file");
    for (;;) {
        int r = gzread(f, h, TAR_BLOCK);
        if (r == 0) break; /* end without the two zero blocks: accepted, as GNU tar does */
        if (r != TAR_BLOCK) {
            rc = dp_err_set_at(err, DP_EDATA, path, 0, 0,
                               "truncated: tar header at block %ld is incomplete", block);
            goto out;
        }
        int zero = 1;
        for (int i = 0; i < TAR_BLOCK && zero; i++) zero = h[i] == 0;
        if (zero) break;
        if (!header_ok(h)) {
            rc = dp_err_set_at(err, DP_EDATA, path, 0, 0,
                               "not a tar archive: bad header checksum at block %ld", block);
            goto out;
        }
        size_t size;
        if (octal(h + 124, 12, &size)) {
            rc = dp_err_set_at(err, DP_EDATA, path, 0, 0, "bad member size at block %ld", block);
            goto out;
        }
        char name[101];
        memcpy(name, h, 100);
        name[100] = '\0';
        const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
        int m = -1;
        for (int i = 0; i < N_MEMBERS && (h[156] == '0' || h[156] == '\0'); i++)
            if (strcmp(base, MEMBERS[i]) == 0) m = i;
        size_t padded = (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
        if (m >= 0) {
            char what[160];
            snprintf(what, sizeof what, "member %s", name);
            if (size % CIFAR_REC != 0) {
                rc = dp_err_set_at(err, DP_EDATA, path, 0, 0,
                                   "%s: %zu bytes is not a whole number of %u-byte records",
                                   what, size, CIFAR_REC);
                goto out;
            }
            set_shape(&part[m]);
            if ((rc = read_records(&part[m], f, size, path, what, err))) goto out;
            seen[m] = 1;
            if (skip(f, padded - size)) {
                rc = dp_err_set_at(err, DP_EDATA, path, 0, 0, "truncated after %s", what);
                goto out;
            }
        } else if (skip(f, padded)) {
            rc = dp_err_set_at(err, DP_EDATA, path, 0, 0, "truncated inside member %s", name);
            goto out;
        }
        block += 1 + (long)(padded / TAR_BLOCK);
    }
    for (int i = 0; i < N_MEMBERS; i++)
        if (!seen[i]) {
            rc = dp_err_set_at(err, DP_EDATA, path, 0, 0,
                               "the archive has no member %s (cifar-10-batches-bin/)", MEMBERS[i]);
            goto out;
        }
    set_shape(raw);
    for (int i = 0; i < N_MEMBERS; i++) {
        if (i == N_MEMBERS - 1) raw->n_official_train = raw->n;
        if ((rc = grow(raw, raw->n + part[i].n, path, err))) goto out;
        memcpy(raw->px + raw->n * CIFAR_D, part[i].px, part[i].n * CIFAR_D);
        memcpy(raw->y + raw->n, part[i].y, part[i].n * sizeof *raw->y);
        raw->n += part[i].n;
    }
out:
    for (int i = 0; i < N_MEMBERS; i++) dp_raw_destroy(&part[i]);
    gzclose(f);
    return rc;
}
