/* registry.h: the named things a config can refer to, one table each (house rule 18).
 * `dperm list` prints these tables and spec.c validates names against them, so nothing
 * is reachable that is not listed here, and nothing listed is a stub. */
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
    const char *what;               /* "algorithms", "models", ... */
    const registry_entry *entries;
    size_t n;
} registry;

/* The table for WHAT, or NULL. */
const registry *registry_find(const char *what);
/* The entry called name in r, or NULL. */
const registry_entry *registry_lookup(const registry *r, const char *name);
/* All tables, NULL-terminated. */
const registry *const *registry_all(void);
/* Names of r as a comma-separated list into buf ("sgd, dp_sgd"). */
void registry_names(const registry *r, char *buf, size_t size);

#endif
