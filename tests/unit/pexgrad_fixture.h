/* pexgrad_fixture.h: what the Check programs of the per-example and smoothed (DPlis)
 * gradients share: test_pexgrad.c, test_pexgrad_smooth.c and test_smooth_aggregate.c
 * (a random batch for a model, the median norm as a clip level, the clip-and-sum step of
 * their brute forces, the small test nets), test_linear_smooth.c (the noise generator
 * and model.h's perturbation convention, the median norm, the clip-and-sum step), and
 * test_model.c (the small net, with its own padding).
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_PEXGRAD_FIXTURE_H
#define DPERM_PEXGRAD_FIXTURE_H

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/rng.h"
#include "algorithms/models/model.h"

/* B examples of m's input size and their labels. */
typedef struct {
    double *x;
    int *y;
    size_t B, d;
} batch;

/* Gaussian inputs and uniform labels for m from a test stream of seed. */
static inline batch make_batch(const dp_model *m, size_t B, uint64_t seed)
{
    batch b = {malloc(B * m->in_size * sizeof(double)), malloc(B * sizeof(int)), B,
               m->in_size};
    ck_assert(b.x && b.y);
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_TEST);
    for (size_t i = 0; i < B * b.d; i++) b.x[i] = dp_rng_gaussian(&r);
    for (size_t i = 0; i < B; i++) b.y[i] = (int)dp_rng_below(&r, (uint64_t)m->n_classes);
    return b;
}

static inline void free_batch(batch *b) { free(b->x), free(b->y); }

/* The median of the norms whose squares are sq[0..B): a clip level that clips about half
 * of the batch (insertion sort of a copy; B is small). */
static inline double median_norm(const double *sq, size_t B)
{
    double *t = malloc(B * sizeof *t);
    ck_assert_ptr_nonnull(t);
    memcpy(t, sq, B * sizeof *t);
    for (size_t i = 1; i < B; i++)
        for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double u = t[j];
            t[j] = t[j - 1], t[j - 1] = u;
        }
    double med = sqrt(t[B / 2]);
    free(t);
    return med;
}

/* A noise generator part-way into a block, so the convention's "position" is tested with
 * buffered words present. */
static inline dp_rng noise_rng(uint64_t seed)
{
    dp_rng r;
    dp_rng_init(&r, seed, DP_STREAM_NOISE);
    (void)dp_rng_u32(&r);
    return r;
}

/* theta + z_k as model.h and linear.h define it: a copy of r0 sought to its position + k,
 * dp_rng_add_gaussian_par of std sigma_s on one thread, into out (P). */
static inline void perturbed(double *out, const double *theta, size_t P, const dp_rng *r0,
                             int k, double sigma_s)
{
    memcpy(out, theta, P * sizeof *out);
    dp_rng rk = *r0;
    dp_rng_seek(&rk, r0->position + (uint64_t)k);
    dp_rng_add_gaussian_par(&rk, out, P, sigma_s, 1);
}

/* The brute forces' last step for one example: *sq = ||g||^2, then g clipped to norm clip
 * (Abadi et al. 2016, Alg. 1: factor min(1, clip / ||g||)) added to sum (P). */
static inline void add_clipped(const double *g, size_t P, double clip, double *sq, double *sum)
{
    double s = 0.0;
    for (size_t j = 0; j < P; j++) s += g[j] * g[j];
    *sq = s;
    double c = sqrt(s) > clip ? clip / sqrt(s) : 1.0;
    for (size_t j = 0; j < P; j++) sum[j] += c * g[j];
}

/* The small net: every layer kind on a 3-channel input (exercises CHW -> HWC), nine
 * layers; the second conv's padding is pad2. An initializer, so each test keeps its own
 * static array: static const dp_layer_spec small_cnn[] = PEX_SMALL_CNN(1); */
#define PEX_SMALL_CNN(pad2)                                                                   \
    {                                                                                         \
        {.kind = DP_LAYER_CONV, .units = 4, .kernel = 3, .stride = 2, .padding = DP_PAD_SAME}, \
        {.kind = DP_LAYER_ACT, .act = {DP_ACT_RELU, 0, 0, 0}},                                \
        {.kind = DP_LAYER_MAXPOOL, .kernel = 2, .stride = 1},                                 \
        {.kind = DP_LAYER_CONV, .units = 3, .kernel = 2, .stride = 1, .padding = (pad2)},     \
        {.kind = DP_LAYER_ACT, .act = {DP_ACT_TANH, 0, 0, 0}},                                \
        {.kind = DP_LAYER_FLATTEN},                                                           \
        {.kind = DP_LAYER_DENSE, .units = 6},                                                 \
        {.kind = DP_LAYER_ACT, .act = {DP_ACT_TSIGMOID, 2, 2, 1}},                            \
        {.kind = DP_LAYER_DENSE, .units = 4},                                                 \
    }

/* An MLP of hidden widths 9 and 7 on 4x5 inputs, 6 classes, one lane. */
static inline void build_mlp(dp_model *m, const char *act, size_t max_batch)
{
    int hid[2] = {9, 7};
    ck_assert_int_eq(dp_model_build_named(m, "mlp", hid, 2, act, 1, 4, 5, 6, max_batch, 1, NULL),
                     DP_OK);
}

/* method for every conv layer; without_store also drops the stored per-example
 * gradients, so the smoothing workspace brings its own (call before the workspace is
 * made). */
static inline void set_conv(dp_model *m, int method, int without_store)
{
    for (size_t l = 0; l < m->n_layers; l++)
        if (m->layers[l].spec.kind == DP_LAYER_CONV) {
            m->layers[l].pex_method = method;
            if (without_store) m->layers[l].pex_g = NULL;
        }
}

#endif
