/* config_parse.c: experiment YAML -> a tree of positioned nodes (cfg_parse_file,
 * cfg_parse_string, cfg_doc_destroy of config.h), with libyaml's event API.
 *
 * Source: libyaml's event API (yaml.h: yaml_parser_parse, problem/context marks); the
 * events build the tree with a stack of open maps and sequences, a map's pending key
 * waiting in its frame until its value arrives.
 * Choices where YAML is permissive and an experiment file should not be:
 *   - one document, root a mapping; duplicate keys are errors (at the second key);
 *   - anchors, aliases and tags are refused: a config must read the same to a person
 *     as to the program, and `*ref` / `!!str` hide what a value is;
 *   - keys are non-empty scalars; nesting is capped at CFG_MAX_DEPTH so the recursive
 *     helpers of config.c (clone, free, to_json) have a bounded stack;
 *   - a file is read whole into memory (configs are small), which lets a syntax error
 *     on a tab carry a hint about indentation.
 */
#include "harness/config/config.h"
#include "harness/config/config_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

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
    cfg_node *n = cfg_node_new(CFG_SCALAR, ps->file, line, col);
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
    cfg_node *n = cfg_node_new(kind, ps->file, (int)ev->start_mark.line + 1,
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
