/* audit_bound.c: Clopper-Pearson bounds and the epsilon lower bound of an empirical
 * privacy audit (audit_bound.h; Jagielski et al. 2020 Alg. 2, Thm 1; Nasr et al. 2021 §3).
 *
 * Choices where the papers are silent or leave a choice:
 * - Clopper-Pearson by bisection on the binomial CDF written as a regularized incomplete
 *   beta, P(Bin(n, p) <= k) = I_{1-p}(n - k, k + 1), evaluated by its continued fraction
 *   (Numerical Recipes 3rd ed. §6.4, modified Lentz): a few hundred operations whatever n,
 *   where the term-by-term sum (dp_audit_binom_cdf, kept as the reference the tests
 *   compare it with) costs O(n) per evaluation. No dependency is needed for it.
 * - Bonferroni: each rate gets alpha / 2, so both bounds hold together with 1 - alpha.
 * - The threshold is the one maximizing the same bound on the selection trials; the
 *   caller evaluates it on fresh trials (Jagielski et al. choose it on the trials they
 *   report; a threshold chosen and evaluated on the same outputs overstates the bound).
 */
#include "algorithms/privacy/audit_bound.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double dp_audit_binom_cdf(long k, long n, double p)
{
    if (k < 0) return 0.0;
    if (k >= n) return 1.0;
    if (!(p > 0.0)) return 1.0;
    if (!(p < 1.0)) return 0.0;
    double lp = log(p), lq = log1p(-p), lnf = lgamma((double)n + 1.0);
    /* Sum the shorter tail: j = 0..k, or 1 - sum over j = k+1..n. */
    int lower = k < n - k;
    long a = lower ? 0 : k + 1, b = lower ? k : n;
    double s = 0.0;
    for (long j = a; j <= b; j++)
        s += exp(lnf - lgamma((double)j + 1.0) - lgamma((double)(n - j) + 1.0) +
                 (double)j * lp + (double)(n - j) * lq);
    if (s > 1.0) s = 1.0;
    return lower ? s : 1.0 - s;
}

/* The continued fraction of I_x(a, b), NR eq. 6.4.5, by the modified Lentz method. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1.0, qam = a - 1.0;
    double c = 1.0, d = 1.0 - qab * x / qap;
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 100000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1e-15) break;
    }
    return h;
}

/* The regularized incomplete beta I_x(a, b), a, b > 0; the fraction converges fast for
 * x < (a + 1) / (a + b + 2), else the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) is used. */
static double reg_inc_beta(double a, double b, double x)
{
    if (!(x > 0.0)) return 0.0;
    if (!(x < 1.0)) return 1.0;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_cf(a, b, x) / a;
    return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

int dp_audit_cp_upper(long k, long n, double alpha, double *upper, dp_err *err)
{
    if (n < 1 || k < 0 || k > n)
        return dp_err_set(err, DP_EINVAL, "Clopper-Pearson needs 0 <= k <= n, n >= 1; got k = "
                          "%ld, n = %ld", k, n);
    if (!(alpha > 0.0 && alpha < 1.0))
        return dp_err_set(err, DP_EINVAL, "alpha %g must be in (0, 1)", alpha);
    if (k == n) {
        *upper = 1.0;
        return 0;
    }
    /* P(Bin(n, p) <= k) falls strictly from 1 at p = 0 to 0 at p = 1 (k < n): one root. */
    double lo = 0.0, hi = 1.0;
    for (int it = 0; it < 200 && hi - lo > 1e-14; it++) {
        double mid = 0.5 * (lo + hi);
        /* P(Bin(n, mid) <= k) */
        if (reg_inc_beta((double)(n - k), (double)k + 1.0, 1.0 - mid) > alpha) lo = mid;
        else hi = mid;
    }
    *upper = hi; /* the conservative end of the last bracket */
    return 0;
}

double dp_audit_eps_from_rates(double fpr, double fnr, double delta)
{
    double best = 0.0;
    double num1 = 1.0 - delta - fnr, num2 = 1.0 - delta - fpr;
    if (num1 > 0.0) {
        double e = fpr > 0.0 ? log(num1 / fpr) : INFINITY;
        if (e > best) best = e;
    }
    if (num2 > 0.0) {
        double e = fnr > 0.0 ? log(num2 / fnr) : INFINITY;
        if (e > best) best = e;
    }
    return best;
}

static int check_args(size_t n_out, size_t n_in, double delta, double alpha, dp_err *err)
{
    if (n_out < 1 || n_in < 1)
        return dp_err_set(err, DP_EINVAL, "an audit needs trials on both data sets (got %zu "
                          "without and %zu with the canary)", n_out, n_in);
    if (!(alpha > 0.0 && alpha < 1.0))
        return dp_err_set(err, DP_EINVAL, "alpha %g must be in (0, 1)", alpha);
    if (!(delta >= 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta %g must be in [0, 1)", delta);
    return 0;
}

/* The bound of the test with fp false positives among n_out and fn false negatives
 * among n_in. */
static double bound_of_counts(long fp, long n_out, long fn, long n_in, double delta,
                              double alpha, double *fpr_u, double *fnr_u)
{
    double u1 = 1.0, u2 = 1.0;
    dp_audit_cp_upper(fp, n_out, alpha / 2.0, &u1, NULL);
    dp_audit_cp_upper(fn, n_in, alpha / 2.0, &u2, NULL);
    if (fpr_u) *fpr_u = u1;
    if (fnr_u) *fnr_u = u2;
    return dp_audit_eps_from_rates(u1, u2, delta);
}

int dp_audit_evaluate(const double *out, size_t n_out, const double *in, size_t n_in,
                      double threshold, double delta, double alpha, dp_audit_bound *b,
                      dp_err *err)
{
    int rc = check_args(n_out, n_in, delta, alpha, err);
    if (rc) return rc;
    memset(b, 0, sizeof *b);
    b->threshold = threshold;
    b->n_out = (long)n_out;
    b->n_in = (long)n_in;
    for (size_t i = 0; i < n_out; i++) b->false_pos += out[i] > threshold;
    for (size_t i = 0; i < n_in; i++) b->false_neg += !(in[i] > threshold);
    b->fpr = (double)b->false_pos / (double)n_out;
    b->fnr = (double)b->false_neg / (double)n_in;
    b->eps_lower = bound_of_counts(b->false_pos, b->n_out, b->false_neg, b->n_in, delta, alpha,
                                   &b->fpr_upper, &b->fnr_upper);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Number of entries of sorted v[0..n) that are <= t. */
static size_t count_le(const double *v, size_t n, double t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The Clopper-Pearson bound of k in n at alpha, memoized in cache[k] (NAN: not yet). */
static double cp_cached(double *cache, long k, long n, double alpha)
{
    if (isnan(cache[k])) {
        double u = 1.0;
        dp_audit_cp_upper(k, n, alpha, &u, NULL);
        cache[k] = u;
    }
    return cache[k];
}

int dp_audit_select_threshold(const double *out, size_t n_out, const double *in, size_t n_in,
                              double delta, double alpha, double *threshold, dp_err *err)
{
    int rc = check_args(n_out, n_in, delta, alpha, err);
    if (rc) return rc;
    size_t n = n_out + n_in;
    /* sorted copies of both samples, the pooled sample, and the bound caches */
    double *mem = malloc((3 * n + 2) * sizeof *mem);
    if (!mem) return dp_err_set(err, DP_ENOMEM, "out of memory sorting %zu audit outputs", n);
    double *so = mem, *si = mem + n_out, *pool = mem + n;
    double *u_fp = mem + 2 * n, *u_fn = u_fp + n_out + 1;
    for (size_t i = 0; i < n + 2; i++) u_fp[i] = NAN;
    memcpy(so, out, n_out * sizeof *so);
    memcpy(si, in, n_in * sizeof *si);
    memcpy(pool, out, n_out * sizeof *pool);
    memcpy(pool + n_out, in, n_in * sizeof *pool);
    qsort(so, n_out, sizeof *so, cmp_double);
    qsort(si, n_in, sizeof *si, cmp_double);
    qsort(pool, n, sizeof *pool, cmp_double);
    /* Distinct values in place; the candidates lie between consecutive ones (every one of
     * them: the best may sit in the one gap between two clusters). */
    size_t nd = 0;
    for (size_t i = 0; i < n; i++)
        if (nd == 0 || pool[i] != pool[nd - 1]) pool[nd++] = pool[i];
    double best_t = pool[0], best = -1.0;
    size_t n_cand = nd > 1 ? nd - 1 : 1;
    for (size_t c = 0; c < n_cand; c++) {
        double t = nd > 1 ? pool[c] + 0.5 * (pool[c + 1] - pool[c]) : pool[0];
        long fp = (long)(n_out - count_le(so, n_out, t));
        long fn = (long)count_le(si, n_in, t);
        double e = dp_audit_eps_from_rates(cp_cached(u_fp, fp, (long)n_out, alpha / 2.0),
                                           cp_cached(u_fn, fn, (long)n_in, alpha / 2.0), delta);
        if (e > best) {
            best = e;
            best_t = t;
        }
    }
    free(mem);
    *threshold = best_t;
    return 0;
}
