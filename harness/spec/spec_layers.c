/* spec_layers.c: a deep model given as a layer list in the experiment file
 * (model.type: custom, model.layers), and the one place that builds the model of a run,
 * by name or by list (runner, shard cost estimate and the fit check all call it).
 *
 *   model.layers   list of 1..SPEC_MAX_LAYERS maps, each with `type`:
 *     {type: dense, units: N}                          N in 1..1000000
 *     {type: conv, filters: N, kernel: K, stride: S, padding: same | valid | P}
 *                                                      stride default 1, padding valid
 *     {type: maxpool, kernel: K, stride: S}            stride default K
 *     {type: relu} | {type: tanh} | {type: sigmoid}
 *     {type: tempered_sigmoid, s: 2, t: 2, o: 1}       s * sigmoid(t x) - o (Papernot et
 *                                                      al. 2020; defaults theirs)
 *     {type: flatten}
 * The layers are the model: the last one must give one output per class (a dense layer
 * of n_classes units), which the fit check reports otherwise. Initialization as for the
 * named models (model.h: Glorot or He by the activation that follows).
 */
#include <math.h>
#include <string.h>

#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

static const char *const LAYER_TYPES[] = {"dense", "conv",    "maxpool", "relu",
                                          "tanh",  "sigmoid", "tempered_sigmoid", "flatten"};
/* keys each layer type takes besides `type` */
static const char *const LAYER_KEYS[][4] = {
    {"units", NULL}, {"filters", "kernel", "stride", "padding"}, {"kernel", "stride", NULL},
    {NULL},          {NULL},          {NULL},          {"s", "t", "o", NULL}, {NULL}};
static const char *const ALL_LAYER_KEYS[] = {"type", "units", "filters", "kernel", "stride",
                                             "padding", "s", "t", "o"};

static int read_layer(const cfg_node *n, size_t i, dp_layer_spec *out, dp_err *err)
{
    char where[48];
    snprintf(where, sizeof where, "model.layers[%zu]", i);
    int type = 0, rc;
    long v;
    if ((rc = cfg_expect_map(n, where, err)) ||
        (rc = cfg_check_keys(n, where, ALL_LAYER_KEYS, COUNT(ALL_LAYER_KEYS), err)) ||
        (rc = cfg_read_enum(n, where, "type", 1, 0, "layer type", LAYER_TYPES,
                            COUNT(LAYER_TYPES), &type, err)))
        return rc;
    for (size_t k = 0; k < n->n_items; k++) {
        const char *key = n->items[k]->key;
        int ok = !strcmp(key, "type");
        for (int j = 0; j < 4 && LAYER_KEYS[type][j] && !ok; j++)
            ok = !strcmp(key, LAYER_KEYS[type][j]);
        if (!ok)
            return cfg_error(err, n->items[k], 1, "%s.%s does not apply to a %s layer", where,
                             key, LAYER_TYPES[type]);
    }
    memset(out, 0, sizeof *out);
    switch (type) {
    case 0:
        out->kind = DP_LAYER_DENSE;
        if ((rc = cfg_read_int(n, where, "units", 1, 0, 1, 1000000, &v, err))) return rc;
        out->units = (int)v;
        break;
    case 1: {
        out->kind = DP_LAYER_CONV;
        if ((rc = cfg_read_int(n, where, "filters", 1, 0, 1, 100000, &v, err))) return rc;
        out->units = (int)v;
        if ((rc = cfg_read_int(n, where, "kernel", 1, 0, 1, 1024, &v, err))) return rc;
        out->kernel = (int)v;
        if ((rc = cfg_read_int(n, where, "stride", 0, 1, 1, 1024, &v, err))) return rc;
        out->stride = (int)v;
        const cfg_node *pad = cfg_get(n, "padding");
        out->padding = 0;
        if (pad && pad->kind == CFG_SCALAR && !strcmp(pad->value, "same")) {
            out->padding = DP_PAD_SAME;
        } else if (pad && !(pad->kind == CFG_SCALAR && !strcmp(pad->value, "valid"))) {
            if ((rc = cfg_read_int(n, where, "padding", 0, 0, 0, 1024, &v, err))) {
                dp_err_hint(err, "padding is same, valid or a number of zeros on each side");
                return rc;
            }
            out->padding = (int)v;
        }
        break;
    }
    case 2:
        out->kind = DP_LAYER_MAXPOOL;
        if ((rc = cfg_read_int(n, where, "kernel", 1, 0, 1, 1024, &v, err))) return rc;
        out->kernel = (int)v;
        if ((rc = cfg_read_int(n, where, "stride", 0, out->kernel, 1, 1024, &v, err)))
            return rc;
        out->stride = (int)v;
        break;
    case 3: out->kind = DP_LAYER_ACT, out->act.kind = DP_ACT_RELU; break;
    case 4: out->kind = DP_LAYER_ACT, out->act.kind = DP_ACT_TANH; break;
    case 5:
        out->kind = DP_LAYER_ACT;
        out->act = (dp_act){DP_ACT_TSIGMOID, 1.0, 1.0, 0.0};
        break;
    case 6: {
        out->kind = DP_LAYER_ACT;
        out->act.kind = DP_ACT_TSIGMOID;
        const cfg_range finite = {-INFINITY, INFINITY, 1, 1, "finite"};
        const cfg_range positive = {0, INFINITY, 1, 1, "> 0 and finite"};
        if ((rc = cfg_read_number(n, where, "s", 0, 2.0, positive, &out->act.s, err)) ||
            (rc = cfg_read_number(n, where, "t", 0, 2.0, positive, &out->act.t, err)) ||
            (rc = cfg_read_number(n, where, "o", 0, 1.0, finite, &out->act.o, err)))
            return rc;
        break;
    }
    default: out->kind = DP_LAYER_FLATTEN; break;
    }
    return 0;
}

int spec_read_layers(const cfg_node *model, run_spec *out, dp_err *err)
{
    const cfg_node *ls = cfg_get(model, "layers");
    if (!ls) {
        int rc = cfg_missing(model, "model", "layers", err);
        dp_err_hint(err, "model.type custom is a layer list, e.g. layers: [{type: flatten}, "
                         "{type: dense, units: 64}, {type: relu}, {type: dense, units: 10}]");
        return rc;
    }
    if (ls->kind != CFG_SEQ || ls->n_items < 1 || ls->n_items > SPEC_MAX_LAYERS)
        return cfg_error(err, ls, 0, "model.layers: expected a list of 1 to %d layers",
                         SPEC_MAX_LAYERS);
    for (size_t i = 0; i < ls->n_items; i++) {
        int rc = read_layer(ls->items[i], i, &out->layers[i], err);
        if (rc) return rc;
    }
    out->n_layers = ls->n_items;
    return 0;
}

int spec_build_model(const run_spec *s, int n_classes, size_t max_batch, dp_model *m,
                     dp_err *err)
{
    if (s->n_layers)
        return dp_model_build(m, s->layers, s->n_layers, s->in_c, s->in_h, s->in_w, n_classes,
                              max_batch, s->seed, err);
    return dp_model_build_named(m, s->model_name, s->n_hidden ? s->hidden : NULL, s->n_hidden,
                                s->activation, s->in_c, s->in_h, s->in_w, n_classes, max_batch,
                                s->seed, err);
}
