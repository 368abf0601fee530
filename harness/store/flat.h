/* flat.h: a JSON record flattened to dotted keys ("train.lr.a" -> "0.5"), for
 * summary.csv and for showing what varies across runs. */
#ifndef DPERM_FLAT_H
#define DPERM_FLAT_H

#include <stddef.h>

#include <jansson.h>

typedef struct flat {
    char **keys;     /* dotted paths, in document order */
    char **values;   /* their values as text (strings raw, numbers shortest form) */
    size_t n, cap;
} flat;

/* Append the leaves of v under prefix (may be "" or NULL) to f. Arrays are leaves
 * (written as compact JSON). Returns 0 or -1 on out of memory. */
int flat_add(flat *f, const char *prefix, json_t *v);
/* Value of key, or NULL. */
const char *flat_get(const flat *f, const char *key);
void flat_destroy(flat *f);

/* Keys that do not have the same value in every one of fs[0..n): appended to *keys
 * (array of borrowed pointers into fs[0]... or later ones), in first-seen order.
 * Returns the count, or -1 on out of memory. Caller frees *keys (not the strings). */
long flat_varying(const flat *fs, size_t n, const char ***keys);

#endif
