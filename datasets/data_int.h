/* data_int.h: what the readers of datasets/ share with preprocess.c and load.c: the raw
 * table a file format is read into, before any preprocessing. Private to datasets/ (and
 * its unit tests).
 */
#ifndef DPERM_DATA_INT_H
#define DPERM_DATA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "datasets/data.h"

/* A dataset as read, rows in file order: the rows of the training file(s) first, then
 * those of the official test file(s) from row n_official_train on.
 *
 * Features are either bytes (images: px, range 0..255) or doubles (tables: x, NaN =
 * missing). A categorical table column holds its level code 0..k-1 as a double and
 * cat[j] = k; a numeric column has cat[j] = 0. Labels are class indices into
 * class_names (y), or real targets (t) for regression. */
typedef struct dp_raw {
    size_t n, d;
    uint8_t *px;              /* (n, d) image bytes, or NULL */
    double *x;                /* (n, d) table values, or NULL */
    int *cat;                 /* (d) levels of categorical columns, 0 numeric; NULL: none */
    int *y;                   /* (n) class index, or NULL (regression) */
    double *t;                /* (n) regression target, or NULL */
    int n_classes;
    char class_names[DP_DATA_MAX_CLASSES][48];
    size_t n_official_train;  /* rows before the official test rows (n if none) */
    int c, h, w;              /* image shape; 0 for tables */
} dp_raw;

void dp_raw_destroy(dp_raw *r);

/* ---- readers (each validates everything it reads; errors name file and record) ------- */

/* IDX (LeCun's MNIST format, also Fashion-MNIST): idx3 images (magic 2051), idx1 labels
 * (magic 2049), plain or gzip. Appends to *raw (the first call sets the shape). The
 * readers below may leave arrays in *raw on failure: free it with dp_raw_destroy. */
int dp_idx_read(dp_raw *raw, const char *images_path, const char *labels_path,
                dp_err *err);

/* CIFAR-10 binary batches (1 label byte + 3072 pixel bytes per record): each of paths, or
 * the members data_batch_1..5.bin and test_batch.bin of cifar-10-binary.tar.gz. */
int dp_cifar_read_files(dp_raw *raw, const char *const *paths, size_t n_train_files,
                        size_t n_test_files, dp_err *err);
int dp_cifar_read_tar(dp_raw *raw, const char *tar_gz_path, dp_err *err);

/* SVHN's cropped digits (format 2): train_32x32.mat then test_32x32.mat, MATLAB level-5
 * MAT-files (compressed or not, either byte order) holding X (32 x 32 x 3 x N uint8) and
 * y (N labels 1..10, 10 the digit 0); rows CHW, classes "0".."9". DP_EDATA names the
 * file, the variable and what is wrong; DP_EIO, DP_ENOMEM. */
int dp_svhn_read(dp_raw *raw, const char *train_path, const char *test_path, dp_err *err);

/* The UCI-style CSV sets, by dataset name, from the located files. */
int dp_uci_read(dp_raw *raw, const dp_data_info *info, const dp_data_found *found,
                dp_err *err);

/* Preprocess and split raw (preprocess.c's header comment) into out, whose name is set.
 * raw's labels are rewritten in place. DP_EINVAL for options that do not fit the data. */
int dp_prep_apply(dp_raw *raw, const dp_data_opts *o, dp_data *out, dp_err *err);

/* ---- the CSV reader (csv.c) ---------------------------------------------------------- */

#define DP_CSV_MAX_FIELDS 64

/* Reads delimited text through zlib (plain files too), one record per line: CR before
 * LF removed, fields split at sep, surrounding blanks trimmed, one level of double
 * quotes removed. No quoted separators: none of the supported files has them, and a
 * stray quote is reported instead of guessed around. */
typedef struct dp_csv {
    void *gz;                 /* gzFile */
    const char *path;
    char sep;
    long line;                /* 1-based number of the line last read */
    char *buf;
    size_t cap;
    char *fields[DP_CSV_MAX_FIELDS];
    size_t n_fields;
} dp_csv;

int dp_csv_open(dp_csv *c, const char *path, char sep, dp_err *err);
/* Next line: 1 and fields filled, 0 at end of file, or DP_EDATA/DP_EIO/DP_ENOMEM.
 * blank: set to 1 when the line is empty (fields then 0). */
int dp_csv_next(dp_csv *c, int *blank, dp_err *err);
void dp_csv_close(dp_csv *c);

/* Parse a whole field as a finite double; 0 ok, -1 not a number. */
int dp_parse_double(const char *s, double *out);

#endif
