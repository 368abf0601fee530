/* model.h: multi-layer models (MLPs, CNNs) built from a layer list or by name, with the
 * batched loss gradient and the per-example clipped gradient sum of DP-SGD.
 *
 * A model is built once (FFTW's plan idea): shapes are checked against the data, the
 * parameters get one flat buffer (params, n_params) initialized from the seed, and every
 * workspace a step needs is allocated for at most max_batch examples. A step then never
 * allocates, cannot fail, and batches larger than max_batch are simply done in chunks
 * (so full-batch DP-GD over 60,000 examples can use a model built for 256: the
 * workspaces grow with max_batch, the results do not depend on it beyond rounding).
 *
 * Parameter layout: for each dense/conv layer in order, its weights then its bias, at
 * layers[l].w_off / b_off. Any gradient buffer the caller passes (n_params doubles) uses
 * the same layout, so clip/noise/update are single loops over the buffer.
 *   dense: W (units, in) row-major, b (units);   out = in W^T + b
 *   conv:  W (OC, KH, KW, C), b (OC), images in HWC order (TensorFlow's NHWC)
 * Inputs x are (B, C*H*W) row-major with CHW per example (the datasets' layout); a model
 * that starts with convolutions or pools transposes them to HWC internally. A model
 * whose first layer is dense/flatten reads x as is (its weights see CHW order).
 *
 * Loss: softmax cross-entropy (log-sum-exp) on the final n_classes outputs.
 * Precision: parameters, activations, errors, gradients and norms are double; dense
 * layers and convolutions compute their products in float, added into double (dense.c,
 * conv.c: 1e-5 relative against double references). The noise and the accountants never
 * see a float; the update may add a float part of the gradient into double and round
 * the new weights to float for the next pass (dp_model_clipped_grad_split,
 * dp_model_float_params), the same bits as the gradient added into double first.
 *
 * Lanes: every chunk of B examples is split into DP_MODEL_LANES fixed parts, example
 * j*B/L up to (j+1)*B/L for lane j, and each lane's forward pass, error pass and
 * per-example norms run on its own thread with single-threaded BLAS (one small GEMM
 * split across BLAS threads scales badly, and the rest of a pass, conversions, im2col,
 * pooling, activations, the loss, does not run on BLAS threads at all). The weight
 * gradients are split too: a convolution's by examples, each lane's into its own buffer,
 * the buffers added in lane order; a dense layer's the same way when it has few outputs,
 * otherwise by output rows over the whole chunk (lane j forms rows j*O/L up to
 * (j+1)*O/L of dW and db, no sum across lanes; model.c says when).
 * Threads: as many as dperm's thread budget (dp_threads), at most one per
 * lane, and one for a chunk too small to repay a thread (model_run.c); the lanes of a
 * thread run in turn. Every result is computed by the same calls in the same order
 * whatever the thread count, so results do not depend on it, bit for bit (tested).
 * A model is not thread-safe: its workspaces are shared by all calls.
 */
#ifndef DPERM_MODEL_H
#define DPERM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"
#include "algorithms/models/layers.h"

/* Lanes of every model. */
#define DP_MODEL_LANES 2

typedef enum {
    DP_LAYER_DENSE = 1,   /* units outputs */
    DP_LAYER_CONV = 2,    /* units output channels, kernel x kernel, stride, padding */
    DP_LAYER_MAXPOOL = 3, /* kernel x kernel window, stride, no padding */
    DP_LAYER_ACT = 4,     /* act, elementwise */
    DP_LAYER_FLATTEN = 5  /* (H,W,C) -> (H*W*C); free: the memory layout is already flat */
} dp_layer_kind;

/* padding value of a conv layer meaning TensorFlow's "same"; >= 0 is explicit symmetric
 * zero padding, 0 being "valid". */
#define DP_PAD_SAME (-1)

typedef struct dp_layer_spec {
    dp_layer_kind kind;
    int units;   /* dense: outputs; conv: output channels */
    int kernel;  /* conv, maxpool: square window side */
    int stride;  /* conv, maxpool: >= 1 */
    int padding; /* conv: DP_PAD_SAME or >= 0 */
    dp_act act;  /* act layers: kind (and s, t, o for the tempered sigmoid) */
} dp_layer_spec;

/* One built layer. Shapes are per example; buffers index the model's workspaces. */
typedef struct dp_layer {
    dp_layer_spec spec;
    int in_c, in_h, in_w, out_c, out_h, out_w; /* flat tensors are (n, 1, 1) */
    size_t in_size, out_size;
    size_t w_off, n_w, b_off, n_b; /* parameter ranges (n_w = n_b = 0 if none) */
    double *w, *b;                 /* into params, NULL if none */
    int in_buf, out_buf;           /* activation buffers (0 = the model input) */
    dp_conv_shape conv;
    dp_conv_ws conv_ws[DP_MODEL_LANES]; /* float workspace of each lane */
    dp_conv_ws conv_all;           /* the whole chunk's view (weight gradients) */
    float *conv_cols, *conv_d;     /* (max_batch*P, K), (max_batch*P, OC) when the whole
                                    * chunk's patches are kept (conv_keep), else NULL */
    int conv_keep;                 /* patches of a forward stay for the backward */
    int pex_method;                /* DP_CONV_PEX_STORED, _DIRECT or _GRAM (see build) */
    double *pex_g;                 /* conv: (max_batch, n_w + n_b) per-example gradients
                                    * when they fit the budget, else NULL */
    size_t lg_off;                 /* conv, dense split by examples: its [w; b] in each
                                    * lane's gradient buffer */
    float *wf;                     /* dense: (units, in) the weights rounded to float by
                                    * each forward pass (its error pass uses them too):
                                    * the model's pwf at w_off */
    float *af;                     /* dense: (max_batch, in) the chunk's inputs in float */
    double *asq;                   /* dense: (max_batch) their squared norms */
    int split_rows;                /* dense: lanes split the weight gradient by output
                                    * rows (else by examples, as a conv's) */
    size_t grad_rows;              /* dense: output rows per weight-gradient GEMM */
    int relu_next;                 /* dense: the next layer is a ReLU in place and the one
                                    * after it a dense layer reading its output: the forward
                                    * does the three in one pass (dp_dense_forward_relu) */
    dp_pool_shape pool;
    int *argmax;                   /* maxpool: (max_batch, out_size) */
} dp_layer;

typedef struct dp_model {
    char name[32];                 /* registry name, or "custom" */
    int in_c, in_h, in_w, n_classes;
    size_t in_size;
    size_t n_layers;
    dp_layer *layers;
    size_t n_params;
    double *params;                /* the flat parameter buffer, owned */
    float *pwf;                    /* (n_params) the parameters rounded to float, laid out
                                    * as params; the dense layers read their float weights
                                    * here (dp_model_float_params) */
    int wf_fresh;                  /* pwf holds params rounded, as the caller promised
                                    * (dp_model_float_params_fresh) */
    size_t max_batch;
    int lanes;                     /* DP_MODEL_LANES */

    /* Workspaces: internal to model.c / pexgrad.c. */
    int input_mode;                /* 0: read x in place, 1: copy, 2: CHW -> HWC */
    const double *x;               /* the current chunk's input (buffer 0) */
    size_t n_bufs;
    double **act, **dact;          /* (n_bufs): activation and error buffers */
    size_t *buf_size;              /* per-example size of each buffer */
    unsigned char *err_filled;     /* (n_bufs): the layer reading this buffer writes its
                                    * errors whole (a max-pool zeroes them example by
                                    * example, a dense layer overwrites them), so the
                                    * error pass need not zero them first */
    double *gbuf, *sq;             /* (lanes, n_gbuf) a conv [w; b] row per lane,
                                    * (max_batch) norms */
    size_t n_gbuf;                 /* the longest conv [w; b] */
    size_t n_lgrad;                /* doubles of a lane's gradient: the [w; b] of every
                                    * layer whose gradient the lanes split by examples */
    double *lgrad;                 /* (lanes, n_lgrad) those gradients of each lane */
    float *lane_f[DP_MODEL_LANES]; /* each lane's float scratch (conv blocks, dense
                                    * products), shared by its layers in turn */
    size_t n_lane_f;               /* floats of each */
    struct dp_lane_pool *pool;     /* the lanes' helper threads (model_run.c), or NULL */
    double *mem;                   /* one allocation behind all double workspaces */
    float *fmem;                   /* behind the float workspaces */
    int *imem;                     /* behind the maxpool argmax buffers */
} dp_model;

/* Build a model from a layer list for data of shape (in_c, in_h, in_w) and n_classes.
 * Weights are drawn from stream DP_STREAM_INIT of seed: Glorot uniform
 * (limit sqrt(6/(fan_in+fan_out))) for a layer followed by tanh, a tempered sigmoid or
 * nothing, He uniform (limit sqrt(6/fan_in), the variance 2/fan_in of He et al. 2015) for
 * a layer followed by ReLU; conv fans are C*k*k and OC*k*k (Keras); biases are 0.
 * Fails with DP_EINVAL when a layer is malformed or does not fit its input (message
 * names the layer, its input shape and the data shape) or when the model's output is not
 * n_classes values; DP_ENOMEM when out of memory. On failure m is zeroed and owns
 * nothing; on success release it with dp_model_destroy. */
int dp_model_build(dp_model *m, const dp_layer_spec *layers, size_t n, int in_c, int in_h,
                   int in_w, int n_classes, size_t max_batch, uint64_t seed, dp_err *err);

/* Build a registered model (see dp_model_list):
 *   "mlp"            flatten, (dense h, act) for each hidden size, dense n_classes.
 *                    hidden NULL means DPlis §5.1's sizes: 512,128 for 784 inputs,
 *                    1536,128 for 3072 inputs (other sizes: DP_EINVAL); a non-NULL
 *                    hidden with n_hidden 0 means no hidden layer.
 *   "mlp_inputpert"  one hidden layer as wide as the input (InputPert §6).
 *   "cnn_mnist"      TF Privacy mnist_dpsgd_tutorial (DP-LSSGD §4.2, DPlis §5.1):
 *                    conv 16 8x8 s2 same, act, maxpool 2 s1, conv 32 4x4 s2 valid, act,
 *                    maxpool 2 s1, flatten, dense 32, act, dense n_classes.
 *   "cnn_cifar"      the TF Privacy family CIFAR-10 net (Papernot et al. 2020, trained
 *                    by DPlis Table 11): (conv 32 3x3 same, act) x2, maxpool 2 s2,
 *                    (conv 64 3x3 same, act) x2, maxpool 2 s2, (conv 128 3x3 same,
 *                    act) x2, maxpool 2 s2, flatten, dense 128, act, dense n_classes.
 *   "cnn_cifar_small" the DPlis authors' CIFAR-10 net (their code, not their text):
 *                    conv 16 8x8 s2 padding 2, act, maxpool 2 s1, conv 32 4x4 s2
 *                    valid, act, maxpool 2 s1, flatten, dense 32, act, dense n_classes
 *                    (37,274 parameters on 3x32x32 with 10 classes).
 * activation: "relu" (NULL: the default), "tanh", "tempered_sigmoid" (s=2, T=2, o=1,
 * Papernot's default; equal to tanh), "sigmoid". hidden must be NULL for the others.
 * Fails like dp_model_build, and with DP_EINVAL for an unknown name or activation. */
int dp_model_build_named(dp_model *m, const char *name, const int *hidden, size_t n_hidden,
                         const char *activation, int in_c, int in_h, int in_w,
                         int n_classes, size_t max_batch, uint64_t seed, dp_err *err);

/* Free everything the model owns (its lanes' helper threads are stopped) and zero it. NULL
 * and zeroed models are fine. */
void dp_model_destroy(dp_model *m);

/* 0 if the model was built for data of this shape and class count; otherwise DP_EINVAL
 * with a message naming both shapes. */
int dp_model_fits(const dp_model *m, int in_c, int in_h, int in_w, int n_classes,
                  dp_err *err);

/* The float copy of the parameters that the dense layers compute with (n_params floats,
 * laid out as params). Each pass that runs the model rounds the dense layers' weights into
 * it first, unless the caller has written them there itself and said so: a caller that
 * updates the parameters can write pwf[j] = (float)params[j] in the same pass, while each
 * weight is in cache, and then call dp_model_float_params_fresh(m, 1), which spares the
 * next passes (at these parameters, not DPlis's perturbed copies) a pass over all of
 * them. It must call it with 0 before it writes the parameters any other way; a model
 * starts with 0, no pass sets it, and DPlis's perturbed copies clear it (they are rounded
 * into pwf). */
float *dp_model_float_params(dp_model *m);
void dp_model_float_params_fresh(dp_model *m, int fresh);

/* Make params (n_params doubles, the layout of m->params) the model's parameters: m->params
 * and every layer's weights and bias point into it. A trainer that keeps two weight
 * buffers and writes each step's new weights into the other one (train_step.c) moves the
 * model between them; it must move it back to the buffer the model was built with before
 * that other buffer is freed, and before dp_model_destroy (which frees m->params). */
void dp_model_set_params(dp_model *m, double *params);

/* grad_sum (n_params) += sum over the batch of the per-example loss gradients;
 * returns the SUM of the per-example losses. x is (B, in_size), y (B) class indices in
 * [0, n_classes). Any B (chunks of max_batch). Cannot fail. */
double dp_model_loss_grad(dp_model *m, const double *x, const int *y, size_t B,
                          double *grad_sum);

/* The DP-SGD gradient (Abadi et al. 2016, Alg. 1; DP-LSSGD §4):
 *   clipped_sum (n_params) += sum_i g_i / max(1, ||g_i|| / clip),
 * g_i the gradient of example i's loss; sqnorms (B, may be NULL) receives ||g_i||^2.
 * Dense layers never form g_i (||g_i||^2 from ||delta_i||^2 (||a_i||^2 + 1)); their part
 * of the sum is the weight-gradient GEMM on errors rescaled by the clip factors. Conv layers
 * use their pex_method: STORED keeps each example's conv gradient (one GEMM each, the
 * flops of the batch dW) and sums them with one GEMV; DIRECT/GRAM compute only norms and
 * then redo the batch dW GEMM on rescaled errors. dp_model_build picks STORED while the
 * stored gradients fit 64 MB, else the cheaper of DIRECT and GRAM by flops.
 * clip > 0, INFINITY allowed (then this equals dp_model_loss_grad). Returns the sum of the
 * per-example losses. Cannot fail. */
double dp_model_clipped_grad(dp_model *m, const double *x, const int *y, size_t B,
                             double clip, double *clipped_sum, double *sqnorms);

/* dp_model_loss_grad and dp_model_clipped_grad with the gradient split between a double
 * and a float buffer: gf (n_params floats, laid out as the gradient, or NULL) receives,
 * added in float, the weights' part of every dense layer whose lanes split its gradient
 * by output rows (model.c: the MLPs' hidden layers), and the double buffer the rest; the
 * gradient is then grad[j] + gf[j]. That spares the pass adding each float product into
 * double, and the zeroing of its scratch, for a caller that reads both in one pass of
 * its own and sets gf back to zero there (train_step.c: the update). A call that takes
 * more than one chunk (B > max_batch) or B > DP_DENSE_SUM_LEN puts everything in grad.
 * Where grad and gf are zero, grad[j] + (double)gf[j] afterwards is the unsplit call's
 * grad[j], bit for bit (tested). */
double dp_model_loss_grad_split(dp_model *m, const double *x, const int *y, size_t B,
                                double *grad_sum, float *gf);
double dp_model_clipped_grad_split(dp_model *m, const double *x, const int *y, size_t B,
                                   double clip, double *clipped_sum, float *gf,
                                   double *sqnorms);

/* The parameter ranges that the two calls above, given gf for a batch of B, leave
 * untouched in grad (their gradient goes to gf alone): the weights of the dense layers
 * split by rows, when the call takes one chunk. Writes up to cap of them, ascending and
 * disjoint, as pairs [ranges[2k], ranges[2k+1]), and returns how many it wrote. Fewer
 * than all is never wrong for a caller that uses them to skip zeros. */
size_t dp_model_gf_ranges(const dp_model *m, size_t B, size_t *ranges, size_t cap);

/* DPlis (Wang et al., PETS 2021, eq. 6 and Alg. 2): DP-SGD on the randomized-smoothing loss.
 * A dp_model_smooth is the workspace of dp_model_smoothed_clipped_grad for one model and
 * at most max_k perturbed copies, made once (plan/execute): the perturbed parameters and,
 * per example of a chunk, what the copies' errors and inputs need (pexgrad_smooth.c).
 * Its fields are internal, but for sum. */
typedef struct dp_model_smooth_layer {
    float *af;        /* the copies' inputs in float (or NULL) */
    double *asq;      /* their squared norms (or NULL) */
    double *d, *g;    /* errors, per-example gradients of one layer (or NULL) */
    float *gw;        /* a convolution's per-example weight gradients summed over the
                       * copies in float (or NULL) */
    size_t lg_off;    /* where its [w; b] sits in each lane's gradient lg */
} dp_model_smooth_layer;

typedef struct dp_model_smooth {
    size_t n_layers, n_params; /* of the model it was made for (checked by assert) */
    int max_k;
    int sum;                   /* the one public field: 0 (as made) averages the K copies'
                                * gradients (eq. 6), 1 sums them (the DPlis authors'
                                * code); may be changed between calls */
    size_t chunk;              /* examples per pass: max_batch unless over 64 MB */
    double *pert;              /* (n_params) theta + z_k */
    double *c, *tmp;           /* (chunk) norms / clip factors, scratch */
    double *ck;                /* (max_k, chunk) the clip factors once per copy */
    size_t n_lg;               /* doubles of a lane's gradient lg: the non-shared dense
                                * layers' [w; b] */
    double *lg;                /* (lanes, n_lg) each lane's share of those, K > 1 */
    dp_model_smooth_layer *layer; /* (n_layers) */
    double *mem;
    float *fmem;
} dp_model_smooth;

/* Make the workspace for model m and up to max_k copies. Fails with DP_EINVAL when
 * max_k < 1 and DP_ENOMEM when out of memory; s is then zeroed and owns nothing. Release
 * with dp_model_smooth_destroy. The model must outlive s and keep its shape. */
int dp_model_smooth_init(dp_model_smooth *s, const dp_model *m, int max_k, dp_err *err);

/* Free what s owns and zero it. NULL and zeroed workspaces are fine. */
void dp_model_smooth_destroy(dp_model_smooth *s);

/* The DPlis gradient:
 *   clipped_sum (n_params) += sum_i clip_C( (1/K) sum_{k<K} grad loss(theta + z_k; x_i) ),
 * clip_C(g) = g / max(1, ||g|| / clip), theta = m->params. sqnorms (B, may be NULL)
 * receives ||(1/K) sum_k grad loss(theta + z_k; x_i)||^2 (before clipping). With s->sum
 * set, the 1/K is dropped in both: the copies' gradients are summed, then clipped to C
 * (= K clip_{C/K} of the average; the same as the average, bit for bit, when K = 1).
 * Perturbations: one set of K per call, shared by every example (eq. 6). z_k is
 * sigma_s times the normals that dp_rng_add_gaussian_par(&r_k, buf, n_params, 1.0, t)
 * adds, r_k a copy of *rng sought to its position p0 + k (dp_rng_seek), for any t: so
 * theta + z_k is memcpy(buf, theta) then dp_rng_add_gaussian_par(&r_k, buf, n_params,
 * sigma_s, t). On return *rng is sought to p0 + K (buffered words dropped), whatever
 * sigma_s, B and the thread count; the results do not depend on the thread count.
 * sigma_s = R eta sigma C / L in the paper's notation (>= 0; 0 means no perturbation).
 * Returns the smoothed loss at the perturbed points, sum_i (1/K) sum_k loss(theta + z_k;
 * x_i). x is (B, in_size), y (B); any B (in chunks of s->chunk <= max_batch).
 * clip > 0, INFINITY allowed; 1 <= K <= s->max_k. m->params is not written (bit for bit):
 * the layers' weight pointers point at s's perturbed copy during the call and are
 * restored. K = 1, sigma_s = 0 gives dp_model_clipped_grad's result bit for bit for a
 * model without convolutions when s->chunk == max_batch, otherwise to rounding (float
 * rounding with convolutions, summed lane by lane there). Cannot fail. */
double dp_model_smoothed_clipped_grad(dp_model *m, dp_model_smooth *s, const double *x,
                                      const int *y, size_t B, double clip, int K,
                                      double sigma_s, dp_rng *rng, double *clipped_sum,
                                      double *sqnorms);

/* Mean loss and accuracy (fraction of argmax == label, ties to the lower class) over n
 * examples; either output may be NULL; n = 0 gives NaN. Returns 0, or DP_EINVAL when a
 * label is outside [0, n_classes) (outputs untouched). */
int dp_model_evaluate(dp_model *m, const double *x, const int *y, size_t n,
                      double *mean_loss, double *accuracy);

/* labels[i] = argmax of the logits of row i of x (n examples), ties to the lower class,
 * as dp_model_evaluate counts. Cannot fail. */
void dp_model_predict(dp_model *m, const double *x, size_t n, int *labels);

/* The model registry (house rule 18): name, one-line description, source. */
typedef struct dp_model_info {
    const char *name;
    const char *description;
    const char *source;
} dp_model_info;

const dp_model_info *dp_model_list(size_t *n);

#endif
