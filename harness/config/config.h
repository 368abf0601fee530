/* config.h: experiment YAML read with libyaml into a tree of nodes that remember their
 * position, plus typed accessors that report errors at FILE:LINE:COL.
 *
 * The tree is generic (maps, sequences, scalars); meaning is given by grid.c (expansion)
 * and spec.c (validation of one resolved run). Positions are 1-based.
 */
#ifndef DPERM_CONFIG_H
#define DPERM_CONFIG_H

#include <stddef.h>

#include <jansson.h>

#include "algorithms/base/err.h"

typedef enum { CFG_SCALAR = 1, CFG_MAP = 2, CFG_SEQ = 3 } cfg_kind;

/* Type of a scalar as YAML 1.2 core schema plain scalars resolve (quoted = string). */
typedef enum {
    CFG_T_NULL = 1,   /* null, Null, NULL, ~, empty */
    CFG_T_BOOL = 2,   /* true/false (any case of those words only) */
    CFG_T_INT = 3,    /* [-+]?[0-9]+ (also 0x.., 0o..) */
    CFG_T_FLOAT = 4,  /* decimal/exponent forms, .inf, -.inf, .nan */
    CFG_T_STRING = 5
} cfg_type;

typedef struct cfg_node {
    cfg_kind kind;
    char *key;                 /* key when this node is a map entry's value, else NULL */
    int key_line, key_col;     /* position of the key */
    char *value;               /* scalar text (CFG_SCALAR only) */
    int quoted;                /* scalar was quoted: always a string */
    int line, col;             /* position of the value */
    struct cfg_node **items;   /* map entries (each has key) or sequence elements */
    size_t n_items;
    const char *file;          /* file name for messages; not owned (points into cfg_doc) */
} cfg_node;

typedef struct cfg_doc {
    char *file;                /* owned copy of the path (or "<string>") */
    cfg_node *root;            /* a CFG_MAP */
} cfg_doc;

/* Parse a YAML file (or an in-memory string, named `name` in messages) holding one
 * document whose root is a mapping. Duplicate keys, anchors/aliases/tags, multiple
 * documents and a non-map root are errors with a position. On failure *doc is empty
 * and err says FILE:LINE:COL and what; returns DP_ECONFIG, DP_EIO or DP_ENOMEM. */
int cfg_parse_file(cfg_doc *doc, const char *path, dp_err *err);
int cfg_parse_string(cfg_doc *doc, const char *text, size_t len, const char *name,
                     dp_err *err);
void cfg_doc_destroy(cfg_doc *doc);

/* Map lookup by key (NULL if absent or not a map) and by dotted path ("train.lr.a"). */
cfg_node *cfg_get(const cfg_node *map, const char *key);
cfg_node *cfg_get_path(const cfg_node *root, const char *dotted);

cfg_node *cfg_clone(const cfg_node *n);   /* deep copy (positions kept); NULL on ENOMEM */

/* Set map[block][key] to the plain scalar `value` (a command-line override such as
 * --secure-noise), replacing what was there and creating the block when absent; the new
 * nodes have no position (line 0). Returns 0, DP_ENOMEM, or DP_ECONFIG when `block` exists
 * but is not a map (err names its position). */
int cfg_set_scalar(cfg_node *map, const char *block, const char *key, const char *value,
                   dp_err *err);
void cfg_free(cfg_node *n);               /* NULL is a no-op */
/* Make child (which has a key) map's entry of that key, replacing and freeing an entry
 * already there; map owns child afterwards. DP_ENOMEM (child freed) or 0. */
int cfg_put(cfg_node *map, cfg_node *child);
/* Remove and free map's entry `key`, if any. */
void cfg_remove(cfg_node *map, const char *key);
/* A new scalar entry key: value at the position of `at` (messages point there). NULL on
 * ENOMEM. */
cfg_node *cfg_new_scalar(const char *key, const char *value, const cfg_node *at);
/* A new empty map entry key at the position of `at`. NULL on ENOMEM. */
cfg_node *cfg_new_map(const char *key, const cfg_node *at);

cfg_type cfg_scalar_type(const cfg_node *scalar);

/* Typed reads of a scalar; on mismatch fill err at the node's position ("train.epochs:
 * expected an integer, got 'five'") and return DP_ECONFIG. `what` names the field. */
int cfg_as_double(const cfg_node *n, const char *what, double *out, dp_err *err);
int cfg_as_long(const cfg_node *n, const char *what, long *out, dp_err *err);
int cfg_as_bool(const cfg_node *n, const char *what, int *out, dp_err *err);
int cfg_as_string(const cfg_node *n, const char *what, const char **out, dp_err *err);

/* Error at a node's position (value position; key position when at_key). Returns code. */
int cfg_error(dp_err *err, const cfg_node *n, int at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The node as typed JSON (maps keep their order). NULL on ENOMEM. */
json_t *cfg_to_json(const cfg_node *n);

/* Closest candidate to `word` by edit distance, or NULL if none is close enough
 * (distance <= max(1, len/3)). For "did you mean" suggestions. */
const char *cfg_suggest(const char *word, const char *const *candidates, size_t n);

// ---- field readers (config_read.c) ------------------------------------------------
/* Every reader returns 0 or DP_ECONFIG with err set at a position. bname names the block
 * in messages ("train" gives "train.epochs"; "" for a top-level key). A reader given a
 * NULL blk treats the key as absent. */

#define CFG_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* An interval for cfg_read_number; text says it in the error ("> 0", "in [0, 1)"). */
typedef struct cfg_range {
    double lo, hi;
    int lo_open, hi_open;
    const char *text;
} cfg_range;

/* "a, b, c" into buf, cut to fit. Can't fail. */
void cfg_join_names(char *buf, size_t size, const char *const *names, size_t n);

/* Every key of map (a CFG_MAP) must be one of known; else an error at the first unknown
 * key, with a did-you-mean or the known keys. `where` names the map in the message. */
int cfg_check_keys(const cfg_node *map, const char *where, const char *const *known,
                   size_t n, dp_err *err);

/* n must be a map; else "WHAT: expected a map of settings ..." at n. */
int cfg_expect_map(const cfg_node *n, const char *what, dp_err *err);

/* "missing required key" error: at blk's key for a block, at blk for the document. */
int cfg_missing(const cfg_node *blk, const char *bname, const char *key, dp_err *err);

/* blk.key as a number in r (*out = def when absent and not required). */
int cfg_read_number(const cfg_node *blk, const char *bname, const char *key, int required,
                    double def, cfg_range r, double *out, dp_err *err);

/* blk.key as an integer in [lo, hi] (*out = def when absent and not required). */
int cfg_read_int(const cfg_node *blk, const char *bname, const char *key, int required,
                 long def, long lo, long hi, long *out, dp_err *err);

/* blk.key as one of names; *idx its index (def when absent and not required). noun names
 * the kind in the did-you-mean message ("unknown algorithm 'dp_sdg'"). */
int cfg_read_enum(const cfg_node *blk, const char *bname, const char *key, int required,
                  int def, const char *noun, const char *const *names, size_t n, int *idx,
                  dp_err *err);

/* blk.key as a string (optional: *out = NULL when absent). */
int cfg_read_string(const cfg_node *blk, const char *bname, const char *key,
                    const char **out, dp_err *err);


#endif
