/* pld_wor.c: privacy loss distribution accountant for the Gaussian mechanism on a batch
 * of fixed size m drawn without replacement from n examples (gamma = m/n), under
 * replace-one neighbours (contract in pld.h).
 *
 * The mechanism: each step sums the batch's per-example gradients clipped to C and adds
 * N(0, sigma^2 C^2 I). Replacing one example moves the sum by at most 2C, so relative to
 * that sensitivity the noise multiplier is s = sigma/2 (as the rdp_wor accountant takes
 * it); below, losses are in units where the sensitivity is 1 and the noise is N(0, s^2).
 *
 * Why the result is valid.
 * - One step (Dong, Roth, Su 2022, "Gaussian differential privacy", JRSS-B, Thm 9): if M
 *   is f-DP then M o Sample_m is C_gamma(f)-DP for replace-one neighbours, with
 *   C_gamma(f) = min{f_gamma, f_gamma^-1}**, f_gamma = gamma f + (1 - gamma) Id. Here f is
 *   the Gaussian tradeoff G_{1/s}, so f_gamma = T(N(0, s^2), (1-gamma) N(0, s^2) +
 *   gamma N(1, s^2)): the likelihood ratio of the mixture is monotone in that of the pair,
 *   so the Neyman-Pearson tests coincide. f_gamma and f_gamma^-1 are exactly the two
 *   directions pld.c builds for the Poisson add/remove case at q = gamma, noise s (its
 *   "remove" and "add" pairs, up to the mirror x -> -x).
 * - The profile of the symmetrized tradeoff: delta_f(eps) = 1 + f*(-e^eps) (f* the
 *   convex conjugate), and the conjugate of the lower convex envelope of a minimum is the
 *   maximum of the conjugates, so delta_sym(eps) = max(delta_remove(eps), delta_add(eps)).
 * - Composition (Zhu, Dong, Wang 2022, "Optimal accounting of differential privacy via
 *   characteristic function", AISTATS): a symmetric tradeoff function has a dominating
 *   pair (P, Q) with Q the mirror image of P, and dominating pairs compose under adaptive
 *   composition (their Thm 10). So `steps` steps are bounded by the `steps`-fold product
 *   of ONE symmetric pair whose profile is delta_sym. Composing remove and add separately
 *   and taking the larger epsilon (right for add/remove, where the direction is fixed by
 *   the pair of data sets, and what pld.c does) is not valid here, nor is composing one
 *   step's worst pair: under replace-one the adversary may realise one direction at one
 *   step and the other at the next (Lebeda, Regehr, Kamath, Steinke 2024, "Avoiding
 *   pitfalls for privacy accounting of subsampled mechanisms under composition").
 * - Discretization (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, "Connect the
 *   dots", pessimistic): a PMF omega on losses k d plus mass omega_inf at +infinity has
 *     delta(e_i) = omega_inf + sum_{k>i} omega_k (1 - e^{(i-k) d})   at e_i = i d,
 *   linear in e^eps between grid points. Made equal to a_i = delta_sym(e_i) at the grid
 *   points i = 0..K, it lies above delta_sym in between (delta_sym is convex in e^eps, so
 *   its chords lie above it) and above e_K, where it is a_K >= delta_sym. With
 *   S_i = sum_{k>i} omega_k e^{(i-k) d}, a_{i-1} - a_i = (1 - e^-d)(S_i + omega_i), so
 *   from the top down omega_inf = a_K and, for i = K..1,
 *     omega_i = (a_{i-1} - a_i)/(1 - e^-d) - S_i,   S_{i-1} = e^-d (S_i + omega_i).
 *   Convexity makes every omega_i >= 0; a negative one (rounding) is set to 0, which only
 *   raises delta at the grid points below (pessimistic). The values a_i come from
 *   pld.c's one-step connect-the-dots PMFs of the two directions, exact at grid points;
 *   each PMF's own profile is the chord of its grid values, and the max of two chords is
 *   below the chord of the maxima: the symmetric PMF dominates both directions' PMFs,
 *   which dominate the true directions.
 * - Negative losses: a pair (P, Q) with Q the mirror of P has omega(-l) = e^-l omega(l),
 *   and omega_0 = 1 - omega_inf - sum_{k>=1} omega_k (1 + e^{-k d}) makes the total mass 1
 *   (Q gets the mirror of omega_inf at -infinity, where P has none). omega_0 >= 0 in exact
 *   arithmetic: P(L > 0) = TV + Q(L > 0) = a_0 + S_0, so omega_0 = 1 - a_0 - 2 S_0; and
 *   S_0 = (a_0 - a_1)/(e^d - 1), minus a chord slope of the profile (convex in e^eps), is
 *   at most minus its slope at eps = 0, the true pair's Q(L > 0), itself <= (1 - TV)/2
 *   (a mirrored pair has P(L < 0) = Q(L > 0), and P(L > 0) + P(L < 0) <= 1). The profile,
 *   negative eps included (delta(-e) = 1 - e^-e + e^-e delta(e) for a symmetric pair),
 *   is then above delta_sym's: the discrete pair dominates the true one.
 * - Then `steps`-fold self-composition by pld.c's pld_compose (Chernoff windows, FFT,
 *   every truncated tail moved up or to +infinity, which only raises delta), and
 *   epsilon of the one composed PMF: the composed pair is symmetric, so delta(P^T || Q^T)
 *   = delta(Q^T || P^T) and one direction is the answer.
 * - gamma = 1 is the plain Gaussian of sensitivity 2C: `steps` Gaussians of noise sigma
 *   are one of sigma/sqrt(steps) (composed exactly, as pld.c does); the two directions
 *   then coincide and the symmetric PMF is the Gaussian's own.
 *
 * Choices made where the sources are silent.
 * - The directions' profiles at grid points are computed by the downward recurrence
 *   delta(e_{i-1}) = delta(e_i) + (1 - e^-d)(S_i + p_i), which adds positive terms only
 *   (delta = U - S, the form pld.c's epsilon search uses, cancels). The back-substitution
 *   does not form a_{i-1} - a_i either: with G_i = S_i(dir) - S_i(sym) and dir the
 *   direction that is the maximum at i-1, omega_i = p_i(dir) + G_i - (a_i - delta_dir(e_i))
 *   / (1 - e^-d), whose last term is 0 unless the maximum changes direction at i.
 *   Against a long-double evaluation (sigma 2.524; q 0.004, 0.05, 0.5) the masses are off
 *   by 1e-14 to 3e-13 of their sum; second differences of the a_i lose 3e-11 to 3e-9.
 * - The directions' PMFs are built on [0, top] only: the losses below 0 do not enter
 *   delta at eps >= 0, and connect-the-dots on a shorter grid is exact at its points.
 * - Grid: the symmetric PMF spans [-K, K], K = ceil(rhi/d) for the top rhi of the remove
 *   direction's range (the add direction's top, -rlo, is below it since (1 - q + q e^l)
 *   (1 - q + q e^-l) >= 1; the code takes the larger of the two against rounding), so
 *   pld_compose sizes the default grid on the loss range [-rhi, rhi] with pld.c's
 *   interval and coarsening. The far negative side holds masses
 *   e^{-k d} omega_k, which the first Chernoff window mostly moves up onto its first kept
 *   loss.
 */
#include "algorithms/privacy/pld.h"
#include "algorithms/privacy/pld_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

/* Below this omega_0 is not rounding: the profile was not a symmetric pair's. */
#define OMEGA0_FLOOR (-1e-9)

/* Mass of direction x at absolute grid index i (0 outside its grid). */
static double mass_at(const pld_pmf *x, long long i)
{
    return i >= x->lo && i < x->lo + (long long)x->n ? x->p[i - x->lo] : 0.0;
}

/* The symmetric one-step PMF on [-K, K] from the directions' PMFs on [0, top_dir]
 * (nd of them: 1 when gamma = 1), by the back-substitution of the file comment; p gets
 * 2K + 1 masses, *inf the mass at +infinity. */
static void symmetrize(const pld_pmf *dir, int nd, long long K, double d, double *p,
                       double *inf)
{
    const double c = -expm1(-d), shrink = exp(-d); /* 1 - e^-d, e^-d */
    double D[2], S[2] = {0, 0}, G[2] = {0, 0};     /* delta_dir(e_i), S_i(dir), G_i */
    double a = 0;                                  /* a_i = max_dir D */
    for (int j = 0; j < nd; j++) {
        D[j] = dir[j].inf; /* no loss above K in either direction */
        if (D[j] > a) a = D[j];
    }
    double *w = p + K; /* w[k] = omega_k, k = -K..K */
    *inf = a;
    for (long long i = K; i >= 1; i--) {
        double pi[2], Dn[2];
        int best = 0; /* the direction that is the maximum at i-1 */
        for (int j = 0; j < nd; j++) {
            pi[j] = mass_at(&dir[j], i);
            Dn[j] = D[j] + c * (S[j] + pi[j]);
            if (Dn[j] > Dn[best]) best = j;
        }
        double om = pi[best] + G[best] - (a - D[best]) / c;
        if (!(om > 0)) om = 0.0;
        w[i] = om;
        a = Dn[best];
        for (int j = 0; j < nd; j++) {
            G[j] = shrink * (G[j] + pi[j] - om);
            S[j] = shrink * (S[j] + pi[j]);
            D[j] = Dn[j];
        }
    }
    /* the mirror side and the mass at 0, small terms first */
    double pos = 0;
    for (long long k = K; k >= 1; k--) {
        w[-k] = exp(-(double)k * d) * w[k];
        pos += w[k] + w[-k];
    }
    double w0 = 1.0 - *inf - pos;
    assert(w0 > OMEGA0_FLOOR);
    w[0] = w0 > 0 ? w0 : 0.0;
}

/* pld_mech.build: the one symmetric PMF on [-K, K] (m's loss range is [-rhi, rhi]; the
 * add direction's top comes from the remove direction's range again). */
static int build_sym(const pld_mech *m, double d, pld_pmf one[2], double *n1)
{
    double rlo, rhi;
    pld_remove_range(m->q, m->s, &rlo, &rhi);
    double top_r = ceil(rhi / d), top_a = -floor(rlo / d), K = fmax(top_r, top_a);
    *n1 = 2.0 * K + 1.0;
    if (*n1 > (double)DP_PLD_MAX_POINTS) return 0;
    int nd = m->q == 1.0 ? 1 : 2; /* at gamma = 1 the directions coincide */
    pld_pmf dir[2] = {{0}, {0}};
    double *p = calloc((size_t)*n1, sizeof *p);
    int rc = DP_ENOMEM;
    if (!p) goto fail;
    for (int j = 0; j < nd; j++)
        if (pld_single_pmf(j == 0 ? PLD_REMOVE : PLD_ADD, m->q, m->s, d, 0,
                           (long long)(j == 0 ? top_r : top_a), &dir[j]))
            goto fail;
    double inf;
    symmetrize(dir, nd, (long long)K, d, p, &inf);
    one[0] = (pld_pmf){.lo = -(long long)K, .n = (size_t)*n1, .p = p, .inf = inf, .m = 1};
    p = NULL;
    rc = 0;
fail:
    for (int j = 0; j < 2; j++) pld_pmf_free(&dir[j]);
    free(p);
    return rc;
}

/* Composes, then epsilon at delta = x (want_eps) or delta at eps = x. */
static int evaluate(double q, double sigma, long steps, double x, double interval,
                    int want_eps, double *out, dp_err *err)
{
    double s = sigma / 2.0; /* replace-one: sensitivity 2C */
    pld_mech m = {.q = q, .s = q == 1.0 ? s / sqrt((double)steps) : s, .nd = 1,
                  .build = build_sym};
    double rlo, rhi;
    pld_remove_range(q, m.s, &rlo, &rhi);
    if (!isfinite(rlo) || !isfinite(rhi)) { /* loss beyond a double: trivial bound */
        *out = want_eps ? INFINITY : 1.0;
        return 0;
    }
    m.rlo = -rhi; /* the symmetric PMF's range */
    m.rhi = rhi;
    pld_pmf pm[2];
    double d = 0;
    int rc = pld_compose(&m, q == 1.0 ? 1 : steps, steps, interval, pm, &d, err);
    if (rc) return rc;
    *out = want_eps ? pld_pmf_epsilon(&pm[0], d, x) : pld_pmf_delta(&pm[0], d, x);
    pld_pmf_free(&pm[0]);
    return 0;
}

int dp_pld_wor_epsilon(double q, double sigma, long steps, double delta, double interval,
                       double *eps, dp_err *err)
{
    int rc = pld_check_args(q, sigma, steps, interval, err);
    if (rc) return rc;
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside (0, 1)", delta);
    if (!eps) return dp_err_set(err, DP_EINVAL, "eps output is NULL");
    return evaluate(q, sigma, steps, delta, interval, 1, eps, err);
}

int dp_pld_wor_delta(double q, double sigma, long steps, double eps, double interval,
                     double *delta, dp_err *err)
{
    int rc = pld_check_args(q, sigma, steps, interval, err);
    if (rc) return rc;
    if (!(eps >= 0.0)) return dp_err_set(err, DP_EINVAL, "eps = %g must be >= 0", eps);
    if (!delta) return dp_err_set(err, DP_EINVAL, "delta output is NULL");
    return evaluate(q, sigma, steps, eps, interval, 0, delta, err);
}
