/* accountant.c: one interface over every accountant (see accountant.h), and calibration
 * of the noise multiplier or the number of steps against any of them.
 *
 * Calibration only assumes what every accountant here satisfies: epsilon is
 * non-increasing in sigma and non-decreasing in steps. Sigma is bracketed by doubling and
 * halving, then bisected on a log scale to 1e-3 relative; the upper end of the final
 * bracket is returned, so the answer always meets the target (never overshoots epsilon).
 */
#include "algorithms/privacy/accountant.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algorithms/privacy/composition.h"
#include "algorithms/privacy/params.h"
#include "algorithms/privacy/pld.h"
#include "algorithms/privacy/rdp.h"
#include "algorithms/privacy/theorems.h"

#define SIGMA_MIN 1e-3
#define SIGMA_MAX 1e4
#define SIGMA_RTOL 1e-3

/* Abadi et al. (2016) track the log-moments alpha(lambda) for lambda = 1..32; the moment
 * of order lambda is RDP at order lambda + 1 scaled by lambda, and their tail bound is
 * the classic conversion. */
#define MOMENTS_MAX_LAMBDA 32

typedef struct info {
    const char *name;
    const char *description;
} info;

static const info INFO[DP_ACCOUNTANT_COUNT + 1] = {
    [DP_ACCOUNTANT_RDP] = {"rdp", "RDP, Poisson sampling, improved conversion (Mironov et al. 2019; Balle et al. 2020)"},
    [DP_ACCOUNTANT_RDP_CLASSIC] = {"rdp_classic", "RDP, Poisson sampling, classic conversion (Mironov 2017; autodp legacy, as DPlis)"},
    [DP_ACCOUNTANT_MOMENTS] = {"moments", "moments accountant, lambda = 1..32 (Abadi et al. 2016; Lecture15 §15.4)"},
    [DP_ACCOUNTANT_RDP_WOR] = {"rdp_wor", "RDP, fixed-size batches sampled without replacement (Wang, Balle, Kasiviswanathan 2018)"},
    [DP_ACCOUNTANT_PLD] = {"pld", "privacy loss distribution, Poisson sampling, pessimistic (tightest)"},
    [DP_ACCOUNTANT_ADVANCED] = {"advanced", "analytic Gaussian per step, amplification (Lemma 15.4), advanced composition (DRV10)"},
    [DP_ACCOUNTANT_BASIC] = {"basic", "analytic Gaussian per step, amplification (Lemma 15.4), basic composition"},
    [DP_ACCOUNTANT_LSSGD_THM1] = {"lssgd_theorem1", "DP-LSSGD Thm 1 (Wang et al.), batches without replacement, as the paper calibrated"},
    [DP_ACCOUNTANT_LECTURE15_GD] = {"lecture15_gd", "Lecture15 Lemma 15.1: DP-GD on the whole training set (q = 1), advanced composition of classic Gaussians"},
    [DP_ACCOUNTANT_PLD_WOR] = {"pld_wor", "privacy loss distribution, fixed-size wor batches, replace-one, symmetrized (Dong, Roth, Su 2022 Thm 9; Zhu, Dong, Wang 2022): tightest for wor"},
};

/* Lecture15 Lemma 15.1 solved for epsilon: sigma_avg = sigma C / n with L = C gives
 * eps = 8 sqrt(T log(2/delta) log(2.5 T/delta)) / sigma (accountant.h). The lemma is
 * about full gradients: any q < 1 is refused; eps >= 1 is outside Lemma 15.2's domain. */
static int lecture15_gd(double q, double sigma, long steps, double delta, double *eps,
                        dp_err *err)
{
    if (q != 1.0)
        return dp_err_set(err, DP_EINVAL, "lecture15_gd is Lecture15 Lemma 15.1 for full-batch "
                          "gradient descent: it needs q = 1, got %g (use rdp, pld or advanced "
                          "for subsampled steps)", q);
    double T = (double)steps;
    *eps = 8.0 * sqrt(T * log(2.0 / delta) * log(2.5 * T / delta)) / sigma;
    if (!(*eps < 1.0))
        return dp_err_set(err, DP_EPRIVACY, "lecture15_gd certifies only eps < 1 (Lemma 15.2); "
                          "sigma %g over %ld steps gives %g", sigma, steps, *eps);
    return 0;
}

/* DP-LSSGD Thm 1 depends on n and b only through q = b/n once nu = sigma C / b and G = C
 * (theorems.h: eps = (K + sqrt(K^2 + 8 K log(1/delta) nu^2)) / (2 nu^2), K = 8 T G^2/n^2,
 * and K b^2 / G^2 = 8 T q^2): evaluate it at a large n with b = q n. */
#define LSSGD_N 1000000000L

static int lssgd_theorem1(double q, double sigma, long steps, double delta, double *eps,
                          dp_err *err)
{
    long b = (long)llround(q * (double)LSSGD_N);
    if (b < 1) b = 1;
    return dp_thm_lssgd_epsilon(sigma / (double)b, delta, steps, LSSGD_N, b, 1.0, eps, err);
}

const char *dp_accountant_name(dp_accountant a)
{
    return (a >= 1 && a <= DP_ACCOUNTANT_COUNT) ? INFO[a].name : "unknown";
}

const char *dp_accountant_description(dp_accountant a)
{
    return (a >= 1 && a <= DP_ACCOUNTANT_COUNT) ? INFO[a].description : "unknown";
}

int dp_accountant_parse(const char *name, dp_accountant *out, dp_err *err)
{
    char known[256] = "";
    for (int a = 1; a <= DP_ACCOUNTANT_COUNT; a++) {
        if (name && strcmp(name, INFO[a].name) == 0) {
            *out = (dp_accountant)a;
            return 0;
        }
        strncat(known, a > 1 ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, INFO[a].name, sizeof known - strlen(known) - 1);
    }
    return dp_err_set(err, DP_EINVAL, "unknown accountant '%s' (known: %s)", name ? name : "",
                      known);
}

/* Orders 2..33 for the moments accountant. */
static const double *moments_orders(void)
{
    static double orders[MOMENTS_MAX_LAMBDA];
    if (orders[0] == 0)
        for (int l = 1; l <= MOMENTS_MAX_LAMBDA; l++) orders[l - 1] = l + 1;
    return orders;
}

/* Epsilon of an RDP curve evaluated at `orders` (per step) times steps. */
static int rdp_family(dp_accountant a, double q, double sigma, long steps, double delta,
                      double *eps, dp_accounting_detail *d, dp_err *err)
{
    const double *orders;
    size_t n;
    if (a == DP_ACCOUNTANT_MOMENTS) {
        orders = moments_orders();
        n = MOMENTS_MAX_LAMBDA;
    } else {
        n = dp_rdp_default_orders(&orders);
    }
    double rdp[1024];
    if (n > sizeof rdp / sizeof rdp[0]) return dp_err_set(err, DP_EINVAL, "order grid too large");
    /* Replace-one neighbours change the clipped sum by up to 2C: multiplier sigma/2
     * relative to that sensitivity (accountant.h). */
    int rc = a == DP_ACCOUNTANT_RDP_WOR
                 ? dp_rdp_wor_subsampled_gaussian(q, sigma / 2, orders, n, rdp, err)
                 : dp_rdp_subsampled_gaussian(q, sigma, orders, n, rdp, err);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) rdp[i] *= (double)steps;
    double order = 0;
    dp_rdp_conversion conv = a == DP_ACCOUNTANT_RDP || a == DP_ACCOUNTANT_RDP_WOR
                                 ? DP_RDP_CONVERT_IMPROVED
                                 : DP_RDP_CONVERT_CLASSIC;
    rc = dp_rdp_to_epsilon(orders, rdp, n, delta, conv, eps, &order, err);
    if (rc) return rc;
    d->order = order;
    d->order_at_edge = *eps > 0 && (order <= orders[0] || order >= orders[n - 1]);
    return 0;
}

int dp_accountant_epsilon(dp_accountant a, double q, double sigma, long steps, double delta,
                          double *eps, dp_accounting_detail *detail, dp_err *err)
{
    dp_accounting_detail d = {0};
    int rc = dp_check_schedule(q, sigma, steps, delta, err);
    if (rc) return rc;
    switch (a) {
    case DP_ACCOUNTANT_RDP:
    case DP_ACCOUNTANT_RDP_CLASSIC:
    case DP_ACCOUNTANT_MOMENTS:
    case DP_ACCOUNTANT_RDP_WOR:
        rc = rdp_family(a, q, sigma, steps, delta, eps, &d, err);
        break;
    case DP_ACCOUNTANT_PLD:
        rc = dp_pld_epsilon(q, sigma, steps, delta, 0.0, eps, err);
        break;
    case DP_ACCOUNTANT_PLD_WOR:
        rc = dp_pld_wor_epsilon(q, sigma, steps, delta, 0.0, eps, err);
        break;
    case DP_ACCOUNTANT_ADVANCED:
    case DP_ACCOUNTANT_BASIC:
        rc = dp_composition_schedule_epsilon(a == DP_ACCOUNTANT_ADVANCED, q, sigma, steps, delta,
                                             eps, &d.eps_step, &d.delta_step, err);
        break;
    case DP_ACCOUNTANT_LSSGD_THM1:
        rc = lssgd_theorem1(q, sigma, steps, delta, eps, err);
        break;
    case DP_ACCOUNTANT_LECTURE15_GD:
        rc = lecture15_gd(q, sigma, steps, delta, eps, err);
        break;
    default:
        return dp_err_set(err, DP_EINVAL, "unknown accountant %d", (int)a);
    }
    if (rc == 0 && isnan(*eps))
        rc = dp_err_set(err, DP_EPRIVACY, "%s accountant produced no finite epsilon",
                        dp_accountant_name(a));
    if (rc == 0 && detail) *detail = d;
    return rc;
}

/* Epsilon at sigma for calibration: a violated precondition (a theorem that certifies
 * nothing at this noise level, DP_EPRIVACY) counts as over any target. */
static int eps_for_search(dp_accountant a, double q, double sigma, long steps, double delta,
                          double *eps, dp_err *err)
{
    int rc = dp_accountant_epsilon(a, q, sigma, steps, delta, eps, NULL, err);
    if (rc == DP_EPRIVACY) {
        *eps = INFINITY;
        return 0;
    }
    return rc;
}

int dp_accountant_sigma(dp_accountant a, double q, long steps, double delta,
                        double target_eps, double *sigma, dp_err *err)
{
    if (!(target_eps > 0) || !isfinite(target_eps))
        return dp_err_set(err, DP_EINVAL, "target epsilon must be finite and > 0, got %g", target_eps);
    double eps;
    double hi = 1.0, lo;
    int rc = eps_for_search(a, q, hi, steps, delta, &eps, err);
    if (rc) return rc;
    /* Bracket [lo, hi] with eps(lo) > target >= eps(hi). */
    while (eps > target_eps) {
        if (hi >= SIGMA_MAX)
            return dp_err_set(err, DP_EPRIVACY,
                              "epsilon %g is out of reach: even sigma %g spends %g (%s, q %g, %ld steps, delta %g)",
                              target_eps, SIGMA_MAX, eps, dp_accountant_name(a), q, steps, delta);
        hi = fmin(hi * 2, SIGMA_MAX);
        if ((rc = eps_for_search(a, q, hi, steps, delta, &eps, err))) return rc;
    }
    lo = hi / 2;
    for (;;) {
        if ((rc = eps_for_search(a, q, lo, steps, delta, &eps, err))) return rc;
        if (eps > target_eps) break;
        hi = lo;
        if (lo <= SIGMA_MIN) { /* the target is met with (almost) no noise */
            *sigma = hi;
            return 0;
        }
        lo /= 2;
    }
    while (hi / lo - 1 > SIGMA_RTOL) {
        double mid = sqrt(lo * hi);
        if ((rc = eps_for_search(a, q, mid, steps, delta, &eps, err))) return rc;
        if (eps > target_eps) lo = mid;
        else hi = mid;
    }
    *sigma = hi;
    return 0;
}

int dp_accountant_steps(dp_accountant a, double q, double sigma, double delta,
                        double target_eps, long max_steps, long *steps, dp_err *err)
{
    if (!(target_eps > 0) || !isfinite(target_eps))
        return dp_err_set(err, DP_EINVAL, "target epsilon must be finite and > 0, got %g", target_eps);
    if (max_steps < 1) return dp_err_set(err, DP_EINVAL, "max_steps must be >= 1");
    double eps;
    int rc = dp_accountant_epsilon(a, q, sigma, 1, delta, &eps, NULL, err);
    if (rc) return rc;
    if (eps > target_eps)
        return dp_err_set(err, DP_EPRIVACY, "one step already spends epsilon %g > %g (%s)", eps,
                          target_eps, dp_accountant_name(a));
    /* Invariant: eps(lo) <= target; eps(hi) > target or hi is past max_steps. */
    long lo = 1, hi = 2;
    while (hi <= max_steps) {
        if ((rc = eps_for_search(a, q, sigma, hi, delta, &eps, err))) return rc;
        if (eps > target_eps) break;
        lo = hi;
        hi = hi > max_steps / 2 ? max_steps + 1 : hi * 2;
    }
    if (hi > max_steps) {
        if (lo < max_steps) {
            if ((rc = eps_for_search(a, q, sigma, max_steps, delta, &eps, err))) return rc;
            if (eps <= target_eps) {
                *steps = max_steps;
                return 0;
            }
            hi = max_steps;
        } else {
            *steps = lo;
            return 0;
        }
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if ((rc = eps_for_search(a, q, sigma, mid, delta, &eps, err))) return rc;
        if (eps > target_eps) hi = mid;
        else lo = mid;
    }
    *steps = lo;
    return 0;
}
