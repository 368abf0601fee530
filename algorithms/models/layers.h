/* layers.h: the numeric kernels of the deep models (dense, conv2d, max-pool, elementwise
 * activations, softmax cross-entropy), llm.c style.
 *
 * Each layer is a pair of free functions X_forward(out, ..., inp, weights, sizes) and
 * X_backward(dinp, dweight, ..., dout, inp, ...): outputs first, shapes in the comment,
 * no hidden state, no allocation (workspaces come from the caller, sized by the *_ws
 * helpers), no failure. Backward passes ACCUMULATE into dinp/dw/db (+=) except the
 * elementwise activations, which work in place and overwrite (see below).
 * Any gradient output may be NULL to skip it (e.g. dinp of the first layer).
 *
 * Layout: batched tensors are row-major (B, ...). Spatial tensors are (B, H, W, C): HWC
 * per example (TensorFlow's NHWC), so a convolution is one GEMM over all output pixels
 * of a block of examples, and the per-example slice of its output error is a contiguous
 * block of rows. Conv weights are (OC, KH, KW, C), i.e. (OC, K) with K = KH*KW*C.
 *
 * Precision: the interfaces are double. Pooling, activation and loss layers compute in
 * double (gradient tests to 1e-10); the dense layer and the convolution compute their
 * products in float and add them into double (dense.c and conv.c say why and how much:
 * tested to 1e-5 relative against double references).
 */
#ifndef DPERM_LAYERS_H
#define DPERM_LAYERS_H

#include <stddef.h>

// ---- dense ------------------------------------------------------------------------------

/* Longest float sum of a product before it is added into double: the forward's sum over
 * inputs, the error pass's over outputs, the weight gradient's over examples. 1024 keeps
 * the rounding of a sum near 1e-7 * sqrt(1024) relative and the GEMMs long enough to run
 * at full rate (the MLPs' layers need one piece, the CIFAR MLP's first layer three). */
#define DP_DENSE_SUM_LEN ((size_t)1024)

/* The dense layer computes its products in float behind a double interface (dense.c):
 * the caller rounds the weights to float once per forward pass (wf (O,I), e.g. with
 * dp_to_float) and the inputs with dp_dense_input, keeps both, and passes float scratch
 * of the sizes given. */

/* af (B,I) = inp rounded to float; asq (B, may be NULL) = ||inp_i||^2 (in double, of the
 * unrounded inputs, the a_i of the per-example norms). */
void dp_dense_input(float *af, double *asq, const double *inp, size_t B, size_t I);

/* out (B,O) = af (B,I) wf^T + b;  wf (O,I), b (O), I >= 1; of is (B,O) float scratch. */
void dp_dense_forward(double *out, float *of, const float *af, const float *wf,
                      const double *b, size_t B, size_t I, size_t O);

/* dp_dense_forward, the ReLU in place on out and dp_dense_input(af_next, asq_next, out,
 * B, O) for the dense layer that reads out, in one pass over out when the product is one
 * piece (I <= 1024; else the three calls): the same bits. af_next (B,O), asq_next (B, may
 * be NULL). */
void dp_dense_forward_relu(double *out, float *of, const float *af, const float *wf,
                           const double *b, size_t B, size_t I, size_t O, float *af_next,
                           double *asq_next);

/* dinp (B,I) += dout wf (add), or = dout wf (add == 0: overwrites, so the caller need not
 * zero dinp, the one exception to "backward accumulates" besides the activations);
 * dout (B,O). ws: dp_dense_input_grad_ws(B, I, O) floats. */
size_t dp_dense_input_grad_ws(size_t B, size_t I, size_t O);
void dp_dense_backward_input(double *dinp, float *ws, const double *dout, const float *wf,
                             size_t B, size_t I, size_t O, int add);

/* Rows o0 .. o1-1 of the weight gradient of B examples, each example's scaled by c_i
 * (c (B), or NULL for ones; the product c_i dout_i in double, then rounded):
 *   dw[o] (I) += sum_i c_i dout_i[o] af_i,  db[o] += sum_i c_i dout_i[o]  (in double).
 * dout is (B,O), af (B,I), dw (O,I), db (O); no other row is touched, so disjoint row
 * ranges can go to different threads. rows >= 1: output rows per GEMM (bounds ws);
 * ws: dp_dense_weight_grad_ws(rows, I) floats. c_i = 1 gives the bits of c == NULL. */
size_t dp_dense_weight_grad_ws(size_t rows, size_t I);

/* The backward of dp_dense_forward_relu's pair: dp_dense_backward_input overwriting dinp
 * (B,I), the ReLU's derivative in place (dinp = 0 where keep (B,I), the ReLU's output, is
 * not > 0) and, when sqnorm (B) is not NULL, dp_dense_pex_sqnorm(sqnorm, dinp, asq, B, I)
 * for the dense layer before the ReLU (asq its inputs' squared norms), in one pass over
 * dinp when the product is one piece (O <= 1024; else the calls): the same bits. ws as
 * dp_dense_input_grad_ws(B, I, O). */
void dp_dense_backward_input_relu(double *dinp, float *ws, const double *dout,
                                  const float *wf, size_t B, size_t I, size_t O,
                                  const double *keep, double *sqnorm, const double *asq);
void dp_dense_backward_weights(double *dw, double *db, float *ws, const double *dout,
                               const double *c, const float *af, size_t B, size_t I,
                               size_t O, size_t o0, size_t o1, size_t rows);

/* dp_dense_backward_weights with the weight gradient in float: gwf (O,I) rows o0 .. o1-1
 * += sum_i c_i dout_i[o] af_i, each block of rows one sgemm that adds its product into
 * gwf in place (no scratch product, no pass adding it into double), for B <=
 * DP_DENSE_SUM_LEN examples (one piece). db as there (double). Where gwf is zero,
 * (double)gwf afterwards is what dp_dense_backward_weights adds to a zero dw, bit for
 * bit (tested). ws: dp_dense_weight_grad_ws(rows, I) floats suffice. */
void dp_dense_backward_weights_float(float *gwf, double *db, float *ws, const double *dout,
                                     const double *c, const float *af, size_t B, size_t I,
                                     size_t O, size_t o0, size_t o1, size_t rows);

/* sqnorm (B) += ||dout_i||^2 (asq_i + 1): the squared norm of example i's gradient
 * dout_i [inp_i; 1]^T (weights and bias) without forming it; asq from dp_dense_input.
 * ||dout_i||^2 is dp_sumsq's. */
void dp_dense_pex_sqnorm(double *sqnorm, const double *dout, const double *asq, size_t B,
                         size_t O);

/* Reference in double (dgemm), kept beside the float layer and tested against it
 * (house rule 4): out (B,O) = inp (B,I) W^T + b; dinp (B,I) += dout W,
 * dw (O,I) += dout^T inp, db (O) += sum_i dout_i (any of the three may be NULL). */
void dp_dense_forward_ref(double *out, const double *inp, const double *w, const double *b,
                          size_t B, size_t I, size_t O);
void dp_dense_backward_ref(double *dinp, double *dw, double *db, const double *dout,
                           const double *inp, const double *w, size_t B, size_t I, size_t O);

// ---- conv2d -----------------------------------------------------------------------------

/* Geometry of one 2-D convolution: input (H, W, C), output (OH, OW, OC). The padding is
 * given by its top/left amounts; the bottom/right padding is whatever OH/OW imply
 * (zeros read outside the input), which covers TensorFlow's asymmetric "same". */
typedef struct dp_conv_shape {
    int c, h, w;            /* input channels, height, width */
    int oc, kh, kw;         /* output channels, kernel height, width */
    int stride;             /* same in both directions */
    int pad_t, pad_l;       /* zero padding before the first row / column */
    int oh, ow;             /* output height, width */
} dp_conv_shape;

/* Fill s->oh, s->ow, s->pad_t, s->pad_l for "same" (pad < 0: TensorFlow's rule, out =
 * ceil(in / stride), total padding max((out-1) stride + k - in, 0), the smaller half
 * before) or explicit symmetric zero padding pad >= 0 (0 = "valid"). Returns 0, or -1
 * when the kernel does not fit (an output dimension would be < 1). */
int dp_conv_shape_init(dp_conv_shape *s, int c, int h, int w, int oc, int kh, int kw,
                       int stride, int pad);

/* Rows of the im2col workspace per example (OH*OW) and its width (K = KH*KW*C). */
size_t dp_conv_patches(const dp_conv_shape *s);
size_t dp_conv_k(const dp_conv_shape *s);

/* The float workspace of one convolution for blocks of `block` examples (conv.c computes
 * in single precision behind a double interface): the blocks' patches, their errors, the
 * float output or errors, the weights in float and one per-example product. Laid out in
 * caller memory by dp_conv_ws_init; the pointers may also be set by hand (model.c makes
 * the patches of a whole batch one buffer, so a later call can reuse them). Any pointer
 * a call does not use may be NULL: dcols and w are used only when dinp is computed or in
 * forward. */
typedef struct dp_conv_ws {
    float *cols;   /* (block*P, K) patches of the last block that went through */
    float *dcols;  /* (block*P, K) errors of the patches */
    float *d;      /* (block*P, OC) output, or output errors, in float */
    float *w;      /* (OC, K) the weights in float */
    float *g;      /* max(OC*K, 2*P*P): a per-example product, or the batch dW */
    size_t block;  /* examples per block, >= 1 */
} dp_conv_ws;

/* Floats that dp_conv_ws_init lays out for `block` examples. */
size_t dp_conv_ws_floats(const dp_conv_shape *s, size_t block);
/* Point ws into mem (dp_conv_ws_floats(s, block) floats). Cannot fail. */
void dp_conv_ws_init(dp_conv_ws *ws, float *mem, const dp_conv_shape *s, size_t block);

/* out (B,OH,OW,OC) = conv(inp (B,H,W,C), w (OC,K)) + b (OC). Examples go through in
 * blocks of ws->block, each block one im2col and one GEMM; afterwards ws->cols holds the
 * patches of the last block, so of all of inp when B <= ws->block. have_cols: ws->cols
 * already holds inp's patches (B <= ws->block), from an earlier forward of the same input
 * at other weights, as DPlis's perturbed copies run the model's first layer. */
void dp_conv2d_forward(double *out, dp_conv_ws *ws, const double *inp, const double *w,
                       const double *b, size_t B, const dp_conv_shape *s, int have_cols);

/* dinp (B,H,W,C) += conv^T(dout); dw (OC,K) += sum over pixels dout^T patches;
 * db (OC) += sum over pixels of dout. dout is (B,OH,OW,OC). Any output may be NULL.
 * have_cols != 0 promises that ws->cols already holds the patches of inp (B <= ws->block,
 * e.g. left by dp_conv2d_forward on the same inp), which skips the im2col. */
void dp_conv2d_backward(double *dinp, double *dw, double *db, dp_conv_ws *ws,
                        const double *dout, const double *inp, const double *w, size_t B,
                        const dp_conv_shape *s, int have_cols);

/* Per-example squared gradient norms of a convolution (weights and bias):
 *   sqnorm (B) += ||G_i||_F^2 + ||sum_p dout_i[p]||^2,   G_i = dout_i^T U_i (OC,K),
 * where U_i (P,K) are example i's patches. Two exact methods:
 *   DP_CONV_PEX_DIRECT: form G_i with one GEMM per example (2 OC K P flops);
 *   DP_CONV_PEX_GRAM:   ||G_i||^2 = <dout_i dout_i^T, U_i U_i^T> (the "ghost norm",
 *                       2 P^2 (OC + K) flops): cheaper when P (OC + K) < OC K.
 * ws and have_cols as in backward. DP_CONV_PEX_STORED is DIRECT with the G_i kept
 * (dp_conv2d_pex_grads), a model-level choice: see model.h. */
enum { DP_CONV_PEX_DIRECT = 1, DP_CONV_PEX_GRAM = 2, DP_CONV_PEX_STORED = 3 };
/* The cheaper of DIRECT and GRAM by flop count (ties -> DIRECT). */
int dp_conv_pex_choose(const dp_conv_shape *s);
void dp_conv2d_pex_sqnorm(double *sqnorm, dp_conv_ws *ws, const double *dout,
                          const double *inp, size_t B, const dp_conv_shape *s, int method,
                          int have_cols);

/* Per-example gradients: g (B, OC*K + OC), row i = [G_i (OC,K) row-major, bias_i (OC)],
 * the layout of [w; b] in a parameter buffer, so a weighted sum over the rows is one
 * GEMV onto the gradient; sqnorm (B, may be NULL) += each row's squared norm. One GEMM
 * per example, as DIRECT. ws, have_cols as above. */
void dp_conv2d_pex_grads(double *g, double *sqnorm, dp_conv_ws *ws, const double *dout,
                         const double *inp, size_t B, const dp_conv_shape *s, int have_cols);

/* Per-example gradients summed over calls, as DPlis sums them over perturbed copies:
 * gw (B, OC*K) float holds each example's G_i, set on the first call (first != 0) and
 * added to on the next ones, each call one GEMM per example whose output is gw's row
 * (no conversion, no second pass); the bias parts, rows of g laid out as in
 * dp_conv2d_pex_grads, are set or added to in double. After the last call
 * dp_conv2d_pex_grads_finish writes the weight parts of g. Every entry of G_i is then a
 * float sum of (calls x P) products: callers keep that within DP_CONV_SUM_TERMS. ws,
 * have_cols as above. */
#define DP_CONV_SUM_TERMS ((size_t)4096)
void dp_conv2d_pex_grads_sum(float *gw, double *g, dp_conv_ws *ws, const double *dout,
                             const double *inp, size_t B, const dp_conv_shape *s, int have_cols,
                             int first);
void dp_conv2d_pex_grads_finish(double *g, const float *gw, size_t B, const dp_conv_shape *s);

/* Reference: the textbook 7-loop convolution, no workspace. Kept beside the im2col
 * version and tested against it (house rule 4). */
void dp_conv2d_forward_naive(double *out, const double *inp, const double *w,
                             const double *b, size_t B, const dp_conv_shape *s);

// ---- max-pool ---------------------------------------------------------------------------

/* Max-pool with a k x k window, stride `stride`, no padding ("valid"). */
typedef struct dp_pool_shape {
    int c, h, w;   /* input */
    int k, stride;
    int oh, ow;    /* output: (in - k) / stride + 1 */
} dp_pool_shape;

/* Fill oh, ow. Returns 0, or -1 when the window does not fit. */
int dp_pool_shape_init(dp_pool_shape *s, int c, int h, int w, int k, int stride);

/* out (B,OH,OW,C) = window maxima of inp (B,H,W,C); argmax (B,OH,OW,C) receives the
 * index within the example's input (h*W + w)*C + c of each maximum (first on ties). */
void dp_maxpool_forward(double *out, int *argmax, const double *inp, size_t B,
                        const dp_pool_shape *s);

/* dinp (B,H,W,C) += dout routed to the argmax positions. */
void dp_maxpool_backward(double *dinp, const double *dout, const int *argmax, size_t B,
                         const dp_pool_shape *s);

// ---- elementwise activations ------------------------------------------------------------

typedef enum {
    DP_ACT_RELU = 1,
    DP_ACT_TANH = 2,
    DP_ACT_TSIGMOID = 3 /* tempered sigmoid s * sigmoid(T x) - o (Papernot et al. 2020) */
} dp_act_kind;

typedef struct dp_act {
    dp_act_kind kind;
    double s, t, o; /* tempered sigmoid only: scale, inverse temperature, offset */
} dp_act;

/* out (n) = f(inp); out may equal inp (in place). */
void dp_act_forward(double *out, const double *inp, size_t n, const dp_act *a);

/* dinp (n) = dout * f'(x), with f' computed from the forward OUTPUT out = f(x), so the
 * forward may have overwritten its input. dinp may equal dout. Overwrites (the one
 * exception to "backward accumulates": elementwise layers run in place). */
void dp_act_backward(double *dinp, const double *dout, const double *out, size_t n,
                     const dp_act *a);

// ---- softmax cross-entropy ---------------------------------------------------------------

/* loss (B) = log-sum-exp(logits_i) - logits_i[y_i] for logits (B,K); loss may be NULL.
 * Returns the sum over the batch. Stable: the row maximum is subtracted first. */
double dp_softmax_ce_forward(double *loss, const double *logits, const int *y, size_t B,
                             int K);

/* dlogits (B,K) += softmax(logits_i) - onehot(y_i): the gradient of each example's
 * (unaveraged) loss. */
void dp_softmax_ce_backward(double *dlogits, const double *logits, const int *y, size_t B,
                            int K);

#endif
