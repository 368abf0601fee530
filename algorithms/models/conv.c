/* conv.c: 2-D convolution (stride, zero padding) by im2col + GEMM, and its exact
 * per-example gradient norms.
 *
 * Sources: im2col lowering as in Caffe (Jia et al. 2014; Chellapilla et al. 2006), laid out
 * for NHWC like TensorFlow's Conv2D, whose "same"/"valid" padding rule dp_conv_shape_init
 * reproduces (tf.nn.convolution docs: out = ceil(in / stride), the extra padding row or
 * column goes at the bottom/right). Per-example norms: Goodfellow (2015) for the direct
 * per-example product; Li et al. 2022 ("Large language models can be strong
 * differentially private learners", ghost clipping) for the Gram-matrix form.
 *
 * Layout: a block of nb examples becomes cols (nb*P, K), one row per output pixel
 * (P = OH*OW), columns ordered (ky, kx, c) so each kernel tap copies C contiguous input
 * values. Then out = cols W^T (one GEMM), dW += dout^T cols, dcols = dout W followed by
 * a scatter-add (col2im). Blocks bound the workspace: a whole CIFAR batch of 3x3x32
 * patches would be 600 MB in double; the caller picks `block` from a memory budget.
 *
 * Per-example methods (exact; each tested against a brute-force per-example loop):
 * example i's weight gradient is G_i = dout_i^T U_i (OC,K) with dout_i (P,OC) and its
 * patches U_i (P,K) contiguous rows of dout and cols.
 *   DIRECT forms G_i with one GEMM per example (2 OC K P flops, the flops of its share of
 *     the batch dW) and takes its norm;
 *   GRAM uses ||G_i||^2 = <dout_i dout_i^T, U_i U_i^T>, 2 P^2 (OC + K) flops;
 *   STORED (dp_conv2d_pex_grads) is DIRECT keeping every G_i, so the clipped sum is one
 *     GEMV over them instead of a second dW pass; the model uses it while the stored
 *     gradients fit its memory budget (model.c).
 * Measured on cnn_mnist, batch 256, OpenBLAS Haswell kernels, 2 threads, time of a
 * clipped step over a plain one: STORED 1.11, DIRECT 1.32, GRAM 1.87 (its first layer,
 * P = 196, K = 64, makes the P x P Gram products 3.5x the direct flops; on the second,
 * P = 25, they tie). GRAM wins by flops only on late CIFAR layers (P = 64, OC = 128,
 * K = 1152); dp_conv_pex_choose picks DIRECT or GRAM by flop count.
 */
#include "layers.h"

#include <string.h>

#include "../base/vec.h"

int dp_conv_shape_init(dp_conv_shape *s, int c, int h, int w, int oc, int kh, int kw,
                       int stride, int pad)
{
    memset(s, 0, sizeof *s);
    if (c < 1 || h < 1 || w < 1 || oc < 1 || kh < 1 || kw < 1 || stride < 1) return -1;
    s->c = c, s->h = h, s->w = w, s->oc = oc, s->kh = kh, s->kw = kw, s->stride = stride;
    if (pad < 0) {
        /* TensorFlow "same": out = ceil(in / stride); the odd padding element goes last. */
        s->oh = (h + stride - 1) / stride;
        s->ow = (w + stride - 1) / stride;
        int th = (s->oh - 1) * stride + kh - h, tw = (s->ow - 1) * stride + kw - w;
        s->pad_t = th > 0 ? th / 2 : 0;
        s->pad_l = tw > 0 ? tw / 2 : 0;
    } else {
        s->pad_t = s->pad_l = pad;
        int eh = h + 2 * pad - kh, ew = w + 2 * pad - kw;
        if (eh < 0 || ew < 0) return -1;
        s->oh = eh / stride + 1;
        s->ow = ew / stride + 1;
    }
    return s->oh >= 1 && s->ow >= 1 ? 0 : -1;
}

size_t dp_conv_patches(const dp_conv_shape *s) { return (size_t)s->oh * (size_t)s->ow; }

size_t dp_conv_k(const dp_conv_shape *s) { return (size_t)s->kh * (size_t)s->kw * (size_t)s->c; }

// ---- im2col / col2im ----------------------------------------------------------------------

/* cols (nb*P, K) <- patches of inp (nb,H,W,C); zeros where the window leaves the input.
 * A kernel row inside the input is KW*C contiguous values (HWC), copied in one go: with
 * C = 1 (the MNIST net's first layer) a copy per tap would cost more than the data. */
static void im2col(double *cols, const double *inp, size_t nb, const dp_conv_shape *s)
{
    size_t C = (size_t)s->c, K = dp_conv_k(s), in_sz = (size_t)s->h * s->w * C;
    size_t run = (size_t)s->kw * C;
    for (size_t n = 0; n < nb; n++) {
        const double *x = inp + n * in_sz;
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++) {
                double *row = cols + ((n * s->oh + oy) * s->ow + ox) * K;
                int ix0 = ox * s->stride - s->pad_l;
                int inside = ix0 >= 0 && ix0 + s->kw <= s->w;
                for (int ky = 0; ky < s->kh; ky++) {
                    int iy = oy * s->stride - s->pad_t + ky;
                    double *dst = row + (size_t)ky * run;
                    if (iy < 0 || iy >= s->h) {
                        memset(dst, 0, run * sizeof *dst);
                    } else if (inside) {
                        memcpy(dst, x + ((size_t)iy * s->w + ix0) * C, run * sizeof *dst);
                    } else {
                        for (int kx = 0; kx < s->kw; kx++) {
                            int ix = ix0 + kx;
                            if (ix < 0 || ix >= s->w)
                                memset(dst + kx * C, 0, C * sizeof *dst);
                            else
                                memcpy(dst + kx * C, x + ((size_t)iy * s->w + ix) * C,
                                       C * sizeof *dst);
                        }
                    }
                }
            }
    }
}

/* dinp (nb,H,W,C) += the patches of cols (nb*P, K) added back where they came from. */
static void col2im(double *dinp, const double *cols, size_t nb, const dp_conv_shape *s)
{
    size_t C = (size_t)s->c, K = dp_conv_k(s), in_sz = (size_t)s->h * s->w * C;
    size_t run = (size_t)s->kw * C;
    for (size_t n = 0; n < nb; n++) {
        double *dx = dinp + n * in_sz;
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++) {
                const double *row = cols + ((n * s->oh + oy) * s->ow + ox) * K;
                int ix0 = ox * s->stride - s->pad_l;
                /* the in-range part of each kernel row is one contiguous run */
                int kx0 = ix0 < 0 ? -ix0 : 0;
                int kx1 = ix0 + s->kw > s->w ? s->w - ix0 : s->kw;
                if (kx1 <= kx0) continue;
                for (int ky = 0; ky < s->kh; ky++) {
                    int iy = oy * s->stride - s->pad_t + ky;
                    if (iy < 0 || iy >= s->h) continue;
                    const double *src = row + (size_t)ky * run + (size_t)kx0 * C;
                    double *d = dx + ((size_t)iy * s->w + ix0 + kx0) * C;
                    size_t len = (size_t)(kx1 - kx0) * C;
                    for (size_t j = 0; j < len; j++) d[j] += src[j];
                }
            }
    }
}

// ---- forward / backward -------------------------------------------------------------------

void dp_conv2d_forward(double *out, double *cols, const double *inp, const double *w,
                       const double *b, size_t B, size_t block, const dp_conv_shape *s)
{
    // inp is (B,H,W,C), w is (OC,K), b is (OC), out is (B,OH,OW,OC), cols (block*P, K)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c;
    for (size_t n0 = 0; n0 < B; n0 += block) {
        size_t nb = B - n0 < block ? B - n0 : block, rows = nb * P;
        double *o = out + n0 * P * OC;
        im2col(cols, inp + n0 * in_sz, nb, s);
        for (size_t r = 0; r < rows; r++) memcpy(o + r * OC, b, OC * sizeof *o);
        dp_gemm(0, 1, rows, OC, K, 1.0, cols, K, w, K, 1.0, o, OC);
    }
}

void dp_conv2d_backward(double *dinp, double *dw, double *db, double *cols,
                        const double *dout, const double *inp, const double *w, size_t B,
                        size_t block, const dp_conv_shape *s)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), w (OC,K); dinp (B,H,W,C), dw (OC,K), db (OC)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c;
    for (size_t n0 = 0; n0 < B; n0 += block) {
        size_t nb = B - n0 < block ? B - n0 : block, rows = nb * P;
        const double *d = dout + n0 * P * OC;
        if (dw) {
            im2col(cols, inp + n0 * in_sz, nb, s);
            dp_gemm(1, 0, OC, K, rows, 1.0, d, OC, cols, K, 1.0, dw, K);
        }
        if (db)
            for (size_t r = 0; r < rows; r++)
                for (size_t o = 0; o < OC; o++) db[o] += d[r * OC + o];
        if (dinp) {
            /* dcols = dout W reuses the im2col buffer: the patches are no longer needed. */
            dp_gemm(0, 0, rows, K, OC, 1.0, d, OC, w, K, 0.0, cols, K);
            col2im(dinp + n0 * in_sz, cols, nb, s);
        }
    }
}

// ---- per-example norms ----------------------------------------------------------------------

size_t dp_conv_pex_ws(const dp_conv_shape *s, int method)
{
    size_t P = dp_conv_patches(s), OC = (size_t)s->oc;
    if (method == DP_CONV_PEX_GRAM) return 2 * P * P + OC;
    return OC * dp_conv_k(s) + OC;
}

int dp_conv_pex_choose(const dp_conv_shape *s)
{
    double P = (double)dp_conv_patches(s), K = (double)dp_conv_k(s), OC = s->oc;
    return P * P * (OC + K) < OC * K * P ? DP_CONV_PEX_GRAM : DP_CONV_PEX_DIRECT;
}

void dp_conv2d_pex_sqnorm(double *sqnorm, double *cols, double *gbuf, const double *dout,
                          const double *inp, size_t B, size_t block, const dp_conv_shape *s,
                          int method)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), sqnorm (B); gbuf per dp_conv_pex_ws
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c;
    double *bsum = gbuf; /* (OC): example i's bias gradient */
    double *g = gbuf + OC;
    for (size_t n0 = 0; n0 < B; n0 += block) {
        size_t nb = B - n0 < block ? B - n0 : block;
        im2col(cols, inp + n0 * in_sz, nb, s);
        for (size_t n = 0; n < nb; n++) {
            const double *d = dout + (n0 + n) * P * OC; /* (P, OC) */
            const double *u = cols + n * P * K;         /* (P, K) */
            double sq;
            if (method == DP_CONV_PEX_GRAM) {
                double *gu = g, *gd = g + P * P;
                dp_gemm(0, 1, P, P, K, 1.0, u, K, u, K, 0.0, gu, P);
                dp_gemm(0, 1, P, P, OC, 1.0, d, OC, d, OC, 0.0, gd, P);
                sq = dp_dot(gu, gd, P * P);
            } else {
                dp_gemm(1, 0, OC, K, P, 1.0, d, OC, u, K, 0.0, g, K);
                sq = dp_dot(g, g, OC * K);
            }
            memset(bsum, 0, OC * sizeof *bsum);
            for (size_t p = 0; p < P; p++)
                for (size_t o = 0; o < OC; o++) bsum[o] += d[p * OC + o];
            sqnorm[n0 + n] += sq + dp_dot(bsum, bsum, OC);
        }
    }
}

void dp_conv2d_pex_grads(double *g, double *cols, const double *dout, const double *inp,
                         size_t B, size_t block, const dp_conv_shape *s)
{
    // dout is (B,OH,OW,OC), inp (B,H,W,C), g (B, OC*K + OC)
    size_t P = dp_conv_patches(s), K = dp_conv_k(s), OC = (size_t)s->oc;
    size_t in_sz = (size_t)s->h * s->w * s->c, row = OC * K + OC;
    for (size_t n0 = 0; n0 < B; n0 += block) {
        size_t nb = B - n0 < block ? B - n0 : block;
        im2col(cols, inp + n0 * in_sz, nb, s);
        for (size_t n = 0; n < nb; n++) {
            const double *d = dout + (n0 + n) * P * OC;
            double *gi = g + (n0 + n) * row, *bi = gi + OC * K;
            dp_gemm(1, 0, OC, K, P, 1.0, d, OC, cols + n * P * K, K, 0.0, gi, K);
            memset(bi, 0, OC * sizeof *bi);
            for (size_t p = 0; p < P; p++)
                for (size_t o = 0; o < OC; o++) bi[o] += d[p * OC + o];
        }
    }
}

// ---- reference ------------------------------------------------------------------------------

void dp_conv2d_forward_naive(double *out, const double *inp, const double *w,
                             const double *b, size_t B, const dp_conv_shape *s)
{
    // inp is (B,H,W,C), w is (OC,KH,KW,C), b (OC), out (B,OH,OW,OC)
    size_t C = (size_t)s->c, in_sz = (size_t)s->h * s->w * C;
    for (size_t n = 0; n < B; n++)
        for (int oy = 0; oy < s->oh; oy++)
            for (int ox = 0; ox < s->ow; ox++)
                for (int o = 0; o < s->oc; o++) {
                    double acc = b[o];
                    for (int ky = 0; ky < s->kh; ky++)
                        for (int kx = 0; kx < s->kw; kx++) {
                            int iy = oy * s->stride - s->pad_t + ky;
                            int ix = ox * s->stride - s->pad_l + kx;
                            if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w) continue;
                            for (size_t c = 0; c < C; c++)
                                acc += w[(((size_t)o * s->kh + ky) * s->kw + kx) * C + c] *
                                       inp[n * in_sz + ((size_t)iy * s->w + ix) * C + c];
                        }
                    out[((n * s->oh + oy) * s->ow + ox) * s->oc + o] = acc;
                }
}
