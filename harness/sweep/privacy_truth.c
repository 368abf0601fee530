/* privacy_truth.c: the tightest valid epsilon of a first-order run (privacy_truth.h).
 *
 * Why these accountants are valid for what ran: the loop samples exactly as its
 * train.sampling says (algorithms/train.h) and adds N(0, sigma^2 C^2) to the sum of
 * per-example gradients clipped to C (DPlis averages its K perturbed copies before
 * clipping, so the same bound holds). Poisson batches under add/remove are the pld
 * accountant's mechanism (pld.h: dp_accounting's, pessimistic); fixed-size batches
 * without replacement under replace-one are pld_wor's; the full batch is q = 1 of either;
 * a shuffled pass puts each example in one batch, so one pass is one Gaussian release of
 * the example's clipped gradient and passes compose (no amplification by shuffling is
 * claimed).
 */
#include "harness/sweep/privacy_truth.h"

#include <math.h>
#include <stdio.h>

#include "algorithms/privacy/pld.h"
#include "datasets/data.h"
#include "harness/drivers/driver_common.h"
#include "harness/sweep/runner.h"

void privacy_truth_first_order(const run_spec *s, long steps, double claimed, json_t *metrics)
{
    json_object_set_new(metrics, "neighbours",
                        json_string(spec_neighbours_name(s->neighbours)));
    double sigma = s->train.noise_multiplier, delta = s->delta, eps = NAN;
    if (!(sigma > 0)) {
        drv_privacy_truth(metrics, claimed, NAN, NULL, "no noise: no privacy");
        return;
    }
    int replace = s->neighbours == SPEC_NEIGHBOURS_REPLACE_ONE, rc = 0;
    size_t n = s->n_train, b = s->train.batch_size;
    double q = n ? (double)b / (double)n : 1.0;
    const char *name = NULL;
    char note[DP_ERR_MSG_MAX + 64] = "";
    dp_err err;
    if (steps < 1) {
        drv_privacy_truth(metrics, claimed, 0.0, "none needed (no step ran)", NULL);
        return;
    }
    switch (s->train.sampling) {
    case DP_SAMPLING_POISSON:
        name = "pld: Poisson-subsampled Gaussian, add/remove, privacy loss distribution";
        rc = dp_pld_epsilon(q >= 1.0 ? 1.0 : q, sigma, steps, delta, 0.0, &eps, &err);
        break;
    case DP_SAMPLING_WOR:
        name = "pld_wor: fixed-size batches without replacement, replace-one, privacy loss "
               "distribution of the symmetrized subsampled Gaussian";
        rc = dp_pld_wor_epsilon(q >= 1.0 ? 1.0 : q, sigma, steps, delta, 0.0, &eps, &err);
        break;
    case DP_SAMPLING_FULL:
        name = replace ? "pld at q = 1: exact composition of Gaussians of multiplier sigma/2 "
                         "(replace-one: the sum moves by 2C)"
                       : "pld at q = 1: exact composition of Gaussians of multiplier sigma "
                         "(add/remove)";
        rc = dp_pld_epsilon(1.0, replace ? 0.5 * sigma : sigma, steps, delta, 0.0, &eps, &err);
        break;
    case DP_SAMPLING_SHUFFLE: {
        if (!replace) {
            snprintf(note, sizeof note, "shuffled passes under add/remove neighbours: removing "
                     "an example moves every later batch, and dperm has no analysis of that");
            break;
        }
        long per_pass = b ? (long)(s->train.partial_batch == DP_PARTIAL_KEEP ? (n + b - 1) / b
                                                                            : n / b)
                          : 1;
        if (per_pass < 1) per_pass = 1;
        long passes = (steps + per_pass - 1) / per_pass;
        name = "gaussian_per_pass: one Gaussian of multiplier sigma/2 per shuffled pass "
               "(replace-one), composed exactly; no amplification by shuffling claimed";
        rc = dp_pld_epsilon(1.0, 0.5 * sigma, passes, delta, 0.0, &eps, &err);
        break;
    }
    default:
        snprintf(note, sizeof note, "no tight accountant for this batch sampling");
    }
    if (rc) snprintf(note, sizeof note, "the tight accountant failed: %s", err.msg);
    if (rc || !name) eps = NAN;
    drv_privacy_truth(metrics, claimed, eps, name, note[0] ? note : NULL);
}

/* The largest ||[x; 1]|| over the input domain of s's data, or NAN when dperm does not
 * know the domain (tabular data scaled by training statistics). */
static double domain_row_norm(const run_spec *s)
{
    if (!s->real) return sqrt(2.0); /* synthetic rows lie in the unit ball */
    if (s->data.unit_l2) return sqrt(2.0);
    const dp_data_info *info = dp_data_find(s->data.name);
    int image = info && (info->format == DP_FMT_IDX || info->format == DP_FMT_CIFAR ||
                         info->format == DP_FMT_MAT);
    if (!image || s->data.scale != DP_SCALE_MINMAX) return NAN;
    /* pixels in [0, 1]; a fixed standardization maps a channel to [-m/s, (1-m)/s] */
    int c = s->in_c > 0 ? s->in_c : 1;
    size_t d = (size_t)(s->in_c > 0 ? s->in_c : 1) * (size_t)(s->in_h > 0 ? s->in_h : 1) *
               (size_t)(s->in_w > 0 ? s->in_w : 1);
    double sq = 0.0;
    for (int k = 0; k < c; k++) {
        double m = 0.0, sd = 1.0;
        if (s->data.n_standardize_mean)
            m = s->data.standardize_mean[s->data.n_standardize_mean == 1 ? 0 : (size_t)k];
        if (s->data.n_standardize_std)
            sd = s->data.standardize_std[s->data.n_standardize_std == 1 ? 0 : (size_t)k];
        double hi = fmax(fabs(0.0 - m), fabs(1.0 - m)) / sd;
        sq += (double)(d / (size_t)c) * hi * hi;
    }
    return sqrt(sq + 1.0);
}

/* Grid points of the estimates' PLD. They describe runs that are not private, with
 * epsilons of tens to hundreds, where the full grid (DP_PLD_MAX_POINTS) took 1-4 s per
 * estimate, two per run, as long as the run itself in lssgd's quick grids; 2^16 points
 * move such epsilons by under 1e-4 of their value (pld.h) at a fifth of the time. */
#define ESTIMATE_POINTS (1L << 16)

/* Epsilon of steps rounds of the Poisson-subsampled Gaussian at rate q with noise std
 * sigma_c on a sum whose per-example bound is G (multiplier sigma_c / G); NAN on error. */
static double estimate(double q, double sigma_c, double G, long steps, double delta)
{
    double eps = NAN;
    dp_err err;
    if (!(G > 0) || !isfinite(G) || !(sigma_c > 0)) return NAN;
    if (dp_pld_epsilon_coarse(q >= 1.0 ? 1.0 : q, sigma_c / G, steps, delta, ESTIMATE_POINTS,
                              &eps, &err))
        return NAN;
    return eps;
}

void privacy_truth_as_published(const run_spec *s, long steps, double claimed, double g_data,
                                json_t *metrics)
{
    json_object_set_new(metrics, "neighbours",
                        json_string(spec_neighbours_name(s->neighbours)));
    drv_privacy_truth(metrics, claimed, NAN, NULL,
                      "algorithm.clip_mode batch_mean_per_tensor clips the batch's mean "
                      "gradient, not each example's: nothing bounds one example's influence, "
                      "so no epsilon holds; epsilon_data_dependent and epsilon_worst_case "
                      "estimate what the run spent");
    size_t n = s->n_train, b = s->train.batch_size;
    double q = n ? (double)b / (double)n : 1.0;
    double sigma_c = s->train.noise_multiplier * s->train.clip; /* std on the batch sum */
    double row = s->deep || s->regression ? NAN : domain_row_norm(s);
    double g_worst = s->loss == DP_LOSS_SOFTMAX ? sqrt(2.0) * row : row;
    drv_num(metrics, "max_example_grad_norm", g_data);
    drv_num(metrics, "epsilon_data_dependent", estimate(q, sigma_c, g_data, steps, s->delta));
    drv_num(metrics, "worst_case_grad_norm", g_worst);
    drv_num(metrics, "epsilon_worst_case", estimate(q, sigma_c, g_worst, steps, s->delta));
    json_object_set_new(metrics, "epsilon_estimate_method",
                        json_string("estimates, not guarantees: the run as DP-SGD with "
                                    "per-example bound G and its noise (std sigma C on the "
                                    "batch sum), Poisson sampling at b/n, add/remove, pld "
                                    "on a grid of at most 2^16 points"));
    if (!isfinite(g_worst))
        json_object_set_new(metrics, "epsilon_worst_case_note",
                            json_string("the input domain of these data is not known to "
                                        "dperm (only rows in the unit ball and images in "
                                        "[0, 1] are)"));
}
