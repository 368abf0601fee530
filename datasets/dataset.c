/* dataset.c: lifetime of dp_dataset and the seeded train/test split.
 *
 * The split is the first n_train entries of a uniform permutation drawn from stream
 * DP_STREAM_SPLIT of the given seed (Fisher-Yates, rng.h), so it depends only on
 * (seed, n) and not on how the data were produced. Rows keep the permutation's order in
 * both parts: a model trained on `train` sees the rows in that order, which does not
 * matter for the samplers of train.c (they draw their own order).
 */
#include "dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../algorithms/base/rng.h"

void dp_dataset_destroy(dp_dataset *ds)
{
    if (!ds) return;
    free(ds->x);
    free(ds->y);
    memset(ds, 0, sizeof *ds);
}

/* Allocate an empty (n, d) dataset shaped like `like`, named "<like>/<suffix>". */
static int alloc_like(dp_dataset *ds, const dp_dataset *like, size_t n, const char *suffix)
{
    memset(ds, 0, sizeof *ds);
    ds->x = malloc(n * like->d * sizeof *ds->x);
    ds->y = malloc(n * sizeof *ds->y);
    if (!ds->x || !ds->y) {
        dp_dataset_destroy(ds);
        return DP_ENOMEM;
    }
    ds->n = n;
    ds->d = like->d;
    ds->n_classes = like->n_classes;
    /* 57 + "/" + up to 5 characters of suffix fit in name[64]. */
    snprintf(ds->name, sizeof ds->name, "%.57s/%.5s", like->name, suffix);
    return DP_OK;
}

static void copy_rows(dp_dataset *dst, const dp_dataset *src, const size_t *rows)
{
    size_t d = src->d;
    for (size_t i = 0; i < dst->n; i++) {
        memcpy(dst->x + i * d, src->x + rows[i] * d, d * sizeof *dst->x);
        dst->y[i] = src->y[rows[i]];
    }
}

int dp_dataset_split(const dp_dataset *all, size_t n_train, uint64_t seed,
                     dp_dataset *train, dp_dataset *test, dp_err *err)
{
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    if (!all || !all->x || !all->y || all->n < 2)
        return dp_err_set(err, DP_EINVAL, "cannot split a dataset of fewer than 2 examples");
    if (n_train < 1 || n_train > all->n - 1)
        return dp_err_set(err, DP_EINVAL,
                          "split: n_train %zu must be in [1, %zu] for %zu examples "
                          "(both parts non-empty)",
                          n_train, all->n - 1, all->n);

    size_t *perm = malloc(all->n * sizeof *perm);
    if (!perm) return dp_err_set(err, DP_ENOMEM, "out of memory splitting %zu examples", all->n);
    for (size_t i = 0; i < all->n; i++) perm[i] = i;
    dp_rng rng;
    dp_rng_init(&rng, seed, DP_STREAM_SPLIT);
    dp_rng_shuffle(&rng, perm, all->n);

    if (alloc_like(train, all, n_train, "train") != DP_OK ||
        alloc_like(test, all, all->n - n_train, "test") != DP_OK) {
        dp_dataset_destroy(train);
        dp_dataset_destroy(test);
        free(perm);
        return dp_err_set(err, DP_ENOMEM, "out of memory splitting %zu examples", all->n);
    }
    copy_rows(train, all, perm);
    copy_rows(test, all, perm + n_train);
    free(perm);
    return DP_OK;
}
