/* privacy_truth.h: the tightest valid epsilon of a run of the first-order loop (DP-SGD and
 * its family), beside the epsilon its calibrating accountant claims (docs/privacy.md, "Privacy
 * truth"). The convex drivers state theirs themselves (drv_privacy_truth).
 */
#ifndef DPERM_PRIVACY_TRUTH_H
#define DPERM_PRIVACY_TRUTH_H

#include <jansson.h>

#include "harness/spec/spec.h"

/* Adds metrics.neighbours, epsilon_claimed (= claimed), epsilon_tight, tight_accountant
 * and privacy_verdict for a private first-order run s that took `steps` steps:
 *   Poisson batches (add/remove)     pld: the PLD accountant at (q, sigma, steps)
 *   fixed-size wor batches           pld_wor: the symmetrized subsampled Gaussian's PLD
 *     (replace-one)                  (pld.h)
 *   full batch                       pld at q = 1: the exact composition of Gaussians, of
 *                                    multiplier sigma (add/remove) or sigma/2 (replace-one)
 *   shuffled passes (replace-one)    an example is in one batch per pass: the exact
 *                                    composition of one Gaussian of multiplier sigma/2 per
 *                                    pass, no amplification claimed
 *   shuffled passes (add/remove)     none: removing an example moves every later batch
 * A run without noise gets verdict none. Can't fail: an accountant error leaves
 * epsilon_tight null with its message as the note. */
void privacy_truth_first_order(const run_spec *s, long steps, double claimed, json_t *metrics);

/* A run whose clipping bounds nothing per example (algorithm.clip_mode
 * batch_mean_per_tensor: the authors' code of DP-LSSGD): no valid guarantee, so
 * privacy_verdict none and epsilon_tight null, beside the claim; and two estimates of
 * what it spent, both treating the run as DP-SGD whose per-example bound is G, with the
 * noise it added (std sigma C on the batch sum), under Poisson sampling at rate b/n
 * (an approximation of its batches) and add/remove neighbours, with the pld accountant:
 *   epsilon_data_dependent  G = g_data, the largest per-example gradient norm seen on the
 *                           training data during the run (an estimate: another data set
 *                           could have larger gradients);
 *   epsilon_worst_case      G = the largest per-example gradient norm the model can have
 *                           over the input domain (linear models: ||p - e_y|| ||[x; 1]||
 *                           <= sqrt(2) max ||[x; 1]|| for softmax, max ||[x; 1]|| for
 *                           logistic), where the domain is known (rows in the unit ball,
 *                           images in [0, 1] per pixel before a fixed standardization);
 *                           null with a note otherwise.
 * Can't fail. */
void privacy_truth_as_published(const run_spec *s, long steps, double claimed, double g_data,
                                json_t *metrics);

#endif
