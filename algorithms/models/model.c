/* model.c: building a layered model (shape checks, flat parameters, seeded init,
 * workspaces) and running it: forward, backward, loss gradient, evaluation.
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
 * Memory: per example of max_batch, every buffer twice (activations and errors); plus
 * one im2col block (<= 32 MB) and the stored per-example conv gradients (<= 64 MB).
 * cnn_mnist: 14k doubles per example, about 75 MB in all at batch 256; cnn_cifar: 260k
 * per example, about 630 MB at batch 256 (double is the price of the exact first version).
 */
#include "model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/rng.h"
#include "../base/vec.h"
#include "model_int.h"

/* Doubles of im2col workspace to aim for per conv layer: 4M = 32 MB. A whole MNIST batch
 * of 8x8 patches fits (one GEMM per layer); CIFAR layers go in blocks of examples. */
#define DP_COLS_BUDGET ((size_t)1 << 22)

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

static int alloc_workspaces(dp_model *m, dp_err *err)
{
    size_t MB = m->max_batch, total = 0, itotal = 0, cols = 0, gbuf = 0, store = 0;
    int ovf = 0;
    m->act = calloc(m->n_bufs, sizeof *m->act);
    m->dact = calloc(m->n_bufs, sizeof *m->dact);
    m->buf_size = calloc(m->n_bufs, sizeof *m->buf_size);
    if (!m->act || !m->dact || !m->buf_size) goto nomem;
    m->buf_size[0] = m->in_size;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        m->buf_size[l->out_buf] = l->out_size;
        if (l->spec.kind == DP_LAYER_CONV) {
            size_t pk = mul_ok(dp_conv_patches(&l->conv), dp_conv_k(&l->conv), &ovf);
            size_t blk = pk ? DP_COLS_BUDGET / pk : 1;
            l->conv_block = blk < 1 ? 1 : blk > MB ? MB : blk;
            size_t c = mul_ok(l->conv_block, pk, &ovf);
            size_t g1 = dp_conv_pex_ws(&l->conv, DP_CONV_PEX_DIRECT);
            size_t g2 = dp_conv_pex_ws(&l->conv, DP_CONV_PEX_GRAM);
            if (c > cols) cols = c;
            if (g1 > gbuf) gbuf = g1;
            if (g2 > gbuf) gbuf = g2;
            size_t sz = mul_ok(MB, l->n_w + l->n_b, &ovf);
            if (store + sz <= DP_PEX_STORE_BUDGET) {
                store += sz;
                l->pex_method = DP_CONV_PEX_STORED; /* pex_g pointed below */
            }
        }
        if (l->spec.kind == DP_LAYER_MAXPOOL) itotal += mul_ok(MB, l->out_size, &ovf);
    }
    size_t per_ex = m->input_mode ? m->in_size : 0;
    for (size_t b = 1; b < m->n_bufs; b++) per_ex += 2 * m->buf_size[b];
    total = mul_ok(MB, per_ex + 1, &ovf) + cols + gbuf + store;
    if (ovf) goto nomem; /* each term is below SIZE_MAX / 8, so the sum cannot wrap */

    m->mem = calloc(total, sizeof *m->mem);
    m->imem = itotal ? calloc(itotal, sizeof *m->imem) : NULL;
    if (!m->mem || (itotal && !m->imem)) goto nomem;
    double *p = m->mem;
    if (m->input_mode) m->act[0] = p, p += MB * m->in_size;
    for (size_t b = 1; b < m->n_bufs; b++) {
        m->act[b] = p, p += MB * m->buf_size[b];
        m->dact[b] = p, p += MB * m->buf_size[b];
    }
    m->sq = p, p += MB;
    m->cols = p, p += cols;
    m->gbuf = p, p += gbuf;
    for (size_t i = 0; i < m->n_layers; i++)
        if (m->layers[i].pex_method == DP_CONV_PEX_STORED) {
            m->layers[i].pex_g = p;
            p += MB * (m->layers[i].n_w + m->layers[i].n_b);
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
    for (size_t i = 0; i < n; i++)
        if (m->layers[i].n_w) {
            m->layers[i].w = m->params + m->layers[i].w_off;
            m->layers[i].b = m->params + m->layers[i].b_off;
        }
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
    free(m->imem);
    free(m->mem);
    free(m->buf_size);
    free(m->dact);
    free(m->act);
    free(m->params);
    free(m->layers);
    memset(m, 0, sizeof *m);
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

// ---- forward / backward -------------------------------------------------------------------

void dp_model_forward_batch(dp_model *m, const double *x, size_t B)
{
    assert(B <= m->max_batch);
    if (m->input_mode == 0) {
        m->x = x;
    } else if (m->input_mode == 1) {
        memcpy(m->act[0], x, B * m->in_size * sizeof *x);
        m->x = m->act[0];
    } else {
        /* CHW -> HWC, example by example */
        size_t C = (size_t)m->in_c, HW = (size_t)m->in_h * m->in_w;
        for (size_t n = 0; n < B; n++) {
            const double *src = x + n * m->in_size;
            double *dst = m->act[0] + n * m->in_size;
            for (size_t c = 0; c < C; c++)
                for (size_t p = 0; p < HW; p++) dst[p * C + c] = src[c * HW + p];
        }
        m->x = m->act[0];
    }
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        const double *in = dp_model_in(m, l);
        double *out = m->act[l->out_buf];
        switch (l->spec.kind) {
        case DP_LAYER_DENSE:
            dp_dense_forward(out, in, l->w, l->b, B, l->in_size, l->out_size);
            break;
        case DP_LAYER_CONV:
            dp_conv2d_forward(out, m->cols, in, l->w, l->b, B, l->conv_block, &l->conv);
            break;
        case DP_LAYER_MAXPOOL: dp_maxpool_forward(out, l->argmax, in, B, &l->pool); break;
        case DP_LAYER_ACT: dp_act_forward(out, out, B * l->out_size, &l->spec.act); break;
        case DP_LAYER_FLATTEN: break;
        }
    }
}

void dp_model_backward_batch(dp_model *m, const int *y, size_t B, double *grad, double *sq)
{
    for (size_t b = 1; b < m->n_bufs; b++)
        memset(m->dact[b], 0, B * m->buf_size[b] * sizeof *m->dact[b]);
    const dp_layer *top = &m->layers[m->n_layers - 1];
    dp_softmax_ce_backward(m->dact[top->out_buf], dp_model_logits(m), y, B, m->n_classes);
    for (size_t i = m->n_layers; i-- > 0;) {
        dp_layer *l = &m->layers[i];
        const double *in = dp_model_in(m, l);
        double *dout = m->dact[l->out_buf];
        double *dinp = l->in_buf ? m->dact[l->in_buf] : NULL;
        double *dw = grad && l->n_w ? grad + l->w_off : NULL;
        double *db = grad && l->n_w ? grad + l->b_off : NULL;
        switch (l->spec.kind) {
        case DP_LAYER_DENSE:
            dp_dense_backward(dinp, dw, db, dout, in, l->w, B, l->in_size, l->out_size);
            if (sq) dp_dense_pex_sqnorm(sq, dout, in, B, l->in_size, l->out_size);
            break;
        case DP_LAYER_CONV:
            if (sq && l->pex_method == DP_CONV_PEX_STORED) {
                size_t row = l->n_w + l->n_b;
                dp_conv2d_pex_grads(l->pex_g, m->cols, dout, in, B, l->conv_block, &l->conv);
                for (size_t k = 0; k < B; k++)
                    sq[k] += dp_dot(l->pex_g + k * row, l->pex_g + k * row, row);
            } else if (sq) {
                dp_conv2d_pex_sqnorm(sq, m->cols, m->gbuf, dout, in, B, l->conv_block,
                                     &l->conv, l->pex_method);
            }
            if (dinp || dw)
                dp_conv2d_backward(dinp, dw, db, m->cols, dout, in, l->w, B, l->conv_block,
                                   &l->conv);
            break;
        case DP_LAYER_MAXPOOL:
            if (dinp) dp_maxpool_backward(dinp, dout, l->argmax, B, &l->pool);
            break;
        case DP_LAYER_ACT:
            /* in place: the error of the output becomes the error of the input */
            if (l->in_buf)
                dp_act_backward(dout, dout, m->act[l->out_buf], B * l->out_size,
                                &l->spec.act);
            break;
        case DP_LAYER_FLATTEN: break;
        }
    }
}

// ---- steps and evaluation -----------------------------------------------------------------

double dp_model_loss_grad(dp_model *m, const double *x, const int *y, size_t B,
                          double *grad_sum)
{
    double total = 0.0;
    for (size_t n0 = 0; n0 < B; n0 += m->max_batch) {
        size_t nb = B - n0 < m->max_batch ? B - n0 : m->max_batch;
        dp_model_forward_batch(m, x + n0 * m->in_size, nb);
        total += dp_softmax_ce_forward(NULL, dp_model_logits(m), y + n0, nb, m->n_classes);
        dp_model_backward_batch(m, y + n0, nb, grad_sum, NULL);
    }
    return total;
}

int dp_model_evaluate(dp_model *m, const double *x, const int *y, size_t n,
                      double *mean_loss, double *accuracy)
{
    int K = m->n_classes;
    for (size_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K) return DP_EINVAL;
    double total = 0.0;
    size_t correct = 0;
    for (size_t n0 = 0; n0 < n; n0 += m->max_batch) {
        size_t nb = n - n0 < m->max_batch ? n - n0 : m->max_batch;
        dp_model_forward_batch(m, x + n0 * m->in_size, nb);
        const double *s = dp_model_logits(m);
        total += dp_softmax_ce_forward(NULL, s, y + n0, nb, K);
        for (size_t i = 0; i < nb; i++) {
            const double *row = s + i * (size_t)K;
            int best = 0;
            for (int j = 1; j < K; j++)
                if (row[j] > row[best]) best = j;
            correct += best == y[n0 + i];
        }
    }
    if (mean_loss) *mean_loss = n ? total / (double)n : NAN;
    if (accuracy) *accuracy = n ? (double)correct / (double)n : NAN;
    return DP_OK;
}
