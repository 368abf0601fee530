/* pool.c: max-pooling over k x k windows with a stride, no padding (TensorFlow's
 * MaxPool2D with padding "valid", the default used by the TF Privacy tutorials).
 *
 * Layout (B,H,W,C) as everywhere in layers.h. The forward pass records, for each output,
 * the input index of its maximum (the first one on ties, scanning rows then columns), so
 * the backward pass is a scatter-add that needs neither the input nor the output; with
 * overlapping windows (stride < k, as in the MNIST net's 2x2 stride-1 pools) an input
 * that is the maximum of several windows receives the sum of their errors.
 */
#include "layers.h"

int dp_pool_shape_init(dp_pool_shape *s, int c, int h, int w, int k, int stride)
{
    s->c = c, s->h = h, s->w = w, s->k = k, s->stride = stride;
    s->oh = s->ow = 0;
    if (c < 1 || k < 1 || stride < 1 || h < k || w < k) return -1;
    s->oh = (h - k) / stride + 1;
    s->ow = (w - k) / stride + 1;
    return 0;
}

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
                int base = (oy * s->stride * s->w + ox * s->stride) * s->c;
                for (size_t c = 0; c < C; c++) {
                    /* taps in rows, then columns: the first maximum wins ties. Written
                     * as selects (max and a conditional move), not a branch: a branch
                     * on the comparison mispredicts on about half of random inputs. */
                    int best = base + (int)c;
                    double v = x[best];
                    for (int ky = 0; ky < s->k; ky++)
                        for (int kx = 0; kx < s->k; kx++) {
                            int idx = base + (ky * s->w + kx) * s->c + (int)c;
                            double t = x[idx];
                            best = t > v ? idx : best;
                            v = t > v ? t : v;
                        }
                    out[o + c] = v;
                    argmax[o + c] = best;
                }
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
