/* pexgrad.c: per-example gradient norms and the sum of per-example gradients each clipped
 * to C, the gradient of DP-SGD, without materializing per-example gradients.
 *
 * Sources: DP-SGD's clipping g_i / max(1, ||g_i||_2 / C) (Abadi et al. 2016, Alg. 1;
 * DP-LSSGD §4; Lecture15 Alg. 4); the per-layer algebra of Goodfellow 2015 (dense) and of
 * conv.c (convolutions); docs/performance.md.
 *
 * Why it is cheap. Example i's gradient with respect to a layer's weights is linear in
 * that layer's output error delta_i, and delta_i does not depend on the clipping. So one
 * chunk is one run of the model's lanes (model_int.h) in four phases:
 *   1. the float weights;
 *   2. forward the lane's examples, then one backward pass that only propagates the
 *      errors (no weight gradient) and adds each example's squared norm layer by layer:
 *      dense ||delta_i||^2 (||a_i||^2 + 1), conv by its exact per-example method;
 *   3. c_i = min(1, C / ||g_i||) from the summed squares, each lane for its examples;
 *   4. the weight gradients on errors scaled by c_i (dense: each lane's share of dW, the
 *      scaling inside dense.c's product; conv: one GEMM per im2col block on rows scaled
 *      in place), so sum_i c_i g_i costs what the plain gradient costs; a conv layer
 *      whose per-example gradients were stored in phase 2 (STORED) instead adds c^T G
 *      with one GEMV.
 * Extra work over a plain step: the norms (O(B (I + O)) for a dense layer; for a conv
 * the per-example products of conv.c, which STORED reuses) and the factors; nothing is
 * allocated. With C = inf every c_i is 1, the factors are not applied, and the result is
 * the plain batch gradient bit for bit (tested). The cost against SGD is docs/performance.md,
 * Performance's bench table (the noise is most of the difference).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "algorithms/models/model_int.h"

typedef struct clip_job {
    dp_model *m;
    size_t B;
    int convert;
    const double *x;
    const int *y;
    double clip;
    double *sq;      /* (B) squared norms, then clip factors */
    double *sqnorms; /* the caller's copy of the norms, or NULL */
    double *grad;
    float *gf;       /* or NULL: dp_model_lane_grads */
    double loss[DP_MODEL_LANES];
    int all_one[DP_MODEL_LANES]; /* no example of lane j is clipped */
} clip_job;

enum { PH_WEIGHTS, PH_PASS, PH_CLIP, PH_GRADS, PH_COUNT };

static void clip_phase(void *ctx, int phase, int j)
{
    clip_job *job = ctx;
    dp_model *m = job->m;
    size_t lo = dp_lane_lo(job->B, m->lanes, j), hi = dp_lane_lo(job->B, m->lanes, j + 1);
    switch (phase) {
    case PH_WEIGHTS:
        if (job->convert) dp_model_lane_weights(m, j);
        break;
    case PH_PASS:
        memset(job->sq + lo, 0, (hi - lo) * sizeof *job->sq);
        dp_model_lane_forward(m, j, job->x, job->B, 0);
        job->loss[j] = dp_model_lane_backward(m, j, job->y, job->B, job->sq);
        break;
    case PH_CLIP: {
        double *c = job->sq;
        if (job->sqnorms) memcpy(job->sqnorms + lo, c + lo, (hi - lo) * sizeof *c);
        int all_one = 1;
        for (size_t i = lo; i < hi; i++) {
            double norm = sqrt(c[i]);
            c[i] = norm > job->clip ? job->clip / norm : 1.0;
            all_one &= c[i] == 1.0;
        }
        job->all_one[j] = all_one;
        break;
    }
    case PH_GRADS: {
        /* every lane reads every lane's flag: the same choice everywhere */
        int all_one = 1;
        for (int k = 0; k < m->lanes; k++) all_one &= job->all_one[k];
        dp_model_lane_grads(m, j, job->B, job->grad, job->gf, all_one ? NULL : job->sq);
        break;
    }
    }
}

double dp_model_clipped_grad_split(dp_model *m, const double *x, const int *y, size_t B,
                                   double clip, double *clipped_sum, float *gf,
                                   double *sqnorms)
{
    assert(clip > 0.0);
    double total = 0.0;
    gf = dp_model_gf_usable(m, B, gf);
    for (size_t n0 = 0; n0 < B; n0 += m->max_batch) {
        size_t nb = B - n0 < m->max_batch ? B - n0 : m->max_batch;
        clip_job job = {.m = m, .B = nb, .convert = n0 == 0, .x = x + n0 * m->in_size,
                        .y = y + n0, .clip = clip, .sq = m->sq,
                        .sqnorms = sqnorms ? sqnorms + n0 : NULL, .grad = clipped_sum,
                        .gf = gf};
        dp_model_set_input(m, job.x);
        dp_model_run_lanes(m, nb, PH_COUNT, clip_phase, &job);
        dp_model_lanes_add(m, nb, clipped_sum);
        double loss = 0.0;
        for (int j = 0; j < m->lanes; j++) loss += job.loss[j];
        total += loss;
    }
    return total;
}

double dp_model_clipped_grad(dp_model *m, const double *x, const int *y, size_t B,
                             double clip, double *clipped_sum, double *sqnorms)
{
    return dp_model_clipped_grad_split(m, x, y, B, clip, clipped_sum, NULL, sqnorms);
}
