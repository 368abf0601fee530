/* model_run.c: running a built model over a chunk of examples in its lanes: the forward
 * pass, the error pass with per-example norms, the weight gradients, and on top of them
 * the batch loss gradient and the evaluation.
 *
 * Sources: the llm.c layout (model.c); the per-layer kernels of layers.h; the lanes of
 * model.h and model_int.h.
 *
 * Lanes on threads. A run is a few phases (model_int.h) done by the caller's thread and
 * the model's helper threads (started by its first run, kept until dp_model_destroy),
 * which meet at a barrier between phases, so a DP-SGD step (weights, forward and error
 * pass, clip factors, gradients) is one wake-up of a helper and three barriers, a few
 * microseconds each. Lanes go to threads round robin; a lane's work is the same calls
 * whichever thread runs it, and the BLAS is single-threaded inside every lane, so no
 * number depends on the thread count. A chunk of fewer than DP_LANE_MIN_WORK
 * example-parameters (the small test and sweep models) runs on the caller's thread: a
 * helper would cost more than the work.
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/vec.h"
#include "model.h"
#include "model_int.h"

/* B * n_params below which a run stays on one thread: about 2^20 multiply-adds per pass,
 * 10-20 us of single-precision GEMM per lane, what a thread costs to start. */
#define DP_LANE_MIN_WORK ((double)(1 << 20))

// ---- the pieces of a phase ----------------------------------------------------------------

dp_conv_ws *dp_model_lane_ws(dp_layer *l, int j, size_t lo)
{
    dp_conv_ws *ws = &l->conv_ws[j];
    if (l->conv_keep) {
        size_t P = dp_conv_patches(&l->conv);
        ws->cols = l->conv_cols + lo * P * dp_conv_k(&l->conv);
        ws->d = l->conv_d + lo * P * (size_t)l->conv.oc;
    }
    return ws;
}

void dp_model_set_input(dp_model *m, const double *x)
{
    m->x = m->input_mode == 0 ? x : m->act[0];
}

void dp_model_lane_weights(dp_model *m, int j)
{
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind != DP_LAYER_DENSE) continue;
        size_t I = l->in_size, o0 = dp_lane_lo(l->out_size, m->lanes, j);
        size_t o1 = dp_lane_lo(l->out_size, m->lanes, j + 1);
        dp_to_float(l->wf + o0 * I, l->w + o0 * I, (o1 - o0) * I);
    }
}

void dp_model_lane_forward(dp_model *m, int j, const double *x, size_t B)
{
    size_t in = m->in_size, lo = dp_lane_lo(B, m->lanes, j);
    size_t nb = dp_lane_lo(B, m->lanes, j + 1) - lo;
    if (nb == 0) return;
    if (m->input_mode == 1) {
        memcpy(m->act[0] + lo * in, x + lo * in, nb * in * sizeof *x);
    } else if (m->input_mode == 2) {
        /* CHW -> HWC, example by example */
        size_t C = (size_t)m->in_c, HW = (size_t)m->in_h * m->in_w;
        for (size_t n = lo; n < lo + nb; n++) {
            const double *src = x + n * in;
            double *dst = m->act[0] + n * in;
            for (size_t c = 0; c < C; c++)
                for (size_t p = 0; p < HW; p++) dst[p * C + c] = src[c * HW + p];
        }
    }
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        const double *inp = dp_model_in(m, l) + lo * l->in_size;
        double *out = m->act[l->out_buf] + lo * l->out_size;
        switch (l->spec.kind) {
        case DP_LAYER_DENSE: {
            float *af = l->af + lo * l->in_size;
            dp_dense_input(af, l->asq + lo, inp, nb, l->in_size);
            dp_dense_forward(out, m->lane_f[j], af, l->wf, l->b, nb, l->in_size, l->out_size);
            break;
        }
        case DP_LAYER_CONV:
            dp_conv2d_forward(out, dp_model_lane_ws(l, j, lo), inp, l->w, l->b, nb, &l->conv);
            break;
        case DP_LAYER_MAXPOOL:
            dp_maxpool_forward(out, l->argmax + lo * l->out_size, inp, nb, &l->pool);
            break;
        case DP_LAYER_ACT: dp_act_forward(out, out, nb * l->out_size, &l->spec.act); break;
        case DP_LAYER_FLATTEN: break;
        }
    }
}

double dp_model_lane_backward(dp_model *m, int j, const int *y, size_t B, double *sq)
{
    size_t lo = dp_lane_lo(B, m->lanes, j), nb = dp_lane_lo(B, m->lanes, j + 1) - lo;
    if (nb == 0) return 0.0;
    const dp_layer *top = &m->layers[m->n_layers - 1];
    const double *logits = dp_model_logits(m) + lo * top->out_size;
    double loss = dp_softmax_ce_forward(NULL, logits, y + lo, nb, m->n_classes);
    for (size_t b = 1; b < m->n_bufs; b++)
        if (!m->pool_zeroes[b])
            memset(m->dact[b] + lo * m->buf_size[b], 0, nb * m->buf_size[b] * sizeof *m->dact[b]);
    dp_softmax_ce_backward(m->dact[top->out_buf] + lo * top->out_size, logits, y + lo, nb,
                           m->n_classes);
    for (size_t i = m->n_layers; i-- > 0;) {
        dp_layer *l = &m->layers[i];
        const double *inp = dp_model_in(m, l) + lo * l->in_size;
        double *dout = m->dact[l->out_buf] + lo * l->out_size;
        double *dinp = l->in_buf ? m->dact[l->in_buf] + lo * l->in_size : NULL;
        double *s = sq ? sq + lo : NULL;
        switch (l->spec.kind) {
        case DP_LAYER_DENSE:
            if (s) dp_dense_pex_sqnorm(s, dout, l->asq + lo, nb, l->out_size);
            if (dinp)
                dp_dense_backward_input(dinp, m->lane_f[j], dout, l->wf, nb, l->in_size,
                                        l->out_size);
            break;
        case DP_LAYER_CONV: {
            dp_conv_ws *ws = dp_model_lane_ws(l, j, lo);
            if (s && l->pex_method == DP_CONV_PEX_STORED) {
                size_t row = l->n_w + l->n_b;
                dp_conv2d_pex_grads(l->pex_g + lo * row, s, ws, dout, inp, nb, &l->conv,
                                    l->conv_keep);
            } else if (s) {
                dp_conv2d_pex_sqnorm(s, ws, dout, inp, nb, &l->conv, l->pex_method,
                                     l->conv_keep);
            }
            if (dinp)
                dp_conv2d_backward(dinp, NULL, NULL, ws, dout, inp, l->w, nb, &l->conv,
                                   l->conv_keep);
            break;
        }
        case DP_LAYER_MAXPOOL:
            /* example by example, each example's errors zeroed just before the scatter
             * (not with the other buffers above): they are then written in cache */
            if (dinp)
                for (size_t k = 0; k < nb; k++) {
                    memset(dinp + k * l->in_size, 0, l->in_size * sizeof *dinp);
                    dp_maxpool_backward(dinp + k * l->in_size, dout + k * l->out_size,
                                        l->argmax + (lo + k) * l->out_size, 1, &l->pool);
                }
            break;
        case DP_LAYER_ACT:
            /* in place: the error of the output becomes the error of the input */
            if (l->in_buf)
                dp_act_backward(dout, dout, m->act[l->out_buf] + lo * l->out_size,
                                nb * l->out_size, &l->spec.act);
            break;
        case DP_LAYER_FLATTEN: break;
        }
    }
    return loss;
}

void dp_model_lane_grads(dp_model *m, int j, size_t B, double *grad, const double *c)
{
    size_t lo = dp_lane_lo(B, m->lanes, j), nb = dp_lane_lo(B, m->lanes, j + 1) - lo;
    double *lg = m->lgrad ? m->lgrad + (size_t)j * m->n_lgrad : NULL;
    if (lg && nb) memset(lg, 0, m->n_lgrad * sizeof *lg);
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind == DP_LAYER_DENSE) {
            size_t O = l->out_size;
            dp_dense_backward_weights(grad + l->w_off, grad + l->b_off, m->lane_f[j],
                                      m->dact[l->out_buf], c, l->af, B, l->in_size, O,
                                      dp_lane_lo(O, m->lanes, j),
                                      dp_lane_lo(O, m->lanes, j + 1), l->grad_rows);
            continue;
        }
        if (l->spec.kind != DP_LAYER_CONV || nb == 0) continue;
        double *dw = lg + l->lg_off, *db = dw + l->n_w;
        if (c && l->pex_method == DP_CONV_PEX_STORED) {
            /* [dw; db] += c^T G: one GEMV over the stored gradients */
            size_t row = l->n_w + l->n_b;
            dp_gemv_t(dw, l->pex_g + lo * row, nb, row, row, c + lo);
            continue;
        }
        const double *in = dp_model_in(m, l) + lo * l->in_size;
        double *dout = m->dact[l->out_buf] + lo * l->out_size;
        if (c)
            for (size_t k = 0; k < nb; k++)
                if (c[lo + k] != 1.0) dp_scal(dout + k * l->out_size, c[lo + k], l->out_size);
        dp_conv2d_backward(NULL, dw, db, dp_model_lane_ws(l, j, lo), dout, in, l->w, nb, &l->conv,
                           l->conv_keep);
    }
}

void dp_model_lanes_add(dp_model *m, size_t B, double *grad)
{
    for (int j = 0; m->lgrad && j < m->lanes; j++) {
        if (dp_lane_lo(B, m->lanes, j + 1) == dp_lane_lo(B, m->lanes, j)) continue;
        const double *lg = m->lgrad + (size_t)j * m->n_lgrad;
        for (size_t i = 0; i < m->n_layers; i++) {
            const dp_layer *l = &m->layers[i];
            if (l->spec.kind == DP_LAYER_CONV)
                dp_axpy(grad + l->w_off, 1.0, lg + l->lg_off, l->n_w + l->n_b);
        }
    }
}

// ---- lanes on threads -----------------------------------------------------------------------

/* A barrier among the threads of one run. */
typedef struct lane_sync {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n, waiting;
    unsigned gen;
} lane_sync;

static void sync_wait(lane_sync *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned gen = s->gen;
    if (++s->waiting == s->n) {
        s->waiting = 0;
        s->gen++;
        pthread_cond_broadcast(&s->cv);
    } else {
        while (gen == s->gen) pthread_cond_wait(&s->cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
}

/* One thread's share of a run. */
typedef struct lane_thread {
    dp_lane_fn fn;
    void *ctx;
    int phases, lanes;
    unsigned mask;   /* the lanes this thread runs, bit j for lane j */
    lane_sync *sync; /* NULL: the only thread */
} lane_thread;

static void lane_worker(const lane_thread *t)
{
    for (int p = 0; p < t->phases; p++) {
        for (int j = 0; j < t->lanes; j++)
            if (t->mask >> j & 1u) t->fn(t->ctx, p, j);
        if (t->sync && p + 1 < t->phases) sync_wait(t->sync);
    }
}

/* The model's helper threads, started by its first run on several threads and kept
 * until dp_model_destroy: waking a waiting thread costs about 3 us on this project's
 * machines, starting one 33 us, which was 15% of a DP-SGD step of linear_784_10. An
 * idle helper waits on a condition variable, never spins, so it takes no time from the
 * noise's threads between runs. */
typedef struct pool_arg {
    struct dp_lane_pool *pool;
    int t;        /* helper t */
    unsigned gen; /* the runs posted before it started */
} pool_arg;

struct dp_lane_pool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t tid[DP_MODEL_LANES];
    pool_arg arg[DP_MODEL_LANES];
    int n;                     /* helpers running */
    unsigned gen;              /* runs posted */
    int busy;                  /* helpers still in the current run */
    int quit;
    pid_t pid;                 /* the process whose threads these are */
    const lane_thread *work;   /* the current run: helper t takes work[t + 1] */
};

static void *pool_main(void *arg)
{
    const pool_arg *a = arg;
    struct dp_lane_pool *p = a->pool;
    int t = a->t;
    pthread_mutex_lock(&p->mu);
    unsigned seen = a->gen;
    for (;;) {
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        const lane_thread *w = &p->work[t + 1];
        pthread_mutex_unlock(&p->mu);
        lane_worker(w);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}
/* m's pool with up to want helpers started (fewer when a thread cannot start), or NULL
 * when out of memory. A pool inherited through fork() has no threads in the child and is
 * left alone (dperm builds its models after forking). */
static struct dp_lane_pool *pool_get(dp_model *m, int want)
{
    struct dp_lane_pool *p = m->pool;
    if (p && p->pid != getpid()) p = m->pool = NULL;
    if (!p) {
        if (!(p = calloc(1, sizeof *p))) return NULL;
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->go, NULL);
        pthread_cond_init(&p->done, NULL);
        p->pid = getpid();
        m->pool = p;
    }
    while (p->n < want) {
        p->arg[p->n] = (pool_arg){p, p->n, p->gen};
        if (pthread_create(&p->tid[p->n], NULL, pool_main, &p->arg[p->n]) != 0) break;
        p->n++;
    }
    return p;
}

void dp_model_lanes_stop(dp_model *m)
{
    struct dp_lane_pool *p = m->pool;
    m->pool = NULL;
    if (!p || p->pid != getpid()) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (int t = 0; t < p->n; t++) pthread_join(p->tid[t], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->go);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

void dp_model_run_lanes(dp_model *m, size_t B, int phases, dp_lane_fn fn, void *ctx)
{
    int L = m->lanes, blas = dp_blas_threads(), T = blas < L ? blas : L;
    if ((double)B * (double)m->n_params < DP_LANE_MIN_WORK) T = 1;
    struct dp_lane_pool *p = T > 1 ? pool_get(m, T - 1) : NULL;
    int helpers = p ? p->n : 0, U = 1 + (helpers < T - 1 ? helpers : T - 1);
    lane_thread th[DP_MODEL_LANES];
    lane_sync sync = {.n = U};
    if (U > 1) {
        pthread_mutex_init(&sync.mu, NULL);
        pthread_cond_init(&sync.cv, NULL);
    }
    for (int t = 0; t <= helpers; t++) { /* helpers past U sit this run out */
        th[t] = (lane_thread){fn, ctx, t < U ? phases : 0, L, 0, U > 1 ? &sync : NULL};
        for (int j = t; t < U && j < L; j += U) th[t].mask |= 1u << j;
    }
    if (blas > 1) dp_blas_set_threads(1);
    if (U > 1) {
        pthread_mutex_lock(&p->mu);
        p->work = th;
        p->busy = helpers;
        p->gen++;
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
    }
    lane_worker(&th[0]);
    if (U > 1) {
        pthread_mutex_lock(&p->mu);
        while (p->busy > 0) pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
        pthread_cond_destroy(&sync.cv);
        pthread_mutex_destroy(&sync.mu);
    }
    if (blas > 1) dp_blas_set_threads(blas);
}

// ---- chunks -----------------------------------------------------------------------------------

/* The plain passes over one chunk: weights (when convert), forward (when x), loss and
 * error pass (when y), gradients (when grad). */
typedef struct chunk_job {
    dp_model *m;
    size_t B;
    int convert;
    const double *x;
    const int *y;
    double *grad;
    double loss[DP_MODEL_LANES];
} chunk_job;

enum { PH_WEIGHTS, PH_PASS, PH_GRADS, PH_COUNT };

static void chunk_phase(void *ctx, int phase, int j)
{
    chunk_job *job = ctx;
    switch (phase) {
    case PH_WEIGHTS:
        if (job->convert) dp_model_lane_weights(job->m, j);
        break;
    case PH_PASS:
        if (job->x) dp_model_lane_forward(job->m, j, job->x, job->B);
        if (job->y) job->loss[j] = dp_model_lane_backward(job->m, j, job->y, job->B, NULL);
        break;
    case PH_GRADS:
        if (job->grad) dp_model_lane_grads(job->m, j, job->B, job->grad, NULL);
        break;
    }
}

/* Run job's passes; returns the lanes' losses added in lane order. */
static double run_chunk(chunk_job *job)
{
    dp_model *m = job->m;
    memset(job->loss, 0, sizeof job->loss);
    if (job->x) dp_model_set_input(m, job->x);
    dp_model_run_lanes(m, job->B, job->grad ? PH_COUNT : PH_GRADS, chunk_phase, job);
    if (job->grad) dp_model_lanes_add(m, job->B, job->grad);
    double loss = 0.0;
    for (int j = 0; j < m->lanes; j++) loss += job->loss[j];
    return loss;
}

/* The weights do not change during one call, so they are rounded for its first chunk. */
double dp_model_loss_grad(dp_model *m, const double *x, const int *y, size_t B,
                          double *grad_sum)
{
    double total = 0.0;
    for (size_t n0 = 0; n0 < B; n0 += m->max_batch) {
        size_t nb = B - n0 < m->max_batch ? B - n0 : m->max_batch;
        total += run_chunk(&(chunk_job){.m = m, .B = nb, .convert = n0 == 0,
                                        .x = x + n0 * m->in_size, .y = y + n0,
                                        .grad = grad_sum});
    }
    return total;
}

int dp_model_evaluate(dp_model *m, const double *x, const int *y, size_t n,
                      double *mean_loss, double *accuracy)
{
    int K = m->n_classes;
    for (size_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= K) return DP_EINVAL;
    double total = 0.0;
    size_t correct = 0;
    for (size_t n0 = 0; n0 < n; n0 += m->max_batch) {
        size_t nb = n - n0 < m->max_batch ? n - n0 : m->max_batch;
        run_chunk(&(chunk_job){.m = m, .B = nb, .convert = n0 == 0, .x = x + n0 * m->in_size});
        const double *s = dp_model_logits(m);
        total += dp_softmax_ce_forward(NULL, s, y + n0, nb, K);
        for (size_t i = 0; i < nb; i++) {
            const double *row = s + i * (size_t)K;
            int best = 0;
            for (int j = 1; j < K; j++)
                if (row[j] > row[best]) best = j;
            correct += best == y[n0 + i];
        }
    }
    if (mean_loss) *mean_loss = n ? total / (double)n : NAN;
    if (accuracy) *accuracy = n ? (double)correct / (double)n : NAN;
    return DP_OK;
}
