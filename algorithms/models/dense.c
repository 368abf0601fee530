/* dense.c: the fully connected layer of layers.h, and its per-example gradient norms.
 *
 * Sources: the dense layer as in llm.c's matmul_forward/backward (out = inp W^T + b);
 * the per-example identity is Goodfellow's (2015, "Efficient per-example gradient
 * computations"): example i's weight gradient is the outer product dout_i inp_i^T, so
 * ||dout_i inp_i^T||_F^2 = ||dout_i||^2 ||inp_i||^2, and with the bias,
 * ||dout_i||^2 (||inp_i||^2 + 1). Per-example gradients of a dense layer are never
 * formed: the norms cost O(B (I + O)), and a sum of per-example gradients each scaled by
 * c_i is the backward GEMM with the rows of dout scaled first (DESIGN.md, Performance).
 *
 * Every batch product is one BLAS-3 call.
 */
#include "layers.h"

#include "../base/vec.h"

void dp_dense_forward(double *out, const double *inp, const double *w, const double *b,
                      size_t B, size_t I, size_t O)
{
    // inp is (B,I), w is (O,I), b is (O), out is (B,O)
    for (size_t i = 0; i < B; i++)
        for (size_t o = 0; o < O; o++) out[i * O + o] = b[o];
    dp_gemm(0, 1, B, O, I, 1.0, inp, I, w, I, 1.0, out, O);
}

void dp_dense_backward(double *dinp, double *dw, double *db, const double *dout,
                       const double *inp, const double *w, size_t B, size_t I, size_t O)
{
    // dout is (B,O), inp is (B,I), w is (O,I); dinp (B,I), dw (O,I), db (O)
    if (dinp) dp_gemm(0, 0, B, I, O, 1.0, dout, O, w, I, 1.0, dinp, I);
    if (dw) dp_gemm(1, 0, O, I, B, 1.0, dout, O, inp, I, 1.0, dw, I);
    if (db)
        for (size_t i = 0; i < B; i++)
            for (size_t o = 0; o < O; o++) db[o] += dout[i * O + o];
}

void dp_dense_pex_sqnorm(double *sqnorm, const double *dout, const double *inp, size_t B,
                         size_t I, size_t O)
{
    // dout is (B,O), inp is (B,I), sqnorm is (B)
    for (size_t i = 0; i < B; i++) {
        double a = dp_dot(inp + i * I, inp + i * I, I);
        double d = dp_dot(dout + i * O, dout + i * O, O);
        sqnorm[i] += d * (a + 1.0);
    }
}
