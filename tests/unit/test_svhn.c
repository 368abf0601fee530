/* test_svhn.c: the SVHN reader (datasets/mat.c) on the MAT-files of tests/fixtures/svhn/
 * (written by make_fixtures.py with scipy.io.savemat, and by its own level-5 writer for
 * what savemat cannot write): every pixel in CHW order and every label, compressed and
 * plain, y stored as uint8, double and MATLAB's double-in-uint8, either byte order, a
 * gzip-compressed copy; one malformed file per check, each with its message; and the
 * public path (dp_data_load), whose published row counts a tiny fixture cannot meet.
 *
 * Fixture pixels: X(i, j, k, n) = (i + 2 j + 3 k + 7 n + base) % 256, base 0 for the
 * training files, 50 for the test files; labels train 10 1 5 9, test 3 10 7.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "datasets/data_int.h"
#include "tests/unit/test_util.h"

#define FIXTURES "tests/fixtures/svhn/"
#define N_TRAIN 4
#define N_TEST 3

static const int CLASSES[N_TRAIN + N_TEST] = {0, 1, 5, 9, 3, 0, 7}; /* 10 is the digit 0 */

static int read_pair(const char *train, const char *test, dp_raw *raw, dp_err *e)
{
    memset(raw, 0, sizeof *raw);
    dp_err_clear(e);
    return dp_svhn_read(raw, train, test, e);
}

/* Every pixel and label of a train-4 + test-3 read, against the fixtures' formula, in
 * dperm's layout: row r, byte k * 1024 + i * 32 + j is X(i, j, k, n). */
static void check_table(const dp_raw *raw, const char *what)
{
    ck_assert_uint_eq(raw->n, N_TRAIN + N_TEST);
    ck_assert_uint_eq(raw->n_official_train, N_TRAIN);
    ck_assert_uint_eq(raw->d, 3072);
    ck_assert_int_eq(raw->c, 3);
    ck_assert_int_eq(raw->h, 32);
    ck_assert_int_eq(raw->w, 32);
    ck_assert_int_eq(raw->n_classes, 10);
    ck_assert_ptr_null(raw->x);
    for (int k = 0; k < 10; k++) {
        char name[12];
        snprintf(name, sizeof name, "%d", k);
        ck_assert_str_eq(raw->class_names[k], name);
    }
    for (size_t r = 0; r < raw->n; r++) {
        size_t n = r < N_TRAIN ? r : r - N_TRAIN, base = r < N_TRAIN ? 0 : 50;
        ck_assert_msg(raw->y[r] == CLASSES[r], "%s: row %zu: class %d, expected %d", what, r,
                      raw->y[r], CLASSES[r]);
        for (size_t k = 0; k < 3; k++)
            for (size_t i = 0; i < 32; i++)
                for (size_t j = 0; j < 32; j++) {
                    unsigned want = (unsigned)((i + 2 * j + 3 * k + 7 * n + base) % 256);
                    unsigned got = raw->px[r * 3072 + k * 1024 + i * 32 + j];
                    ck_assert_msg(got == want, "%s: row %zu X(%zu,%zu,%zu): %u, expected %u",
                                  what, r, i, j, k, got, want);
                }
    }
}

/* FIXTURES train + test read without error, every pixel and label as written. */
static void expect_ok(const char *train, const char *test)
{
    dp_raw raw;
    dp_err e;
    char tp[256], sp[256];
    snprintf(tp, sizeof tp, FIXTURES "%s", train);
    snprintf(sp, sizeof sp, FIXTURES "%s", test);
    int rc = read_pair(tp, sp, &raw, &e);
    ck_assert_msg(rc == DP_OK, "%s + %s: %s: %s", train, test, e.file, e.msg);
    char what[300];
    snprintf(what, sizeof what, "%s + %s", train, test);
    check_table(&raw, what);
    dp_raw_destroy(&raw);
}

/* The read of train + test fails with DP_EDATA on `bad` (one of the two), the error naming
 * that file and holding each phrase. */
static void expect_bad(const char *train, const char *test, const char *bad,
                       const char *phrase1, const char *phrase2)
{
    dp_raw raw;
    dp_err e;
    int rc = read_pair(train, test, &raw, &e);
    ck_assert_msg(rc == DP_EDATA, "%s: rc %d (%s), expected DP_EDATA", bad, rc, e.msg);
    ck_assert_str_eq(e.file, bad);
    ck_assert_msg(strstr(e.msg, phrase1) != NULL, "%s: message '%s' lacks '%s'", bad, e.msg,
                  phrase1);
    if (phrase2)
        ck_assert_msg(strstr(e.msg, phrase2) != NULL, "%s: message '%s' lacks '%s'", bad,
                      e.msg, phrase2);
    dp_raw_destroy(&raw); /* a failed read may leave arrays: the caller frees them */
}

// ---- svhn-1: valid files -------------------------------------------------------------------

/* svhn-1.1: the published layout: compressed variables, X uint8, y uint8. */
START_TEST(test_compressed)
{
    expect_ok("train-4.mat", "test-3.mat");
}
END_TEST

/* svhn-1.2: uncompressed miMATRIX elements; the training file has a char variable before y
 * and y before X, the test file's 3-byte y is a small data element. */
START_TEST(test_plain)
{
    expect_ok("train-4-plain.mat", "test-3-plain.mat");
    expect_ok("train-4-plain.mat", "test-3.mat"); /* plain and compressed files mixed */
}
END_TEST

/* svhn-1.3: y of class double: stored as miDOUBLE (savemat), and as MATLAB stores it,
 * in the smallest integer type holding its values (miUINT8, a small element). */
START_TEST(test_y_double)
{
    expect_ok("train-4-ydouble.mat", "test-3-matlab.mat");
}
END_TEST

/* svhn-1.4: a big-endian file ('MI'): X uncompressed, y of class double stored as
 * miINT16 and a skipped variable compressed. */
START_TEST(test_big_endian)
{
    expect_ok("train-4.mat", "test-3-bigendian.mat");
}
END_TEST

/* svhn-1.5: a gzip-compressed copy of a file (the .gz twin discovery accepts) reads the
 * same; its size is not known in advance, so a truncation shows only on reading. */
START_TEST(test_gzip_copy)
{
    char dir[256], gz[400], cut[400];
    test_tmpdir(dir, sizeof dir, "dperm-svhn-");
    snprintf(gz, sizeof gz, "%s/train_32x32.mat.gz", dir);
    snprintf(cut, sizeof cut, "%s/cut.mat.gz", dir);
    FILE *f = fopen(FIXTURES "train-4-plain.mat", "rb");
    ck_assert_ptr_nonnull(f);
    static unsigned char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_uint_gt(n, 12000);
    gzFile g = gzopen(gz, "wb");
    ck_assert_int_eq(gzwrite(g, buf, (unsigned)n), (int)n);
    gzclose(g);
    g = gzopen(cut, "wb");
    ck_assert_int_eq(gzwrite(g, buf, (unsigned)(n - 3000)), (int)(n - 3000));
    gzclose(g);

    dp_raw raw;
    dp_err e;
    ck_assert_int_eq(read_pair(gz, FIXTURES "test-3.mat", &raw, &e), DP_OK);
    check_table(&raw, "gzip copy");
    dp_raw_destroy(&raw);
    expect_bad(cut, FIXTURES "test-3.mat", cut, "variable X: truncated: the file ends inside "
               "the pixels of example 4 of 4", NULL);
    test_rmtree(dir);
}
END_TEST

// ---- svhn-2: malformed files, each with its message ------------------------------------

/* svhn-2.1: a published-style file cut inside the compressed X element; a plain file cut
 * inside X (seen at X's tag, from the file's size; svhn-1.5 cuts a gzip copy, whose size
 * is unknown, and sees it in the pixels); the forged count (1398101 examples announced, 3 present) fails as
 * truncated without asking for 4 GB; a damaged deflate stream. */
START_TEST(test_truncated)
{
    expect_bad(FIXTURES "bad-truncated.mat", FIXTURES "test-3.mat",
               FIXTURES "bad-truncated.mat", "truncated: the element declares",
               "the file has 230 after its tag, in the element at byte 128");
    expect_bad(FIXTURES "bad-truncated-plain.mat", FIXTURES "test-3.mat",
               FIXTURES "bad-truncated-plain.mat",
               "truncated: the element declares 12344 bytes, the file has 7344 after its tag, "
               "in the element at byte 256", NULL);
    expect_bad(FIXTURES "train-4.mat", FIXTURES "bad-forged-count.mat",
               FIXTURES "bad-forged-count.mat",
               "variable X: truncated: the compressed data ends inside the pixels of example "
               "4 of 1398101, in the compressed element at byte 128", NULL);
    expect_bad(FIXTURES "bad-corrupt.mat", FIXTURES "test-3.mat", FIXTURES "bad-corrupt.mat",
               "variable X: corrupt compressed data: ", NULL);
}
END_TEST

/* svhn-2.2: the variables: X's shape, a label outside 1..10, a label not a whole number,
 * y missing, X missing, X twice, y's length not X's, y not numeric. */
START_TEST(test_variables)
{
    const char *ok = FIXTURES "train-4.mat";
    expect_bad(ok, FIXTURES "bad-shape.mat", FIXTURES "bad-shape.mat",
               "variable X: 28 x 28 x 3 x 2; SVHN's X is 32 x 32 x 3 x N", NULL);
    expect_bad(ok, FIXTURES "bad-label.mat", FIXTURES "bad-label.mat",
               "variable y: label 2 is 11, not a digit label 1..10", NULL);
    expect_bad(ok, FIXTURES "bad-fraction.mat", FIXTURES "bad-fraction.mat",
               "variable y: label 2 is 2.5, not a digit label 1..10", NULL);
    expect_bad(FIXTURES "bad-no-y.mat", FIXTURES "test-3.mat", FIXTURES "bad-no-y.mat",
               "no variable y (SVHN's files hold X, the images, and y, the labels)", NULL);
    expect_bad(ok, FIXTURES "bad-no-x.mat", FIXTURES "bad-no-x.mat",
               "no variable X (SVHN's files hold X, the images, and y, the labels)", NULL);
    expect_bad(ok, FIXTURES "bad-two-x.mat", FIXTURES "bad-two-x.mat",
               "variable X: a second variable named X, in the compressed element at byte ",
               NULL);
    expect_bad(FIXTURES "bad-y-length.mat", FIXTURES "test-3.mat",
               FIXTURES "bad-y-length.mat", "y has 3 labels for the 4 examples of X", NULL);
    expect_bad(ok, FIXTURES "bad-y-char.mat", FIXTURES "bad-y-char.mat",
               "variable y: class char; SVHN's y is numeric", NULL);
}
END_TEST

/* svhn-2.3: not a level-5 MAT-file: MATLAB 7.3 (HDF5), a short file, no endian indicator;
 * a missing file is an I/O error. */
START_TEST(test_not_level5)
{
    expect_bad(FIXTURES "bad-v73.mat", FIXTURES "test-3.mat", FIXTURES "bad-v73.mat",
               "a MATLAB 7.3 (HDF5) MAT-file", NULL);
    char dir[256], p[400];
    test_tmpdir(dir, sizeof dir, "dperm-svhn-");
    snprintf(p, sizeof p, "%s/short.mat", dir);
    FILE *f = fopen(p, "wb");
    fputs("MATLAB 5.0 MAT-file", f);
    fclose(f);
    expect_bad(p, FIXTURES "test-3.mat", p, "truncated: 19 bytes, a MAT-file starts with a "
               "128-byte header", NULL);
    f = fopen(p, "wb");
    for (int i = 0; i < 128; i++) fputc(' ', f);
    fclose(f);
    expect_bad(p, FIXTURES "test-3.mat", p, "not a level-5 MAT-file: no endian indicator", NULL);
    snprintf(p, sizeof p, "%s/absent.mat", dir);
    dp_raw raw;
    dp_err e;
    ck_assert_int_eq(read_pair(FIXTURES "train-4.mat", p, &raw, &e), DP_EIO);
    ck_assert_str_eq(e.file, p);
    dp_raw_destroy(&raw);
    test_rmtree(dir);
}
END_TEST

// ---- svhn-3: the public path ------------------------------------------------------------

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

/* svhn-3.1: the catalog entry and the loader: svhn/train_32x32.mat and test_32x32.mat
 * under --data-dir are found and read, and the tiny fixtures fail the published row
 * count (73257 + 26032), as a truncated real file must. */
START_TEST(test_public_path)
{
    const dp_data_info *info = dp_data_find("svhn");
    ck_assert_ptr_nonnull(info);
    ck_assert_int_eq(info->format, DP_FMT_MAT);
    ck_assert_uint_eq(info->n_files, 2);
    ck_assert_uint_eq(info->files[0].rows + info->files[1].rows, info->rows);
    ck_assert_uint_eq(info->rows, 99289);
    char dir[256], sub[300], p[400];
    test_tmpdir(dir, sizeof dir, "dperm-svhn-");
    snprintf(sub, sizeof sub, "%s/svhn", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(p, sizeof p, "%s/train_32x32.mat", sub);
    copy_file(FIXTURES "train-4.mat", p);
    snprintf(p, sizeof p, "%s/test_32x32.mat", sub);
    copy_file(FIXTURES "test-3.mat", p);

    dp_data_search s;
    dp_data_search_init(&s, dir);
    dp_data_found found;
    dp_err e;
    ck_assert_int_eq(dp_data_locate(info, &s, &found, &e), DP_OK);
    ck_assert_str_eq(found.dir, sub);
    ck_assert_str_eq(found.paths[1], p);

    dp_data_opts o;
    ck_assert_int_eq(dp_data_opts_default(&o, "svhn", &e), DP_OK);
    dp_data d;
    ck_assert_int_eq(dp_data_load(&o, &s, &d, &e), DP_EDATA);
    ck_assert_str_eq(e.file, sub);
    ck_assert_str_eq(e.msg, "7 records, the published svhn has 99289 (truncated files, or "
                     "another version)");
    test_rmtree(dir);
}
END_TEST

/* svhn-3.2: what the loader does after the read, on the fixtures: svhn's defaults (pixels
 * / 255, the official test file as the test set) keep the CHW layout and the classes. */
START_TEST(test_preprocess)
{
    dp_raw raw;
    dp_err e;
    ck_assert_int_eq(read_pair(FIXTURES "train-4.mat", FIXTURES "test-3.mat", &raw, &e), DP_OK);
    dp_data_opts o;
    ck_assert_int_eq(dp_data_opts_default(&o, "svhn", &e), DP_OK);
    ck_assert_int_eq(o.scale, DP_SCALE_MINMAX);
    ck_assert(o.test_fraction == 0);
    dp_data d;
    memset(&d, 0, sizeof d);
    strcpy(d.name, "svhn");
    ck_assert_int_eq(dp_prep_apply(&raw, &o, &d, &e), DP_OK);
    ck_assert_uint_eq(d.train.n, N_TRAIN);
    ck_assert_uint_eq(d.test.n, N_TEST);
    ck_assert_uint_eq(d.train.d, 3072);
    ck_assert_int_eq(d.c, 3);
    ck_assert_int_eq(d.h, 32);
    ck_assert_int_eq(d.w, 32);
    ck_assert_int_eq(d.n_classes, 10);
    ck_assert_str_eq(d.class_names[0], "0");
    ck_assert_str_eq(d.class_names[9], "9");
    for (size_t r = 0; r < N_TEST; r++) {
        ck_assert_int_eq(d.test.y[r], CLASSES[N_TRAIN + r]);
        /* X(i = 5, j = 7, k = 2, n = r) of the test file, base 50 */
        double want = (double)((5 + 2 * 7 + 3 * 2 + 7 * r + 50) % 256) * (1.0 / 255.0);
        ck_assert(d.test.x[r * 3072 + 2 * 1024 + 5 * 32 + 7] == want);
    }
    dp_data_destroy(&d);
    dp_raw_destroy(&raw);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("svhn");
    test_add_case(s, "svhn-1.1", test_compressed, 30);
    test_add_case(s, "svhn-1.2", test_plain, 30);
    test_add_case(s, "svhn-1.3", test_y_double, 30);
    test_add_case(s, "svhn-1.4", test_big_endian, 30);
    test_add_case(s, "svhn-1.5", test_gzip_copy, 30);
    test_add_case(s, "svhn-2.1", test_truncated, 30);
    test_add_case(s, "svhn-2.2", test_variables, 30);
    test_add_case(s, "svhn-2.3", test_not_level5, 30);
    test_add_case(s, "svhn-3.1", test_public_path, 30);
    test_add_case(s, "svhn-3.2", test_preprocess, 30);
    return test_run_suite(s);
}
