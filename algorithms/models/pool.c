/* pool.c: max-pooling over k x k windows with a stride, no padding (TensorFlow's
 * MaxPool2D with padding "valid", the default used by the TF Privacy tutorials).
 *
 * Layout (B,H,W,C) as everywhere in layers.h. The forward pass records, for each output,
 * the input index of its maximum (the first one on ties, scanning rows then columns), so
 * the backward pass is a scatter-add that needs neither the input nor the output; with
 * overlapping windows (stride < k, as in the MNIST net's 2x2 stride-1 pools) an input
 * that is the maximum of several windows receives the sum of their errors.
 */
#include "algorithms/models/layers.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define POOL_HAVE_AVX512 1
#endif

int dp_pool_shape_init(dp_pool_shape *s, int c, int h, int w, int k, int stride)
{
    s->c = c, s->h = h, s->w = w, s->k = k, s->stride = stride;
    s->oh = s->ow = 0;
    if (c < 1 || k < 1 || stride < 1 || h < k || w < k) return -1;
    s->oh = (h - k) / stride + 1;
    s->ow = (w - k) / stride + 1;
    return 0;
}

/* Channels c .. C-1 of one window, one at a time: the taps in rows, then columns, the
 * first maximum winning ties. */
static void window_max_scalar(double *out, int *argmax, const double *x, int base, int c,
                              const dp_pool_shape *s)
{
    for (; c < s->c; c++) {
        int best = base + c;
        double v = x[best];
        for (int ky = 0; ky < s->k; ky++)
            for (int kx = 0; kx < s->k; kx++) {
                int idx = base + (ky * s->w + kx) * s->c + c;
                double t = x[idx];
                best = t > v ? idx : best;
                v = t > v ? t : v;
            }
        out[c] = v;
        argmax[c] = best;
    }
}

#ifdef __SSE2__
/* The same, eight channels at a time in four SSE2 registers (x86-64's baseline), the
 * comparison's mask selecting both the value and the index: no branch on the data (the
 * compiler made one of the scalar selects, and it mispredicted on about half of the taps:
 * a quarter of a cnn_mnist DPlis step was this function), and four independent chains
 * per tap instead of one. Starts at channel c0; returns the first channel it left undone. */
static int window_max_sse2(double *out, int *argmax, const double *x, int base, int c0,
                           const dp_pool_shape *s)
{
    enum { V = 4 }; /* registers of two channels */
    int c = c0;
    for (; c + 2 * V <= s->c; c += 2 * V) {
        __m128d v[V], best[V];
        for (int q = 0; q < V; q++) {
            int i = base + c + 2 * q;
            v[q] = _mm_loadu_pd(x + i);
            best[q] = _mm_set_pd((double)(i + 1), (double)i);
        }
        for (int ky = 0; ky < s->k; ky++)
            for (int kx = ky == 0; kx < s->k; kx++) {
                int tap = base + (ky * s->w + kx) * s->c + c;
                for (int q = 0; q < V; q++) {
                    int i = tap + 2 * q;
                    __m128d t = _mm_loadu_pd(x + i);
                    __m128d gt = _mm_cmpgt_pd(t, v[q]);
                    __m128d at = _mm_set_pd((double)(i + 1), (double)i);
                    best[q] = _mm_or_pd(_mm_and_pd(gt, at), _mm_andnot_pd(gt, best[q]));
                    v[q] = _mm_or_pd(_mm_and_pd(gt, t), _mm_andnot_pd(gt, v[q]));
                }
            }
        for (int q = 0; q < V; q++) {
            double b[2];
            _mm_storeu_pd(out + c + 2 * q, v[q]);
            _mm_storeu_pd(b, best[q]);
            argmax[c + 2 * q] = (int)b[0]; /* indices below 2^31: exact in double */
            argmax[c + 2 * q + 1] = (int)b[1];
        }
    }
    return c;
}
#endif

#ifdef POOL_HAVE_AVX512
/* window_max_sse2 with AVX-512: eight channels per register, the comparison's mask
 * moving the value and the index (a 32-bit lane each) where a tap is larger: the same
 * selects, so the same results. The SSE2 version was still 17% of a cnn_mnist DPlis
 * K = 10 step on this project's Xeon; one lane's two pools of that net (128 examples)
 * took 2.3-3.7 ms with it and 0.85-1.7 ms with this (medians of 61, alternating). */
__attribute__((target("avx512f"), always_inline)) static inline int
window_max_avx512(double *out, int *argmax, const double *x, int base, const dp_pool_shape *s)
{
    /* One register per group, the taps inner: with several groups in an array of
     * registers the compiler kept them on the stack. */
    const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    int c = 0;
    for (; c + 8 <= s->c; c += 8) {
        int i = base + c;
        __m512d v = _mm512_loadu_pd(x + i);
        __m512i best = _mm512_add_epi32(_mm512_set1_epi32(i), iota);
        for (int ky = 0; ky < s->k; ky++)
            for (int kx = ky == 0; kx < s->k; kx++) {
                int t = base + (ky * s->w + kx) * s->c + c;
                __m512d xt = _mm512_loadu_pd(x + t);
                __mmask8 gt = _mm512_cmp_pd_mask(xt, v, _CMP_GT_OQ);
                v = _mm512_mask_mov_pd(v, gt, xt);
                best = _mm512_mask_mov_epi32(best, (__mmask16)gt,
                                             _mm512_add_epi32(_mm512_set1_epi32(t), iota));
            }
        _mm512_storeu_pd(out + c, v);
        _mm512_mask_storeu_epi32(argmax + c, (__mmask16)0xff, best);
    }
    return c;
}

/* Every window of one example: the vector windows inlined, the scalar rest per window. */
__attribute__((target("avx512f"))) static void example_max_avx512(double *out, int *argmax,
                                                                  const double *x,
                                                                  const dp_pool_shape *s)
{
    size_t C = (size_t)s->c;
    for (int oy = 0; oy < s->oh; oy++)
        for (int ox = 0; ox < s->ow; ox++) {
            size_t o = ((size_t)oy * s->ow + ox) * C;
            int base = (oy * s->stride * s->w + ox * s->stride) * s->c;
            int c = window_max_avx512(out + o, argmax + o, x, base, s);
            if (c < s->c) window_max_scalar(out + o, argmax + o, x, base, c, s);
        }
}

static int have_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
}
#endif

void dp_maxpool_forward(double *out, int *argmax, const double *inp, size_t B,
                        const dp_pool_shape *s)
{
    // inp is (B,H,W,C), out and argmax are (B,OH,OW,C)
    size_t C = (size_t)s->c, in_sz = (size_t)s->h * s->w * C;
    size_t out_sz = (size_t)s->oh * s->ow * C;
#ifdef POOL_HAVE_AVX512
    int avx512 = have_avx512();
#endif
    for (size_t n = 0; n < B; n++) {
        const double *x = inp + n * in_sz;
#ifdef POOL_HAVE_AVX512
        if (avx512) {
            example_max_avx512(out + n * out_sz, argmax + n * out_sz, x, s);
            continue;
        }
#endif
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++) {
                size_t o = n * out_sz + ((size_t)oy * s->ow + ox) * C;
                int base = (oy * s->stride * s->w + ox * s->stride) * s->c, c = 0;
#ifdef __SSE2__
                c = window_max_sse2(out + o, argmax + o, x, base, c, s);
#endif
                window_max_scalar(out + o, argmax + o, x, base, c, s);
            }
    }
}

void dp_maxpool_backward(double *dinp, const double *dout, const int *argmax, size_t B,
                         const dp_pool_shape *s)
{
    // dout and argmax are (B,OH,OW,C), dinp is (B,H,W,C)
    size_t in_sz = (size_t)s->h * s->w * s->c, out_sz = (size_t)s->oh * s->ow * s->c;
    for (size_t n = 0; n < B; n++)
        for (size_t o = 0; o < out_sz; o++)
            dinp[n * in_sz + (size_t)argmax[n * out_sz + o]] += dout[n * out_sz + o];
}
