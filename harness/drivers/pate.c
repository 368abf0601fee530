/* pate.c: the pate driver: PATE's aggregation, its accounting and its student
 * (Papernot et al. 2017, 2018; Lecture15 §15.5.1; algorithms/privacy/pate*.h).
 *
 *   algorithm.aggregator   lnmax | gnmax | confident_gnmax | ptr, required
 *   algorithm.queries      int >= 1, required: the first `queries` public examples are
 *                          asked (dataset.split.public; at most that many)
 *   algorithm.lambda       lnmax: the Laplace scale 1/gamma > 0 (Papernot et al. 2017's
 *                          MNIST: 20)
 *   algorithm.sigma        gnmax: sigma; confident_gnmax: sigma2, the answer's; > 0
 *   algorithm.threshold    confident_gnmax: T
 *   algorithm.sigma1       confident_gnmax: the test's sigma, > 0
 *   algorithm.ptr_epsilon, ptr_delta  ptr: the (eps, delta) of each query's test
 *   algorithm.smooth_sigma the student's loss smoothed as DPlis App. D: the mean loss at K
 *                          copies of the weights plus N(0, smooth_sigma^2) each (>= 0,
 *                          default 0: off; DPlis: 0.025-0.04)
 *   algorithm.samples      K, default 10 (DPlis App. D)
 *   algorithm.release      gnmax, confident_gnmax: {order, beta, sigma}: release the
 *                          data-dependent epsilon privately through smooth sensitivity
 *                          (below); absent: it is recorded, marked not private
 * The teachers (the top-level teachers block, spec_teachers.c) are trained before the
 * workers start (sweep/pate_teachers.c); their votes arrive in run_spec.teacher_votes.
 * The student is the run's model trained by the run's train block, non-privately, on the
 * answered public examples with the aggregated labels (DPlis App. D: supervised), and
 * evaluated on the test rows after the public ones.
 *
 * Accounting, per query asked, in RDP over dperm's default orders, converted to (eps,
 * delta) as Papernot et al. do (eps = rdp + ln(1/delta) / (alpha - 1)):
 *   epsilon_data_independent  what the aggregator's settings alone bound: LNMax
 *     min(eps, eps^2 alpha / 2) with eps = 2 / lambda per answer, GNMax alpha / sigma^2 per
 *     answer, Confident-GNMax alpha / (2 sigma1^2) per query asked plus alpha / sigma2^2
 *     per answer (the test's outcome is released, so an unanswered query pays the test
 *     only). This is metrics.epsilon_spent: an upper bound for the mechanism that ran.
 *   epsilon_data_dependent    the 2018 paper's bound from each query's votes (Theorem 6;
 *     the 2017 paper's Theorem 3 for LNMax). It is a function of the private data, so
 *     publishing it discloses: the record says epsilon_data_dependent_private false
 *     (until it is released through smooth sensitivity, pate_smooth.c).
 *   Smooth-sensitivity release (Papernot et al. 2018 §4.3, App. B.4 and C), with the
 *     order lambda, beta and sigma fixed in the config before the data are seen (the
 *     authors' table script picks them by looking at the votes; a release may not): the
 *     data-dependent RDP at lambda of the queries as they ran, R, has local sensitivity
 *     at distance d at most LS(d) = sum over queries of the threshold test's plus, for
 *     an answered query, GNMax's (pate_smooth.c); its beta-smooth sensitivity is
 *     SS = max_d exp(-beta d) LS(d), and R + SS N(0, sigma^2) is released at the RDP
 *     cost GNSS(beta, sigma, lambda) (Theorem 23), which is added:
 *     epsilon_data_dependent_released = R + SS Z + GNSS + ln(1/delta) / (lambda - 1).
 *     The record keeps the exact value beside it (epsilon_data_dependent), and says
 *     epsilon_data_dependent_private true. The release is a disclosure of its own:
 *     epsilon_spent then composes GNSS's RDP with the labels' data-independent one.
 *   PTR (Lecture15): each query is (ptr_epsilon, ptr_delta)-DP; Q queries compose to
 *     (Q ptr_epsilon, Q ptr_delta) (basic composition), recorded as epsilon_spent and
 *     delta_spent.
 * Neighbours: replace-one. The parts are fixed by position in the seeded training
 * order, so replacing one row changes one teacher's data and at most one vote per
 * query; adding a row would shift the parts' bounds, which no analysis here covers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/noise_source.h"
#include "algorithms/base/rng.h"
#include "algorithms/privacy/composition.h"
#include "algorithms/privacy/pate.h"
#include "algorithms/privacy/pate_aggregate.h"
#include "algorithms/privacy/rdp.h"
#include "algorithms/train_model.h"
#include "harness/drivers/driver_common.h"
#include "harness/spec/spec.h"

static const char *const AGGREGATORS[] = {"lnmax", "gnmax", "confident_gnmax", "ptr"};

/* The keys each aggregator takes, besides aggregator and queries. */
static const char *const AGG_KEYS[][4] = {{"lambda"},
                                          {"sigma"},
                                          {"sigma", "threshold", "sigma1"},
                                          {"ptr_epsilon", "ptr_delta"}};
static const char *const ALL_KEYS[] = {"lambda", "sigma", "threshold", "sigma1", "ptr_epsilon",
                                       "ptr_delta"};

typedef struct pate_settings {
    dp_pate_cfg agg;
    long queries;
    double smooth_sigma;                /* the student's smoothing (0: off) */
    long samples;                       /* its K */
    int release;                        /* the smooth-sensitivity release is asked for */
    double release_order, release_beta, release_sigma;
} pate_settings;

static const char *const RELEASE_KEYS[] = {"order", "beta", "sigma"};

/* algorithm.release: {order > 1, beta in (0, 1 / (2 order)), sigma > 0}, all required. */
static int parse_release(const cfg_node *algo, pate_settings *p, dp_err *err)
{
    const cfg_node *r = cfg_get(algo, "release");
    int rc;
    if (!r) return 0;
    if (p->agg.kind != DP_PATE_GNMAX && p->agg.kind != DP_PATE_CONFIDENT_GNMAX)
        return cfg_error(err, r, 1, "algorithm.release: the smooth-sensitivity analysis is "
                         "for gnmax and confident_gnmax (Papernot et al. 2018); remove it");
    if ((rc = cfg_expect_map(r, "algorithm.release", err)) ||
        (rc = cfg_check_keys(r, "algorithm.release", RELEASE_KEYS, 3, err)) ||
        (rc = cfg_read_number(r, "algorithm.release", "order", 1, 0,
                              (cfg_range){1, INFINITY, 1, 1, "> 1 and finite"},
                              &p->release_order, err)) ||
        (rc = cfg_read_number(r, "algorithm.release", "beta", 1, 0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0"}, &p->release_beta, err)) ||
        (rc = cfg_read_number(r, "algorithm.release", "sigma", 1, 0,
                              (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"},
                              &p->release_sigma, err)))
        return rc;
    if (!(p->release_beta < 1 / (2 * p->release_order)))
        return cfg_error(err, cfg_get(r, "beta"), 0, "algorithm.release.beta %g: Theorem 23 "
                         "needs beta < 1 / (2 order) = %g", p->release_beta,
                         1 / (2 * p->release_order));
    if (isnan(dp_pate_logq0_gnmax(p->agg.sigma, p->release_order)) ||
        (p->agg.kind == DP_PATE_CONFIDENT_GNMAX &&
         isnan(dp_pate_logq0_gnmax(M_SQRT2 * p->agg.sigma1, p->release_order))))
        return cfg_error(err, cfg_get(r, "order"), 0, "algorithm.release.order %g: the "
                         "data-dependent bound never applies at this order for these sigmas, "
                         "so it has no smooth sensitivity; take a smaller order",
                         p->release_order);
    p->release = 1;
    return 0;
}

static int takes(int agg, const char *key)
{
    for (int i = 0; i < 4 && AGG_KEYS[agg][i]; i++)
        if (!strcmp(AGG_KEYS[agg][i], key)) return 1;
    return 0;
}

static int parse(const cfg_node *root, pate_settings *p, dp_err *err)
{
    const cfg_node *algo = cfg_get(root, "algorithm");
    const cfg_range positive = {0, INFINITY, 1, 1, "> 0 and finite"};
    int idx = 0, rc;
    memset(p, 0, sizeof *p);
    if ((rc = cfg_read_enum(algo, "algorithm", "aggregator", 1, 0, "aggregator", AGGREGATORS,
                            4, &idx, err)) ||
        (rc = cfg_read_int(algo, "algorithm", "queries", 1, 0, 1, 1L << 30, &p->queries, err)))
        return rc;
    for (size_t i = 0; i < sizeof ALL_KEYS / sizeof ALL_KEYS[0]; i++) {
        const cfg_node *n = cfg_get(algo, ALL_KEYS[i]);
        if (n && !takes(idx, ALL_KEYS[i]))
            return cfg_error(err, n, 1, "algorithm.%s is not used by aggregator %s; remove it",
                             ALL_KEYS[i], AGGREGATORS[idx]);
    }
    for (int i = 0; i < 4 && AGG_KEYS[idx][i]; i++)
        if (!cfg_get(algo, AGG_KEYS[idx][i]))
            return cfg_missing(algo, "algorithm", AGG_KEYS[idx][i], err);
    p->agg.kind = (dp_pate_aggregator)(idx + 1);
    if ((rc = cfg_read_number(algo, "algorithm", "lambda", 0, 0, positive, &p->agg.lambda,
                              err)) ||
        (rc = cfg_read_number(algo, "algorithm", "sigma", 0, 0, positive, &p->agg.sigma, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "sigma1", 0, 0, positive, &p->agg.sigma1,
                              err)) ||
        (rc = cfg_read_number(algo, "algorithm", "threshold", 0, 0,
                              (cfg_range){-INFINITY, INFINITY, 1, 1, "finite"},
                              &p->agg.threshold, err)) ||
        (rc = cfg_read_number(algo, "algorithm", "ptr_epsilon", 0, 0, positive, &p->agg.eps,
                              err)) ||
        (rc = cfg_read_number(algo, "algorithm", "ptr_delta", 0, 0,
                              (cfg_range){0, 1, 1, 1, "in (0, 1)"}, &p->agg.delta, err)))
        return rc;
    if ((rc = dp_pate_cfg_check(&p->agg, err))) return drv_config_error(err, algo, "pate");
    if ((rc = cfg_read_number(algo, "algorithm", "smooth_sigma", 0, 0,
                              (cfg_range){0, INFINITY, 0, 1, ">= 0 and finite"},
                              &p->smooth_sigma, err)) ||
        (rc = cfg_read_int(algo, "algorithm", "samples", 0, 10, 1, DP_DPLIS_MAX_SAMPLES,
                           &p->samples, err)))
        return rc;
    if (cfg_get(algo, "samples") && p->smooth_sigma == 0)
        return cfg_error(err, cfg_get(algo, "samples"), 1, "algorithm.samples is the student's "
                         "smoothing K: it needs algorithm.smooth_sigma > 0");
    return parse_release(algo, p, err);
}

static int check(const cfg_node *root, run_spec *out, dp_err *err)
{
    pate_settings p;
    run_spec teacher;
    int rc = parse(root, &p, err);
    if (rc) return rc;
    if ((rc = spec_check_teacher(root, &teacher, err))) return rc;
    if (!out->real || out->data.n_public == 0)
        return cfg_error(err, cfg_get(root, "dataset"), 1,
                         "pate asks its queries on a public set: give a real dataset with "
                         "dataset.split.public (MNIST as Papernot et al.: 9000)");
    if ((size_t)p.queries > out->data.n_public)
        return cfg_error(err, cfg_get(cfg_get(root, "algorithm"), "queries"), 0,
                         "algorithm.queries %ld exceeds the %zu public examples "
                         "(dataset.split.public)", p.queries, out->data.n_public);
    return 0;
}

// ---- labelling and accounting ------------------------------------------------------------

typedef struct pate_outcome {
    int *labels;          /* queries: the released label, or -1 */
    size_t answered, correct;
    double eps_independent, eps_dependent, delta_spent, order_independent, order_dependent;
    double eps_spent;     /* eps_independent, and the release's own cost when there is one */
    /* the smooth-sensitivity release (when asked) */
    double rdp_at_order, smooth_sensitivity, gnss_rdp, eps_released;
} pate_outcome;

/* The release's running sums: the data-dependent RDP at its order and the local
 * sensitivities at every distance (teachers of them). */
typedef struct release_sums {
    double rdp;
    double *ls, *tmp;
} release_sums;

/* One query's share of the release's sums. */
static void release_query(const pate_settings *p, const double *votes, size_t k,
                          size_t teachers, int answered, release_sums *r)
{
    const dp_pate_cfg *c = &p->agg;
    double lam = p->release_order, rdp;
    if (c->kind == DP_PATE_CONFIDENT_GNMAX) {
        dp_pate_rdp_threshold(dp_pate_log_pr_answered(c->threshold, c->sigma1, votes, k),
                              c->sigma1, &lam, 1, &rdp);
        r->rdp += rdp;
        dp_pate_local_sensitivity_threshold(votes, k, teachers, c->threshold, c->sigma1, lam,
                                            r->tmp);
        for (size_t d = 0; d < teachers; d++) r->ls[d] += r->tmp[d];
    }
    if (!answered) return;
    dp_pate_rdp_gnmax(dp_pate_logq_gnmax(votes, k, c->sigma), c->sigma, &lam, 1, &rdp);
    r->rdp += rdp;
    /* parse_release checked that q0 exists for (sigma, order): this cannot fail */
    dp_pate_local_sensitivity_gnmax(votes, k, teachers, c->sigma, lam, r->tmp);
    for (size_t d = 0; d < teachers; d++) r->ls[d] += r->tmp[d];
}

/* GNMax's RDP of one answer with noise sigma, added into ind / dep (n orders). */
static void account_gnmax(double sigma, const double *votes, size_t k, const double *orders,
                          size_t n, double *ind, double *dep, double *tmp)
{
    dp_pate_rdp_gnmax_independent(sigma, orders, n, tmp);
    for (size_t i = 0; i < n; i++) ind[i] += tmp[i];
    dp_pate_rdp_gnmax(dp_pate_logq_gnmax(votes, k, sigma), sigma, orders, n, tmp);
    for (size_t i = 0; i < n; i++) dep[i] += tmp[i];
}

/* RDP curves of one query added into ind / dep (n orders). */
static void account_query(const pate_settings *p, const double *votes, size_t k, int answered,
                          const double *orders, size_t n, double *ind, double *dep,
                          double *tmp)
{
    const dp_pate_cfg *c = &p->agg;
    if (c->kind == DP_PATE_LNMAX) {
        double eps = 2.0 / c->lambda;
        dp_pate_rdp_pure_eps(0.0, eps, orders, n, tmp);
        for (size_t i = 0; i < n; i++) ind[i] += tmp[i];
        dp_pate_rdp_pure_eps(dp_pate_logq_lnmax(votes, k, c->lambda), eps, orders, n, tmp);
        for (size_t i = 0; i < n; i++) dep[i] += tmp[i];
    } else if (c->kind == DP_PATE_GNMAX) {
        account_gnmax(c->sigma, votes, k, orders, n, ind, dep, tmp);
    } else if (c->kind == DP_PATE_CONFIDENT_GNMAX) {
        /* every query pays the test; an answer is GNMax with sigma2 besides */
        dp_pate_rdp_threshold_independent(c->sigma1, orders, n, tmp);
        for (size_t i = 0; i < n; i++) ind[i] += tmp[i];
        dp_pate_rdp_threshold(dp_pate_log_pr_answered(c->threshold, c->sigma1, votes, k),
                              c->sigma1, orders, n, tmp);
        for (size_t i = 0; i < n; i++) dep[i] += tmp[i];
        if (answered) account_gnmax(c->sigma, votes, k, orders, n, ind, dep, tmp);
    }
}

/* Ask the first p->queries public examples; fill o. */
static int label(const run_spec *s, const pate_settings *p, const dp_dataset *pub,
                 pate_outcome *o, dp_err *err)
{
    const dp_pate_votes *v = s->teacher_votes;
    size_t k = (size_t)v->classes, Q = (size_t)p->queries;
    const double *orders;
    size_t n = dp_rdp_default_orders(&orders);
    double *buf = calloc(3 * n + 2 * k, sizeof *buf);
    o->labels = malloc(Q * sizeof *o->labels);
    if (!buf || !o->labels) {
        free(buf);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    double *ind = buf, *dep = ind + n, *tmp = dep + n, *votes = tmp + n, *work = votes + k;
    release_sums rel = {0, NULL, NULL};
    if (p->release &&
        (!(rel.ls = calloc(2 * v->teachers, sizeof *rel.ls)) || !(rel.tmp = rel.ls + v->teachers))) {
        free(buf);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    dp_noise noise;
    int rc = dp_noise_init(&noise, s->seed, DP_STREAM_NOISE, s->secure_noise, err);
    for (size_t j = 0; rc == 0 && j < Q; j++) {
        dp_pate_votes_count(v, j, votes);
        if ((rc = dp_pate_answer(&p->agg, votes, k, &noise, work, &o->labels[j], err))) break;
        int answered = o->labels[j] >= 0;
        o->answered += answered;
        o->correct += answered && o->labels[j] == pub->y[j];
        account_query(p, votes, k, answered, orders, n, ind, dep, tmp);
        if (p->release) release_query(p, votes, k, v->teachers, answered, &rel);
    }
    o->rdp_at_order = o->smooth_sensitivity = o->gnss_rdp = o->eps_released = NAN;
    if (rc == 0 && p->release) { /* drawn after every answer: the answers do not move */
        double z;
        dp_noise_set_gaussian(&noise, &z, 1, 1.0);
        o->rdp_at_order = rel.rdp;
        o->smooth_sensitivity = dp_pate_discounted_max(p->release_beta, rel.ls, v->teachers);
        o->gnss_rdp = dp_pate_rdp_gnss(p->release_beta, p->release_sigma, p->release_order);
        o->eps_released = rel.rdp + o->smooth_sensitivity * p->release_sigma * z +
                          o->gnss_rdp + log(1 / s->delta) / (p->release_order - 1);
    }
    free(rel.ls);
    if (rc == 0 && (rc = dp_noise_check(&noise, err)) == 0) {
        if (p->agg.kind == DP_PATE_PTR) {
            rc = dp_composition_basic(p->agg.eps, p->agg.delta, (long)Q, &o->eps_independent,
                                      &o->delta_spent, err);
            o->eps_dependent = o->order_independent = o->order_dependent = NAN;
        } else {
            o->delta_spent = s->delta;
            rc = dp_rdp_to_epsilon(orders, ind, n, s->delta, DP_RDP_CONVERT_CLASSIC,
                                   &o->eps_independent, &o->order_independent, err);
            if (rc == 0)
                rc = dp_rdp_to_epsilon(orders, dep, n, s->delta, DP_RDP_CONVERT_CLASSIC,
                                       &o->eps_dependent, &o->order_dependent, err);
        }
        o->eps_spent = o->eps_independent;
        if (rc == 0 && p->release) {
            /* the release is itself a disclosure: epsilon_spent bounds the labels and the
             * release together, GNSS's RDP (defined below order 1 / (2 beta)) added at
             * every order */
            for (size_t i = 0; i < n; i++) {
                double g = dp_pate_rdp_gnss(p->release_beta, p->release_sigma, orders[i]);
                ind[i] += isnan(g) ? INFINITY : g;
            }
            rc = dp_rdp_to_epsilon(orders, ind, n, s->delta, DP_RDP_CONVERT_CLASSIC,
                                   &o->eps_spent, NULL, err);
        }
    }
    free(buf);
    return rc;
}

static void record(const run_spec *s, const pate_settings *p, const pate_outcome *o,
                   json_t *metrics)
{
    const char *agg = AGGREGATORS[p->agg.kind - 1];
    json_object_set_new(metrics, "aggregator", json_string(agg));
    json_object_set_new(metrics, "teachers", json_integer((json_int_t)s->teacher_votes->teachers));
    json_object_set_new(metrics, "teacher_folder", json_string(s->teacher_folder));
    json_object_set_new(metrics, "teacher_votes_sha256", json_string(s->teacher_votes_sha256));
    json_object_set_new(metrics, "queries_asked", json_integer(p->queries));
    drv_num(metrics, "student_smooth_sigma", p->smooth_sigma);
    if (p->smooth_sigma > 0) json_object_set_new(metrics, "student_samples", json_integer(p->samples));
    json_object_set_new(metrics, "queries_answered", json_integer((json_int_t)o->answered));
    drv_num(metrics, "label_accuracy",
            o->answered ? (double)o->correct / (double)o->answered : NAN);
    drv_privacy_metrics(metrics, o->eps_spent, o->delta_spent,
                        p->agg.kind == DP_PATE_PTR
                            ? "basic composition of the queries' (ptr_epsilon, ptr_delta)"
                            : "pate_rdp: the aggregator's data-independent RDP per query "
                              "(Papernot et al. 2017 Thm 3 / 2018 Prop. 8), composed, "
                              "classic conversion");
    drv_num(metrics, "epsilon_data_independent", o->eps_independent);
    drv_num(metrics, "epsilon_data_dependent", o->eps_dependent);
    json_object_set_new(metrics, "epsilon_data_dependent_private",
                        p->agg.kind == DP_PATE_PTR ? json_null() : json_boolean(p->release));
    if (p->release) {
        drv_num(metrics, "epsilon_data_dependent_released", o->eps_released);
        drv_num(metrics, "release_order", p->release_order);
        drv_num(metrics, "release_beta", p->release_beta);
        drv_num(metrics, "release_sigma", p->release_sigma);
        drv_num(metrics, "release_rdp", o->rdp_at_order);
        drv_num(metrics, "smooth_sensitivity", o->smooth_sensitivity);
        drv_num(metrics, "release_gnss_rdp", o->gnss_rdp);
    }
    drv_num(metrics, "rdp_order_independent", o->order_independent);
    drv_num(metrics, "rdp_order_dependent", o->order_dependent);
    drv_privacy_truth(metrics, NAN, o->eps_spent,
                      p->agg.kind == DP_PATE_PTR ? "basic_composition" : "pate_rdp", NULL);
    if (p->agg.kind != DP_PATE_PTR && !p->release)
        drv_warn(metrics, "pate: epsilon_data_dependent is computed from the private votes "
                          "and is not itself private (epsilon_data_dependent_private false); "
                          "epsilon_spent is the data-independent bound");
}

/* The answered public examples with their labels: the student's training set. */
static int student_set(const dp_dataset *pub, const pate_outcome *o, size_t Q, dp_dataset *st,
                       dp_err *err)
{
    int rc = dp_dataset_alloc(st, "pate/student", o->answered, pub->d, pub->n_classes, err);
    if (rc) return rc;
    size_t r = 0;
    for (size_t j = 0; j < Q; j++) {
        if (o->labels[j] < 0) continue;
        memcpy(st->x + r * pub->d, pub->x + j * pub->d, pub->d * sizeof *st->x);
        st->y[r++] = o->labels[j];
    }
    return 0;
}

/* The student's trainer: the run's train block, with DPlis App. D's smoothing if asked
 * (K copies of the weights plus N(0, smooth_sigma^2), their gradients averaged; no clip,
 * no noise: the student is trained non-privately). */
static void student_cfg(const pate_settings *p, dp_train_cfg *tc)
{
    if (p->smooth_sigma <= 0) return;
    tc->dplis_samples = (int)p->samples;
    tc->dplis_sigma_fixed = p->smooth_sigma;
    tc->dplis_radius = 0;
}

/* Label, account, and build the student's set; rc and err as the drivers'. */
static int prepare(const cfg_node *root, const run_spec *s, pate_settings *p, pate_outcome *o,
                   dp_dataset *st, dp_err *err)
{
    memset(o, 0, sizeof *o);
    memset(st, 0, sizeof *st);
    int rc = parse(root, p, err);
    if (rc) return rc;
    if (!s->teacher_votes || !s->bound)
        return dp_err_set(err, DP_ESTATE, "pate: the teachers' votes were not prepared");
    const dp_dataset *pub = &s->bound->public_set;
    if ((rc = label(s, p, pub, o, err))) return rc;
    if (o->answered < s->train.batch_size)
        return dp_err_set(err, DP_EINVAL, "pate: %zu of %ld queries answered, fewer than the "
                          "student's train.batch_size %zu", o->answered, p->queries,
                          s->train.batch_size);
    return student_set(pub, o, (size_t)p->queries, st, err);
}

/* Label, account, train the student with `train` (the linear or the deep trainer), record. */
typedef int (*student_train_fn)(const run_spec *s, const dp_train_cfg *tc, const dp_dataset *st,
                                const dp_dataset *tr, const dp_dataset *te, void *model,
                                dp_train_result *res, dp_err *err);

static int pate_run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
                    const dp_dataset *te, void *model, student_train_fn train,
                    dp_train_result *res, json_t *metrics, dp_err *err)
{
    pate_settings p;
    pate_outcome o;
    dp_dataset st;
    dp_train_cfg tc = s->train;
    int rc = prepare(root, s, &p, &o, &st, err);
    student_cfg(&p, &tc);
    if (rc == 0) rc = train(s, &tc, &st, tr, te, model, res, err);
    if (rc == 0) record(s, &p, &o, metrics);
    dp_dataset_destroy(&st);
    free(o.labels);
    return rc;
}

static int train_linear(const run_spec *s, const dp_train_cfg *tc, const dp_dataset *st,
                        const dp_dataset *tr, const dp_dataset *te, void *model,
                        dp_train_result *res, dp_err *err)
{
    dp_linear *m = model;
    int rc = drv_init_model(s, tr, m, err);
    return rc ? rc : dp_train_linear(m, tc, st->x, st->y, st->n, te->x, te->y, te->n, res, err);
}

static int train_deep(const run_spec *s, const dp_train_cfg *tc, const dp_dataset *st,
                      const dp_dataset *tr, const dp_dataset *te, void *model,
                      dp_train_result *res, dp_err *err)
{
    (void)tr;
    return dp_train_model(model, tc, s->l2, st->x, st->y, st->n, te->x, te->y, te->n, res, err);
}

static int run(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
               const dp_dataset *te, dp_linear *m, dp_train_result *res, json_t *metrics,
               dp_err *err)
{
    return pate_run(root, s, tr, te, m, train_linear, res, metrics, err);
}

static int run_deep(const cfg_node *root, const run_spec *s, const dp_dataset *tr,
                    const dp_dataset *te, dp_model *m, dp_train_result *res, json_t *metrics,
                    dp_err *err)
{
    return pate_run(root, s, tr, te, m, train_deep, res, metrics, err);
}

const driver driver_pate = {"pate", check, run, run_deep};
