/* test_data.c: preprocessing and splits (datasets/preprocess.c), discovery and checksums
 * (datasets/discovery.c, catalog.c, checksums.sha256), and, when $DPERM_DATA holds the
 * real files, their exact shapes, class counts and published checksums (the counts are
 * those stated in the files' documentation: shared/datasets/README.md, the UCI pages,
 * LeCun's MNIST page). Without $DPERM_DATA the real-file cases print a note and pass.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datasets/data_int.h"
#include "tests/unit/test_util.h"

/* A 10-row table: a numeric column 0..9, a categorical column with 3 levels (row % 3),
 * labels row % 2 (classes "a", "b"), rows 8 and 9 the official test; row 4 has a missing
 * numeric value. */
static void make_raw(dp_raw *r)
{
    memset(r, 0, sizeof *r);
    r->n = 10;
    r->d = 2;
    r->x = malloc(20 * sizeof *r->x);
    r->cat = calloc(2, sizeof *r->cat);
    r->y = malloc(10 * sizeof *r->y);
    r->cat[1] = 3;
    for (int i = 0; i < 10; i++) {
        r->x[2 * i] = i == 4 ? NAN : i;
        r->x[2 * i + 1] = i % 3;
        r->y[i] = i % 2;
    }
    r->n_classes = 2;
    strcpy(r->class_names[0], "a");
    strcpy(r->class_names[1], "b");
    r->n_official_train = 8;
}

static dp_data_opts opts(void)
{
    dp_data_opts o;
    memset(&o, 0, sizeof o);
    strcpy(o.name, "t");
    o.one_hot = 1;
    o.seed = 1;
    return o;
}

static int prep(const dp_data_opts *o, dp_data *out, dp_err *e)
{
    dp_raw r;
    make_raw(&r);
    memset(out, 0, sizeof *out);
    strcpy(out->name, "t");
    int rc = dp_prep_apply(&r, o, out, e);
    dp_raw_destroy(&r);
    return rc;
}

// ---- prep-1: preprocessing ---------------------------------------------------------------

/* prep-1.1: drop + official test + one-hot: 7 train rows (row 4 dropped), 2 test rows in
 * file order, 1 + 3 features, the one-hot block a unit vector. */
START_TEST(test_prep_basic)
{
    dp_data_opts o = opts();
    dp_data d;
    dp_err e;
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    ck_assert_uint_eq(d.rows_dropped, 1);
    ck_assert_uint_eq(d.train.n, 7);
    ck_assert_uint_eq(d.test.n, 2);
    ck_assert_uint_eq(d.train.d, 4);
    ck_assert_double_eq(d.test.x[0], 8);
    ck_assert_double_eq(d.test.x[4], 9);
    ck_assert_double_eq(d.test.x[1 + 2], 1); /* 8 % 3 = 2 */
    for (size_t i = 0; i < d.train.n; i++) {
        double s = 0;
        for (int j = 1; j < 4; j++) s += d.train.x[i * 4 + j];
        ck_assert_double_eq(s, 1);
    }
    dp_data_destroy(&d);
    /* prep-1.2: codes instead of one-hot; impute fills row 4 with the training mean */
    o.one_hot = 0;
    o.missing = DP_MISSING_IMPUTE;
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    ck_assert_uint_eq(d.train.d, 2);
    ck_assert_uint_eq(d.train.n, 8);
    int found = 0;
    for (size_t i = 0; i < d.train.n; i++)
        if (fabs(d.train.x[2 * i] - 24.0 / 7.0) < 1e-12) found = 1; /* mean of 0..7 w/o 4 */
    ck_assert(found);
    dp_data_destroy(&d);
}
END_TEST

/* prep-1.3: minmax uses training statistics; unit_l2 bounds every row; standardize gives
 * mean 0 on train. */
START_TEST(test_prep_scaling)
{
    dp_data_opts o = opts();
    dp_data d;
    dp_err e;
    o.scale = DP_SCALE_MINMAX;
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    double lo = 1e9, hi = -1e9;
    for (size_t i = 0; i < d.train.n; i++) {
        lo = fmin(lo, d.train.x[i * 4]);
        hi = fmax(hi, d.train.x[i * 4]);
    }
    ck_assert_double_eq(lo, 0);
    ck_assert_double_eq(hi, 1);
    ck_assert_double_eq_tol(d.test.x[0], 8.0 / 7.0, 1e-12); /* beyond the training max */
    dp_data_destroy(&d);
    o.unit_l2 = 1;
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    for (size_t i = 0; i < d.test.n; i++) {
        double s = 0;
        for (int j = 0; j < 4; j++) s += d.test.x[i * 4 + j] * d.test.x[i * 4 + j];
        ck_assert(sqrt(s) <= 1 + 1e-12);
    }
    dp_data_destroy(&d);
    o.unit_l2 = 0;
    o.scale = DP_SCALE_STANDARDIZE;
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    double m = 0;
    for (size_t i = 0; i < d.train.n; i++) m += d.train.x[i * 4];
    ck_assert_double_eq_tol(m, 0, 1e-12);
    dp_data_destroy(&d);
}
END_TEST

/* prep-1.4: labels and classes: pm1 against a named class; a subset renumbered in the
 * given order; unknown names are errors listing the classes. */
START_TEST(test_prep_labels)
{
    dp_data_opts o = opts();
    dp_data d;
    dp_err e;
    o.labels = DP_LABELS_PM1;
    strcpy(o.positive, "a");
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    ck_assert_str_eq(d.class_names[1], "a");
    ck_assert_str_eq(d.class_names[0], "not a");
    ck_assert_int_eq(d.test.y[0], 1); /* row 8: class a */
    dp_data_destroy(&d);
    strcpy(o.positive, "c");
    ck_assert_int_eq(prep(&o, &d, &e), DP_EINVAL);
    ck_assert_str_eq(e.msg, "dataset.positive: 'c' is not a class of t (classes: a, b)");
    o = opts();
    o.n_classes_keep = 2;
    strcpy(o.classes[0], "b");
    strcpy(o.classes[1], "a");
    ck_assert_int_eq(prep(&o, &d, &e), DP_OK);
    ck_assert_int_eq(d.test.y[0], 1); /* row 8, class a, is now index 1 */
    ck_assert_str_eq(d.class_names[0], "b");
    dp_data_destroy(&d);
    o.n_classes_keep = 1;
    ck_assert_int_eq(prep(&o, &d, &e), DP_EINVAL);
    ck_assert_str_eq(e.msg, "dataset.classes: keep at least 2 classes");
}
END_TEST

/* prep-1.5: splits: seeded and deterministic; validation + train from the pool; a random
 * test fraction; subsample; sizes that do not fit are errors. */
START_TEST(test_prep_split)
{
    dp_data_opts o = opts();
    dp_data a, b;
    dp_err e;
    o.n_validation = 2;
    o.n_train = 3;
    ck_assert_int_eq(prep(&o, &a, &e), DP_OK);
    ck_assert_uint_eq(a.validation.n, 2);
    ck_assert_uint_eq(a.train.n, 3);
    ck_assert_int_eq(prep(&o, &b, &e), DP_OK);
    ck_assert_mem_eq(a.train.x, b.train.x, 3 * 4 * sizeof(double));
    dp_data_destroy(&b);
    o.seed = 2;
    ck_assert_int_eq(prep(&o, &b, &e), DP_OK);
    ck_assert(memcmp(a.train.x, b.train.x, 3 * 4 * sizeof(double)) != 0 ||
              memcmp(a.validation.x, b.validation.x, 2 * 4 * sizeof(double)) != 0);
    dp_data_destroy(&a);
    dp_data_destroy(&b);
    o = opts();
    o.test_fraction = 0.3; /* of all 9 kept rows: 3 */
    ck_assert_int_eq(prep(&o, &a, &e), DP_OK);
    ck_assert_uint_eq(a.test.n, 3);
    ck_assert_uint_eq(a.train.n, 6);
    dp_data_destroy(&a);
    o = opts();
    o.subsample = 4;
    ck_assert_int_eq(prep(&o, &a, &e), DP_OK);
    ck_assert_uint_eq(a.train.n, 4);
    ck_assert_uint_eq(a.test.n, 2);
    dp_data_destroy(&a);
    o.subsample = 0;
    o.n_validation = 5;
    o.n_train = 3;
    ck_assert_int_eq(prep(&o, &a, &e), DP_EINVAL);
    ck_assert_msg(strstr(e.msg, "train 3 + validation 5 exceed the 7 rows"), "%s", e.msg);
}
END_TEST

/* prep-1.6: PATE's public set: the first split.public rows of the test set in file order,
 * scaled like the others, the test set the rest; one that leaves no test row is an
 * error naming the largest allowed. */
START_TEST(test_prep_public)
{
    dp_data_opts o = opts();
    dp_data a, b;
    dp_err e;
    o.scale = DP_SCALE_MINMAX;
    ck_assert_int_eq(prep(&o, &a, &e), DP_OK);
    ck_assert_uint_eq(a.test.n, 2);
    ck_assert_uint_eq(a.public_set.n, 0);
    o.n_public = 1;
    ck_assert_int_eq(prep(&o, &b, &e), DP_OK);
    ck_assert_uint_eq(b.public_set.n, 1);
    ck_assert_uint_eq(b.test.n, 1);
    ck_assert_uint_eq(b.train.n, a.train.n);
    ck_assert_mem_eq(b.public_set.x, a.test.x, 4 * sizeof(double));
    ck_assert_int_eq(b.public_set.y[0], a.test.y[0]);
    ck_assert_mem_eq(b.test.x, a.test.x + 4, 4 * sizeof(double));
    ck_assert_int_eq(b.test.y[0], a.test.y[1]);
    dp_data_destroy(&a);
    dp_data_destroy(&b);
    o.n_public = 2;
    ck_assert_int_eq(prep(&o, &a, &e), DP_EINVAL);
    ck_assert_str_eq(e.msg, "dataset.split.public 2 leaves no test rows: t has 2; give at most 1");
}
END_TEST

/* Three CIFAR-10 records (two training, one test) in one folder, read by the CIFAR
 * reader: record r, channel c, pixel p has byte (40 + 60 c + 7 r + p) mod 256, so the
 * channels (CHW planes of 1024 bytes) differ. */
static void cifar_raw(dp_raw *raw, char *dir, size_t size)
{
    test_tmpdir(dir, size, "dperm-std-");
    const int rows[2] = {2, 1};
    char paths[2][600];
    for (int f = 0; f < 2; f++) {
        snprintf(paths[f], sizeof paths[f], "%s/%s", dir, f ? "test.bin" : "train.bin");
        FILE *fp = fopen(paths[f], "wb");
        ck_assert_ptr_nonnull(fp);
        for (int r = 0; r < rows[f]; r++) {
            int rr = 2 * f + r;
            fputc(rr, fp);
            for (int j = 0; j < 3072; j++) fputc((40 + 60 * (j / 1024) + 7 * rr + j) % 256, fp);
        }
        fclose(fp);
    }
    const char *p[2] = {paths[0], paths[1]};
    memset(raw, 0, sizeof *raw);
    dp_err e;
    ck_assert_int_eq(dp_cifar_read_files(raw, p, 1, 1, &e), DP_OK);
    strcpy(raw->class_names[0], "airplane");
    for (int k = 1; k < 10; k++) snprintf(raw->class_names[k], 48, "c%d", k);
    for (int f = 0; f < 2; f++) unlink(paths[f]);
    rmdir(dir);
}

/* Every value of ds against (byte / 255 - mean_c) / std_c, computed as preprocess.c
 * does (the byte times 1/255, then the standardization): equal bit for bit. */
static void check_standardized(const dp_dataset *ds, const dp_raw *raw, const size_t *rows,
                               const double *mean, const double *sd, int per_channel)
{
    for (size_t i = 0; i < ds->n; i++)
        for (size_t j = 0; j < 3072; j++) {
            size_t c = per_channel ? j / 1024 : 0;
            double v = raw->px[rows[i] * 3072 + j] * (1.0 / 255.0);
            ck_assert(ds->x[i * 3072 + j] == (v - mean[c]) / sd[c]);
        }
}

/* prep-1.6: dataset.standardize on images: per channel (CIFAR-10's layout: channel c is
 * the c-th plane of 1024 values) and one value for all; train and test alike (fixed
 * values, not statistics); then the refusals: a table, a count that is neither 1 nor the
 * channels, std <= 0 or not finite, a mean not finite, pixels not in [0, 1]. */
START_TEST(test_prep_standardize)
{
    static const double mean[3] = {0.4914, 0.4822, 0.4465}, sd[3] = {0.2023, 0.1994, 0.2010};
    char dir[64];
    dp_raw raw;
    cifar_raw(&raw, dir, sizeof dir);
    ck_assert_int_eq(raw.c, 3);
    dp_data_opts o = opts();
    strcpy(o.name, "cifar10");
    o.scale = DP_SCALE_MINMAX;
    o.n_validation = 0;
    dp_data d;
    dp_err e;
    for (int per_channel = 1; per_channel >= 0; per_channel--) {
        o.n_standardize_mean = o.n_standardize_std = per_channel ? 3 : 1;
        memcpy(o.standardize_mean, mean, sizeof mean);
        memcpy(o.standardize_std, sd, sizeof sd);
        memset(&d, 0, sizeof d);
        strcpy(d.name, "cifar10");
        dp_raw copy = raw;
        ck_assert_int_eq(dp_prep_apply(&copy, &o, &d, &e), DP_OK);
        ck_assert_uint_eq(d.train.n, 2);
        ck_assert_uint_eq(d.test.n, 1);
        /* the training pool is shuffled: find each row by its label (its record) */
        size_t tr[2] = {(size_t)d.train.y[0], (size_t)d.train.y[1]}, te[1] = {2};
        ck_assert_int_eq(d.test.y[0], 2);
        check_standardized(&d.train, &raw, tr, mean, sd, per_channel);
        check_standardized(&d.test, &raw, te, mean, sd, per_channel);
        dp_data_destroy(&d);
    }
    /* off (both counts 0): pixels / 255 as before */
    o.n_standardize_mean = o.n_standardize_std = 0;
    memset(&d, 0, sizeof d);
    dp_raw copy = raw;
    ck_assert_int_eq(dp_prep_apply(&copy, &o, &d, &e), DP_OK);
    ck_assert(d.test.x[5] == raw.px[2 * 3072 + 5] * (1.0 / 255.0));
    dp_data_destroy(&d);

    static const struct {
        size_t n_mean, n_std;
        double m, s;
        dp_scale scale;
        const char *msg;
    } bad[] = {
        {2, 3, 0.5, 0.2, DP_SCALE_MINMAX,
         "dataset.standardize.mean: 2 values; cifar10 has 3 channels: give 1 value or 3"},
        {3, 4, 0.5, 0.2, DP_SCALE_MINMAX,
         "dataset.standardize.std: 4 values; cifar10 has 3 channels: give 1 value or 3"},
        {1, 1, 0.5, 0.0, DP_SCALE_MINMAX, "dataset.standardize.std: 0 must be > 0 and finite"},
        {1, 1, 0.5, -0.3, DP_SCALE_MINMAX,
         "dataset.standardize.std: -0.3 must be > 0 and finite"},
        {1, 1, 0.5, INFINITY, DP_SCALE_MINMAX,
         "dataset.standardize.std: inf must be > 0 and finite"},
        {1, 1, NAN, 0.2, DP_SCALE_MINMAX, "dataset.standardize.mean: nan must be finite"},
        {1, 1, 0.5, 0.2, DP_SCALE_NONE,
         "dataset.standardize applies to pixels scaled to [0, 1] (dataset.scale: minmax)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        o.n_standardize_mean = bad[k].n_mean;
        o.n_standardize_std = bad[k].n_std;
        for (int c = 0; c < DP_DATA_MAX_CHANNELS; c++)
            o.standardize_mean[c] = bad[k].m, o.standardize_std[c] = bad[k].s;
        o.scale = bad[k].scale;
        memset(&d, 0, sizeof d);
        copy = raw;
        ck_assert_int_eq(dp_prep_apply(&copy, &o, &d, &e), DP_EINVAL);
        ck_assert_str_eq(e.msg, bad[k].msg);
        ck_assert_ptr_null(d.train.x);
    }
    dp_raw_destroy(&raw);
    /* a table: its own statistics are dataset.scale: standardize */
    o = opts();
    o.n_standardize_mean = o.n_standardize_std = 1;
    o.standardize_mean[0] = 0.1307, o.standardize_std[0] = 0.3081;
    ck_assert_int_eq(prep(&o, &d, &e), DP_EINVAL);
    ck_assert_str_eq(e.msg, "dataset.standardize applies to image datasets; t is a table "
                            "(dataset.scale: standardize uses its statistics)");
}
END_TEST

// ---- disc-1: discovery and checksums ------------------------------------------------------

/* disc-1.1: --data-dir, then $DPERM_DATA's folders, then datasets/data, then Debian's. */
START_TEST(test_search_order)
{
    setenv("DPERM_DATA", "/a:/b/:", 1);
    dp_data_search s;
    dp_data_search_init(&s, "/x");
    char buf[512];
    dp_data_search_text(&s, buf, sizeof buf);
    ck_assert_str_eq(buf, "/x, /a, /b, datasets/data, /usr/share/datasets");
}
END_TEST

/* disc-1.2: a missing dataset names the folders searched and how to get it; the
 * layout uci/NAME is found; a plain twin of a .gz file is accepted without its sum. */
START_TEST(test_locate)
{
    char dir[256], p[4096];
    test_tmpdir(dir, sizeof dir, "dperm-disc-");
    setenv("DPERM_DATA", dir, 1);
    dp_data_search s;
    dp_data_search_init(&s, NULL);
    dp_data_found f;
    dp_err e;
    ck_assert_int_eq(dp_data_locate(dp_data_find("iris"), &s, &f, &e), DP_EDATA);
    char want[1024];
    snprintf(want, sizeof want, "dataset 'iris' not found in: %s, datasets/data, "
             "/usr/share/datasets; run `make data` or pass --data-dir, or set DPERM_DATA to "
             "the folder holding it", dir);
    ck_assert_str_eq(e.msg, want);
    snprintf(p, sizeof p, "mkdir -p %s/uci/iris %s/mnist && touch %s/uci/iris/iris.data "
             "%s/mnist/train-images-idx3-ubyte %s/mnist/train-labels-idx1-ubyte.gz "
             "%s/mnist/t10k-images-idx3-ubyte.gz %s/mnist/t10k-labels-idx1-ubyte.gz",
             dir, dir, dir, dir, dir, dir, dir);
    ck_assert_int_eq(system(p), 0);
    ck_assert_int_eq(dp_data_locate(dp_data_find("iris"), &s, &f, &e), DP_OK);
    snprintf(want, sizeof want, "%s/uci/iris", dir);
    ck_assert_str_eq(f.dir, want);
    ck_assert_int_eq(dp_data_locate(dp_data_find("mnist"), &s, &f, &e), DP_OK);
    ck_assert_int_eq(f.exact[0], 0);
    ck_assert_int_eq(f.exact[1], 1);
    snprintf(want, sizeof want, "%s/mnist/train-images-idx3-ubyte", dir);
    ck_assert_str_eq(f.paths[0], want);
    snprintf(p, sizeof p, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(p), 0);
}
END_TEST

/* disc-1.3: SHA-256 of a known string ("abc", FIPS 180-2 example), and
 * datasets/checksums.sha256 lists exactly the catalog's published sums. */
START_TEST(test_checksums)
{
    char dir[256], p[512], hex[65];
    test_tmpdir(dir, sizeof dir, "dperm-sum-");
    snprintf(p, sizeof p, "%s/abc", dir);
    FILE *f = fopen(p, "wb");
    fputs("abc", f);
    fclose(f);
    dp_err e;
    ck_assert_int_eq(dp_sha256_file(p, hex, &e), DP_OK);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    remove(p);
    rmdir(dir);

    f = fopen("datasets/checksums.sha256", "r");
    ck_assert_msg(f != NULL, "run from the repository root");
    char line[1024];
    size_t listed = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char sum[65], rel[900];
        ck_assert_int_eq(sscanf(line, "%64s %899[^\n]", sum, rel), 2);
        const char *base = strrchr(rel, '/') + 1;
        int match = 0;
        size_t n;
        const dp_data_info *all = dp_data_list(&n);
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < all[i].n_files; k++)
                if (!strcmp(all[i].files[k].name, base) && all[i].files[k].sha256 &&
                    !strcmp(all[i].files[k].sha256, sum))
                    match = 1;
        ck_assert_msg(match, "%s: sum not in the catalog", rel);
        listed++;
    }
    fclose(f);
    size_t n, in_catalog = 0;
    const dp_data_info *all = dp_data_list(&n);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < all[i].n_files; k++)
            in_catalog += all[i].files[k].sha256 && strcmp(all[i].name, "fashion_mnist") != 0;
    ck_assert_uint_eq(listed, in_catalog);
}
END_TEST

// ---- real-1: the real files (when $DPERM_DATA has them) -----------------------------------

static int have_real(const char *name, dp_data_search *s, dp_data_found *f)
{
    dp_data_search_init(s, NULL);
    dp_err e;
    if (!getenv("DPERM_DATA") && strcmp(name, "fashion_mnist") != 0) {
        printf("note: %s: DPERM_DATA is not set; real-file checks skipped\n", name);
        return 0;
    }
    if (dp_data_locate(dp_data_find(name), s, f, &e) != DP_OK) {
        printf("note: %s not found; its real-file checks skipped\n", name);
        return 0;
    }
    return 1;
}

/* Every catalogued sum of the dataset's files matches. */
static void check_sums(const char *name, const dp_data_found *f)
{
    const dp_data_info *info = dp_data_find(name);
    for (size_t i = 0; i < info->n_files; i++) {
        if (!info->files[i].sha256 || !f->exact[i]) continue;
        char hex[65];
        dp_err e;
        ck_assert_int_eq(dp_sha256_file(f->paths[i], hex, &e), DP_OK);
        ck_assert_msg(!strcmp(hex, info->files[i].sha256), "%s: checksum differs", f->paths[i]);
    }
}

static void counts(const int *y, size_t n, size_t *c, int k)
{
    memset(c, 0, (size_t)k * sizeof *c);
    for (size_t i = 0; i < n; i++) c[y[i]]++;
}

/* real-1.1 MNIST and Fashion-MNIST: 60000 + 10000 x 784, published class counts. */
START_TEST(test_real_images)
{
    static const size_t mnist_train[10] = {5923, 6742, 5958, 6131, 5842,
                                           5421, 5918, 6265, 5851, 5949};
    static const size_t mnist_test[10] = {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009};
    const char *names[2] = {"mnist", "fashion_mnist"};
    for (int k = 0; k < 2; k++) {
        dp_data_search s;
        dp_data_found f;
        if (!have_real(names[k], &s, &f)) continue;
        check_sums(names[k], &f);
        dp_data_opts o;
        dp_data d;
        dp_err e;
        dp_data_opts_default(&o, names[k], NULL);
        o.fallback = 0;
        o.n_validation = 10000; /* DP-LSSGD: 50K/10K of the training file */
        ck_assert_int_eq(dp_data_load(&o, &s, &d, &e), DP_OK);
        ck_assert_str_eq(d.name, names[k]);
        ck_assert_uint_eq(d.rows_read, 70000);
        ck_assert_uint_eq(d.train.n, 50000);
        ck_assert_uint_eq(d.validation.n, 10000);
        ck_assert_uint_eq(d.test.n, 10000);
        ck_assert_uint_eq(d.train.d, 784);
        size_t c[10], v[10];
        counts(d.test.y, d.test.n, c, 10);
        for (int j = 0; j < 10; j++)
            ck_assert_uint_eq(c[j], k == 0 ? mnist_test[j] : 1000);
        counts(d.train.y, d.train.n, c, 10);
        counts(d.validation.y, d.validation.n, v, 10);
        for (int j = 0; j < 10; j++)
            ck_assert_uint_eq(c[j] + v[j], k == 0 ? mnist_train[j] : 6000);
        double lo = 1, hi = 0;
        for (size_t i = 0; i < 784 * 100; i++) lo = fmin(lo, d.train.x[i]), hi = fmax(hi, d.train.x[i]);
        ck_assert_double_eq(lo, 0);
        ck_assert_double_eq(hi, 1);
        dp_data_destroy(&d);
        if (k) continue;
        /* DP-LSSGD's code: all 60,000 training rows (the default split), the official
         * test set, (pixel / 255 - 0.1307) / 0.3081; its row norms are 14.8 / 27.5 /
         * 48.9 (min / median / max, shared/reference/authors-code.md) */
        dp_data_opts_default(&o, names[k], NULL);
        o.fallback = 0;
        o.n_standardize_mean = o.n_standardize_std = 1;
        o.standardize_mean[0] = 0.1307, o.standardize_std[0] = 0.3081;
        ck_assert_int_eq(dp_data_load(&o, &s, &d, &e), DP_OK);
        ck_assert_uint_eq(d.train.n, 60000);
        ck_assert_uint_eq(d.validation.n, 0);
        ck_assert_uint_eq(d.test.n, 10000);
        double *nrm = malloc(d.train.n * sizeof *nrm);
        ck_assert_ptr_nonnull(nrm);
        for (size_t i = 0; i < d.train.n; i++) {
            double q = 0;
            for (size_t j = 0; j < 784; j++) q += d.train.x[i * 784 + j] * d.train.x[i * 784 + j];
            nrm[i] = sqrt(q);
        }
        size_t below = 0;
        double mn = INFINITY, mx = 0;
        for (size_t i = 0; i < d.train.n; i++) {
            mn = fmin(mn, nrm[i]), mx = fmax(mx, nrm[i]);
            below += nrm[i] < 27.5;
        }
        ck_assert_double_eq_tol(mn, 14.8, 0.05);
        ck_assert_double_eq_tol(mx, 48.9, 0.05);
        ck_assert_uint_gt(below, 29000); /* the median to one decimal: 27.45..27.55 */
        ck_assert_uint_lt(below, 31000);
        ck_assert_double_eq_tol(d.test.x[0], -0.1307 / 0.3081, 1e-15); /* a blank corner */
        free(nrm);
        dp_data_destroy(&d);
    }
}
END_TEST

/* real-1.2 the UCI sets: rows before cleaning, class counts, rows after dropping missing. */
START_TEST(test_real_uci)
{
    static const struct {
        const char *name;
        size_t rows, pos, after_drop; /* pos: rows of class index 1 as read */
    } want[] = {
        {"adult", 48842, 11687, 45222},         /* 32561 + 16281; >50K 7841 + 3846 */
        {"bank", 45211, 5289, 45211},
        {"bank_additional", 41188, 4640, 41188},
        {"credit_default", 30000, 6636, 30000},
        {"breast_cancer", 699, 241, 683},
        {"iris", 150, 50, 150},
        {"wine_quality", 6497, 0, 6497},
        {"bike", 17379, 0, 17379},
        {"kddcup99", 494021, 0, 494021},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        dp_data_search s;
        dp_data_found f;
        if (!have_real(want[k].name, &s, &f)) continue;
        check_sums(want[k].name, &f);
        dp_raw raw;
        dp_err e;
        ck_assert_msg(dp_uci_read(&raw, dp_data_find(want[k].name), &f, &e) == DP_OK, "%s: %s",
                      want[k].name, e.msg);
        ck_assert_uint_eq(raw.n, want[k].rows);
        if (!strcmp(want[k].name, "adult")) ck_assert_uint_eq(raw.n_official_train, 32561);
        if (!strcmp(want[k].name, "kddcup99")) {
            ck_assert_int_eq(raw.n_classes, 23);
            ck_assert_str_eq(raw.class_names[11], "normal");
        }
        if (want[k].pos) {
            size_t c[DP_DATA_MAX_CLASSES];
            counts(raw.y, raw.n, c, raw.n_classes);
            ck_assert_uint_eq(c[1], want[k].pos);
        }
        dp_raw_destroy(&raw);
        dp_data_opts o;
        dp_data d;
        dp_data_opts_default(&o, want[k].name, NULL);
        ck_assert_int_eq(dp_data_load(&o, &s, &d, &e), DP_OK);
        ck_assert_uint_eq(d.train.n + d.validation.n + d.test.n, want[k].after_drop);
        if (!strcmp(want[k].name, "adult")) {
            ck_assert_uint_eq(d.train.n, 30162);
            ck_assert_uint_eq(d.test.n, 15060);
            ck_assert_uint_eq(d.train.d, 105); /* 6 numeric + 99 one-hot levels */
        }
        dp_data_destroy(&d);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("data");
    test_add_case(s, "prep-1.1", test_prep_basic, 30);
    test_add_case(s, "prep-1.3", test_prep_scaling, 30);
    test_add_case(s, "prep-1.4", test_prep_labels, 30);
    test_add_case(s, "prep-1.5", test_prep_split, 30);
    test_add_case(s, "prep-1.6", test_prep_public, 30);
    test_add_case(s, "prep-1.6", test_prep_standardize, 30);
    test_add_case(s, "disc-1.1", test_search_order, 30);
    test_add_case(s, "disc-1.2", test_locate, 30);
    test_add_case(s, "disc-1.3", test_checksums, 30);
    test_add_case(s, "real-1.1", test_real_images, 120);
    test_add_case(s, "real-1.2", test_real_uci, 120);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
