/* plan.c: planning a run (plan.h): its checks, its steps, its noise, its read-outs.
 *
 * The driver check is here, not in spec/: spec/ knows the schema every run shares, and a
 * driver reads keys of its own (driver.h), so the layer that sees both joins them.
 */
#include "harness/sweep/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/privacy/accountant.h"
#include "harness/drivers/driver.h"

/* An algorithm with its own driver reads its algorithm and train blocks there; a deep
 * model needs a driver that runs one (its theorem or solver assumes a convex loss). */
static int check_driver(const cfg_node *run, run_spec *out, dp_err *err)
{
    const driver *drv = driver_find(out->algorithm);
    if (!drv)
        return cfg_error(err, cfg_get(cfg_get(run, "algorithm"), "name"), 0,
                         "algorithm %s has no driver in this build", out->algorithm);
    if (out->deep && !drv->run_deep)
        return cfg_error(err, cfg_get(cfg_get(run, "model"), "type"), 0,
                         "%s needs a convex loss (its theorem or solver assumes one): use a "
                         "linear model (model.type logistic or softmax), not %s",
                         out->algorithm, out->model_name);
    return drv->check(run, out, err);
}

int plan_check(const cfg_node *run, run_spec *out, dp_err *err)
{
    int rc = spec_from_config(run, out, err);
    if (rc == 0 && out->algo->kind == SPEC_KIND_DRIVER) rc = check_driver(run, out, err);
    return rc;
}

long plan_steps_per_epoch(const run_spec *s)
{
    if (s->train.batch_size == 0) return 1; /* a driver's own iterations */
    size_t n = s->n_train, b = s->train.batch_size;
    /* a shuffled pass that keeps its partial batch takes ceil(n / b) steps */
    size_t per_epoch = s->train.sampling == DP_SAMPLING_SHUFFLE &&
                               s->train.partial_batch == DP_PARTIAL_KEEP
                           ? (n + b - 1) / b
                           : n / b;
    return per_epoch < 1 ? 1 : (long)per_epoch;
}

long plan_steps(const run_spec *s)
{
    return (long)s->train.epochs * plan_steps_per_epoch(s);
}

int plan_is_private(const run_spec *s)
{
    return s->train.algorithm == DP_ALGO_DP_SGD &&
           (!s->algo || s->algo->kind == SPEC_KIND_FIRST_ORDER);
}

int plan_calibrate(run_spec *s, const cfg_node *at, dp_err *err)
{
    if (!plan_is_private(s) || s->has_noise_multiplier || !isfinite(s->epsilon) ||
        s->data_missing[0])
        return 0;
    double q = (double)s->train.batch_size / (double)s->n_train;
    double sigma;
    int rc = dp_accountant_sigma(s->accountant_kind, q, plan_steps(s), s->delta,
                                 s->epsilon, &sigma, err);
    /* The accountant's multiplier is relative to the sensitivity it assumes: a replace-one
     * run analysed by an add/remove accountant has twice its noise (spec_neighbours.c). */
    sigma /= spec_accountant_noise_factor(s, s->accountant_kind);
    if (rc) {
        char msg[DP_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        /* the accountant's message may already name the target */
        if (strncmp(msg, "epsilon", 7) == 0) return cfg_error(err, at, 0, "%s", msg);
        return cfg_error(err, at, 0, "epsilon %g: %s", s->epsilon, msg);
    }
    s->train.noise_multiplier = sigma;
    return 0;
}

double plan_epsilon_after(const run_spec *s, dp_accountant a, long steps, char *accountant,
                          size_t size)
{
    const char *name = dp_accountant_name(a);
    if (!plan_is_private(s)) {
        snprintf(accountant, size, "none (non-private)");
        return INFINITY;
    }
    if (s->train.noise_multiplier <= 0) {
        snprintf(accountant, size, "none (no noise)");
        return INFINITY;
    }
    if (!spec_accountant_fits(a, s->train.sampling) &&
        s->train.clip_mode != DP_CLIP_BATCH_MEAN_PER_TENSOR) {
        snprintf(accountant, size, "none (the %s accountant does not analyse this run's batch sampling)",
                 name);
        return INFINITY;
    }
    snprintf(accountant, size, "%s: %s", name, dp_accountant_description(a));
    double q = (double)s->train.batch_size / (double)s->n_train, eps;
    dp_err err;
    if (steps < 1) return 0.0;
    if (dp_accountant_epsilon(a, q, s->train.noise_multiplier * spec_accountant_noise_factor(s, a),
                              steps, s->delta, &eps, NULL, &err) != 0)
        return INFINITY;
    return eps;
}

static int cmp_readout(const void *a, const void *b)
{
    const spec_readout *x = a, *y = b;
    if (x->epoch != y->epoch) return x->epoch < y->epoch ? -1 : 1;
    /* an epoch read-out (NAN target) before the epsilon ones of its epoch */
    if (isnan(x->epsilon_target) || isnan(y->epsilon_target))
        return isnan(y->epsilon_target) - isnan(x->epsilon_target);
    return (x->epsilon_target > y->epsilon_target) - (x->epsilon_target < y->epsilon_target);
}

int plan_readouts(run_spec *s, const cfg_node *train, dp_err *err)
{
    if (s->n_readout_epsilons == 0) return 0;
    const cfg_node *list = cfg_get_path(train, "readout.epsilon");
    char acc[256];
    long per_epoch = plan_steps_per_epoch(s);
    double at_end = plan_epsilon_after(s, s->accountant_kind, plan_steps(s), acc,
                                  sizeof acc);
    for (size_t k = 0; k < s->n_readout_epsilons; k++) {
        double target = s->readout_epsilons[k];
        const cfg_node *at = list && k < list->n_items ? list->items[k] : list;
        if (!isfinite(at_end))
            return cfg_error(err, at, 0, "train.readout.epsilon: the run's accountant gives "
                             "no epsilon (%s); read it out by epochs", acc);
        if (at_end < target) {
            long most = 0;
            dp_err e2;
            double sigma = s->train.noise_multiplier *
                           spec_accountant_noise_factor(s, s->accountant_kind);
            double q = (double)s->train.batch_size / (double)s->n_train;
            int rc = dp_accountant_steps(s->accountant_kind, q, sigma, s->delta, target,
                                         100000000L, &most, &e2);
            char need[96] = "";
            if (rc == 0 && most < 100000000L)
                snprintf(need, sizeof need, "; train.epochs %ld reaches it",
                         most / per_epoch + 1);
            return cfg_error(err, at, 0, "train.readout.epsilon: %g is never reached: %s "
                             "gives %.4g after train.epochs %d (%ld steps)%s", target,
                             s->accountant, at_end, s->train.epochs,
                             plan_steps(s), need);
        }
        /* the first epoch whose epsilon reaches the target (epsilon grows with steps) */
        long lo = 1, hi = s->train.epochs;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (plan_epsilon_after(s, s->accountant_kind, mid * per_epoch, acc, sizeof acc) >=
                target)
                hi = mid;
            else
                lo = mid + 1;
        }
        s->readouts[s->n_readouts++] = (spec_readout){(int)lo, target};
    }
    s->n_readout_epsilons = 0; /* resolved: planning twice adds nothing */
    qsort(s->readouts, s->n_readouts, sizeof *s->readouts, cmp_readout);
    return 0;
}

/* The same noise multiplier: the same accountant question. */
static int same_calibration(const run_spec *a, const run_spec *b)
{
    return a->train.algorithm == b->train.algorithm && !a->has_noise_multiplier &&
           !b->has_noise_multiplier && a->accountant_kind == b->accountant_kind &&
           a->neighbours == b->neighbours && a->epsilon == b->epsilon && a->delta == b->delta &&
           a->train.batch_size == b->train.batch_size && a->n_train == b->n_train &&
           plan_steps(a) == plan_steps(b);
}

int plan_run(const cfg_node *run, data_cache *data, const run_spec *earlier, size_t n_earlier,
             run_spec *out, dp_err *err)
{
    int rc = plan_check(run, out, err);
    if (rc == 0) rc = data_cache_bind(data, out, run, err);
    if (rc) return rc;
    size_t j = 0;
    while (j < n_earlier && !same_calibration(&earlier[j], out)) j++;
    if (j < n_earlier) {
        out->train.noise_multiplier = earlier[j].train.noise_multiplier;
    } else {
        const cfg_node *at = cfg_get(run, "epsilon");
        if ((rc = plan_calibrate(out, at ? at : run, err))) return rc;
    }
    return plan_readouts(out, cfg_get(run, "train"), err);
}
