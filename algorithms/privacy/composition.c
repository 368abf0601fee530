/* composition.c: composition theorems, amplification by subsampling and the `advanced` /
 * `basic` schedule accountants (contract in composition.h).
 *
 * Sources: Dwork & Roth 2014 Thm 3.16 (basic); Dwork, Rothblum, Vadhan 2010 Thm III.3
 * as DPlis Thm 1 prints it (advanced); Lecture15 Lemma 15.2 (per-step budget) and
 * Lemma 15.4 (amplification, eps' = ln(1 + (e^eps - 1) m/n), delta' = (m/n) delta);
 * Balle & Wang 2018 for the per-step Gaussian (mechanisms.c).
 *
 * Choices made where the sources are silent.
 * - Lecture15 Lemma 15.4 is stated for a uniformly random subset of fixed size m; the
 *   notes say the same conclusion holds for Poisson sampling, which is how the schedule
 *   accountants read q (the same schedule the rdp accountant analyses, so the two are
 *   comparable). The amplified eps is computed as log1p(q expm1(eps)) for eps <= 1 and
 *   eps + log(q + (1 - q) e^-eps) above, both exact rewritings that neither lose small
 *   values nor overflow for large ones.
 * - The delta split of the advanced accountant is searched, not derived: the optimum
 *   has no closed form with the analytic per-step Gaussian. The search (grid of 41
 *   logits, then golden section) costs ~80 per-step calibrations, ~0.5 ms.
 */
#include "algorithms/privacy/composition.h"
#include "algorithms/privacy/params.h"

#include <math.h>

#include "algorithms/privacy/mechanisms.h"

#define LOGIT_MAX 40.0     /* split fractions searched: logistic(-40 .. 40) */
#define LOGIT_GRID 2.0     /* coarse grid step before the golden-section search */
#define LOGIT_TOL 1e-7     /* golden-section stops at this bracket width */

// ---- argument checks ------------------------------------------------------------------

static int check_eps(double eps, dp_err *err)
{
    if (!(eps >= 0.0 && isfinite(eps)))
        return dp_err_set(err, DP_EINVAL, "eps = %g must be finite and >= 0", eps);
    return 0;
}

static int check_delta01(double delta, dp_err *err)
{
    if (!(delta >= 0.0 && delta <= 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside [0, 1]", delta);
    return 0;
}

static int check_k(long k, dp_err *err)
{
    if (k < 1) return dp_err_set(err, DP_EINVAL, "number of compositions k = %ld must be >= 1", k);
    return 0;
}

static int check_outs(const void *a, const void *b, dp_err *err)
{
    if (!a || !b) return dp_err_set(err, DP_EINVAL, "output pointer is NULL");
    return 0;
}

// ---- composition theorems -------------------------------------------------------------

int dp_composition_basic(double eps, double delta, long k, double *eps_total,
                         double *delta_total, dp_err *err)
{
    int rc;
    if ((rc = check_eps(eps, err)) || (rc = check_delta01(delta, err)) || (rc = check_k(k, err)) ||
        (rc = check_outs(eps_total, delta_total, err)))
        return rc;
    *eps_total = (double)k * eps;
    *delta_total = fmin(1.0, (double)k * delta);
    return 0;
}

/* sqrt(2 k ln(1/slack)) eps + k eps (e^eps - 1): inf when it overflows, never NaN. */
static double drv_eps(double eps, double k, double slack)
{
    if (eps == 0.0) return 0.0;
    return sqrt(2.0 * k * log(1.0 / slack)) * eps + k * eps * expm1(eps);
}

int dp_composition_advanced(double eps, double delta, long k, double delta_slack,
                            double *eps_total, double *delta_total, dp_err *err)
{
    int rc;
    if ((rc = check_eps(eps, err)) || (rc = check_delta01(delta, err)) || (rc = check_k(k, err)) ||
        (rc = check_outs(eps_total, delta_total, err)))
        return rc;
    if (!(delta_slack > 0.0 && delta_slack < 1.0))
        return dp_err_set(err, DP_EINVAL, "slack delta' = %g is outside (0, 1)", delta_slack);
    *eps_total = drv_eps(eps, (double)k, delta_slack);
    *delta_total = fmin(1.0, (double)k * delta + delta_slack);
    return 0;
}

int dp_composition_advanced_per_step(double eps, double delta, long k, double *eps_step,
                                     double *delta_step, dp_err *err)
{
    int rc;
    if ((rc = check_k(k, err)) || (rc = check_outs(eps_step, delta_step, err))) return rc;
    if (!(eps > 0.0 && isfinite(eps)))
        return dp_err_set(err, DP_EINVAL, "eps = %g must be finite and > 0", eps);
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside (0, 1)", delta);
    if (!(eps < 1.0))
        return dp_err_set(err, DP_EPRIVACY, "Lecture15 Lemma 15.2 requires target eps < 1, "
                          "got eps = %g", eps);
    *eps_step = eps / (2.0 * sqrt(2.0 * (double)k * log(2.0 / delta)));
    *delta_step = delta / (2.0 * (double)k);
    return 0;
}

/* ln(1 + q (e^eps - 1)) without cancellation for small eps or overflow for large. */
static double amplify(double eps, double q)
{
    if (q == 1.0 || eps == 0.0) return eps;
    if (eps <= 1.0) return log1p(q * expm1(eps));
    if (isinf(eps)) return INFINITY;
    return eps + log(q + (1.0 - q) * exp(-eps));
}

int dp_composition_subsample(double eps, double delta, double q, double *eps_out,
                             double *delta_out, dp_err *err)
{
    int rc;
    if (!(eps >= 0.0)) return dp_err_set(err, DP_EINVAL, "eps = %g must be >= 0", eps);
    if ((rc = check_delta01(delta, err)) || (rc = check_outs(eps_out, delta_out, err)) ||
        (rc = dp_check_rate(q, err)))
        return rc;
    *eps_out = amplify(eps, q);
    *delta_out = q * delta;
    return 0;
}

// ---- schedule accountants -------------------------------------------------------------

typedef struct schedule {
    double q, sigma, k, delta;
    int advanced;
} schedule;

typedef struct split_eval {
    double eps, eps_step, delta_step;
    int rc;
} split_eval;

/* The guarantee at split logit p: per-step delta0 = f delta / (k q), slack (1 - f) delta,
 * f = 1/(1 + e^-p). Basic ignores p (f = 1). */
static split_eval eval_split(const schedule *s, double p, dp_err *err)
{
    split_eval r = {INFINITY, INFINITY, 0.0, 0};
    double f = s->advanced ? 1.0 / (1.0 + exp(-p)) : 1.0;
    double slack = s->advanced ? s->delta / (1.0 + exp(p)) : 0.0; /* (1 - f) delta */
    double delta0 = f * s->delta / (s->k * s->q), eps0;
    if (!(delta0 > 0.0)) return r; /* underflow: this split proves nothing, eps = inf */
    if (delta0 >= 1.0) {
        /* k q <= f delta: every mechanism is (0, 1)-DP, so (0, q) after subsampling, and
         * the k steps spend k q <= f delta. */
        eps0 = 0.0;
        delta0 = 1.0;
    } else {
        r.rc = dp_mech_gaussian_epsilon_analytic(s->sigma, delta0, 1.0, &eps0, err);
        if (r.rc) return r;
    }
    r.eps_step = amplify(eps0, s->q);
    r.delta_step = s->q * delta0;
    if (!s->advanced) r.eps = s->k * r.eps_step;
    else if (slack > 0.0) r.eps = drv_eps(r.eps_step, s->k, slack);
    if (isnan(r.eps)) r.eps = INFINITY;
    return r;
}

int dp_composition_schedule_epsilon(int advanced, double q, double sigma, long steps,
                                    double delta, double *eps, double *eps_step,
                                    double *delta_step, dp_err *err)
{
    int rc0 = dp_check_schedule(q, sigma, steps, delta, err);
    if (rc0) return rc0;
    if (!eps) return dp_err_set(err, DP_EINVAL, "eps output is NULL");

    schedule s = {q, sigma, (double)steps, delta, advanced != 0};
    split_eval best = eval_split(&s, 0.0, err);
    if (best.rc) return best.rc;
    if (s.advanced) {
        /* Coarse grid, then golden section inside the best cell's neighbours. */
        double best_p = 0.0;
        for (double p = -LOGIT_MAX; p <= LOGIT_MAX; p += LOGIT_GRID) {
            split_eval e = eval_split(&s, p, err);
            if (e.rc) return e.rc;
            if (e.eps < best.eps) {
                best = e;
                best_p = p;
            }
        }
        const double g = 0.5 * (sqrt(5.0) - 1.0);
        double a = best_p - LOGIT_GRID, b = best_p + LOGIT_GRID;
        double x1 = b - g * (b - a), x2 = a + g * (b - a);
        split_eval e1 = eval_split(&s, x1, err), e2 = eval_split(&s, x2, err);
        while (b - a > LOGIT_TOL && !e1.rc && !e2.rc) {
            if (e1.eps < best.eps) best = e1;
            if (e2.eps < best.eps) best = e2;
            if (e1.eps <= e2.eps) {
                b = x2;
                x2 = x1;
                e2 = e1;
                x1 = b - g * (b - a);
                e1 = eval_split(&s, x1, err);
            } else {
                a = x1;
                x1 = x2;
                e1 = e2;
                x2 = a + g * (b - a);
                e2 = eval_split(&s, x2, err);
            }
        }
        if (e1.rc) return e1.rc;
        if (e2.rc) return e2.rc;
        if (e1.eps < best.eps) best = e1;
        if (e2.eps < best.eps) best = e2;
    }
    *eps = best.eps;
    if (eps_step) *eps_step = best.eps_step;
    if (delta_step) *delta_step = best.delta_step;
    return 0;
}
