/* pate_smooth.c: the smooth sensitivity of PATE's data-dependent privacy cost, the
 * pieces that let the cost itself be released privately (pate.h, "Smooth sensitivity").
 *
 * Source: Papernot, Song, Mironov, Raghunathan, Talwar, Erlingsson 2018, "Scalable
 * private learning with PATE", Appendix B.4 (Algorithms 3-5: local sensitivity of
 * GNMax's data-dependent RDP at distance d, by moving votes between the two top classes;
 * Proposition 13) and Appendix C (the threshold test's; Theorem 23: the RDP of the
 * Gaussian noise scaled by smooth sensitivity, GNSS). The values are compared with the
 * authors' public implementation (research/pate_2018/smooth_sensitivity.py of TensorFlow
 * Privacy; tests/fixtures/pate/smooth_reference.json, tests/unit/test_pate_smooth.c).
 *
 * Where this differs from pate_rdp.c. For one released number, GNMax's RDP as a function
 * of q must be monotone where the data-dependent bound is used (conditions C5-C6 of
 * Appendix B.4.2), so here the bound switches to the data-independent one at a single
 * point q0 per (sigma, order): the root of "data-dependent = data-independent", found by
 * bisection to the last bit (the authors' code uses Brent's method to 2e-12).
 * pate_rdp.c's per-query bound takes the smaller of the two wherever Theorem 6 holds;
 * below q0 they agree.
 */
#include "algorithms/privacy/pate.h"
#include "algorithms/privacy/pate_int.h"

#include <math.h>

// ---- GNMax's RDP as a function of ln q, switched at q0 ----------------------------------

/* Theorem 6's bound at one order, without its validity conditions (callers stay below
 * q0, where they hold: dp_pate_logq0_gnmax checks them there). */
static double dependent_bound(double sigma, double logq, double order)
{
    double var = sigma * sigma, mu2 = sigma * sqrt(-logq), mu1 = mu2 + 1;
    double eps1 = mu1 / var, eps2 = mu2 / var;
    double log1q = log1mexp(logq);
    double log_a = (order - 1) * (log1q - log1mexp((logq + eps2) * (1 - 1 / mu2)));
    double log_b = (order - 1) * (eps1 - logq / (mu1 - 1));
    return logaddexp(log1q + log_a, logq + log_b) / (order - 1);
}

/* Theorem 6's conditions at ln q: mu1 >= order and Lemma 9's bound on q. */
static int dependent_valid(double sigma, double logq, double order)
{
    double mu2 = sigma * sqrt(-logq), mu1 = mu2 + 1;
    if (mu1 < order) return 0;
    double eps2 = mu2 / (sigma * sigma);
    return logq <= (mu2 - 1) * eps2 - mu2 * log(mu1 / (mu1 - 1) * mu2 / (mu2 - 1));
}

static double dependent_minus_independent(double sigma, double logq, double order)
{
    return dependent_bound(sigma, logq, order) - order / (sigma * sigma);
}

double dp_pate_logq0_gnmax(double sigma, double order)
{
    /* Upper ends where the conditions certainly hold (the authors' choice). */
    double a = -(1 + 1 / sigma) * (1 + 1 / sigma), b = -((order - .99) / sigma) * ((order - .99) / sigma);
    double c = -1 / (sigma * sigma), hi = a < b ? a : b;
    hi = hi < c ? hi : c;
    if (!dependent_valid(sigma, hi, order)) return NAN;
    if (dependent_minus_independent(sigma, hi, order) < 0) return hi;
    double lo = 2 * hi;
    while (dependent_minus_independent(sigma, lo, order) > 0) {
        if (lo < -10000) return NAN; /* the data-dependent bound never wins */
        lo *= 1.5;
    }
    /* f(lo) <= 0 < f(hi): halve until the interval is one ulp wide */
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (dependent_minus_independent(sigma, mid, order) > 0) hi = mid;
        else lo = mid;
    }
    return dependent_valid(sigma, lo, order) ? lo : NAN;
}

/* GNMax's RDP at ln q: data-dependent below q0, data-independent from q0 on. */
static double rdp_switched(double sigma, double logq, double logq0, double order)
{
    return logq >= logq0 ? order / (sigma * sigma) : dependent_bound(sigma, logq, order);
}

// ---- the inverse complementary error function ----------------------------------------

/* Phi^{-1}(p) for p in (0, 1): Acklam's rational approximation (relative error 1.2e-9)
 * and one Halley step on Phi(x) = erfc(-x / sqrt 2) / 2, which is exact to the last bits
 * in both tails (erfc of a positive argument keeps its relative precision). */
static double normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        double q = sqrt(-2 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    /* the upper tail is refined through the lower one: Phi(x) near 1 loses its digits */
    double sign = 1;
    if (x > 0) {
        sign = -1, x = -x, p = 1 - p;
    }
    double e = 0.5 * erfc(-x / M_SQRT2) - p;
    double u = e * sqrt(2 * M_PI) * exp(0.5 * x * x);
    x -= u / (1 + 0.5 * x * u);
    return sign * x;
}

/* erfc^{-1}(y) for y in (0, 2): erfc(x) = 2 Phi(-x sqrt 2). */
static double erfc_inverse(double y)
{
    if (y <= 0) return INFINITY;
    if (y >= 2) return -INFINITY;
    return -normal_quantile(0.5 * y) / M_SQRT2;
}

double dp_pate_q_lower_gnmax(double q, double sigma, size_t k)
{
    double m1 = (double)k - 1;
    return m1 / 2 * erfc(1 / sigma + erfc_inverse(2 * q / m1));
}

double dp_pate_q_upper_gnmax(double q, double sigma, size_t k)
{
    double m1 = (double)k - 1, u = m1 / 2 * erfc(-1 / sigma + erfc_inverse(2 * q / m1));
    return u < 1 ? u : 1;
}

// ---- local sensitivity at distance d ----------------------------------------------------

/* Algorithm 3: an upper bound on the local sensitivity of GNMax's RDP at ln q, by the
 * bounds on q one teacher's vote can move it to (Proposition 13). */
static double local_sensitivity(double logq, double sigma, size_t k, double order,
                                double logq0, double logq1)
{
    if (logq1 <= logq && logq <= logq0) logq = logq1;
    double q = exp(logq), rdp = rdp_switched(sigma, logq, logq0, order);
    double up = rdp_switched(sigma, log(dp_pate_q_upper_gnmax(q, sigma, k)), logq0, order);
    double down = rdp_switched(sigma, log(dp_pate_q_lower_gnmax(q, sigma, k)), logq0, order);
    return up - rdp > rdp - down ? up - rdp : rdp - down;
}

/* Insertion sort, non-increasing. */
static void sort_down(double *v, size_t k)
{
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && v[j - 1] < v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

int dp_pate_local_sensitivity_gnmax(const double *votes, size_t k, size_t teachers,
                                    double sigma, double order, double *ls)
{
    if (k < 2 || k > DP_PATE_MAX_CLASSES || teachers < 1) return DP_EINVAL;
    double logq0 = dp_pate_logq0_gnmax(sigma, order);
    if (isnan(logq0)) return DP_EINVAL;
    double logq1 = log(dp_pate_q_lower_gnmax(exp(logq0), sigma, k));
    double plateau = local_sensitivity(logq1, sigma, k, order, logq0, logq1);
    for (size_t d = 0; d < teachers; d++) ls[d] = plateau;
    double logq = dp_pate_logq_gnmax(votes, k, sigma);
    if (logq1 <= logq && logq <= logq0) return 0;
    /* Algorithms 4 and 5 in O(teachers k): walk the votes away from the plateau, one
     * teacher at a time, between the two top classes. */
    double v[DP_PATE_MAX_CLASSES];
    for (size_t j = 0; j < k; j++) v[j] = votes[j];
    sort_down(v, k);
    ls[0] = local_sensitivity(logq, sigma, k, order, logq0, logq1);
    int left = logq > logq0; /* lower q by widening the gap; else raise it */
    for (size_t d = 1; d < teachers; d++) {
        if (left ? !(logq > logq0 && v[1] > 0) : !(logq < logq1)) break;
        if (left) {
            v[0] += 1, v[1] -= 1;
            for (size_t i = 1; i + 1 < k && v[i] < v[i + 1]; i++) {
                double t = v[i];
                v[i] = v[i + 1];
                v[i + 1] = t;
            }
        } else {
            v[0] -= 1, v[1] += 1;
        }
        logq = dp_pate_logq_gnmax(v, k, sigma);
        ls[d] = local_sensitivity(logq, sigma, k, order, logq0, logq1);
    }
    return 0;
}

/* The threshold test's RDP when the top vote is v. */
static double threshold_rdp(double threshold, double sigma1, double order, double v)
{
    double rdp;
    dp_pate_rdp_threshold(log_normal_sf(threshold - v, sigma1), sigma1, &order, 1, &rdp);
    return rdp;
}

/* The largest change of the threshold test's RDP one vote away from a top vote of v. */
static double threshold_step(double threshold, double sigma1, double order, long v,
                             long teachers)
{
    double here = threshold_rdp(threshold, sigma1, order, (double)v), ls = -INFINITY;
    if (v > 0) ls = fabs(threshold_rdp(threshold, sigma1, order, (double)(v - 1)) - here);
    if (v < teachers) {
        double up = fabs(threshold_rdp(threshold, sigma1, order, (double)(v + 1)) - here);
        ls = up > ls ? up : ls;
    }
    return ls;
}

void dp_pate_local_sensitivity_threshold(const double *votes, size_t k, size_t teachers,
                                         double threshold, double sigma1, double order,
                                         double *ls)
{
    double top = votes[0];
    for (size_t j = 1; j < k; j++) top = votes[j] > top ? votes[j] : top;
    long cur = lrint(top), t = (long)teachers; /* rounded half to even, as the reference */
    long span = cur > t - cur ? cur : t - cur;
    for (size_t d = 0; d < teachers; d++) {
        ls[d] = 0;
        if ((long)d >= span) continue;
        double up = -INFINITY, down = -INFINITY;
        if (cur + (long)d <= t) up = threshold_step(threshold, sigma1, order, cur + (long)d, t);
        if (cur - (long)d >= 0) down = threshold_step(threshold, sigma1, order, cur - (long)d, t);
        ls[d] = up > down ? up : down;
    }
}

// ---- smooth sensitivity and the Gaussian release ---------------------------------------

double dp_pate_discounted_max(double beta, const double *ls, size_t n)
{
    double best = -INFINITY;
    for (size_t d = 0; d < n; d++) {
        double v = ls[d] * exp(-beta * (double)d);
        best = v > best ? v : best;
    }
    return best;
}

double dp_pate_rdp_gnss(double beta, double sigma, double order)
{
    if (beta > 0 && !(1 < order && order < 1 / (2 * beta))) return NAN;
    return order * exp(2 * beta) / (sigma * sigma) +
           (-0.5 * log(1 - 2 * order * beta) + beta * order) / (order - 1);
}
