/* dataset.c: lifetime of dp_dataset and the seeded train/test split.
 *
 * The split is the first n_train entries of a uniform permutation drawn from stream
 * DP_STREAM_SPLIT of the given seed (Fisher-Yates, rng.h), so it depends only on
 * (seed, n) and not on how the data were produced. Rows keep the permutation's order in
 * both parts: a model trained on `train` sees the rows in that order, which does not
 * matter for the samplers of train.c (they draw their own order).
 */
#include "datasets/dataset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "algorithms/base/rng.h"

void dp_dataset_destroy(dp_dataset *ds)
{
    if (!ds) return;
    free(ds->x);
    free(ds->y);
    free(ds->t);
    memset(ds, 0, sizeof *ds);
}

/* Feature matrices of image sets are hundreds of MB (MNIST: 70000 x 784 doubles), and
 * faulting them in 4 KiB pages costs more than reading the data (measured: about 1 s of
 * MNIST's 1.5 s on this project's VMs). Large blocks are therefore 2 MiB aligned and
 * marked for transparent huge pages, which the kernel honours in its default `madvise`
 * mode. Freed with free() like any other block. */
static double *alloc_features(size_t count)
{
    size_t bytes = count * sizeof(double) + 1;
    if (bytes < ((size_t)8 << 20)) return malloc(bytes);
    void *p = NULL;
    size_t huge = (size_t)2 << 20;
    bytes = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, bytes) != 0) return NULL;
    madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure changes nothing */
    return p;
}

int dp_dataset_alloc(dp_dataset *ds, const char *name, size_t n, size_t d, int n_classes,
                     dp_err *err)
{
    memset(ds, 0, sizeof *ds);
    if (d && n > SIZE_MAX / sizeof(double) / d)
        return dp_err_set(err, DP_ENOMEM, "a %zu x %zu dataset is too large", n, d);
    /* +1: malloc(0) may return NULL, and an empty part is legal (no validation rows). */
    ds->x = alloc_features(n * d);
    if (n_classes >= 2)
        ds->y = malloc(n * sizeof *ds->y + 1);
    else
        ds->t = malloc(n * sizeof *ds->t + 1);
    if (!ds->x || (!ds->y && !ds->t)) {
        dp_dataset_destroy(ds);
        return dp_err_set(err, DP_ENOMEM, "out of memory for a %zu x %zu dataset", n, d);
    }
    ds->n = n;
    ds->d = d;
    ds->n_classes = n_classes >= 2 ? n_classes : 0;
    snprintf(ds->name, sizeof ds->name, "%s", name);
    return DP_OK;
}

/* Allocate an empty (n, d) dataset shaped like `like`, named "<like>/<suffix>". */
static int alloc_like(dp_dataset *ds, const dp_dataset *like, size_t n, const char *suffix)
{
    char name[64];
    /* 57 + "/" + up to 5 characters of suffix fit in name[64]. */
    snprintf(name, sizeof name, "%.57s/%.5s", like->name, suffix);
    return dp_dataset_alloc(ds, name, n, like->d, like->y ? like->n_classes : 0, NULL);
}

static void copy_rows(dp_dataset *dst, const dp_dataset *src, const size_t *rows)
{
    size_t d = src->d;
    for (size_t i = 0; i < dst->n; i++) {
        memcpy(dst->x + i * d, src->x + rows[i] * d, d * sizeof *dst->x);
        if (dst->y) dst->y[i] = src->y[rows[i]];
        if (dst->t) dst->t[i] = src->t[rows[i]];
    }
}

int dp_dataset_split(const dp_dataset *all, size_t n_train, uint64_t seed,
                     dp_dataset *train, dp_dataset *test, dp_err *err)
{
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    if (!all || !all->x || (!all->y && !all->t) || all->n < 2)
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

int dp_dataset_part(const dp_dataset *src, size_t count, size_t index, dp_dataset *out,
                    dp_err *err)
{
    memset(out, 0, sizeof *out);
    if (count == 0 || count > src->n)
        return dp_err_set(err, DP_EINVAL, "%zu parts of %zu rows: a part would be empty; use "
                          "at most %zu", count, src->n, src->n);
    if (index >= count)
        return dp_err_set(err, DP_EINVAL, "part %zu of %zu does not exist", index, count);
    /* (index + 1) n <= n^2: exact in size_t for the n < 2^32 rows a dataset can have */
    size_t lo = index * src->n / count, hi = (index + 1) * src->n / count;
    char suffix[8];
    snprintf(suffix, sizeof suffix, "p%zu", index % 10000);
    if (alloc_like(out, src, hi - lo, suffix) != DP_OK)
        return dp_err_set(err, DP_ENOMEM, "out of memory for part %zu of %zu", index, count);
    size_t d = src->d;
    memcpy(out->x, src->x + lo * d, (hi - lo) * d * sizeof *out->x);
    if (out->y) memcpy(out->y, src->y + lo, (hi - lo) * sizeof *out->y);
    if (out->t) memcpy(out->t, src->t + lo, (hi - lo) * sizeof *out->t);
    return DP_OK;
}
