/* pate_rdp.c: the Renyi-DP of PATE's aggregators, data-independent and data-dependent
 * (pate.h has the sources).
 *
 * Numerics: every probability is carried as its logarithm, because the interesting
 * queries are the confident ones, whose q is far below what a double holds near 1
 * (votes 250 : 0 at sigma 40 give ln q about -20); pate_int.h has the log-space helpers.
 */
#include "algorithms/privacy/pate.h"
#include "algorithms/privacy/pate_int.h"

#include <math.h>

/* Index of the first largest vote (numpy's argmax). */
static size_t plurality(const double *votes, size_t k)
{
    size_t best = 0;
    for (size_t j = 1; j < k; j++)
        if (votes[j] > votes[best]) best = j;
    return best;
}

double dp_pate_logq_gnmax(const double *votes, size_t k, double sigma)
{
    size_t top = plurality(votes, k);
    double logq = -INFINITY;
    for (size_t j = 0; j < k; j++)
        if (j != top) /* the noisy gap n_j - n_j* + N(0, 2 sigma^2) is positive */
            logq = logaddexp(logq, log_normal_sf(votes[top] - votes[j], M_SQRT2 * sigma));
    double cap = log(1.0 - 1.0 / (double)k);
    return logq < cap ? logq : cap;
}

void dp_pate_rdp_gnmax_independent(double sigma, const double *orders, size_t n, double *rdp)
{
    for (size_t i = 0; i < n; i++) rdp[i] = orders[i] / (sigma * sigma);
}

void dp_pate_rdp_gnmax(double logq, double sigma, const double *orders, size_t n,
                       double *rdp)
{
    if (logq == -INFINITY) { /* a certain answer reveals nothing */
        for (size_t i = 0; i < n; i++) rdp[i] = 0;
        return;
    }
    double var = sigma * sigma;
    dp_pate_rdp_gnmax_independent(sigma, orders, n, rdp);
    /* Proposition 10's orders: mu2 = sigma sqrt(ln 1/q), mu1 = mu2 + 1. */
    double mu2 = sqrt(var * -logq), mu1 = mu2 + 1;
    int any = 0;
    for (size_t i = 0; i < n; i++) any |= mu1 > orders[i] && mu2 > 1;
    double eps1 = mu1 / var, eps2 = mu2 / var;
    double log_a2 = (mu2 - 1) * eps2;
    /* Theorem 6 holds where q is small enough that its bound increases in q (so the
     * union bound on q may be used in place of q) and the bound's A is positive. */
    if (!any || !(logq <= log_a2 - mu2 * (log(1 + 1 / (mu1 - 1)) + log(1 + 1 / (mu2 - 1)))) ||
        !(-logq > eps2))
        return;
    double log1q = log1mexp(logq);
    double shrink = log1mexp((logq + eps2) * (1 - 1 / mu2));
    for (size_t i = 0; i < n; i++) {
        if (!(mu1 > orders[i])) continue;
        double lam = orders[i];
        double log_a = (lam - 1) * (log1q - shrink);
        double log_b = (lam - 1) * (eps1 - logq / (mu1 - 1));
        double bound = logaddexp(log1q + log_a, logq + log_b) / (lam - 1);
        if (bound < rdp[i]) rdp[i] = bound;
    }
}

double dp_pate_log_pr_answered(double threshold, double sigma1, const double *votes, size_t k)
{
    /* max rounded half to even, as the authors' analysis does (Python's round) */
    double top = nearbyint(votes[plurality(votes, k)]);
    return log_normal_sf(threshold - top, sigma1);
}

void dp_pate_rdp_threshold_independent(double sigma1, const double *orders, size_t n,
                                       double *rdp)
{
    /* sensitivity 1 where GNMax's histogram has 2: GNMax's bound at sigma1 sqrt 2 */
    dp_pate_rdp_gnmax_independent(M_SQRT2 * sigma1, orders, n, rdp);
}

void dp_pate_rdp_threshold(double log_pr_answered, double sigma1, const double *orders,
                           size_t n, double *rdp)
{
    double other = log1mexp(log_pr_answered);
    double logq = log_pr_answered < other ? log_pr_answered : other;
    dp_pate_rdp_gnmax(logq, M_SQRT2 * sigma1, orders, n, rdp);
}

double dp_pate_logq_lnmax(const double *votes, size_t k, double lambda)
{
    size_t top = plurality(votes, k);
    double logq = -INFINITY;
    for (size_t j = 0; j < k; j++) {
        if (j == top) continue;
        double g = (votes[j] - votes[top]) / lambda; /* <= 0 */
        logq = logaddexp(logq, log(2 - g) + log(0.25) + g);
    }
    double cap = log(1.0 - 1.0 / (double)k);
    return logq < cap ? logq : cap;
}

void dp_pate_rdp_pure_eps(double logq, double eps, const double *orders, size_t n,
                          double *rdp)
{
    double q = exp(logq);
    int moment = q <= 1.0 / (exp(eps) + 1.0); /* Theorem 3's condition */
    for (size_t i = 0; i < n; i++) {
        double lam = orders[i], log_t = INFINITY;
        if (moment) {
            double one = log1p(-q) + (log1p(-q) - log1mexp(eps + logq)) * (lam - 1);
            double two = logq + eps * (lam - 1);
            log_t = logaddexp(one, two);
        }
        double r = 0.5 * eps * eps * lam;
        if (log_t / (lam - 1) < r) r = log_t / (lam - 1);
        rdp[i] = r < eps ? r : eps;
    }
}

int dp_pate_check(double sigma, const double *orders, size_t n, size_t k, dp_err *err)
{
    if (!(sigma > 0) || !isfinite(sigma))
        return dp_err_set(err, DP_EINVAL, "PATE: sigma must be a finite number > 0, got %g",
                          sigma);
    if (k < 2)
        return dp_err_set(err, DP_EINVAL, "PATE: a vote needs at least 2 classes, got %zu", k);
    for (size_t i = 0; i < n; i++)
        if (!(orders[i] > 1))
            return dp_err_set(err, DP_EINVAL, "PATE: RDP orders must be > 1, got %g",
                              orders[i]);
    return 0;
}
