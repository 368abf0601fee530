/* rdp_wor.c: RDP of the Gaussian mechanism on a batch sampled without replacement
 * (fixed size m out of n, gamma = m/n), replace-one neighbours (contract in rdp.h).
 *
 * Sources.
 * - Wang, Balle, Kasiviswanathan, "Subsampled Renyi differential privacy and analytical
 *   moments accountant" (arXiv 1808.00087; AISTATS 2019), Theorem 9: for a base
 *   mechanism with RDP eps(.) and integer alpha >= 2, the subsampled mechanism has
 *     eps'(alpha) <= 1/(alpha-1) log(1 + gamma^2 C(alpha,2) min{4(e^{eps(2)} - 1),
 *                                          e^{eps(2)} min{2, (e^{eps(inf)} - 1)^2}}
 *                      + sum_{j=3..alpha} gamma^j C(alpha,j) e^{(j-1) eps(j)}
 *                                          min{2, (e^{eps(inf)} - 1)^j}).
 * - Evaluated as autodp does it (github.com/yuxiangw/autodp, autodp/rdp_acct.py,
 *   anaRDPacct.compose_subsampled_mechanism with improved_bound_flag=False, which is what
 *   transformer_zoo.AmplificationBySampling(PoissonSampling=False) calls), with autodp's
 *   rdp_bank.RDP_gaussian as the base: eps(alpha) = alpha/(2 sigma^2), eps(inf) = inf, so
 *   every min{2, (e^{eps(inf)} - 1)^j} is 2 and the bound on the cumulant
 *   K(alpha) = (alpha-1) eps'(alpha) at integer alpha is
 *     K(alpha) = min{ alpha(alpha-1)/(2 s^2),
 *                     log(1 + gamma^2 C(alpha,2) min{4(e^{1/s^2} - 1), 2 e^{1/s^2}}
 *                           + sum_{j=3..alpha} 2 gamma^j C(alpha,j) e^{j(j-1)/(2 s^2)}) }
 *   (the first entry: subsampling never costs more than the base mechanism; autodp takes
 *   the same minimum). Every term is positive, so the sum is one running log-sum-exp
 *   with log C(alpha,j) updated by log((alpha-j+1)/j), finished with log1p: O(alpha) per
 *   order, no overflow at any order, and tiny RDPs keep their relative accuracy. autodp
 *   builds the same sum from scipy's gammaln (logcomb) and one stable_logsumexp.
 * - Fractional orders, autodp's subsample_func: for 1 < alpha < 2 the value at 2 (Renyi
 *   divergences are non-decreasing in the order); above 2, with f = floor(alpha),
 *     eps'(alpha) = min{ alpha/(2 s^2), ((alpha-f) K(f+1) + (1-alpha+f) K(f)) / (alpha-1) }.
 *   Valid because the true cumulant is convex in alpha, so it lies below the chord of
 *   the true values, which lie below the bounds K. It is simple, so it is implemented
 *   rather than answering +inf.
 * - q = 1 returns alpha/(2 s^2) before anything else (autodp's prob == 1 branch).
 * - What the bound does at large sigma: the j >= 3 terms keep the factor 2 however large
 *   sigma is, so for sigma up to ~ 1/(gamma^1.5 sqrt(alpha)) the cumulant stays above
 *   log(1 + 2 sum_{j>=3} C(alpha,j) gamma^j) and a long schedule's epsilon has a floor:
 *   DP-LSSGD's MNIST logistic regression (gamma = 128/50000, 19531 steps, delta 1e-5)
 *   gets about 0.33 for every sigma from ~50 to ~1000. DP-LSSGD's Lemma 1, attributed to
 *   this paper (tau^2 alpha/sigma^2 per step once sigma^2 >= 0.8, no condition on alpha),
 *   is far below Theorem 9 at the orders its Theorem 1 uses (alpha ~ 78..231: Theorem 9
 *   gives 7 to 130 times more), so Theorem 1's noise does not give its epsilons here.
 *
 * Choices made where the sources are silent.
 * - The 1 < alpha < 2 case keeps autodp's value K(2) and does not also take the minimum
 *   with alpha/(2 s^2), so dperm's numbers are autodp's at every order (it matters only
 *   for q near 1, where no one uses orders below 2).
 * - autodp also caps by the subsampled pure-DP epsilon log(1 + gamma(e^{eps(inf)} - 1));
 *   for the Gaussian that is +inf and is left out.
 * - Orders above DP_WOR_MAX_ORDER (1e6, the integer cap of rdp.c) are refused, integer or
 *   not: fractional orders cost O(alpha) here too. sigma so small that 1/(2 s^2) overflows gives
 *   +inf (as rdp.c does); a term e^{j(j-1)/(2 s^2)} that overflows even in log space
 *   makes the bound +inf and the base-mechanism cap decides. Never NaN.
 */
#include "algorithms/privacy/rdp.h"
#include "algorithms/privacy/params.h"

#include <math.h>

#define DP_WOR_MAX_ORDER 1000000.0 /* orders cost O(alpha) terms */

// ---- the Theorem 9 cumulant bound at integer orders -----------------------------------

/* log min{4(e^{x} - 1), 2 e^{x}} for x = eps(2) = 1/s^2 > 0: the theorem's second-moment
 * factor. 4(e^x - 1) is the smaller one exactly when e^x < 2. */
static double log_second_moment(double x)
{
    if (x < M_LN2) return 2.0 * M_LN2 + log(expm1(x));
    return M_LN2 + x;
}

/* K(alpha) of the file comment for integer alpha >= 2, 0 < q < 1, 1/(2 s^2) finite. */
static double cgf_int(double q, double inv2s2, long alpha)
{
    const double lq = log(q);
    const double da = (double)alpha;
    const double base = da * (da - 1.0) * inv2s2; /* (alpha-1) alpha/(2 s^2) */
    const double log_m2 = log_second_moment(2.0 * inv2s2);
    double lc = log(da);                          /* log C(alpha, j), from j = 1 */
    double m = -INFINITY, s = 0.0;                /* sum = s e^m */
    for (long j = 2; j <= alpha; j++) {
        double dj = (double)j;
        lc += log((da - dj + 1.0) / dj);
        double t = lc + dj * lq + (j == 2 ? log_m2 : M_LN2 + (dj * dj - dj) * inv2s2);
        if (!(t < INFINITY)) return base; /* the bound is +inf; the cap decides */
        if (t == -INFINITY) continue;     /* a zero term (e^{1/s^2} - 1 underflowed) */
        if (t > m) {
            s = s * exp(m - t) + 1.0;
            m = t;
        } else {
            s += exp(t - m);
        }
    }
    if (m == -INFINITY) return 0.0; /* every term is 0: sigma so large 1/s^2 is 0 */
    double log_sum = m + log(s);    /* log(A - 1); the bound is log(1 + e^log_sum) */
    double bound = log_sum > 0.0 ? log_sum + log1p(exp(-log_sum)) : log1p(exp(log_sum));
    return fmin(base, bound);
}

/* One step's RDP at one order (> 1, <= DP_WOR_MAX_ORDER); never NaN. */
static double rdp_wor_one(double q, double sigma, double alpha)
{
    const double inv2s2 = 1.0 / (2.0 * sigma * sigma);
    if (q == 1.0) return alpha * inv2s2;
    if (!isfinite(inv2s2)) return INFINITY; /* sigma ~ 0 */
    if (alpha <= 2.0) return cgf_int(q, inv2s2, 2); /* K(2)/(2-1) */
    double f = floor(alpha);
    if (alpha == f) return cgf_int(q, inv2s2, (long)f) / (alpha - 1.0);
    double w = alpha - f;
    double k = w * cgf_int(q, inv2s2, (long)f + 1) + (1.0 - w) * cgf_int(q, inv2s2, (long)f);
    return fmin(alpha * inv2s2, k / (alpha - 1.0));
}

// ---- public function ------------------------------------------------------------------

int dp_rdp_wor_subsampled_gaussian(double q, double sigma, const double *orders, size_t n,
                                   double *rdp, dp_err *err)
{
    int rc;
    if ((rc = dp_check_rate(q, err)) || (rc = dp_check_noise(sigma, err))) return rc;
    if (n > 0 && !orders) return dp_err_set(err, DP_EINVAL, "orders is NULL");
    if (n > 0 && !rdp) return dp_err_set(err, DP_EINVAL, "rdp output is NULL");
    for (size_t i = 0; i < n; i++) {
        double a = orders[i];
        if (!(a > 1.0 && isfinite(a)))
            return dp_err_set(err, DP_EINVAL,
                              "RDP order orders[%zu] = %g must be finite and > 1", i, a);
        if (a > DP_WOR_MAX_ORDER)
            return dp_err_set(err, DP_EINVAL,
                              "RDP order orders[%zu] = %g is above the supported %g", i, a,
                              DP_WOR_MAX_ORDER);
    }
    for (size_t i = 0; i < n; i++) rdp[i] = rdp_wor_one(q, sigma, orders[i]);
    return 0;
}
