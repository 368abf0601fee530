/* pexgrad_smooth.c: the per-example gradient of DPlis (randomized smoothing inside DP-SGD)
 * for layered models: the sum over a batch of each example's gradient averaged over K
 * perturbed copies of the parameters, clipped to C, without materializing per-example
 * dense gradients.
 *
 * Source: DPlis (Wenxiao Wang, Tianhao Wang, Lun Wang, Nanqing Luo, Pan Zhou, Dawn Song,
 * Ruoxi Jia, "DPlis: Boosting Utility of Differentially Private Deep Learning via
 * Randomized Smoothing", PETS 2021), §3 eq. (6) and Alg. 2:
 *   g_t(x_i) = (1/K) sum_{j=1..K} grad L(theta_t + z_j, x_i),  z_j = R (eta/L) nu_j,
 *   nu_j ~ N(0, sigma^2 C^2 I), then g_t(x_i) / max(1, ||g_t(x_i)|| / C).
 * The caller passes sigma_s = R eta sigma C / L, the std of z_j.
 *
 * Aggregation (s->sum, model.h). The paper averages the K copies' gradients (eq. 6,
 * the default); the authors' code SUMS them before clipping (dp_train.py:541, 551-558
 * at commit 21c2697; shared/reference/authors-code.md):
 *   g_t(x_i) = sum_{j=1..K} grad L(theta_t + z_j, x_i), clipped to C,
 * which is K clip_{C/K}(the average): small gradients weigh up to K times more against
 * the same noise. With s->sum set, every 1/K below is 1 and every 1/K^2 is 1; with
 * K = 1 the two are the same operations, bit for bit.
 *
 * Choices where the paper is silent:
 *   - The K perturbations are drawn once per step and shared by every example of the
 *     batch (eq. 6 is a loss over K perturbed parameter vectors), not drawn per example.
 *   - z_k (k = 0..K-1) is sigma_s times the normals dp_rng_add_gaussian_par draws from the
 *     caller's generator sought to its entry position p0 + k (one block per copy), so the
 *     call leaves the generator at p0 + K whatever sigma_s, B, the chunking or the thread
 *     count, and any z_k can be regenerated (model.h states the convention).
 *   - The loss returned is the smoothed loss at the perturbed points,
 *     sum_i (1/K) sum_k L(theta + z_k, x_i): the objective of eq. 6 (the loss at theta
 *     itself would cost one more forward pass), whichever the aggregation.
 *   - theta is never written: the layers' weight pointers are pointed at a perturbed copy
 *     for the K passes and back at m->params before returning.
 *
 * Exactness. Example i's averaged gradient for a layer is (1/K) sum_k delta_ik a_ik^T
 * (delta its output errors, a its inputs with a trailing 1 for the bias), so copies
 * interact in the norm:
 *   ||(1/K) sum_k delta_ik [a_ik; 1]^T||^2 = (1/K^2) sum_{k,k'} (delta_ik . delta_ik')
 *                                                              (a_ik . a_ik' + 1).
 * Per layer kind:
 *   - dense, input shared by the copies (the model input: nothing upstream depends on
 *     theta): the average is ((1/K) sum_k delta_ik) [x_i; 1]^T, a rank-one matrix, so the
 *     errors are summed over the copies and the layer is handled as in pexgrad.c; its
 *     share of the clipped sum is one GEMM of B rows, not B K.
 *   - dense otherwise: the inputs (in float, as the products take them, with their
 *     squared norms) and errors of all K copies are kept, the norm is the K x K Gram
 *     above (O(B K^2 (I + O)); its diagonal from the unrounded inputs' norms, as the
 *     model's error pass has them), and the clipped sum is one weight-gradient call over
 *     the B K stacked rows, row (k, i) of the errors scaled by c_i / K.
 *   - conv, input shared: summed errors as for dense, then the layer's own pexgrad method
 *     (STORED: per-example gradients and a GEMV; DIRECT/GRAM: norms, then the batch dW
 *     on rescaled errors). So K = 1 repeats dp_model_clipped_grad operation for operation.
 *   - conv otherwise: each example's gradient summed over the copies is materialized
 *     ((B, OC*KH*KW*C + OC), one GEMM per example and copy, the flops of K batch dW
 *     passes) and the clipped sum is one GEMV. Why not a Gram over copies: it would need
 *     every copy's im2col patches (P x KH*KW*C per example and copy: 6,400 doubles for
 *     cnn_mnist's second conv, K times), while the materialized sum is one row per
 *     example whatever K (8,224 doubles there), and reuses the model's stored-gradient
 *     buffer when the layer has one. With K > 1 the weight part of the sum is kept in
 *     float (sl->gw), each copy's GEMM adding into it, and written to the double row
 *     after the last copy (dp_conv2d_pex_grads_sum): a float sum of K P products per
 *     entry (250 for cnn_mnist at K = 10; layers where it would exceed 4096 keep the
 *     double sum). Converting each copy's product and adding it into the double row was
 *     15% of a cnn_mnist K = 10 step.
 * Lanes (model.h): each copy is one run of the model's lanes (float weights, forward,
 * error pass, then each lane keeps its examples' rows of the above); its perturbed
 * parameters theta + z_k are written in one pass from theta by the noise's threads
 * (dp_rng_gaussian_around_par: no copy of theta first, so theta is only read); the norms
 * and clip factors are one more run, each lane for its examples, followed by the dense
 * layers' clipped sums, each lane for its rows of dW as in pexgrad.c. The convolutions'
 * GEMVs and the shared convolution's weight gradient follow on the caller's thread.
 * Memory: one workspace per model and maximal K (dp_model_smooth_init), allocated once:
 * the perturbed parameters, and per example of a chunk the stored errors and inputs
 * above. The chunk is max_batch unless that would exceed DP_SMOOTH_BUDGET (64 MB), so a
 * step never allocates; larger batches go in chunks, each of which regenerates the K
 * perturbations (the numbers are the same; only their cost is repeated).
 * With sigma_s = 0 the parameters are used in place (no copy), and with K = 1 every sum
 * over copies is a copy, every 1/K a 1, the lanes split the same rows and the float
 * products see the same operands, so the result is bit for bit dp_model_clipped_grad's
 * for a model without convolutions when the chunks agree (tested). A model with
 * convolutions agrees to float rounding (tested to 1e-5): dp_model_clipped_grad forms
 * its conv sums lane by lane (model.h, Lanes), this file over the whole chunk.
 *
 * Cost. K forward and error-backward passes are inherent in Alg. 2, plus K draws of
 * n_params normals; what is done once is the first layer's weight gradient (shared
 * input). Now (`dperm bench`'s dplis column, docs/performance.md), a DPlis step of
 * mlp_784_512_128_10 at K = 10 and batch 256 costs 8.2-8.5 DP-SGD steps on this
 * project's Xeon (2 threads): of 33 ms, the ten perturbations take 10.4 ms (2.5 DP-SGD
 * steps: one normal per parameter each), the ten copies' runs 16.7 ms, the norms and
 * clipped sums 4.2 ms (the Gram dots 1.1 ms, the dense sums 3.0 ms of it), the rest is
 * DP-SGD's own noise and update. Measured earlier, with dense layers in double and
 * before the lanes ran dense models, at batch 256 (AMD EPYC, OpenBLAS Haswell kernels, 1
 * BLAS thread, best of 15 interleaved runs, sigma_s > 0; a throwaway program timing this
 * function against dp_model_clipped_grad on the same batch; the per-step DP noise, the
 * same for both, is left out):
 *                        DP-SGD      K = 1    K = 4    K = 10   (smoothed / DP-SGD)
 *   mlp_784_512_128_10   12.7 ms     1.13     3.52     8.52
 *   cnn_mnist            43.4 ms     1.01     3.95     9.71
 * Per copy, the MLP spends 5.8 ms forward, 1.5 ms propagating errors and 1.4 ms drawing
 * z_k (2.7 ns per normal); cnn_mnist 18.6 ms forward, 8.4 ms backward and the second
 * conv's per-example gradients, as DP-SGD's STORED path does once. With 2 BLAS threads
 * on the same machine under a load of 4-6 from other jobs, the two models' ratios
 * ranged over 0.96-1.42 (K = 1), 3.2-4.4 (K = 4) and 8.9-12.5 (K = 10): too noisy to
 * rank, the same picture.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "algorithms/models/model_int.h"

/* Doubles of per-example workspace (all layers, all copies; a float counts half) to aim
 * for: 8M = 64 MB. */
#define DP_SMOOTH_BUDGET ((size_t)1 << 23)

/* How the smoothed gradient treats a parameter layer (see the header comment). */
enum { SM_NONE = 0, SM_SHARED = 1, SM_DENSE = 2, SM_CONV = 3 };

static int layer_role(const dp_layer *l)
{
    if (!l->n_w) return SM_NONE;
    if (l->in_buf == 0) return SM_SHARED;
    return l->spec.kind == DP_LAYER_DENSE ? SM_DENSE : SM_CONV;
}

/* Doubles and floats per example of a chunk that layer l needs for max_k copies (a
 * non-shared conv reuses the model's stored-gradient buffer when it has one). */
static void layer_per_example(const dp_layer *l, int max_k, size_t *nd, size_t *nf)
{
    size_t K = (size_t)max_k;
    *nd = *nf = 0;
    switch (layer_role(l)) {
    case SM_SHARED: *nd = l->out_size; break;
    case SM_DENSE:
        *nd = K * (l->out_size + 1);
        *nf = K * l->in_size;
        break;
    case SM_CONV:
        *nd = l->pex_g ? 0 : l->n_w + l->n_b;
        if (max_k > 1 && 2 * dp_conv_patches(&l->conv) <= DP_CONV_SUM_TERMS) *nf = l->n_w;
        break;
    }
}

/* Whether copies of conv layer l sum their per-example gradients in float (sl->gw): K > 1
 * and each entry's float sum, K copies of P products, within DP_CONV_SUM_TERMS. */
static int conv_sums_in_float(const dp_model_smooth_layer *sl, const dp_layer *l, size_t K)
{
    return sl->gw && K > 1 && K * dp_conv_patches(&l->conv) <= DP_CONV_SUM_TERMS;
}

int dp_model_smooth_init(dp_model_smooth *s, const dp_model *m, int max_k, dp_err *err)
{
    memset(s, 0, sizeof *s);
    if (max_k < 1)
        return dp_err_set(err, DP_EINVAL, "smoothing needs K >= 1 copies, got %d", max_k);
    /* clip factors, a temporary norm and the factors once per copy */
    size_t per_d = 2 + (size_t)max_k, per_f = 0;
    for (size_t i = 0; i < m->n_layers; i++) {
        size_t nd, nf;
        layer_per_example(&m->layers[i], max_k, &nd, &nf);
        if (nd > (SIZE_MAX / sizeof(double)) / 8 - per_d ||
            nf > (SIZE_MAX / sizeof(double)) / 8 - per_f)
            return dp_err_set(err, DP_ENOMEM, "smoothing workspace for K = %d is too large",
                              max_k);
        per_d += nd, per_f += nf;
    }
    size_t chunk = DP_SMOOTH_BUDGET / (per_d + per_f / 2);
    if (chunk < 1) chunk = 1;
    if (chunk > m->max_batch) chunk = m->max_batch;
    size_t n_lg = 0;
    for (size_t i = 0; i < m->n_layers; i++)
        if (layer_role(&m->layers[i]) == SM_DENSE)
            n_lg += m->layers[i].n_w + m->layers[i].n_b;
    size_t total = m->n_params + chunk * per_d + (size_t)m->lanes * n_lg;
    size_t ftotal = chunk * per_f;

    s->layer = calloc(m->n_layers, sizeof *s->layer);
    s->mem = malloc(total * sizeof *s->mem);
    s->fmem = ftotal ? malloc(ftotal * sizeof *s->fmem) : NULL;
    if (!s->layer || !s->mem || (ftotal && !s->fmem)) {
        free(s->layer);
        free(s->mem);
        free(s->fmem);
        memset(s, 0, sizeof *s);
        return dp_err_set(err, DP_ENOMEM,
                          "out of memory for the smoothing workspace (%zu doubles and %zu "
                          "floats, K = %d)",
                          total, ftotal, max_k);
    }
    s->n_layers = m->n_layers;
    s->n_params = m->n_params;
    s->max_k = max_k;
    s->chunk = chunk;
    double *p = s->mem;
    float *f = s->fmem;
    size_t K = (size_t)max_k;
    s->pert = p, p += m->n_params;
    s->c = p, p += chunk;
    s->tmp = p, p += chunk;
    s->ck = p, p += K * chunk;
    s->n_lg = n_lg;
    s->lg = p, p += (size_t)m->lanes * n_lg;
    n_lg = 0;
    for (size_t i = 0; i < m->n_layers; i++) {
        const dp_layer *l = &m->layers[i];
        dp_model_smooth_layer *sl = &s->layer[i];
        switch (layer_role(l)) {
        case SM_SHARED: sl->d = p, p += chunk * l->out_size; break;
        case SM_DENSE:
            sl->af = f, f += K * chunk * l->in_size;
            sl->asq = p, p += K * chunk;
            sl->d = p, p += K * chunk * l->out_size;
            sl->lg_off = n_lg;
            n_lg += l->n_w + l->n_b;
            break;
        case SM_CONV:
            if (!l->pex_g) sl->g = p, p += chunk * (l->n_w + l->n_b);
            if (max_k > 1 && 2 * dp_conv_patches(&l->conv) <= DP_CONV_SUM_TERMS)
                sl->gw = f, f += chunk * l->n_w;
            break;
        }
    }
    assert(p <= s->mem + total && (!f || f <= s->fmem + ftotal));
    return DP_OK;
}

void dp_model_smooth_destroy(dp_model_smooth *s)
{
    if (!s) return;
    free(s->layer);
    free(s->mem);
    free(s->fmem);
    memset(s, 0, sizeof *s);
}

// ---- kernels ------------------------------------------------------------------------------

/* Point every parameter layer's weights and bias into base (n_params, model layout). */
static void point_params(dp_model *m, double *base)
{
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (!l->n_w) continue;
        l->w = base + l->w_off;
        l->b = base + l->b_off;
    }
}

/* g (nb, OC*K + OC) += per-example gradients of conv layer l for lane j's examples
 * lo .. lo+nb-1 of the chunk, in the row layout of dp_conv2d_pex_grads; tmp is one row.
 * Examples go one at a time: the same products as the batched call. */
static void conv_pex_grads_add(double *g, double *tmp, dp_layer *l, int j, const double *dout,
                               const double *inp, size_t lo, size_t nb)
{
    // dout is (nb,OH,OW,OC), inp (nb,H,W,C), g (nb, OC*K + OC), tmp (OC*K + OC)
    const dp_conv_shape *s = &l->conv;
    size_t P = dp_conv_patches(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c, row = OC * dp_conv_k(s) + OC;
    for (size_t n = 0; n < nb; n++) {
        dp_conv2d_pex_grads(tmp, NULL, dp_model_lane_ws(l, j, lo + n), dout + n * P * OC,
                            inp + n * in_sz, 1, s, l->conv_keep);
        dp_axpy(g + n * row, 1.0, tmp, row);
    }
}

/* The stacked copies of a non-shared dense layer (errors, float inputs, their norms, the
 * clip factors ck) go lane by lane: the examples lo .. lo+n-1 of a lane take rows
 * K lo .. K (lo + n) - 1, copy k's at K lo + k n + (e - lo), so one call forms a lane's
 * sum over all its rows; with K = 1, row e is example e. */
static size_t stack_row(size_t K, size_t lo, size_t n, size_t k, size_t e)
{
    return K * lo + k * n + (e - lo);
}

/* (1/K^2) sum_{k,k'} (d_ek . d_ek') (a_ek . a_ek' + 1): the squared norm of example e's
 * copy-averaged dense gradient (e in the lane lo .. lo+n-1) from the stacked errors d,
 * inputs af and their squared norms asq of all copies, never forming the gradient;
 * invk2 is 1/K^2, or 1 for the copies' summed gradient. The diagonal terms are those of
 * dp_dense_pex_sqnorm (the unrounded inputs' norms), so K = 1 adds what the model's error
 * pass adds; the cross terms take the inputs as rounded for the products. The reference
 * is the brute force in test_pexgrad_smooth.c. */
static double dense_gram_sqnorm(const dp_model_smooth_layer *sl, size_t e, size_t K,
                                size_t lo, size_t n, size_t I, size_t O, double invk2)
{
    double diag = 0.0, cross = 0.0;
    for (size_t k = 0; k < K; k++) {
        size_t r = stack_row(K, lo, n, k, e);
        const double *dk = sl->d + r * O;
        const float *ak = sl->af + r * I;
        diag += dp_sumsq(dk, O) * (sl->asq[r] + 1.0);
        for (size_t k2 = 0; k2 < k; k2++) {
            size_t r2 = stack_row(K, lo, n, k2, e);
            cross += dp_dot8(dk, sl->d + r2 * O, O) *
                     (dp_dot_float(ak, sl->af + r2 * I, I) + 1.0);
        }
    }
    return (diag + 2.0 * cross) * invk2;
}

// ---- the phases ----------------------------------------------------------------------------

typedef struct smooth_job {
    dp_model *m;
    dp_model_smooth *s;
    size_t nb, K, k;   /* the chunk, the copies, the current copy */
    int convert;       /* round the weights to float before this copy's forward */
    const double *x;
    const int *y;
    double clip, invk2;
    double *sqnorms;   /* (nb) the caller's copy of the norms, or NULL */
    double *grad;
    double loss[DP_MODEL_LANES];
} smooth_job;

/* After copy k's error pass: keep lane j's rows of what the norms and the clipped sum
 * need. */
static void collect_copy(smooth_job *job, int j)
{
    dp_model *m = job->m;
    size_t k = job->k, nb = job->nb, lo = dp_lane_lo(nb, m->lanes, j);
    size_t n = dp_lane_lo(nb, m->lanes, j + 1) - lo;
    if (n == 0) return;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        dp_model_smooth_layer *sl = &job->s->layer[i];
        size_t O = l->out_size, I = l->in_size;
        const double *dout = m->dact[l->out_buf] + lo * O, *in = dp_model_in(m, l) + lo * I;
        switch (layer_role(l)) {
        case SM_SHARED: /* sum of the errors over the copies */
            if (k == 0) memcpy(sl->d + lo * O, dout, n * O * sizeof *dout);
            else dp_axpy(sl->d + lo * O, 1.0, dout, n * O);
            break;
        case SM_DENSE: { /* copy k's rows of the lane's stack */
            size_t r = stack_row(job->K, lo, n, k, lo);
            memcpy(sl->af + r * I, l->af + lo * I, n * I * sizeof *sl->af);
            memcpy(sl->asq + r, l->asq + lo, n * sizeof *sl->asq);
            memcpy(sl->d + r * O, dout, n * O * sizeof *dout);
            break;
        }
        case SM_CONV: { /* per-example gradients summed over the copies */
            size_t row = l->n_w + l->n_b;
            double *g = (sl->g ? sl->g : l->pex_g) + lo * row;
            if (conv_sums_in_float(sl, l, job->K)) {
                float *gw = sl->gw + lo * l->n_w;
                dp_conv2d_pex_grads_sum(gw, g, dp_model_lane_ws(l, j, lo), dout, in, n,
                                        &l->conv, l->conv_keep, k == 0);
                if (k + 1 == job->K) dp_conv2d_pex_grads_finish(g, gw, n, &l->conv);
            } else if (k == 0)
                dp_conv2d_pex_grads(g, NULL, dp_model_lane_ws(l, j, lo), dout, in, n,
                                    &l->conv, l->conv_keep);
            else
                conv_pex_grads_add(g, m->gbuf + (size_t)j * m->n_gbuf, l, j, dout, in, lo, n);
            break;
        }
        }
    }
}

enum { PC_WEIGHTS, PC_PASS, PC_COUNT };

/* One perturbed copy: its float weights, forward, loss, error pass, kept rows. */
static void copy_phase(void *ctx, int phase, int j)
{
    smooth_job *job = ctx;
    dp_model *m = job->m;
    switch (phase) {
    case PC_WEIGHTS:
        if (job->convert) dp_model_lane_weights(m, j);
        break;
    case PC_PASS: /* the input and its float copy (first dense layer) stay from copy 0 */
        dp_model_lane_forward(m, j, job->x, job->nb, job->k > 0);
        job->loss[j] = dp_model_lane_backward(m, j, job->y, job->nb, NULL);
        collect_copy(job, j);
        break;
    }
}

/* Lane j's examples: c (the chunk's) = the squared norms of the averaged gradients, layer
 * by layer from the top (the order of the model's error pass, so K = 1 adds the same
 * numbers in the same order), copied to sqnorms, then turned into clip factors c_i / K
 * (c_i with sum). */
static void norms_lane(smooth_job *job, int j)
{
    dp_model *m = job->m;
    dp_model_smooth *s = job->s;
    size_t nb = job->nb, lo = dp_lane_lo(nb, m->lanes, j);
    size_t n = dp_lane_lo(nb, m->lanes, j + 1) - lo;
    double *c = s->c;
    const double invk2 = job->invk2;
    memset(c + lo, 0, n * sizeof *c);
    for (size_t i = m->n_layers; n && i-- > 0;) {
        dp_layer *l = &m->layers[i];
        dp_model_smooth_layer *sl = &s->layer[i];
        const double *in = dp_model_in(m, l) + lo * l->in_size; /* the shared input */
        size_t O = l->out_size, I = l->in_size, row = l->n_w + l->n_b;
        switch (layer_role(l)) {
        case SM_NONE: break;
        case SM_SHARED:
            if (l->spec.kind == DP_LAYER_DENSE) {
                for (size_t e = lo; e < lo + n; e++)
                    c[e] += dp_sumsq(sl->d + e * O, O) * (l->asq[e] + 1.0) * invk2;
            } else if (l->pex_method == DP_CONV_PEX_STORED && l->pex_g) {
                dp_conv2d_pex_grads(l->pex_g + lo * row, NULL, dp_model_lane_ws(l, j, lo),
                                    sl->d + lo * O, in, n, &l->conv, l->conv_keep);
                for (size_t e = lo; e < lo + n; e++)
                    c[e] += dp_dot(l->pex_g + e * row, l->pex_g + e * row, row) * invk2;
            } else {
                int method = l->pex_method == DP_CONV_PEX_STORED
                                 ? dp_conv_pex_choose(&l->conv)
                                 : l->pex_method;
                memset(s->tmp + lo, 0, n * sizeof *s->tmp);
                dp_conv2d_pex_sqnorm(s->tmp + lo, dp_model_lane_ws(l, j, lo), sl->d + lo * O,
                                     in, n, &l->conv, method, l->conv_keep);
                for (size_t e = lo; e < lo + n; e++) c[e] += s->tmp[e] * invk2;
            }
            break;
        case SM_DENSE:
            for (size_t e = lo; e < lo + n; e++)
                c[e] += dense_gram_sqnorm(sl, e, job->K, lo, n, I, O, invk2);
            break;
        case SM_CONV: {
            const double *g = sl->g ? sl->g : l->pex_g;
            for (size_t e = lo; e < lo + n; e++)
                c[e] += dp_dot(g + e * row, g + e * row, row) * invk2;
            break;
        }
        }
    }
    if (job->sqnorms) memcpy(job->sqnorms + lo, c + lo, n * sizeof *c);
    for (size_t e = lo; e < lo + n; e++) { /* c_i / K: clip factor and average in one */
        double norm = sqrt(c[e]);
        c[e] = norm > job->clip ? job->clip / norm : 1.0;
        if (!s->sum) c[e] /= (double)job->K;
        for (size_t k = 0; k < job->K; k++) s->ck[stack_row(job->K, lo, n, k, e)] = c[e];
    }
}

/* Lane j's share of each dense layer's part of clipped_sum: sum_i (c_i / K) sum_k g_ik
 * (sum: c_i sum_k g_ik), from the K nb stacked rows. With K = 1 split between the lanes
 * as the model splits its gradient (so K = 1 repeats its products); with K > 1 a
 * non-shared layer's always by examples, each lane's K n rows in one call into its part
 * of s->lg (added in lane order after the run): split by rows, each lane would read
 * (and OpenBLAS pack) all K nb rows of inputs, which made the two lanes wait on memory,
 * and one call per copy added ten float products into double where one does. */
static void grads_lane(smooth_job *job, int j)
{
    dp_model *m = job->m;
    dp_model_smooth *s = job->s;
    size_t nb = job->nb, lo = dp_lane_lo(nb, m->lanes, j);
    size_t n = dp_lane_lo(nb, m->lanes, j + 1) - lo;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        dp_model_smooth_layer *sl = &s->layer[i];
        if (l->spec.kind != DP_LAYER_DENSE) continue;
        if (layer_role(l) == SM_SHARED) {
            dp_model_lane_dense_grads(m, j, l, job->grad, sl->d, s->c, l->af, nb, 1);
            continue;
        }
        if (job->K == 1) {
            dp_model_lane_dense_grads(m, j, l, job->grad, sl->d, s->ck, sl->af, nb, 1);
            continue;
        }
        if (n == 0) continue;
        size_t I = l->in_size, O = l->out_size;
        size_t rows = m->n_lane_f / dp_dense_weight_grad_ws(1, I); /* >= l->grad_rows */
        if (rows > O) rows = O;
        double *dw = s->lg + (size_t)j * s->n_lg + sl->lg_off, *db = dw + l->n_w;
        size_t r = stack_row(job->K, lo, n, 0, lo);
        memset(dw, 0, (l->n_w + l->n_b) * sizeof *dw);
        dp_dense_backward_weights(dw, db, m->lane_f[j], sl->d + r * O, s->ck + r,
                                  sl->af + r * I, job->K * n, I, O, 0, O, rows);
    }
}

/* clipped_sum += the dense gradients the lanes formed by examples, lane by lane in lane
 * order (the model's order, dp_model_lanes_add): in the model's buffers as the model
 * splits them, in s->lg the non-shared layers' at K > 1. */
static void add_lanes(dp_model *m, dp_model_smooth *s, size_t nb, size_t K,
                      double *clipped_sum)
{
    for (int j = 0; j < m->lanes; j++) {
        if (dp_lane_lo(nb, m->lanes, j + 1) == dp_lane_lo(nb, m->lanes, j)) continue;
        for (size_t i = 0; i < m->n_layers; i++) {
            const dp_layer *l = &m->layers[i];
            if (l->spec.kind != DP_LAYER_DENSE) continue;
            const double *g;
            if (layer_role(l) == SM_DENSE && K > 1)
                g = s->lg + (size_t)j * s->n_lg + s->layer[i].lg_off;
            else if (!l->split_rows)
                g = m->lgrad + (size_t)j * m->n_lgrad + l->lg_off;
            else
                continue;
            dp_axpy(clipped_sum + l->w_off, 1.0, g, l->n_w + l->n_b);
        }
    }
}

enum { PN_NORMS, PN_GRADS, PN_COUNT };

static void sum_phase(void *ctx, int phase, int j)
{
    if (phase == PN_NORMS) norms_lane(ctx, j);
    else grads_lane(ctx, j);
}

/* The convolutions' share of clipped_sum, on the whole chunk after the lanes. */
static void conv_grads(dp_model *m, dp_model_smooth *s, size_t nb, double *clipped_sum)
{
    const double *c = s->c;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        dp_model_smooth_layer *sl = &s->layer[i];
        if (l->spec.kind != DP_LAYER_CONV) continue;
        double *dw = clipped_sum + l->w_off, *db = clipped_sum + l->b_off;
        size_t row = l->n_w + l->n_b, O = l->out_size;
        if (layer_role(l) == SM_CONV) {
            dp_gemv_t(dw, sl->g ? sl->g : l->pex_g, nb, row, row, c);
        } else if (l->pex_method == DP_CONV_PEX_STORED && l->pex_g) {
            dp_gemv_t(dw, l->pex_g, nb, row, row, c);
        } else {
            /* rows with c_i = 1 untouched, as pexgrad.c does */
            for (size_t e = 0; e < nb; e++)
                if (c[e] != 1.0) dp_scal(sl->d + e * O, c[e], O);
            dp_conv2d_backward(NULL, dw, db, &l->conv_all, sl->d, dp_model_in(m, l), l->w,
                               nb, &l->conv, 0);
        }
    }
}

// ---- the step -----------------------------------------------------------------------------

/* A perturbed copy's dense weights rounded into the model's float weights, a chunk of
 * pert = theta + z_k at a time as the noise writes it (dp_rng_gaussian_around_then), while
 * the chunk is in cache: the same bits as dp_model_lane_weights' pass over all of pert,
 * which read it back from memory (5% of a K = 10 step of mlp_784_512_128_10). */
static void round_copy_chunk(void *ctx, size_t lo, size_t hi)
{
    const dp_model *m = ctx;
    for (size_t i = 0; i < m->n_layers; i++) {
        const dp_layer *l = &m->layers[i];
        if (l->spec.kind != DP_LAYER_DENSE) continue;
        size_t a = l->w_off > lo ? l->w_off : lo, e = l->w_off + l->n_w;
        if (e > hi) e = hi;
        if (a < e) dp_to_float(l->wf + (a - l->w_off), l->w + (a - l->w_off), e - a);
    }
}

double dp_model_smoothed_clipped_grad(dp_model *m, dp_model_smooth *s, const double *x,
                                      const int *y, size_t B, double clip, int K,
                                      double sigma_s, dp_rng *rng, double *clipped_sum,
                                      double *sqnorms)
{
    assert(clip > 0.0 && K >= 1 && K <= s->max_k && sigma_s >= 0.0);
    assert(s->n_layers == m->n_layers && s->n_params == m->n_params);
    const size_t P = m->n_params, Kz = (size_t)K;
    const double invk = 1.0 / (double)K;
    const dp_rng r0 = *rng;
    dp_rng_seek(rng, r0.position + Kz); /* K blocks, one per copy, whatever sigma_s */
    int threads = dp_threads();
    double total = 0.0;
    if (sigma_s > 0.0) m->wf_fresh = 0; /* the copies are rounded into the model's pwf */

    for (size_t n0 = 0; n0 < B; n0 += s->chunk) {
        size_t nb = B - n0 < s->chunk ? B - n0 : s->chunk;
        smooth_job job = {.m = m, .s = s, .nb = nb, .K = Kz, .x = x + n0 * m->in_size,
                          .y = y + n0, .clip = clip, .invk2 = s->sum ? 1.0 : invk * invk,
                          .sqnorms = sqnorms ? sqnorms + n0 : NULL, .grad = clipped_sum};
        dp_model_set_input(m, job.x);

        // K passes: forward at theta + z_k, errors only, keep them
        for (size_t k = 0; k < Kz; k++) {
            if (sigma_s > 0.0) {
                dp_rng rk = r0;
                dp_rng_seek(&rk, r0.position + k);
                point_params(m, s->pert); /* first: the rounding reads the layers' w */
                dp_rng_gaussian_around_then(&rk, s->pert, m->params, P, sigma_s, threads,
                                            round_copy_chunk, m);
                m->wf_fresh = 1; /* the copy's float weights came with it */
            }
            job.k = k;
            job.convert = sigma_s > 0.0 || (n0 == 0 && k == 0);
            dp_model_run_lanes(m, nb, PC_COUNT, copy_phase, &job);
            double loss = 0.0;
            for (int j = 0; j < m->lanes; j++) loss += job.loss[j];
            total += loss * invk;
        }
        point_params(m, m->params);
        if (sigma_s > 0.0) m->wf_fresh = 0; /* the float weights are the last copy's */

        // norms and clip factors, then the dense layers' clipped sum, in the lanes;
        // the convolutions' after them
        dp_model_run_lanes(m, nb, PN_COUNT, sum_phase, &job);
        add_lanes(m, s, nb, Kz, clipped_sum);
        conv_grads(m, s, nb, clipped_sum);
    }
    return total;
}
