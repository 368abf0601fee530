/* registry.c: the tables behind `dperm list` and config name validation. */
#include "harness/cli/registry.h"

#include "algorithms/models/model.h"
#include "algorithms/privacy/accountant.h"
#include "datasets/data.h"
#include "harness/spec/spec.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Filled on first use from spec_algorithm_list, the validator's own table. */
#define MAX_ALGORITHMS 32
static registry_entry ALGORITHMS[MAX_ALGORITHMS];
static size_t n_algorithms;

/* The linear models, then the deep models of the model zoo (filled on first use from
 * dp_model_list, the zoo's own table). */
#define MAX_MODELS 16
static registry_entry MODELS[MAX_MODELS] = {
    {"logistic", "binary logistic regression, log(1+exp(-y w.x)), labels +-1", "Zhang17 §5; InputPert", NULL},
    {"softmax", "multinomial logistic regression (softmax cross-entropy)", "DP-LSSGD §4.1; DPlis", NULL},
    {"squared", "linear regression, squared loss u^2/2 on a real target", "Zhang17 §5 (baseline loss)", NULL},
    {"huber", "linear regression, Huber loss h_delta (model.huber_delta, default 1)", "Zhang17 §5", NULL},
};
static size_t n_models = 4;

/* synthetic, then the real datasets of the datasets catalog (filled on first use from
 * dp_data_list, its own table; `dperm data list` says which are present). */
#define MAX_DATASETS 32
static registry_entry DATASETS[MAX_DATASETS] = {
    {"synthetic", "seeded n x d classification data in the unit ball, separable to a margin",
     "dperm (datasets/synthetic.c)", NULL},
};
static size_t n_datasets = 1;

/* Filled from the accountant module (its names and descriptions are the source of
 * truth), on first use: the table is constant afterwards. */
static registry_entry ACCOUNTANTS[DP_ACCOUNTANT_COUNT];

static void fill_algorithms(registry *table)
{
    if (n_algorithms) return;
    size_t n;
    const spec_algorithm *all = spec_algorithm_list(&n);
    for (size_t i = 0; i < n && n_algorithms < MAX_ALGORITHMS; i++, n_algorithms++) {
        ALGORITHMS[n_algorithms].name = all[i].name;
        ALGORITHMS[n_algorithms].description = all[i].description;
        ALGORITHMS[n_algorithms].source = all[i].source;
        ALGORITHMS[n_algorithms].neighbours = spec_algorithm_neighbours(&all[i]);
    }
    table->n = n_algorithms;
}

static void fill_models(registry *table)
{
    if (n_models > 4) return;
    size_t n;
    const dp_model_info *zoo = dp_model_list(&n);
    for (size_t i = 0; i < n && n_models < MAX_MODELS; i++, n_models++) {
        MODELS[n_models].name = zoo[i].name;
        MODELS[n_models].description = zoo[i].description;
        MODELS[n_models].source = zoo[i].source;
    }
    if (n_models < MAX_MODELS)
        MODELS[n_models++] = (registry_entry){
            "custom", "a deep model given as a layer list (model.layers)",
            "dperm (harness/spec/spec_layers.c)", NULL};
    table->n = n_models;
}

static void fill_datasets(registry *table)
{
    if (n_datasets > 1) return;
    size_t n;
    const dp_data_info *all = dp_data_list(&n);
    for (size_t i = 0; i < n && n_datasets < MAX_DATASETS; i++, n_datasets++) {
        DATASETS[n_datasets].name = all[i].name;
        DATASETS[n_datasets].description = all[i].description;
        DATASETS[n_datasets].source = all[i].source;
    }
    table->n = n_datasets;
}

static void fill_accountants(void)
{
    if (ACCOUNTANTS[0].name) return;
    for (int a = 1; a <= DP_ACCOUNTANT_COUNT; a++) {
        ACCOUNTANTS[a - 1].name = dp_accountant_name((dp_accountant)a);
        ACCOUNTANTS[a - 1].description = dp_accountant_description((dp_accountant)a);
        ACCOUNTANTS[a - 1].source = "algorithms/privacy/accountant.h";
    }
}

static registry TABLES[] = {
    {"algorithms", ALGORITHMS, 0}, /* filled in fill_algorithms */
    {"models", MODELS, 4}, /* grows to the zoo's models and custom in fill_models */
    {"datasets", DATASETS, 1}, /* grows to the catalog's datasets in fill_datasets */
    {"accountants", ACCOUNTANTS, COUNT(ACCOUNTANTS)},
};

static const registry *const ALL[] = {&TABLES[0], &TABLES[1], &TABLES[2], &TABLES[3], NULL};

const registry *registry_find(const char *what)
{
    fill_accountants();
    fill_algorithms(&TABLES[0]);
    fill_models(&TABLES[1]);
    fill_datasets(&TABLES[2]);
    for (size_t i = 0; i < COUNT(TABLES); i++)
        if (strcmp(TABLES[i].what, what) == 0) return &TABLES[i];
    return NULL;
}

const registry_entry *registry_lookup(const registry *r, const char *name)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (strcmp(r->entries[i].name, name) == 0) return &r->entries[i];
    return NULL;
}

const registry *const *registry_all(void)
{
    fill_accountants();
    fill_algorithms(&TABLES[0]);
    fill_models(&TABLES[1]);
    fill_datasets(&TABLES[2]);
    return ALL;
}

void registry_names(const registry *r, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", r->entries[i].name);
}
