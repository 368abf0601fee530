/* accountant.h: every accountant dperm has for DP-SGD-style training, behind one
 * interface, and noise/steps calibration that works with any of them.
 *
 * The schedule is `steps` applications of the Gaussian mechanism on a subsample of rate q
 * (q = 1: full batch). sigma is the noise multiplier as DP-SGD uses it: noise std =
 * sigma x C, where C bounds each example's contribution to the summed gradient. Under
 * add/remove neighbours (Poisson sampling: every accountant but rdp_wor and pld_wor) the
 * sum's sensitivity is C; under replace-one neighbours (rdp_wor, pld_wor) it is 2C, so
 * they analyse a Gaussian of multiplier sigma/2 relative to its sensitivity
 * (lssgd_theorem1's own proof accounts for the replace-one sensitivity 2G/b itself).
 * Each accountant returns an epsilon that is an upper bound for (epsilon, delta)-DP of
 * that schedule under its own analysis; they differ in tightness and assumptions:
 *
 *   rdp          Poisson sampling, RDP (Mironov, Talwar, Zhang 2019), improved conversion
 *                (Balle et al. 2020). dperm's default: what Opacus 1.x and dp_accounting use.
 *   rdp_classic  the same RDP curve with the classic conversion (Mironov 2017, Prop. 3), as
 *                autodp's legacy accountant (DPlis) and TF Privacy's older versions report.
 *   moments      Abadi et al.'s moments accountant (Lecture15 §15.4): log-moments at integer
 *                lambda = 1..255 (RDP orders lambda + 1), classic tail bound.
 *   rdp_wor      sampling without replacement of a fixed-size batch (Wang, Balle,
 *                Kasiviswanathan 2018, Thm 9), replace-one neighbours (DP-LSSGD's proof).
 *   pld          Poisson sampling, privacy loss distribution with pessimistic
 *                discretization, composed by FFT: the tightest bound here.
 *   advanced     per-step analytic Gaussian (Balle & Wang 2018), amplification by
 *                subsampling (Lecture15 Lemma 15.4), advanced composition (Dwork, Rothblum,
 *                Vadhan 2010; Lecture15 Lemma 15.2), delta split optimized.
 *   basic        the same per step, basic composition (k eps, k delta).
 *   lssgd_theorem1  DP-LSSGD Thm 1 (Wang et al.): eps from nu^2 = 8 T alpha G^2/(n^2 eps),
 *                alpha = 2 log(1/delta)/eps + 1, with nu = sigma C / b the noise on the
 *                averaged gradient and G = C; batches of b drawn without replacement. Its
 *                precondition eps^2 <= 5 T q^2 log(1/delta) is checked (DP_EPRIVACY).
 *   lecture15_gd Lecture15 Lemma 15.1 (DP-GD, Alg. 2): the Gaussian on the full averaged
 *                gradient with sigma^2 = 64 L^2 T log(2/delta) log(2.5 T/delta)/(n^2 eps^2);
 *                with the noise sigma C on the sum of n gradients clipped to L = C that is
 *                eps = 8 sqrt(T log(2/delta) log(2.5 T/delta)) / sigma, for q = 1 (the
 *                whole training set each step) only; its precondition eps < 1 (Lemma
 *                15.2) is checked (DP_EPRIVACY).
 *   pld_wor      sampling without replacement of a fixed-size batch, replace-one
 *                neighbours: privacy loss distribution of the symmetrized subsampled
 *                Gaussian (Dong, Roth, Su 2022, Thm 9; Zhu, Dong, Wang 2022), composed as
 *                one symmetric PLD, pessimistic: the tightest bound here for wor batches
 *                (never above rdp_wor; never below pld at sigma/2).
 *
 * All functions are pure (no I/O), return 0 or a negative DP_E* code with err filled:
 * DP_EINVAL names the bad parameter (q outside (0,1], sigma <= 0, delta outside (0,1),
 * steps < 1, non-finite input); DP_EPRIVACY when a calibration target is unreachable.
 * No NaN is ever returned with status 0.
 */
#ifndef DPERM_ACCOUNTANT_H
#define DPERM_ACCOUNTANT_H

#include <stddef.h>

#include "algorithms/base/err.h"

typedef enum dp_accountant {
    DP_ACCOUNTANT_RDP = 1,
    DP_ACCOUNTANT_RDP_CLASSIC = 2,
    DP_ACCOUNTANT_MOMENTS = 3,
    DP_ACCOUNTANT_RDP_WOR = 4,
    DP_ACCOUNTANT_PLD = 5,
    DP_ACCOUNTANT_ADVANCED = 6,
    DP_ACCOUNTANT_BASIC = 7,
    DP_ACCOUNTANT_LSSGD_THM1 = 8,
    DP_ACCOUNTANT_LECTURE15_GD = 9,
    DP_ACCOUNTANT_PLD_WOR = 10
} dp_accountant;

#define DP_ACCOUNTANT_COUNT 10

/* Extra facts an accountant can report (all optional for the caller). */
typedef struct dp_accounting_detail {
    double order;       /* optimal RDP order (rdp family), else 0 */
    int order_at_edge;  /* 1 when that order is the first or last of the grid used */
    double eps_step;    /* per-step epsilon before composition (advanced/basic), else 0 */
    double delta_step;  /* per-step delta (advanced/basic), else 0 */
} dp_accounting_detail;

/* Name <-> kind ("rdp", "pld", ...). dp_accountant_parse returns DP_EINVAL for an
 * unknown name, with the known names in the message. */
const char *dp_accountant_name(dp_accountant a);
const char *dp_accountant_description(dp_accountant a);
int dp_accountant_parse(const char *name, dp_accountant *out, dp_err *err);

/* Epsilon spent by the schedule. detail may be NULL. */
int dp_accountant_epsilon(dp_accountant a, double q, double sigma, long steps, double delta,
                          double *eps, dp_accounting_detail *detail, dp_err *err);

/* Smallest sigma (relative tolerance 1e-3, rounded up so the target is met) with
 * epsilon(sigma) <= target_eps. */
int dp_accountant_sigma(dp_accountant a, double q, long steps, double delta,
                        double target_eps, double *sigma, dp_err *err);

/* Largest number of steps with epsilon <= target_eps (DP_EPRIVACY if even 1 step is
 * over; capped at max_steps, which must be >= 1). */
int dp_accountant_steps(dp_accountant a, double q, double sigma, double delta,
                        double target_eps, long max_steps, long *steps, dp_err *err);

#endif
