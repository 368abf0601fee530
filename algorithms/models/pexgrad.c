/* pexgrad.c: per-example gradient norms and the sum of per-example gradients each clipped
 * to C, the gradient of DP-SGD, without materializing per-example gradients.
 *
 * Sources: DP-SGD's clipping g_i / max(1, ||g_i||_2 / C) (Abadi et al. 2016, Alg. 1;
 * DP-LSSGD §4; Lecture15 Alg. 4); the per-layer algebra of Goodfellow 2015 (dense) and of
 * conv.c (convolutions); DESIGN.md, Performance.
 *
 * Why it is cheap. Example i's gradient with respect to a layer's weights is linear in
 * that layer's output error delta_i, and delta_i does not depend on the clipping. So one
 * step is:
 *   1. forward the chunk, then one backward pass that only propagates the errors (no
 *      weight gradient) and adds each example's squared norm layer by layer:
 *      dense ||delta_i||^2 (||a_i||^2 + 1), conv by its exact per-example method;
 *   2. c_i = min(1, C / ||g_i||) from the summed squares;
 *   3. each parameter layer's errors are scaled row by row by c_i and its weight gradient
 *      is the ordinary batch GEMM (dense: one GEMM; conv: one GEMM per im2col block), so
 *      sum_i c_i g_i costs what the plain gradient costs; a conv layer whose per-example
 *      gradients were stored in step 1 (STORED) instead adds c^T G with one GEMV.
 * Steps 1 and 3 run in the model's lanes (model.h): each lane's examples on their own
 * thread, step 3's sums lane by lane, added in lane order (dp_model_weight_grads).
 * Extra work over a plain step: the norms (O(B (I + O)) for a dense layer; for a conv
 * the per-example products of conv.c, which STORED reuses); nothing is allocated.
 * Measured before lanes and float convolutions (batch 256, Haswell kernels, 2 threads):
 * clipped/plain step time 1.0 for the MLPs, 1.11 for cnn_mnist, 1.12 for cnn_cifar;
 * README, Performance has the current numbers.
 * With C = inf every c_i is 1 and the rows are left alone, so the result is the plain
 * batch gradient (tested).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "../base/vec.h"
#include "model.h"
#include "model_int.h"

double dp_model_clipped_grad(dp_model *m, const double *x, const int *y, size_t B,
                             double clip, double *clipped_sum, double *sqnorms)
{
    assert(clip > 0.0);
    double total = 0.0;
    for (size_t n0 = 0; n0 < B; n0 += m->max_batch) {
        size_t nb = B - n0 < m->max_batch ? B - n0 : m->max_batch;
        double *c = m->sq; /* squared norms, then clip factors */
        memset(c, 0, nb * sizeof *c);
        total += dp_model_forward_backward(m, x + n0 * m->in_size, y + n0, nb, NULL, c);
        if (sqnorms) memcpy(sqnorms + n0, c, nb * sizeof *c);
        int all_one = 1;
        for (size_t i = 0; i < nb; i++) {
            double norm = sqrt(c[i]);
            c[i] = norm > clip ? clip / norm : 1.0;
            all_one &= c[i] == 1.0;
        }

        dp_model_weight_grads(m, nb, clipped_sum, all_one ? NULL : c);
    }
    return total;
}
