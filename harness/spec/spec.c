/* spec.c: the experiment schema, and turning one resolved run config into a typed
 * run_spec (see spec.h). The document-level checks are in spec_document.c, the field
 * readers both use in harness/config/config_read.c (config.h).
 *
 * Schema (docs/yaml.md, "Keys", copies this table). "int" is a YAML integer,
 * "number" an integer or float; .inf is accepted only where the range says so. Unknown
 * keys are errors with a did-you-mean; errors point at the key (unknown, missing under a
 * block) or at the value (wrong type, out of range).
 *
 *   key (document)      type                      rule / default
 *   experiment          string, required          [A-Za-z0-9_.-]+, not . or ..; results folder
 *   paper, description  string                    metadata, not part of the run id
 *   dataset             map, required             see below
 *   model               map, required
 *   privacy             map
 *   train               map, required
 *   algorithm           map, required
 *   epsilon             number > 0                target; .inf (no privacy) only for sgd;
 *                                                 ignored by sgd (a grid may vary it)
 *   seed                int >= 0                  run seed, default 1
 *   optimality_gap      bool | map                false; true or {reference_epochs: N}
 *                                                 (int >= 1, default 50) records f_star,
 *                                                 optimality_gap = F(w) - f_star and
 *                                                 f_star_method: f_star = F(w*) for a
 *                                                 linear model, for a deep one the lowest
 *                                                 F of an N-epoch non-private Adam
 *                                                 reference training (optimality.h)
 *   grid                map                       top keys: the run keys above + zip (grid.h)
 *   scales              map NAME -> map           overrides deep-merged by --scale NAME
 *   report              map                       tables, figures (below); not in runs
 *
 *   dataset.name        string, required          synthetic, or a real dataset: its keys
 *                                                 are in spec_data.c (split, scale, ...)
 *   (synthetic only:)
 *   dataset.n           int >= 10                 2000 (examples, train + test)
 *   dataset.d           int >= 1                  20
 *   dataset.classes     int >= 2                  2
 *   dataset.margin      number in [0, 1)          0.05
 *   dataset.label_noise number in [0, 0.5]        0
 *   dataset.offset      number in [0, 1)          0; binary: label 1 iff w . x > offset
 *   dataset.seed        int >= 0                  1: the DATA seed, the same for every run
 *   dataset.test_fraction number in (0, 1)        0.2; n_test = round(n * f) and
 *                                                 n_train = n - n_test must both be >= 1
 *   model.type          string, required          logistic (needs classes 2) | softmax
 *   model.l2            number >= 0, finite       0
 *   privacy.delta       number in (0, 1)          1e-5
 *   privacy.accountant  string                    rdp | rdp_classic | moments | rdp_wor |
 *                                                 pld | advanced | basic | lssgd_theorem1
 *                                                 | lecture15_gd (full batch only) | pld_wor
 *                                                 (accountant.h); default rdp
 *   privacy.also_report list of accountants       each one's epsilon for the run is
 *                                                 recorded too, as metrics.epsilon_NAME
 *   privacy.neighbours  string                    add_remove | replace_one; default: the
 *                                                 relation of the mechanism's paper
 *                                                 (spec_neighbours.c)
 *   privacy.secure_noise bool                     false; true: the mechanism's noise from
 *                                                 getrandom, exact discrete samplers on a
 *                                                 grid (not reproducible; ignored by
 *                                                 non-private algorithms)
 *   train.epochs        int >= 1, required
 *   train.batch_size    int >= 1, required        <= n_train
 *   train.sampling      string                    poisson | shuffle | wor; default for
 *                                                 dp_sgd: what its accountant analyses
 *                                                 (wor for rdp_wor and lssgd_theorem1,
 *                                                 else poisson); shuffle
 *                                                 for sgd; calibration from epsilon needs it
 *   train.lr            number > 0 | map, required   a number is a constant rate; a map:
 *     schedule          string, required          constant | inverse_t | step |
 *                                                 inverse_sqrt_t | inverse_epoch
 *     value             number > 0                constant, step (required there)
 *     a                 number > 0                inverse_t, inverse_sqrt_t, inverse_epoch
 *                                                 (required there); inverse_epoch: the
 *                                                 rate of an epoch is a / t_0, t_0 its
 *                                                 first iteration (counted from 1 over
 *                                                 the run), fixed for the whole epoch
 *     step_at           int >= 1                  step (required there)
 *     factor            number in (0, 1]          step (required there)
 *   train.eval_every    int >= 1                  1 (epochs between evaluations)
 *   train.partial_batch string                    drop | keep; default drop: a shuffled
 *                                                 pass's n mod b leftover examples are
 *                                                 unused that epoch; keep: a last, smaller
 *                                                 step on them (ceil(n / b) steps, its
 *                                                 mean over its real size). keep needs
 *                                                 train.sampling shuffle (ignored by the
 *                                                 full-batch algorithms)
 *   train.l2_placement  string                    in_gradient | after_smoothing; default
 *                                                 in_gradient: model.l2's mu w is part of
 *                                                 the direction DP-LSSGD smooths;
 *                                                 after_smoothing adds it after, unsmoothed
 *   algorithm.*         see spec_algorithm.c (name; clip, noise_multiplier for the
 *                                                 private ones; smoothing; Adam's betas)
 *
 *   report.tables[]     map: name (string [A-Za-z0-9_.-]+, unique), title (string),
 *                       rows (path or list of paths), cols (path), cell (metric, required),
 *                       aggregate (mean_std | mean | median | min | max; mean_std),
 *                       reference (string path), digits (int 0..8)
 *   report.figures[]    map: name, title, x (required: iteration | epoch | path | metric),
 *                       y (metric, required), by (path or list of paths),
 *                       where (map path -> scalar), logx, logy, errorbars (bool)
 *
 * Choices where the brief was silent: train.lr has no default (a hidden learning rate
 * would make the resolved config, and so the run id, not describe the run). The choices
 * for the document keys (report, scales) are listed in spec_document.c.
 */
#include "harness/spec/spec.h"

#include "harness/spec/spec_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const RUN_KEYS[] = {"experiment", "paper", "description", "dataset",
                                       "model",      "privacy", "train",     "algorithm",
                                       "epsilon",    "seed",    "optimality_gap", "protocol",
                                       "teachers"};
static const char *const DATASET_KEYS[] = {
    "name",  "n",     "d",         "classes", "margin",   "label_noise", "offset", "seed",   "test_fraction",
    "shape", "split", "scale",     "normalize", "one_hot", "labels",     "positive",
    "target_scale", "missing", "subsample", "evaluate", "fallback", "required", "standardize"};
static const char *const PRIVACY_KEYS[] = {"delta", "accountant", "also_report", "secure_noise",
                                           "neighbours"};
static const char *const TRAIN_KEYS[] = {"epochs", "batch_size", "sampling", "lr",
                                         "eval_every", "partial_batch", "l2_placement",
                                         "readout"};
static const char *const LR_KEYS[] = {"schedule", "value", "a", "step_at", "factor"};

/* synthetic, then the real datasets of datasets/catalog.c (for did-you-mean). */
static const char *const DATASETS[] = {"synthetic",       "mnist",          "fashion_mnist",
                                       "cifar10",         "svhn",           "adult",
                                       "bank",            "bank_additional", "credit_default",
                                       "wine_quality",    "bike",           "kddcup99",
                                       "breast_cancer",   "iris",           "credit_fraud"};
static const char *const REAL_ONLY[] = {"split", "scale", "normalize", "one_hot", "labels",
                                        "positive", "target_scale", "missing", "subsample",
                                        "evaluate", "fallback", "required", "standardize"};
/* In the order of dp_accountant (accountant.h): index + 1 is the enum value. */
static const char *const ACCOUNTANTS[] = {"rdp", "rdp_classic", "moments", "rdp_wor",
                                          "pld", "advanced", "basic", "lssgd_theorem1",
                                          "lecture15_gd", "pld_wor"};
static const char *const SAMPLINGS[] = {"poisson", "shuffle", "wor"};
static const char *const SCHEDULES[] = {"constant", "inverse_t", "step", "inverse_sqrt_t",
                                        "inverse_epoch"};
static const char *const PARTIAL_BATCHES[] = {"drop", "keep"};
static const char *const L2_PLACEMENTS[] = {"in_gradient", "after_smoothing"};

/* privacy.also_report: a list of accountants whose epsilon for the same run the record
 * adds beside the run's own (DPlis printed autodp's classic-conversion epsilon; the tight
 * one belongs beside it). */
static int read_also_report(const cfg_node *privacy, run_spec *out, dp_err *err)
{
    const cfg_node *l = cfg_get(privacy, "also_report");
    out->n_also_report = 0;
    if (!l) return 0;
    if (l->kind != CFG_SEQ || l->n_items > COUNT(out->also_report))
        return cfg_error(err, l, 0, "privacy.also_report: expected a list of at most %zu "
                         "accountants", COUNT(out->also_report));
    for (size_t i = 0; i < l->n_items; i++) {
        const char *name;
        int rc = cfg_as_string(l->items[i], "privacy.also_report", &name, err);
        if (rc) return rc;
        size_t k = 0;
        while (k < COUNT(ACCOUNTANTS) && strcmp(name, ACCOUNTANTS[k])) k++;
        if (k == COUNT(ACCOUNTANTS)) {
            char list[256];
            cfg_join_names(list, sizeof list, ACCOUNTANTS, COUNT(ACCOUNTANTS));
            return cfg_error(err, l->items[i], 0, "privacy.also_report: unknown accountant "
                             "'%s' (known: %s)", name, list);
        }
        for (size_t j = 0; j < out->n_also_report; j++)
            if (out->also_report[j] == (dp_accountant)(k + 1))
                return cfg_error(err, l->items[i], 0, "privacy.also_report: '%s' is listed "
                                 "twice", name);
        out->also_report[out->n_also_report++] = (dp_accountant)(k + 1);
    }
    return 0;
}

static int need_block(const cfg_node *root, const char *name, int required,
                      const cfg_node **out, dp_err *err)
{
    *out = cfg_get(root, name);
    if (!*out) {
        if (required) return cfg_error(err, root, 0, "missing required block '%s'", name);
        return 0;
    }
    return cfg_expect_map(*out, name, err);
}

/* dataset.shape: [c, h, w] with c h w = d, how models see each example (CHW); default
 * 1 x 1 x d. */
static int read_shape(const cfg_node *ds, run_spec *out, dp_err *err)
{
    const cfg_node *sh = cfg_get(ds, "shape");
    out->in_c = out->in_h = 1;
    out->in_w = (int)out->synthetic.d;
    if (!sh) return 0;
    if (sh->kind != CFG_SEQ || sh->n_items != 3)
        return cfg_error(err, sh, 0, "dataset.shape: expected [channels, height, width]");
    long v[3];
    for (int i = 0; i < 3; i++) {
        int rc = cfg_as_long(sh->items[i], "dataset.shape", &v[i], err);
        if (rc) return rc;
        if (v[i] < 1 || v[i] > 65536)
            return cfg_error(err, sh->items[i], 0, "dataset.shape entries must be in 1..65536");
    }
    if ((size_t)(v[0] * v[1] * v[2]) != out->synthetic.d)
        return cfg_error(err, sh, 0, "dataset.shape %ld x %ld x %ld has %ld values per example, "
                         "but dataset.d is %zu", v[0], v[1], v[2], v[0] * v[1] * v[2],
                         out->synthetic.d);
    out->in_c = (int)v[0];
    out->in_h = (int)v[1];
    out->in_w = (int)v[2];
    return 0;
}

static int read_dataset(const cfg_node *ds, run_spec *out, size_t *n_train, dp_err *err)
{
    long n, d, classes, seed;
    int idx = 0, rc;
    if ((rc = cfg_check_keys(ds, "dataset", DATASET_KEYS, COUNT(DATASET_KEYS), err)) ||
        (rc = cfg_read_enum(ds, "dataset", "name", 1, 0, "dataset", DATASETS,
                            COUNT(DATASETS), &idx, err)))
        return rc;
    if (idx > 0) return spec_read_real_dataset(ds, out, err);
    for (size_t i = 0; i < COUNT(REAL_ONLY); i++)
        if (cfg_get(ds, REAL_ONLY[i]))
            return cfg_error(err, cfg_get(ds, REAL_ONLY[i]), 1, "dataset.%s applies to the real "
                             "datasets, not to synthetic", REAL_ONLY[i]);
    if ((rc = cfg_read_int(ds, "dataset", "n", 0, 2000, 10, LONG_MAX, &n, err)) ||
        (rc = cfg_read_int(ds, "dataset", "d", 0, 20, 1, LONG_MAX, &d, err)) ||
        (rc = cfg_read_int(ds, "dataset", "classes", 0, 2, 2, INT_MAX, &classes, err)) ||
        (rc = cfg_read_number(ds, "dataset", "margin", 0, 0.05,
                              (cfg_range){0, 1, 0, 1, "in [0, 1)"}, &out->synthetic.margin,
                               err)) ||
        (rc = cfg_read_number(ds, "dataset", "offset", 0, 0,
                              (cfg_range){0, 1, 0, 1, "in [0, 1)"}, &out->synthetic.offset,
                               err)) ||
        (rc = cfg_read_number(ds, "dataset", "label_noise", 0, 0,
                              (cfg_range){0, 0.5, 0, 0, "in [0, 0.5]"},
                               &out->synthetic.label_noise, err)) ||
        (rc = cfg_read_int(ds, "dataset", "seed", 0, 1, 0, LONG_MAX, &seed, err)) ||
        (rc = cfg_read_number(ds, "dataset", "test_fraction", 0, 0.2,
                              (cfg_range){0, 1, 1, 1, "in (0, 1)"}, &out->test_fraction,
                               err)))
        return rc;
    snprintf(out->dataset, sizeof out->dataset, "%s", DATASETS[idx]);
    out->synthetic.n = (size_t)n;
    out->synthetic.d = (size_t)d;
    out->synthetic.n_classes = (int)classes;
    out->synthetic.seed = (uint64_t)seed;
    if (out->synthetic.offset > 0 && classes != 2)
        return cfg_error(err, cfg_get(ds, "offset"), 0, "dataset.offset applies to binary "
                         "data (classes: 2), not to %ld classes", classes);
    double n_test = round((double)n * out->test_fraction);
    if (n_test < 1 || n_test > (double)n - 1) {
        const cfg_node *tf = cfg_get(ds, "test_fraction");
        return cfg_error(err, tf ? tf : ds, tf == NULL,
                         "dataset.test_fraction %g of n = %ld leaves %s: need at least one "
                         "training and one test example",
                         out->test_fraction, n, n_test < 1 ? "no test examples"
                                                           : "no training examples");
    }
    *n_train = (size_t)n - (size_t)n_test;
    out->n_train = *n_train;
    out->n_test = (size_t)n_test;
    return read_shape(ds, out, err);
}

static int read_lr(const cfg_node *train, dp_train_cfg *tc, dp_err *err)
{
    const cfg_node *lr = cfg_get(train, "lr");
    int rc, sched = 0;
    if (!lr) return cfg_missing(train, "train", "lr", err);
    if (lr->kind == CFG_SCALAR) {
        tc->lr_schedule = DP_LR_CONSTANT;
        if ((rc = cfg_as_double(lr, "train.lr", &tc->lr, err))) {
            dp_err_hint(err, "or a map such as {schedule: inverse_t, a: 1.0}");
            return rc;
        }
        if (!(tc->lr > 0) || isinf(tc->lr))
            return cfg_error(err, lr, 0, "train.lr must be > 0 and finite, got %s", lr->value);
        return 0;
    }
    if (lr->kind != CFG_MAP)
        return cfg_error(err, lr, 0, "train.lr: expected a number or a map {schedule: ...}");
    if ((rc = cfg_check_keys(lr, "train.lr", LR_KEYS, COUNT(LR_KEYS), err)) ||
        (rc = cfg_read_enum(lr, "train.lr", "schedule", 1, 0, "schedule", SCHEDULES,
                            COUNT(SCHEDULES), &sched, err)))
        return rc;
    /* keys each schedule takes, all required */
    static const char *const takes[5][3] = {{"value", NULL, NULL},
                                            {"a", NULL, NULL},
                                            {"value", "step_at", "factor"},
                                            {"a", NULL, NULL},
                                            {"a", NULL, NULL}};
    static const char *const takes_text[5] = {"value", "a", "value, step_at, factor", "a",
                                              "a"};
    for (size_t i = 0; i < lr->n_items; i++) {
        const char *k = lr->items[i]->key;
        int used = strcmp(k, "schedule") == 0;
        for (int j = 0; j < 3 && !used; j++) used = takes[sched][j] && !strcmp(k, takes[sched][j]);
        if (!used)
            return cfg_error(err, lr->items[i], 1,
                             "train.lr.%s is not used by schedule '%s' (it takes: %s)", k,
                             SCHEDULES[sched], takes_text[sched]);
    }
    for (int j = 0; j < 3; j++)
        if (takes[sched][j] && !cfg_get(lr, takes[sched][j]))
            return cfg_error(err, lr, 1, "train.lr: schedule '%s' needs '%s' (it takes: %s)",
                             SCHEDULES[sched], takes[sched][j], takes_text[sched]);
    const cfg_range positive = {0, INFINITY, 1, 1, "> 0 and finite"};
    static const dp_lr_schedule kinds[5] = {DP_LR_CONSTANT, DP_LR_INVERSE_T, DP_LR_STEP,
                                            DP_LR_INVERSE_SQRT_T, DP_LR_INVERSE_EPOCH};
    tc->lr_schedule = kinds[sched];
    if ((rc = cfg_read_number(lr, "train.lr", "value", 0, 0, positive, &tc->lr, err)) ||
        (rc = cfg_read_number(lr, "train.lr", "a", 0, 0, positive, &tc->lr_a, err)) ||
        (rc = cfg_read_int(lr, "train.lr", "step_at", 0, 0, 1, LONG_MAX, &tc->lr_step_at,
                           err)) ||
        (rc = cfg_read_number(lr, "train.lr", "factor", 0, 0,
                              (cfg_range){0, 1, 1, 0, "in (0, 1]"}, &tc->lr_step_factor,
                              err)))
        return rc;
    return 0;
}

/* The train block. full: a full-batch algorithm (gd family), whose batch is the whole
 * training set (set here for synthetic data, when the data are bound for real data):
 * it ignores train.batch_size and train.sampling, as sgd ignores epsilon, so one grid can
 * compare mini-batch and full-batch algorithms over a shared train block. */
static int read_train(const cfg_node *train, int dp, int full, size_t n_all, size_t n_train,
                      dp_train_cfg *tc, dp_err *err)
{
    long epochs, batch, eval_every;
    int sampling = 0, partial = 0, l2_at = 0, rc;
    if ((rc = cfg_check_keys(train, "train", TRAIN_KEYS, COUNT(TRAIN_KEYS), err)) ||
        (rc = cfg_read_enum(train, "train", "partial_batch", 0, 0, "partial_batch setting",
                            PARTIAL_BATCHES, COUNT(PARTIAL_BATCHES), &partial, err)) ||
        (rc = cfg_read_enum(train, "train", "l2_placement", 0, 0, "l2_placement",
                            L2_PLACEMENTS, COUNT(L2_PLACEMENTS), &l2_at, err)))
        return rc;
    tc->partial_batch = partial ? DP_PARTIAL_KEEP : DP_PARTIAL_DROP;
    tc->l2_placement = l2_at ? DP_L2_AFTER_SMOOTHING : DP_L2_IN_GRADIENT;
    if (full) {
        if ((rc = cfg_read_int(train, "train", "epochs", 1, 0, 1, INT_MAX, &epochs, err)) ||
            (rc = read_lr(train, tc, err)) ||
            (rc = cfg_read_int(train, "train", "eval_every", 0, 1, 1, INT_MAX, &eval_every,
                               err)))
            return rc;
        tc->epochs = (int)epochs;
        tc->sampling = DP_SAMPLING_FULL;
        tc->batch_size = n_train == SIZE_MAX ? 0 : n_train;
        tc->eval_every = (int)eval_every;
        return 0;
    }
    if ((rc = cfg_read_int(train, "train", "epochs", 1, 0, 1, INT_MAX, &epochs, err)) ||
        (rc = cfg_read_int(train, "train", "batch_size", 1, 0, 1, LONG_MAX, &batch, err)) ||
        (rc = cfg_read_enum(train, "train", "sampling", 0, dp ? 0 : 1, "sampling", SAMPLINGS,
                            COUNT(SAMPLINGS), &sampling, err)) ||
        (rc = read_lr(train, tc, err)) ||
        (rc = cfg_read_int(train, "train", "eval_every", 0, 1, 1, INT_MAX, &eval_every,
                           err)))
        return rc;
    if ((unsigned long)batch > n_train)
        return cfg_error(err, cfg_get(train, "batch_size"), 0,
                         "train.batch_size %ld is larger than the %zu training examples "
                         "(dataset.n %zu minus %zu test examples)", batch, n_train, n_all,
                         n_all - n_train);
    tc->epochs = (int)epochs;
    tc->batch_size = (size_t)batch;
    tc->sampling = sampling == 0   ? DP_SAMPLING_POISSON
                   : sampling == 1 ? DP_SAMPLING_SHUFFLE
                                   : DP_SAMPLING_WOR;
    tc->eval_every = (int)eval_every;
    return 0;
}

/* The sampling an accountant's analysis assumes: rdp_wor, pld_wor and lssgd_theorem1
 * fixed-size batches drawn without replacement, lecture15_gd the full batch, every other
 * one Poisson sampling. */
dp_sampling spec_accountant_sampling(dp_accountant a)
{
    if (a == DP_ACCOUNTANT_LECTURE15_GD) return DP_SAMPLING_FULL;
    return a == DP_ACCOUNTANT_RDP_WOR || a == DP_ACCOUNTANT_LSSGD_THM1 ||
                   a == DP_ACCOUNTANT_PLD_WOR
               ? DP_SAMPLING_WOR
               : DP_SAMPLING_POISSON;
}

int spec_accountant_fits(dp_accountant a, dp_sampling s)
{
    /* The whole training set every step is q = 1 under either sampling's analysis. */
    return s == spec_accountant_sampling(a) || s == DP_SAMPLING_FULL;
}

/* dp_sgd: exactly one of epsilon / noise_multiplier; epsilon needs the sampling its
 * accountant analyses. */
static int check_privacy_target(const cfg_node *root, const cfg_node *algo,
                                const cfg_node *train, run_spec *out, dp_err *err)
{
    const cfg_node *eps = cfg_get(root, "epsilon");
    if (out->train.algorithm == DP_ALGO_SGD) {
        out->epsilon = INFINITY; /* sgd spends no budget: a grid's epsilon does not apply */
        return 0;
    }
    if (eps && out->has_noise_multiplier)
        return cfg_error(err, cfg_get(algo, "noise_multiplier"), 1,
                         "give either epsilon (the noise is calibrated to it) or "
                         "algorithm.noise_multiplier, not both");
    if (!eps && !out->has_noise_multiplier)
        return cfg_error(err, algo, 1,
                         "%s needs a privacy target: set epsilon (the noise is calibrated "
                         "to it) or algorithm.noise_multiplier", out->algorithm);
    if (!eps) {
        out->epsilon = INFINITY;
        return 0;
    }
    if (isinf(out->epsilon))
        return cfg_error(err, eps, 0,
                         "epsilon .inf means no privacy: use a non-private algorithm (sgd, gd, "
                         "adam) for it");
    dp_sampling need = spec_accountant_sampling(out->accountant_kind);
    /* A batch-mean clip bounds nothing (privacy_truth.h): its epsilon is the paper's claim
     * only, so it is calibrated as the paper calibrated it, whatever the sampling. */
    if (!spec_accountant_fits(out->accountant_kind, out->train.sampling) &&
        out->train.clip_mode != DP_CLIP_BATCH_MEAN_PER_TENSOR)
        return cfg_error(err, cfg_get(train, "sampling"), 0,
                         "epsilon calibration with privacy.accountant %s assumes %s; set "
                         "train.sampling: %s, or give algorithm.noise_multiplier",
                         out->accountant,
                         need == DP_SAMPLING_WOR ? "fixed-size batches drawn without replacement"
                                                 : "Poisson sampling",
                         need == DP_SAMPLING_WOR ? "wor" : "poisson");
    out->train.noise_multiplier = 0; /* the harness calibrates it from epsilon */
    return 0;
}

/* An algorithm with its own driver (harness/drivers/): epsilon and seed as for every
 * run; its driver checks its algorithm and train blocks (sweep/plan.h's plan_check). */
static int read_driver_run(const cfg_node *root, const cfg_node *model, run_spec *out,
                           dp_err *err)
{
    long seed;
    int rc;
    if (out->train.init != DP_INIT_AS_GIVEN)
        return cfg_error(err, cfg_get(model, "init"), 1, "model.init applies to the "
                         "first-order algorithms; %s starts from its own point",
                         out->algorithm);
    if ((rc = cfg_read_number(root, "", "epsilon", 0, INFINITY,
                              (cfg_range){0, INFINITY, 1, 0, "> 0"}, &out->epsilon, err)) ||
        (rc = cfg_read_int(root, "", "seed", 0, 1, 0, LONG_MAX, &seed, err)))
        return rc;
    out->seed = (uint64_t)seed;
    out->train.seed = out->seed;
    if (out->algo->private_ && !cfg_get(root, "epsilon"))
        return cfg_error(err, cfg_get(root, "algorithm"), 1,
                         "%s needs a privacy target: set epsilon", out->algorithm);
    if (!out->algo->private_) out->epsilon = INFINITY;
    return spec_read_neighbours(root, out, err);
}

/* The run config's own keys: no document key, the experiment's name, paper,
 * description and protocol. */
static int read_top(const cfg_node *root, run_spec *out, dp_err *err)
{
    const char *s;
    int rc;
    if (!root || root->kind != CFG_MAP)
        return cfg_error(err, root, 0, "a run config must be a mapping of keys");
    for (size_t i = 0; i < root->n_items; i++) {
        const char *k = root->items[i]->key;
        if (!strcmp(k, "grid") || !strcmp(k, "scales") || !strcmp(k, "report"))
            return cfg_error(err, root->items[i], 1,
                             "'%s' belongs to the experiment document, not to a run config "
                             "(expand the document first)", k);
    }
    if ((rc = cfg_check_keys(root, "the run config", RUN_KEYS, COUNT(RUN_KEYS), err)))
        return rc;
    if (cfg_get(root, "experiment")) {
        if ((rc = spec_check_experiment(root, err, &s))) return rc;
        snprintf(out->experiment, sizeof out->experiment, "%s", s);
    }
    if ((rc = cfg_read_string(root, "", "paper", &s, err)) ||
        (rc = cfg_read_string(root, "", "description", &s, err)) ||
        (rc = cfg_read_string(root, "", "protocol", &s, err)))
        return rc;
    snprintf(out->protocol, sizeof out->protocol, "%s", s ? s : "");
    return 0;
}

/* The privacy block (absent: every default): delta, accountant, also_report, secure
 * noise. */
static int read_privacy(const cfg_node *privacy, run_spec *out, dp_err *err)
{
    int idx = 0, rc;
    if (privacy &&
        (rc = cfg_check_keys(privacy, "privacy", PRIVACY_KEYS, COUNT(PRIVACY_KEYS), err)))
        return rc;
    if ((rc = cfg_read_number(privacy, "privacy", "delta", 0, 1e-5,
                              (cfg_range){0, 1, 1, 1, "in (0, 1)"}, &out->delta, err)) ||
        (rc = cfg_read_enum(privacy, "privacy", "accountant", 0, 0, "accountant", ACCOUNTANTS,
                            COUNT(ACCOUNTANTS), &idx, err)))
        return rc;
    snprintf(out->accountant, sizeof out->accountant, "%s", ACCOUNTANTS[idx]);
    out->accountant_kind = (dp_accountant)(idx + 1);
    if ((rc = read_also_report(privacy, out, err))) return rc;
    const cfg_node *secure = cfg_get(privacy, "secure_noise");
    if (secure && (rc = cfg_as_bool(secure, "privacy.secure_noise", &out->secure_noise, err)))
        return rc;
    return 0;
}

int spec_from_config(const cfg_node *root, run_spec *out, dp_err *err)
{
    const cfg_node *ds, *model, *privacy, *algo, *train;
    long seed;
    int rc;
    size_t n_train = 0;
    memset(out, 0, sizeof *out);
    if ((rc = read_top(root, out, err))) return rc;

    if ((rc = need_block(root, "dataset", 1, &ds, err)) ||
        (rc = read_dataset(ds, out, &n_train, err)))
        return rc;

    if ((rc = need_block(root, "model", 1, &model, err)) ||
        (rc = spec_read_model(model, out, err)) ||
        (rc = spec_read_optimality(root, out, err)))
        return rc;

    if ((rc = need_block(root, "privacy", 0, &privacy, err)) ||
        (rc = read_privacy(privacy, out, err)))
        return rc;

    if ((rc = need_block(root, "algorithm", 1, &algo, err)) ||
        (rc = spec_read_algorithm(algo, out, err)))
        return rc;
    if (!out->algo->private_) out->secure_noise = 0; /* no mechanism, nothing to secure */
    if (out->algo->kind == SPEC_KIND_DRIVER && !out->algo->student)
        return read_driver_run(root, model, out, err);
    if (out->algo->student) /* PATE: the student learns non-privately from private labels */
        out->train.algorithm = DP_ALGO_SGD;
    if ((rc = need_block(root, "train", 1, &train, err)) ||
        (rc = read_train(train, out->train.algorithm == DP_ALGO_DP_SGD, out->algo->full_batch,
                         out->synthetic.n, out->real ? SIZE_MAX : n_train, &out->train, err)))
        return rc;

    /* A private run's default sampling is the one its accountant analyses; Lemma 15.1
     * analyses full-batch gradient descent only. */
    if (out->train.algorithm == DP_ALGO_DP_SGD && !out->algo->full_batch &&
        out->accountant_kind == DP_ACCOUNTANT_LECTURE15_GD)
        return cfg_error(err, cfg_get(privacy, "accountant"), 0,
                         "privacy.accountant lecture15_gd is Lecture15 Lemma 15.1 for "
                         "full-batch gradient descent: use it with dp_gd, not %s",
                         out->algorithm);
    if (out->train.algorithm == DP_ALGO_DP_SGD && !out->algo->full_batch &&
        !cfg_get(train, "sampling"))
        out->train.sampling = spec_accountant_sampling(out->accountant_kind);
    /* Only shuffled passes leave a partial batch (the full batch has none: ignored). */
    if (out->train.partial_batch == DP_PARTIAL_KEEP &&
        out->train.sampling != DP_SAMPLING_SHUFFLE && out->train.sampling != DP_SAMPLING_FULL)
        return cfg_error(err, cfg_get(train, "partial_batch"), 1,
                         "train.partial_batch keep needs train.sampling shuffle (%s batches "
                         "have no partial batch)",
                         out->train.sampling == DP_SAMPLING_POISSON ? "poisson" : "wor");

    if ((rc = cfg_read_number(root, "", "epsilon", 0, INFINITY,
                              (cfg_range){0, INFINITY, 1, 0, "> 0"}, &out->epsilon, err)) ||
        (rc = cfg_read_int(root, "", "seed", 0, 1, 0, LONG_MAX, &seed, err)))
        return rc;
    out->seed = (uint64_t)seed;
    out->train.seed = out->seed;
    out->train.secure_noise = out->secure_noise;
    if ((rc = check_privacy_target(root, algo, train, out, err)) ||
        (rc = spec_read_readout(train, out, err)))
        return rc;
    /* A protocol named private promises a DP run: a clip that bounds nothing per example
     * cannot be part of it (docs/reproducing.md, "Reproducing as published"). */
    if (out->train.clip_mode == DP_CLIP_BATCH_MEAN_PER_TENSOR && !strcmp(out->protocol, "private"))
        return cfg_error(err, cfg_get(algo, "clip_mode"), 0,
                         "algorithm.clip_mode batch_mean_per_tensor under protocol private: "
                         "clipping the batch mean bounds nothing per example, so the run "
                         "would not be private; use per_example, or put it in another "
                         "protocol (as_published)");
    return spec_read_neighbours(root, out, err);
}
