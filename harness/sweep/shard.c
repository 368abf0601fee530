/* shard.c: cost-balanced, deterministic slices of a sweep (see shard.h). */
#include "harness/sweep/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/models/model.h"
#include "harness/sweep/runner.h"

int shard_parse(const char *text, shard_spec *out, dp_err *err)
{
    const char *slash = text ? strchr(text, '/') : NULL;
    char *end1 = NULL, *end2 = NULL;
    unsigned long i = 0, n = 0;
    if (slash && slash > text && text[0] >= '0' && text[0] <= '9' && slash[1] >= '0' &&
        slash[1] <= '9') {
        errno = 0;
        i = strtoul(text, &end1, 10);
        n = strtoul(slash + 1, &end2, 10);
        if (errno) end2 = NULL;
    }
    if (!end1 || end1 != slash || !end2 || *end2)
        return dp_err_set(err, DP_EINVAL, "--shard takes I/N (shard I of N, counted from 0), got '%s'",
                          text ? text : "");
    if (n < 1 || n > SHARD_MAX)
        return dp_err_set(err, DP_EINVAL, "--shard %s: N must be between 1 and %d", text, SHARD_MAX);
    if (i >= n)
        return dp_err_set(err, DP_EINVAL, "--shard %s: I must be between 0 and N-1 = %lu", text, n - 1);
    out->index = (unsigned)i;
    out->count = (unsigned)n;
    return 0;
}

void shard_file_name(const shard_spec *s, char *out, size_t size)
{
    snprintf(out, size, "runs.%u-of-%u.jsonl", s->index, s->count);
}

/* ---- assignment ------------------------------------------------------------------------ */

typedef struct item {
    const char *id;
    uint64_t cost;
    size_t at; /* position in the caller's arrays */
} item;

static int by_cost_then_id(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return strcmp(x->id, y->id);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

int shard_assign(const char *const *ids, const uint64_t *cost, size_t n, unsigned count,
                 unsigned *owner, uint64_t *load, dp_err *err)
{
    item *items = malloc((n ? n : 1) * sizeof *items);
    uint64_t *sum = calloc(count ? count : 1, sizeof *sum);
    if (!items || !sum) {
        free(items);
        free(sum);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) items[i] = (item){ids[i], cost[i], i};
    qsort(items, n, sizeof *items, by_cost_then_id);
    /* A linear scan for the least loaded shard: n * count stays far below a second for
     * the sweeps this is for (thousands of runs, at most a few hundred shards); a heap
     * would be needed only beyond that. */
    for (size_t k = 0; k < n; k++) {
        unsigned best = 0;
        for (unsigned s = 1; s < count; s++)
            if (sum[s] < sum[best]) best = s;
        owner[items[k].at] = best;
        sum[best] = add_sat(sum[best], items[k].cost);
    }
    if (load) memcpy(load, sum, count * sizeof *sum);
    free(items);
    free(sum);
    return 0;
}

/* ---- cost ---------------------------------------------------------------------------- */

/* A convolution's multiply-adds cost about four times a dense layer's in dperm's steps
 * (shard.h). */
#define CONV_WEIGHT 4

uint64_t shard_model_work(const run_spec *s)
{
    uint64_t in = (uint64_t)s->in_c * (uint64_t)s->in_h * (uint64_t)s->in_w;
    if (!s->deep) {
        uint64_t k = s->loss == DP_LOSS_SOFTMAX ? (uint64_t)s->synthetic.n_classes : 1;
        return mul_sat(k, in + 1);
    }
    dp_model m;
    dp_err err;
    if (spec_build_model(s, (int)s->synthetic.n_classes, 1, &m, &err) != 0)
        return 0;
    uint64_t work = 0;
    for (size_t l = 0; l < m.n_layers; l++) {
        const dp_layer *L = &m.layers[l];
        uint64_t w;
        if (L->spec.kind == DP_LAYER_DENSE)
            w = L->n_w;
        else if (L->spec.kind == DP_LAYER_CONV) /* x CONV_WEIGHT: see shard.h */
            w = mul_sat(mul_sat(L->n_w, (uint64_t)L->out_h * (uint64_t)L->out_w), CONV_WEIGHT);
        else if (L->spec.kind == DP_LAYER_FLATTEN)
            w = 0; /* a reinterpretation of the memory, no work */
        else
            w = L->out_size;
        work = add_sat(work, w);
    }
    dp_model_destroy(&m);
    return work;
}

uint64_t shard_run_cost(const run_spec *s, uint64_t model_work)
{
    uint64_t examples = mul_sat((uint64_t)(s->train.epochs > 0 ? s->train.epochs : 1),
                                (uint64_t)s->n_train);
    uint64_t c = mul_sat(examples, model_work ? model_work : 1);
    if (s->train.algorithm == DP_ALGO_DP_SGD) c = mul_sat(c, 2);
    const dp_train_cfg *t = &s->train;
    if (t->dplis_samples > 0 && (t->dplis_radius > 0 || t->dplis_sigma_fixed > 0))
        c = mul_sat(c, 3 * (uint64_t)t->dplis_samples + 1) / 4;
    return c;
}
