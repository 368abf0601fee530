/* config.c: experiment YAML -> a tree of positioned nodes (libyaml event API), scalar
 * typing, typed accessors with FILE:LINE:COL errors, typed JSON, did-you-mean.
 *
 * Source: libyaml's event API (yaml.h: yaml_parser_parse, problem/context marks) and the
 * YAML 1.2 core schema for plain scalars (null, bool, int, float; quoted = string).
 * Choices where YAML is permissive and an experiment file should not be:
 *   - one document, root a mapping; duplicate keys are errors (at the second key);
 *   - anchors, aliases and tags are refused: a config must read the same to a person
 *     as to the program, and `*ref` / `!!str` hide what a value is;
 *   - keys are non-empty scalars; nesting is capped at CFG_MAX_DEPTH so the recursive
 *     helpers below (clone, free, to_json) have a bounded stack;
 *   - booleans are true/false in any letter case (not yes/no/on/off, which YAML 1.1
 *     read as booleans: "country: no" stays a string);
 *   - a file is read whole into memory (configs are small), which lets a syntax error
 *     on a tab carry a hint about indentation.
 * Non-finite floats have no JSON number: cfg_to_json writes them as the strings ".inf",
 * "-.inf" and ".nan" (the canonical YAML spellings), so run ids stay well defined.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#define CFG_MAX_DEPTH 64

// ---- nodes ---------------------------------------------------------------------------

static cfg_node *node_new(cfg_kind kind, const char *file, int line, int col)
{
    cfg_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->kind = kind;
    n->file = file;
    n->line = line;
    n->col = col;
    return n;
}

/* Append child to a map or sequence; maps and lists in configs are short, so growing by
 * one is fine. Returns 0 or DP_ENOMEM (child is then still the caller's). */
static int node_append(cfg_node *parent, cfg_node *child)
{
    cfg_node **items = realloc(parent->items, (parent->n_items + 1) * sizeof *items);
    if (!items) return DP_ENOMEM;
    items[parent->n_items++] = child;
    parent->items = items;
    return 0;
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
    cfg_node *c = node_new(n->kind, n->file, n->line, n->col);
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

/* Levenshtein distance (insert, delete, substitute: cost 1), one row of the table. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    size_t row[SUGGEST_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
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

// ---- parsing -------------------------------------------------------------------------

typedef struct frame {
    cfg_node *node;        /* the open map or sequence */
    char *key;             /* map: pending key waiting for its value (owned), or NULL */
    int key_line, key_col;
} frame;

typedef struct parser_state {
    const char *file;
    frame stack[CFG_MAX_DEPTH];
    int depth;
    cfg_node *root;
    int n_docs;
} parser_state;

static int mark_error(parser_state *ps, yaml_mark_t m, dp_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int mark_error(parser_state *ps, yaml_mark_t m, dp_err *err, const char *fmt, ...)
{
    char msg[DP_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dp_err_set_at(err, DP_ECONFIG, ps->file, (int)m.line + 1, (int)m.column + 1, "%s",
                         msg);
}

static int check_node_props(parser_state *ps, const yaml_event_t *ev, const yaml_char_t *anchor,
                            const yaml_char_t *tag, dp_err *err)
{
    if (anchor) {
        mark_error(ps, ev->start_mark, err,
                   "anchors (&%s) are not supported: write the value out in full", anchor);
        return DP_ECONFIG;
    }
    if (tag) {
        static const char core[] = "tag:yaml.org,2002:";
        const char *t = (const char *)tag;
        int short_form = strncmp(t, core, sizeof core - 1) == 0;
        mark_error(ps, ev->start_mark, err,
                   "tags (%s%s) are not supported: quote a value to make it a string",
                   short_form ? "!!" : "", short_form ? t + sizeof core - 1 : t);
        return DP_ECONFIG;
    }
    return 0;
}

/* Attach a new node under the open container (or make it the root). */
static int attach(parser_state *ps, cfg_node *n)
{
    if (ps->depth == 0) {
        ps->root = n;
        return 0;
    }
    frame *f = &ps->stack[ps->depth - 1];
    if (f->node->kind == CFG_MAP) {
        n->key = f->key;
        n->key_line = f->key_line;
        n->key_col = f->key_col;
        f->key = NULL;
    }
    if (node_append(f->node, n)) {
        cfg_free(n);
        return DP_ENOMEM;
    }
    return 0;
}

static int on_scalar(parser_state *ps, const yaml_event_t *ev, dp_err *err)
{
    const yaml_char_t *text = ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    int rc = check_node_props(ps, ev, ev->data.scalar.anchor, ev->data.scalar.tag, err);
    if (rc) return rc;
    if (memchr(text, '\0', len))
        return mark_error(ps, ev->start_mark, err, "a NUL character is not allowed in a value");
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;

    if (ps->depth == 0) {
        if (plain && len == 0)
            return mark_error(ps, ev->start_mark, err,
                              "empty document: expected a mapping (experiment: NAME, ...)");
        return mark_error(ps, ev->start_mark, err,
                          "the document must be a mapping of keys (experiment:, dataset:, ...), "
                          "got a scalar");
    }
    frame *f = &ps->stack[ps->depth - 1];
    if (f->node->kind == CFG_MAP && !f->key) { /* a key */
        if (len == 0) return mark_error(ps, ev->start_mark, err, "empty key");
        for (size_t i = 0; i < f->node->n_items; i++) {
            const cfg_node *prev = f->node->items[i];
            if (strcmp(prev->key, (const char *)text) == 0)
                return mark_error(ps, ev->start_mark, err,
                                  "duplicate key '%s' (first at line %d, column %d)",
                                  (const char *)text, prev->key_line, prev->key_col);
        }
        if (!(f->key = strndup((const char *)text, len))) return DP_ENOMEM;
        f->key_line = line;
        f->key_col = col;
        return 0;
    }
    cfg_node *n = node_new(CFG_SCALAR, ps->file, line, col);
    if (!n) return DP_ENOMEM;
    n->quoted = !plain;
    if (!(n->value = strndup((const char *)text, len))) {
        cfg_free(n);
        return DP_ENOMEM;
    }
    return attach(ps, n);
}

static int on_start(parser_state *ps, const yaml_event_t *ev, cfg_kind kind, dp_err *err)
{
    const yaml_char_t *anchor = kind == CFG_MAP ? ev->data.mapping_start.anchor
                                                : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = kind == CFG_MAP ? ev->data.mapping_start.tag
                                             : ev->data.sequence_start.tag;
    int rc = check_node_props(ps, ev, anchor, tag, err);
    if (rc) return rc;
    if (ps->depth == 0 && kind != CFG_MAP)
        return mark_error(ps, ev->start_mark, err,
                          "the document must be a mapping of keys (experiment:, dataset:, ...), "
                          "got a list");
    if (ps->depth > 0) {
        frame *f = &ps->stack[ps->depth - 1];
        if (f->node->kind == CFG_MAP && !f->key)
            return mark_error(ps, ev->start_mark, err,
                              "a key must be a plain name, not a %s",
                              kind == CFG_MAP ? "map" : "list");
    }
    if (ps->depth == CFG_MAX_DEPTH)
        return mark_error(ps, ev->start_mark, err, "nesting deeper than %d levels",
                          CFG_MAX_DEPTH);
    cfg_node *n = node_new(kind, ps->file, (int)ev->start_mark.line + 1,
                           (int)ev->start_mark.column + 1);
    if (!n) return DP_ENOMEM;
    if ((rc = attach(ps, n))) return rc;
    ps->stack[ps->depth].node = n;
    ps->stack[ps->depth].key = NULL;
    ps->depth++;
    return 0;
}

static int on_event(parser_state *ps, const yaml_event_t *ev, dp_err *err)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (ps->n_docs++ > 0)
            return mark_error(ps, ev->start_mark, err,
                              "a second YAML document ('---'): an experiment file holds one");
        return 0;
    case YAML_STREAM_END_EVENT:
        if (!ps->root)
            return dp_err_set_at(err, DP_ECONFIG, ps->file, 1, 1,
                                 "empty document: expected a mapping (experiment: NAME, ...)");
        return 0;
    case YAML_ALIAS_EVENT:
        return mark_error(ps, ev->start_mark, err,
                          "aliases (*%s) are not supported: write the value out in full",
                          ev->data.alias.anchor);
    case YAML_SCALAR_EVENT: return on_scalar(ps, ev, err);
    case YAML_MAPPING_START_EVENT: return on_start(ps, ev, CFG_MAP, err);
    case YAML_SEQUENCE_START_EVENT: return on_start(ps, ev, CFG_SEQ, err);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        ps->depth--;
        return 0;
    default: return 0; /* stream start, document end, no event */
    }
}

/* libyaml failed: report its problem at its mark (reader errors carry a byte offset). */
static int syntax_error(const yaml_parser_t *p, const char *file, const char *text, size_t len,
                        dp_err *err)
{
    if (p->error == YAML_MEMORY_ERROR)
        return dp_err_set(err, DP_ENOMEM, "out of memory while reading %s", file);
    const char *problem = p->problem ? p->problem : "malformed YAML";
    size_t at;
    int line = 1, col = 1;
    if (p->error == YAML_READER_ERROR) {
        at = p->problem_offset < len ? p->problem_offset : len;
        for (size_t i = 0; i < at; i++) {
            if (text[i] == '\n') line++, col = 1;
            else if (((unsigned char)text[i] & 0xC0) != 0x80) col++;
        }
        dp_err_set_at(err, DP_ECONFIG, file, line, col, "YAML: %s", problem);
        dp_err_hint(err, "save the file as UTF-8 text");
        return DP_ECONFIG;
    }
    at = p->problem_mark.index;
    line = (int)p->problem_mark.line + 1;
    col = (int)p->problem_mark.column + 1;
    if (p->context)
        dp_err_set_at(err, DP_ECONFIG, file, line, col, "YAML syntax: %s (%s at line %d, column %d)",
                      problem, p->context, (int)p->context_mark.line + 1,
                      (int)p->context_mark.column + 1);
    else
        dp_err_set_at(err, DP_ECONFIG, file, line, col, "YAML syntax: %s", problem);
    if (at < len && text[at] == '\t')
        dp_err_hint(err, "indent with spaces: YAML does not allow tabs for indentation");
    return DP_ECONFIG;
}

int cfg_parse_string(cfg_doc *doc, const char *text, size_t len, const char *name, dp_err *err)
{
    int rc = 0;
    yaml_parser_t parser;
    parser_state ps;
    memset(doc, 0, sizeof *doc);
    memset(&ps, 0, sizeof ps);
    if (!(doc->file = strdup(name ? name : "<string>")))
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    ps.file = doc->file;
    if (!yaml_parser_initialize(&parser)) {
        free(doc->file);
        doc->file = NULL;
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = syntax_error(&parser, doc->file, text, len, err);
            goto fail;
        }
        int done = ev.type == YAML_STREAM_END_EVENT;
        rc = on_event(&ps, &ev, err);
        yaml_event_delete(&ev);
        if (rc) goto fail;
        if (done) break;
    }
    yaml_parser_delete(&parser);
    doc->root = ps.root;
    return 0;
fail:
    if (rc == DP_ENOMEM && (!err || err->code != DP_ENOMEM))
        dp_err_set(err, DP_ENOMEM, "out of memory while reading %s", doc->file);
    for (int i = 0; i < ps.depth; i++) free(ps.stack[i].key);
    cfg_free(ps.root);
    yaml_parser_delete(&parser);
    free(doc->file);
    memset(doc, 0, sizeof *doc);
    return rc;
}

int cfg_parse_file(cfg_doc *doc, const char *path, dp_err *err)
{
    memset(doc, 0, sizeof *doc);
    FILE *f = fopen(path, "rb");
    if (!f) return dp_err_set(err, DP_EIO, "cannot open %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                rc = dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
                goto done;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        rc = dp_err_set(err, DP_EIO, "cannot read %s: %s", path, strerror(errno));
        goto done;
    }
    rc = cfg_parse_string(doc, buf ? buf : "", len, path, err);
done:
    free(buf);
    fclose(f);
    return rc;
}

void cfg_doc_destroy(cfg_doc *doc)
{
    if (!doc) return;
    cfg_free(doc->root);
    free(doc->file);
    doc->root = NULL;
    doc->file = NULL;
}
