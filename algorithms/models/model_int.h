/* model_int.h: what model.c, model_run.c, pexgrad.c and pexgrad_smooth.c share and
 * nothing else includes.
 *
 * A step over a chunk of B <= max_batch examples runs in the model's lanes (model.h) as a
 * sequence of phases: every lane finishes a phase before any lane starts the next, so a
 * phase may read what any lane wrote before it. The pieces a phase calls for lane j:
 *   weights   lane j's rows of every dense layer's float weights (before a forward);
 *   forward   lane j's examples through every layer (activations kept);
 *   backward  their loss and one top-down error pass, optionally adding each example's
 *             squared gradient norm; m->dact then holds every layer's output errors;
 *   grads     the weight gradients from those errors: a dense layer's rows of lane j
 *             over the whole chunk (straight into the caller's gradient), or, for a
 *             dense layer with few outputs and a convolution, the sum over lane j's
 *             examples (into the lane's buffer, added in lane order by
 *             dp_model_lanes_add after the run).
 * pexgrad.c forms DP-SGD's clipped sum this way (the clip factors between the error pass
 * and the gradients); pexgrad_smooth.c runs K error passes and its own phases.
 */
#ifndef DPERM_MODEL_INT_H
#define DPERM_MODEL_INT_H

#include "algorithms/models/model.h"

/* The input buffer of layer l for the current chunk. */
static inline const double *dp_model_in(const dp_model *m, const dp_layer *l)
{
    return l->in_buf == 0 ? m->x : m->act[l->in_buf];
}

/* The logits (B, n_classes) of the last forward pass. */
static inline const double *dp_model_logits(const dp_model *m)
{
    return m->act[m->layers[m->n_layers - 1].out_buf];
}

/* Lane j's first item of n (examples of a chunk, or rows of a dense layer): the fixed
 * split j*n/L; lane j has items dp_lane_lo(n, L, j) .. dp_lane_lo(n, L, j + 1) - 1. */
static inline size_t dp_lane_lo(size_t n, int lanes, int j)
{
    return n * (size_t)j / (size_t)lanes;
}

/* One phase of lane j (0 <= phase < phases). */
typedef void (*dp_lane_fn)(void *ctx, int phase, int lane);

/* fn(ctx, p, j) for every phase p and lane j, phase by phase, on min(lanes, BLAS
 * threads) threads (one when B examples of this model are too little work to repay a
 * thread), with single-threaded BLAS meanwhile. Which thread runs a lane changes no
 * number. Cannot fail: a thread that cannot start leaves its lanes to the caller's. */
void dp_model_run_lanes(dp_model *m, size_t B, int phases, dp_lane_fn fn, void *ctx);

/* Stop and free the model's helper threads (dp_model_destroy). */
void dp_model_lanes_stop(dp_model *m);

/* The chunk x (B, in_size) becomes the model's input (m->x) for the next forward. */
void dp_model_set_input(dp_model *m, const double *x);

/* The pieces of a phase for lane j of a chunk of B examples (see the top of the file).
 * forward reads the caller's x (the one given to dp_model_set_input); same_input != 0
 * promises that the last forward had this x too, so what comes before the first
 * parameter layer (the input's copy, parameter-free layers), a dense first layer's float
 * inputs and norms and a convolutional first layer's kept patches are left as they are
 * (the parameters may differ). backward returns
 * the summed loss of the lane's examples of labels y and, with sq != NULL, adds their
 * squared gradient norms to sq (B); grads adds to grad (n_params) the gradient of the
 * chunk's examples each scaled by c_i (c (B), or NULL for ones): rows of m->dact of a
 * non-STORED convolution with c_i != 1 are scaled in place, a STORED one sums its stored
 * gradients with weights c by one GEMV. With gf (n_params floats, laid out as grad) not
 * NULL, which needs B <= DP_DENSE_SUM_LEN, the weights' part of every dense layer split
 * by rows goes to gf instead (dp_dense_backward_weights_float). */
void dp_model_lane_weights(dp_model *m, int j);
void dp_model_lane_forward(dp_model *m, int j, const double *x, size_t B, int same_input);
double dp_model_lane_backward(dp_model *m, int j, const int *y, size_t B, double *sq);
void dp_model_lane_grads(dp_model *m, int j, size_t B, double *grad, float *gf,
                         const double *c);

/* gf, or NULL when a call of B examples cannot leave part of its gradient in float: it
 * takes more than one chunk or more than one piece of a float sum (model.h,
 * dp_model_clipped_grad_split). */
static inline float *dp_model_gf_usable(const dp_model *m, size_t B, float *gf)
{
    return B <= m->max_batch && B <= DP_DENSE_SUM_LEN ? gf : NULL;
}

/* Conv layer l's workspace for lane j at example lo of the chunk: a kept layer's
 * patches and float outputs are those rows of the whole chunk's buffers. */
dp_conv_ws *dp_model_lane_ws(dp_layer *l, int j, size_t lo);

/* Lane j's share of dense layer l's weight gradient from copies x B rows (copy k's
 * examples are rows k B .. k B + B - 1 of the errors d, the factors c, or NULL for ones,
 * and the float inputs af): split by rows, lane j's rows of dW and db over every row,
 * into grad; split by examples, lane j's examples of every copy into its buffer. */
void dp_model_lane_dense_grads(dp_model *m, int j, const dp_layer *l, double *grad,
                               const double *d, const double *c, const float *af, size_t B,
                               size_t copies);

/* After a run whose lanes called dp_model_lane_grads: grad += each lane's gradients split
 * by examples (convolutions, dense layers with few outputs), in lane order. */
void dp_model_lanes_add(dp_model *m, size_t B, double *grad);

#endif
