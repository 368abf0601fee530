/* shard.h: splitting a sweep's runs into N disjoint, cost-balanced slices (--shard I/N).
 *
 * Every shard process of a sweep computes the partition by itself, with no coordinator,
 * so it must be a pure function of the runs (their ids and estimated costs) and N:
 *   1. sort the runs by (cost descending, id ascending);
 *   2. give each run, in that order, to the shard with the smallest load so far, the
 *      lowest shard number winning ties (greedy longest-processing-time, Graham 1969:
 *      the largest load is at most 4/3 of the optimum).
 * Costs are integers, so the loads (sums) are exact and no floating-point rounding can
 * make two machines disagree.
 *
 * Cost of a run (shard_run_cost): examples processed x multiply-adds per example
 * x 2 for private runs (per-example clipping roughly doubles a step), i.e.
 * epochs x n_train x model size; a DPlis run with K perturbed copies x (3K + 1) / 4 (the
 * copies share the batch and the noise: K = 10 measured 6.7-8.6 DP-SGD steps). Model size: k (d + 1) for a linear model with k outputs,
 * and for deep models the multiply-adds of one forward pass (dense: weights; conv:
 * weights x output positions, counted 4 times: im2col, the per-example products and
 * GEMMs of a few hundred rows make a convolution's multiply-add about four times a dense
 * layer's here, cnn_mnist's ~405,000 taking 3.4x the time of mlp_784_512_128_10's 469,000
 * in an MNIST epoch of DP-SGD; activations and pools: their output size; flatten:
 * nothing). A proxy, not a timing:
 * it only has to rank runs and add up roughly in proportion to their time.
 */
#ifndef DPERM_SHARD_H
#define DPERM_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"
#include "harness/spec/spec.h"

#define SHARD_MAX 100000 /* more slices than any cluster array allows */

typedef struct shard_spec {
    unsigned index; /* I: 0 <= I < count */
    unsigned count; /* N >= 1 */
} shard_spec;

/* Parse "I/N" (decimal, 0 <= I < N <= SHARD_MAX). DP_EINVAL with a message on error. */
int shard_parse(const char *text, shard_spec *out, dp_err *err);

/* The file name of shard I of N's records: "runs.<I>-of-<N>.jsonl" (size >= 48). */
void shard_file_name(const shard_spec *s, char *out, size_t size);

/* Assign n runs (ids[i], cost[i]) to `count` shards: owner[i] in [0, count). load, if not
 * NULL, receives each shard's total cost (count entries, saturating). The result depends
 * only on the (id, cost) pairs as a set and on count, not on their order in the arrays.
 * ids must be distinct. Fails only with DP_ENOMEM (owner is then untouched). */
int shard_assign(const char *const *ids, const uint64_t *cost, size_t n, unsigned count,
                 unsigned *owner, uint64_t *load, dp_err *err);

/* Multiply-adds per example of a run's model (see above); builds a deep model once to
 * read its layer shapes. 0 when the model cannot be built (the run will fail anyway). */
uint64_t shard_model_work(const run_spec *s);

/* The estimated cost of a run (see above) given its model's work per example. */
uint64_t shard_run_cost(const run_spec *s, uint64_t model_work);

#endif
