/* objective_pert.h: objective perturbation for binary logistic regression: minimize the
 * regularized training objective plus a random linear term and extra l2, exactly
 * (erm_exact.h), and release the minimizer.
 *
 *   w_priv = argmin_w  F(w) + (b . w) / n + Delta/2 ||w||^2,
 *   F(w)   = (1/n) sum_i log(1 + exp(-y_i w . z_i)) + mu/2 ||w||^2,  z_i = [x_i; 1].
 *
 * The bias is a weight with constant feature 1 (linear.h), so with the public row bound
 * ||x_i|| <= B the vectors z_i satisfy ||z_i||^2 <= rho^2 = B^2 + 1. The constants of the
 * papers are stated for ||z|| <= 1; for ||z|| <= rho they follow by the change of
 * variables w' = rho w (z' = z / rho in the unit ball, mu' = mu / rho^2, b' = b / rho,
 * Delta' = Delta / rho^2), which gives the formulas below. For the logistic loss
 * l(t) = log(1 + e^-t): |l'| <= 1 and 0 <= l'' <= c = 1/4, so with rho:
 *   gradient bound  zeta   = rho          (||grad_w l|| = |l'| ||z||)
 *   Hessian bound   lambda = rho^2 / 4    (rank one: l'' z z^T)
 *
 * DP_OBJPERT_LAPLACE: Chaudhuri, Monteleoni & Sarwate 2011, Alg. 2 (Thm 9), eps-DP:
 *   eps' = eps - log(1 + 2 c rho^2 / (n mu) + c^2 rho^4 / (n^2 mu^2))
 *   eps' > 0:  Delta = 0
 *   else:      Delta = c rho^2 / (n (e^{eps/4} - 1)) - mu,   eps' = eps / 2
 *   b has density proportional to exp(-eps' ||b|| / (2 rho)): uniform direction, norm
 *   Gamma(p, 2 rho / eps') (p = d + 1 parameters).
 *   (mu = 0 takes the second branch: the log term is infinite.)
 *
 * DP_OBJPERT_GAUSSIAN: Kifer, Smith & Thakurta 2012, Thm 2 (objective perturbation with
 * Gaussian noise, as InputPert's Table 1 restates it: noise variance
 * 4 zeta^2 (eps + log(4/delta^2)) / eps^2), (eps, delta)-DP:
 *   b ~ N(0, beta^2 I_p),  beta = Z sqrt(8 log(2/delta) + 4 eps) / eps
 * where Z bounds how far one neighbour moves the loss gradient sum_i grad l(w; z_i):
 *   add/remove   Z = zeta     (one gradient appears or disappears), the theorem as stated
 *                             and as TF Privacy's KiferRegularizer and DP-AGD's objperturb
 *                             calibrate it;
 *   replace-one  Z = 2 zeta   (one gradient is swapped for another: the difference of two
 *                             vectors of norm <= zeta; for the logistic loss two rows
 *                             x and -x, both misclassified, reach ~1.9 zeta).
 *   The Jacobian part of the proof (Delta) is the same for both: a replaced row changes
 *   the Hessian by a rank-one term on each side, and with both PSD the determinant ratio
 *   det(A + E1) / det(A + E2) lies in [1/(1 + lambda/(n Delta)), 1 + lambda/(n Delta)]
 *   as for one added row.
 *   their Delta_K >= 2 r lambda / eps with rank r = 1 on the total-loss scale, i.e. on
 *   the mean-loss scale of F: Delta = 2 lambda / (eps n).
 *   mu is not credited towards Delta (the theorem's regularizer is an arbitrary convex
 *   one; crediting it would be sound by the same proof, but is not the stated theorem).
 *
 * Preconditions (both): the loss is convex and twice continuously differentiable with the
 * bounds above, so only the binary logistic loss is accepted (softmax's Hessian has rank
 * k - 1 and Chaudhuri's proof is for scalar margins; squared has no gradient bound; Huber
 * is not twice differentiable at |u| = delta); every training row satisfies ||x|| <= B
 * (checked on the data: measuring B instead would leak).
 */
#ifndef DPERM_OBJECTIVE_PERT_H
#define DPERM_OBJECTIVE_PERT_H

#include <stdint.h>

#include "algorithms/base/err.h"
#include "algorithms/base/rng.h"
#include "algorithms/erm_exact.h"
#include "algorithms/models/linear.h"

typedef enum { DP_OBJPERT_GAUSSIAN = 1, DP_OBJPERT_LAPLACE = 2 } dp_objpert_mechanism;

typedef struct dp_objpert_cfg {
    dp_objpert_mechanism mechanism;
    double eps;            /* > 0, finite */
    double delta;          /* gaussian: in (0, 1); laplace: ignored (0 spent) */
    double feature_bound;  /* B > 0: every row has ||x|| <= B (1: the unit ball) */
    int noise;             /* 1: private; 0: debug only, b = 0 and Delta = 0 (plain ERM) */
    int replace_one;       /* neighbour relation: 1 replace-one, 0 add/remove. gaussian:
                              Z = 2 zeta or zeta; laplace: replace-one only (Chaudhuri et
                              al.'s relation; add/remove is DP_EINVAL) */
    uint64_t seed;         /* run seed: b comes from stream DP_STREAM_NOISE */
} dp_objpert_cfg;

/* The calibration of one run. */
typedef struct dp_objpert_plan {
    double zeta;         /* gradient bound rho */
    double sensitivity;  /* Z: zeta (add/remove) or 2 zeta (replace-one), see above */
    double lambda;       /* Hessian bound rho^2 / 4 */
    double eps_prime;    /* laplace: the eps' of Alg. 2 used for b; gaussian: eps */
    double extra_l2;     /* Delta (mean-loss scale) added as Delta/2 ||w||^2 */
    double noise_scale;  /* gaussian: beta (per-coordinate std); laplace: 2 rho / eps',
                            the Gamma scale of ||b|| */
    double noise_std;    /* per-coordinate standard deviation of b: beta, or
                            sqrt(p + 1) 2 rho / eps' for the laplace-type b */
    double eps_spent;    /* eps (inf with noise off) */
    double delta_spent;  /* delta (gaussian), 0 (laplace) */
} dp_objpert_plan;

/* Calibrate for m (loss, l2 = mu, n_params) and n training examples. DP_EINVAL names a
 * bad parameter or a loss the theorems do not cover (message says why). */
int dp_objpert_make_plan(const dp_linear *m, const dp_objpert_cfg *c, size_t n,
                         dp_objpert_plan *plan, dp_err *err);

/* Draw b (p) for a plan: N(0, beta^2 I), or the laplace-type density. Overwrites b. */
int dp_objpert_noise(dp_rng *r, const dp_objpert_cfg *c, const dp_objpert_plan *plan,
                     double *b, size_t p, dp_err *err);

/* The whole algorithm: check the rows against B, calibrate, draw b from
 * (seed, DP_STREAM_NOISE), minimize the perturbed objective with dp_erm_solve from
 * m->w = 0, leave w_priv in m->w. plan and res (the inner solve) are filled. With
 * c->noise == 0 this is exactly dp_erm_solve of the plain objective from 0. Errors:
 * those of dp_objpert_make_plan, DP_EINVAL for a row outside the ball, and dp_erm_solve's. */
int dp_objpert_train(dp_linear *m, const dp_erm_data *D, const dp_objpert_cfg *c,
                     dp_objpert_plan *plan, dp_erm_result *res, dp_err *err);

#endif
