/* spec_data.c: the `dataset` block for a named real dataset (mnist, adult, ...), and
 * binding a run to the loaded data (spec.h: spec_bind_data).
 *
 *   dataset.name          mnist | fashion_mnist | cifar10 | svhn | adult | bank |
 *                         bank_additional | credit_default | wine_quality | bike | kddcup99 |
 *                         breast_cancer | iris | credit_fraud (datasets/catalog.c)
 *   dataset.scale         none | minmax | standardize       minmax (images: / 255)
 *   dataset.standardize   {mean: m, std: s}, images with     none
 *                         scale minmax: x' = (x - m) / s after the map to [0, 1]; m and s
 *                         a number or a list of 1 or channels numbers (CIFAR-10, SVHN: 3,
 *                         one per channel), s > 0
 *   dataset.normalize     none | unit_l2                    tables unit_l2, images none
 *   dataset.one_hot       bool                              true
 *   dataset.labels        index | pm1                       pm1 for the binary sets
 *   dataset.positive      class name (pm1)                  >50K, yes, 1, 4, normal
 *   dataset.target_scale  none | minmax | standardize       minmax (regression sets)
 *   dataset.missing       drop | impute                     drop
 *   dataset.classes       list of class names               all
 *   dataset.subsample     int >= 1                          all training-pool rows
 *   dataset.split         {train: int >= 1, validation: int >= 0,
 *                          test_fraction: number in (0, 1), official test file if any,
 *                          public: int >= 0}                else test_fraction 0.2;
 *                                                           public: the first rows of
 *                                                           the test set are PATE's
 *                                                           public set, the rest test
 *   dataset.test_fraction the same as split.test_fraction (not both)
 *   dataset.evaluate      test | validation                 test
 *   dataset.fallback      bool (mnist only)                 true: fashion_mnist when
 *                                                           mnist is missing
 *   dataset.required      bool                              true: files not found stop
 *                                                           the sweep; false: each run
 *                                                           is recorded as failed (DPlis's
 *                                                           CIFAR-10 cells: data missing)
 *   dataset.seed          int >= 0                          1
 *   dataset.shape         [c, h, w]                         the data's (checked at load)
 *
 * Checks that need the data (class names, sizes, the model's fit, batch size) are done
 * by spec_bind_data once the data are loaded, with the same positions.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

static const char *const REAL_KEYS[] = {
    "name",    "seed",     "test_fraction", "shape",  "split",     "scale",
    "normalize", "one_hot", "labels",        "positive", "target_scale", "missing",
    "classes", "subsample", "evaluate",     "fallback", "required", "standardize"};
static const char *const STANDARDIZE_KEYS[] = {"mean", "std"};
static const char *const SPLIT_KEYS[] = {"train", "validation", "test_fraction", "public"};
static const char *const SCALES[] = {"none", "minmax", "standardize"};
static const char *const NORMALIZES[] = {"none", "unit_l2"};
static const char *const LABELS[] = {"index", "pm1"};
static const char *const MISSINGS[] = {"drop", "impute"};
static const char *const EVALUATES[] = {"test", "validation"};
static const char *const SYNTHETIC_ONLY[] = {"n", "d", "margin", "label_noise", "offset"};

static int read_bool(const cfg_node *blk, const char *key, int *out, dp_err *err)
{
    const cfg_node *n = cfg_get(blk, key);
    if (!n) return 0;
    char what[64];
    snprintf(what, sizeof what, "dataset.%s", key);
    return cfg_as_bool(n, what, out, err);
}

static int read_scalar_text(const cfg_node *n, const char *what, char *out, size_t size,
                            dp_err *err)
{
    if (n->kind != CFG_SCALAR || cfg_scalar_type(n) == CFG_T_NULL)
        return cfg_error(err, n, 0, "%s: expected a class name", what);
    if (strlen(n->value) >= size)
        return cfg_error(err, n, 0, "%s: '%s' is too long", what, n->value);
    snprintf(out, size, "%s", n->value);
    return 0;
}

static int read_split(const cfg_node *ds, dp_data_opts *o, dp_err *err)
{
    const cfg_node *sp = cfg_get(ds, "split"), *tf = cfg_get(ds, "test_fraction");
    long v;
    int rc;
    const cfg_range frac = {0, 1, 1, 1, "in (0, 1)"};
    if (tf && sp && cfg_get(sp, "test_fraction"))
        return cfg_error(err, tf, 1, "give the test fraction once: dataset.test_fraction or "
                         "dataset.split.test_fraction");
    if (tf && (rc = cfg_read_number(ds, "dataset", "test_fraction", 0, 0, frac,
                                    &o->test_fraction, err)))
        return rc;
    if (!sp) return 0;
    if ((rc = cfg_expect_map(sp, "dataset.split", err)) ||
        (rc = cfg_check_keys(sp, "dataset.split", SPLIT_KEYS, COUNT(SPLIT_KEYS), err)))
        return rc;
    if (cfg_get(sp, "test_fraction") &&
        (rc = cfg_read_number(sp, "dataset.split", "test_fraction", 0, 0, frac,
                              &o->test_fraction, err)))
        return rc;
    if ((rc = cfg_read_int(sp, "dataset.split", "train", 0, 0, 1, LONG_MAX, &v, err))) return rc;
    o->n_train = (size_t)v;
    if ((rc = cfg_read_int(sp, "dataset.split", "validation", 0, 0, 0, LONG_MAX, &v, err)))
        return rc;
    o->n_validation = (size_t)v;
    if ((rc = cfg_read_int(sp, "dataset.split", "public", 0, 0, 0, LONG_MAX, &v, err))) return rc;
    o->n_public = (size_t)v;
    return 0;
}

static int read_classes(const cfg_node *ds, dp_data_opts *o, dp_err *err)
{
    const cfg_node *c = cfg_get(ds, "classes");
    if (!c) return 0;
    if (c->kind != CFG_SEQ || c->n_items < 2 || c->n_items > DP_DATA_MAX_CLASSES)
        return cfg_error(err, c, 0, "dataset.classes: expected a list of 2 to %d class names "
                         "(the subset to keep)", DP_DATA_MAX_CLASSES);
    for (size_t i = 0; i < c->n_items; i++) {
        int rc = read_scalar_text(c->items[i], "dataset.classes", o->classes[i],
                                  sizeof o->classes[i], err);
        if (rc) return rc;
    }
    o->n_classes_keep = c->n_items;
    return 0;
}

/* dataset.standardize (preprocess.c, step 6): what the catalog knows is checked here
 * (an image dataset, its channels: the IDX sets have 1, CIFAR-10 and SVHN 3); the loader
 * checks the values again against the data. */
static int read_standardize(const cfg_node *ds, const dp_data_info *info, dp_data_opts *o,
                            dp_err *err)
{
    const cfg_node *st = cfg_get(ds, "standardize");
    if (!st) return 0;
    if (info->format != DP_FMT_IDX && info->format != DP_FMT_CIFAR &&
        info->format != DP_FMT_MAT)
        return cfg_error(err, st, 1, "dataset.standardize applies to the image datasets "
                         "(mnist, fashion_mnist, cifar10, svhn), not to %s (its own statistics: "
                         "dataset.scale: standardize)", info->name);
    int rc;
    if ((rc = cfg_expect_map(st, "dataset.standardize", err)) ||
        (rc = cfg_check_keys(st, "dataset.standardize", STANDARDIZE_KEYS,
                             COUNT(STANDARDIZE_KEYS), err)))
        return rc;
    if (o->scale != DP_SCALE_MINMAX)
        return cfg_error(err, st, 1, "dataset.standardize applies after the map to [0, 1]: "
                         "it needs dataset.scale: minmax (the default)");
    const int channels = info->format == DP_FMT_CIFAR || info->format == DP_FMT_MAT ? 3 : 1;
    size_t *count[2] = {&o->n_standardize_mean, &o->n_standardize_std};
    double *vals[2] = {o->standardize_mean, o->standardize_std};
    for (int k = 0; k < 2; k++) {
        const char *key = STANDARDIZE_KEYS[k];
        const cfg_node *n = cfg_get(st, key);
        char what[40];
        snprintf(what, sizeof what, "dataset.standardize.%s", key);
        if (!n) return cfg_missing(st, "dataset.standardize", key, err);
        size_t len = n->kind == CFG_SEQ ? n->n_items : 1;
        if (n->kind == CFG_MAP || (len != 1 && len != (size_t)channels))
            return cfg_error(err, n, 0, "%s: expected 1 value or %d (one per channel of %s), "
                             "got %s%zu", what, channels, info->name,
                             n->kind == CFG_MAP ? "a map of " : "", len);
        for (size_t i = 0; i < len; i++) {
            const cfg_node *item = n->kind == CFG_SEQ ? n->items[i] : n;
            double v;
            if ((rc = cfg_as_double(item, what, &v, err))) return rc;
            if (!isfinite(v) || (k == 1 && !(v > 0)))
                return cfg_error(err, item, 0, "%s must be %s, got %g", what,
                                 k ? "> 0 and finite" : "finite", v);
            vals[k][i] = v;
        }
        *count[k] = len;
    }
    return 0;
}

int spec_read_real_dataset(const cfg_node *ds, run_spec *out, dp_err *err)
{
    dp_data_opts *o = &out->data;
    const cfg_node *name = cfg_get(ds, "name");
    const dp_data_info *info = dp_data_find(name->value);
    int rc, idx;
    long v;
    for (size_t i = 0; i < COUNT(SYNTHETIC_ONLY); i++) {
        const cfg_node *n = cfg_get(ds, SYNTHETIC_ONLY[i]);
        if (n)
            return cfg_error(err, n, 1, "dataset.%s applies to the synthetic dataset only; %s "
                             "has its own size", SYNTHETIC_ONLY[i], info->name);
    }
    if ((rc = cfg_check_keys(ds, "dataset", REAL_KEYS, COUNT(REAL_KEYS), err))) return rc;
    if ((rc = dp_data_opts_default(o, info->name, err))) return rc;
    out->real = 1;
    snprintf(out->dataset, sizeof out->dataset, "%s", info->name);

    if ((rc = cfg_read_enum(ds, "dataset", "scale", 0, (int)o->scale, "scale", SCALES,
                            COUNT(SCALES), &idx, err)))
        return rc;
    o->scale = (dp_scale)idx;
    if ((rc = read_standardize(ds, info, o, err))) return rc;
    if ((rc = cfg_read_enum(ds, "dataset", "normalize", 0, o->unit_l2, "normalization",
                            NORMALIZES, COUNT(NORMALIZES), &idx, err)))
        return rc;
    o->unit_l2 = idx;
    if ((rc = read_bool(ds, "one_hot", &o->one_hot, err))) return rc;
    if (cfg_get(ds, "one_hot") && info->format != DP_FMT_CSV)
        return cfg_error(err, cfg_get(ds, "one_hot"), 1, "dataset.one_hot: %s has no "
                         "categorical columns", info->name);
    if ((rc = cfg_read_enum(ds, "dataset", "labels", 0, (int)o->labels, "label coding",
                            LABELS, COUNT(LABELS), &idx, err)))
        return rc;
    o->labels = (dp_labels)idx;
    const cfg_node *pos = cfg_get(ds, "positive");
    if (pos) {
        if (o->labels != DP_LABELS_PM1)
            return cfg_error(err, pos, 1, "dataset.positive applies to labels: pm1");
        if ((rc = read_scalar_text(pos, "dataset.positive", o->positive, sizeof o->positive,
                                   err)))
            return rc;
    } else if (o->labels == DP_LABELS_PM1 && !o->positive[0]) {
        return cfg_error(err, cfg_get(ds, "labels"), 0, "dataset.labels pm1 on %s needs "
                         "dataset.positive: the class that becomes +1", info->name);
    }
    if (info->regression && (cfg_get(ds, "labels") || pos || cfg_get(ds, "classes"))) {
        const cfg_node *bad = cfg_get(ds, "labels") ? cfg_get(ds, "labels")
                              : pos                 ? pos
                                                    : cfg_get(ds, "classes");
        return cfg_error(err, bad, 1, "%s is a regression dataset: it has no classes",
                         info->name);
    }
    if (!info->regression && cfg_get(ds, "target_scale"))
        return cfg_error(err, cfg_get(ds, "target_scale"), 1, "dataset.target_scale applies "
                         "to the regression datasets (wine_quality, bike)");
    if ((rc = cfg_read_enum(ds, "dataset", "target_scale", 0, (int)o->target_scale,
                            "scale", SCALES, COUNT(SCALES), &idx, err)))
        return rc;
    o->target_scale = (dp_scale)idx;
    if ((rc = cfg_read_enum(ds, "dataset", "missing", 0, (int)o->missing, "missing-value "
                            "policy", MISSINGS, COUNT(MISSINGS), &idx, err)) ||
        (rc = read_classes(ds, o, err)))
        return rc;
    o->missing = (dp_missing)idx;
    if ((rc = cfg_read_int(ds, "dataset", "subsample", 0, 0, 1, LONG_MAX, &v, err))) return rc;
    o->subsample = (size_t)v;
    if ((rc = read_split(ds, o, err))) return rc;
    if ((rc = cfg_read_enum(ds, "dataset", "evaluate", 0, 0, "evaluation set", EVALUATES,
                            COUNT(EVALUATES), &idx, err)))
        return rc;
    o->evaluate_on_validation = idx;
    if (idx == 1 && o->n_validation == 0)
        return cfg_error(err, cfg_get(ds, "evaluate"), 0, "dataset.evaluate: validation needs "
                         "dataset.split.validation > 0");
    if (cfg_get(ds, "fallback") && strcmp(info->name, "mnist") != 0)
        return cfg_error(err, cfg_get(ds, "fallback"), 1, "dataset.fallback applies to mnist "
                         "only (fashion_mnist stands in for it)");
    if ((rc = read_bool(ds, "fallback", &o->fallback, err))) return rc;
    int required = 1;
    if ((rc = read_bool(ds, "required", &required, err))) return rc;
    out->data_optional = !required;
    if ((rc = cfg_read_int(ds, "dataset", "seed", 0, 1, 0, LONG_MAX, &v, err))) return rc;
    o->seed = (uint64_t)v;
    out->synthetic.seed = o->seed;
    return 0;
}

int spec_bind_data(run_spec *s, const cfg_node *root, const dp_data *d, dp_err *err)
{
    const cfg_node *ds = cfg_get(root, "dataset"), *model = cfg_get(root, "model");
    const cfg_node *train = cfg_get(root, "train"), *sh = cfg_get(ds, "shape");
    s->bound = d;
    s->synthetic.d = d->train.d;
    s->synthetic.n_classes = d->n_classes;
    s->n_train = d->train.n;
    s->n_test = s->data.evaluate_on_validation ? d->validation.n : d->test.n;
    s->synthetic.n = s->n_train + s->n_test;
    s->in_c = d->c;
    s->in_h = d->h;
    s->in_w = d->w;
    if (sh) {
        long v[3];
        int rc;
        if (sh->kind != CFG_SEQ || sh->n_items != 3)
            return cfg_error(err, sh, 0, "dataset.shape: expected [channels, height, width]");
        for (int i = 0; i < 3; i++)
            if ((rc = cfg_as_long(sh->items[i], "dataset.shape", &v[i], err))) return rc;
        if (v[0] < 1 || v[1] < 1 || v[2] < 1 || (size_t)(v[0] * v[1] * v[2]) != d->train.d)
            return cfg_error(err, sh, 0, "dataset.shape %ld x %ld x %ld does not fit %s's %zu "
                             "features per example (its own shape: %d x %d x %d)", v[0], v[1],
                             v[2], d->name, d->train.d, d->c, d->h, d->w);
        s->in_c = (int)v[0];
        s->in_h = (int)v[1];
        s->in_w = (int)v[2];
    }
    /* The gd family's batch is the whole training set, known only now. */
    if (s->train.sampling == DP_SAMPLING_FULL) s->train.batch_size = s->n_train;
    const cfg_node *b = cfg_get(train, "batch_size");
    if (s->train.batch_size > s->n_train)
        return cfg_error(err, b ? b : train, b == NULL,
                         "train.batch_size %zu is larger than the %zu training examples of %s",
                         s->train.batch_size, s->n_train, d->name);
    return spec_check_model_fit(model, s, err);
}
