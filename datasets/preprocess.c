/* preprocess.c: from the rows as read (dp_raw) to the train / validation / test matrices
 * a run trains on, every step an option of dp_data_opts recorded in the run.
 *
 * Order, and why:
 *   1. missing values: rows with one are dropped (the papers' choice: Zhang17 and
 *      InputPert report the cleaned row counts), or imputed later from training
 *      statistics (numeric: mean, categorical: most frequent level);
 *   2. class subset (InputPert used subsets), renumbered in the order given;
 *   3. labels pm1: the `positive` class against the rest (binary tasks of the papers);
 *   4. split, from one permutation of stream DP_STREAM_SPLIT of dataset.seed: the
 *      official test file when there is one and no test_fraction is given (rows stay in
 *      file order), else the last round(n f) rows of the shuffled pool; then `subsample`
 *      caps the training pool, its first n_validation rows are the validation set and
 *      the next n_train (default: the rest) the training set. DP-LSSGD's 50K/10K of
 *      MNIST's training file + the official test is split {validation: 10000}. PATE's
 *      public set (split.public: P) is the first P test rows (the official file's order,
 *      as Papernot et al.'s code takes test_data[:stdnt_share]), the test set the rest;
 *   5. features: categorical columns one-hot (Zhang17: "translate all category
 *      variables into binary features") or kept as codes;
 *   6. scaling with statistics of the TRAINING rows only, so validation and test do not
 *      leak into the model (values outside [0, 1] can then occur there): minmax per
 *      column (images: divided by 255, the format's range, since per-pixel ranges are
 *      meaningless for always-blank border pixels), or standardize (a constant column
 *      becomes 0); images may then be standardized with FIXED values instead,
 *      (x / 255 - mean) / std, one pair for all pixels or one per channel (the
 *      torchvision Normalize of the papers' code: MNIST 0.1307 / 0.3081 in DP-LSSGD's,
 *      CIFAR-10's per-channel values in DPlis's), the same map for every row;
 *   7. unit_l2: x / max(1, ||x||), the data domain of the convex analyses (||x|| <= 1);
 *   8. regression target scaled with training statistics, the map recorded.
 * The statistics are not private: as in the papers, preprocessing is not accounted.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "datasets/data_int.h"

/* Class index named s among raw's classes, or -1. */
static int class_index(const dp_raw *raw, const char *s)
{
    for (int k = 0; k < raw->n_classes; k++)
        if (strcmp(raw->class_names[k], s) == 0) return k;
    return -1;
}

static void class_list(const dp_raw *raw, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < raw->n_classes && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "",
                                 raw->class_names[k]);
}

/* Steps 2 and 3 on labels in place; keep[i] = 0 for rows of other classes. */
static int relabel(dp_raw *raw, const dp_data_opts *o, unsigned char *keep, dp_err *err)
{
    char known[600];
    if ((o->n_classes_keep || o->labels == DP_LABELS_PM1) && !raw->y)
        return dp_err_set(err, DP_EINVAL, "dataset.%s: %s is a regression dataset (no classes)",
                          o->n_classes_keep ? "classes" : "labels", o->name);
    if (o->n_classes_keep == 1)
        return dp_err_set(err, DP_EINVAL, "dataset.classes: keep at least 2 classes");
    if (o->n_classes_keep) {
        int map[DP_DATA_MAX_CLASSES];
        for (int k = 0; k < DP_DATA_MAX_CLASSES; k++) map[k] = -1;
        for (size_t j = 0; j < o->n_classes_keep; j++) {
            int k = class_index(raw, o->classes[j]);
            if (k < 0) {
                class_list(raw, known, sizeof known);
                return dp_err_set(err, DP_EINVAL, "dataset.classes: '%s' is not a class of %s "
                                  "(classes: %s)", o->classes[j], o->name, known);
            }
            if (map[k] >= 0)
                return dp_err_set(err, DP_EINVAL, "dataset.classes: '%s' is listed twice",
                                  o->classes[j]);
            map[k] = (int)j;
        }
        for (size_t i = 0; i < raw->n; i++) {
            if (map[raw->y[i]] < 0) keep[i] = 0;
            else raw->y[i] = map[raw->y[i]];
        }
        char names[DP_DATA_MAX_CLASSES][48];
        for (size_t j = 0; j < o->n_classes_keep; j++)
            snprintf(names[j], sizeof names[j], "%s", o->classes[j]);
        memcpy(raw->class_names, names, sizeof names);
        raw->n_classes = (int)o->n_classes_keep;
    }
    if (o->labels == DP_LABELS_PM1) {
        int pos = class_index(raw, o->positive);
        if (pos < 0) {
            class_list(raw, known, sizeof known);
            return dp_err_set(err, DP_EINVAL, "dataset.positive: '%s' is not a class of %s "
                              "(classes: %s)", o->positive, o->name, known);
        }
        for (size_t i = 0; i < raw->n; i++) raw->y[i] = raw->y[i] == pos;
        snprintf(raw->class_names[0], sizeof raw->class_names[0], "not %.40s", o->positive);
        snprintf(raw->class_names[1], sizeof raw->class_names[1], "%s", o->positive);
        raw->n_classes = 2;
    }
    return DP_OK;
}

/* Width of raw column j after expansion. */
static size_t width(const dp_raw *raw, const dp_data_opts *o, size_t j)
{
    return raw->cat && raw->cat[j] && o->one_hot ? (size_t)raw->cat[j] : 1;
}

/* The checks of dataset.standardize against the data (step 6): images in [0, 1], one
 * value or one per channel, finite means, finite positive stds. */
static int check_standardize(const dp_raw *raw, const dp_data_opts *o, dp_err *err)
{
    if (!o->n_standardize_mean && !o->n_standardize_std) return DP_OK;
    if (!raw->px)
        return dp_err_set(err, DP_EINVAL, "dataset.standardize applies to image datasets; "
                          "%s is a table (dataset.scale: standardize uses its statistics)",
                          o->name);
    if (o->scale != DP_SCALE_MINMAX)
        return dp_err_set(err, DP_EINVAL, "dataset.standardize applies to pixels scaled to "
                          "[0, 1] (dataset.scale: minmax)");
    const size_t n[2] = {o->n_standardize_mean, o->n_standardize_std};
    const double *v[2] = {o->standardize_mean, o->standardize_std};
    const char *what[2] = {"mean", "std"};
    for (int k = 0; k < 2; k++) {
        if (n[k] != 1 && n[k] != (size_t)raw->c)
            return dp_err_set(err, DP_EINVAL, "dataset.standardize.%s: %zu values; %s has %d "
                              "channel%s: give 1 value or %d", what[k], n[k], o->name, raw->c,
                              raw->c == 1 ? "" : "s", raw->c);
        for (size_t j = 0; j < n[k]; j++)
            if (!isfinite(v[k][j]) || (k == 1 && !(v[k][j] > 0)))
                return dp_err_set(err, DP_EINVAL, "dataset.standardize.%s: %g must be %s",
                                  what[k], v[k][j], k ? "> 0 and finite" : "finite");
    }
    return DP_OK;
}

/* Row i of raw into out (D values), missing values replaced by fill[j]. */
static void expand(const dp_raw *raw, const dp_data_opts *o, const double *fill, size_t i,
                   double *out)
{
    if (raw->px) {
        /* Images: minmax is the fixed map to [0, 1], done here in the same pass, and so is
         * the fixed standardization after it (channel ch: the ch-th plane of CHW). */
        const uint8_t *p = raw->px + i * raw->d;
        double f = o->scale == DP_SCALE_MINMAX ? 1.0 / 255.0 : 1.0;
        for (size_t j = 0; j < raw->d; j++) out[j] = p[j] * f;
        if (!o->n_standardize_mean) return;
        size_t plane = raw->d / (size_t)raw->c;
        for (size_t j = 0; j < raw->d; j++) {
            size_t ch = j / plane;
            double m = o->standardize_mean[o->n_standardize_mean == 1 ? 0 : ch];
            double sd = o->standardize_std[o->n_standardize_std == 1 ? 0 : ch];
            out[j] = (out[j] - m) / sd;
        }
        return;
    }
    const double *x = raw->x + i * raw->d;
    for (size_t j = 0; j < raw->d; j++) {
        double v = isnan(x[j]) ? fill[j] : x[j];
        size_t w = width(raw, o, j);
        if (w > 1 || (raw->cat && raw->cat[j] && o->one_hot)) {
            memset(out, 0, w * sizeof *out);
            out[(size_t)v] = 1.0;
        } else {
            out[0] = v;
        }
        out += w;
    }
}

/* fill[j]: training mean (numeric) or most frequent level (categorical) of column j. */
static int impute_values(const dp_raw *raw, const size_t *rows, size_t n, double *fill,
                         dp_err *err)
{
    for (size_t j = 0; raw->x && j < raw->d; j++) {
        int levels = raw->cat ? raw->cat[j] : 0;
        double sum = 0;
        size_t cnt = 0;
        size_t *freq = levels ? calloc((size_t)levels, sizeof *freq) : NULL;
        if (levels && !freq) return dp_err_set(err, DP_ENOMEM, "out of memory");
        for (size_t r = 0; r < n; r++) {
            double v = raw->x[rows[r] * raw->d + j];
            if (isnan(v)) continue;
            if (levels) freq[(int)v]++;
            sum += v;
            cnt++;
        }
        fill[j] = cnt ? sum / (double)cnt : 0.0;
        if (levels) {
            int best = 0;
            for (int k = 1; k < levels; k++)
                if (freq[k] > freq[best]) best = k;
            fill[j] = best;
            free(freq);
        }
    }
    return DP_OK;
}

/* Fill ds from rows (expanded, unscaled). */
static int fill_part(dp_dataset *ds, const char *name, const dp_raw *raw,
                     const dp_data_opts *o, const double *fill, const size_t *rows, size_t n,
                     size_t D, dp_err *err)
{
    int rc = dp_dataset_alloc(ds, name, n, D, raw->y ? raw->n_classes : 0, err);
    if (rc) return rc;
    for (size_t r = 0; r < n; r++) {
        expand(raw, o, fill, rows[r], ds->x + r * D);
        if (ds->y) ds->y[r] = raw->y[rows[r]];
        if (ds->t) ds->t[r] = raw->t[rows[r]];
    }
    return DP_OK;
}

/* Scale columns (steps 6-7) with statistics of train; apply to every part. */
static int scale_features(dp_data *out, const dp_raw *raw, const dp_data_opts *o, dp_err *err)
{
    dp_dataset *parts[4] = {&out->train, &out->validation, &out->test, &out->public_set};
    size_t D = out->train.d, n = out->train.n;
    double *a = malloc(D * sizeof *a), *b = malloc(D * sizeof *b); /* x' = (x - a) * b */
    if (!a || !b) {
        free(a);
        free(b);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    for (size_t j = 0; j < D; j++) a[j] = 0, b[j] = 1;
    int identity = o->scale == DP_SCALE_NONE || (raw->px && o->scale == DP_SCALE_MINMAX);
    if (identity) {
        /* nothing: images were mapped to [0, 1] by expand */
    } else if (o->scale == DP_SCALE_MINMAX) {
        /* Row-major passes: column-wise loops over a tall matrix thrash the cache. */
        for (size_t j = 0; j < D; j++) a[j] = INFINITY, b[j] = -INFINITY; /* lo, hi */
        for (size_t i = 0; i < n; i++) {
            const double *x = out->train.x + i * D;
            for (size_t j = 0; j < D; j++) {
                a[j] = x[j] < a[j] ? x[j] : a[j];
                b[j] = x[j] > b[j] ? x[j] : b[j];
            }
        }
        for (size_t j = 0; j < D; j++) {
            double lo = a[j], hi = b[j];
            a[j] = n ? lo : 0;
            b[j] = n && hi > lo ? 1.0 / (hi - lo) : 0.0;
        }
    } else if (o->scale == DP_SCALE_STANDARDIZE) {
        double *m2 = calloc(D, sizeof *m2);
        if (!m2) {
            free(a);
            free(b);
            return dp_err_set(err, DP_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < D; j++) a[j] += out->train.x[i * D + j];
        for (size_t j = 0; j < D; j++) a[j] = n ? a[j] / (double)n : 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < D; j++) {
                double dv = out->train.x[i * D + j] - a[j];
                m2[j] += dv * dv;
            }
        for (size_t j = 0; j < D; j++) {
            double sd = n ? sqrt(m2[j] / (double)n) : 0;
            b[j] = sd > 0 ? 1.0 / sd : 0.0;
        }
        free(m2);
    }
    for (int p = 0; p < 4 && (!identity || o->unit_l2); p++) {
        dp_dataset *ds = parts[p];
        for (size_t i = 0; i < ds->n; i++) {
            double *x = ds->x + i * D;
            if (!identity)
                for (size_t j = 0; j < D; j++) x[j] = (x[j] - a[j]) * b[j];
            if (o->unit_l2) {
                double s = 0;
                for (size_t j = 0; j < D; j++) s += x[j] * x[j];
                s = sqrt(s);
                if (s > 1.0)
                    for (size_t j = 0; j < D; j++) x[j] /= s;
            }
        }
    }
    free(a);
    free(b);
    return DP_OK;
}

static void scale_target(dp_data *out, const dp_data_opts *o)
{
    dp_dataset *tr = &out->train;
    double shift = 0, scale = 1;
    if (o->target_scale == DP_SCALE_MINMAX && tr->n) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < tr->n; i++) {
            lo = tr->t[i] < lo ? tr->t[i] : lo;
            hi = tr->t[i] > hi ? tr->t[i] : hi;
        }
        shift = lo;
        scale = hi > lo ? hi - lo : 1;
    } else if (o->target_scale == DP_SCALE_STANDARDIZE && tr->n) {
        double m = 0, s = 0;
        for (size_t i = 0; i < tr->n; i++) m += tr->t[i];
        m /= (double)tr->n;
        for (size_t i = 0; i < tr->n; i++) s += (tr->t[i] - m) * (tr->t[i] - m);
        s = sqrt(s / (double)tr->n);
        shift = m;
        scale = s > 0 ? s : 1;
    }
    dp_dataset *parts[4] = {&out->train, &out->validation, &out->test, &out->public_set};
    for (int p = 0; p < 4; p++)
        for (size_t i = 0; i < parts[p]->n; i++)
            parts[p]->t[i] = (parts[p]->t[i] - shift) / scale;
    out->target_shift = shift;
    out->target_scale = scale;
}

int dp_prep_apply(dp_raw *raw, const dp_data_opts *o, dp_data *out, dp_err *err)
{
    int rc;
    size_t n = raw->n, *rows = NULL, n_pool = 0, n_test = 0;
    unsigned char *keep = malloc(n + 1);
    double *fill = calloc(raw->d + 1, sizeof *fill);
    rows = malloc((n + 1) * sizeof *rows);
    if (!keep || !fill || !rows) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory preprocessing %s", o->name);
        goto out;
    }
    if ((rc = check_standardize(raw, o, err))) goto out;
    memset(keep, 1, n);
    for (size_t i = 0; raw->x && o->missing == DP_MISSING_DROP && i < n; i++)
        for (size_t j = 0; j < raw->d; j++)
            if (isnan(raw->x[i * raw->d + j])) {
                keep[i] = 0;
                out->rows_dropped++;
                break;
            }
    if ((rc = relabel(raw, o, keep, err))) goto out;

    /* Pool (training side) first, test rows after it, both in file order. */
    int official = o->test_fraction == 0 && raw->n_official_train < n;
    if (o->test_fraction == 0 && !official) {
        rc = dp_err_set(err, DP_EINVAL, "%s has no official test file: give "
                        "dataset.split.test_fraction", o->name);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (keep[i] && (!official || i < raw->n_official_train)) rows[n_pool++] = i;
    size_t n_rows = n_pool;
    for (size_t i = raw->n_official_train; official && i < n; i++)
        if (keep[i]) rows[n_rows++] = i;
    dp_rng rng;
    dp_rng_init(&rng, o->seed, DP_STREAM_SPLIT);
    if (official) {
        n_test = n_rows - n_pool;
        dp_rng_shuffle(&rng, rows, n_pool);
    } else {
        dp_rng_shuffle(&rng, rows, n_pool);
        n_test = (size_t)llround((double)n_pool * o->test_fraction);
        if (n_test < 1 || n_test >= n_pool) {
            rc = dp_err_set(err, DP_EINVAL, "dataset.split.test_fraction %g of %zu rows leaves "
                            "%s", o->test_fraction, n_pool, n_test < 1 ? "no test rows"
                                                                       : "no training rows");
            goto out;
        }
        n_pool -= n_test;
    }
    if (n_test == 0) {
        rc = dp_err_set(err, DP_EINVAL, "%s: no test rows are left after cleaning", o->name);
        goto out;
    }
    size_t *test_rows = rows + n_pool;
    if (o->n_public >= n_test) {
        rc = dp_err_set(err, DP_EINVAL, "dataset.split.public %zu leaves no test rows: %s has "
                        "%zu; give at most %zu", o->n_public, o->name, n_test, n_test - 1);
        goto out;
    }
    if (o->subsample) {
        if (o->subsample > n_pool) {
            rc = dp_err_set(err, DP_EINVAL, "dataset.subsample %zu exceeds the %zu rows of the "
                            "training pool of %s", o->subsample, n_pool, o->name);
            goto out;
        }
        n_pool = o->subsample;
    }
    size_t n_train = o->n_train ? o->n_train : n_pool - (o->n_validation < n_pool ? o->n_validation : n_pool);
    if (o->n_validation + n_train > n_pool || n_train == 0) {
        rc = dp_err_set(err, DP_EINVAL, "dataset.split: train %zu + validation %zu exceed the "
                        "%zu rows of the training pool of %s", n_train, o->n_validation, n_pool,
                        o->name);
        goto out;
    }
    size_t D = 0;
    for (size_t j = 0; j < raw->d; j++) D += width(raw, o, j);
    if (raw->x && o->missing == DP_MISSING_IMPUTE &&
        (rc = impute_values(raw, rows + o->n_validation, n_train, fill, err)))
        goto out;
    char nm[64];
    snprintf(nm, sizeof nm, "%s/train", out->name);
    if ((rc = fill_part(&out->train, nm, raw, o, fill, rows + o->n_validation, n_train, D, err)))
        goto out;
    snprintf(nm, sizeof nm, "%s/validation", out->name);
    if ((rc = fill_part(&out->validation, nm, raw, o, fill, rows, o->n_validation, D, err)))
        goto out;
    snprintf(nm, sizeof nm, "%s/public", out->name);
    if ((rc = fill_part(&out->public_set, nm, raw, o, fill, test_rows, o->n_public, D, err)))
        goto out;
    snprintf(nm, sizeof nm, "%s/test", out->name);
    if ((rc = fill_part(&out->test, nm, raw, o, fill, test_rows + o->n_public,
                        n_test - o->n_public, D, err)))
        goto out;
    if ((rc = scale_features(out, raw, o, err))) goto out;
    if (raw->t) scale_target(out, o);
    else out->target_scale = 1;
    out->n_classes = raw->y ? raw->n_classes : 0;
    memcpy(out->class_names, raw->class_names, sizeof out->class_names);
    out->c = raw->px ? raw->c : 1;
    out->h = raw->px ? raw->h : 1;
    out->w = raw->px ? raw->w : (int)D;
out:
    free(keep);
    free(fill);
    free(rows);
    return rc;
}
