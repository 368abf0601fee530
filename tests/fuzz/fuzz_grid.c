/* fuzz_grid.c: libFuzzer target for the grid expander (harness/grid/grid.c, grid_only.c): a
 * YAML document is parsed and expanded (scales, grid lists and blocks, zip, run ids,
 * duplicate-id detection, --only). Validating the runs (spec.c) is left out: it builds
 * the models, which would cost most of each input's time in numerical set-up that has no
 * outside input of its own; the document-level checks are in fuzz_config.c.
 *
 * The expansion options ride in the input so the fuzzer can vary them: when the first
 * line is a comment "#@ WORD...", a word "scale=NAME" selects the scale and every other
 * word is an --only filter KEY=VALUE (at most 8). The line is a YAML comment, so the
 * input stays a valid document either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/config.h"
#include "harness/grid/grid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ONLY 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *options = NULL, *scale = NULL, *only[MAX_ONLY];
    size_t n_only = 0;
    if (size >= 2 && data[0] == '#' && data[1] == '@') {
        const uint8_t *nl = memchr(data, '\n', size);
        size_t len = nl ? (size_t)(nl - data) : size;
        options = strndup((const char *)data + 2, len - 2);
        if (!options) return 0;
        for (char *save, *w = strtok_r(options, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
            if (strncmp(w, "scale=", 6) == 0) scale = w + 6;
            else if (n_only < MAX_ONLY) only[n_only++] = w;
        }
    }
    cfg_doc doc;
    dp_err err;
    if (cfg_parse_string(&doc, (const char *)data, size, "fuzz.yaml", &err) == 0) {
        grid g;
        if (grid_expand(doc.root, scale, only, n_only, &g, &err) == 0) grid_destroy(&g);
        cfg_doc_destroy(&doc);
    }
    free(options);
    return 0;
}
