/* dataset.h: an in-memory supervised dataset and the generators/loaders that fill it.
 *
 * datasets/ depends on algorithms/base only (err, rng). A dataset owns its arrays;
 * dp_dataset_destroy frees them. Rows are examples, row-major.
 */
#ifndef DPERM_DATASET_H
#define DPERM_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"

typedef struct dp_dataset {
    char name[64];
    size_t n;        /* examples */
    size_t d;        /* features per example */
    int n_classes;   /* >= 2 for classification, 0 for regression */
    double *x;       /* (n, d) features */
    int *y;          /* (n) class index in [0, n_classes); NULL for regression */
    double *t;       /* (n) real regression target; NULL for classification */
} dp_dataset;

/* Parameters of the synthetic classification generator. */
typedef struct dp_synthetic_params {
    size_t n;            /* examples, >= 1 */
    size_t d;            /* features, >= 1 */
    int n_classes;       /* >= 2 */
    double margin;       /* in [0, 1): minimum score gap between the true class and the
                            runner-up, for points in the unit ball; 0 = no rejection */
    double label_noise;  /* in [0, 0.5]: probability a label is replaced by a uniform draw */
    double offset;       /* binary only, in [0, 1): label 1 iff w . x > offset, so class 1 is
                            the minority (0: the hyperplane through 0, balanced classes) */
    uint64_t seed;       /* data seed (stream DP_STREAM_DATA) */
} dp_synthetic_params;

/* Generate a synthetic dataset: features uniform in the unit l2 ball of R^d, labels
 * argmax_k w_k . x for K random unit vectors w_k (binary: sign of w . x), keeping only
 * points whose score gap is >= margin, so the clean data are separable with that margin
 * and every row has ||x|| <= 1. Deterministic in params. Fails with DP_EINVAL on bad
 * params (message names the parameter) or DP_ENOMEM; `out` is then left empty. */
int dp_synthetic_make(dp_dataset *out, const dp_synthetic_params *p, dp_err *err);

/* Split `all` into train (first n_train of a seeded permutation) and test (the rest).
 * Copies rows (x, and y or t); `all` is unchanged. n_train in [1, all->n - 1]. */
int dp_dataset_split(const dp_dataset *all, size_t n_train, uint64_t seed,
                     dp_dataset *train, dp_dataset *test, dp_err *err);

/* out = rows [floor(i n / count), floor((i + 1) n / count)) of src, i = index: part i of
 * `count` disjoint parts that cover src (PATE's teachers; src's rows are already in a
 * seeded order, the split's permutation). DP_EINVAL when count is 0 or above src->n (a
 * part would be empty) or index >= count; DP_ENOMEM. */
int dp_dataset_part(const dp_dataset *src, size_t count, size_t index, dp_dataset *out,
                    dp_err *err);

/* Allocate an (n, d) dataset with x and, for n_classes >= 2, y, else t (regression).
 * Contents uninitialised. DP_ENOMEM (err says how large) leaves *ds empty. */
int dp_dataset_alloc(dp_dataset *ds, const char *name, size_t n, size_t d, int n_classes,
                     dp_err *err);

/* Free the arrays and zero the struct. Safe on a zeroed or NULL dataset. */
void dp_dataset_destroy(dp_dataset *ds);

#endif
