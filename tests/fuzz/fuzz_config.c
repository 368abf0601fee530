/* fuzz_config.c: libFuzzer target for the experiment YAML reader (harness/config/config_parse.c,
 * harness/config/config.c): any bytes go through cfg_parse_string; a document that parses is then
 * walked with every accessor (scalar typing, typed reads, lookups by key and dotted
 * path, did-you-mean), cloned, converted to JSON and checked at document level
 * (spec_check_document), so everything a later stage reads from the tree is exercised.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness/config/config.h"
#include "harness/spec/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const KEYS[] = {"experiment", "dataset", "model", "train", "algorithm",
                                   "privacy", "grid", "scales", "report", "seed"};
#define N_KEYS (sizeof KEYS / sizeof KEYS[0])

/* Every accessor on every node; results are discarded, only crashes and sanitizer
 * reports count. Depth is bounded by the parser's CFG_MAX_DEPTH. */
static void walk(const cfg_node *root, const cfg_node *n)
{
    dp_err err;
    if (n->kind == CFG_SCALAR) {
        double d;
        long l;
        int b;
        const char *s;
        (void)cfg_scalar_type(n);
        (void)cfg_as_double(n, "value", &d, &err);
        (void)cfg_as_long(n, "value", &l, &err);
        (void)cfg_as_bool(n, "value", &b, &err);
        (void)cfg_as_string(n, "value", &s, &err);
        (void)cfg_get_path(root, n->value);
        (void)cfg_suggest(n->value, KEYS, N_KEYS);
        return;
    }
    for (size_t i = 0; i < n->n_items; i++) {
        const cfg_node *c = n->items[i];
        if (c->key) {
            (void)cfg_get(n, c->key);
            (void)cfg_get_path(root, c->key);
            (void)cfg_suggest(c->key, KEYS, N_KEYS);
        }
        walk(root, c);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cfg_doc doc;
    dp_err err;
    if (cfg_parse_string(&doc, (const char *)data, size, "fuzz.yaml", &err) != 0) return 0;
    walk(doc.root, doc.root);
    cfg_node *copy = cfg_clone(doc.root);
    cfg_free(copy);
    json_t *j = cfg_to_json(doc.root);
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    free(text);
    json_decref(j);
    (void)spec_check_document(doc.root, &err);
    cfg_doc_destroy(&doc);
    return 0;
}
