/* cli_bench.c: `dperm bench`, the throughput benchmark of private training steps.
 *
 * For each model, at a fixed batch (256 by default), after a warm-up: examples per second
 * of one non-private SGD step (batch gradient, update), of one DP-SGD step (per-example
 * clipping to C, Gaussian noise sigma C on every coordinate, update), of one DP-LSSGD
 * step (the DP-SGD step smoothed) and of one DPlis step (K perturbed copies, the smoothed
 * clipped gradient, noise, update), each the median of repeated timed blocks (machines
 * are shared and noisy: medians, never single runs); DP-SGD against SGD as the median of
 * the ratios of blocks run back to back, and the smoothing's and DPlis's costs against
 * DP-SGD the same way. The machine's own dgemm and sgemm GFLOP/s are measured first as
 * the ceiling to read those numbers against, and the BLAS kernel set is printed, since
 * speed is only comparable under the same kernels (docs/performance.md).
 *
 * The steps timed are the library's: dp_model_loss_grad_split /
 * dp_model_clipped_grad_split / dp_model_smoothed_clipped_grad, the noise generator and
 * the update loop a trainer runs (with its float gradient and float weights). DPlis's perturbation std is the trainer's R eta sigma C / b with R = 10 (the
 * configs' radii are 5 to 50); any positive value costs the same. Inputs are uniform in
 * [0, 1), labels uniform: throughput does not depend on the values.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "algorithms/base/rng.h"
#include "algorithms/base/vec.h"
#include "algorithms/models/model.h"
#include "algorithms/smoothing.h"
#include "harness/cli/cli.h"
#include "harness/sweep/progress.h"

static const char BENCH_HELP[] =
    "usage: dperm bench [--model M ...] [--batch B] [--threads T] [--seconds S]\n"
    "                   [--repeats R] [--dplis-samples K] [--json]\n"
    "\n"
    "Examples/s of one SGD step, one DP-SGD step (clip + noise), one DP-LSSGD step (the\n"
    "same, smoothed by A_1^{-1} per parameter tensor) and one DPlis step (K perturbed\n"
    "copies, clip + noise) per model, the DP-SGD/SGD ratio, the smoothing's extra time and\n"
    "the DPlis step's time relative to the DP-SGD step, and the machine's dgemm/sgemm\n"
    "GFLOP/s as the ceiling. Medians of R timed blocks of at least S seconds each.\n"
    "\n"
    "options:\n"
    "  --model M          linear_784_10, mlp_784_512_128_10, cnn_mnist,\n"
    "                     mlp_3072_1536_128_10 (repeatable; default: all four)\n"
    "  --batch B          examples per step (default 256)\n"
    "  --threads T        threads (default: the number of cores)\n"
    "  --seconds S        minimum length of a timed block (default 0.3)\n"
    "  --repeats R        timed blocks per measurement (default 5)\n"
    "  --dplis-samples K  DPlis's perturbed copies (default 10; 0 leaves DPlis out)\n"
    "  --json             one JSON object per line instead of the table\n";

typedef struct bench_model {
    const char *name;     /* bench name */
    const char *builder;  /* dp_model_build_named name, NULL: a linear softmax */
    int in_c, in_h, in_w;
} bench_model;

static const bench_model MODELS[] = {
    {"linear_784_10", NULL, 1, 28, 28},
    {"mlp_784_512_128_10", "mlp", 1, 28, 28},
    {"cnn_mnist", "cnn_mnist", 1, 28, 28},
    {"mlp_3072_1536_128_10", "mlp", 3, 32, 32},
};
#define N_MODELS (sizeof MODELS / sizeof MODELS[0])

typedef struct bench_opts {
    size_t batch;
    int threads, repeats, json, dplis_k;
    double seconds;
} bench_opts;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---- GEMM ceiling --------------------------------------------------------------------

/* Median GFLOP/s of an n x n x n GEMM, single or double precision. */
static double gemm_gflops(int single, size_t n, const bench_opts *o)
{
    size_t nn = n * n;
    void *a = malloc(nn * (single ? sizeof(float) : sizeof(double)));
    void *b = malloc(nn * (single ? sizeof(float) : sizeof(double)));
    void *c = malloc(nn * (single ? sizeof(float) : sizeof(double)));
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return NAN;
    }
    for (size_t i = 0; i < nn; i++) {
        if (single) ((float *)a)[i] = ((float *)b)[i] = 1.0f / (float)(1 + i % 7);
        else ((double *)a)[i] = ((double *)b)[i] = 1.0 / (double)(1 + i % 7);
    }
    double rates[64];
    int reps = o->repeats < 64 ? o->repeats : 64;
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        double t0 = progress_now();
        long calls = 0;
        do {
            if (single) dp_sgemm(0, 0, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
            else dp_gemm(0, 0, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
            calls++;
        } while (progress_now() - t0 < (r < 0 ? 0.05 : o->seconds));
        double dt = progress_now() - t0;
        if (r >= 0) rates[r] = 2.0 * (double)n * (double)n * (double)n * (double)calls / dt / 1e9;
    }
    free(a), free(b), free(c);
    return median(rates, reps);
}

// ---- training steps ------------------------------------------------------------------

typedef struct step_ctx {
    dp_model m;
    double *x, *grad;
    int *y;
    dp_rng noise;
    size_t batch;
    int threads;          /* for the noise, the budget of dp_set_threads */
    dp_smoother *smooth;  /* DP-LSSGD: one per parameter tensor (weights, biases) */
    size_t *smooth_off;   /* where each tensor starts in the flat parameters */
    size_t n_smooth;
    dp_model_smooth dplis; /* DPlis: the workspace of its K copies (K >= 1) */
    int dplis_k;
    dp_rng perturb;       /* DPlis's perturbations */
    int grad_zero;        /* grad is all zeros: the last update left it so */
    float *gf;            /* the float part of the gradient (dp_model_clipped_grad_split),
                           * zero between steps */
    double *zbuf;         /* the noise's chunks, drawn apart from grad (threads chunks) */
    double *w_prev;       /* the weights before the update, as the trainer keeps them:
                           * the plain steps' second weight buffer, which they swap with
                           * the model's (both are freed at the end, whichever is which) */
} step_ctx;

enum { MODE_SGD, MODE_DP_SGD, MODE_DP_LSSGD, MODE_DPLIS };

/* The trainer's plain step's update (train_step.c: dp_sgd_update_to, no weight decay) over
 * [lo, hi): w_new = w - eta (g + gf) / b, g and gf zeroed for the next step, the new
 * weights rounded into wf for the next forward pass (gf, wf may be NULL); without w_new,
 * the smoothed step's: in place, the weights saved in w_prev (dp_sgd_update). */
typedef struct sgd_update {
    double *w, *w_prev, *w_new, *g;
    float *gf, *wf;
    double b, eta;
    size_t zero[64]; /* with the noise apart: the ranges of g the model leaves zero */
    size_t n_zero;
} sgd_update;

static void sgd_update_range(void *ctx, size_t lo, size_t hi)
{
    const sgd_update *u = ctx;
    float *gf = u->gf ? u->gf + lo : NULL, *wf = u->wf ? u->wf + lo : NULL;
    if (u->w_new)
        (void)dp_sgd_update_to(u->w_new + lo, u->w + lo, u->g + lo, gf, wf, u->b, 0.0, u->eta,
                               hi - lo);
    else
        (void)dp_sgd_update(u->w + lo, u->w_prev + lo, u->g + lo, gf, wf, u->b, 0.0, u->eta,
                            hi - lo);
}

/* As the trainer's DP-SGD step: the chunk's noise apart from g, g skipped where the model
 * left it zero (train_step.c, noised_update_range). */
static void noised_update_range(void *ctx, size_t lo, size_t hi, const double *z)
{
    const sgd_update *u = ctx;
    (void)dp_sgd_update_noised_ranges(u->w_new, u->w, u->g, z, u->gf, u->wf, u->b, 0.0, u->eta,
                                      lo, hi, u->zero, u->n_zero);
}

/* As the trainer after a plain step: the model moves to the new weights, and the old
 * buffer becomes the next step's target. */
static void swap_weights(step_ctx *s)
{
    double *old = s->m.params;
    dp_model_set_params(&s->m, s->w_prev);
    s->w_prev = old;
}

/* One step. SGD; DP-SGD (clip to 1, noise multiplier 1.1); DP-LSSGD, the DP-SGD gradient
 * smoothed by A_1^{-1} per parameter tensor (DP-LSSGD Alg. 1, applied to each flattened
 * tensor as its TensorFlow implementation does); DPlis (Alg. 2: the gradient averaged
 * over K perturbed copies, clipped, then DP-SGD's noise). */
static void step(step_ctx *s, int mode)
{
    const double lr = 1e-3, clip = 1.0, sigma = 1.1, radius = 10.0;
    if (!s->grad_zero) memset(s->grad, 0, s->m.n_params * sizeof *s->grad);
    /* as the trainer: the plain step's update zeroes the gradient, a smoothed one's not */
    s->grad_zero = mode != MODE_DP_LSSGD;
    /* as the trainer: the plain steps leave the split layers' weight gradients in float
     * and round the new weights in their update; the smoothed one does neither */
    int plain = mode != MODE_DP_LSSGD;
    float *gf = mode == MODE_DPLIS || !plain ? NULL : s->gf;
    switch (mode) {
    case MODE_SGD: dp_model_loss_grad_split(&s->m, s->x, s->y, s->batch, s->grad, gf); break;
    case MODE_DPLIS:
        dp_model_smoothed_clipped_grad(&s->m, &s->dplis, s->x, s->y, s->batch, clip,
                                       s->dplis_k, radius * lr * sigma * clip / (double)s->batch,
                                       &s->perturb, s->grad, NULL);
        break;
    default:
        dp_model_clipped_grad_split(&s->m, s->x, s->y, s->batch, clip, s->grad, gf, NULL);
        break;
    }
    dp_model_float_params_fresh(&s->m, 0);
    sgd_update u = {.w = s->m.params, .w_prev = s->w_prev, .w_new = plain ? s->w_prev : NULL,
                    .g = s->grad, .gf = gf, .wf = plain ? dp_model_float_params(&s->m) : NULL,
                    .b = (double)s->batch, .eta = lr};
    if (mode == MODE_DP_SGD) { /* as the trainer: the noise apart, in chunks */
        u.n_zero = dp_model_gf_ranges(&s->m, s->batch, u.zero, 32);
        dp_rng_gaussian_chunks(&s->noise, s->m.n_params, sigma * clip, s->threads, s->zbuf,
                               noised_update_range, &u);
        swap_weights(s);
        dp_model_float_params_fresh(&s->m, 1);
        return;
    }
    if (mode == MODE_DPLIS) { /* as the trainer: in the noise's chunks */
        dp_rng_add_gaussian_then(&s->noise, s->grad, s->m.n_params, sigma * clip, s->threads,
                                 sgd_update_range, &u);
        swap_weights(s);
        dp_model_float_params_fresh(&s->m, 1);
        return;
    }
    if (mode == MODE_DP_LSSGD) {
        dp_rng_add_gaussian_par(&s->noise, s->grad, s->m.n_params, sigma * clip, s->threads);
        for (size_t t = 0; t < s->n_smooth; t++)
            dp_smoother_execute(&s->smooth[t], s->grad + s->smooth_off[t]);
    }
    sgd_update_range(&u, 0, s->m.n_params);
    if (plain) swap_weights(s);
    dp_model_float_params_fresh(&s->m, plain);
}

/* Examples/s of one block of steps lasting at least o->seconds. */
static double block_rate(step_ctx *s, int mode, const bench_opts *o)
{
    double t0 = progress_now();
    long steps = 0;
    do {
        step(s, mode);
        steps++;
    } while (progress_now() - t0 < o->seconds);
    return (double)steps * (double)s->batch / (progress_now() - t0);
}

/* The medians of one model's measurements. */
typedef struct step_result {
    double sgd, dp, ratio;   /* examples/s; DP-SGD's over SGD's */
    double ls, ls_cost;      /* DP-LSSGD examples/s; its extra time over DP-SGD's */
    double dplis, dplis_x;   /* DPlis examples/s; its time over DP-SGD's (NAN: not run) */
} step_result;

/* The modes' blocks alternate, so all see the same machine conditions (a shared machine
 * drifts over seconds); each ratio is the median of the ratios of blocks run back to
 * back. */
static void step_rates(step_ctx *s, const bench_opts *o, step_result *res)
{
    double a[64], b[64], c[64], d[64], q[64], lq[64], dq[64];
    int reps = o->repeats < 64 ? o->repeats : 64, modes = s->dplis_k > 0 ? 4 : 3;
    for (int w = 0; w < 2; w++)
        for (int mode = 0; mode < modes; mode++) step(s, mode);
    for (int r = 0; r < reps; r++) {
        a[r] = block_rate(s, MODE_SGD, o);
        b[r] = block_rate(s, MODE_DP_SGD, o);
        c[r] = block_rate(s, MODE_DP_LSSGD, o);
        d[r] = modes > 3 ? block_rate(s, MODE_DPLIS, o) : NAN;
        q[r] = b[r] / a[r];
        lq[r] = b[r] / c[r] - 1.0; /* extra time of smoothing relative to the DP-SGD step */
        dq[r] = b[r] / d[r];       /* a DPlis step's time in DP-SGD steps */
    }
    res->sgd = median(a, reps);
    res->dp = median(b, reps);
    res->ratio = median(q, reps);
    res->ls = median(c, reps);
    res->ls_cost = median(lq, reps);
    res->dplis = modes > 3 ? median(d, reps) : NAN;
    res->dplis_x = modes > 3 ? median(dq, reps) : NAN;
}

static int build(step_ctx *s, const bench_model *bm, size_t batch, int dplis_k, dp_err *err)
{
    memset(s, 0, sizeof *s);
    int rc;
    if (bm->builder) {
        rc = dp_model_build_named(&s->m, bm->builder, NULL, 0, NULL, bm->in_c, bm->in_h,
                                  bm->in_w, 10, batch, 1, err);
    } else {
        dp_layer_spec layers[2];
        memset(layers, 0, sizeof layers);
        layers[0].kind = DP_LAYER_FLATTEN;
        layers[1].kind = DP_LAYER_DENSE;
        layers[1].units = 10;
        rc = dp_model_build(&s->m, layers, 2, bm->in_c, bm->in_h, bm->in_w, 10, batch, 1, err);
    }
    if (rc) return rc;
    size_t in = (size_t)bm->in_c * (size_t)bm->in_h * (size_t)bm->in_w;
    s->batch = batch;
    s->x = malloc(batch * in * sizeof *s->x);
    s->y = malloc(batch * sizeof *s->y);
    s->grad = malloc(s->m.n_params * sizeof *s->grad);
    s->gf = calloc(s->m.n_params, sizeof *s->gf);
    s->w_prev = malloc(s->m.n_params * sizeof *s->w_prev);
    int zt = dp_threads() > 1 ? dp_threads() : 1; /* the noise's threads: s->threads */
    s->zbuf = malloc((size_t)zt * DP_NOISE_CHUNK * sizeof *s->zbuf);
    if (!s->x || !s->y || !s->grad || !s->gf || !s->w_prev || !s->zbuf)
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    dp_rng r;
    dp_rng_init(&r, 7, DP_STREAM_DATA);
    for (size_t i = 0; i < batch * in; i++) s->x[i] = dp_rng_uniform(&r);
    for (size_t i = 0; i < batch; i++) s->y[i] = (int)dp_rng_below(&r, 10);
    dp_rng_init(&s->noise, 7, DP_STREAM_NOISE);
    s->smooth = calloc(2 * s->m.n_layers, sizeof *s->smooth);
    s->smooth_off = calloc(2 * s->m.n_layers, sizeof *s->smooth_off);
    if (!s->smooth || !s->smooth_off) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t l = 0; l < s->m.n_layers; l++) {
        const dp_layer *L = &s->m.layers[l];
        size_t offs[2] = {L->w_off, L->b_off}, lens[2] = {L->n_w, L->n_b};
        for (int t = 0; t < 2; t++) {
            if (lens[t] == 0) continue;
            if ((rc = dp_smoother_plan(&s->smooth[s->n_smooth], lens[t], 1.0, err))) return rc;
            s->smooth_off[s->n_smooth++] = offs[t];
        }
    }
    dp_rng_init(&s->perturb, 7, DP_STREAM_ALGO);
    s->dplis_k = dplis_k;
    if (dplis_k > 0 && (rc = dp_model_smooth_init(&s->dplis, &s->m, dplis_k, err))) return rc;
    return 0;
}

static void destroy(step_ctx *s)
{
    for (size_t t = 0; s->smooth && t < s->n_smooth; t++) dp_smoother_destroy(&s->smooth[t]);
    free(s->smooth);
    free(s->smooth_off);
    dp_model_smooth_destroy(&s->dplis);
    dp_model_destroy(&s->m);
    free(s->x);
    free(s->y);
    free(s->grad);
    free(s->gf);
    free(s->zbuf);
    free(s->w_prev);
}

/* A whole number option in [lo, hi] into *out: 0, or the usage error's exit status. */
static int int_option(const char *name, const char *arg, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < lo || v > hi)
        return cli_usage_error("bench", "--%s takes %ld..%ld, got '%s'", name, lo, hi, arg);
    *out = v;
    return 0;
}

/* The options into o and the models asked for into want[] (all when none is named):
 * -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, bench_opts *o, int *want)
{
    static const struct option longopts[] = {
        {"model", required_argument, 0, 'm'},   {"batch", required_argument, 0, 'b'},
        {"threads", required_argument, 0, 't'}, {"seconds", required_argument, 0, 's'},
        {"repeats", required_argument, 0, 'r'}, {"json", no_argument, 0, 'j'},
        {"dplis-samples", required_argument, 0, 'k'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    long cores = sysconf(_SC_NPROCESSORS_ONLN), v = 0;
    *o = (bench_opts){.batch = 256, .threads = cores > 0 ? (int)cores : 1, .repeats = 5,
                      .seconds = 0.3, .json = 0, .dplis_k = 10};
    int any = 0, c, rc = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'm': {
            size_t k = 0;
            while (k < N_MODELS && strcmp(MODELS[k].name, optarg) != 0) k++;
            if (k == N_MODELS)
                return cli_usage_error("bench", "unknown model '%s' (linear_784_10, "
                                       "mlp_784_512_128_10, cnn_mnist, mlp_3072_1536_128_10)", optarg);
            want[k] = any = 1;
            break;
        }
        case 'b': if (!(rc = int_option("batch", optarg, 1, 65536, &v))) o->batch = (size_t)v; break;
        case 't': if (!(rc = int_option("threads", optarg, 1, 256, &v))) o->threads = (int)v; break;
        case 'r': if (!(rc = int_option("repeats", optarg, 1, 64, &v))) o->repeats = (int)v; break;
        case 'k':
            if (!(rc = int_option("dplis-samples", optarg, 0, 1000, &v))) o->dplis_k = (int)v;
            break;
        case 's':
            o->seconds = strtod(optarg, &end);
            if (*end || !(o->seconds > 0) || o->seconds > 60)
                return cli_usage_error("bench", "--seconds takes a number in (0, 60], got '%s'", optarg);
            break;
        case 'j': o->json = 1; break;
        case 'h': fputs(BENCH_HELP, stdout); return EXIT_OK;
        case ':': return cli_usage_error("bench", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("bench", "unknown option '%s'", argv[optind - 1]);
        }
        if (rc) return rc;
    }
    if (optind < argc) return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
    if (!any)
        for (size_t k = 0; k < N_MODELS; k++) want[k] = 1;
    return -1;
}

/* The GEMM rates, then the table's head (or the JSON lines of the GEMMs). */
static void print_head(const bench_opts *o)
{
    double dg = gemm_gflops(0, 1024, o), sg = gemm_gflops(1, 1024, o);
    if (o->json) {
        printf("{\"kernel\": \"dgemm\", \"n\": 1024, \"gflops\": %.1f, \"blas_core\": \"%s\", "
               "\"threads\": %d}\n", dg, dp_blas_corename(), o->threads);
        printf("{\"kernel\": \"sgemm\", \"n\": 1024, \"gflops\": %.1f, \"blas_core\": \"%s\", "
               "\"threads\": %d}\n", sg, dp_blas_corename(), o->threads);
        return;
    }
    printf("dperm bench: batch %zu, BLAS kernels %s, %d threads; medians of %d blocks of "
           ">= %.2g s\n", o->batch, dp_blas_corename(), o->threads, o->repeats, o->seconds);
    printf("GEMM 1024^3: dgemm %.1f GFLOP/s, sgemm %.1f GFLOP/s\n\n", dg, sg);
    char dplis_col[32];
    snprintf(dplis_col, sizeof dplis_col, "dplis_k%d ex/s", o->dplis_k);
    printf("%-22s %10s %12s %12s %6s %12s %9s", "model", "params", "sgd ex/s",
           "dp_sgd ex/s", "ratio", "dp_lssgd", "smoothing");
    if (o->dplis_k > 0) printf(" %15s %9s", dplis_col, "x dp_sgd");
    printf("\n");
}

/* One model's rates: a row of the table, or one JSON line per mode. */
static void print_rates(const bench_opts *o, const char *name, size_t n_params,
                        const step_result *res)
{
    if (!o->json) {
        printf("%-22s %10zu %12.0f %12.0f %6.2f %12.0f %+8.1f%%", name, n_params, res->sgd,
               res->dp, res->ratio, res->ls, 100.0 * res->ls_cost);
        if (o->dplis_k > 0) printf(" %15.0f %8.2fx", res->dplis, res->dplis_x);
        printf("\n");
        return;
    }
    printf("{\"model\": \"%s\", \"mode\": \"sgd\", \"batch\": %zu, \"examples_per_s\": %.1f}\n",
           name, o->batch, res->sgd);
    printf("{\"model\": \"%s\", \"mode\": \"dp_sgd\", \"batch\": %zu, \"examples_per_s\": %.1f, "
           "\"ratio_to_sgd\": %.3f}\n", name, o->batch, res->dp, res->ratio);
    printf("{\"model\": \"%s\", \"mode\": \"dp_lssgd\", \"batch\": %zu, \"examples_per_s\": %.1f, "
           "\"smoothing_cost\": %.3f}\n", name, o->batch, res->ls, res->ls_cost);
    if (o->dplis_k > 0)
        printf("{\"model\": \"%s\", \"mode\": \"dplis\", \"samples\": %d, \"batch\": %zu, "
               "\"examples_per_s\": %.1f, \"cost_vs_dp_sgd\": %.3f}\n", name, o->dplis_k,
               o->batch, res->dplis, res->dplis_x);
}

int cli_bench(int argc, char **argv)
{
    bench_opts o;
    int want[N_MODELS] = {0};
    int status = parse_args(argc, argv, &o, want);
    if (status >= 0) return status;
    dp_set_threads(o.threads);
    print_head(&o);
    fflush(stdout);
    for (size_t k = 0; k < N_MODELS; k++) {
        if (!want[k]) continue;
        step_ctx s;
        dp_err err;
        dp_err_clear(&err);
        int brc = build(&s, &MODELS[k], o.batch, o.dplis_k, &err);
        s.threads = o.threads;
        if (brc) {
            destroy(&s);
            cli_print_error(&err);
            return EXIT_USAGE;
        }
        step_result res;
        step_rates(&s, &o, &res);
        print_rates(&o, MODELS[k].name, s.m.n_params, &res);
        fflush(stdout);
        destroy(&s);
    }
    return EXIT_OK;
}
