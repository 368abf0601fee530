/* model_zoo.c: the registry of named deep models and their layer lists.
 *
 * Sources, one per model (the exact layers are in model.h and below):
 *   mlp           DPlis §5.1: two hidden layers, 512 and 128 (MNIST, 784-512-128-10) or
 *                 1536 and 128 (CIFAR-10, 3072-1536-128-10), ReLU.
 *   mlp_inputpert InputPert §6: "MLP with one hidden layer whose size is the same as the
 *                 input layer". The paper names no activation: ReLU by default here.
 *   cnn_mnist     TF Privacy's mnist_dpsgd_tutorial, the CNN of DP-LSSGD §4.2 (footnote 2)
 *                 and DPlis §5.1: Conv2D(16, 8, strides 2, "same", relu),
 *                 MaxPool2D(2, 1), Conv2D(32, 4, strides 2, "valid", relu),
 *                 MaxPool2D(2, 1), Flatten, Dense(32, relu), Dense(10). On 28x28x1:
 *                 14x14x16 -> 13x13x16 -> 5x5x32 -> 4x4x32 = 512 -> 32 -> 10,
 *                 26,010 parameters.
 *   cnn_cifar     The CIFAR-10 CNN of the TF Privacy family as the project's issue gives
 *                 it (the net of Papernot et al. 2020, "Tempered sigmoid activations",
 *                 whose tanh variant DPlis Table 11 trains; DPlis §5.1 itself only says
 *                 "inherited from the official tutorial of tensorflow/privacy"):
 *                 (Conv 32 3x3 same, act) x2, MaxPool 2x2 s2, (Conv 64 3x3 same, act)
 *                 x2, MaxPool, (Conv 128 3x3 same, act) x2, MaxPool, Flatten, Dense 128,
 *                 act, Dense 10. On 32x32x3: 32->16->8->4, 2048 -> 128 -> 10, 550,570
 *                 parameters. Padding "same" throughout is our reading where the issue
 *                 is silent for the 64 and 128 layers. DP-LSSGD App. D used the older TF
 *                 models cifar10 tutorial instead (5x5 convs, local response
 *                 normalization, dense 384 and 192); LRN is not provided here, so
 *                 DP-LSSGD's CIFAR experiment runs on this net and the report says so.
 *   cnn_cifar_small The CIFAR-10 net of the DPlis authors' code (wangwenxiao/DPlis,
 *                 model/model_dptrain.py at 21c2697; authors-code.md): cnn_mnist's
 *                 layers on 32x32x3 with explicit padding 2 in the first convolution:
 *                 conv 16 8x8 stride 2 padding 2, act, max-pool 2 stride 1, conv 32
 *                 4x4 stride 2 valid, act, max-pool 2 stride 1, flatten, dense 32,
 *                 act, dense 10. On 32x32x3: 15x15x16 -> 14x14x16 -> 6x6x32 -> 5x5x32
 *                 = 800 -> 32 -> 10; 3,088 + 8,224 + 25,632 + 330 = 37,274
 *                 parameters. ReLU by default; model.activation tanh is the variant
 *                 of DPlis Table 11. The weights start from dperm's He / Glorot
 *                 uniform draws (model.h), not PyTorch's default initialization.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/models/model.h"

static const dp_model_info registry[] = {
    {"mlp", "flatten, dense+act per hidden size, dense to the classes", "DPlis §5.1"},
    {"mlp_inputpert", "one hidden layer as wide as the input", "InputPert §6"},
    {"cnn_mnist", "TF Privacy MNIST tutorial CNN: conv16/8s2, pool, conv32/4s2, pool, 32, 10",
     "DP-LSSGD §4.2, DPlis §5.1"},
    {"cnn_cifar", "Papernot et al. CIFAR-10 CNN: 3 x (2 conv3x3 + pool), 128, 10",
     "Papernot et al. 2020 via DPlis Table 11"},
    {"cnn_cifar_small", "DPlis code's CIFAR-10 CNN: conv16/8s2p2, pool, conv32/4s2, pool, 32, 10",
     "DPlis authors' code (wangwenxiao/DPlis)"},
};

const dp_model_info *dp_model_list(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

static int parse_act(dp_act *a, const char *name, dp_err *err)
{
    memset(a, 0, sizeof *a);
    if (!name || strcmp(name, "relu") == 0) {
        a->kind = DP_ACT_RELU;
    } else if (strcmp(name, "tanh") == 0) {
        a->kind = DP_ACT_TANH;
    } else if (strcmp(name, "tempered_sigmoid") == 0) {
        a->kind = DP_ACT_TSIGMOID, a->s = 2.0, a->t = 2.0, a->o = 1.0;
    } else if (strcmp(name, "sigmoid") == 0) {
        a->kind = DP_ACT_TSIGMOID, a->s = 1.0, a->t = 1.0, a->o = 0.0;
    } else {
        return dp_err_set(err, DP_EINVAL,
                          "model.activation '%s' is unknown (relu, tanh, tempered_sigmoid, "
                          "sigmoid)",
                          name);
    }
    return DP_OK;
}

/* Appenders for the layer lists below; the caller sized the array. */
static void conv(dp_layer_spec *s, size_t *n, int oc, int k, int stride, int pad)
{
    s[(*n)++] = (dp_layer_spec){.kind = DP_LAYER_CONV, .units = oc, .kernel = k,
                                .stride = stride, .padding = pad};
}
static void pool(dp_layer_spec *s, size_t *n, int k, int stride)
{
    s[(*n)++] = (dp_layer_spec){.kind = DP_LAYER_MAXPOOL, .kernel = k, .stride = stride};
}
static void dense(dp_layer_spec *s, size_t *n, int units)
{
    s[(*n)++] = (dp_layer_spec){.kind = DP_LAYER_DENSE, .units = units};
}
static void act(dp_layer_spec *s, size_t *n, const dp_act *a)
{
    s[(*n)++] = (dp_layer_spec){.kind = DP_LAYER_ACT, .act = *a};
}
static void flatten(dp_layer_spec *s, size_t *n)
{
    s[(*n)++] = (dp_layer_spec){.kind = DP_LAYER_FLATTEN};
}

int dp_model_build_named(dp_model *m, const char *name, const int *hidden, size_t n_hidden,
                         const char *activation, int in_c, int in_h, int in_w,
                         int n_classes, size_t max_batch, uint64_t seed, dp_err *err)
{
    memset(m, 0, sizeof *m);
    dp_act a;
    int rc = parse_act(&a, activation, err);
    if (rc != DP_OK) return rc;
    if (!name) return dp_err_set(err, DP_EINVAL, "model name missing");
    int is_mlp = strcmp(name, "mlp") == 0;
    if (!is_mlp && hidden)
        return dp_err_set(err, DP_EINVAL, "model %s takes no hidden sizes", name);
    if (in_c < 1 || in_h < 1 || in_w < 1)
        return dp_err_set(err, DP_EINVAL, "model input %dx%dx%d (CxHxW) must be positive",
                          in_c, in_h, in_w);
    long long in_size = (long long)in_c * in_h * in_w;

    int dflt[2];
    if (is_mlp && !hidden) {
        if (in_size == 784) dflt[0] = 512, dflt[1] = 128;
        else if (in_size == 3072) dflt[0] = 1536, dflt[1] = 128;
        else
            return dp_err_set(err, DP_EINVAL,
                              "model mlp has DPlis default hidden sizes for 784 or 3072 "
                              "inputs only; the data have %lld: give the hidden sizes",
                              in_size);
        hidden = dflt, n_hidden = 2;
    }
    if (!is_mlp) n_hidden = 0;
    if (n_hidden > 1000) return dp_err_set(err, DP_EINVAL, "model mlp: too many hidden layers");

    dp_layer_spec *s = malloc((2 * n_hidden + 24) * sizeof *s);
    if (!s) return dp_err_set(err, DP_ENOMEM, "out of memory for a layer list");
    size_t n = 0;
    if (is_mlp) {
        flatten(s, &n);
        for (size_t i = 0; i < n_hidden; i++) {
            dense(s, &n, hidden[i]);
            act(s, &n, &a);
        }
        dense(s, &n, n_classes);
    } else if (strcmp(name, "mlp_inputpert") == 0) {
        if (in_size > 1 << 20) {
            free(s);
            return dp_err_set(err, DP_EINVAL, "model mlp_inputpert: %lld inputs is too wide",
                              in_size);
        }
        flatten(s, &n);
        dense(s, &n, (int)in_size);
        act(s, &n, &a);
        dense(s, &n, n_classes);
    } else if (strcmp(name, "cnn_mnist") == 0) {
        conv(s, &n, 16, 8, 2, DP_PAD_SAME);
        act(s, &n, &a);
        pool(s, &n, 2, 1);
        conv(s, &n, 32, 4, 2, 0);
        act(s, &n, &a);
        pool(s, &n, 2, 1);
        flatten(s, &n);
        dense(s, &n, 32);
        act(s, &n, &a);
        dense(s, &n, n_classes);
    } else if (strcmp(name, "cnn_cifar_small") == 0) {
        conv(s, &n, 16, 8, 2, 2);
        act(s, &n, &a);
        pool(s, &n, 2, 1);
        conv(s, &n, 32, 4, 2, 0);
        act(s, &n, &a);
        pool(s, &n, 2, 1);
        flatten(s, &n);
        dense(s, &n, 32);
        act(s, &n, &a);
        dense(s, &n, n_classes);
    } else if (strcmp(name, "cnn_cifar") == 0) {
        for (int ch = 32; ch <= 128; ch *= 2) {
            conv(s, &n, ch, 3, 1, DP_PAD_SAME);
            act(s, &n, &a);
            conv(s, &n, ch, 3, 1, DP_PAD_SAME);
            act(s, &n, &a);
            pool(s, &n, 2, 2);
        }
        flatten(s, &n);
        dense(s, &n, 128);
        act(s, &n, &a);
        dense(s, &n, n_classes);
    } else {
        free(s);
        return dp_err_set(err, DP_EINVAL,
                          "model '%s' is unknown (mlp, mlp_inputpert, cnn_mnist, cnn_cifar, "
                          "cnn_cifar_small)",
                          name);
    }
    rc = dp_model_build(m, s, n, in_c, in_h, in_w, n_classes, max_batch, seed, err);
    free(s);
    if (rc == DP_OK) snprintf(m->name, sizeof m->name, "%s", name);
    return rc;
}
