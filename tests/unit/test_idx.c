/* test_idx.c: the IDX reader (datasets/idx.c) and CIFAR-10 binary reader (datasets/cifar.c)
 * on tiny files written here in the exact original formats: plain, gzip, and .tar.gz,
 * and one corrupt or truncated variant per check, each with its expected message.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "datasets/data_int.h"
#include "tests/unit/test_util.h"

static char dir[256];

static void setup(void) { test_tmpdir(dir, sizeof dir, "dperm-idx-"); }
static void teardown(void) { test_rmtree(dir); }

static const char *path(const char *name)
{
    static char buf[4][400];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Write bytes to dir/name, gzip-compressed when the name ends in .gz. */
static void write_file(const char *name, const void *data, size_t n)
{
    const char *p = path(name);
    if (strstr(name, ".gz")) {
        gzFile f = gzopen(p, "wb");
        ck_assert_ptr_nonnull(f);
        if (n) ck_assert_int_eq(gzwrite(f, data, (unsigned)n), (int)n);
        gzclose(f);
    } else {
        FILE *f = fopen(p, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(data, 1, n, f), n);
        fclose(f);
    }
}

static void be32(unsigned char *b, unsigned v)
{
    b[0] = (unsigned char)(v >> 24), b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8), b[3] = (unsigned char)v;
}

/* IDX pair of `count` images of rows x cols (pixel = 10 * item + position) with labels
 * item % 10; `cut` bytes removed from the end of the image file, `extra` bytes added. */
static void write_idx(const char *img, const char *lab, unsigned magic, unsigned count,
                      unsigned hdr_count, unsigned rows, unsigned cols, size_t cut, size_t extra,
                      int bad_label)
{
    size_t d = (size_t)rows * cols, n = 16 + count * d + extra;
    unsigned char *b = calloc(n, 1);
    be32(b, magic), be32(b + 4, hdr_count), be32(b + 8, rows), be32(b + 12, cols);
    for (size_t i = 0; i < count * d; i++) b[16 + i] = (unsigned char)(10 * (i / d) + i % d);
    write_file(img, b, n - cut);
    free(b);
    unsigned char *l = calloc(8 + count, 1);
    be32(l, 2049), be32(l + 4, hdr_count);
    for (unsigned i = 0; i < count; i++) l[8 + i] = (unsigned char)(i % 10);
    if (bad_label) l[8 + 1] = 12;
    write_file(lab, l, 8 + count);
    free(l);
}

/* raw must be zeroed or hold a previous table: a failed read leaves its arrays to the
 * caller (dp_raw_destroy), as load.c does. */
static int read_idx(const char *img, const char *lab, dp_raw *raw, dp_err *e)
{
    dp_raw_destroy(raw);
    dp_err_clear(e);
    return dp_idx_read(raw, path(img), path(lab), e);
}

static void expect_error(int rc, const dp_err *e, const char *file, const char *phrase)
{
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_msg(strstr(e->file, file) != NULL, "error file '%s' lacks '%s'", e->file, file);
    ck_assert_msg(strstr(e->msg, phrase) != NULL, "message '%s' lacks '%s'", e->msg, phrase);
}

// ---- idx-1: valid files -----------------------------------------------------------------

/* idx-1.1 / 1.2: plain and gzip files give the same table, pixels and labels as written;
 * a second pair (the test file) is appended after the first. */
START_TEST(test_idx_plain_and_gz)
{
    const char *names[2][2] = {{"i.idx3", "l.idx1"}, {"i.idx3.gz", "l.idx1.gz"}};
    for (int g = 0; g < 2; g++) {
        write_idx(names[g][0], names[g][1], 2051, 3, 3, 2, 2, 0, 0, 0);
        dp_raw raw = {0};
        dp_err e;
        ck_assert_int_eq(read_idx(names[g][0], names[g][1], &raw, &e), DP_OK);
        ck_assert_uint_eq(raw.n, 3);
        ck_assert_uint_eq(raw.d, 4);
        ck_assert_int_eq(raw.h, 2);
        ck_assert_int_eq(raw.n_classes, 10);
        ck_assert_uint_eq(raw.px[2 * 4 + 3], 23);
        ck_assert_int_eq(raw.y[2], 2);
        ck_assert_int_eq(dp_idx_read(&raw, path(names[g][0]), path(names[g][1]), &e), DP_OK);
        ck_assert_uint_eq(raw.n, 6);
        ck_assert_uint_eq(raw.px[5 * 4 + 1], 21);
        dp_raw_destroy(&raw);
    }
}
END_TEST

// ---- idx-2: corrupt files, each with its message ---------------------------------------

START_TEST(test_idx_corrupt)
{
    dp_raw raw = {0};
    dp_err e;
    /* idx-2.1 bad magic */
    write_idx("a", "b", 2049, 3, 3, 2, 2, 0, 0, 0);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/a", "bad magic number 2049 (0x00000801)");
    ck_assert_msg(strstr(e.msg, "this is a label file"), "%s", e.msg);
    /* idx-2.2 truncated pixels */
    write_idx("a", "b", 2051, 3, 3, 2, 2, 5, 0, 0);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/a",
                 "truncated: 3 images of 2 x 2 needs 12 bytes, the file has only 7");
    /* idx-2.3 truncated header */
    write_file("a", "\0\0\x08\x03\0\0", 6);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/a", "truncated: the 16-byte idx3 header");
    /* idx-2.4 a label out of 0..9 */
    write_idx("a", "b", 2051, 3, 3, 2, 2, 0, 0, 1);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/b", "label 12 of item 1 (0-based) is outside 0..9");
    /* idx-2.5 extra bytes after the announced items (a wrong count must not load short) */
    write_idx("a", "b", 2051, 3, 3, 2, 2, 0, 4, 0);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/a", "extra bytes after the 3 items");
    /* idx-2.6 zero dimension */
    write_idx("a", "b", 2051, 3, 3, 0, 2, 0, 0, 0);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/a", "bad dimensions: 3 images of 0 x 2");
    /* idx-2.7 label count differs from image count */
    write_idx("a", "b", 2051, 3, 3, 2, 2, 0, 0, 0);
    unsigned char l[8 + 2] = {0, 0, 8, 1, 0, 0, 0, 2, 1, 1};
    write_file("b", l, sizeof l);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/b", "2 labels for the 3 images");
    /* idx-2.8 a truncated .gz: the gzip stream ends early */
    write_idx("c.gz", "d.gz", 2051, 50, 50, 8, 8, 0, 0, 0);
    FILE *f = fopen(path("c.gz"), "rb");
    unsigned char buf[8192];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    write_file("c.cut", buf, n / 2);
    rename(path("c.cut"), path("c2.gz"));
    int rc = read_idx("c2.gz", "d.gz", &raw, &e);
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_msg(strstr(e.msg, "truncated") || strstr(e.msg, "corrupt gzip"), "%s", e.msg);
    /* idx-2.9 a missing file */
    ck_assert_int_eq(read_idx("nope", "b", &raw, &e), DP_EIO);
    ck_assert_str_eq(e.msg, "cannot open the file");
    /* idx-2.10 a forged header announcing 2^32 - 1 images of 4096 x 4096 over 8 bytes of
     * pixels: "truncated", with memory for what the file holds (it used to ask for the
     * 72 PB announced: "out of memory" here, an abort under ASan; found by fuzz_idx) */
    unsigned char forged[16 + 8] = {0, 0, 8, 3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x10, 0, 0, 0, 0x10, 0};
    unsigned char forged_labels[8] = {0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff};
    write_file("a", forged, sizeof forged);
    write_file("b", forged_labels, sizeof forged_labels);
    expect_error(read_idx("a", "b", &raw, &e), &e, "/a",
                 "truncated: 4294967295 images of 4096 x 4096 needs 72057594021150720 bytes, "
                 "the file has only 8");
    dp_raw_destroy(&raw);
}
END_TEST

// ---- cifar-1: batches and the archive ---------------------------------------------------

/* A batch of n records: label (first + i) % 10, pixels (i + channel) mod 256. */
static void write_batch(const char *name, int n, int first, size_t cut, int bad_label)
{
    size_t sz = (size_t)n * 3073;
    unsigned char *b = calloc(sz, 1);
    for (int i = 0; i < n; i++) {
        b[(size_t)i * 3073] = (unsigned char)((first + i) % 10);
        for (int c = 0; c < 3072; c++) b[(size_t)i * 3073 + 1 + c] = (unsigned char)(i + c / 1024);
    }
    if (bad_label) b[3073] = 11;
    write_file(name, b, sz - cut);
    free(b);
}

static void tar_header(unsigned char *h, const char *name, size_t size, int bad_sum)
{
    memset(h, 0, 512);
    snprintf((char *)h, 100, "%s", name);
    snprintf((char *)h + 100, 8, "0000644");
    snprintf((char *)h + 124, 12, "%011o", (unsigned)size);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++) sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum + (bad_sum ? 1 : 0));
}

/* cifar-10-binary.tar.gz with the members in `order` (indices into the six names; -1 ends),
 * a readme first, `records` records per batch. */
static void write_tar(const char *name, const int *order, int records, int bad_sum)
{
    static const char *members[] = {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                                    "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"};
    gzFile f = gzopen(path(name), "wb");
    unsigned char h[512], pad[512] = {0};
    tar_header(h, "cifar-10-batches-bin/readme.html", 5, 0);
    gzwrite(f, h, 512);
    gzwrite(f, "hello", 5);
    gzwrite(f, pad, 507);
    for (int k = 0; order[k] >= 0; k++) {
        char full[128];
        snprintf(full, sizeof full, "cifar-10-batches-bin/%s", members[order[k]]);
        size_t sz = (size_t)records * 3073;
        tar_header(h, full, sz, bad_sum && k == 1);
        gzwrite(f, h, 512);
        for (int i = 0; i < records; i++) {
            unsigned char rec[3073];
            rec[0] = (unsigned char)order[k];
            memset(rec + 1, order[k] * 10 + i, 3072);
            gzwrite(f, rec, 3073);
        }
        gzwrite(f, pad, (unsigned)((512 - sz % 512) % 512));
    }
    gzwrite(f, pad, 512);
    gzwrite(f, pad, 512);
    gzclose(f);
}

START_TEST(test_cifar_files)
{
    /* cifar-1.1: two training batches and a test batch, in order; CHW bytes kept */
    write_batch("b1.bin", 3, 0, 0, 0);
    write_batch("b2.bin", 2, 3, 0, 0);
    write_batch("t.bin", 4, 7, 0, 0);
    const char *p[3] = {path("b1.bin"), path("b2.bin"), path("t.bin")};
    dp_raw raw = {0};
    dp_err e;
    ck_assert_int_eq(dp_cifar_read_files(&raw, p, 2, 1, &e), DP_OK);
    ck_assert_uint_eq(raw.n, 9);
    ck_assert_uint_eq(raw.n_official_train, 5);
    ck_assert_uint_eq(raw.d, 3072);
    ck_assert_int_eq(raw.c, 3);
    ck_assert_int_eq(raw.y[4], 4);
    ck_assert_int_eq(raw.y[5], 7);
    ck_assert_uint_eq(raw.px[1 * 3072 + 2048], 3); /* record 1, blue plane: 1 + 2 */
    dp_raw_destroy(&raw);
    /* cifar-1.2: a partial record */
    write_batch("b1.bin", 3, 0, 100, 0);
    memset(&raw, 0, sizeof raw);
    expect_error(dp_cifar_read_files(&raw, p, 2, 1, &e), &e, "b1.bin",
                 "batch: truncated: record 3 has 2973 of 3073 bytes");
    dp_raw_destroy(&raw);
    /* cifar-1.3: a label out of range */
    write_batch("b1.bin", 3, 0, 0, 1);
    memset(&raw, 0, sizeof raw);
    expect_error(dp_cifar_read_files(&raw, p, 2, 1, &e), &e, "b1.bin",
                 "record 2: label 11 is outside 0..9");
    dp_raw_destroy(&raw);
}
END_TEST

START_TEST(test_cifar_tar)
{
    /* cifar-1.4: the archive, members stored out of order, read in canonical order */
    int order[] = {5, 2, 0, 1, 4, 3, -1};
    write_tar("c.tar.gz", order, 2, 0);
    dp_raw raw = {0};
    dp_err e;
    ck_assert_int_eq(dp_cifar_read_tar(&raw, path("c.tar.gz"), &e), DP_OK);
    ck_assert_uint_eq(raw.n, 12);
    ck_assert_uint_eq(raw.n_official_train, 10);
    for (int b = 0; b < 6; b++) ck_assert_int_eq(raw.y[2 * b], b);
    ck_assert_uint_eq(raw.px[3 * 3072], 11); /* data_batch_2 (index 1), record 1: 10 + 1 */
    dp_raw_destroy(&raw);
    /* cifar-1.5: a member missing */
    int missing[] = {0, 1, 2, 3, 4, -1};
    write_tar("c.tar.gz", missing, 1, 0);
    memset(&raw, 0, sizeof raw);
    expect_error(dp_cifar_read_tar(&raw, path("c.tar.gz"), &e), &e, "c.tar.gz",
                 "the archive has no member test_batch.bin");
    dp_raw_destroy(&raw);
    /* cifar-1.6: a damaged header */
    write_tar("c.tar.gz", order, 1, 1);
    memset(&raw, 0, sizeof raw);
    expect_error(dp_cifar_read_tar(&raw, path("c.tar.gz"), &e), &e, "c.tar.gz",
                 "not a tar archive: bad header checksum at block");
    dp_raw_destroy(&raw);
    /* cifar-1.7: the archive cut inside a member */
    write_tar("c.tar.gz", order, 2, 0);
    gzFile in = gzopen(path("c.tar.gz"), "rb");
    static unsigned char all[40000];
    int n = gzread(in, all, sizeof all);
    gzclose(in);
    write_file("cut.tar.gz", all, (size_t)n / 2);
    memset(&raw, 0, sizeof raw);
    int rc = dp_cifar_read_tar(&raw, path("cut.tar.gz"), &e);
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_msg(strstr(e.msg, "truncated"), "%s", e.msg);
    dp_raw_destroy(&raw);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("idx");
    const test_case_def cases[] = {{"idx-1.1", test_idx_plain_and_gz},
                                   {"idx-2.1", test_idx_corrupt},
                                   {"cifar-1.1", test_cifar_files},
                                   {"cifar-1.4", test_cifar_tar}};
    test_add_cases(s, cases, sizeof cases / sizeof cases[0], 30, setup, teardown);
    return s;
}

int main(void) { return test_run_suite(suite()); }
