/* dense.c: the fully connected layer of layers.h, its products in single precision behind
 * a double interface, its per-example gradient norms, and the double reference.
 *
 * Sources: the dense layer as in llm.c's matmul_forward/backward (out = inp W^T + b);
 * the per-example identity is Goodfellow's (2015, "Efficient per-example gradient
 * computations"): example i's weight gradient is the outer product dout_i inp_i^T, so
 * ||dout_i inp_i^T||_F^2 = ||dout_i||^2 ||inp_i||^2, and with the bias,
 * ||dout_i||^2 (||inp_i||^2 + 1). Per-example gradients of a dense layer are never
 * formed: the norms cost O(B (I + O)), and a sum of per-example gradients each scaled by
 * c_i is the weight-gradient GEMM with the rows of dout scaled first (docs/performance.md).
 *
 * Precision (house rule 11; the same contract as conv.c): the layer's interface is double
 * (inputs, weights, outputs, errors, gradients) and its products are single precision.
 * The operands are rounded to float where they enter a product, every product is one
 * sgemm, and each result is added into the double output or gradient; biases, bias
 * gradients and norms stay double. Why: on the MLPs nearly all of a step is these GEMMs,
 * and sgemm runs at 2.2x dgemm's rate on one core of this project's Xeon (OpenBLAS
 * SkylakeX kernels: 144-185 against 68-74 GFLOP/s on the MLP's shapes), on half the
 * memory traffic. The rounding is about 1e-7 relative per product, and no float sum is
 * longer than DP_DENSE_SUM_LEN terms: longer sums (an input wider than that, a larger
 * batch in the weight gradient) go in pieces, each added into double. Tests hold the
 * layer to 1e-5 relative against the double reference below, as for convolutions. The
 * clip factors come from double norms of the unrounded operands, so an example clipped
 * to C contributes a vector whose norm is C to within that rounding (about 1e-6
 * relative at most), as with convolutions; the noise is drawn and added in double.
 *
 * Why the operands are rounded by the caller and kept (the model, model_run.c): the
 * weights are rounded once per forward pass (wf), not once per product, or by the
 * trainer's update as it writes them (model.h, dp_model_float_params_fresh), and a
 * layer's inputs are rounded while the forward reads them (af, with their squared norms
 * in the same pass, which the per-example norms need), then kept for the weight gradient
 * of the same chunk. So each operand is converted once per step, and the float weights
 * also serve the error pass. Activations stay double between layers: the activation
 * functions, the loss and the norms read them, and the rounding happens in the pass that
 * reads them anyway. The weight gradient can also stay in float where it was formed
 * (dp_dense_backward_weights_float), for a caller that adds it into double in a pass of
 * its own (the update).
 *
 * Work per call is bounded by the caller's float scratch (sizes below); nothing here
 * allocates or fails.
 */
#include "algorithms/models/layers.h"

#include <assert.h>
#include <string.h>

#include "algorithms/base/vec.h"

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

void dp_dense_input(float *af, double *asq, const double *inp, size_t B, size_t I)
{
    // inp is (B,I), af (B,I), asq (B)
    for (size_t i = 0; i < B; i++) {
        double s = dp_to_float_sumsq(af + i * I, inp + i * I, I);
        if (asq) asq[i] = s;
    }
}

void dp_dense_forward(double *out, float *of, const float *af, const float *wf,
                      const double *b, size_t B, size_t I, size_t O)
{
    // af is (B,I), wf (O,I), b (O), out (B,O), of (B,O) scratch
    for (size_t k0 = 0; k0 < I; k0 += DP_DENSE_SUM_LEN) {
        size_t kn = min_sz(DP_DENSE_SUM_LEN, I - k0);
        dp_sgemm(0, 1, B, O, kn, 1.0f, af + k0, I, wf + k0, I, 0.0f, of, O);
        if (k0 > 0) {
            dp_add_float(out, of, B * O);
            continue;
        }
        for (size_t i = 0; i < B; i++) /* the first piece: out = b + of, no extra pass */
            dp_plus_float(out + i * O, b, of + i * O, O);
    }
}

void dp_dense_forward_relu(double *out, float *of, const float *af, const float *wf,
                           const double *b, size_t B, size_t I, size_t O, float *af_next,
                           double *asq_next)
{
    if (I > DP_DENSE_SUM_LEN) { /* several pieces: the passes one after the other */
        dp_dense_forward(out, of, af, wf, b, B, I, O);
        dp_keep_positive(out, out, out, B * O);
        dp_dense_input(af_next, asq_next, out, B, O);
        return;
    }
    dp_sgemm(0, 1, B, O, I, 1.0f, af, I, wf, I, 0.0f, of, O); /* dp_dense_forward's one piece */
    for (size_t i = 0; i < B; i++) {
        double s = dp_plus_relu_to_float_sumsq(out + i * O, af_next + i * O, b, of + i * O, O);
        if (asq_next) asq_next[i] = s;
    }
}

size_t dp_dense_input_grad_ws(size_t B, size_t I, size_t O)
{
    return B * (min_sz(O, DP_DENSE_SUM_LEN) + I);
}

void dp_dense_backward_input(double *dinp, float *ws, const double *dout, const float *wf,
                             size_t B, size_t I, size_t O, int add)
{
    // dout is (B,O), wf (O,I), dinp (B,I); ws: df (B, <= DP_DENSE_SUM_LEN), gf (B,I)
    size_t qmax = min_sz(O, DP_DENSE_SUM_LEN);
    float *df = ws, *gf = ws + B * qmax;
    for (size_t q0 = 0; q0 < O; q0 += DP_DENSE_SUM_LEN) {
        size_t qn = min_sz(DP_DENSE_SUM_LEN, O - q0);
        for (size_t i = 0; i < B; i++) dp_to_float(df + i * qn, dout + i * O + q0, qn);
        dp_sgemm(0, 0, B, I, qn, 1.0f, df, qn, wf + q0 * I, I, 0.0f, gf, I);
        if (add || q0 > 0) dp_add_float(dinp, gf, B * I);
        else dp_to_double(dinp, gf, B * I);
    }
}

void dp_dense_backward_input_relu(double *dinp, float *ws, const double *dout,
                                  const float *wf, size_t B, size_t I, size_t O,
                                  const double *keep, double *sqnorm, const double *asq)
{
    if (O > DP_DENSE_SUM_LEN) { /* several pieces: the passes one after the other */
        dp_dense_backward_input(dinp, ws, dout, wf, B, I, O, 0);
        dp_keep_positive(dinp, keep, dinp, B * I);
        if (sqnorm) dp_dense_pex_sqnorm(sqnorm, dinp, asq, B, I);
        return;
    }
    float *df = ws, *gf = ws + B * O; /* dp_dense_backward_input's one piece */
    for (size_t i = 0; i < B; i++) dp_to_float(df + i * O, dout + i * O, O);
    dp_sgemm(0, 0, B, I, O, 1.0f, df, O, wf, I, 0.0f, gf, I);
    for (size_t i = 0; i < B; i++) {
        double s = dp_relu_grad_sumsq(dinp + i * I, keep + i * I, gf + i * I, I);
        if (sqnorm) sqnorm[i] += s * (asq[i] + 1.0);
    }
}

size_t dp_dense_weight_grad_ws(size_t rows, size_t I)
{
    return rows * (DP_DENSE_SUM_LEN + I);
}

/* df (nn, m) = c_i dout_i[r0 .. r0+m-1] for examples n0 .. n0+nn-1, rounded to float, and
 * db (m) += each c_i dout_i[r0 ..] in double, example by example: the bias gradient in the
 * pass that reads the errors anyway (a pass of its own took 1.5% of a DP-SGD step of
 * mlp_784_512_128_10). Called for n0 = 0, DP_DENSE_SUM_LEN, ... in turn, so each db[o]
 * adds its terms in example order. */
static void scaled_errors(float *df, double *db, const double *dout, const double *c, size_t O,
                          size_t r0, size_t m, size_t n0, size_t nn)
{
    for (size_t i = 0; i < nn; i++)
        dp_to_float_scaled(df + i * m, db, dout + (n0 + i) * O + r0, c ? c[n0 + i] : 1.0, m);
}

void dp_dense_backward_weights(double *dw, double *db, float *ws, const double *dout,
                               const double *c, const float *af, size_t B, size_t I,
                               size_t O, size_t o0, size_t o1, size_t rows)
{
    // dout is (B,O), af (B,I), c (B) or NULL; dw (O,I) and db (O): rows o0..o1-1 only;
    // ws: df (DP_DENSE_SUM_LEN, rows), gw (rows, I)
    float *df = ws, *gw = ws + DP_DENSE_SUM_LEN * rows;
    for (size_t r0 = o0; r0 < o1; r0 += rows) {
        size_t m = min_sz(rows, o1 - r0);
        for (size_t n0 = 0; n0 < B; n0 += DP_DENSE_SUM_LEN) {
            size_t nn = min_sz(DP_DENSE_SUM_LEN, B - n0);
            scaled_errors(df, db + r0, dout, c, O, r0, m, n0, nn);
            /* gw (m,I) = df^T (m,nn) af (nn,I) */
            dp_sgemm(1, 0, m, I, nn, 1.0f, df, m, af + n0 * I, I, 0.0f, gw, I);
            dp_add_float(dw + r0 * I, gw, m * I);
        }
    }
}

void dp_dense_backward_weights_float(float *gwf, double *db, float *ws, const double *dout,
                                     const double *c, const float *af, size_t B, size_t I,
                                     size_t O, size_t o0, size_t o1, size_t rows)
{
    // as dp_dense_backward_weights, with gwf (O,I) float and B <= DP_DENSE_SUM_LEN;
    // ws: df (B, rows)
    assert(B <= DP_DENSE_SUM_LEN);
    for (size_t r0 = o0; r0 < o1 && B > 0; r0 += rows) {
        size_t m = min_sz(rows, o1 - r0);
        scaled_errors(ws, db + r0, dout, c, O, r0, m, 0, B);
        /* gwf (m,I) += df^T (m,B) af (B,I): the product of dp_dense_backward_weights,
         * accumulated where it lies instead of in scratch */
        dp_sgemm(1, 0, m, I, B, 1.0f, ws, m, af, I, 1.0f, gwf + r0 * I, I);
    }
}

void dp_dense_pex_sqnorm(double *sqnorm, const double *dout, const double *asq, size_t B,
                         size_t O)
{
    // dout is (B,O), asq (B), sqnorm (B)
    for (size_t i = 0; i < B; i++) sqnorm[i] += dp_sumsq(dout + i * O, O) * (asq[i] + 1.0);
}

// ---- reference ------------------------------------------------------------------------------

void dp_dense_forward_ref(double *out, const double *inp, const double *w, const double *b,
                          size_t B, size_t I, size_t O)
{
    // inp is (B,I), w is (O,I), b is (O), out is (B,O)
    for (size_t i = 0; i < B; i++) memcpy(out + i * O, b, O * sizeof *out);
    dp_gemm(0, 1, B, O, I, 1.0, inp, I, w, I, 1.0, out, O);
}

void dp_dense_backward_ref(double *dinp, double *dw, double *db, const double *dout,
                           const double *inp, const double *w, size_t B, size_t I, size_t O)
{
    // dout is (B,O), inp is (B,I), w is (O,I); dinp (B,I), dw (O,I), db (O)
    if (dinp) dp_gemm(0, 0, B, I, O, 1.0, dout, O, w, I, 1.0, dinp, I);
    if (dw) dp_gemm(1, 0, O, I, B, 1.0, dout, O, inp, I, 1.0, dw, I);
    if (db)
        for (size_t i = 0; i < B; i++)
            for (size_t o = 0; o < O; o++) db[o] += dout[i * O + o];
}
