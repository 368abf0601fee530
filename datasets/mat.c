/* mat.c: SVHN's cropped digits (format 2), read from the MATLAB level-5 MAT-files they are
 * distributed as, train_32x32.mat and test_32x32.mat.
 *
 * Source: Netzer, Wang, Coates, Bissacco, Wu, Ng (2011), "Reading Digits in Natural Images
 * with Unsupervised Feature Learning"; http://ufldl.stanford.edu/housenumbers/ (for
 * non-commercial use only). Each file holds two variables: X, uint8, 32 x 32 x 3 x N
 * (height x width x channel x example), and y, N x 1 labels 1..10, 10 being the digit 0.
 * MATLAB stores arrays column-major, so X(i, j, k, n) is byte i + 32 j + 1024 k + 3072 n of
 * X's data; dperm's rows are CHW, byte k * 1024 + i * 32 + j, so each 32 x 32 plane is
 * transposed on the way in. Labels become classes 0..9 (10 -> 0), named "0".."9".
 *
 * Format (MathWorks, "MAT-File Format", level 5): a 128-byte header (116 bytes of free
 * text, 8 of subsystem offset, version 0x0100, endian indicator 'IM' at byte 126 when the
 * file is little-endian, 'MI' when big-endian), then data elements: an 8-byte tag (32-bit
 * data type, 32-bit byte count), the data, padding to a multiple of 8. A tag whose upper 16
 * bits are not zero is the small format: type in the low 16 bits, byte count (<= 4) in the
 * high 16, the data in the tag's second word. A variable is an miMATRIX (type 14) of
 * subelements: array flags (miUINT32; class in the low byte, complex 0x0800), dimensions
 * (miINT32), name (miINT8), real part. MATLAB stores a double array in the smallest integer
 * type holding its values, so X and y are decoded by their data type and checked by value,
 * whatever their numeric class. Compressed (as published), a variable is an miCOMPRESSED
 * (type 15) element: a zlib stream inflating to the miMATRIX. Variables other than X and y
 * are skipped (a compressed one without being inflated past its name).
 *
 * Checks, and why: the header's version and endian indicator (a level-4 file, or a 7.3
 * one, which is HDF5, is refused saying so, not misread); every byte count against the bytes left in its
 * file or enclosing array, and the real part's count against its dimensions (a forged
 * size cannot send a read past its element); the tag types (array flags, dimensions,
 * name, numeric data); X exactly 32 x 32 x 3 x N with pixels whole numbers 0..255, y a
 * vector of N whole numbers 1..10 (the data is what the published files hold, or an
 * error); X and y each present once. Compressed streams are inflated to their end so
 * zlib's checksum is verified: a damaged file does not load silently wrong.
 *
 * Memory follows the bytes actually read, not the dimensions: the pixels are read one
 * example at a time into a buffer grown SVHN_STEP_ROWS examples at a time, the labels in
 * chunks: a compressed X announcing 1398101 examples (4 GB, the most a 32-bit byte count
 * holds) but holding 3 fails as truncated after one step (fixture bad-forged-count.mat).
 * The file is read through zlib's gzread, which also reads a gzip-compressed copy (the
 * .gz twin datasets/discovery.c accepts); its size is then unknown until its end.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "datasets/data_int.h"

#define SVHN_SIDE 32
#define SVHN_CHANNELS 3
#define SVHN_PLANE (SVHN_SIDE * SVHN_SIDE)
#define SVHN_D (SVHN_CHANNELS * SVHN_PLANE)
#define SVHN_CLASSES 10
#define SVHN_STEP_ROWS 4096           /* 12 MB of pixels per allocation step */

#define MAT_HEADER 128
#define MAT_VERSION 0x0100
#define MAT_CHUNK (1u << 16)          /* compressed bytes fed to zlib per read */
#define MAT_MAX_DIMS 8                /* dimensions kept (X has 4); more are skipped */
#define MAT_NAME_MAX 63               /* MATLAB's namelengthmax */
#define MAT_MAX_VALUE_SIZE 8

/* Data types and array classes of the format. */
enum {
    MI_INT8 = 1, MI_UINT8 = 2, MI_INT16 = 3, MI_UINT16 = 4, MI_INT32 = 5, MI_UINT32 = 6,
    MI_SINGLE = 7, MI_DOUBLE = 9, MI_INT64 = 12, MI_UINT64 = 13, MI_MATRIX = 14,
    MI_COMPRESSED = 15
};
enum { MX_CHAR_CLASS = 4, MX_SPARSE_CLASS = 5, MX_DOUBLE_CLASS = 6, MX_UINT64_CLASS = 15 };
#define MX_COMPLEX_FLAG 0x0800u

static const char *const CLASS_NAMES[] = {
    "unknown", "cell", "struct", "object", "char", "sparse", "double", "single",
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"};

/* An open MAT-file, read sequentially: from the file itself, or from the inflated
 * content of the miCOMPRESSED element being read (inflating = 1). */
typedef struct mat_file {
    gzFile f;
    const char *path;
    int big;                  /* 'MI': big-endian values */
    size_t file_left;         /* bytes after the read position, SIZE_MAX: unknown (gzip) */
    long long offset;         /* read position in the file */
    long long element;        /* file offset of the top-level element being read */
    const char *var;          /* variable being read ("" before its name) */
    int inflating;
    int stream_end;           /* zlib reached the end of the compressed stream */
    size_t packed_left;       /* bytes of the compressed element not yet given to zlib */
    z_stream z;
    unsigned char in[MAT_CHUNK];
    unsigned char values[SVHN_D * MAT_MAX_VALUE_SIZE]; /* one example's pixels, or labels */
} mat_file;

/* A data element's tag: type, byte count, and for the small format its data. */
typedef struct mat_tag {
    unsigned type;
    size_t n;
    size_t pad;               /* padding after the data (normal format) */
    int small;
    unsigned char data[4];
    size_t used;              /* bytes of the data read so far */
} mat_tag;

/* What one file gave: X straight into raw->px (after the rows of earlier files), y into
 * labels until both are known to agree. */
typedef struct svhn_vars {
    dp_raw *raw;
    size_t n0;                /* rows before this file */
    size_t rows_cap;          /* rows raw->px has room for after n0 */
    int have_x, have_y;
    size_t n_x, n_y;
    int *labels;
} svhn_vars;

/* DP_EDATA naming the file, the variable (once its name is read) and the element. */
__attribute__((format(printf, 3, 4)))
static int mat_error(const mat_file *m, dp_err *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (m->var && m->var[0])
        return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "variable %s: %s, in the %selement "
                             "at byte %lld", m->var, msg, m->inflating ? "compressed " : "",
                             m->element);
    return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "%s, in the %selement at byte %lld", msg,
                         m->inflating ? "compressed " : "", m->element);
}

static uint64_t decode_uint(const unsigned char *p, size_t width, int big)
{
    uint64_t v = 0;
    for (size_t b = 0; b < width; b++) v |= (uint64_t)p[big ? width - 1 - b : b] << (8 * b);
    return v;
}

static size_t value_size(unsigned type)
{
    switch (type) {
    case MI_INT8: case MI_UINT8: return 1;
    case MI_INT16: case MI_UINT16: return 2;
    case MI_INT32: case MI_UINT32: case MI_SINGLE: return 4;
    case MI_DOUBLE: case MI_INT64: case MI_UINT64: return 8;
    default: return 0; /* not numeric */
    }
}

/* One value of numeric type `type` as a double (exact for the ranges checked here). */
static double decode_value(const unsigned char *p, unsigned type, int big)
{
    size_t w = value_size(type);
    uint64_t u = decode_uint(p, w, big);
    int is_signed = type == MI_INT8 || type == MI_INT16 || type == MI_INT32 || type == MI_INT64;
    if (type == MI_SINGLE) {
        uint32_t bits = (uint32_t)u;
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    if (type == MI_DOUBLE) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    if (is_signed && (u >> (8 * w - 1)) & 1) return (double)u - ldexp(1.0, (int)(8 * w));
    return (double)u;
}

/* ---- reading: file, compressed stream, elements --------------------------------------- */

/* Up to n bytes of the file; *got < n only at its end. */
static int file_read(mat_file *m, void *buf, size_t n, size_t *got, dp_err *err)
{
    *got = 0;
    while (*got < n) {
        unsigned chunk = n - *got > (1u << 30) ? (1u << 30) : (unsigned)(n - *got);
        int r = gzread(m->f, (char *)buf + *got, chunk);
        if (r < 0) {
            int z;
            return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "corrupt gzip data: %s",
                                 gzerror(m->f, &z));
        }
        if (r == 0) break;
        *got += (size_t)r;
    }
    m->offset += (long long)*got;
    if (m->file_left != SIZE_MAX) m->file_left -= *got < m->file_left ? *got : m->file_left;
    return DP_OK;
}

/* Up to n bytes of the inflated element; *got < n at the end of its stream or of its
 * compressed bytes. */
static int packed_read(mat_file *m, void *buf, size_t n, size_t *got, dp_err *err)
{
    m->z.next_out = buf;
    m->z.avail_out = (uInt)n;
    while (m->z.avail_out > 0 && !m->stream_end) {
        if (m->z.avail_in == 0) {
            size_t want = m->packed_left < MAT_CHUNK ? m->packed_left : MAT_CHUNK, in;
            if (want == 0) break;
            int rc = file_read(m, m->in, want, &in, err);
            if (rc) return rc;
            if (in == 0) break;
            m->packed_left -= in;
            m->z.next_in = m->in;
            m->z.avail_in = (uInt)in;
        }
        int zr = inflate(&m->z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) m->stream_end = 1;
        else if (zr != Z_OK && zr != Z_BUF_ERROR)
            return mat_error(m, err, "corrupt compressed data: %s",
                             m->z.msg ? m->z.msg : "zlib error");
    }
    *got = n - m->z.avail_out;
    return DP_OK;
}

/* Exactly n bytes (n <= UINT_MAX) of the current layer, or DP_EDATA "truncated". */
static int mat_read(mat_file *m, void *buf, size_t n, const char *what, dp_err *err)
{
    size_t got;
    int rc = m->inflating ? packed_read(m, buf, n, &got, err) : file_read(m, buf, n, &got, err);
    if (rc) return rc;
    if (got < n)
        return mat_error(m, err, "truncated: the %s ends inside %s",
                         m->inflating ? "compressed data" : "file", what);
    return DP_OK;
}

/* Skip n bytes of the current layer. */
static int mat_skip(mat_file *m, size_t n, const char *what, dp_err *err)
{
    unsigned char buf[4096];
    while (n > 0) {
        size_t k = n < sizeof buf ? n : sizeof buf;
        int rc = mat_read(m, buf, k, what, err);
        if (rc) return rc;
        n -= k;
    }
    return DP_OK;
}

/* The next tag of an array whose body has *left bytes unread; the element's bytes (data
 * and padding) are taken from *left here, so the caller reads exactly t->n data bytes
 * and then calls tag_end. The padding may be missing after the last subelement. */
static int read_tag(mat_file *m, size_t *left, mat_tag *t, const char *what, dp_err *err)
{
    unsigned char b[8];
    memset(t, 0, sizeof *t);
    if (*left < 8)
        return mat_error(m, err, "the array ends where its %s should be (%zu bytes left, a "
                         "tag is 8)", what, *left);
    int rc = mat_read(m, b, 8, what, err);
    if (rc) return rc;
    *left -= 8;
    uint32_t w0 = (uint32_t)decode_uint(b, 4, m->big);
    if (w0 >> 16) {
        t->small = 1;
        t->type = w0 & 0xffffu;
        t->n = w0 >> 16;
        if (t->n > 4)
            return mat_error(m, err, "%s: a small data element of %zu bytes (at most 4)",
                             what, t->n);
        memcpy(t->data, b + 4, 4);
        return DP_OK;
    }
    t->type = w0;
    t->n = (size_t)decode_uint(b + 4, 4, m->big);
    if (t->n > *left)
        return mat_error(m, err, "%s: %zu bytes declared, only %zu left in the array", what,
                         t->n, *left);
    *left -= t->n;
    t->pad = (8 - t->n % 8) % 8;
    if (t->pad > *left) t->pad = *left;
    *left -= t->pad;
    return DP_OK;
}

/* The next n bytes of t's data. */
static int tag_read(mat_file *m, mat_tag *t, void *buf, size_t n, const char *what,
                    dp_err *err)
{
    if (n > t->n - t->used) return mat_error(m, err, "%s: the element is too short", what);
    int rc = DP_OK;
    if (t->small) memcpy(buf, t->data + t->used, n);
    else rc = mat_read(m, buf, n, what, err);
    t->used += n;
    return rc;
}

/* Skip what is left of t's data and its padding. */
static int tag_end(mat_file *m, mat_tag *t, const char *what, dp_err *err)
{
    if (t->small) return DP_OK;
    int rc = mat_skip(m, t->n - t->used + t->pad, what, err);
    t->used = t->n;
    return rc;
}

/* ---- X and y -------------------------------------------------------------------------- */

static int reserve_rows(svhn_vars *v, size_t rows, const mat_file *m, dp_err *err)
{
    if (rows <= v->rows_cap) return DP_OK;
    size_t cap = v->rows_cap + SVHN_STEP_ROWS;
    uint8_t *px = realloc(v->raw->px, (v->n0 + cap) * SVHN_D);
    if (!px) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", m->path);
    v->raw->px = px;
    v->rows_cap = cap;
    return DP_OK;
}

/* X's n examples of `type`, example by example, each plane transposed from MATLAB's
 * column-major (i + 32 j) to dperm's row-major (i * 32 + j). uint8 (the published type)
 * is copied; another type is decoded and checked value by value. */
static int read_pixels(mat_file *m, mat_tag *t, size_t n, svhn_vars *v, dp_err *err)
{
    unsigned char *buf = m->values;
    size_t w = value_size(t->type);
    char what[96];
    for (size_t e = 0; e < n; e++) {
        snprintf(what, sizeof what, "the pixels of example %zu of %zu", e + 1, n);
        int rc = tag_read(m, t, buf, SVHN_D * w, what, err);
        if (rc || (rc = reserve_rows(v, e + 1, m, err))) return rc;
        uint8_t *row = v->raw->px + (v->n0 + e) * SVHN_D;
        for (size_t k = 0; k < SVHN_CHANNELS; k++)
            for (size_t j = 0; j < SVHN_SIDE; j++)
                for (size_t i = 0; i < SVHN_SIDE; i++) {
                    size_t src = i + SVHN_SIDE * j + SVHN_PLANE * k;
                    if (t->type == MI_UINT8) {
                        row[k * SVHN_PLANE + i * SVHN_SIDE + j] = buf[src];
                        continue;
                    }
                    double x = decode_value(buf + src * w, t->type, m->big);
                    if (!(x >= 0 && x <= 255 && x == floor(x)))
                        return mat_error(m, err, "X(%zu,%zu,%zu,%zu) = %g is not a pixel value "
                                         "(a whole number 0..255)", i + 1, j + 1, k + 1, e + 1, x);
                    row[k * SVHN_PLANE + i * SVHN_SIDE + j] = (uint8_t)x;
                }
    }
    v->n_x = n;
    return DP_OK;
}

/* y's n labels 1..10 as classes (10 -> 0). */
static int read_labels(mat_file *m, mat_tag *t, size_t n, svhn_vars *v, dp_err *err)
{
    unsigned char *buf = m->values;
    size_t w = value_size(t->type);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < SVHN_D ? n - done : SVHN_D;
        int rc = tag_read(m, t, buf, k * w, "the labels", err);
        if (rc) return rc;
        int *labels = realloc(v->labels, (done + k) * sizeof *labels);
        if (!labels) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", m->path);
        v->labels = labels;
        for (size_t i = 0; i < k; i++) {
            double y = decode_value(buf + i * w, t->type, m->big);
            if (!(y >= 1 && y <= SVHN_CLASSES && y == floor(y)))
                return mat_error(m, err, "label %zu is %g, not a digit label 1..10 (10 is "
                                 "the digit 0)", done + i + 1, y);
            labels[done + i] = (int)y % SVHN_CLASSES;
        }
        done += k;
    }
    v->n_y = n;
    return DP_OK;
}

/* X must be 32 x 32 x 3 x N (MATLAB drops a trailing 1: one example is 32 x 32 x 3), y a
 * vector; *n gets N. */
static int check_dims(mat_file *m, int is_x, const int32_t *dims, size_t n_dims, size_t *n,
                      dp_err *err)
{
    char shape[MAT_MAX_DIMS * 16];
    size_t used = 0;
    for (size_t i = 0; i < n_dims && i < MAT_MAX_DIMS; i++) {
        if (dims[i] < 0) return mat_error(m, err, "dimension %zu is %d", i + 1, (int)dims[i]);
        used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%d", i ? " x " : "",
                                 (int)dims[i]);
    }
    if (n_dims > MAT_MAX_DIMS) snprintf(shape + used, sizeof shape - used, " x ...");
    if (is_x) {
        int ok = (n_dims == 3 || n_dims == 4) && dims[0] == SVHN_SIDE &&
                 dims[1] == SVHN_SIDE && dims[2] == SVHN_CHANNELS;
        *n = !ok ? 0 : n_dims == 4 ? (size_t)dims[3] : 1;
        if (!ok)
            return mat_error(m, err, "%s; SVHN's X is 32 x 32 x 3 x N (height x width x "
                             "channel x example)", shape);
        if (*n == 0) return mat_error(m, err, "no examples (32 x 32 x 3 x 0)");
        return DP_OK;
    }
    if (n_dims != 2 || (dims[0] != 1 && dims[1] != 1))
        return mat_error(m, err, "%s; SVHN's y is a vector of labels (N x 1)", shape);
    *n = (size_t)dims[0] * (size_t)dims[1];
    return DP_OK;
}

/* One miMATRIX body of *left bytes. X and y are read whole; for another variable the
 * rest (*left bytes) is left to the caller to skip. */
static int read_matrix(mat_file *m, size_t *left, svhn_vars *v, dp_err *err)
{
    mat_tag t;
    unsigned char b[MAT_MAX_DIMS * 4];
    char name[MAT_NAME_MAX + 1];
    m->var = "";
    int rc = read_tag(m, left, &t, "array flags", err);
    if (rc) return rc;
    if (t.type != MI_UINT32 || t.n != 8)
        return mat_error(m, err, "array flags: type %u, %zu bytes (expected miUINT32, 8)",
                         t.type, t.n);
    if ((rc = tag_read(m, &t, b, 8, "array flags", err)) ||
        (rc = tag_end(m, &t, "array flags", err)))
        return rc;
    uint32_t flags = (uint32_t)decode_uint(b, 4, m->big);
    unsigned mx_class = flags & 0xffu;

    if ((rc = read_tag(m, left, &t, "dimensions", err))) return rc;
    size_t n_dims = t.n / 4, kept = n_dims < MAT_MAX_DIMS ? n_dims : MAT_MAX_DIMS;
    if (t.type != MI_INT32 || t.n % 4 || n_dims < 2)
        return mat_error(m, err, "dimensions: type %u, %zu bytes (expected miINT32, at least "
                         "2 dimensions)", t.type, t.n);
    int32_t dims[MAT_MAX_DIMS];
    if ((rc = tag_read(m, &t, b, kept * 4, "dimensions", err)) ||
        (rc = tag_end(m, &t, "dimensions", err)))
        return rc;
    for (size_t i = 0; i < kept; i++) dims[i] = (int32_t)decode_uint(b + 4 * i, 4, m->big);

    if ((rc = read_tag(m, left, &t, "array name", err))) return rc;
    if (t.type != MI_INT8)
        return mat_error(m, err, "array name: type %u (expected miINT8)", t.type);
    size_t len = t.n < MAT_NAME_MAX ? t.n : MAT_NAME_MAX;
    if ((rc = tag_read(m, &t, name, len, "array name", err)) ||
        (rc = tag_end(m, &t, "array name", err)))
        return rc;
    name[len] = '\0';
    int is_x = strcmp(name, "X") == 0;
    if (!is_x && strcmp(name, "y") != 0) return DP_OK; /* another variable: skipped */
    m->var = is_x ? "X" : "y";
    if (is_x ? v->have_x : v->have_y)
        return mat_error(m, err, "a second variable named %s", m->var);

    if (mx_class < MX_DOUBLE_CLASS || mx_class > MX_UINT64_CLASS)
        return mat_error(m, err, "class %s; SVHN's %s is numeric (uint8)",
                         mx_class < MX_DOUBLE_CLASS ? CLASS_NAMES[mx_class] : "unknown",
                         m->var);
    if (flags & MX_COMPLEX_FLAG) return mat_error(m, err, "complex; SVHN's are real");
    size_t n;
    if ((rc = check_dims(m, is_x, dims, n_dims, &n, err))) return rc;

    if ((rc = read_tag(m, left, &t, "real part", err))) return rc;
    size_t w = value_size(t.type);
    if (w == 0)
        return mat_error(m, err, "real part: data type %u is not numeric", t.type);
    if (n > SIZE_MAX / SVHN_D / MAT_MAX_VALUE_SIZE)
        return mat_error(m, err, "%zu examples are more than this machine can address", n);
    size_t values = is_x ? n * SVHN_D : n;
    if (t.n != values * w)
        return mat_error(m, err, "real part: %zu bytes; %zu values of %zu bytes are %zu",
                         t.n, values, w, values * w);
    if ((rc = is_x ? read_pixels(m, &t, n, v, err) : read_labels(m, &t, n, v, err)) ||
        (rc = tag_end(m, &t, "real part", err)))
        return rc;
    if (is_x) v->have_x = 1;
    else v->have_y = 1;
    rc = mat_skip(m, *left, "the end of the array", err);
    *left = 0;
    return rc;
}

/* One miCOMPRESSED element of n bytes: inflate its miMATRIX. X and y are inflated to the
 * end of the stream (zlib then checks its checksum); another variable's remaining
 * compressed bytes are skipped unread. */
static int read_compressed(mat_file *m, size_t n, svhn_vars *v, dp_err *err)
{
    memset(&m->z, 0, sizeof m->z);
    if (inflateInit(&m->z) != Z_OK)
        return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", m->path);
    m->inflating = 1;
    m->stream_end = 0;
    m->packed_left = n;
    mat_tag t;
    size_t left = SIZE_MAX;
    int rc = read_tag(m, &left, &t, "compressed variable", err);
    if (rc == 0 && (t.small || t.type != MI_MATRIX))
        rc = mat_error(m, err, "a compressed element holds data type %u (expected miMATRIX, "
                       "14)", t.type);
    size_t body = t.n;
    if (rc == 0) rc = read_matrix(m, &body, v, err);
    if (rc == 0 && m->var[0]) { /* X or y: the rest of the stream, for the checksum */
        unsigned char rest[4096];
        size_t got;
        do {
            rc = packed_read(m, rest, sizeof rest, &got, err);
        } while (rc == 0 && got == sizeof rest);
        if (rc == 0 && !m->stream_end)
            rc = mat_error(m, err, "truncated: the compressed data ends inside its zlib "
                           "stream");
    }
    inflateEnd(&m->z);
    m->inflating = 0;
    if (rc == 0) rc = mat_skip(m, m->packed_left, "a compressed element", err);
    m->packed_left = 0;
    return rc;
}

/* ---- one file --------------------------------------------------------------------------- */

static int read_header(mat_file *m, dp_err *err)
{
    unsigned char h[MAT_HEADER];
    size_t got;
    int rc = file_read(m, h, MAT_HEADER, &got, err);
    if (rc) return rc;
    if (got >= 10 && memcmp(h, "MATLAB 7.3", 10) == 0)
        return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "a MATLAB 7.3 (HDF5) MAT-file; "
                             "SVHN's files are level 5 (MATLAB 5.0), as published");
    if (got < MAT_HEADER)
        return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "truncated: %zu bytes, a MAT-file "
                             "starts with a 128-byte header", got);
    if (memcmp(h + 126, "IM", 2) == 0) m->big = 0;
    else if (memcmp(h + 126, "MI", 2) == 0) m->big = 1;
    else
        return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "not a level-5 MAT-file: no "
                             "endian indicator 'IM' or 'MI' at byte 126");
    unsigned version = (unsigned)decode_uint(h + 124, 2, m->big);
    if (version != MAT_VERSION)
        return dp_err_set_at(err, DP_EDATA, m->path, 0, 0, "MAT-file version 0x%04x; level 5 "
                             "is 0x0100", version);
    return DP_OK; /* the 116 bytes of text are free-form: not checked */
}

/* Every element of the file at path, then the checks across X and y; the rows are
 * appended to raw. */
static int read_file(dp_raw *raw, const char *path, dp_err *err)
{
    mat_file *m = calloc(1, sizeof *m);
    svhn_vars v = {.raw = raw, .n0 = raw->n};
    int rc = DP_OK;
    if (!m) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
    m->path = path;
    m->var = "";
    m->f = gzopen(path, "rb");
    if (!m->f) {
        free(m);
        return dp_err_set_at(err, DP_EIO, path, 0, 0, "cannot open the file");
    }
    gzbuffer(m->f, 1u << 17);
    struct stat st;
    m->file_left = gzdirect(m->f) && stat(path, &st) == 0 ? (size_t)st.st_size : SIZE_MAX;
    if ((rc = read_header(m, err))) goto out;
    for (;;) {
        unsigned char b[8];
        size_t got;
        m->element = m->offset;
        m->var = "";
        if ((rc = file_read(m, b, 8, &got, err))) goto out;
        if (got == 0) break;
        if (got < 8) {
            rc = mat_error(m, err, "truncated: the file ends inside an element's tag");
            goto out;
        }
        uint32_t type = (uint32_t)decode_uint(b, 4, m->big);
        size_t n = (size_t)decode_uint(b + 4, 4, m->big);
        if (type != MI_MATRIX && type != MI_COMPRESSED) {
            rc = mat_error(m, err, "data type %u; a MAT-file's variables are miMATRIX (14) or "
                           "miCOMPRESSED (15)", type);
            goto out;
        }
        if (m->file_left != SIZE_MAX && n > m->file_left) {
            rc = mat_error(m, err, "truncated: the element declares %zu bytes, the file has "
                           "%zu after its tag", n, m->file_left);
            goto out;
        }
        if (type == MI_COMPRESSED) {
            if ((rc = read_compressed(m, n, &v, err))) goto out;
        } else {
            size_t left = n;
            if ((rc = read_matrix(m, &left, &v, err)) ||
                (rc = mat_skip(m, left, "a variable", err)))
                goto out;
        }
    }
    m->element = m->offset;
    m->var = "";
    if (!v.have_x || !v.have_y) {
        rc = dp_err_set_at(err, DP_EDATA, path, 0, 0, "no variable %s (SVHN's files hold X, "
                           "the images, and y, the labels)", v.have_x ? "y" : "X");
        goto out;
    }
    if (v.n_y != v.n_x) {
        rc = dp_err_set_at(err, DP_EDATA, path, 0, 0, "y has %zu labels for the %zu examples "
                           "of X", v.n_y, v.n_x);
        goto out;
    }
    int *y = realloc(raw->y, (v.n0 + v.n_x) * sizeof *y);
    if (!y) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
        goto out;
    }
    raw->y = y;
    memcpy(y + v.n0, v.labels, v.n_x * sizeof *y);
    raw->n = v.n0 + v.n_x;
    uint8_t *px = realloc(raw->px, raw->n * SVHN_D); /* give back the unused step */
    if (px) raw->px = px;
out:
    free(v.labels);
    gzclose(m->f);
    free(m);
    return rc;
}

int dp_svhn_read(dp_raw *raw, const char *train_path, const char *test_path, dp_err *err)
{
    raw->d = SVHN_D;
    raw->c = SVHN_CHANNELS;
    raw->h = raw->w = SVHN_SIDE;
    raw->n_classes = SVHN_CLASSES;
    for (int k = 0; k < SVHN_CLASSES; k++)
        snprintf(raw->class_names[k], sizeof raw->class_names[k], "%d", k);
    int rc = read_file(raw, train_path, err);
    if (rc) return rc;
    raw->n_official_train = raw->n;
    return read_file(raw, test_path, err);
}
