/* config.c: the tree of positioned config nodes (clone, free, lookup), scalar typing,
 * typed accessors with FILE:LINE:COL errors, typed JSON, did-you-mean. Reading YAML into
 * the tree is in config_parse.c.
 *
 * Source: the YAML 1.2 core schema for plain scalars (null, bool, int, float; quoted =
 * string). Choices where YAML is permissive and an experiment file should not be:
 *   - booleans are true/false in any letter case (not yes/no/on/off, which YAML 1.1
 *     read as booleans: "country: no" stays a string);
 *   - clone, free and to_json recurse over the tree: the parser caps nesting at
 *     CFG_MAX_DEPTH (config_int.h), which bounds their stack.
 * Non-finite floats have no JSON number: cfg_to_json writes them as the strings ".inf",
 * "-.inf" and ".nan" (the canonical YAML spellings), so run ids stay well defined.
 */
#include "harness/config/config.h"
#include "harness/config/config_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// ---- nodes ---------------------------------------------------------------------------

cfg_node *cfg_node_new(cfg_kind kind, const char *file, int line, int col)
{
    cfg_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->kind = kind;
    n->file = file;
    n->line = line;
    n->col = col;
    return n;
}

void cfg_free(cfg_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->n_items; i++) cfg_free(n->items[i]);
    free(n->items);
    free(n->key);
    free(n->value);
    free(n);
}

cfg_node *cfg_clone(const cfg_node *n)
{
    if (!n) return NULL;
    cfg_node *c = cfg_node_new(n->kind, n->file, n->line, n->col);
    if (!c) return NULL;
    c->key_line = n->key_line;
    c->key_col = n->key_col;
    c->quoted = n->quoted;
    if ((n->key && !(c->key = strdup(n->key))) || (n->value && !(c->value = strdup(n->value))))
        goto fail;
    if (n->n_items) {
        c->items = calloc(n->n_items, sizeof *c->items);
        if (!c->items) goto fail;
        for (size_t i = 0; i < n->n_items; i++) {
            if (!(c->items[i] = cfg_clone(n->items[i]))) goto fail;
            c->n_items = i + 1;
        }
    }
    return c;
fail:
    cfg_free(c);
    return NULL;
}

/* Append a new entry `key` (no position) to map; NULL on ENOMEM. */
static cfg_node *map_add(cfg_node *map, cfg_kind kind, const char *key)
{
    cfg_node *n = cfg_node_new(kind, map->file, 0, 0);
    cfg_node **items = realloc(map->items, (map->n_items + 1) * sizeof *items);
    if (!n || !items || !(n->key = strdup(key))) {
        if (items) map->items = items;
        cfg_free(n);
        return NULL;
    }
    map->items = items;
    map->items[map->n_items++] = n;
    return n;
}

int cfg_put(cfg_node *map, cfg_node *child)
{
    for (size_t i = 0; i < map->n_items; i++)
        if (strcmp(map->items[i]->key, child->key) == 0) {
            cfg_free(map->items[i]);
            map->items[i] = child;
            return 0;
        }
    cfg_node **items = realloc(map->items, (map->n_items + 1) * sizeof *items);
    if (!items) {
        cfg_free(child);
        return DP_ENOMEM;
    }
    map->items = items;
    map->items[map->n_items++] = child;
    return 0;
}

void cfg_remove(cfg_node *map, const char *key)
{
    for (size_t i = 0; i < map->n_items; i++)
        if (strcmp(map->items[i]->key, key) == 0) {
            cfg_free(map->items[i]);
            memmove(map->items + i, map->items + i + 1,
                    (map->n_items - i - 1) * sizeof *map->items);
            map->n_items--;
            return;
        }
}

cfg_node *cfg_new_scalar(const char *key, const char *value, const cfg_node *at)
{
    cfg_node *n = cfg_node_new(CFG_SCALAR, at->file, at->line, at->col);
    if (!n) return NULL;
    n->key_line = at->key_line ? at->key_line : at->line;
    n->key_col = at->key_col ? at->key_col : at->col;
    if (!(n->key = strdup(key)) || !(n->value = strdup(value))) {
        cfg_free(n);
        return NULL;
    }
    return n;
}

cfg_node *cfg_new_map(const char *key, const cfg_node *at)
{
    cfg_node *n = cfg_node_new(CFG_MAP, at->file, at->line, at->col);
    if (!n) return NULL;
    n->key_line = at->key_line ? at->key_line : at->line;
    n->key_col = at->key_col ? at->key_col : at->col;
    if (!(n->key = strdup(key))) {
        cfg_free(n);
        return NULL;
    }
    return n;
}

int cfg_set_scalar(cfg_node *map, const char *block, const char *key, const char *value,
                   dp_err *err)
{
    cfg_node *b = cfg_get(map, block);
    if (b && b->kind != CFG_MAP)
        return cfg_error(err, b, 0, "%s: expected a map", block);
    if (!b && !(b = map_add(map, CFG_MAP, block))) return dp_err_set(err, DP_ENOMEM, "out of memory");
    cfg_node *v = cfg_get(b, key);
    if (v && v->kind != CFG_SCALAR) {
        for (size_t i = 0; i < v->n_items; i++) cfg_free(v->items[i]);
        free(v->items);
        v->items = NULL;
        v->n_items = 0;
        v->kind = CFG_SCALAR;
    }
    if (!v && !(v = map_add(b, CFG_SCALAR, key))) return dp_err_set(err, DP_ENOMEM, "out of memory");
    char *copy = strdup(value);
    if (!copy) return dp_err_set(err, DP_ENOMEM, "out of memory");
    free(v->value);
    v->value = copy;
    v->quoted = 0;
    return 0;
}

cfg_node *cfg_get(const cfg_node *map, const char *key)
{
    if (!map || map->kind != CFG_MAP || !key) return NULL;
    for (size_t i = 0; i < map->n_items; i++)
        if (strcmp(map->items[i]->key, key) == 0) return map->items[i];
    return NULL;
}

cfg_node *cfg_get_path(const cfg_node *root, const char *dotted)
{
    if (!root || !dotted) return NULL;
    const cfg_node *cur = root;
    const char *p = dotted;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        const cfg_node *next = NULL;
        if (cur->kind == CFG_MAP)
            for (size_t i = 0; i < cur->n_items && !next; i++)
                if (strncmp(cur->items[i]->key, p, len) == 0 && cur->items[i]->key[len] == '\0')
                    next = cur->items[i];
        if (!next) return NULL;
        if (!dot) return (cfg_node *)next;
        cur = next;
        p = dot + 1;
    }
}

// ---- scalar typing (YAML 1.2 core schema) --------------------------------------------

static int all_in(const char *s, const char *set)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!strchr(set, *s)) return 0;
    return 1;
}

static int text_is_int(const char *s)
{
    if (s[0] == '0' && s[1] == 'o') return all_in(s + 2, "01234567");
    if (s[0] == '0' && s[1] == 'x') return all_in(s + 2, "0123456789abcdefABCDEF");
    if (*s == '+' || *s == '-') s++;
    return all_in(s, "0123456789");
}

static int text_is_inf(const char *s)
{
    if (*s == '+' || *s == '-') s++;
    return !strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF");
}

static int text_is_nan(const char *s)
{
    return !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN");
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int text_is_decimal(const char *s)
{
    size_t digits = 0;
    if (*s == '+' || *s == '-') s++;
    if (*s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++) digits++;
        if (!digits) return 0;
    } else {
        for (; *s >= '0' && *s <= '9'; s++) digits++;
        if (!digits) return 0;
        if (*s == '.')
            for (s++; *s >= '0' && *s <= '9'; s++) {}
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        digits = 0;
        for (; *s >= '0' && *s <= '9'; s++) digits++;
        if (!digits) return 0;
    }
    return *s == '\0';
}

cfg_type cfg_scalar_type(const cfg_node *n)
{
    /* Not a scalar: no scalar type; 0 is outside the enum on purpose. */
    if (!n || n->kind != CFG_SCALAR) return (cfg_type)0;
    const char *s = n->value ? n->value : "";
    if (n->quoted) return CFG_T_STRING;
    if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return CFG_T_NULL;
    if (!strcasecmp(s, "true") || !strcasecmp(s, "false")) return CFG_T_BOOL;
    if (text_is_int(s)) return CFG_T_INT;
    if (text_is_decimal(s) || text_is_inf(s) || text_is_nan(s)) return CFG_T_FLOAT;
    return CFG_T_STRING;
}

/* 0x.. or 0o.. integer text. */
static int is_prefixed(const char *s)
{
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'o');
}

/* Integer text (already typed CFG_T_INT) to long long; 0 or ERANGE. */
static int int_value(const char *s, long long *out)
{
    errno = 0;
    if (s[0] == '0' && s[1] == 'o') *out = strtoll(s + 2, NULL, 8);
    else if (s[0] == '0' && s[1] == 'x') *out = strtoll(s + 2, NULL, 16);
    else *out = strtoll(s, NULL, 10);
    return errno ? ERANGE : 0;
}

/* Float text (already typed CFG_T_FLOAT) to double; 0 or ERANGE (overflow only:
 * underflow to a denormal or zero is a faithful rounding of what was written). */
static int float_value(const char *s, double *out)
{
    if (text_is_inf(s)) {
        *out = s[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    if (text_is_nan(s)) {
        *out = NAN;
        return 0;
    }
    errno = 0;
    *out = strtod(s, NULL);
    return (errno == ERANGE && isinf(*out)) ? ERANGE : 0;
}

// ---- errors and typed reads ----------------------------------------------------------

int cfg_error(dp_err *err, const cfg_node *n, int at_key, const char *fmt, ...)
{
    char msg[DP_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!n) return dp_err_set(err, DP_ECONFIG, "%s", msg);
    int use_key = at_key && n->key && n->key_line > 0;
    return dp_err_set_at(err, DP_ECONFIG, n->file, use_key ? n->key_line : n->line,
                         use_key ? n->key_col : n->col, "%s", msg);
}

/* "'five'", "a map", "a list", "an empty value", or the quoted string marked as such. */
static void describe(const cfg_node *n, char *buf, size_t size)
{
    if (!n) snprintf(buf, size, "nothing");
    else if (n->kind == CFG_MAP) snprintf(buf, size, "a map");
    else if (n->kind == CFG_SEQ) snprintf(buf, size, "a list");
    else if (cfg_scalar_type(n) == CFG_T_NULL) snprintf(buf, size, "an empty value");
    else if (n->quoted) snprintf(buf, size, "the quoted string \"%.60s\"", n->value);
    else snprintf(buf, size, "'%.60s'", n->value);
}

static int type_error(const cfg_node *n, const char *what, const char *expected, dp_err *err)
{
    char got[96];
    describe(n, got, sizeof got);
    return cfg_error(err, n, 0, "%s: expected %s, got %s", what, expected, got);
}

int cfg_as_double(const cfg_node *n, const char *what, double *out, dp_err *err)
{
    cfg_type t = cfg_scalar_type(n);
    if (t == CFG_T_INT) {
        long long v;
        if (int_value(n->value, &v)) {
            double d;
            if (is_prefixed(n->value) || float_value(n->value, &d))
                return cfg_error(err, n, 0, "%s: number out of range: '%.60s'", what, n->value);
            *out = d;
            return 0;
        }
        *out = (double)v;
        return 0;
    }
    if (t == CFG_T_FLOAT) {
        if (float_value(n->value, out))
            return cfg_error(err, n, 0, "%s: number out of range: '%.60s'", what, n->value);
        return 0;
    }
    return type_error(n, what, "a number", err);
}

int cfg_as_long(const cfg_node *n, const char *what, long *out, dp_err *err)
{
    if (cfg_scalar_type(n) != CFG_T_INT) return type_error(n, what, "an integer", err);
    long long v;
    if (int_value(n->value, &v) || v < LONG_MIN || v > LONG_MAX)
        return cfg_error(err, n, 0, "%s: integer out of range: '%.60s'", what, n->value);
    *out = (long)v;
    return 0;
}

int cfg_as_bool(const cfg_node *n, const char *what, int *out, dp_err *err)
{
    if (cfg_scalar_type(n) != CFG_T_BOOL) return type_error(n, what, "true or false", err);
    *out = strcasecmp(n->value, "true") == 0;
    return 0;
}

int cfg_as_string(const cfg_node *n, const char *what, const char **out, dp_err *err)
{
    if (cfg_scalar_type(n) != CFG_T_STRING) {
        int rc = type_error(n, what, "a string", err);
        if (n && n->kind == CFG_SCALAR && cfg_scalar_type(n) != CFG_T_NULL)
            dp_err_hint(err, "quote it to make it a string: \"%.60s\"", n->value);
        return rc;
    }
    *out = n->value;
    return 0;
}

// ---- JSON ----------------------------------------------------------------------------

static json_t *scalar_to_json(const cfg_node *n)
{
    switch (cfg_scalar_type(n)) {
    case CFG_T_NULL: return json_null();
    case CFG_T_BOOL: return json_boolean(strcasecmp(n->value, "true") == 0);
    case CFG_T_INT: {
        long long v;
        if (!int_value(n->value, &v)) return json_integer((json_int_t)v);
        double d; /* too large for an integer: keep its magnitude as a real */
        if (!is_prefixed(n->value) && !float_value(n->value, &d)) return json_real(d);
        return json_string(n->value);
    }
    case CFG_T_FLOAT: {
        double d;
        float_value(n->value, &d); /* overflow leaves +-inf in d */
        if (isnan(d)) return json_string(".nan");
        if (isinf(d)) return json_string(d > 0 ? ".inf" : "-.inf");
        return json_real(d);
    }
    default: return json_string(n->value);
    }
}

json_t *cfg_to_json(const cfg_node *n)
{
    if (!n) return NULL;
    if (n->kind == CFG_SCALAR) return scalar_to_json(n);
    json_t *j = n->kind == CFG_MAP ? json_object() : json_array();
    if (!j) return NULL;
    for (size_t i = 0; i < n->n_items; i++) {
        json_t *c = cfg_to_json(n->items[i]);
        int rc = !c ? -1
                 : n->kind == CFG_MAP ? json_object_set_new(j, n->items[i]->key, c)
                                      : json_array_append_new(j, c);
        if (rc) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

// ---- suggestions ---------------------------------------------------------------------

#define SUGGEST_MAX_LEN 64

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Optimal string alignment distance: insertions, deletions, substitutions and swaps of
 * two adjacent letters each cost 1, since a swap ("trian", "rpd") is the most common
 * typo and plain Levenshtein would count it twice. Three rolling rows. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    size_t r0[SUGGEST_MAX_LEN + 1], r1[SUGGEST_MAX_LEN + 1], r2[SUGGEST_MAX_LEN + 1];
    size_t *prev2 = r0, *prev = r1, *cur = r2;
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}

const char *cfg_suggest(const char *word, const char *const *candidates, size_t n)
{
    if (!word || !candidates) return NULL;
    size_t lw = strlen(word);
    size_t limit = lw / 3 > 1 ? lw / 3 : 1;
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i]) continue;
        size_t lc = strlen(candidates[i]);
        if (lc > SUGGEST_MAX_LEN || lw > SUGGEST_MAX_LEN) continue;
        if ((lc > lw ? lc - lw : lw - lc) > limit) continue;
        size_t d = edit_distance(word, lw, candidates[i], lc);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}
