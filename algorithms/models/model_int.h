/* model_int.h: what model.c shares with pexgrad.c and nothing else includes.
 *
 * A step over a chunk of B <= max_batch examples is forward (activations kept in the
 * model's buffers), then one top-down backward pass. The pass either accumulates the
 * parameter gradient (plain SGD) or, for DP-SGD, only propagates the errors and adds each
 * example's squared gradient norm; pexgrad.c then forms the clipped sum from the errors
 * the pass left behind in m->dact (each parameter layer's output error, per example).
 */
#ifndef DPERM_MODEL_INT_H
#define DPERM_MODEL_INT_H

#include "model.h"

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

/* Forward x (B, in_size) through every layer; B <= max_batch. */
void dp_model_forward_batch(dp_model *m, const double *x, size_t B);

/* Backward after dp_model_forward_batch on the same chunk, for the per-example loss
 * gradients of labels y (B). With grad != NULL: grad (n_params) += sum of the per-example
 * gradients. With sq != NULL: sq (B) += each example's squared gradient norm (no
 * parameter gradient is formed; use grad == NULL then). Either way m->dact holds the
 * errors of every layer output afterwards. */
void dp_model_backward_batch(dp_model *m, const int *y, size_t B, double *grad, double *sq);

/* Forward, backward and (grad != NULL) the weight gradients in one run of the lanes;
 * returns the summed loss of the chunk, added in lane order. */
double dp_model_forward_backward(dp_model *m, const double *x, const int *y, size_t B,
                                 double *grad, double *sq);

/* grad (n_params) += sum_i c_i g_i over the chunk of the last error pass, g_i example i's
 * gradient, c (B) the clip factors or NULL for all ones. Rows of m->dact of examples with
 * c_i != 1 are scaled in place (STORED convs use their stored gradients instead). */
void dp_model_weight_grads(dp_model *m, size_t B, double *grad, const double *c);

#endif
