/* optimality.h: the optimality gap of a run on its regularized training objective
 * F(w) = (1/n) sum_i loss_i(w) + mu/2 ||w||^2 (Zhang17 §5, InputPert §5 and §6).
 *
 * A run asks for it with the top-level key `optimality_gap` (default false):
 *   optimality_gap: true                      (deep model: 50 reference epochs)
 *   optimality_gap: {reference_epochs: N}     (the same as true; N an int >= 1)
 * The parent computes the reference value once per distinct problem before the workers
 * fork (optimality_prepare), so a grid of 100 runs over one dataset solves once; each
 * worker then evaluates F at its released weights and records metrics.f_star,
 * metrics.optimality_gap = F(w) - f_star (recorded as computed, never clamped) and
 * metrics.f_star_method (what f_star is).
 *
 * Linear models (convex): f_star = F(w*), the exact minimum, solved with erm_exact on
 * the same training data, loss, l2 and Huber delta; the gap is an excess empirical risk,
 * >= 0 up to rounding. reference_epochs is ignored.
 *
 * Deep models (non-convex; F(w*) is not computable): f_star = F_ref, the lowest F over
 * the curve of a NON-PRIVATE reference training of the same model on the same training
 * data with the same l2 (InputPert §6's "ERM model without privacy consideration"):
 * weights initialised from seed 1, Adam (lr 1e-3, betas 0.9 / 0.999, eps 1e-8), shuffled
 * batches of min(128, n), N epochs, F evaluated after every epoch (and at the start).
 * F_ref is a local optimum reached by one optimizer, not a minimum: a private run may
 * beat it, and its gap is then negative.
 *
 * run_spec.optimality_gap holds 0 (off) or, when on, the reference epochs N
 * (OPTIMALITY_REFERENCE_EPOCHS for `true`; read by spec/spec_optimality.c), so a worker can say what its f_star is without the config.
 */
#ifndef DPERM_OPTIMALITY_H
#define DPERM_OPTIMALITY_H

#include <jansson.h>

#include "algorithms/models/linear.h"
#include "algorithms/models/model.h"
#include "datasets/dataset.h"
#include "harness/config/config.h"
#include "harness/grid/grid.h"
#include "harness/spec/spec.h"

/* For each spec i < n with optimality_gap: specs[i].f_star = F(w*) (linear) or F_ref
 * (deep) on its training set (synthetic data are generated and split here as the runner
 * does; real data are the bound ones), computing each distinct problem once. A problem
 * without a minimizer, a solve that does not converge or a reference training that fails
 * or never reaches a finite F is DP_ECONFIG at runs[i]'s optimality_gap key, with the
 * cause. Deep references train here, one after another: N epochs of the model per
 * distinct problem before the first run starts (and again on --resume). */
int optimality_prepare(run_spec *specs, const grid_run *runs, size_t n, dp_err *err);

/* F_ref for the deep model of s (s->deep, s->optimality_gap = N epochs) on training set
 * tr: the reference training described above, in a model of its own. 0, or the error of
 * spec_build_model / dp_train_model, or DP_EINVAL when no curve point has a finite F. */
int optimality_deep_reference(const run_spec *s, const dp_dataset *tr, double *f_ref,
                              dp_err *err);

/* metrics.f_star, metrics.optimality_gap and metrics.f_star_method ("erm_exact") for the
 * released linear model m on training set tr (numbers null when F(m) cannot be evaluated
 * or is not finite). Can't fail otherwise. */
void optimality_record(const run_spec *s, const dp_linear *m, const dp_dataset *tr,
                       json_t *metrics);

/* The same for the released deep model m: F(m) by dp_model_curve_point on tr with s->l2,
 * the gap F(m) - F_ref (may be negative), f_star_method saying what F_ref is. Uses m's
 * workspaces; can't fail otherwise (a failed evaluation records null numbers). */
void optimality_record_deep(const run_spec *s, dp_model *m, const dp_dataset *tr,
                            json_t *metrics);

#endif
