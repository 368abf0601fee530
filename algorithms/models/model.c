/* model.c: building a layered model: shape checks, flat parameters, seeded init, and the
 * workspaces every pass uses (model_run.c runs them).
 *
 * Sources: the llm.c layout (one parameter allocation with pointers into it, activations
 * allocated once, backward accumulating into zeroed error buffers); Glorot & Bengio 2010
 * and He et al. 2015 for the initial weights; Keras's fan conventions for convolutions.
 *
 * Buffers: every dense, conv and maxpool layer writes a new activation buffer; the
 * elementwise activations run in place on their input buffer and flatten is free, so a
 * conv followed by ReLU costs one buffer of activations and one of errors. Buffer 0 is
 * the model input: the caller's x itself when nothing writes it, otherwise a copy (or the
 * CHW -> HWC transpose when convolutions come first). The errors of buffer 0 are never
 * computed: nothing upstream needs them, which also saves the first conv's col2im.
 *
 * Lanes (model.h): every per-example buffer is shared (a lane uses its rows); each lane
 * has its own float scratch, shared by its layers in turn (conv blocks, dense products),
 * and its own buffer for the convolutions' weight gradients. A dense layer keeps its
 * weights in float and the chunk's inputs in float (dense.c says why).
 *
 * Memory: per example of max_batch, every buffer twice (activations and errors) and each
 * dense layer's input once more in float; the float conv workspaces (a chunk's patches
 * for each layer that keeps them, <= 32 MB each); the float weights of the dense layers;
 * per lane one float scratch and the conv layers' gradient; the stored per-example conv
 * gradients (<= 64 MB). cnn_mnist: 14k doubles per example, about 100 MB in all at batch
 * 256; cnn_cifar: 260k per example, about 630 MB; mlp_3072_1536_128_10: 4.9M doubles of
 * parameters and 4.9M floats of their copy, 3.4k doubles and 4.7k floats per example.
 */
#include "algorithms/models/model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/model_int.h"

/* Floats of conv patches (and their float output) a layer may keep for a whole chunk,
 * 8M = 32 MB: cnn_mnist's two layers keep theirs at batch 256 (3.2M and 1.8M), so the
 * backward pass and the per-example products reuse the forward's im2col. A layer over
 * budget shares its lane's block workspace with the other such layers, in blocks of
 * about budget / lanes floats. */
#define DP_COLS_BUDGET ((size_t)1 << 23)

/* Floats of a dense layer's weight gradient one GEMM forms before it is added into
 * double, per lane: 1M = 4 MB. The MLP's layers form a lane's share of their rows at
 * once; the CIFAR MLP's first (768 rows of 3072 per lane) goes in three blocks. */
#define DP_DENSE_GRAD_BUDGET ((size_t)1 << 20)

/* A dense layer's weight gradient is split by examples between the lanes when it has
 * fewer than max_batch / DP_DENSE_ROWS_MIN outputs, else by output rows (see
 * dense_lane_floats). */
#define DP_DENSE_ROWS_MIN 16

/* Doubles of stored per-example conv gradients (pexgrad): 8M = 64 MB, given to the conv
 * layers in order while they fit. cnn_mnist takes 2.4M at batch 256; cnn_cifar's first
 * three layers fit, the rest use DIRECT or GRAM norms and a second dW pass. */
#define DP_PEX_STORE_BUDGET ((size_t)1 << 23)

// ---- descriptions for messages -------------------------------------------------------------

static const char *act_name(const dp_act *a)
{
    switch (a->kind) {
    case DP_ACT_RELU: return "relu";
    case DP_ACT_TANH: return "tanh";
    case DP_ACT_TSIGMOID: return "tempered_sigmoid";
    }
    return "?";
}

static void describe(char *buf, size_t n, const dp_layer_spec *s)
{
    switch (s->kind) {
    case DP_LAYER_DENSE: snprintf(buf, n, "dense %d", s->units); return;
    case DP_LAYER_CONV:
        if (s->padding == DP_PAD_SAME)
            snprintf(buf, n, "conv %d %dx%d stride %d same", s->units, s->kernel, s->kernel,
                     s->stride);
        else
            snprintf(buf, n, "conv %d %dx%d stride %d pad %d", s->units, s->kernel,
                     s->kernel, s->stride, s->padding);
        return;
    case DP_LAYER_MAXPOOL:
        snprintf(buf, n, "maxpool %dx%d stride %d", s->kernel, s->kernel, s->stride);
        return;
    case DP_LAYER_ACT: snprintf(buf, n, "%s", act_name(&s->act)); return;
    case DP_LAYER_FLATTEN: snprintf(buf, n, "flatten"); return;
    }
    snprintf(buf, n, "kind %d", (int)s->kind);
}

// ---- build ------------------------------------------------------------------------------------

/* Dense, ReLU (in place), dense: the first dense layer's forward also applies the ReLU
 * and rounds the result for the second (dp_dense_forward_relu), the element passes of a
 * hidden layer of the MLPs in one. */
static void mark_fused_relu(dp_model *m)
{
    for (size_t i = 0; i + 2 < m->n_layers; i++) {
        dp_layer *d = &m->layers[i];
        const dp_layer *a = &m->layers[i + 1], *n = &m->layers[i + 2];
        d->relu_next = d->spec.kind == DP_LAYER_DENSE && a->spec.kind == DP_LAYER_ACT &&
                       a->spec.act.kind == DP_ACT_RELU && a->in_buf == d->out_buf &&
                       a->out_buf == d->out_buf && n->spec.kind == DP_LAYER_DENSE &&
                       n->in_buf == d->out_buf;
    }
}

/* Shapes, buffers and parameter ranges of every layer; no allocation but m->layers. */
static int plan_layers(dp_model *m, const dp_layer_spec *specs, size_t n, dp_err *err)
{
    int c = m->in_c, h = m->in_h, w = m->in_w, flat = 0, buf = 0, nbuf = 1;
    size_t off = 0;
    char what[96];
    for (size_t i = 0; i < n; i++) {
        dp_layer *l = &m->layers[i];
        const dp_layer_spec *s = &specs[i];
        l->spec = *s;
        l->in_c = c, l->in_h = h, l->in_w = w;
        l->in_size = (size_t)c * h * w;
        l->in_buf = buf;
        describe(what, sizeof what, s);
        if ((s->kind == DP_LAYER_CONV || s->kind == DP_LAYER_MAXPOOL) && flat)
            return dp_err_set(err, DP_EINVAL,
                              "model layer %zu (%s) needs an image but its input is a flat "
                              "vector of %zu values",
                              i + 1, what, l->in_size);
        switch (s->kind) {
        case DP_LAYER_DENSE:
            if (s->units < 1)
                return dp_err_set(err, DP_EINVAL, "model layer %zu: dense needs units >= 1",
                                  i + 1);
            c = s->units, h = w = 1, flat = 1;
            l->n_w = (size_t)s->units * l->in_size, l->n_b = (size_t)s->units;
            break;
        case DP_LAYER_CONV:
            if (s->units < 1 || s->kernel < 1 || s->stride < 1 || s->padding < DP_PAD_SAME)
                return dp_err_set(err, DP_EINVAL,
                                  "model layer %zu (%s): conv needs channels, kernel and "
                                  "stride >= 1 and padding >= 0 or same",
                                  i + 1, what);
            if (dp_conv_shape_init(&l->conv, c, h, w, s->units, s->kernel, s->kernel,
                                   s->stride, s->padding) != 0)
                return dp_err_set(err, DP_EINVAL,
                                  "model layer %zu (%s) does not fit its input %dx%dx%d "
                                  "(CxHxW); the data are %dx%dx%d",
                                  i + 1, what, c, h, w, m->in_c, m->in_h, m->in_w);
            c = l->conv.oc, h = l->conv.oh, w = l->conv.ow;
            l->n_w = (size_t)s->units * dp_conv_k(&l->conv), l->n_b = (size_t)s->units;
            l->pex_method = dp_conv_pex_choose(&l->conv);
            break;
        case DP_LAYER_MAXPOOL:
            if (s->kernel < 1 || s->stride < 1)
                return dp_err_set(err, DP_EINVAL,
                                  "model layer %zu (%s): maxpool needs kernel and stride >= 1",
                                  i + 1, what);
            if (dp_pool_shape_init(&l->pool, c, h, w, s->kernel, s->stride) != 0)
                return dp_err_set(err, DP_EINVAL,
                                  "model layer %zu (%s) does not fit its input %dx%dx%d "
                                  "(CxHxW); the data are %dx%dx%d",
                                  i + 1, what, c, h, w, m->in_c, m->in_h, m->in_w);
            h = l->pool.oh, w = l->pool.ow;
            break;
        case DP_LAYER_ACT:
            if (s->act.kind != DP_ACT_RELU && s->act.kind != DP_ACT_TANH &&
                s->act.kind != DP_ACT_TSIGMOID)
                return dp_err_set(err, DP_EINVAL, "model layer %zu: unknown activation %d",
                                  i + 1, (int)s->act.kind);
            if (s->act.kind == DP_ACT_TSIGMOID &&
                !(s->act.s > 0.0 && s->act.t > 0.0 && isfinite(s->act.s) &&
                  isfinite(s->act.t) && isfinite(s->act.o)))
                return dp_err_set(err, DP_EINVAL,
                                  "model layer %zu: tempered sigmoid needs finite s > 0, "
                                  "T > 0 and o (got %g, %g, %g)",
                                  i + 1, s->act.s, s->act.t, s->act.o);
            break;
        case DP_LAYER_FLATTEN:
            c = c * h * w, h = w = 1, flat = 1;
            break;
        default:
            return dp_err_set(err, DP_EINVAL, "model layer %zu: unknown layer kind %d", i + 1,
                              (int)s->kind);
        }
        if (s->kind == DP_LAYER_DENSE || s->kind == DP_LAYER_CONV ||
            s->kind == DP_LAYER_MAXPOOL)
            buf = nbuf++;
        l->out_c = c, l->out_h = h, l->out_w = w;
        l->out_size = (size_t)c * h * w;
        l->out_buf = buf;
        if (l->n_w) {
            l->w_off = off, l->b_off = off + l->n_w;
            off += l->n_w + l->n_b;
        }
    }
    if (off == 0)
        return dp_err_set(err, DP_EINVAL, "model has no dense or conv layer (no parameters)");
    size_t out = m->layers[n - 1].out_size;
    if (out != (size_t)m->n_classes)
        return dp_err_set(err, DP_EINVAL,
                          "model output has %zu values per example but the data have %d "
                          "classes",
                          out, m->n_classes);
    m->n_params = off;
    m->n_bufs = (size_t)nbuf;
    return DP_OK;
}

/* Uniform(-limit, limit) weights, zero biases; limit by the activation that follows. */
static void init_params(dp_model *m, uint64_t seed)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_INIT);
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (!l->n_w) continue;
        double fan_in, fan_out;
        if (l->spec.kind == DP_LAYER_CONV) {
            double kk = (double)l->conv.kh * l->conv.kw;
            fan_in = kk * l->conv.c, fan_out = kk * l->conv.oc;
        } else {
            fan_in = (double)l->in_size, fan_out = (double)l->out_size;
        }
        size_t j = i + 1;
        while (j < m->n_layers && m->layers[j].spec.kind == DP_LAYER_FLATTEN) j++;
        int relu = j < m->n_layers && m->layers[j].spec.kind == DP_LAYER_ACT &&
                   m->layers[j].spec.act.kind == DP_ACT_RELU;
        double limit = relu ? sqrt(6.0 / fan_in) : sqrt(6.0 / (fan_in + fan_out));
        for (size_t k = 0; k < l->n_w; k++) l->w[k] = limit * (2.0 * dp_rng_uniform(&r) - 1.0);
        memset(l->b, 0, l->n_b * sizeof *l->b);
    }
}

/* a * b, or 0 with *ovf set when it would not fit a byte count of doubles. */
static size_t mul_ok(size_t a, size_t b, int *ovf)
{
    if (a && b > (SIZE_MAX / sizeof(double)) / a) {
        *ovf = 1;
        return 0;
    }
    return a * b;
}

/* Floats of one lane's share of conv layer l's float workspace: all of dp_conv_ws_init's
 * layout, less the patches and float output when the layer keeps them for the whole
 * chunk (conv_keep: they live in conv_cols / conv_d instead). */
static size_t conv_lane_floats(const dp_layer *l, size_t block)
{
    size_t P = dp_conv_patches(&l->conv), K = dp_conv_k(&l->conv), OC = (size_t)l->conv.oc;
    size_t all = dp_conv_ws_floats(&l->conv, block);
    return l->conv_keep ? all - block * P * (K + OC) : all;
}

/* Point lane ws of conv layer l into the lane's float scratch f: the layout of
 * dp_conv_ws_init, the kept patches and output left to be pointed per chunk. */
static void conv_lane_point(dp_conv_ws *ws, const dp_layer *l, float *f, size_t block)
{
    size_t P = dp_conv_patches(&l->conv), K = dp_conv_k(&l->conv), OC = (size_t)l->conv.oc;
    dp_conv_ws_init(ws, f, &l->conv, block);
    if (!l->conv_keep) return;
    ws->cols = NULL;        /* conv_cols + (first example of the lane) * P * K */
    ws->dcols = f, f += block * P * K;
    ws->d = NULL;           /* conv_d + (first example of the lane) * P * OC */
    ws->w = f, f += OC * K;
    ws->g = f;
}

/* How the lanes split dense layer l's weight gradient, the floats of lane scratch it
 * needs for lanes of up to lane_max examples (its forward output and its error pass, at
 * most lane_max (O + I); its share of the weight gradient), and its rows per
 * weight-gradient GEMM: a lane's share of the outputs, in blocks whose float gradient
 * fits DP_DENSE_GRAD_BUDGET.
 * The split: by output rows, each lane's GEMM reads every example's inputs, which
 * OpenBLAS packs again in each lane; by examples, each lane packs its own, but its
 * gradient must be zeroed and added into the caller's afterwards, on one thread. Per
 * element, packing moves about a quarter of what zeroing and adding do, so rows win
 * unless O < max_batch / DP_DENSE_ROWS_MIN: linear_784_10's 10 outputs at batch 256
 * (one-thread sgemm of its gradient, per lane: 48 us by rows, 30 us by examples on this
 * project's Xeon), not the MLPs' 512 and 128. */
static size_t dense_lane_floats(dp_layer *l, size_t max_batch, size_t lane_max, size_t L,
                                int *ovf)
{
    size_t I = l->in_size, O = l->out_size;
    l->split_rows = O * DP_DENSE_ROWS_MIN >= max_batch;
    size_t share = l->split_rows ? (O + L - 1) / L : O;
    size_t fit = DP_DENSE_GRAD_BUDGET / I;
    if (fit < 1) fit = 1;
    size_t blocks = (share + fit - 1) / fit;
    l->grad_rows = (share + blocks - 1) / blocks;
    size_t f = mul_ok(lane_max, O + I, ovf);
    if (*ovf) return 0;
    size_t g = dp_dense_weight_grad_ws(l->grad_rows, I);
    return f > g ? f : g;
}

static int alloc_workspaces(dp_model *m, dp_err *err)
{
    size_t MB = m->max_batch, total = 0, itotal = 0, gbuf = 0, store = 0;
    size_t keep = 0, lane_f = 0, dense_f = 0, dense_d = 0;
    int ovf = 0;
    m->lanes = DP_MODEL_LANES;
    size_t L = (size_t)m->lanes, lane_max = (MB + L - 1) / L;
    m->act = calloc(m->n_bufs, sizeof *m->act);
    m->dact = calloc(m->n_bufs, sizeof *m->dact);
    m->buf_size = calloc(m->n_bufs, sizeof *m->buf_size);
    m->err_filled = calloc(m->n_bufs, sizeof *m->err_filled);
    if (!m->act || !m->dact || !m->buf_size || !m->err_filled) goto nomem;
    for (size_t i = 0; i < m->n_layers; i++)
        if ((m->layers[i].spec.kind == DP_LAYER_MAXPOOL ||
             m->layers[i].spec.kind == DP_LAYER_DENSE) && m->layers[i].in_buf)
            m->err_filled[m->layers[i].in_buf] = 1;
    m->buf_size[0] = m->in_size;
    m->n_lgrad = 0;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        m->buf_size[l->out_buf] = l->out_size;
        if (l->spec.kind == DP_LAYER_DENSE) {
            size_t f = dense_lane_floats(l, MB, lane_max, L, &ovf);
            if (f > lane_f) lane_f = f;
            dense_f += mul_ok(MB, l->in_size, &ovf);
            dense_d += MB;
            if (!l->split_rows) {
                l->lg_off = m->n_lgrad;
                m->n_lgrad += l->n_w + l->n_b;
            }
        }
        if (l->spec.kind == DP_LAYER_CONV) {
            size_t P = dp_conv_patches(&l->conv), K = dp_conv_k(&l->conv);
            size_t OC = (size_t)l->conv.oc;
            size_t chunk_f = mul_ok(MB, mul_ok(P, K + OC, &ovf), &ovf);
            size_t block = lane_max;
            l->conv_keep = !ovf && chunk_f <= DP_COLS_BUDGET;
            if (l->conv_keep) {
                keep += chunk_f;
            } else {
                size_t per = mul_ok(L, mul_ok(P, 2 * K + OC, &ovf), &ovf);
                size_t fit = per ? DP_COLS_BUDGET / per : 1;
                block = fit < 1 ? 1 : fit < lane_max ? fit : lane_max;
            }
            for (size_t j = 0; j < L; j++) l->conv_ws[j].block = block;
            size_t f = conv_lane_floats(l, block);
            if (f > lane_f) lane_f = f;
            size_t row = l->n_w + l->n_b;
            if (row > gbuf) gbuf = row;
            l->lg_off = m->n_lgrad;
            m->n_lgrad += row;
            size_t sz = mul_ok(MB, row, &ovf);
            if (store + sz <= DP_PEX_STORE_BUDGET) {
                store += sz;
                l->pex_method = DP_CONV_PEX_STORED; /* pex_g pointed below */
            }
        }
        if (l->spec.kind == DP_LAYER_MAXPOOL) itotal += mul_ok(MB, l->out_size, &ovf);
    }
    size_t per_ex = m->input_mode ? m->in_size : 0;
    for (size_t b = 1; b < m->n_bufs; b++) per_ex += 2 * m->buf_size[b];
    size_t lgrad = mul_ok(L, m->n_lgrad, &ovf), lgbuf = mul_ok(L, gbuf, &ovf);
    total = mul_ok(MB, per_ex + 1, &ovf) + lgbuf + store + lgrad + dense_d;
    size_t ftotal = m->n_params + keep + dense_f + mul_ok(L, lane_f, &ovf);
    if (ovf) goto nomem; /* each term is below SIZE_MAX / 8, so the sums cannot wrap */

    m->mem = calloc(total, sizeof *m->mem);
    m->imem = itotal ? calloc(itotal, sizeof *m->imem) : NULL;
    m->fmem = ftotal ? calloc(ftotal, sizeof *m->fmem) : NULL;
    if (!m->mem || (itotal && !m->imem) || (ftotal && !m->fmem)) goto nomem;
    double *p = m->mem;
    if (m->input_mode) m->act[0] = p, p += MB * m->in_size;
    for (size_t b = 1; b < m->n_bufs; b++) {
        m->act[b] = p, p += MB * m->buf_size[b];
        m->dact[b] = p, p += MB * m->buf_size[b];
    }
    m->sq = p, p += MB;
    m->gbuf = p, p += lgbuf;
    m->n_gbuf = gbuf;
    if (lgrad) m->lgrad = p, p += lgrad;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->pex_method == DP_CONV_PEX_STORED) l->pex_g = p, p += MB * (l->n_w + l->n_b);
        if (l->spec.kind == DP_LAYER_DENSE) l->asq = p, p += MB;
    }
    /* float: the parameters in float (the dense layers' weights are read there), the
     * kept patches and outputs, the dense layers' float inputs, then one scratch per lane
     * shared by the layers (a lane runs its layers one after another) */
    float *f = m->fmem;
    m->pwf = f, f += m->n_params;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind == DP_LAYER_DENSE) {
            l->wf = m->pwf + l->w_off;
            l->af = f, f += MB * l->in_size;
        }
        if (!l->conv_keep) continue;
        size_t P = dp_conv_patches(&l->conv);
        l->conv_cols = f, f += MB * P * dp_conv_k(&l->conv);
        l->conv_d = f, f += MB * P * (size_t)l->conv.oc;
    }
    m->n_lane_f = lane_f;
    for (size_t j = 0; j < L; j++, f += lane_f) {
        m->lane_f[j] = f;
        for (size_t i = 0; i < m->n_layers; i++) {
            dp_layer *l = &m->layers[i];
            if (l->spec.kind != DP_LAYER_CONV) continue;
            conv_lane_point(&l->conv_ws[j], l, f, l->conv_ws[j].block);
        }
    }
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind != DP_LAYER_CONV) continue;
        /* the whole chunk's view: weight gradients and per-example products over the
         * kept patches, or lane 0's blocks; it never computes dinp (no dcols, no w) */
        l->conv_all = l->conv_ws[0];
        if (l->conv_keep) {
            l->conv_all.cols = l->conv_cols, l->conv_all.d = l->conv_d;
            l->conv_all.block = MB;
            l->conv_all.dcols = NULL, l->conv_all.w = NULL;
        }
    }
    int *q = m->imem;
    for (size_t i = 0; i < m->n_layers; i++)
        if (m->layers[i].spec.kind == DP_LAYER_MAXPOOL)
            m->layers[i].argmax = q, q += MB * m->layers[i].out_size;
    return DP_OK;
nomem:
    return dp_err_set(err, DP_ENOMEM,
                      "out of memory for the workspaces of a %zu-layer model at batch %zu",
                      m->n_layers, MB);
}

int dp_model_build(dp_model *m, const dp_layer_spec *layers, size_t n, int in_c, int in_h,
                   int in_w, int n_classes, size_t max_batch, uint64_t seed, dp_err *err)
{
    memset(m, 0, sizeof *m);
    int rc;
    if (!layers || n == 0) return dp_err_set(err, DP_EINVAL, "model has no layers");
    if (in_c < 1 || in_h < 1 || in_w < 1)
        return dp_err_set(err, DP_EINVAL, "model input %dx%dx%d (CxHxW) must be positive",
                          in_c, in_h, in_w);
    if (n_classes < 2)
        return dp_err_set(err, DP_EINVAL, "model needs >= 2 classes, got %d", n_classes);
    if (max_batch < 1) return dp_err_set(err, DP_EINVAL, "model needs max_batch >= 1");
    snprintf(m->name, sizeof m->name, "custom");
    m->in_c = in_c, m->in_h = in_h, m->in_w = in_w, m->n_classes = n_classes;
    m->in_size = (size_t)in_c * in_h * in_w;
    m->max_batch = max_batch;
    m->n_layers = n;
    m->layers = calloc(n, sizeof *m->layers);
    if (!m->layers) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for %zu layers", n);
        goto fail;
    }
    if ((rc = plan_layers(m, layers, n, err)) != DP_OK) goto fail;
    mark_fused_relu(m);

    /* Input handling: transpose when an image layer reads the input before any flatten or
     * dense (only matters for C > 1); copy when an activation would write buffer 0. */
    for (size_t i = 0; i < n; i++) {
        dp_layer_kind k = m->layers[i].spec.kind;
        if (k == DP_LAYER_DENSE || k == DP_LAYER_FLATTEN) break;
        if ((k == DP_LAYER_CONV || k == DP_LAYER_MAXPOOL) && in_c > 1) {
            m->input_mode = 2;
            break;
        }
        if (k == DP_LAYER_CONV || k == DP_LAYER_MAXPOOL) break;
    }
    for (size_t i = 0; i < n && !m->input_mode; i++)
        if (m->layers[i].spec.kind == DP_LAYER_ACT && m->layers[i].in_buf == 0)
            m->input_mode = 1;

    m->params = malloc(m->n_params * sizeof *m->params);
    if (!m->params) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for %zu model parameters",
                        m->n_params);
        goto fail;
    }
    dp_model_set_params(m, m->params);
    init_params(m, seed);
    if ((rc = alloc_workspaces(m, err)) != DP_OK) goto fail;
    return DP_OK;
fail:
    dp_model_destroy(m);
    return rc;
}

void dp_model_destroy(dp_model *m)
{
    if (!m) return;
    dp_model_lanes_stop(m);
    free(m->fmem);
    free(m->imem);
    free(m->mem);
    free(m->err_filled);
    free(m->buf_size);
    free(m->dact);
    free(m->act);
    free(m->params);
    free(m->layers);
    memset(m, 0, sizeof *m);
}

void dp_model_set_params(dp_model *m, double *params)
{
    m->params = params;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (!l->n_w) continue;
        l->w = params + l->w_off;
        l->b = params + l->b_off;
    }
}

float *dp_model_float_params(dp_model *m)
{
    return m->pwf;
}

void dp_model_float_params_fresh(dp_model *m, int fresh)
{
    m->wf_fresh = fresh != 0;
}

int dp_model_fits(const dp_model *m, int in_c, int in_h, int in_w, int n_classes,
                  dp_err *err)
{
    if (m->in_c == in_c && m->in_h == in_h && m->in_w == in_w && m->n_classes == n_classes)
        return DP_OK;
    return dp_err_set(err, DP_EINVAL,
                      "model %s expects input %dx%dx%d (CxHxW) and %d classes; the data "
                      "are %dx%dx%d with %d classes",
                      m->name, m->in_c, m->in_h, m->in_w, m->n_classes, in_c, in_h, in_w,
                      n_classes);
}
