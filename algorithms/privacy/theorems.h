/* theorems.h: the seed papers' own noise calibrations and constants, each as one function
 * with the paper's formula and every precondition the paper states checked.
 *
 * Papers (shared/seeds/README.md): DP-LSSGD (Thm 1, Props 1-2), Zhang17 (Alg. 1 with
 * Lemmas 2-3 and Thms 2-3; Alg. 2 with Thms 4-5), Lecture15 (Lemmas 15.1, 15.5),
 * InputPert (Thms 1, 3). Where a paper's statement and its proof or algorithm disagree,
 * the function's comment says which one is implemented.
 *
 * All functions are pure (the round draws only advance the dp_rng given), return 0 or
 * a negative DP_E* code and fill err (may be NULL): DP_EINVAL for a parameter outside
 * its domain (non-finite, non-positive where the paper needs positive, NULL output),
 * DP_EPRIVACY when a precondition of the theorem is violated (the message names it).
 * Outputs are left unchanged on error.
 */
#ifndef DPERM_THEOREMS_H
#define DPERM_THEOREMS_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"

// ---- DP-LSSGD (Wang, Ye, Osher et al.) ------------------------------------------------

/* DP-LSSGD Thm 1: standard deviation nu of the Gaussian n ~ N(0, nu^2 I) added to the
 * averaged mini-batch gradient (1/b) sum_{i in B_k} grad f_i (Alg. 1, eq. 4),
 *   nu^2 = 8 T alpha G^2 / (n^2 eps),  alpha = 2 log(1/delta)/eps + 1,
 * for T iterations, n records, batch size b <= n, each f_i G-Lipschitz. Precondition
 * (DP_EPRIVACY): eps^2 <= 5 T b^2 log(1/delta) / n^2. delta in (0, 1). */
int dp_thm_lssgd_nu(double eps, double delta, long T, long n, long b, double G, double *nu,
                    dp_err *err);

/* The inverse: the eps Thm 1 certifies for a given nu. With K = 8 T G^2 / n^2 the
 * relation is nu^2 eps^2 - K eps - 2 K log(1/delta) = 0, whose positive root is
 *   eps = (K + sqrt(K^2 + 8 K log(1/delta) nu^2)) / (2 nu^2).
 * DP_EPRIVACY when that eps violates the precondition above. */
int dp_thm_lssgd_epsilon(double nu, double delta, long T, long n, long b, double G,
                         double *eps, dp_err *err);

/* nu as a noise multiplier of the batch sum: noise on sum_{i in B} grad f_i has std b nu.
 *   z_clip    = b nu / G      std over the per-example bound G (DP-SGD's clip norm C = G;
 *                             what the add/remove `rdp` accountant takes),
 *   z_replace = b nu / (2 G)  std over the replace-one sensitivity 2G of the sum, the
 *                             ratio nu / Delta(q_k) of the proof of Thm 1 (what the
 *                             `rdp_wor` accountant takes).
 * Either output may be NULL. */
int dp_thm_lssgd_noise_multiplier(double nu, long b, double G, double *z_clip,
                                  double *z_replace, dp_err *err);

/* DP-LSSGD Props 1 and 2 (closed forms; Tables 3, 4) for A_s = I - s L (periodic 1-D
 * Laplacian, smoothing s >= 0, dimension d >= 1):
 *   gamma = (1/d) sum_k 1/(1 + 2s - 2s cos(2 pi k/d))   = (1 + a^d) / ((1 - a^d) sqrt(4s+1)),
 *   beta  = (1/d) sum_k 1/(1 + 2s - 2s cos(2 pi k/d))^2
 *         = (2a^{2d+1} - xi a^{2d} + 2 xi d a^d - 2a + xi) / (s^2 xi^3 (1 - a^d)^2),
 * a = (2s + 1 - sqrt(4s+1)) / (2s), xi = -sqrt(4s+1)/s; s = 0 gives 1, 1. Either output
 * may be NULL. Relative accuracy ~1e-15 for every s and d (see theorems.c). */
int dp_thm_lssgd_constants(double s, long d, double *gamma, double *beta, dp_err *err);

/* The same two sums by direct summation, O(d): the naive reference for the closed forms. */
int dp_thm_lssgd_constants_direct(double s, long d, double *gamma, double *beta, dp_err *err);

// ---- Zhang17 (Zhang, Zheng, Mou, Wang, IJCAI 2017) ------------------------------------

/* Lemma 2: l2 sensitivity of T steps of full-batch GD with constant step eta on a convex,
 * beta-smooth, L-Lipschitz loss: Delta = 3 L T eta / n. Precondition: eta <= 1/beta. */
int dp_thm_zhang17_sens_convex(double L, double beta, double eta, long T, long n,
                               double *sens, dp_err *err);

/* Lemma 3: mu-strongly convex, beta-smooth, L-Lipschitz, eta <= 1/(beta + mu):
 * Delta = 5 L (mu + beta) / (n mu beta), for any T (mu <= beta is required: no function
 * is both otherwise; DP_EINVAL). */
int dp_thm_zhang17_sens_strongly_convex(double L, double mu, double beta, double eta, long n,
                                        double *sens, dp_err *err);

/* Thm 2 settings (strongly convex): eta = 1/(mu + beta), Delta = 5 L (1 + beta/mu)/(n beta),
 *   T = ceil((mu^2 + beta^2)/(mu beta) * log(mu^2 n^2 eps^2 D^2 / (L^2 d^2)))        delta = 0,
 *   T = ceil((mu^2 + beta^2)/(mu beta) * log(mu^2 n^2 eps^2 D^2 / (L^2 d log(1/delta)))) else;
 * the paper's T is Theta(.): the constant is taken as 1, and T >= 1 (the log may be
 * negative when the noise dominates). D bounds ||w_hat||. delta in [0, 1). Any of the
 * three outputs may be NULL. */
int dp_thm_zhang17_thm2(double L, double mu, double beta, long n, long d, double D,
                        double eps, double delta, double *eta, double *sens, long *T,
                        dp_err *err);

/* Thm 3 settings (convex): eta = 1/beta, T = ceil([beta^2 n^2 eps^2 D^2 / (L^2 d^2)]^(1/3))
 * for delta = 0, ceil([beta^2 n^2 eps^2 D^2 / (L^2 d log(1/delta))]^(1/3)) otherwise (Theta
 * constant 1, T >= 1), and Delta = 3 L T / (beta n) with that T. Outputs may be NULL. */
int dp_thm_zhang17_thm3(double L, double beta, long n, long d, double D, double eps,
                        double delta, double *eta, double *sens, long *T, dp_err *err);

/* Alg. 2 line 4 (RRPSGD): z_t ~ exp(-eps^2 ||z||^2 / (8 L^2 log(3n/delta) log(2/delta))),
 * i.e. N(0, s^2 I) per step with s^2 = 4 L^2 log(3n/delta) log(2/delta) / eps^2; *sigma = s.
 * Thm 4's preconditions: eps in (0, 1] and delta in (0, 1). */
int dp_thm_zhang17_rrpsgd_noise(double eps, double delta, double L, long n, double *sigma,
                                dp_err *err);

/* Thm 5: the gradient-noise variance sigma^2 = 4 L^2 + 4 d L^2 log(3n/delta) log(2/delta)
 * / eps^2 (= 4 L^2 + d s^2 with s from Alg. 2), and the step it recommends,
 * eta = min(1/beta, D_F / (sigma n)) with D_F = sqrt(2 (F(w0) - F*) / beta) given.
 * Same preconditions as Thm 4. Either output may be NULL. */
int dp_thm_zhang17_rrpsgd_step(double eps, double delta, double L, double beta, long n,
                               long d, double D_F, double *sigma2, double *eta, dp_err *err);

/* Thm 5's distribution of the number of rounds R over {1..m} (the paper: m = n^2):
 *   P(R = k+1) = (2 eta_k - beta eta_k^2) / sum_r (2 eta_r - beta eta_r^2),  k = 0..m-1.
 * Precondition: 0 < eta_k < 2/beta for every k (DP_EPRIVACY naming the k). p has m
 * entries, p[k] = P(R = k+1). */
int dp_thm_zhang17_rrpsgd_round_pmf(const double *eta, size_t m, double beta, double *p,
                                    dp_err *err);

/* Draws R in {1..m} from p (m entries summing to 1 within 1e-9): inverse CDF, O(m). */
int dp_thm_zhang17_rrpsgd_draw_round(dp_rng *r, const double *p, size_t m, long *R,
                                     dp_err *err);

/* With Thm 5's constant step eta_k = eta the distribution is uniform on {1..n^2}: draws R
 * without building the n^2-entry table. n in [1, 2^31). */
int dp_thm_zhang17_rrpsgd_draw_round_const(dp_rng *r, long n, long *R, dp_err *err);

// ---- Lecture15 (Di Wang, DP-ERM III notes) --------------------------------------------

/* Lemma 15.1 (DP-GD, Alg. 2): sigma^2 = 64 L^2 T log(2/delta) log(2.5 T/delta)/(n^2 eps^2)
 * for the Gaussian added to the full averaged gradient (sensitivity 2L/n), via Lemma 15.2
 * and the classic Gaussian Lemma 15.3. Preconditions: 0 < eps < 1 (Lemma 15.2), delta in
 * (0, 1). *sigma is the standard deviation. */
int dp_thm_lecture15_gd_sigma(double eps, double delta, double L, long T, long n,
                              double *sigma, dp_err *err);

/* Lemma 15.5 (DP-SGD with one uniformly sampled record per step, Alg. 3):
 *   sigma^2 = 64 L^2 T log(2/delta) log(2.5 T/(delta n)) / (n^2 eps^2).
 * Preconditions: 0 < eps < 1 (Lemma 15.2); the full-sum mechanism it amplifies must be
 * in Lemma 15.3's domain: n eps' < 1 with eps' = eps/(2 sqrt(2 T ln(2/delta))), and
 * n delta/(2T) < 1. The proof uses Lemma 15.4 in its linearized form eps' ~ eps/n (see
 * theorems.c for what the exact form gives). */
int dp_thm_lecture15_sgd_sigma(double eps, double delta, double L, long T, long n,
                               double *sigma, dp_err *err);

// ---- InputPert ------------------------------------------------------------------------

/* InputPert Thm 1, eq. (9): variance of the Gaussian added once to every feature,
 *   sigma^2 = c G^2 T log(1/delta) / (n (n - 1) sqrt(Delta) eps^2),
 * loss G-Lipschitz and Delta-strongly convex, T GD iterations, n >= 2 records, c > 0
 * the paper's unspecified constant (see dp_thm_inputpert_c_classic). delta in (0, 1). */
int dp_thm_inputpert_sigma2(double eps, double delta, double G, double Delta, long T, long n,
                            double c, double *sigma2, dp_err *err);

/* InputPert Thm 3, eq. (12), the Polyak-Lojasiewicz variant: sigma^2 = c G^2 T log(1/delta)
 * / (n (n - 1) eps^2). */
int dp_thm_inputpert_pl_sigma2(double eps, double delta, double G, long T, long n, double c,
                               double *sigma2, dp_err *err);

/* dperm's choice of c: the classic Gaussian-mechanism factor, c = 2 ln(1.25/delta) /
 * log(1/delta), so that c log(1/delta) = 2 ln(1.25/delta) = c_DR^2 of Dwork & Roth
 * Thm A.1 (sigma = c_DR Delta_2 / eps). The data-dependent factor the proof absorbs
 * into c (sqrt(2 (l(theta_T) - l*)) in eq. 28) is taken as 1. delta in (0, 1). */
int dp_thm_inputpert_c_classic(double delta, double *c, dp_err *err);

#endif
