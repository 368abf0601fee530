/* spec_int.h: what spec.c (one run) and spec_document.c (the document) share: the field
 * readers of spec_check.c. Private to the spec module, not for other files.
 *
 * Every reader returns 0 or DP_ECONFIG with err set at a position (see spec_check.c).
 * bname names the block in messages ("train" gives "train.epochs"; "" for a top-level
 * key). A reader given a NULL blk treats the key as absent.
 */
#ifndef DPERM_SPEC_INT_H
#define DPERM_SPEC_INT_H

#include <stddef.h>

#include "harness/config/config.h"
#include "harness/spec/spec.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* An interval for spec_read_number; text says it in the error ("> 0", "in [0, 1)"). */
typedef struct spec_range {
    double lo, hi;
    int lo_open, hi_open;
    const char *text;
} spec_range;

/* "a, b, c" into buf, cut to fit. Can't fail. */
void spec_join_names(char *buf, size_t size, const char *const *names, size_t n);

/* Every key of map (a CFG_MAP) must be one of known; else an error at the first unknown
 * key, with a did-you-mean or the known keys. `where` names the map in the message. */
int spec_check_keys(const cfg_node *map, const char *where, const char *const *known,
                    size_t n, dp_err *err);

/* n must be a map; else "WHAT: expected a map of settings ..." at n. */
int spec_expect_map(const cfg_node *n, const char *what, dp_err *err);

/* "missing required key" error: at blk's key for a block, at blk for the document. */
int spec_missing(const cfg_node *blk, const char *bname, const char *key, dp_err *err);

/* blk.key as a number in r (*out = def when absent and not required). */
int spec_read_number(const cfg_node *blk, const char *bname, const char *key, int required,
                     double def, spec_range r, double *out, dp_err *err);

/* blk.key as an integer in [lo, hi] (*out = def when absent and not required). */
int spec_read_int(const cfg_node *blk, const char *bname, const char *key, int required,
                  long def, long lo, long hi, long *out, dp_err *err);

/* blk.key as one of names; *idx its index (def when absent and not required). noun names
 * the kind in the did-you-mean message ("unknown algorithm 'dp_sdg'"). */
int spec_read_enum(const cfg_node *blk, const char *bname, const char *key, int required,
                   int def, const char *noun, const char *const *names, size_t n, int *idx,
                   dp_err *err);

/* blk.key as a string (optional: *out = NULL when absent). */
int spec_read_string(const cfg_node *blk, const char *bname, const char *key,
                     const char **out, dp_err *err);

/* train.readout into out->readouts / out->readout_epsilons (spec_readout.c); needs
 * out->train.epochs and out->train.algorithm. */
int spec_read_readout(const cfg_node *train, run_spec *out, dp_err *err);

/* The algorithm block into out (spec_algorithm.c): out->algorithm, out->algo, and the
 * algorithm's fields of out->train (privacy, update rule, smoothing). */
int spec_read_algorithm(const cfg_node *algo, run_spec *out, dp_err *err);

/* model.layers of a custom model into out->layers (spec_layers.c). */
int spec_read_layers(const cfg_node *model, run_spec *out, dp_err *err);

/* The model block into out (spec_model.c); out's dataset fields must be filled. For
 * real datasets the fit is checked later (spec_bind_data). */
int spec_read_model(const cfg_node *model, run_spec *out, dp_err *err);

/* Whether the model of out fits its data (classes, shape): an error at model.type. */
int spec_check_model_fit(const cfg_node *model, run_spec *out, dp_err *err);

/* The dataset block of a real dataset (spec_data.c); dataset.name is known to exist. */
int spec_read_real_dataset(const cfg_node *ds, run_spec *out, dp_err *err);

/* [A-Za-z0-9_.-]+ and not "." or "..": safe as one file or folder name. 1 or 0. */
int spec_safe_name(const char *s);

/* root.experiment as a safe name of 1 to 127 chars (absent is an error too); *name
 * points into the node. */
int spec_check_experiment(const cfg_node *root, dp_err *err, const char **name);

#endif
