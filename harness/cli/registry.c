/* registry.c: the tables behind `dperm list` and the names a config may use (registry.h),
 * each read from the table that owns its entries. */
#include "harness/cli/registry.h"

#include <stdio.h>
#include <string.h>

#include "algorithms/models/model.h"
#include "algorithms/privacy/accountant.h"
#include "datasets/data.h"
#include "harness/spec/spec.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static size_t algorithms_count(void)
{
    size_t n;
    spec_algorithm_list(&n);
    return n;
}

static registry_entry algorithms_entry(size_t i)
{
    size_t n;
    const spec_algorithm *a = &spec_algorithm_list(&n)[i];
    return (registry_entry){a->name, a->description, a->source, spec_algorithm_neighbours(a)};
}

/* The models spec/spec_model.c takes that are not in the model zoo: the linear models
 * first, the custom layer list last. */
static const registry_entry LINEAR_MODELS[] = {
    {"logistic", "binary logistic regression, log(1+exp(-y w.x)), labels +-1", "Zhang17 §5; InputPert", NULL},
    {"softmax", "multinomial logistic regression (softmax cross-entropy)", "DP-LSSGD §4.1; DPlis", NULL},
    {"squared", "linear regression, squared loss u^2/2 on a real target", "Zhang17 §5 (baseline loss)", NULL},
    {"huber", "linear regression, Huber loss h_delta (model.huber_delta, default 1)", "Zhang17 §5", NULL},
};
static const registry_entry CUSTOM_MODEL = {
    "custom", "a deep model given as a layer list (model.layers)",
    "dperm (harness/spec/spec_layers.c)", NULL};

static size_t models_count(void)
{
    size_t n;
    dp_model_list(&n);
    return COUNT(LINEAR_MODELS) + n + 1;
}

static registry_entry models_entry(size_t i)
{
    size_t n;
    const dp_model_info *zoo = dp_model_list(&n);
    if (i < COUNT(LINEAR_MODELS)) return LINEAR_MODELS[i];
    i -= COUNT(LINEAR_MODELS);
    if (i < n) return (registry_entry){zoo[i].name, zoo[i].description, zoo[i].source, NULL};
    return CUSTOM_MODEL;
}

static const registry_entry SYNTHETIC = {
    "synthetic", "seeded n x d classification data in the unit ball, separable to a margin",
    "dperm (datasets/synthetic.c)", NULL};

static size_t datasets_count(void)
{
    size_t n;
    dp_data_list(&n);
    return 1 + n;
}

static registry_entry datasets_entry(size_t i)
{
    size_t n;
    const dp_data_info *all = dp_data_list(&n);
    if (i == 0) return SYNTHETIC;
    return (registry_entry){all[i - 1].name, all[i - 1].description, all[i - 1].source, NULL};
}

static size_t accountants_count(void)
{
    return DP_ACCOUNTANT_COUNT;
}

static registry_entry accountants_entry(size_t i)
{
    dp_accountant a = (dp_accountant)(i + 1);
    return (registry_entry){dp_accountant_name(a), dp_accountant_description(a),
                            "algorithms/privacy/accountant.h", NULL};
}

static const registry TABLES[] = {
    {"algorithms", algorithms_count, algorithms_entry},
    {"models", models_count, models_entry},
    {"datasets", datasets_count, datasets_entry},
    {"accountants", accountants_count, accountants_entry},
};

static const registry *const ALL[] = {&TABLES[0], &TABLES[1], &TABLES[2], &TABLES[3], NULL};

const registry *registry_find(const char *what)
{
    for (size_t i = 0; i < COUNT(TABLES); i++)
        if (strcmp(TABLES[i].what, what) == 0) return &TABLES[i];
    return NULL;
}

int registry_lookup(const registry *r, const char *name, registry_entry *out)
{
    for (size_t i = 0, n = r ? r->count() : 0; i < n; i++) {
        registry_entry e = r->entry(i);
        if (strcmp(e.name, name) != 0) continue;
        if (out) *out = e;
        return 1;
    }
    return 0;
}

const registry *const *registry_all(void)
{
    return ALL;
}

void registry_names(const registry *r, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0, n = r->count(); i < n && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", r->entry(i).name);
}
