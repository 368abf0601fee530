/* data_cache.h: real datasets loaded once per sweep, in the parent before any worker
 * forks (the workers then share the matrices copy-on-write), keyed by the dataset's
 * options: runs of a grid that differ only in optimizer settings share one load.
 *
 * Each entry also holds the JSON block every record of a run on it carries: the dataset
 * actually used (mnist, or fashion_mnist after a fallback), the folder, each file's
 * SHA-256 and whether it matches the published sum, the sizes and every preprocessing
 * choice.
 */
#ifndef DPERM_DATA_CACHE_H
#define DPERM_DATA_CACHE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "datasets/data.h"
#include "harness/config/config.h"
#include "harness/spec/spec.h"

typedef struct data_entry {
    dp_data_opts key;      /* the options as asked (data.opts may name the fallback) */
    dp_data data;
    json_t *record;        /* the "dataset" block of records (owned) */
} data_entry;

typedef struct data_cache {
    dp_data_search search;
    data_entry **items;
    size_t n;
    FILE *notes;           /* where fallback notes go (stderr; NULL: silent) */
} data_cache;

/* An empty cache searching data_dir (may be NULL) first. Cannot fail. */
void data_cache_init(data_cache *c, const char *data_dir, FILE *notes);
void data_cache_destroy(data_cache *c);

/* The loaded data for o (loading it on first use). DP_EDATA/DP_EINVAL/DP_ENOMEM with err
 * set; the entry stays owned by the cache. */
int data_cache_get(data_cache *c, const dp_data_opts *o, const data_entry **out, dp_err *err);

/* For a real dataset's run: load (or reuse) its data and bind it to s (spec_bind_data).
 * Errors are placed at the run config's dataset block (a missing dataset: "dataset 'mnist'
 * not found in: ...; run `make data` or pass --data-dir"). No-op for synthetic runs. */
int data_cache_bind(data_cache *c, run_spec *s, const cfg_node *run_config, dp_err *err);

/* The "dataset" JSON block for d (file sums computed here). NULL on out of memory. */
json_t *data_cache_describe(const dp_data *d, dp_err *err);

#endif
