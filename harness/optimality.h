/* optimality.h: the optimality gap F(w) - F(w*) of a linear-model run (Zhang17 §5,
 * InputPert §5: excess empirical risk on the regularized training objective
 * F(w) = (1/n) sum_i loss_i(w) + mu/2 ||w||^2).
 *
 * A run asks for it with the top-level key `optimality_gap: true` (default false). The
 * parent computes F(w*) with erm_exact once per distinct (training data, loss, l2,
 * Huber delta) before the workers fork (optimality_prepare), so a grid of 100 runs over
 * one dataset solves once; each worker then evaluates F at its released weights and
 * records f_star and optimality_gap = F(w) - F(w*) (>= 0 up to rounding; recorded as
 * computed, never clamped).
 */
#ifndef DPERM_OPTIMALITY_H
#define DPERM_OPTIMALITY_H

#include <jansson.h>

#include "../algorithms/models/linear.h"
#include "../datasets/dataset.h"
#include "config.h"
#include "grid.h"
#include "spec.h"

/* root.optimality_gap (bool, default false) into out->optimality_gap; out's model must
 * be read. A deep model with it true is DP_ECONFIG at the key (F(w*) is not computable
 * for a non-convex objective). */
int optimality_read(const cfg_node *root, run_spec *out, dp_err *err);

/* For each spec i < n with optimality_gap: specs[i].f_star = F(w*) on its training set
 * (synthetic data are generated and split here as the runner does; real data are the
 * bound ones), solving each distinct problem once. A problem without a minimizer or a
 * solve that does not converge is DP_ECONFIG at runs[i]'s optimality_gap key, with the
 * solver's message. */
int optimality_prepare(run_spec *specs, const grid_run *runs, size_t n, dp_err *err);

/* metrics.f_star and metrics.optimality_gap for the released model m on training set tr
 * (null when F(m) cannot be evaluated or is not finite). Can't fail otherwise. */
void optimality_record(const run_spec *s, const dp_linear *m, const dp_dataset *tr,
                       json_t *metrics);

#endif
