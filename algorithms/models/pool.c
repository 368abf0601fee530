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
 * per tap instead of one. Returns the first channel it left undone. */
static int window_max_sse2(double *out, int *argmax, const double *x, int base,
                           const dp_pool_shape *s)
{
    enum { V = 4 }; /* registers of two channels */
    int c = 0;
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

void dp_maxpool_forward(double *out, int *argmax, const double *inp, size_t B,
                        const dp_pool_shape *s)
{
    // inp is (B,H,W,C), out and argmax are (B,OH,OW,C)
    size_t C = (size_t)s->c, in_sz = (size_t)s->h * s->w * C;
    size_t out_sz = (size_t)s->oh * s->ow * C;
    for (size_t n = 0; n < B; n++) {
        const double *x = inp + n * in_sz;
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++) {
                size_t o = n * out_sz + ((size_t)oy * s->ow + ox) * C;
                int base = (oy * s->stride * s->w + ox * s->stride) * s->c, c = 0;
#ifdef __SSE2__
                c = window_max_sse2(out + o, argmax + o, x, base, s);
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
