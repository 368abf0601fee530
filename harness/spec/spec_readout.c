/* spec_readout.c: train.readout, one training run read out at several points.
 *
 * A paper often trains once and prints the model at several moments: DPlis Table 2 gives
 * the test accuracy of one run at the epochs where its accountant reaches eps 1.99, 5.01,
 * 7.01 and 10.00 (MNIST epochs 26, 160, 295, 554; shared/reference/privacy/README.md).
 * Training one run per column would cost the sum of the columns' epochs instead of the
 * last one. So
 *   train.readout: {epochs: [26, 160, 295, 554]}     read at the end of these epochs
 *   train.readout: {epsilon: [1.99, 5.01]}           at the end of the first epoch whose
 *                                                    accountant epsilon reaches each
 * (both lists may be given). Epoch read-outs are checked here against train.epochs;
 * epsilon read-outs need the noise multiplier and the training-set size, so
 * plan_readouts (sweep/plan.c) turns them into epochs after calibration. The record
 * carries one entry per read-out (runner.c), and reports take `readout.*` keys as rows,
 * columns or x values (report_readouts.c).
 *
 * Choices: each list must ascend (a read-out list out of order is more likely a typo than
 * an intent), and read-outs apply to the first-order trainer only: a convex driver's
 * release is one point (driver_common.c says so for those).
 */
#include "harness/spec/spec.h"

#include <math.h>

#include "harness/spec/spec_int.h"

static const char *const READOUT_KEYS[] = {"epochs", "epsilon"};

/* The list at readout.key: ascending numbers, at most SPEC_MAX_READOUTS; integers when
 * integral is set. Absent: *n = 0. */
static int read_list(const cfg_node *readout, const char *key, int integral, double *out,
                     size_t *n, dp_err *err)
{
    const cfg_node *l = cfg_get(readout, key);
    *n = 0;
    if (!l) return 0;
    if (l->kind != CFG_SEQ || l->n_items == 0 || l->n_items > SPEC_MAX_READOUTS)
        return cfg_error(err, l, 0, "train.readout.%s: expected a list of 1 to %d %s", key,
                         SPEC_MAX_READOUTS, integral ? "epochs" : "epsilons");
    for (size_t i = 0; i < l->n_items; i++) {
        double v;
        long e;
        int rc = integral ? cfg_as_long(l->items[i], "train.readout.epochs", &e, err)
                          : cfg_as_double(l->items[i], "train.readout.epsilon", &v, err);
        if (rc) return rc;
        if (integral) v = (double)e;
        if (!(v > 0) || !isfinite(v))
            return cfg_error(err, l->items[i], 0, "train.readout.%s: %s must be %s", key,
                             l->items[i]->value, integral ? ">= 1" : "finite and > 0");
        if (i && v <= out[i - 1])
            return cfg_error(err, l->items[i], 0, "train.readout.%s: %g comes after %g; list "
                             "them in increasing order, each once", key, v, out[i - 1]);
        out[i] = v;
    }
    *n = l->n_items;
    return 0;
}

int spec_read_readout(const cfg_node *train, run_spec *out, dp_err *err)
{
    const cfg_node *r = cfg_get(train, "readout");
    out->n_readouts = out->n_readout_epsilons = 0;
    if (!r) return 0;
    double epochs[SPEC_MAX_READOUTS];
    size_t ne;
    int rc;
    if ((rc = cfg_expect_map(r, "train.readout", err)) ||
        (rc = cfg_check_keys(r, "train.readout", READOUT_KEYS, COUNT(READOUT_KEYS), err)) ||
        (rc = read_list(r, "epochs", 1, epochs, &ne, err)) ||
        (rc = read_list(r, "epsilon", 0, out->readout_epsilons, &out->n_readout_epsilons,
                        err)))
        return rc;
    if (ne + out->n_readout_epsilons == 0)
        return cfg_error(err, r, 1, "train.readout: give epochs: [E, ...] or epsilon: "
                         "[EPS, ...] (or both)");
    for (size_t i = 0; i < ne; i++) {
        if (epochs[i] > out->train.epochs)
            return cfg_error(err, cfg_get(r, "epochs")->items[i], 0,
                             "train.readout.epochs: epoch %g is beyond the training "
                             "(train.epochs %d); raise train.epochs or drop it", epochs[i],
                             out->train.epochs);
        out->readouts[i] = (spec_readout){(int)epochs[i], NAN};
    }
    out->n_readouts = ne;
    if (out->n_readout_epsilons && out->train.algorithm != DP_ALGO_DP_SGD)
        return cfg_error(err, cfg_get(r, "epsilon"), 1,
                         "train.readout.epsilon: %s is not private, so no accountant reaches "
                         "an epsilon; read it out by epochs", out->algorithm);
    return 0;
}
