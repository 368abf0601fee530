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
 *
 * Why lanes for dense models too: the profile of linear_784_10's DP-SGD step (batch 256,
 * two threads, `dperm bench`, this project's Xeon; share of the step's wall time). With
 * dense layers in double on OpenBLAS's threads (455 us a step): the forward GEMM 43% and
 * the weight-gradient GEMM 37% (both dgemm with 10 outputs, split across two BLAS
 * threads at 26-35 GFLOP/s), the loss and softmax errors 6%, the per-example norms 5%,
 * waiting on the BLAS threads 5%, the noise 4%, the update 1%. Now (192 us): the inputs
 * to float with their norms 11%, the forward sgemm 26%, the loss, errors and norms 14%,
 * the weight-gradient sgemm 21% (split by examples: model.c), waiting between the lanes
 * 6%, the lanes' sums 3%, the noise 14%, zeroing and update 4%. In a training run the
 * batch's rows are gathered first (27% of the step before, 40% now: 216 us of 540), and
 * the lane on the other core then waits 18% of the step for the rows it did not gather
 * and for its wake-up after the gather: gathering in the lanes would save both.
 */
#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "algorithms/models/model_int.h"

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
    if (m->wf_fresh) return; /* rounded by the caller (dp_model_float_params_fresh) */
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind != DP_LAYER_DENSE) continue;
        size_t I = l->in_size, o0 = dp_lane_lo(l->out_size, m->lanes, j);
        size_t o1 = dp_lane_lo(l->out_size, m->lanes, j + 1);
        dp_to_float(l->wf + o0 * I, l->w + o0 * I, (o1 - o0) * I);
    }
}

void dp_model_lane_forward(dp_model *m, int j, const double *x, size_t B, int same_input)
{
    size_t in = m->in_size, lo = dp_lane_lo(B, m->lanes, j);
    size_t nb = dp_lane_lo(B, m->lanes, j + 1) - lo;
    size_t first = 0; /* the first layer whose output depends on the parameters */
    if (nb == 0) return;
    if (same_input) {
        while (!m->layers[first].n_w) first++;
    } else if (m->input_mode == 1) {
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
    int input_ready = 0; /* the dense layer's float inputs came with the previous one's */
    for (size_t i = first; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        const double *inp = dp_model_in(m, l) + lo * l->in_size;
        double *out = m->act[l->out_buf] + lo * l->out_size;
        switch (l->spec.kind) {
        case DP_LAYER_DENSE: {
            float *af = l->af + lo * l->in_size;
            if (!(same_input && i == first) && !input_ready)
                dp_dense_input(af, l->asq + lo, inp, nb, l->in_size);
            input_ready = 0;
            if (l->relu_next) { /* this layer, the ReLU and the next one's input */
                const dp_layer *n = &m->layers[i + 2];
                dp_dense_forward_relu(out, m->lane_f[j], af, l->wf, l->b, nb, l->in_size,
                                      l->out_size, n->af + lo * n->in_size, n->asq + lo);
                input_ready = 1;
                i++; /* the ReLU is done */
                break;
            }
            dp_dense_forward(out, m->lane_f[j], af, l->wf, l->b, nb, l->in_size, l->out_size);
            break;
        }
        case DP_LAYER_CONV: /* the same input's patches are still in the kept ones */
            dp_conv2d_forward(out, dp_model_lane_ws(l, j, lo), inp, l->w, l->b, nb, &l->conv,
                              same_input && i == first && l->conv_keep);
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
        if (!m->err_filled[b])
            memset(m->dact[b] + lo * m->buf_size[b], 0, nb * m->buf_size[b] * sizeof *m->dact[b]);
    dp_softmax_ce_backward(m->dact[top->out_buf] + lo * top->out_size, logits, y + lo, nb,
                           m->n_classes);
    int sq_done = 0; /* the dense layer's norms came with the next one's input errors */
    for (size_t i = m->n_layers; i-- > 0;) {
        dp_layer *l = &m->layers[i];
        const double *inp = dp_model_in(m, l) + lo * l->in_size;
        double *dout = m->dact[l->out_buf] + lo * l->out_size;
        double *dinp = l->in_buf ? m->dact[l->in_buf] + lo * l->in_size : NULL;
        double *s = sq ? sq + lo : NULL;
        switch (l->spec.kind) {
        case DP_LAYER_DENSE:
            if (s && !sq_done) dp_dense_pex_sqnorm(s, dout, l->asq + lo, nb, l->out_size);
            sq_done = 0;
            if (dinp && i >= 2 && m->layers[i - 2].relu_next) {
                /* dp_dense_forward_relu's pair: this layer's input errors, the ReLU's
                 * derivative and the norms of the dense layer before it, in one pass */
                const dp_layer *p = &m->layers[i - 2];
                dp_dense_backward_input_relu(dinp, m->lane_f[j], dout, l->wf, nb, l->in_size,
                                             l->out_size, m->act[l->in_buf] + lo * l->in_size,
                                             s, p->asq + lo);
                sq_done = 1;
                i--; /* the ReLU is done */
                break;
            }
            if (dinp) /* overwritten: err_filled spared the zeroing */
                dp_dense_backward_input(dinp, m->lane_f[j], dout, l->wf, nb, l->in_size,
                                        l->out_size, !m->err_filled[l->in_buf]);
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

void dp_model_lane_dense_grads(dp_model *m, int j, const dp_layer *l, double *grad,
                               const double *d, const double *c, const float *af, size_t B,
                               size_t copies)
{
    size_t I = l->in_size, O = l->out_size;
    if (l->split_rows) {
        dp_dense_backward_weights(grad + l->w_off, grad + l->b_off, m->lane_f[j], d, c, af,
                                  copies * B, I, O, dp_lane_lo(O, m->lanes, j),
                                  dp_lane_lo(O, m->lanes, j + 1), l->grad_rows);
        return;
    }
    size_t lo = dp_lane_lo(B, m->lanes, j), nb = dp_lane_lo(B, m->lanes, j + 1) - lo;
    if (nb == 0) return;
    double *dw = m->lgrad + (size_t)j * m->n_lgrad + l->lg_off, *db = dw + l->n_w;
    memset(dw, 0, (l->n_w + l->n_b) * sizeof *dw);
    for (size_t k = 0; k < copies; k++) {
        size_t r = k * B + lo;
        dp_dense_backward_weights(dw, db, m->lane_f[j], d + r * O, c ? c + r : NULL,
                                  af + r * I, nb, I, O, 0, O, l->grad_rows);
    }
}

void dp_model_lane_grads(dp_model *m, int j, size_t B, double *grad, float *gf,
                         const double *c)
{
    size_t lo = dp_lane_lo(B, m->lanes, j), nb = dp_lane_lo(B, m->lanes, j + 1) - lo;
    double *lg = m->lgrad ? m->lgrad + (size_t)j * m->n_lgrad : NULL;
    for (size_t i = 0; i < m->n_layers; i++) {
        dp_layer *l = &m->layers[i];
        if (l->spec.kind == DP_LAYER_DENSE && gf && l->split_rows) {
            size_t O = l->out_size;
            dp_dense_backward_weights_float(gf + l->w_off, grad + l->b_off, m->lane_f[j],
                                            m->dact[l->out_buf], c, l->af, B, l->in_size, O,
                                            dp_lane_lo(O, m->lanes, j),
                                            dp_lane_lo(O, m->lanes, j + 1), l->grad_rows);
            continue;
        }
        if (l->spec.kind == DP_LAYER_DENSE) {
            dp_model_lane_dense_grads(m, j, l, grad, m->dact[l->out_buf], c, l->af, B, 1);
            continue;
        }
        if (l->spec.kind != DP_LAYER_CONV || nb == 0) continue;
        double *dw = lg + l->lg_off, *db = dw + l->n_w;
        memset(dw, 0, (l->n_w + l->n_b) * sizeof *dw);
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
            if (l->spec.kind == DP_LAYER_CONV ||
                (l->spec.kind == DP_LAYER_DENSE && !l->split_rows))
                dp_axpy(grad + l->w_off, 1.0, lg + l->lg_off, l->n_w + l->n_b);
        }
    }
}

// ---- lanes on threads -----------------------------------------------------------------------

/* How long a thread spins: without yielding at first; then yielding, at a barrier (the
 * other lane is working, a phase takes tens of microseconds or more) and by a helper
 * between runs (linear_784_10's serial noise and update take 40 us, which a helper that
 * went to sleep after 20 us paid for with a wake-up: 1.2M against 1.45M examples/s). */
#define DP_SPIN_BUSY_US 5.0
#define DP_SPIN_BARRIER_US 100.0
#define DP_SPIN_IDLE_US 60.0

/* An event threads wait for: a count that a post moves on. A waiter spins on the count
 * for up to spin_us microseconds before it sleeps on the condition variable, and a post
 * takes the system call of a wake-up only when someone sleeps: on this project's
 * machines (a KVM guest) a futex wake-up costs 5-10 us, a fifth of a phase of
 * linear_784_10, and was 18% of its profile. */
typedef struct lane_event {
    atomic_uint seq;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int sleepers; /* under mu */
} lane_event;

static void event_init(lane_event *e)
{
    atomic_init(&e->seq, 0u);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    e->sleepers = 0;
}

static void event_destroy(lane_event *e)
{
    pthread_cond_destroy(&e->cv);
    pthread_mutex_destroy(&e->mu);
}

static double mono_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_ia32_pause();
#endif
}

/* Return once e->seq differs from seen. After the first DP_SPIN_BUSY_US the spin yields
 * the core at every turn, so a thread that wants it (the noise's, a lane's own partner,
 * another process on a busy machine) gets it: spinning without yielding halved
 * linear_784_10's rate when another job held one of the two cores. */
static void event_wait(lane_event *e, unsigned seen, double spin_us)
{
    if (atomic_load_explicit(&e->seq, memory_order_acquire) != seen) return;
    double t0 = mono_us(), t;
    do {
        for (int i = 0; i < 64; i++) {
            if (atomic_load_explicit(&e->seq, memory_order_acquire) != seen) return;
            cpu_relax();
        }
        t = mono_us() - t0;
        if (t > DP_SPIN_BUSY_US) sched_yield();
    } while (t < spin_us);
    pthread_mutex_lock(&e->mu);
    e->sleepers++;
    while (atomic_load_explicit(&e->seq, memory_order_acquire) == seen)
        pthread_cond_wait(&e->cv, &e->mu);
    e->sleepers--;
    pthread_mutex_unlock(&e->mu);
}

static void event_post(lane_event *e)
{
    pthread_mutex_lock(&e->mu); /* so a waiter between its test and its sleep is seen */
    atomic_fetch_add_explicit(&e->seq, 1u, memory_order_release);
    if (e->sleepers) pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

/* A barrier among the n threads of one run. */
typedef struct lane_sync {
    lane_event ev;
    atomic_int arrived;
    int n;
} lane_sync;

static void sync_wait(lane_sync *s)
{
    unsigned seen = atomic_load_explicit(&s->ev.seq, memory_order_acquire);
    if (atomic_fetch_add_explicit(&s->arrived, 1, memory_order_acq_rel) + 1 == s->n) {
        atomic_store_explicit(&s->arrived, 0, memory_order_relaxed);
        event_post(&s->ev);
    } else {
        event_wait(&s->ev, seen, DP_SPIN_BARRIER_US);
    }
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
    int was = dp_gemm_unsplit(1); /* a lane's GEMMs are its own thread's, whole */
    for (int p = 0; p < t->phases; p++) {
        for (int j = 0; j < t->lanes; j++)
            if (t->mask >> j & 1u) t->fn(t->ctx, p, j);
        if (t->sync && p + 1 < t->phases) sync_wait(t->sync);
    }
    dp_gemm_unsplit(was);
}

/* The model's helper threads, started by its first run on several threads and kept
 * until dp_model_destroy: starting a thread costs about 33 us on this project's machines
 * (15% of a DP-SGD step of linear_784_10). Between runs a helper spins a little, then
 * sleeps. */
typedef struct pool_arg {
    struct dp_lane_pool *pool;
    int t;        /* helper t */
    unsigned gen; /* the runs posted before it started */
} pool_arg;

struct dp_lane_pool {
    lane_event go, done;       /* a run posted; every helper through with it */
    pthread_t tid[DP_MODEL_LANES];
    pool_arg arg[DP_MODEL_LANES];
    int n;                     /* helpers running */
    atomic_int busy;           /* helpers still in the current run */
    atomic_int quit;
    pid_t pid;                 /* the process whose threads these are */
    const lane_thread *work;   /* the current run: helper t takes work[t + 1] */
};

static void *pool_main(void *arg)
{
    const pool_arg *a = arg;
    struct dp_lane_pool *p = a->pool;
    for (unsigned seen = a->gen;; seen++) {
        event_wait(&p->go, seen, DP_SPIN_IDLE_US);
        if (atomic_load_explicit(&p->quit, memory_order_acquire)) break;
        lane_worker(&p->work[a->t + 1]);
        if (atomic_fetch_sub_explicit(&p->busy, 1, memory_order_acq_rel) == 1)
            event_post(&p->done);
    }
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
        event_init(&p->go);
        event_init(&p->done);
        atomic_init(&p->busy, 0);
        atomic_init(&p->quit, 0);
        p->pid = getpid();
        m->pool = p;
    }
    while (p->n < want) {
        p->arg[p->n] = (pool_arg){p, p->n, atomic_load(&p->go.seq)};
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
    atomic_store_explicit(&p->quit, 1, memory_order_release);
    event_post(&p->go);
    for (int t = 0; t < p->n; t++) pthread_join(p->tid[t], NULL);
    event_destroy(&p->done);
    event_destroy(&p->go);
    free(p);
}

void dp_model_run_lanes(dp_model *m, size_t B, int phases, dp_lane_fn fn, void *ctx)
{
    int L = m->lanes, budget = dp_threads(), T = budget < L ? budget : L;
    if ((double)B * (double)m->n_params < DP_LANE_MIN_WORK) T = 1;
    struct dp_lane_pool *p = T > 1 ? pool_get(m, T - 1) : NULL;
    int helpers = p ? p->n : 0, U = 1 + (helpers < T - 1 ? helpers : T - 1);
    lane_thread th[DP_MODEL_LANES];
    lane_sync sync;
    sync.n = U;
    if (U > 1) {
        event_init(&sync.ev);
        atomic_init(&sync.arrived, 0);
    }
    for (int t = 0; t <= helpers; t++) { /* helpers past U sit this run out */
        th[t] = (lane_thread){fn, ctx, t < U ? phases : 0, L, 0, U > 1 ? &sync : NULL};
        for (int j = t; t < U && j < L; j += U) th[t].mask |= 1u << j;
    }
    unsigned done = 0;
    if (U > 1) {
        p->work = th;
        atomic_store_explicit(&p->busy, helpers, memory_order_relaxed);
        done = atomic_load_explicit(&p->done.seq, memory_order_acquire);
        event_post(&p->go);
    }
    lane_worker(&th[0]);
    if (U > 1) {
        event_wait(&p->done, done, DP_SPIN_BARRIER_US);
        event_destroy(&sync.ev);
    }
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
    float *gf; /* or NULL: dp_model_lane_grads */
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
        if (job->x) dp_model_lane_forward(job->m, j, job->x, job->B, 0);
        if (job->y) job->loss[j] = dp_model_lane_backward(job->m, j, job->y, job->B, NULL);
        break;
    case PH_GRADS:
        if (job->grad) dp_model_lane_grads(job->m, j, job->B, job->grad, job->gf, NULL);
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
double dp_model_loss_grad_split(dp_model *m, const double *x, const int *y, size_t B,
                                double *grad_sum, float *gf)
{
    double total = 0.0;
    gf = dp_model_gf_usable(m, B, gf);
    for (size_t n0 = 0; n0 < B; n0 += m->max_batch) {
        size_t nb = B - n0 < m->max_batch ? B - n0 : m->max_batch;
        total += run_chunk(&(chunk_job){.m = m, .B = nb, .convert = n0 == 0,
                                        .x = x + n0 * m->in_size, .y = y + n0,
                                        .grad = grad_sum, .gf = gf});
    }
    return total;
}

size_t dp_model_gf_ranges(const dp_model *m, size_t B, size_t *ranges, size_t cap)
{
    static float any; /* dp_model_gf_usable's test of B, for some gf */
    size_t k = 0;
    if (!dp_model_gf_usable(m, B, &any)) return 0;
    for (size_t i = 0; i < m->n_layers && k < cap; i++) {
        const dp_layer *l = &m->layers[i];
        if (l->spec.kind != DP_LAYER_DENSE || !l->split_rows) continue;
        ranges[2 * k] = l->w_off;
        ranges[2 * k + 1] = l->w_off + l->n_w;
        k++;
    }
    return k;
}

double dp_model_loss_grad(dp_model *m, const double *x, const int *y, size_t B,
                          double *grad_sum)
{
    return dp_model_loss_grad_split(m, x, y, B, grad_sum, NULL);
}

void dp_model_predict(dp_model *m, const double *x, size_t n, int *labels)
{
    int K = m->n_classes;
    for (size_t n0 = 0; n0 < n; n0 += m->max_batch) {
        size_t nb = n - n0 < m->max_batch ? n - n0 : m->max_batch;
        run_chunk(&(chunk_job){.m = m, .B = nb, .convert = n0 == 0, .x = x + n0 * m->in_size});
        const double *s = dp_model_logits(m);
        for (size_t i = 0; i < nb; i++) {
            const double *row = s + i * (size_t)K;
            int best = 0;
            for (int j = 1; j < K; j++)
                if (row[j] > row[best]) best = j;
            labels[n0 + i] = best;
        }
    }
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
