/* spec_algorithm.c: the `algorithm` block of a run config, and the table of the
 * first-order algorithms dperm runs (`dperm list algorithms` shows it).
 *
 *   algorithm.name             one of the table below
 *   algorithm.clip             private ones: number > 0 or .inf, required
 *   algorithm.noise_multiplier private ones: number >= 0; exactly one of this and epsilon
 *   algorithm.clip_mode        private first-order ones: per_example (default) |
 *                              batch_mean_per_tensor: the batch-mean gradient of each
 *                              parameter tensor clipped to clip, then noise of std
 *                              noise_multiplier * clip / batch_size per coordinate
 *                              (DP-LSSGD's released code; bounds nothing per example)
 *   algorithm.smoothing        dp_lssgd, dp_lsadam: DP-LSSGD's sigma >= 0, default 1
 *                              (0 reproduces dp_sgd / dp_adam bit for bit)
 *   algorithm.smoothing_layout dp_lssgd, dp_lsadam: vector (default) | per_tensor; a
 *                              linear model smooths its k (d+1) parameters as one vector,
 *                              or W (k x d, row-major) and b (k) apart; a deep model always
 *                              smooths per parameter tensor (vector is refused there)
 *   algorithm.beta1, beta2     Adam family: in [0, 1), defaults 0.9 and 0.999
 *   algorithm.adam_eps         Adam family: > 0, default 1e-8 (Kingma & Ba 2014)
 *   algorithm.radius           dplis: R >= 0, default 10 (DPlis §5.1: R = 10 and R_best)
 *   algorithm.samples          dplis: K in 0..1000, default 10 (DPlis §5.1); R = 0 or
 *                              K = 0 reproduces dp_sgd bit for bit
 *   algorithm.smoothing_aggregate dplis: mean (default: the paper's eq. 6, each example's
 *                              K gradients averaged, then clipped) | sum (the authors'
 *                              code: summed, then clipped; the same as mean when K = 1)
 * A key the named algorithm does not use is an error at that key (with a hint for keys
 * that come from a base block shared by a grid). Each algorithm is a setting of the one
 * first-order loop of algorithms/train.h: privacy (clip + noise), batches (full-batch for
 * the gd family, which ignores train.batch_size and train.sampling as sgd ignores
 * epsilon), update rule (plain or Adam) and DP-LSSGD's smoothing.
 */
#include <math.h>
#include <string.h>

#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

/* Keys each first-order family member takes. */
#define K_DP "clip noise_multiplier clip_mode"
#define K_ADAM "beta1 beta2 adam_eps"

static const char *const AGGREGATES[] = {"mean", "sum"}; /* dp_train_cfg.dplis_sum 0, 1 */

static const spec_algorithm ALGORITHMS[] = {
    {"sgd", "mini-batch SGD (non-private reference)", "Robbins & Monro 1951", 0,
     DP_UPDATE_SGD, 0, 0, SPEC_KIND_FIRST_ORDER, "", 0},
    {"gd", "full-batch gradient descent (non-private reference)", "Cauchy 1847; Zhang17 §3",
     0, DP_UPDATE_SGD, 0, 1, SPEC_KIND_FIRST_ORDER, "", 0},
    {"adam", "Adam (non-private reference)", "Kingma & Ba 2014, Alg. 1", 0, DP_UPDATE_ADAM, 0,
     0, SPEC_KIND_FIRST_ORDER, K_ADAM, 0},
    {"dp_sgd",
     "DP-SGD: per-example clipping to C, Gaussian noise sigma*C, Poisson, shuffled or wor "
     "batches, any accountant",
     "Abadi et al. 2016; Lecture15 Alg. 4; DPlis Alg. 1", 1, DP_UPDATE_SGD, 0, 0,
     SPEC_KIND_FIRST_ORDER, K_DP, 0},
    {"dp_gd",
     "DP gradient descent: every step the whole training set, clipped, Gaussian noise "
     "(advanced composition with privacy.accountant: advanced, or RDP)",
     "Lecture15 Alg. 2, Lemma 15.1 (Wang, Ye & Xu 2017's own DP-GD is wang17_gd)", 1,
     DP_UPDATE_SGD, 0, 1, SPEC_KIND_FIRST_ORDER, K_DP, 0},
    {"dp_adam", "DP-Adam: Adam on the DP-SGD gradient", "TF Privacy DPAdamOptimizer; DP-LSSGD §4.2",
     1, DP_UPDATE_ADAM, 0, 0, SPEC_KIND_FIRST_ORDER, K_DP " " K_ADAM, 0},
    {"dp_lssgd",
     "DP-LSSGD: the DP-SGD gradient smoothed by A_sigma^{-1} per parameter tensor",
     "DP-LSSGD eq. 4, Alg. 1", 1, DP_UPDATE_SGD, 1, 0, SPEC_KIND_FIRST_ORDER,
     K_DP " smoothing smoothing_layout", 0},
    {"dp_lsadam", "DP-LSAdam: Adam on the Laplacian-smoothed DP-SGD gradient",
     "DP-LSSGD §4.2", 1, DP_UPDATE_ADAM, 1, 0, SPEC_KIND_FIRST_ORDER,
     K_DP " smoothing smoothing_layout " K_ADAM, 0},
    {"dplis",
     "DPlis: DP-SGD on the randomized-smoothing loss, each per-example gradient averaged "
     "over K perturbed weight copies before clipping",
     "DPlis eq. 6, Alg. 2", 1, DP_UPDATE_SGD, 0, 0, SPEC_KIND_FIRST_ORDER,
     K_DP " radius samples smoothing_aggregate", 0},
    {"erm_exact",
     "exact ERM (non-private reference): Newton to ||grad F|| <= 1e-10 on the regularized "
     "training objective of any linear model; F(w*) of every optimality gap",
     "Zhang17 §5 and InputPert §5 (optimality gap F(w) - F(w*)); Nocedal & Wright Alg. 3.1",
     0, DP_UPDATE_SGD, 0, 1, SPEC_KIND_DRIVER, "", 0},
    {"objective_perturbation",
     "objective perturbation: exact minimizer of F(w) + b.w/n + Delta/2 ||w||^2, Gaussian b "
     "((eps, delta)) or laplace-type b (eps-DP), binary logistic",
     "Kifer, Smith & Thakurta 2012 Thm 2; Chaudhuri, Monteleoni & Sarwate 2011 Alg. 2", 1,
     DP_UPDATE_SGD, 0, 1, SPEC_KIND_DRIVER, "mechanism feature_bound noise", 0},
    {"output_perturbation",
     "output-perturbation GD: T full-batch GD steps, then Gaussian or high-dimensional "
     "Laplace noise on the weights scaled to GD's sensitivity",
     "Zhang17 Alg. 1, Lemmas 2-3, Thms 2-3", 1, DP_UPDATE_SGD, 0, 1, SPEC_KIND_DRIVER,
     "mechanism feature_bound norm_bound iterations step_size noise", 0},
    {"dp_sgd_bassily",
     "private SGD of Bassily et al.: uniform b-subsets, clipping at the loss's Lipschitz "
     "bound, Gaussian noise of Lemma 15.5, T = (n/b)^2 steps of a/sqrt(t) or 1/(mu t)",
     "Bassily et al. 2014; Lecture15 Alg. 3, Lemmas 15.4-15.7; Zhang17 §4 (b = 50)", 1,
     DP_UPDATE_SGD, 0, 0, SPEC_KIND_DRIVER,
     "batch_size feature_bound iterations norm_bound step_size clip noise", 0},
    {"rrpsgd",
     "random round private SGD: one example and Gaussian noise per step, stopped at a round "
     "R drawn uniformly from {1..n^2}",
     "Zhang17 Alg. 2, Thms 4-5", 1, DP_UPDATE_SGD, 0, 0, SPEC_KIND_DRIVER,
     "feature_bound rounds step_size clip noise", 0},
    {"input_perturbation",
     "input perturbation: Gaussian noise added once to every training feature vector, then "
     "plain full-batch GD on the perturbed data",
     "InputPert Alg. 1, Thm 1 (eq. 9)", 1, DP_UPDATE_SGD, 0, 1, SPEC_KIND_DRIVER,
     "iterations step_size feature_bound constant_c noise", 0},
    {"wang17_gd",
     "gradient perturbation of Wang et al.: T full-batch GD steps, Gaussian noise on every "
     "averaged gradient, calibrated exactly to (eps, delta) for replace-one neighbours",
     "Wang, Ye & Xu 2017 (NeurIPS), §6 DP-GD, Thm 6.2 (eta = 1/beta, T ~ (beta/mu) log)", 1,
     DP_UPDATE_SGD, 0, 1, SPEC_KIND_DRIVER, "iterations step_size feature_bound clip noise", 0},
    {"pate",
     "PATE: teachers trained on disjoint parts of the data (the top-level teachers block) "
     "vote on public examples; LNMax, GNMax, Confident-GNMax or PTR labels them privately; "
     "the student (model, train) learns from the answered ones",
     "Papernot et al. 2017 (LNMax, Thm 3); Papernot et al. 2018 (GNMax, Confident-GNMax, "
     "data-dependent RDP, smooth sensitivity); Lecture15 §15.5.1 (PTR); DPlis App. D "
     "(smoothed student)", 1, DP_UPDATE_SGD, 0, 0, SPEC_KIND_DRIVER,
     "aggregator queries lambda sigma sigma1 threshold ptr_epsilon ptr_delta release "
     "smooth_sigma samples", 1},
};

/* Every algorithm.* key any algorithm takes: unknown keys get a did-you-mean from these. */
static const char *const ALGO_KEYS[] = {"name",  "clip",  "noise_multiplier", "smoothing",
                                        "beta1", "beta2", "adam_eps",         "radius",
                                        "samples", "clip_mode", "smoothing_layout",
                                        "smoothing_aggregate",
                                        /* convex drivers (driver_*.c) */
                                        "mechanism", "feature_bound", "norm_bound",
                                        "iterations", "step_size", "batch_size",
                                        "noise", "rounds",
                                        "constant_c",
                                        /* pate (drivers/pate.c) */
                                        "aggregator", "queries", "lambda", "sigma", "sigma1",
                                        "threshold", "ptr_epsilon", "ptr_delta",
                                        "release", "smooth_sigma"};

const spec_algorithm *spec_algorithm_list(size_t *n)
{
    *n = COUNT(ALGORITHMS);
    return ALGORITHMS;
}

/* Whether algorithm a takes key k: "name", or a word of a->keys. */
static int takes(const spec_algorithm *a, const char *k)
{
    if (!strcmp(k, "name")) return 1;
    size_t n = strlen(k);
    for (const char *p = a->keys; (p = strstr(p, k)) != NULL; p += n)
        if ((p == a->keys || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

int spec_read_algorithm(const cfg_node *algo, run_spec *out, dp_err *err)
{
    const char *names[COUNT(ALGORITHMS)];
    for (size_t i = 0; i < COUNT(ALGORITHMS); i++) names[i] = ALGORITHMS[i].name;
    int idx = 0, rc;
    if ((rc = cfg_check_keys(algo, "algorithm", ALGO_KEYS, COUNT(ALGO_KEYS), err)) ||
        (rc = cfg_read_enum(algo, "algorithm", "name", 1, 0, "algorithm", names,
                            COUNT(ALGORITHMS), &idx, err)))
        return rc;
    const spec_algorithm *a = &ALGORITHMS[idx];
    out->algo = a;
    snprintf(out->algorithm, sizeof out->algorithm, "%s", a->name);
    for (size_t i = 0; i < algo->n_items; i++) {
        const char *k = algo->items[i]->key;
        if (takes(a, k)) continue;
        rc = cfg_error(err, algo->items[i], 1, "algorithm.%s is not used by %s; remove it",
                       k, a->name);
        dp_err_hint(err, "when it comes from a base algorithm block shared by a grid, move "
                         "it into the grid entries of the algorithms that use it");
        return rc;
    }
    dp_train_cfg *tc = &out->train;
    tc->algorithm = a->private_ ? DP_ALGO_DP_SGD : DP_ALGO_SGD;
    tc->update = a->update;
    const cfg_range unit = {0, 1, 0, 1, "in [0, 1)"};
    if (a->update == DP_UPDATE_ADAM &&
        ((rc = cfg_read_number(algo, "algorithm", "beta1", 0, 0.9, unit, &tc->adam_beta1,
                               err)) ||
         (rc = cfg_read_number(algo, "algorithm", "beta2", 0, 0.999, unit, &tc->adam_beta2,
                               err)) ||
         (rc = cfg_read_number(algo, "algorithm", "adam_eps", 0, 1e-8,
                               (cfg_range){0, INFINITY, 1, 1, "> 0 and finite"},
                                &tc->adam_eps, err))))
        return rc;
    if (a->smoothing &&
        (rc = cfg_read_number(algo, "algorithm", "smoothing", 0, 1.0,
                              (cfg_range){0, INFINITY, 0, 1, ">= 0 and finite"},
                               &tc->smoothing, err)))
        return rc;
    if (a->smoothing) {
        static const char *const LAYOUTS[] = {"vector", "per_tensor"};
        int layout = 0;
        if ((rc = cfg_read_enum(algo, "algorithm", "smoothing_layout", 0, 0,
                                "smoothing layout", LAYOUTS, COUNT(LAYOUTS), &layout, err)))
            return rc;
        if (out->deep && cfg_get(algo, "smoothing_layout") && layout == 0)
            return cfg_error(err, cfg_get(algo, "smoothing_layout"), 0,
                             "algorithm.smoothing_layout vector applies to linear models; "
                             "%s is smoothed per parameter tensor (per_tensor)",
                             out->model_name);
        tc->smoothing_layout = layout ? DP_SMOOTH_PER_TENSOR : DP_SMOOTH_VECTOR;
    }
    if (takes(a, "samples")) {
        long k;
        if ((rc = cfg_read_number(algo, "algorithm", "radius", 0, 10.0,
                                  (cfg_range){0, INFINITY, 0, 1, ">= 0 and finite"},
                                   &tc->dplis_radius, err)) ||
            (rc = cfg_read_int(algo, "algorithm", "samples", 0, 10, 0, DP_DPLIS_MAX_SAMPLES,
                               &k, err)) ||
            (rc = cfg_read_enum(algo, "algorithm", "smoothing_aggregate", 0, 0, "aggregation",
                                AGGREGATES, COUNT(AGGREGATES), &tc->dplis_sum, err)))
            return rc;
        tc->dplis_samples = (int)k;
    }
    /* A driver's algorithm (driver.h) reads its own clip, if it takes one. */
    if (!takes(a, "clip") || a->kind == SPEC_KIND_DRIVER) {
        tc->clip = INFINITY;
        tc->noise_multiplier = 0;
        return 0;
    }
    if (!cfg_get(algo, "clip")) {
        rc = cfg_missing(algo, "algorithm", "clip", err);
        dp_err_hint(err, "%s clips each example's gradient to norm clip (> 0, or .inf)",
                    a->name);
        return rc;
    }
    static const char *const CLIP_MODES[] = {"per_example", "batch_mean_per_tensor"};
    int mode = 0;
    if ((rc = cfg_read_enum(algo, "algorithm", "clip_mode", 0, 0, "clip mode", CLIP_MODES,
                            COUNT(CLIP_MODES), &mode, err)))
        return rc;
    tc->clip_mode = mode ? DP_CLIP_BATCH_MEAN_PER_TENSOR : DP_CLIP_PER_EXAMPLE;
    if ((rc = cfg_read_number(algo, "algorithm", "clip", 1, 0,
                              (cfg_range){0, INFINITY, 1, 0, "> 0 (or .inf)"}, &tc->clip,
                               err)) ||
        (rc = cfg_read_number(algo, "algorithm", "noise_multiplier", 0, 0,
                              (cfg_range){0, INFINITY, 0, 1, ">= 0 and finite"},
                               &tc->noise_multiplier, err)))
        return rc;
    out->has_noise_multiplier = cfg_get(algo, "noise_multiplier") != NULL;
    return 0;
}
