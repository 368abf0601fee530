/* config_read.c: typed reads of a document's fields (config.h, "Field readers"): keys
 * checked against a list with did-you-mean, typed reads with defaults and ranges, enums.
 * The schema (spec/), the drivers, the audit and the reference files all read with them,
 * so every message about a field has one shape.
 *
 * Where errors point: an unknown key at the key, a missing key at its block's key (or the
 * document start for a top-level key), a wrong type or out-of-range value at the value.
 * Lists of known names in messages are cut at 255 characters (they stay one line).
 */
#include "harness/config/config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cfg_join_names(char *buf, size_t size, const char *const *names, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* Every key of map must be one of known. `where` names the map in the message. */
int cfg_check_keys(const cfg_node *map, const char *where, const char *const *known,
                   size_t n, dp_err *err)
{
    for (size_t i = 0; i < map->n_items; i++) {
        const cfg_node *e = map->items[i];
        size_t j = 0;
        while (j < n && strcmp(e->key, known[j]) != 0) j++;
        if (j < n) continue;
        const char *s = cfg_suggest(e->key, known, n);
        if (s)
            return cfg_error(err, e, 1, "unknown key '%s' in %s; did you mean '%s'?", e->key,
                             where, s);
        char list[256];
        cfg_join_names(list, sizeof list, known, n);
        return cfg_error(err, e, 1, "unknown key '%s' in %s (known keys: %s)", e->key, where,
                         list);
    }
    return 0;
}

int cfg_expect_map(const cfg_node *n, const char *what, dp_err *err)
{
    if (n->kind == CFG_MAP) return 0;
    return cfg_error(err, n, 0, "%s: expected a map of settings (key: value), got %s", what,
                     n->kind == CFG_SEQ                       ? "a list"
                     : cfg_scalar_type(n) == CFG_T_NULL ? "an empty value"
                                                              : "a single value");
}

/* "train.epochs", or "epsilon" for a top-level key (bname ""). */
static void field_name(char *buf, size_t size, const char *bname, const char *key)
{
    snprintf(buf, size, "%s%s%s", bname, *bname ? "." : "", key);
}

int cfg_missing(const cfg_node *blk, const char *bname, const char *key, dp_err *err)
{
    if (!*bname) return cfg_error(err, blk, 0, "missing required key '%s'", key);
    return cfg_error(err, blk, 1, "%s: missing required key '%s'", bname, key);
}

int cfg_read_number(const cfg_node *blk, const char *bname, const char *key, int required,
                    double def, cfg_range r, double *out, dp_err *err)
{
    char what[128];
    field_name(what, sizeof what, bname, key);
    const cfg_node *n = cfg_get(blk, key);
    if (!n) {
        if (required) return cfg_missing(blk, bname, key, err);
        *out = def;
        return 0;
    }
    int rc = cfg_as_double(n, what, out, err);
    if (rc) return rc;
    double v = *out;
    if (isnan(v) || v < r.lo || (r.lo_open && v == r.lo) || v > r.hi || (r.hi_open && v == r.hi))
        return cfg_error(err, n, 0, "%s must be %s, got %s", what, r.text, n->value);
    return 0;
}

int cfg_read_int(const cfg_node *blk, const char *bname, const char *key, int required,
                 long def, long lo, long hi, long *out, dp_err *err)
{
    char what[128];
    field_name(what, sizeof what, bname, key);
    const cfg_node *n = cfg_get(blk, key);
    if (!n) {
        if (required) return cfg_missing(blk, bname, key, err);
        *out = def;
        return 0;
    }
    int rc = cfg_as_long(n, what, out, err);
    if (rc) return rc;
    if (*out < lo) return cfg_error(err, n, 0, "%s must be >= %ld, got %ld", what, lo, *out);
    if (*out > hi) return cfg_error(err, n, 0, "%s must be <= %ld, got %ld", what, hi, *out);
    return 0;
}

/* A string that must be one of names; *idx gets its index (def when absent). */
int cfg_read_enum(const cfg_node *blk, const char *bname, const char *key, int required,
                  int def, const char *noun, const char *const *names, size_t n, int *idx,
                  dp_err *err)
{
    char what[128];
    const char *s;
    field_name(what, sizeof what, bname, key);
    const cfg_node *v = cfg_get(blk, key);
    if (!v) {
        if (required) return cfg_missing(blk, bname, key, err);
        *idx = def;
        return 0;
    }
    int rc = cfg_as_string(v, what, &s, err);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *idx = (int)i;
            return 0;
        }
    char list[256];
    cfg_join_names(list, sizeof list, names, n);
    const char *sug = cfg_suggest(s, names, n);
    if (sug)
        return cfg_error(err, v, 0, "unknown %s '%s'; did you mean '%s'? (known: %s)", noun, s,
                         sug, list);
    return cfg_error(err, v, 0, "unknown %s '%s' (known: %s)", noun, s, list);
}

int cfg_read_string(const cfg_node *blk, const char *bname, const char *key,
                    const char **out, dp_err *err)
{
    char what[128];
    const cfg_node *v = cfg_get(blk, key);
    *out = NULL;
    if (!v) return 0;
    field_name(what, sizeof what, bname, key);
    return cfg_as_string(v, what, out, err);
}
