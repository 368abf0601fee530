/* registry.h: the named things a config can refer to, one table each (house rule 18).
 * `dperm list` prints these tables and spec/ validates names against the same sources,
 * so nothing is reachable that is not listed here, and nothing listed is a stub.
 *
 * A table keeps no copy of its entries: each reads the library table that owns them
 * (spec_algorithm_list, dp_model_list, dp_data_list, the accountant module) when asked,
 * so a new algorithm, model, dataset or accountant is listed by adding it there alone.
 */
#ifndef DPERM_REGISTRY_H
#define DPERM_REGISTRY_H

#include <stddef.h>

typedef struct registry_entry {
    const char *name;
    const char *description;
    const char *source;
    const char *neighbours; /* algorithms: the neighbour relation of its guarantee; else NULL */
} registry_entry;

typedef struct registry {
    const char *what;                   /* "algorithms", "models", ... */
    size_t (*count)(void);              /* its number of entries */
    registry_entry (*entry)(size_t i);  /* entry i < count() */
} registry;

/* The table for WHAT, or NULL. */
const registry *registry_find(const char *what);
/* 1 and *out when r has an entry called name, else 0 (out may be NULL). */
int registry_lookup(const registry *r, const char *name, registry_entry *out);
/* All tables, NULL-terminated. */
const registry *const *registry_all(void);
/* Names of r as a comma-separated list into buf ("sgd, dp_sgd"). */
void registry_names(const registry *r, char *buf, size_t size);

#endif
