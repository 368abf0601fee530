/* driver_common.c: helpers of the convex private algorithms' drivers (driver_common.h).
 * The field readers are config.h's, as the schema's (spec/), so a driver's messages and
 * positions read exactly like every other config error. */
#include "harness/drivers/driver_common.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "harness/config/config.h"
#include "harness/spec/spec.h"

/* The first-order trainer's train keys (spec.c): accepted so one grid can share a train
 * block between these algorithms and first-order ones, and ignored but eval_every. */
static const char *const TRAIN_KEYS[] = {"epochs", "batch_size", "sampling", "lr",
                                         "eval_every", "partial_batch", "l2_placement"};

int drv_read_train(const cfg_node *root, long *eval_every, dp_err *err)
{
    const cfg_node *train = cfg_get(root, "train");
    int rc;
    *eval_every = 1;
    if (!train) return 0;
    if ((rc = cfg_expect_map(train, "train", err))) return rc;
    const cfg_node *readout = cfg_get(train, "readout");
    const cfg_node *name = cfg_get_path(root, "algorithm.name");
    if (readout)
        return cfg_error(err, readout, 1, "train.readout: %s releases one model (its "
                         "iterations come from its theorem); read-outs apply to the "
                         "first-order trainer's algorithms (dperm list algorithms)",
                         name && name->value ? name->value : "this algorithm");
    if ((rc = cfg_check_keys(train, "train", TRAIN_KEYS, CFG_COUNT(TRAIN_KEYS), err)))
        return rc;
    return cfg_read_int(train, "train", "eval_every", 0, 1, 1, INT_MAX, eval_every, err);
}

int drv_read_noise(const cfg_node *algo, int *on, dp_err *err)
{
    static const char *const NOISE[] = {"on", "off"};
    int idx = 0;
    int rc = cfg_read_enum(algo, "algorithm", "noise", 0, 0, "noise setting", NOISE,
                           CFG_COUNT(NOISE), &idx, err);
    *on = idx == 0;
    return rc;
}

void drv_noise_off_metrics(json_t *metrics)
{
    drv_privacy_metrics(metrics, NAN, NAN, "none (algorithm.noise off: debug run, no privacy)");
    json_object_set_new(metrics, "noise", json_string("off"));
}

void drv_note_ignored_train(const cfg_node *root, json_t *metrics)
{
    const cfg_node *train = cfg_get(root, "train");
    char buf[256];
    for (size_t i = 0; train && i < train->n_items; i++) {
        const char *k = train->items[i]->key;
        if (!strcmp(k, "eval_every")) continue;
        snprintf(buf, sizeof buf, "train.%s is ignored: this algorithm's iterations, batches "
                 "and steps come from its theorem (algorithm.* keys override them)", k);
        drv_warn(metrics, buf);
    }
}

int drv_read_feature_bound(const cfg_node *algo, double *B, dp_err *err)
{
    return cfg_read_number(algo, "algorithm", "feature_bound", 0, 1.0,
                           (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, B, err);
}

int drv_read_clip(const cfg_node *algo, const run_spec *s, double *clip, dp_err *err)
{
    const cfg_node *n = cfg_get(algo, "clip");
    *clip = 0.0;
    if (!s->deep) {
        if (n)
            return cfg_error(err, n, 0, "algorithm.clip applies to deep models: a linear "
                             "model's Lipschitz bound comes from its loss and "
                             "algorithm.feature_bound; remove clip");
        return 0;
    }
    if (!n)
        return cfg_error(err, algo, 1, "%s on model.type %s needs algorithm.clip: a deep "
                         "model has no Lipschitz bound, clipping every per-example gradient "
                         "at clip gives one", s->algorithm, s->model_name);
    return cfg_read_number(algo, "algorithm", "clip", 1, 0.0,
                           (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"}, clip, err);
}

void drv_sets(const dp_dataset *tr, const dp_dataset *te, dp_cvx_set *a, dp_cvx_set *b)
{
    *a = (dp_cvx_set){tr->x, tr->y, tr->t, tr->n};
    *b = (dp_cvx_set){te->x, te->y, te->t, te->n};
}

int drv_shape(const run_spec *s, dp_linear *m)
{
    memset(m, 0, sizeof *m);
    if (s->real && !s->bound) return 0;
    size_t d = s->real ? s->bound->train.d : s->synthetic.d;
    int classes = s->regression ? 0 : s->real ? s->bound->train.n_classes
                                              : s->synthetic.n_classes;
    if (d == 0 || (!s->regression && classes < 2)) return 0;
    m->loss = s->loss;
    m->d = d;
    m->n_classes = classes;
    m->k = s->loss == DP_LOSS_SOFTMAX ? classes : 1;
    m->l2 = s->l2;
    m->huber_delta = s->loss == DP_LOSS_HUBER ? s->huber_delta : 0.0;
    m->n_params = (size_t)m->k * (d + 1);
    return 1;
}

int drv_init_model(const run_spec *s, const dp_dataset *tr, dp_linear *m, dp_err *err)
{
    if (s->regression)
        return dp_linear_init_regression(m, s->loss, tr->d, s->huber_delta, s->l2, err);
    return dp_linear_init(m, s->loss, tr->d, tr->n_classes, s->l2, err);
}

int drv_config_error(dp_err *err, const cfg_node *n, const char *what)
{
    char msg[DP_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return cfg_error(err, n, 0, "%s: %s", what, msg);
}

void drv_num(json_t *metrics, const char *key, double v)
{
    json_object_set_new(metrics, key, isfinite(v) ? json_real(v) : json_null());
}

void drv_privacy_metrics(json_t *metrics, double eps, double delta, const char *accountant)
{
    drv_num(metrics, "epsilon_spent", eps);
    drv_num(metrics, "delta", delta);
    json_object_set_new(metrics, "accountant", json_string(accountant));
}

void drv_privacy_truth(json_t *metrics, double claimed, double tight,
                       const char *tight_accountant, const char *note)
{
    int has_tight = isfinite(tight);
    drv_num(metrics, "epsilon_claimed", claimed);
    drv_num(metrics, "epsilon_tight", has_tight ? tight : NAN);
    json_object_set_new(metrics, "tight_accountant",
                        has_tight && tight_accountant ? json_string(tight_accountant)
                                                      : json_null());
    if (!has_tight)
        json_object_set_new(metrics, "epsilon_tight_note",
                            json_string(note ? note : "no valid accountant for this run"));
    /* Equal numbers from one computation must hold: a relative 1e-9 absorbs the last
     * bits of a calibration replayed in another order. */
    const char *verdict = !has_tight ? "none"
                        : !isfinite(claimed) || tight <= claimed * (1.0 + 1e-9) ? "holds"
                                                                                : "not_confirmed";
    json_object_set_new(metrics, "privacy_verdict", json_string(verdict));
}

void drv_warn(json_t *metrics, const char *text)
{
    json_t *a = json_object_get(metrics, "warnings");
    if (!a) {
        a = json_array();
        json_object_set_new(metrics, "warnings", a);
    }
    json_array_append_new(a, json_string(text));
}
