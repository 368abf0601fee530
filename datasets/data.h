/* data.h: the named real datasets: where their files are, how they are read, and the
 * preprocessing that turns them into train / validation / test matrices.
 *
 * Lifecycle (FFTW's plan/execute split): dp_data_load does the expensive part once
 * (locate, checksum-free read, validate, preprocess, split) into a dp_data the caller
 * owns; every run of a sweep then reads the same dp_data. dp_data_destroy frees it.
 *
 * Nothing here prints or exits; errors name the file, the record/line and what was
 * wrong (dp_err.file / line). See docs/datasets.md, for sources and licenses.
 */
#ifndef DPERM_DATA_H
#define DPERM_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "datasets/dataset.h"

#define DP_DATA_MAX_DIRS 16
#define DP_DATA_MAX_FILES 8
#define DP_DATA_MAX_CLASSES 32
#define DP_DATA_MAX_CHANNELS 4   /* of an image dataset (MNIST 1, CIFAR-10 and SVHN 3) */

/* ---- the registry of named datasets -------------------------------------------------- */

/* DP_FMT_MAT: MATLAB level-5 MAT-files holding SVHN's X and y (datasets/mat.c). */
typedef enum {
    DP_FMT_SYNTHETIC = 0, DP_FMT_IDX = 1, DP_FMT_CIFAR = 2, DP_FMT_CSV = 3, DP_FMT_MAT = 4
} dp_format;

/* A file of a dataset: its name in the dataset's folder and, when the file is
 * distributed byte-identical everywhere, its SHA-256 (NULL: no published sum). */
typedef struct dp_data_file {
    const char *name;
    const char *sha256;
    size_t rows;                 /* records in the published file (0: not checked) */
} dp_data_file;

typedef struct dp_data_info {
    const char *name;            /* config name: mnist, adult, ... */
    dp_format format;
    const char *description;
    const char *source;          /* paper / archive */
    const char *license;
    const char *folders;         /* candidate sub-folders of a data root, ':'-separated */
    dp_data_file files[DP_DATA_MAX_FILES]; /* all required (alternatives: see loaders) */
    size_t n_files;
    size_t rows;                 /* published row count (train + test files), 0 unknown */
    int has_official_test;       /* the distribution has a separate test file */
    int regression;              /* target is real (wine quality score, bike count) */
    const char *how_to_get;      /* one line: `make data`, apt-get, or manual */
} dp_data_info;

/* The table (house rule 18), n entries; synthetic is not in it (it has no files). */
const dp_data_info *dp_data_list(size_t *n);
/* The entry called name, or NULL. */
const dp_data_info *dp_data_find(const char *name);

/* ---- discovery ------------------------------------------------------------------------ */

/* The folders searched, in order: --data-dir (data_dir, may be NULL), each entry of
 * $DPERM_DATA (':'-separated), datasets/data, REPO/datasets/data beside the running
 * program (REPO/bin/dperm; when it exists and is another folder), /usr/share/datasets. */
typedef struct dp_data_search {
    char dirs[DP_DATA_MAX_DIRS][512];
    size_t n;
} dp_data_search;

/* Fill the search path. Cannot fail (entries that do not fit are dropped). */
void dp_data_search_init(dp_data_search *s, const char *data_dir);
/* "A, B, C" into buf. */
void dp_data_search_text(const dp_data_search *s, char *buf, size_t size);

/* Where one dataset was found: the folder and each file's full path (for a file
 * distributed both plain and .gz, whichever exists; plain first). */
typedef struct dp_data_found {
    char dir[1024];
    char paths[DP_DATA_MAX_FILES][1100];
    int archive;                 /* cifar10 only: paths[0] is cifar-10-binary.tar.gz */
    int exact[DP_DATA_MAX_FILES]; /* the file has the catalog's name (its sum applies) */
} dp_data_found;

/* Find info's files under the search path: the first folder holding all of them.
 * DP_EDATA when not found, err naming the folders searched and how to get it. */
int dp_data_locate(const dp_data_info *info, const dp_data_search *s, dp_data_found *out,
                   dp_err *err);

/* SHA-256 of a file as 64 hex characters + NUL. DP_EIO names the file. */
int dp_sha256_file(const char *path, char hex[65], dp_err *err);

/* ---- preprocessing options ------------------------------------------------------------ */

typedef enum { DP_SCALE_NONE = 0, DP_SCALE_MINMAX = 1, DP_SCALE_STANDARDIZE = 2 } dp_scale;
typedef enum { DP_LABELS_INDEX = 0, DP_LABELS_PM1 = 1 } dp_labels;
typedef enum { DP_MISSING_DROP = 0, DP_MISSING_IMPUTE = 1 } dp_missing;

/* Every choice of dataset.* for a real dataset (docs/yaml.md key table). Defaults per dataset
 * come from dp_data_opts_default; the harness overrides what the config gives. */
typedef struct dp_data_opts {
    char name[32];              /* dataset.name */
    int fallback;               /* mnist only: use fashion_mnist when mnist is missing */
    dp_scale scale;             /* per feature, statistics of the training rows; images:
                                   minmax divides by 255 (the format's range) */
    int unit_l2;                /* project every row into the unit l2 ball: x / max(1, |x|) */
    int one_hot;                /* categorical columns as indicators (else codes 0..k-1) */
    dp_labels labels;           /* pm1: binary, `positive` against the rest */
    char positive[48];          /* pm1: the +1 class (name as in the file) */
    dp_scale target_scale;      /* regression target, statistics of the training rows */
    dp_missing missing;         /* rows with a missing value: dropped or imputed */
    char classes[DP_DATA_MAX_CLASSES][48]; /* keep only these classes (in this order) */
    size_t n_classes_keep;      /* 0: all */
    size_t subsample;           /* 0: all; else at most this many training-pool rows */
    size_t n_train;             /* 0: the rest of the training pool */
    size_t n_validation;        /* held out of the training pool */
    double test_fraction;       /* 0: the official test file; else a random fraction */
    size_t n_public;            /* the first n_public test rows are the public set (PATE's
                                   unlabeled student pool), the rest the test set */
    int evaluate_on_validation; /* runs report validation metrics instead of test */
    uint64_t seed;              /* dataset.seed: split and subsample permutation */
    /* dataset.standardize, images with scale minmax only: after the map to [0, 1],
     * x' = (x - mean) / std with fixed values (not statistics of the data): one value
     * for every feature (n = 1) or one per channel (n = the image's channels, CHW
     * order), given separately for mean and std; both counts 0: off. */
    size_t n_standardize_mean, n_standardize_std;
    double standardize_mean[DP_DATA_MAX_CHANNELS];
    double standardize_std[DP_DATA_MAX_CHANNELS];
} dp_data_opts;

/* The paper defaults for a dataset (docs/datasets.md): images scaled to [0, 1]; convex UCI sets
 * one-hot + minmax + unit l2 ball, rows with missing values dropped, binary sets in
 * pm1 with the documented positive class; official test files where they exist, else a
 * 0.2 random test fraction; seed 1. DP_EINVAL for an unknown name. */
int dp_data_opts_default(dp_data_opts *o, const char *name, dp_err *err);

/* ---- loading -------------------------------------------------------------------------- */

typedef struct dp_data {
    char name[32];            /* dataset actually loaded (fashion_mnist after a fallback) */
    char requested[32];       /* dataset.name as asked */
    char dir[1024];           /* folder it came from */
    char files[DP_DATA_MAX_FILES][1100];
    size_t n_files;
    size_t rows_read;         /* rows in the files, before any cleaning */
    size_t rows_dropped;      /* dropped for missing values */
    dp_dataset train, validation, test;
    dp_dataset public_set;    /* opts.n_public rows taken from the test rows (else empty) */
    int c, h, w;              /* example shape (CHW); tables 1 x 1 x d */
    char class_names[DP_DATA_MAX_CLASSES][48]; /* of the final label indices */
    int n_classes;            /* 0 regression */
    double target_shift, target_scale; /* t_stored = (t - shift) / scale */
    dp_data_opts opts;        /* the options applied (after defaults) */
} dp_data;

/* Locate, read, validate, preprocess and split. On failure *out is empty and err says
 * what and where (DP_EDATA for a missing or malformed dataset, DP_EINVAL for options that
 * do not fit it, DP_ENOMEM). The mnist -> fashion_mnist fallback happens here when
 * opts->fallback is set; out->name then says fashion_mnist. */
int dp_data_load(const dp_data_opts *opts, const dp_data_search *s, dp_data *out,
                 dp_err *err);
void dp_data_destroy(dp_data *d);

#endif
