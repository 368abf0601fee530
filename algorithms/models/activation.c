/* activation.c: elementwise activations ReLU, tanh and the tempered sigmoid.
 *
 * Sources: tempered sigmoid f(x) = s sigmoid(T x) - o of Papernot et al. 2020 ("Tempered
 * sigmoid activations for deep learning with differential privacy", eq. 1), the family
 * DPlis Table 11 trains with; s = 2, T = 2, o = 1 is exactly tanh(x), their default.
 *
 * Derivatives are taken from the forward OUTPUT y (so the layers run in place):
 * ReLU' = [y > 0] (0 at the kink, as TensorFlow), tanh' = 1 - y^2, and for the tempered
 * sigmoid with g = sigmoid(T x) = (y + o) / s, f' = s T g (1 - g).
 * The sigmoid is evaluated through exp of a non-positive number: no overflow at any x.
 * ReLU's select is a mask on the bits (dp_keep_positive, vectorized): a data-dependent
 * branch mispredicts on about half of the elements of a ReLU layer, which made it cost
 * as much as a GEMM.
 */
#include "algorithms/models/layers.h"

#include <math.h>

#include "algorithms/base/vec.h"

static inline double sigmoid(double z)
{
    if (z >= 0.0) return 1.0 / (1.0 + exp(-z));
    double e = exp(z);
    return e / (1.0 + e);
}

void dp_act_forward(double *out, const double *inp, size_t n, const dp_act *a)
{
    // inp and out are (n); out may equal inp
    switch (a->kind) {
    case DP_ACT_RELU:
        dp_keep_positive(out, inp, inp, n);
        break;
    case DP_ACT_TANH:
        for (size_t i = 0; i < n; i++) out[i] = tanh(inp[i]);
        break;
    case DP_ACT_TSIGMOID:
        for (size_t i = 0; i < n; i++) out[i] = a->s * sigmoid(a->t * inp[i]) - a->o;
        break;
    }
}

void dp_act_backward(double *dinp, const double *dout, const double *out, size_t n,
                     const dp_act *a)
{
    // dout, out and dinp are (n); dinp may equal dout
    switch (a->kind) {
    case DP_ACT_RELU:
        dp_keep_positive(dinp, out, dout, n);
        break;
    case DP_ACT_TANH:
        for (size_t i = 0; i < n; i++) dinp[i] = dout[i] * (1.0 - out[i] * out[i]);
        break;
    case DP_ACT_TSIGMOID: {
        double inv = 1.0 / a->s, st = a->s * a->t;
        for (size_t i = 0; i < n; i++) {
            double g = (out[i] + a->o) * inv;
            dinp[i] = dout[i] * st * g * (1.0 - g);
        }
        break;
    }
    }
}
