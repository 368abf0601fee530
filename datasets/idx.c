/* idx.c: the IDX format of MNIST and Fashion-MNIST, plain or gzip-compressed.
 *
 * Source: LeCun, Cortes, Burges, "The MNIST database of handwritten digits" (LeCun et al.
 * 1998; CC BY-SA 3.0 as commonly stated); Fashion-MNIST (Xiao, Rasul, Vollgraf 2017; MIT)
 * uses the same files. Format: big-endian 32-bit header words. Images (idx3): magic 2051
 * = 0x00000803 (unsigned bytes, 3 dimensions), count, rows, cols, then count*rows*cols
 * bytes, row-major. Labels (idx1): magic 2049, count, then one byte per item.
 *
 * Everything read is checked: magic, dimensions (1..4096), the image and label counts
 * agree, every label is in 0..9, and the file has exactly the promised bytes (a short
 * read is "truncated", extra bytes after the last item are an error too: a file with a
 * wrong count would otherwise load silently short). zlib's gzread reads plain files
 * as they are, so one code path serves both.
 *
 * Memory follows the bytes actually read, not the header: the images are read in steps of
 * IDX_STEP_BYTES into a buffer grown per step, and the labels are allocated only once the
 * images are in. A forged 24-byte pair announcing 2^32 - 1 images of 4096 x 4096 (72 PB)
 * then fails as "truncated" after allocating one step, instead of asking for the lot
 * (found by tests/fuzz/fuzz_idx.c; its crash file is kept there as a regression input).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "datasets/data_int.h"

#define IDX_IMAGES_MAGIC 2051u
#define IDX_LABELS_MAGIC 2049u
#define IDX_MAX_DIM 4096u
#define IDX_LABEL_MAX 9
#define IDX_STEP_BYTES ((size_t)1 << 24)

/* Read exactly n bytes; DP_EDATA "truncated" naming what was being read. `before` bytes
 * of `what` were read by earlier calls and `total` is its whole size (the message counts
 * from its start). */
static int read_part(gzFile f, const char *path, void *buf, size_t n, size_t before,
                     size_t total, const char *what, dp_err *err)
{
    size_t got = 0;
    while (got < n) {
        unsigned chunk = n - got > (1u << 30) ? (1u << 30) : (unsigned)(n - got);
        int r = gzread(f, (char *)buf + got, chunk);
        if (r < 0) {
            int zerr;
            const char *m = gzerror(f, &zerr);
            return dp_err_set_at(err, DP_EDATA, path, 0, 0, "corrupt gzip data reading %s: %s",
                                 what, m);
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    if (got < n)
        return dp_err_set_at(err, DP_EDATA, path, 0, 0,
                             "truncated: %s needs %zu bytes, the file has only %zu", what,
                             total, before + got);
    return DP_OK;
}

static int read_exact(gzFile f, const char *path, void *buf, size_t n, const char *what,
                      dp_err *err)
{
    return read_part(f, path, buf, n, 0, n, what, err);
}

static uint32_t be32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* After the last item: nothing may follow. */
static int expect_end(gzFile f, const char *path, size_t items, dp_err *err)
{
    char c;
    int r = gzread(f, &c, 1);
    if (r < 0) {
        int zerr;
        return dp_err_set_at(err, DP_EDATA, path, 0, 0, "corrupt gzip data: %s",
                             gzerror(f, &zerr));
    }
    if (r > 0)
        return dp_err_set_at(err, DP_EDATA, path, 0, 0,
                             "extra bytes after the %zu items the header announces", items);
    return DP_OK;
}

static int open_gz(const char *path, gzFile *out, dp_err *err)
{
    *out = gzopen(path, "rb");
    if (!*out) return dp_err_set_at(err, DP_EIO, path, 0, 0, "cannot open the file");
    gzbuffer(*out, 1u << 17);
    return DP_OK;
}

int dp_idx_read(dp_raw *raw, const char *images_path, const char *labels_path, dp_err *err)
{
    gzFile fi = NULL, fl = NULL;
    unsigned char h[16];
    uint8_t *px = NULL, *lab = NULL;
    int *y = NULL;
    int rc;
    if ((rc = open_gz(images_path, &fi, err))) goto fail;
    if ((rc = read_exact(fi, images_path, h, 16, "the 16-byte idx3 header", err))) goto fail;
    uint32_t magic = be32(h), count = be32(h + 4), rows = be32(h + 8), cols = be32(h + 12);
    if (magic != IDX_IMAGES_MAGIC) {
        rc = dp_err_set_at(err, DP_EDATA, images_path, 0, 0,
                           "bad magic number %u (0x%08x): an idx3 image file starts with 2051 "
                           "(0x00000803)%s", magic, magic,
                           magic == IDX_LABELS_MAGIC ? "; this is a label file" : "");
        goto fail;
    }
    if (count == 0 || rows == 0 || cols == 0 || rows > IDX_MAX_DIM || cols > IDX_MAX_DIM) {
        rc = dp_err_set_at(err, DP_EDATA, images_path, 0, 0,
                           "bad dimensions: %u images of %u x %u", count, rows, cols);
        goto fail;
    }
    size_t d = (size_t)rows * cols;
    if (raw->px && (raw->d != d || raw->h != (int)rows)) {
        rc = dp_err_set_at(err, DP_EDATA, images_path, 0, 0,
                           "images are %u x %u, but the training images were %d x %d", rows,
                           cols, raw->h, raw->w);
        goto fail;
    }

    if ((rc = open_gz(labels_path, &fl, err))) goto fail;
    if ((rc = read_exact(fl, labels_path, h, 8, "the 8-byte idx1 header", err))) goto fail;
    uint32_t lmagic = be32(h), lcount = be32(h + 4);
    if (lmagic != IDX_LABELS_MAGIC) {
        rc = dp_err_set_at(err, DP_EDATA, labels_path, 0, 0,
                           "bad magic number %u (0x%08x): an idx1 label file starts with 2049 "
                           "(0x00000801)%s", lmagic, lmagic,
                           lmagic == IDX_IMAGES_MAGIC ? "; this is an image file" : "");
        goto fail;
    }
    if (lcount != count) {
        rc = dp_err_set_at(err, DP_EDATA, labels_path, 0, 0,
                           "%u labels for the %u images of %s", lcount, count, images_path);
        goto fail;
    }

    size_t n0 = raw->n, n = n0 + count, total = (size_t)count * d;
    char what[64];
    snprintf(what, sizeof what, "%u images of %u x %u", count, rows, cols);
    for (size_t got = 0; got < total;) {
        size_t step = total - got < IDX_STEP_BYTES ? total - got : IDX_STEP_BYTES;
        px = realloc(raw->px, n0 * d + got + step);
        if (!px) goto oom;
        raw->px = px;
        if ((rc = read_part(fi, images_path, px + n0 * d + got, step, got, total, what, err)))
            goto fail;
        got += step;
    }
    if ((rc = expect_end(fi, images_path, count, err))) goto fail;
    y = realloc(raw->y, n * sizeof *y);
    if (!y) goto oom;
    raw->y = y;
    lab = malloc(count);
    if (!lab) goto oom;
    snprintf(what, sizeof what, "%u labels", count);
    if ((rc = read_exact(fl, labels_path, lab, count, what, err)) ||
        (rc = expect_end(fl, labels_path, count, err)))
        goto fail;
    for (uint32_t i = 0; i < count; i++) {
        if (lab[i] > IDX_LABEL_MAX) {
            rc = dp_err_set_at(err, DP_EDATA, labels_path, 0, 0,
                               "label %u of item %u (0-based) is outside 0..%d", lab[i], i,
                               IDX_LABEL_MAX);
            goto fail;
        }
        y[n0 + i] = lab[i];
    }
    raw->n = n;
    raw->d = d;
    raw->c = 1;
    raw->h = (int)rows;
    raw->w = (int)cols;
    raw->n_classes = IDX_LABEL_MAX + 1;
    free(lab);
    gzclose(fi);
    gzclose(fl);
    return DP_OK;
oom:
    rc = dp_err_set(err, DP_ENOMEM, "out of memory reading %s", images_path);
fail:
    free(lab);
    if (fi) gzclose(fi);
    if (fl) gzclose(fl);
    return rc;
}
