/* train_step.c: one step of the first-order loop (train_common.c): the direction from a
 * batch's gradient sum (clipping, noise, weight decay, Laplacian smoothing) and the
 * update (plain step or Adam).
 *
 * Sources: DP-SGD of Abadi et al. 2016 (Alg. 1) as restated in Lecture15 Alg. 4 and DPlis
 * Alg. 1 (clip each per-example gradient to C, Gaussian noise on the sum, divide by the
 * lot size); DP-LSSGD eq. 4 and Alg. 1 (the privatized direction smoothed by A_s^{-1});
 * Adam of Kingma & Ba 2014 (Alg. 1); DPlis Alg. 2 (perturbation std R eta sigma C / L).
 * The batch-mean mode and the weight decay after smoothing are DP-LSSGD's released code
 * (LS_SGD.py at BaoWangMath/DP-LSSGD c4b7708; shared/reference/authors-code.md).
 *
 * The direction, per clip mode (b the configured batch size, D the divisor below):
 *   per example  d = (sum_i clip_C(g_i) + N(0, sigma^2 C^2 I)) / D
 *   batch mean   d = clip_C per tensor (sum_i g_i / D) + N(0, (sigma C / b)^2 I)
 * then d += mu w (l2 in the gradient), d <- A_s^{-1} d (smoothing s > 0), d += mu w (l2
 * after smoothing), and w -= eta d or Adam's step on d.
 *
 * Choices made where the sources are silent:
 *   - the divisor D is the configured b for every algorithm and sampling (for Poisson the
 *     expected size, so an empty batch is a noise-only step; sgd and dp_sgd with sigma =
 *     0, C = inf are bit-identical, tested); a shuffled pass's kept partial batch is the
 *     one exception: D is its real size, as a mean over the batch (PyTorch's
 *     CrossEntropyLoss in DP-LSSGD's code) gives.
 *   - the l2 term mu w is neither clipped nor noised: it does not depend on the data, so it
 *     costs no privacy (DP-LSSGD §4.1 trains an l2-regularized model without saying how).
 *     By default it is part of the smoothed direction (its f_i are the regularized
 *     per-example objectives); the released code adds it after smoothing instead.
 *   - noise N(0, sigma^2 C^2 I) on the sum, as in DPlis Alg. 1 (add/remove adjacency);
 *     Lecture15 Alg. 4 writes 4 sigma^2 C^2 (replace-one, sensitivity 2C). The accountant
 *     must use the same convention. Batch-mean mode draws its noise on the mean with the
 *     std sigma C / b, the same noise per-example clipping puts on the mean of a full
 *     batch, from the same stream (one draw per parameter per step in both modes); a kept
 *     partial batch gets that std too (the released code's nu is fixed).
 *   - batch-mean clipping scales a tensor by C / ||tensor|| when its norm exceeds C (the
 *     released code divides by max(1, ||tensor|| / C): equal up to rounding); C = inf
 *     clips nothing.
 *   - smoothing one parameter tensor at a time (flattened row-major), as DP-LSSGD's
 *     TensorFlow and PyTorch code do for multi-layer models; a linear model is one vector
 *     of k (d+1) parameters (W | b row by row) unless smoothing_layout per_tensor asks for
 *     W (k x d) and b (k) apart, as the released code's nn.Linear has them.
 *   - Adam: bias-corrected moments m_t / (1 - beta1^t), v_t / (1 - beta2^t) and eps added
 *     to sqrt(v_hat); DP-Adam is Adam on the DP-SGD direction (TF Privacy's
 *     DPAdamOptimizer), DP-LSAdam on the smoothed one (DP-LSSGD §4.2). The l2 term is part
 *     of the direction, wherever it is placed.
 *
 * Memory: every buffer is allocated by dp_train_step_plan; a step allocates nothing.
 */
#include "algorithms/train_common_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/base/vec.h"

// ---- the pieces of a direction ----------------------------------------------------------

static int contiguous(const dp_tensor_view *v)
{
    return v->rows == 1 || v->stride == v->cols;
}

/* Each tensor of d scaled by min(1, C / its norm); C = inf leaves d alone. */
static void clip_tensors(const dp_train_ops *ops, double *d, double C)
{
    if (!isfinite(C)) return;
    for (size_t t = 0; t < ops->n_tensors; t++) {
        const dp_tensor_view *v = &ops->tensors[t];
        double ss = 0.0;
        for (size_t r = 0; r < v->rows; r++) {
            const double *p = d + v->off + r * v->stride;
            for (size_t j = 0; j < v->cols; j++) ss += p[j] * p[j];
        }
        double nrm = sqrt(ss);
        if (!(nrm > C)) continue;
        double sc = C / nrm;
        for (size_t r = 0; r < v->rows; r++) {
            double *p = d + v->off + r * v->stride;
            for (size_t j = 0; j < v->cols; j++) p[j] *= sc;
        }
    }
}

/* d <- A_s^{-1} d: the whole vector with one smoother, or tensor by tensor (a strided
 * tensor gathered into s->run in run order, smoothed there and put back). */
static void smooth(dp_train_step *s, double *d)
{
    const dp_train_ops *ops = s->ops;
    if (!ops->smooth_per_tensor) {
        if (s->n_smooth) dp_smoother_execute(&s->smooth[0], d);
        return;
    }
    for (size_t t = 0; t < s->n_smooth; t++) {
        const dp_tensor_view *v = &ops->tensors[t];
        if (contiguous(v)) {
            dp_smoother_execute(&s->smooth[t], d + v->off);
            continue;
        }
        for (size_t r = 0; r < v->rows; r++)
            memcpy(s->run + r * v->cols, d + v->off + r * v->stride, v->cols * sizeof *d);
        dp_smoother_execute(&s->smooth[t], s->run);
        for (size_t r = 0; r < v->rows; r++)
            memcpy(d + v->off + r * v->stride, s->run + r * v->cols, v->cols * sizeof *d);
    }
}

// ---- plan / execute ---------------------------------------------------------------------

/* One smoother per tensor (or one for the whole vector), and the gather buffer of the
 * largest strided tensor. */
static int plan_smoothing(dp_train_step *s, dp_err *err)
{
    const dp_train_ops *ops = s->ops;
    size_t n = ops->smooth_per_tensor ? ops->n_tensors : 1, run = 0;
    s->smooth = calloc(n, sizeof *s->smooth);
    if (!s->smooth) return dp_err_set(err, DP_ENOMEM, "out of memory for %zu smoothers", n);
    for (size_t t = 0; t < n; t++) {
        size_t len = ops->n_params;
        if (ops->smooth_per_tensor) {
            const dp_tensor_view *v = &ops->tensors[t];
            len = v->rows * v->cols;
            if (!contiguous(v) && len > run) run = len;
        }
        int rc = dp_smoother_plan(&s->smooth[t], len, s->cfg->smoothing, err);
        if (rc) return rc;
        s->n_smooth++;
    }
    if (run && !(s->run = malloc(run * sizeof *s->run)))
        return dp_err_set(err, DP_ENOMEM, "out of memory for a smoothing buffer of %zu", run);
    return DP_OK;
}

int dp_train_step_plan(dp_train_step *s, const dp_train_cfg *cfg, const dp_train_ops *ops,
                       double noise_std, dp_err *err)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->ops = ops;
    s->noise_std = noise_std;
    int dp = cfg->algorithm == DP_ALGO_DP_SGD;
    s->mean_clip = dp && cfg->clip_mode == DP_CLIP_BATCH_MEAN_PER_TENSOR;
    s->clip = dp && !s->mean_clip ? cfg->clip : INFINITY;
    /* Per-example mode with C = inf has no noise (validated) and must stay sgd bit for
     * bit: its plain gradient path gives no norms. */
    s->track = dp && (s->mean_clip || isfinite(cfg->clip));
    /* R = 0 or K = 0 (or no noise, so sigma_smooth = 0) is DP-SGD exactly: the plain
     * gradient path, not K identical copies averaged. */
    s->dplis = cfg->dplis_samples > 0 &&
               (cfg->dplis_sigma_fixed > 0.0 ||
                (dp && cfg->dplis_radius > 0.0 && noise_std > 0.0));
    size_t P = ops->n_params, n_buf = cfg->update == DP_UPDATE_ADAM ? 4 : 2;
    int rc;
    if (s->dplis && !ops->smoothed_grad_sum) {
        rc = dp_err_set(err, DP_EINVAL, "this model has no DPlis gradient");
        goto fail;
    }
    s->mem = calloc(n_buf * P, sizeof *s->mem);
    if (!s->mem) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory for training buffers (%zu doubles)",
                        n_buf * P);
        goto fail;
    }
    s->g = s->mem;
    s->w = ops->w;
    s->w_prev = s->mem + P;
    if (cfg->update == DP_UPDATE_ADAM) {
        s->adam_m = s->mem + 2 * P;
        s->adam_v = s->mem + 3 * P;
    }
    if (cfg->smoothing > 0.0 && (rc = plan_smoothing(s, err)) != DP_OK) goto fail;
    if (ops->set_w && ops->gf && ops->gf_ranges && dp && noise_std > 0.0) {
        s->z_threads = dp_threads() > 1 ? dp_threads() : 1;
        s->zbuf = malloc((size_t)s->z_threads * DP_NOISE_CHUNK * sizeof *s->zbuf);
        if (!s->zbuf) {
            rc = dp_err_set(err, DP_ENOMEM, "out of memory for the noise's chunks");
            goto fail;
        }
    }
    dp_rng_init(&s->perturb, cfg->seed, DP_STREAM_ALGO);
    return DP_OK;

fail:
    dp_train_step_destroy(s);
    return rc;
}

/* The common step (per-example clipping, no smoothing, plain update) over parameters
 * [lo, hi): the new weights in one pass (and w_prev = w in it, unless they go to the
 * other buffer), the direction computed with the same operations as the general path of
 * dp_train_step_execute in the same order (the same bits). Three passes took 1.13 ms of
 * an 8.8 ms DP-SGD step of mlp_784_512_128_10 on MNIST, one 0.85 ms; run on each chunk of
 * the noise as it is drawn, on the noise's threads, while the chunk is in cache
 * (dp_noise_add_gaussian_then), it costs a fraction of that. It also does, in the same
 * pass, two things that were passes of their own over all P parameters on one thread: it
 * zeroes the gradient for the next step (nothing reads the direction after the update)
 * and checks that each new weight is finite.
 *
 * Why two weight buffers when the model can move (ops->set_w): the copy w_prev = w was a
 * quarter of the update's time (a copy per chunk, then its write-back), 2% of that MLP
 * step; writing the new weights into the other buffer and moving the model there leaves
 * the old ones in place for an undo, at the cost of nothing but the pointer. */
/* The most ranges of g that the step skips (ops->gf_ranges): one per dense layer split by
 * rows; a model with more skips only these (the others are read, +0.0, as before). */
#define STEP_ZERO_RANGES 32

typedef struct plain_update {
    double *w, *w_prev, *d;
    double *w_new; /* or NULL: the new weights go here, w and w_prev are not written */
    size_t zero[2 * STEP_ZERO_RANGES]; /* with the noise apart: d is +0.0 there */
    size_t n_zero;
    float *gf; /* or NULL: the float part of the gradient sum (ops->gf), zeroed here */
    float *wf; /* or NULL: receives the new weights rounded to float (ops->wf) */
    double b, mu, eta;
    atomic_int *nonfinite;
} plain_update;

/* dp_sgd_update (base/vec.h) on the range: s / b + mu w is both placements of the l2
 * term, d[j] / b + mu w[j] (in the gradient) and (d[j] / b) + mu w[j] (after), in the
 * operations of the general path. With the float shortcuts (ops->gf, ops->wf) the sum s
 * is the noised d[j] plus gf[j]: the same bits as the unsplit sum, which added gf[j] into
 * the zero gradient before the noise (0 + x + z = z + x for floating-point x and z,
 * signed zeros included; the comparison runs' records are identical), and the new
 * weight is rounded for the next forward pass while it is in cache. */
static void plain_update_range(void *ctx, size_t lo, size_t hi)
{
    const plain_update *u = ctx;
    float *gf = u->gf ? u->gf + lo : NULL, *wf = u->wf ? u->wf + lo : NULL;
    int bad = u->w_new ? dp_sgd_update_to(u->w_new + lo, u->w + lo, u->d + lo, gf, wf, u->b,
                                          u->mu, u->eta, hi - lo)
                       : dp_sgd_update(u->w + lo, u->w_prev + lo, u->d + lo, gf, wf, u->b,
                                       u->mu, u->eta, hi - lo);
    if (bad) atomic_store_explicit(u->nonfinite, 1, memory_order_relaxed);
}

/* plain_update_range with the chunk's noise in z rather than in d, and d skipped where
 * the model left it +0.0 (dp_sgd_update_noised_ranges): the same numbers. Why: d was
 * read by the noise and written back twice (noised, then zeroed) on every parameter, a
 * third of the memory traffic of the noise and update; the dense layers' weights, nearly
 * all the parameters, never have anything in d. */
static void noised_update_range(void *ctx, size_t lo, size_t hi, const double *z)
{
    const plain_update *u = ctx;
    if (dp_sgd_update_noised_ranges(u->w_new, u->w, u->d, z, u->gf, u->wf, u->b, u->mu,
                                    u->eta, lo, hi, u->zero, u->n_zero))
        atomic_store_explicit(u->nonfinite, 1, memory_order_relaxed);
}

int dp_train_step_finite(dp_train_step *s)
{
    int state = s->w_state;
    return state == W_UNKNOWN ? dp_all_finite(s->w, s->ops->n_params) : state == W_FINITE;
}

void dp_train_step_undo(dp_train_step *s)
{
    if (!s->w_kept) memcpy(s->w, s->w_prev, s->ops->n_params * sizeof *s->w);
}

double *dp_train_step_scratch(dp_train_step *s)
{
    s->g_zero = 0;
    return s->g;
}

void dp_train_step_execute(dp_train_step *s, const size_t *batch, size_t nb, double eta,
                           dp_noise *noise)
{
    const dp_train_ops *ops = s->ops;
    const dp_train_cfg *c = s->cfg;
    size_t P = ops->n_params;
    double *track = s->track ? &s->max_sqnorm : NULL;
    s->max_sqnorm = 0.0;
    if (!s->g_zero) memset(s->g, 0, P * sizeof *s->g);
    s->g_zero = 0;
    s->w_state = W_UNKNOWN;
    s->w_kept = 0;
    /* the plain step's update, run on the noise's chunks below */
    int plain = !s->mean_clip && s->n_smooth == 0 && c->update != DP_UPDATE_ADAM;
    float *gf = plain && !s->dplis ? ops->gf : NULL;
    if (s->dplis) {
        /* DPlis Alg. 2: sigma_smooth = R (eta / L) sigma C, L the expected batch size;
         * App. D's student: a fixed sigma_smooth */
        double sigma_s = c->dplis_sigma_fixed > 0.0
                             ? c->dplis_sigma_fixed
                             : c->dplis_radius * eta * s->noise_std / (double)c->batch_size;
        ops->smoothed_grad_sum(ops->ctx, batch, nb, s->clip, c->dplis_samples, sigma_s,
                               &s->perturb, s->g, track);
    } else {
        ops->grad_sum(ops->ctx, batch, nb, s->clip, s->g, gf, track);
    }
    if (ops->wf_fresh) ops->wf_fresh(ops->ctx, 0); /* the weights change below */
    int keep = c->partial_batch == DP_PARTIAL_KEEP && c->sampling == DP_SAMPLING_SHUFFLE;
    int l2_in = c->l2_placement == DP_L2_IN_GRADIENT;
    double b = keep ? (double)nb : (double)c->batch_size, mu = ops->l2;
    double *w = s->w, *d = s->g;
    /* The step's noise on as many threads as the BLAS uses; its numbers do not depend on
     * how many (rng.h). */
    if (plain) {
        atomic_int nonfinite = 0;
        plain_update u = {.w = w, .w_prev = s->w_prev, .d = d, .gf = gf, .wf = ops->wf,
                          .b = b, .mu = mu, .eta = eta, .nonfinite = &nonfinite};
        if (ops->set_w) u.w_new = s->w_prev;
        int apart = 0; /* the noise apart from d (s->zbuf), where the source can */
        if (s->zbuf && gf) {
            u.n_zero = ops->gf_ranges(ops->ctx, nb, u.zero, STEP_ZERO_RANGES);
            int threads = dp_threads() < s->z_threads ? dp_threads() : s->z_threads;
            apart = dp_noise_gaussian_chunks(noise, P, s->noise_std, threads, s->zbuf,
                                             noised_update_range, &u);
        }
        if (!apart && s->noise_std > 0.0)
            dp_noise_add_gaussian_then(noise, d, P, s->noise_std, dp_threads(),
                                       plain_update_range, &u);
        else if (!apart)
            plain_update_range(&u, 0, P);
        s->g_zero = 1;
        int finite = !atomic_load(&nonfinite);
        s->w_state = finite ? W_FINITE : W_NONFINITE;
        if (u.w_new && finite) { /* the model moves to the new weights */
            s->w_prev = w;
            s->w = u.w_new;
            ops->set_w(ops->ctx, s->w);
        }
        s->w_kept = u.w_new && !finite;
        /* a non-finite step is undone from w_prev, or was never moved to (w_kept);
         * either way without wf */
        if (ops->wf && finite) ops->wf_fresh(ops->ctx, 1);
        s->t++;
        return;
    }
    if (!s->mean_clip && s->noise_std > 0.0)
        dp_noise_add_gaussian(noise, s->g, P, s->noise_std, dp_threads());
    memcpy(s->w_prev, w, P * sizeof *w);
    if (s->mean_clip) {
        for (size_t j = 0; j < P; j++) d[j] /= b;
        clip_tensors(ops, d, c->clip);
        if (s->noise_std > 0.0)
            dp_noise_add_gaussian(noise, d, P, s->noise_std / (double)c->batch_size,
                                  dp_threads());
        if (l2_in)
            for (size_t j = 0; j < P; j++) d[j] += mu * w[j];
    } else if (l2_in) {
        for (size_t j = 0; j < P; j++) d[j] = d[j] / b + mu * w[j];
    } else {
        for (size_t j = 0; j < P; j++) d[j] /= b;
    }
    smooth(s, d);
    if (!l2_in)
        for (size_t j = 0; j < P; j++) d[j] += mu * w[j];
    s->t++;
    if (c->update == DP_UPDATE_ADAM) {
        double b1 = c->adam_beta1, b2 = c->adam_beta2;
        double c1 = 1.0 - pow(b1, (double)s->t), c2 = 1.0 - pow(b2, (double)s->t);
        double *m = s->adam_m, *v = s->adam_v;
        for (size_t j = 0; j < P; j++) {
            m[j] = b1 * m[j] + (1.0 - b1) * d[j];
            v[j] = b2 * v[j] + (1.0 - b2) * d[j] * d[j];
            w[j] -= eta * (m[j] / c1) / (sqrt(v[j] / c2) + c->adam_eps);
        }
    } else {
        for (size_t j = 0; j < P; j++) w[j] -= eta * d[j];
    }
}

void dp_train_step_destroy(dp_train_step *s)
{
    if (!s) return;
    const dp_train_ops *ops = s->ops;
    if (ops && s->w && s->w != ops->w) { /* the weights home before their buffer goes */
        memcpy(ops->w, s->w, ops->n_params * sizeof *s->w);
        ops->set_w(ops->ctx, ops->w);
    }
    for (size_t t = 0; t < s->n_smooth; t++) dp_smoother_destroy(&s->smooth[t]);
    free(s->smooth);
    free(s->run);
    free(s->zbuf);
    free(s->mem);
    memset(s, 0, sizeof *s);
}
