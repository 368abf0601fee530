/* audit.c: the empirical privacy audit of `dperm audit` (audit.h).
 *
 * Method: Jagielski, Ullman, Oprea 2020 (Alg. 2: train T times on D and on D' = D plus a
 * poisoning point, threshold a statistic of the released model, Clopper-Pearson bounds on
 * the error rates, Thm 1's epsilon bound) and Nasr et al. 2021 (the canary crafted for
 * the largest influence; add/remove neighbours). The statistics are audit_bound.c's.
 *
 * Choices:
 * - The canary (for linear models) has its features along the direction the training
 *   rows use least (the eigenvector of the smallest eigenvalue of X^T X, by power
 *   iteration on trace(X^T X) I - X^T X), so its gradient is nearly orthogonal to the
 *   data's and its influence is not washed out by theirs; its label is the training set's
 *   least frequent class, the one a model's bias leans against (on imbalanced data its
 *   gradient then stays near its largest). Its norm is the largest the
 *   mechanism allows: algorithm.feature_bound B for the algorithms whose theorem bounds
 *   the rows (they refuse longer rows), 10 C for the first-order ones, so that its
 *   gradient is clipped to the full C with 99.5% of it along the canary direction.
 * - Neighbours: those of the algorithm's privacy analysis unless audit.neighbours says
 *   otherwise. Add/remove (D against D plus the canary) for the first-order algorithms
 *   under the Poisson accountants; replace-one for rdp_wor, lssgd_theorem1 and the
 *   theorem-calibrated convex algorithms (Zhang17, InputPert, Kifer et al., Bassily et
 *   al. bound data sets that differ in one example). Replace-one puts the canary in both
 *   sets, with another label in D (logistic: the other class; softmax: the most frequent
 *   class): for logistic regression the two gradients then differ by exactly [x; 1] at
 *   every step, whatever the weights.
 * - The claimed delta is the one the run spends (0 for an eps-DP mechanism such as
 *   output perturbation's Laplace), as the driver records it.
 * - The released statistic: the final weights projected on the canary (the class row of
 *   the canary's label, minus the mean row for softmax, times its sign for logistic), or
 *   minus the canary's loss under them; larger means "canary present".
 * - Trials run in this process through the library's own trainers: dp_train_linear for
 *   the first-order algorithms, the convex drivers' run() (driver.c) for the others, with
 *   trial seeds from splitmix64(audit seed, side, trial): every trial draws fresh noise
 *   and batches. Full-batch training takes every row it is given (n or n + 1). The
 *   first-order algorithms keep the noise calibrated for D (n rows), as a run of the
 *   experiment file would; the convex drivers calibrate to the rows they get, as theirs do.
 * - The first half of each side's trials chooses the threshold, the second half gives
 *   the reported rates and bound (choosing and evaluating on the same outputs would
 *   overstate the bound).
 */
#include "harness/sweep/audit.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/models/linear.h"
#include "algorithms/train.h"
#include "harness/drivers/driver.h"
#include "harness/sweep/progress.h"
#include "harness/sweep/plan.h"
#include "harness/sweep/runner.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

static const char *const AUDIT_KEYS[] = {"trials",    "confidence", "seed",
                                         "statistic", "canary",     "neighbours"};
static const char *const CANARY_KEYS[] = {"norm", "pair"};
static const char *const PAIRS[] = {"auto", "relabel", "mirror"};
static const char *const STATISTICS[] = {"projection", "loss"};
static const char *const NEIGHBOURS[] = {"auto", "add_remove", "replace_one"};

/* Seconds between the progress lines of one long audit. */
#define AUDIT_PROGRESS_SECONDS 10.0

// ---- the audit block ----------------------------------------------------------------

static int read_block(const cfg_node *root, audit_opts *o, dp_err *err)
{
    memset(o, 0, sizeof *o);
    o->trials = 1000;
    o->confidence = 0.95;
    o->seed = 1;
    const cfg_node *a = cfg_get(root, "audit");
    if (!a) return 0;
    long trials, seed;
    int stat = 0, nb = 0, rc;
    if ((rc = cfg_expect_map(a, "audit", err)) ||
        (rc = cfg_check_keys(a, "audit", AUDIT_KEYS, CFG_COUNT(AUDIT_KEYS), err)) ||
        (rc = cfg_read_int(a, "audit", "trials", 0, 1000, 10, 10000000, &trials, err)) ||
        (rc = cfg_read_number(a, "audit", "confidence", 0, 0.95,
                              (cfg_range){0, 1, 1, 1, "in (0, 1)"}, &o->confidence, err)) ||
        (rc = cfg_read_int(a, "audit", "seed", 0, 1, 0, LONG_MAX, &seed, err)) ||
        (rc = cfg_read_enum(a, "audit", "statistic", 0, 0, "statistic", STATISTICS,
                            CFG_COUNT(STATISTICS), &stat, err)) ||
        (rc = cfg_read_enum(a, "audit", "neighbours", 0, 0, "neighbour relation", NEIGHBOURS,
                            CFG_COUNT(NEIGHBOURS), &nb, err)))
        return rc;
    o->neighbours = (audit_neighbours)nb;
    o->trials = trials;
    o->seed = (uint64_t)seed;
    o->statistic = (audit_statistic)stat;
    const cfg_node *c = cfg_get(a, "canary");
    if (c && ((rc = cfg_expect_map(c, "audit.canary", err)) ||
              (rc = cfg_check_keys(c, "audit.canary", CANARY_KEYS, CFG_COUNT(CANARY_KEYS), err)) ||
              (rc = cfg_read_number(c, "audit.canary", "norm", 0, 0.0,
                                    (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"},
                                     &o->canary_norm, err))))
        return rc;
    int pair = 0;
    if (c && (rc = cfg_read_enum(c, "audit.canary", "pair", 0, 0, "canary pair", PAIRS,
                                 CFG_COUNT(PAIRS), &pair, err)))
        return rc;
    o->pair = (audit_pair)pair;
    return 0;
}

/* What the audit needs of a run: a private algorithm with a claimed epsilon, trained on
 * a linear classifier. The run's canary norm: the block's, or the default (header). */
static int check_run(const audit_set *a, const cfg_node *run, const run_spec *s,
                     double *canary_norm, dp_err *err)
{
    const audit_opts *o = &a->opts;
    const cfg_node *algo = cfg_get(run, "algorithm");
    if (!s->algo || !s->algo->private_)
        return cfg_error(err, cfg_get(algo, "name"), 0, "audit: '%s' is not a private "
                         "algorithm; there is no privacy claim to audit", s->algorithm);
    if (!isfinite(s->epsilon))
        return cfg_error(err, algo, 1, "audit: %s needs a target epsilon, the claim the "
                         "audit checks (give epsilon instead of noise_multiplier)",
                         s->algorithm);
    if (s->deep || s->regression)
        return cfg_error(err, cfg_get(cfg_get(run, "model"), "type"), 0, "audit: the canary "
                         "is crafted for linear classifiers; model.type must be logistic or "
                         "softmax, got %s", s->model_name);
    if (s->algo->kind == SPEC_KIND_DRIVER && !driver_find(s->algorithm))
        return cfg_error(err, algo, 1, "audit: no driver for %s", s->algorithm);
    if (s->algo->kind == SPEC_KIND_DRIVER) {
        double B;
        int rc = cfg_read_number(algo, "algorithm", "feature_bound", 0, 1.0,
                                 (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, &B, err);
        if (rc) return rc;
        if (o->canary_norm > B)
            return cfg_error(err, cfg_get_path(a->doc.root, "audit.canary.norm"), 0,
                             "audit.canary.norm %g exceeds algorithm.feature_bound %g, which "
                             "%s enforces on every row; give at most %g, or leave it out (the "
                             "default is the bound)", o->canary_norm, B, s->algorithm, B);
        *canary_norm = o->canary_norm > 0 ? o->canary_norm : B;
    } else {
        *canary_norm = o->canary_norm > 0 ? o->canary_norm : 10.0 * s->train.clip;
    }
    return 0;
}

/* spec_check_document on the document without its audit block (which is this file's to
 * check): a shallow copy of the root whose item list leaves it out. */
static int check_document(const cfg_node *root, dp_err *err)
{
    if (!root || root->kind != CFG_MAP || !cfg_get(root, "audit"))
        return spec_check_document(root, err);
    cfg_node doc = *root;
    doc.items = malloc(root->n_items * sizeof *doc.items);
    if (!doc.items) return dp_err_set(err, DP_ENOMEM, "out of memory");
    doc.n_items = 0;
    for (size_t i = 0; i < root->n_items; i++)
        if (strcmp(root->items[i]->key, "audit")) doc.items[doc.n_items++] = root->items[i];
    int rc = spec_check_document(&doc, err);
    free(doc.items);
    return rc;
}

int audit_set_load(audit_set *a, const char *path, const audit_overrides *ov,
                   const char *data_dir, dp_err *err)
{
    memset(a, 0, sizeof *a);
    data_cache_init(&a->data, data_dir, stderr);
    int rc = cfg_parse_file(&a->doc, path, err);
    if (rc == 0) rc = check_document(a->doc.root, err);
    if (rc == 0) rc = read_block(a->doc.root, &a->opts, err);
    if (rc) return rc;
    if (ov && ov->trials) a->opts.trials = ov->trials;
    if (ov && ov->confidence > 0) a->opts.confidence = ov->confidence;
    if (ov && ov->has_seed) a->opts.seed = ov->seed;
    if ((rc = grid_expand(a->doc.root, NULL, NULL, 0, &a->g, err))) return rc;
    a->specs = calloc(a->g.n ? a->g.n : 1, sizeof *a->specs);
    if (!a->specs) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t i = 0; i < a->g.n; i++) {
        run_spec *s = &a->specs[i];
        const cfg_node *run = a->g.runs[i].config;
        const cfg_node *eps = cfg_get(run, "epsilon");
        double norm;
        if ((rc = plan_check(run, s, err)) ||
            (rc = data_cache_bind(&a->data, s, run, err)) ||
            (rc = check_run(a, run, s, &norm, err)) ||
            (rc = plan_calibrate(s, eps ? eps : run, err)))
            return rc;
    }
    return 0;
}

void audit_set_destroy(audit_set *a)
{
    if (!a) return;
    free(a->specs);
    grid_destroy(&a->g);
    data_cache_destroy(&a->data);
    cfg_doc_destroy(&a->doc);
    memset(a, 0, sizeof *a);
}

// ---- the canary ---------------------------------------------------------------------

/* u (d) = the unit eigenvector of the smallest eigenvalue of X^T X (x is (n, d)), by
 * power iteration on c I - X^T X with c = trace >= the largest eigenvalue. A fixed,
 * uneven start vector and a fixed number of sweeps: the direction only needs to be
 * little used, not exact, and the same data give the same canary. */
static int least_used_direction(const double *x, size_t n, size_t d, double *u, dp_err *err)
{
    double *S = calloc(d * d + d, sizeof *S);
    if (!S) return dp_err_set(err, DP_ENOMEM, "out of memory for the canary (%zu features)", d);
    double *v = S + d * d;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++)
            for (size_t k = 0; k < d; k++) S[j * d + k] += x[i * d + j] * x[i * d + k];
    double c = 0.0;
    for (size_t j = 0; j < d; j++) c += S[j * d + j];
    for (size_t j = 0; j < d; j++) u[j] = 1.0 + 0.37 * (double)j / (double)d;
    for (int it = 0; it < 2000; it++) {
        double nv = 0.0;
        for (size_t j = 0; j < d; j++) {
            double s = c * u[j];
            for (size_t k = 0; k < d; k++) s -= S[j * d + k] * u[k];
            v[j] = s;
            nv += s * s;
        }
        nv = sqrt(nv);
        if (!(nv > 0.0)) break; /* X^T X = c I: every direction is as good */
        for (size_t j = 0; j < d; j++) u[j] = v[j] / nv;
    }
    double nu = 0.0;
    for (size_t j = 0; j < d; j++) nu += u[j] * u[j];
    nu = sqrt(nu);
    for (size_t j = 0; j < d; j++) u[j] /= nu;
    free(S);
    return 0;
}

/* The least (rarest = 1) or most (rarest = 0) frequent class of y (n labels in [0, k));
 * the lowest index on ties. */
static int class_by_count(const int *y, size_t n, int k, int rarest)
{
    int best = 0;
    size_t best_count = 0;
    for (int c = 0; c < k; c++) {
        size_t count = 0;
        for (size_t i = 0; i < n; i++) count += y[i] == c;
        if (c == 0 || (rarest ? count < best_count : count > best_count)) {
            best_count = count;
            best = c;
        }
    }
    return best;
}

typedef struct audit_ctx {
    const audit_set *set;
    const cfg_node *run;
    const run_spec *s;
    const driver *drv;  /* convex algorithms, else NULL */
    const dp_dataset *data, *te; /* D and the test set */
    const dp_dataset *d0;      /* the side without the canary: D, or D + relabelled canary */
    dp_dataset d1;             /* D plus the canary, last row */
    dp_dataset d0r;            /* replace-one: D plus the canary with another label */
    double *u;                 /* (d) canary direction */
    int label;                 /* canary class */
} audit_ctx;

/* D (n rows) plus one row x (d) of class y, into *out (arrays owned by out). */
static int append_row(const dp_dataset *D, const double *x, int y, dp_dataset *out, dp_err *err)
{
    size_t n = D->n, d = D->d;
    *out = *D;
    out->t = NULL;
    out->x = malloc((n + 1) * d * sizeof *out->x);
    out->y = malloc((n + 1) * sizeof *out->y);
    if (!out->x || !out->y)
        return dp_err_set(err, DP_ENOMEM, "out of memory for the canary data set");
    memcpy(out->x, D->x, n * d * sizeof *out->x);
    memcpy(out->y, D->y, n * sizeof *out->y);
    memcpy(out->x + n * d, x, d * sizeof *out->x);
    out->y[n] = y;
    out->n = n + 1;
    return 0;
}

static int make_canary(audit_ctx *c, double norm, audit_neighbours nb, audit_pair pair,
                       dp_err *err)
{
    const dp_dataset *D = c->data;
    size_t n = D->n, d = D->d;
    c->u = malloc(2 * d * sizeof *c->u);
    if (!c->u) return dp_err_set(err, DP_ENOMEM, "out of memory for the canary");
    double *xc = c->u + d;
    int rc = least_used_direction(D->x, n, d, c->u, err);
    if (rc) return rc;
    c->label = class_by_count(D->y, n, D->n_classes, 1);
    /* A hair inside the bound: the algorithms check ||x|| <= B after rounding. */
    for (size_t j = 0; j < d; j++) xc[j] = norm * (1.0 - 1e-12) * c->u[j];
    if ((rc = append_row(D, xc, c->label, &c->d1, err))) return rc;
    c->d0 = D;
    if (nb == AUDIT_NEIGHBOURS_REPLACE_ONE && pair == AUDIT_PAIR_MIRROR) {
        double *xm = malloc(d * sizeof *xm);
        if (!xm) return dp_err_set(err, DP_ENOMEM, "out of memory for the canary");
        for (size_t j = 0; j < d; j++) xm[j] = -xc[j];
        rc = append_row(D, xm, c->label, &c->d0r, err);
        free(xm);
        if (rc) return rc;
        c->d0 = &c->d0r;
    } else if (nb == AUDIT_NEIGHBOURS_REPLACE_ONE) {
        int other = D->n_classes == 2 ? 1 - c->label : class_by_count(D->y, n, D->n_classes, 0);
        if (other == c->label) other = (c->label + 1) % D->n_classes;
        if ((rc = append_row(D, xc, other, &c->d0r, err))) return rc;
        c->d0 = &c->d0r;
    }
    return 0;
}

/* The relation audited: audit.neighbours, or the run's own (privacy.neighbours or its
 * mechanism's default, spec_neighbours.c). */
static audit_neighbours relation(const audit_opts *o, const run_spec *s)
{
    if (o->neighbours != AUDIT_NEIGHBOURS_AUTO) return o->neighbours;
    return s->neighbours == SPEC_NEIGHBOURS_REPLACE_ONE ? AUDIT_NEIGHBOURS_REPLACE_ONE
                                                        : AUDIT_NEIGHBOURS_ADD_REMOVE;
}

/* The replace-one pair: audit.canary.pair, or mirror for objective perturbation, whose
 * sensitivity is a difference of loss gradients (objective_pert.h), relabel otherwise. */
static audit_pair pair_of(const audit_opts *o, const run_spec *s)
{
    if (o->pair != AUDIT_PAIR_AUTO) return o->pair;
    return strcmp(s->algorithm, "objective_perturbation") == 0 ? AUDIT_PAIR_MIRROR
                                                                : AUDIT_PAIR_RELABEL;
}

// ---- trials -------------------------------------------------------------------------

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The statistic of the released model m (audit.h): larger means "canary present". */
static double statistic(const audit_ctx *c, const dp_linear *m)
{
    const double *xc = c->d1.x + (c->d1.n - 1) * m->d;
    if (c->set->opts.statistic == AUDIT_STAT_LOSS) {
        double R[1024];
        if (m->k > (int)(sizeof R / sizeof R[0])) return NAN;
        return -dp_linear_residuals(m, xc, &c->label, 1, R);
    }
    size_t d = m->d, row = d + 1;
    double proj = 0.0;
    if (m->k == 1) {
        for (size_t j = 0; j < d; j++) proj += m->w[j] * c->u[j];
        return c->label == 1 ? proj : -proj; /* logistic: class 1 is y = +1 */
    }
    for (size_t j = 0; j < d; j++) {
        double mean = 0.0;
        for (int r = 0; r < m->k; r++) mean += m->w[(size_t)r * row + j];
        mean /= (double)m->k;
        proj += (m->w[(size_t)c->label * row + j] - mean) * c->u[j];
    }
    return proj;
}

/* One training of the run on the side without (0) or with (1) the canary, trial seed
 * `seed`. A convex driver's recorded delta goes to *delta when delta is not NULL. */
static int trial(const audit_ctx *c, int side, uint64_t seed, double *stat, double *delta,
                 dp_err *err)
{
    const dp_dataset *D = side ? &c->d1 : c->d0;
    run_spec s = *c->s;
    s.seed = seed;
    s.train.seed = seed;
    if (s.train.sampling == DP_SAMPLING_FULL) s.train.batch_size = D->n;
    /* Only the final weights matter: no curve points in between. */
    s.train.eval_every = s.train.epochs;
    dp_linear m = {0};
    dp_train_result res = {0};
    int rc;
    if (c->drv) {
        json_t *metrics = json_object();
        if (!metrics) return dp_err_set(err, DP_ENOMEM, "out of memory");
        rc = c->drv->run(c->run, &s, D, c->te, &m, &res, metrics, err);
        json_t *dj = json_object_get(metrics, "delta");
        if (rc == 0 && delta) *delta = json_is_number(dj) ? json_number_value(dj) : 0.0;
        json_decref(metrics);
    } else {
        rc = dp_linear_init(&m, s.loss, D->d, D->n_classes, s.l2, err);
        if (rc == 0)
            rc = dp_train_linear(&m, &s.train, D->x, D->y, D->n, c->te->x, c->te->y, c->te->n,
                                 &res, err);
    }
    if (rc == 0) *stat = statistic(c, &m);
    dp_train_result_destroy(&res);
    dp_linear_destroy(&m);
    return rc;
}

int audit_set_run_one(audit_set *a, size_t i, audit_result *r, dp_err *err)
{
    double t0 = progress_now();
    const run_spec *s = &a->specs[i];
    const cfg_node *run = a->g.runs[i].config;
    memset(r, 0, sizeof *r);
    snprintf(r->algorithm, sizeof r->algorithm, "%s", s->algorithm);
    r->epsilon = s->epsilon;
    r->delta = s->delta;
    r->trials = a->opts.trials;
    if (check_run(a, run, s, &r->canary_norm, err)) return err->code;

    dp_dataset all = {0}, train = {0}, test = {0};
    audit_ctx c = {0};
    c.set = a;
    c.run = run;
    c.s = s;
    c.drv = s->algo->kind == SPEC_KIND_DRIVER ? driver_find(s->algorithm) : NULL;
    int rc = 0;
    if (s->bound) {
        c.data = &s->bound->train;
        c.te = s->data.evaluate_on_validation ? &s->bound->validation : &s->bound->test;
    } else {
        rc = dp_synthetic_make(&all, &s->synthetic, err);
        if (rc == 0)
            rc = dp_dataset_split(&all, s->n_train, s->synthetic.seed, &train, &test,
                                  err);
        c.data = &train;
        c.te = &test;
    }
    long T = a->opts.trials, half = T / 2;
    double *out = malloc(2 * (size_t)T * sizeof *out), *in = out + T;
    if (rc == 0 && !out) rc = dp_err_set(err, DP_ENOMEM, "out of memory for %ld trials", T);
    r->neighbours = relation(&a->opts, s);
    r->pair = pair_of(&a->opts, s);
    if (rc == 0) rc = make_canary(&c, r->canary_norm, r->neighbours, r->pair, err);
    double next_note = t0 + AUDIT_PROGRESS_SECONDS;
    for (long t = 0; rc == 0 && t < T; t++) {
        if (a->progress && progress_now() >= next_note) {
            fprintf(a->progress, "dperm audit: %zu/%zu %s epsilon %g: %ld of %ld trials (%.0f s)\n",
                    i + 1, a->g.n, s->algorithm, s->epsilon, t, T, progress_now() - t0);
            fflush(a->progress);
            next_note += AUDIT_PROGRESS_SECONDS;
        }
        uint64_t base = splitmix64(a->opts.seed ^ splitmix64((uint64_t)t));
        if ((rc = trial(&c, 0, splitmix64(base ^ 0x5a5a5a5aULL), &out[t],
                        t == 0 ? &r->delta : NULL, err)) == 0)
            rc = trial(&c, 1, splitmix64(base ^ 0xa5a5a5a5ULL), &in[t], NULL, err);
    }
    double alpha = 1.0 - a->opts.confidence, threshold;
    if (rc == 0)
        rc = dp_audit_select_threshold(out, (size_t)half, in, (size_t)half, r->delta, alpha,
                                       &threshold, err);
    if (rc == 0)
        rc = dp_audit_evaluate(out + half, (size_t)(T - half), in + half, (size_t)(T - half),
                               threshold, r->delta, alpha, &r->bound, err);
    if (rc == 0) r->violation = r->bound.eps_lower > r->epsilon;
    free(out);
    free(c.u);
    free(c.d1.x);
    free(c.d1.y);
    free(c.d0r.x);
    free(c.d0r.y);
    dp_dataset_destroy(&test);
    dp_dataset_destroy(&train);
    dp_dataset_destroy(&all);
    r->seconds = progress_now() - t0;
    return rc;
}
