/* spec_neighbours.c: privacy.neighbours, the neighbour relation a private run's guarantee
 * is for, its default (the relation of the paper behind the mechanism) and which relations
 * each mechanism has an analysis for.
 *
 * Two data sets are neighbours when one adds or removes an example (add_remove) or
 * replaces one example by another (replace_one). The relation sets the sensitivity every
 * calibration uses: a sum of per-example terms bounded by C moves by C when an example is
 * added or removed, by 2C when one is replaced.
 *
 *   first-order private algorithms (dp_sgd and its family): the relation of the calibrating
 *     accountant by default: replace-one for rdp_wor, pld_wor, lssgd_theorem1 (DP-LSSGD Thm
 *     1's proof) and lecture15_gd (Lecture15 Lemma 15.1: sensitivity 2L/n), add/remove for
 *     the Poisson accountants (Abadi et al. 2016; DPlis). Poisson batches have an analysis
 *     for add/remove only here, fixed-size batches without replacement for replace-one only;
 *     the full batch (q = 1) has both: under replace-one an add/remove accountant is given
 *     the multiplier sigma/2 (the sum moves by 2C), under add/remove a replace-one
 *     accountant keeps its own (a bound for sensitivity 2C covers C: valid, not tight).
 *     Shuffled passes have no accountant; their tight bound is per pass, replace-one.
 *   objective_perturbation: replace-one by default (Chaudhuri et al. 2011 and InputPert's
 *     comparison define neighbours so); Gaussian has both (Kifer et al.'s zeta for
 *     add/remove, 2 zeta for replace-one: objective_pert.h), Laplace replace-one only.
 *   output_perturbation (Zhang17 Lemmas 2-3), dp_sgd_bassily (Bassily et al. 2014;
 *     Lecture15 Lemma 15.5), rrpsgd (Zhang17 Thm 4), input_perturbation (InputPert Thm 1),
 *     wang17_gd (Wang, Ye & Xu 2017): replace-one only, the relation of their proofs (GD on
 *     n examples; removing one changes the average they all take).
 */
#include <string.h>

#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

static const char *const NAMES[] = {"add_remove", "replace_one"};

const char *spec_neighbours_name(spec_neighbours nb)
{
    return nb == SPEC_NEIGHBOURS_REPLACE_ONE ? "replace_one" : "add_remove";
}

spec_neighbours spec_accountant_neighbours(dp_accountant a)
{
    return spec_accountant_sampling(a) == DP_SAMPLING_WOR || a == DP_ACCOUNTANT_LECTURE15_GD
               ? SPEC_NEIGHBOURS_REPLACE_ONE
               : SPEC_NEIGHBOURS_ADD_REMOVE;
}

double spec_accountant_noise_factor(const run_spec *s, dp_accountant a)
{
    return s->neighbours == SPEC_NEIGHBOURS_REPLACE_ONE &&
                   spec_accountant_neighbours(a) == SPEC_NEIGHBOURS_ADD_REMOVE
               ? 0.5
               : 1.0;
}

/* The convex-driver algorithms with an analysis for add/remove too. */
static int convex_has_add_remove(const char *name)
{
    return strcmp(name, "objective_perturbation") == 0;
}

const char *spec_algorithm_neighbours(const spec_algorithm *a)
{
    if (!a->private_) return "none (non-private)";
    if (a->kind == SPEC_KIND_DRIVER)
        return convex_has_add_remove(a->name)
                   ? "replace_one (default; add_remove with mechanism: gaussian)"
                   : "replace_one (its theorem's; add_remove has no analysis)";
    return a->full_batch
               ? "the accountant's (replace_one for lecture15_gd, else add_remove); both allowed"
               : "the accountant's: add_remove with Poisson batches, replace_one with wor "
                 "batches (rdp_wor, pld_wor, lssgd_theorem1)";
}

int spec_read_neighbours(const cfg_node *root, run_spec *out, dp_err *err)
{
    const cfg_node *privacy = cfg_get(root, "privacy"), *n = cfg_get(privacy, "neighbours");
    int idx = 0, rc;
    if ((rc = cfg_read_enum(privacy, "privacy", "neighbours", 0, 0, "neighbour relation",
                            NAMES, COUNT(NAMES), &idx, err)))
        return rc;
    spec_neighbours given = idx == 1 ? SPEC_NEIGHBOURS_REPLACE_ONE : SPEC_NEIGHBOURS_ADD_REMOVE;
    const spec_algorithm *a = out->algo;
    if (!a || !a->private_) { /* no guarantee to state: the key changes nothing */
        out->neighbours = n ? given : SPEC_NEIGHBOURS_ADD_REMOVE;
        return 0;
    }
    if (a->kind == SPEC_KIND_DRIVER) {
        out->neighbours = n ? given : SPEC_NEIGHBOURS_REPLACE_ONE;
        if (out->neighbours == SPEC_NEIGHBOURS_ADD_REMOVE && !convex_has_add_remove(a->name))
            return cfg_error(err, n, 0,
                             "privacy.neighbours add_remove: %s's privacy theorem is for "
                             "replace-one neighbours and dperm has no add/remove analysis of "
                             "it; use replace_one (the default)", a->name);
        return 0;
    }
    /* Default: the relation of the sampling's analysis, which is the accountant's
     * whenever the accountant analyses the run's batches (a calibrated run's always do). */
    dp_sampling smp = out->train.sampling;
    spec_neighbours dflt = smp == DP_SAMPLING_POISSON ? SPEC_NEIGHBOURS_ADD_REMOVE
                         : smp == DP_SAMPLING_WOR     ? SPEC_NEIGHBOURS_REPLACE_ONE
                                                      : spec_accountant_neighbours(out->accountant_kind);
    out->neighbours = n ? given : dflt;
    if (out->neighbours == SPEC_NEIGHBOURS_REPLACE_ONE && smp == DP_SAMPLING_POISSON)
        return cfg_error(err, n, 0,
                         "privacy.neighbours replace_one with Poisson batches: dperm has no "
                         "replace-one analysis of Poisson sampling; use add_remove, or "
                         "train.sampling: wor with privacy.accountant rdp_wor or pld_wor");
    if (out->neighbours == SPEC_NEIGHBOURS_ADD_REMOVE && smp == DP_SAMPLING_WOR)
        return cfg_error(err, n, 0,
                         "privacy.neighbours add_remove with fixed-size batches drawn without "
                         "replacement: their analyses (rdp_wor, pld_wor, lssgd_theorem1) are "
                         "for replace-one; use replace_one, or train.sampling: poisson");
    return 0;
}
