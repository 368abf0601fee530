/* spec_int.h: what the files of spec/ share (the readers of each block). Private to
 * spec/: every other folder reads fields with config.h's field readers.
 */
#ifndef DPERM_SPEC_INT_H
#define DPERM_SPEC_INT_H

#include <stddef.h>

#include "harness/config/config.h"
#include "harness/spec/spec.h"

#define COUNT(a) CFG_COUNT(a)

/* train.readout into out->readouts / out->readout_epsilons (spec_readout.c); needs
 * out->train.epochs and out->train.algorithm. */
int spec_read_readout(const cfg_node *train, run_spec *out, dp_err *err);

/* root.optimality_gap (true, false or {reference_epochs: N}, default false) into
 * out->optimality_gap (0, or N; spec_optimality.c). Anything else is DP_ECONFIG at the
 * value (or at an unknown key of the map). */
int spec_read_optimality(const cfg_node *root, run_spec *out, dp_err *err);

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
