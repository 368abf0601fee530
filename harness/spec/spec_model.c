/* spec_model.c: the `model` block of a run config, and whether the model fits the data.
 *
 *   model.type        logistic | softmax (linear classifiers, dp_train_linear),
 *                     squared | huber (linear regression on a real target, Zhang17 §5,
 *                     dp_train_linear_reg), or a deep
 *                     model by name: mlp | mlp_inputpert | cnn_mnist | cnn_cifar |
 *                     cnn_cifar_small
 *                     (algorithms/models/model.h, trained by dp_train_model)
 *   model.l2          number >= 0, default 0
 *   model.huber_delta huber only: the threshold delta > 0, default 1 (Zhang17 leaves it
 *                     open; with targets scaled to [0, 1] by default, 1 makes the loss
 *                     quadratic for most residuals)
 *   model.hidden      mlp only: list of 1..8 positive layer widths; default DPlis's sizes,
 *                     which exist for 784 and 3072 inputs only
 *   model.activation  deep models: relu (default) | tanh | tempered_sigmoid | sigmoid
 *   model.init        linear models: zeros (default) | uniform_fan_in: W and b drawn from
 *                     uniform(-1/sqrt(d), 1/sqrt(d)), d the number of features (PyTorch
 *                     nn.Linear's default), from the run seed's init stream; deep models
 *                     have their own initialization (model.h) and refuse the key
 *
 * For a real dataset the fit needs the loaded data's shape and classes: spec_bind_data
 * (spec_data.c) calls spec_check_model_fit once they are known.
 * The fit is checked by building the model once, for one example, on the data's shape
 * (dataset.shape, default 1 x 1 x d): a model that does not fit the data is a config error
 * at model.type whose message names the layer, its input and the data's shape.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/models/model.h"
#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

static const char *const MODEL_KEYS[] = {"type",       "l2",          "hidden",
                                         "activation", "huber_delta", "layers",
                                         "init"};
static const char *const INITS[] = {"zeros", "uniform_fan_in"};
static const char *const MODEL_TYPES[] = {"logistic",        "softmax",   "squared",
                                          "huber",           "mlp",       "mlp_inputpert",
                                          "cnn_mnist",       "cnn_cifar", "cnn_cifar_small",
                                          "custom"};
#define N_LINEAR 4 /* MODEL_TYPES[0 .. N_LINEAR) are linear models */
static const char *const ACTIVATIONS[] = {"relu", "tanh", "tempered_sigmoid", "sigmoid"};

static int read_hidden(const cfg_node *model, run_spec *out, dp_err *err)
{
    const cfg_node *h = cfg_get(model, "hidden");
    if (!h) return 0;
    if (strcmp(out->model_name, "mlp") != 0)
        return cfg_error(err, h, 1, "model.hidden applies to model.type mlp only");
    if (h->kind != CFG_SEQ || h->n_items < 1 || h->n_items > SPEC_MAX_HIDDEN)
        return cfg_error(err, h, 0, "model.hidden: expected a list of 1 to %d layer widths",
                         SPEC_MAX_HIDDEN);
    for (size_t i = 0; i < h->n_items; i++) {
        long w;
        int rc = cfg_as_long(h->items[i], "model.hidden", &w, err);
        if (rc) return rc;
        if (w < 1 || w > 1000000)
            return cfg_error(err, h->items[i], 0, "model.hidden widths must be in 1..1000000, got %ld", w);
        out->hidden[i] = (int)w;
    }
    out->n_hidden = h->n_items;
    return 0;
}

int spec_read_model(const cfg_node *model, run_spec *out, dp_err *err)
{
    int idx = 0, act = 0, rc;
    if ((rc = cfg_check_keys(model, "model", MODEL_KEYS, COUNT(MODEL_KEYS), err)) ||
        (rc = cfg_read_enum(model, "model", "type", 1, 0, "model type", MODEL_TYPES,
                            COUNT(MODEL_TYPES), &idx, err)) ||
        (rc = cfg_read_number(model, "model", "l2", 0, 0,
                              (cfg_range){0, INFINITY, 0, 1, ">= 0 and finite"}, &out->l2,
                               err)))
        return rc;
    snprintf(out->model_name, sizeof out->model_name, "%s", MODEL_TYPES[idx]);
    const cfg_node *hd = cfg_get(model, "huber_delta");
    if (hd && idx != 3)
        return cfg_error(err, hd, 1, "model.huber_delta applies to model.type huber only");
    if (idx < N_LINEAR) {
        static const dp_loss_kind losses[N_LINEAR] = {DP_LOSS_LOGISTIC, DP_LOSS_SOFTMAX,
                                                      DP_LOSS_SQUARED, DP_LOSS_HUBER};
        out->deep = 0;
        out->loss = losses[idx];
        out->regression = idx >= 2;
        int init = 0;
        if ((rc = cfg_read_number(model, "model", "huber_delta", 0, 1.0,
                                  (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"},
                                   &out->huber_delta, err)) ||
            (rc = cfg_read_enum(model, "model", "init", 0, 0, "initialization", INITS,
                                COUNT(INITS), &init, err)))
            return rc;
        out->train.init = init ? DP_INIT_UNIFORM_FAN_IN : DP_INIT_AS_GIVEN;
        if (cfg_get(model, "hidden") || cfg_get(model, "activation"))
            return cfg_error(err, cfg_get(model, "hidden") ? cfg_get(model, "hidden")
                                                           : cfg_get(model, "activation"),
                             1, "model.%s applies to deep models, not to %s",
                             cfg_get(model, "hidden") ? "hidden" : "activation", out->model_name);
        return out->real ? 0 : spec_check_model_fit(model, out, err);
    }
    out->deep = 1;
    out->loss = DP_LOSS_SOFTMAX;
    if (cfg_get(model, "init"))
        return cfg_error(err, cfg_get(model, "init"), 1, "model.init applies to linear "
                         "models; %s is initialized when it is built (Glorot or He uniform)",
                         out->model_name);
    const cfg_node *layers = cfg_get(model, "layers");
    if (!strcmp(out->model_name, "custom")) {
        const char *named[2] = {"hidden", "activation"};
        for (int k = 0; k < 2; k++)
            if (cfg_get(model, named[k]))
                return cfg_error(err, cfg_get(model, named[k]), 1,
                                 "model.%s applies to the named models; a custom model's "
                                 "layers say it", named[k]);
        if ((rc = spec_read_layers(model, out, err))) return rc;
        return out->real ? 0 : spec_check_model_fit(model, out, err);
    }
    if (layers)
        return cfg_error(err, layers, 1, "model.layers needs model.type custom (%s is a "
                         "model by name)", out->model_name);
    if ((rc = cfg_read_enum(model, "model", "activation", 0, 0, "activation", ACTIVATIONS,
                            COUNT(ACTIVATIONS), &act, err)) ||
        (rc = read_hidden(model, out, err)))
        return rc;
    snprintf(out->activation, sizeof out->activation, "%s", ACTIVATIONS[act]);
    return out->real ? 0 : spec_check_model_fit(model, out, err);
}

int spec_check_model_fit(const cfg_node *model, run_spec *out, dp_err *err)
{
    const cfg_node *type = cfg_get(model, "type");
    int rc;
    /* a real target has n_classes 0 (datasets/dataset.h); synthetic data are classes */
    int reg_data = out->real && out->synthetic.n_classes == 0;
    if (out->regression && !reg_data)
        return cfg_error(err, type, 0, "model.type %s fits a real target, and %s has classes: "
                         "use it on a regression dataset (wine_quality, bike)",
                         out->model_name, out->dataset);
    if (!out->regression && reg_data)
        return cfg_error(err, type, 0, "%s is a regression dataset (real target): use "
                         "model.type squared or huber", out->dataset);
    if (!out->deep) {
        if (out->loss == DP_LOSS_LOGISTIC && out->synthetic.n_classes != 2 && out->real)
            return cfg_error(err, type, 0,
                             "model.type logistic needs 2 classes; %s has %d here: use "
                             "softmax, or dataset.labels: pm1 with dataset.positive",
                             out->dataset, out->synthetic.n_classes);
        if (out->loss == DP_LOSS_LOGISTIC && out->synthetic.n_classes != 2)
            return cfg_error(err, type, 0,
                             "model.type logistic needs 2 classes; dataset.classes is %d: use "
                             "softmax", out->synthetic.n_classes);
        return 0;
    }

    dp_model m;
    dp_err merr;
    rc = spec_build_model(out, out->synthetic.n_classes, 1, &m, &merr);
    if (rc == DP_ENOMEM) return dp_err_set(err, DP_ENOMEM, "out of memory checking the model");
    if (rc)
        return cfg_error(err, type, 0, "model.type %s does not fit dataset shape %d x %d x %d "
                         "with %d classes: %s", out->model_name, out->in_c, out->in_h,
                         out->in_w, out->synthetic.n_classes, merr.msg);
    dp_model_destroy(&m);
    return 0;
}
