/* test_audit.c: the statistics of the empirical privacy audit (algorithms/privacy/
 * audit_bound.h) and the audits of configs/audit.yaml with the mechanisms as built: each
 * lower bound must stay below its claimed epsilon (harness/sweep/audit.h).
 *
 * Reference values: Clopper-Pearson upper bounds computed independently of the code under
 * test, by exact integer binomial coefficients summed in 60-digit decimal arithmetic and a
 * 140-step bisection (Python's decimal and math.comb; scipy was not available to call
 * beta.ppf). Two are also textbook values: k = 0 has the closed form 1 - alpha^(1/n), and
 * 3 of 20 at 95% is 0.3437 (scipy.stats.beta.ppf(0.95, 4, 17)).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "algorithms/privacy/audit_bound.h"
#include "tests/unit/audit_fixture.h"
#include "tests/unit/test_util.h"

static const struct {
    long k, n;
    double alpha, upper;
} CP[] = {
    {0, 10, 0.05, 2.588655508930523e-01},    {3, 20, 0.05, 3.436638043142818e-01},
    {0, 1000, 0.025, 3.682083896865672e-03}, {1, 1000, 0.025, 5.558924279826673e-03},
    {5, 500, 0.025, 2.318138806965964e-02},  {50, 1000, 0.025, 6.539048791549365e-02},
    {250, 500, 0.025, 5.447144306757725e-01}, {499, 500, 0.025, 9.999493656659926e-01},
    {17, 40, 0.1, 5.385882114057278e-01},    {0, 5000, 0.025, 7.375038011081052e-04},
    {12, 5000, 0.025, 4.188560186045314e-03},
};

/* audit-1.1: Clopper-Pearson upper bounds against the independent values, to 1e-10
 * relative (the bisection stops at 1e-14 absolute). */
START_TEST(test_cp_reference)
{
    for (size_t i = 0; i < sizeof CP / sizeof CP[0]; i++) {
        double u = -1.0;
        dp_err err;
        ck_assert_int_eq(dp_audit_cp_upper(CP[i].k, CP[i].n, CP[i].alpha, &u, &err), 0);
        ck_assert_msg(fabs(u - CP[i].upper) <= 1e-10 * CP[i].upper,
                      "CP(%ld of %ld, alpha %g) = %.15g, reference %.15g", CP[i].k, CP[i].n,
                      CP[i].alpha, u, CP[i].upper);
    }
}
END_TEST

/* audit-1.2: k = 0 is 1 - alpha^(1/n); k = n is 1; at the bound the binomial CDF (summed
 * term by term, the other method) equals alpha; bad arguments are refused. */
START_TEST(test_cp_properties)
{
    dp_err err;
    double u;
    long ns[] = {1, 7, 100, 2500, 100000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        ck_assert_int_eq(dp_audit_cp_upper(0, ns[i], 0.025, &u, &err), 0);
        ck_assert_double_eq_tol(u, 1.0 - pow(0.025, 1.0 / (double)ns[i]), 1e-12);
        ck_assert_int_eq(dp_audit_cp_upper(ns[i], ns[i], 0.025, &u, &err), 0);
        ck_assert_double_eq(u, 1.0);
    }
    long ks[] = {0, 1, 3, 40, 333, 999};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        ck_assert_int_eq(dp_audit_cp_upper(ks[i], 1000, 0.05, &u, &err), 0);
        ck_assert_double_eq_tol(dp_audit_binom_cdf(ks[i], 1000, u), 0.05, 1e-9);
        ck_assert(u >= (double)ks[i] / 1000.0);
    }
    ck_assert_int_eq(dp_audit_cp_upper(5, 4, 0.05, &u, &err), DP_EINVAL);
    ck_assert_int_eq(dp_audit_cp_upper(-1, 4, 0.05, &u, &err), DP_EINVAL);
    ck_assert_int_eq(dp_audit_cp_upper(1, 4, 0.0, &u, &err), DP_EINVAL);
    ck_assert_int_eq(dp_audit_cp_upper(1, 0, 0.05, &u, &err), DP_EINVAL);
}
END_TEST

/* audit-1.3: the binomial CDF by hand: n = 3, p = 1/2 gives 1/8, 1/2, 7/8, 1; p = 0 and 1. */
START_TEST(test_binom_cdf)
{
    ck_assert_double_eq_tol(dp_audit_binom_cdf(0, 3, 0.5), 0.125, 1e-15);
    ck_assert_double_eq_tol(dp_audit_binom_cdf(1, 3, 0.5), 0.5, 1e-15);
    ck_assert_double_eq_tol(dp_audit_binom_cdf(2, 3, 0.5), 0.875, 1e-15);
    ck_assert_double_eq(dp_audit_binom_cdf(3, 3, 0.5), 1.0);
    ck_assert_double_eq(dp_audit_binom_cdf(-1, 3, 0.5), 0.0);
    ck_assert_double_eq(dp_audit_binom_cdf(1, 3, 0.0), 1.0);
    ck_assert_double_eq(dp_audit_binom_cdf(1, 3, 1.0), 0.0);
    /* P(X <= 1), n = 10, p = 0.1: 0.9^10 + 10 * 0.1 * 0.9^9 */
    ck_assert_double_eq_tol(dp_audit_binom_cdf(1, 10, 0.1), pow(0.9, 10) + pow(0.9, 9), 1e-14);
}
END_TEST

/* audit-2.1: eps >= max(ln((1 - delta - FNR) / FPR), ln((1 - delta - FPR) / FNR)). */
START_TEST(test_eps_formula)
{
    ck_assert_double_eq_tol(dp_audit_eps_from_rates(0.01, 0.5, 0.0), log(50.0), 1e-12);
    ck_assert_double_eq_tol(dp_audit_eps_from_rates(0.5, 0.01, 0.0), log(50.0), 1e-12);
    ck_assert_double_eq_tol(dp_audit_eps_from_rates(0.01, 0.5, 1e-5), log((0.5 - 1e-5) / 0.01),
                            1e-12);
    /* both terms: ln(0.7 / 0.2) = 1.25 beats ln(0.8 / 0.3) = 0.98 */
    ck_assert_double_eq_tol(dp_audit_eps_from_rates(0.2, 0.3, 0.0), log(0.7 / 0.2), 1e-12);
    /* a test no better than chance proves nothing */
    ck_assert_double_eq(dp_audit_eps_from_rates(0.5, 0.5, 0.0), 0.0);
    ck_assert_double_eq(dp_audit_eps_from_rates(0.7, 0.6, 0.0), 0.0);
    ck_assert_double_eq(dp_audit_eps_from_rates(1.0, 1.0, 0.0), 0.0);
    /* a perfect test against a pure-DP claim: unbounded */
    ck_assert(isinf(dp_audit_eps_from_rates(0.0, 0.5, 0.0)));
    /* delta eats a numerator: 1 - 0.5 - 0.5 = 0 drops the first term, the second is < 0 */
    ck_assert_double_eq(dp_audit_eps_from_rates(0.3, 0.5, 0.5), 0.0);
}
END_TEST

/* audit-2.2: the counts and bounds of one threshold, by hand. */
START_TEST(test_evaluate_counts)
{
    double out[] = {0.1, 0.2, 0.3, 0.4, 0.9}, in[] = {0.35, 0.8, 0.95, 1.2};
    dp_audit_bound b;
    dp_err err;
    ck_assert_int_eq(dp_audit_evaluate(out, 5, in, 4, 0.5, 1e-5, 0.05, &b, &err), 0);
    ck_assert_int_eq(b.false_pos, 1); /* 0.9 */
    ck_assert_int_eq(b.false_neg, 1); /* 0.35 */
    ck_assert_double_eq_tol(b.fpr, 0.2, 1e-15);
    ck_assert_double_eq_tol(b.fnr, 0.25, 1e-15);
    double u1, u2;
    dp_audit_cp_upper(1, 5, 0.025, &u1, &err);
    dp_audit_cp_upper(1, 4, 0.025, &u2, &err);
    ck_assert_double_eq(b.fpr_upper, u1);
    ck_assert_double_eq(b.fnr_upper, u2);
    ck_assert_double_eq(b.eps_lower, dp_audit_eps_from_rates(u1, u2, 1e-5));
    /* equal to the threshold counts as "absent" */
    ck_assert_int_eq(dp_audit_evaluate(out, 5, in, 4, 0.9, 1e-5, 0.05, &b, &err), 0);
    ck_assert_int_eq(b.false_pos, 0);
    ck_assert_int_eq(b.false_neg, 2);
    ck_assert_int_eq(dp_audit_evaluate(out, 0, in, 4, 0.5, 1e-5, 0.05, &b, &err), DP_EINVAL);
    ck_assert_int_eq(dp_audit_evaluate(out, 5, in, 4, 0.5, 1e-5, 1.0, &b, &err), DP_EINVAL);
}
END_TEST

/* Standard normals by Box-Muller from a fixed LCG: the test's own, independent draws. */
static void normals(double *x, size_t n, double mean, unsigned long long *state)
{
    for (size_t i = 0; i < n; i++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        double u1 = ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        double u2 = ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
        x[i] = mean + sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
}

/* audit-2.3: the whole procedure on a Gaussian mechanism with a known epsilon: outputs
 * N(0, 1) against N(mu, 1), threshold chosen on one half and evaluated on the other.
 * mu = 1 is (eps, 1e-5)-DP for eps = 4.4 (Balle & Wang's exact curve: delta(4.4) < 1e-5),
 * so the bound must stay below 4.4 while clearly above 0 (the population value of
 * ln((1 - FNR) / FPR) at FPR 1% is 2.2); separated samples (mu = 20) give the largest bound 2000
 * trials allow, ln((1 - 1e-5 - u) / u) with u = 1 - 0.025^(1/1000). */
START_TEST(test_gaussian_mechanism)
{
    enum { N = 2000, H = N / 2 };
    static double out[N], in[N];
    unsigned long long st = 12345;
    dp_err err;
    double t;
    dp_audit_bound b;
    normals(out, N, 0.0, &st);
    normals(in, N, 1.0, &st);
    ck_assert_int_eq(dp_audit_select_threshold(out, H, in, H, 1e-5, 0.05, &t, &err), 0);
    ck_assert_int_eq(dp_audit_evaluate(out + H, H, in + H, H, t, 1e-5, 0.05, &b, &err), 0);
    ck_assert_msg(b.eps_lower > 0.3 && b.eps_lower < 4.4, "mu = 1: bound %g", b.eps_lower);
    normals(out, N, 0.0, &st);
    normals(in, N, 20.0, &st);
    ck_assert_int_eq(dp_audit_select_threshold(out, H, in, H, 1e-5, 0.05, &t, &err), 0);
    ck_assert(t > 5.0 && t < 15.0);
    ck_assert_int_eq(dp_audit_evaluate(out + H, H, in + H, H, t, 1e-5, 0.05, &b, &err), 0);
    double u = 1.0 - pow(0.025, 1.0 / H);
    ck_assert_double_eq_tol(b.eps_lower, log((1.0 - 1e-5 - u) / u), 1e-9);
    /* the same distribution on both sides: nothing to find */
    normals(out, N, 0.0, &st);
    normals(in, N, 0.0, &st);
    ck_assert_int_eq(dp_audit_select_threshold(out, H, in, H, 1e-5, 0.05, &t, &err), 0);
    ck_assert_int_eq(dp_audit_evaluate(out + H, H, in + H, H, t, 1e-5, 0.05, &b, &err), 0);
    ck_assert_msg(b.eps_lower < 0.2, "mu = 0: bound %g", b.eps_lower);
}
END_TEST

/* Audit i of config (n_runs audits), the mechanisms as built: below the claim, the
 * rates counted on the evaluation half of the trials. */
static void check_below_claim(const char *config, size_t n_runs, int i)
{
    audit_result r;
    int ran;
    audit_fixture_run(config, n_runs, i, "audit", &r, &ran);
    if (!ran) return;
    ck_assert_msg(!r.violation && r.bound.eps_lower <= r.epsilon,
                  "%s: %s at epsilon %g: audited lower bound %g exceeds the claim", config,
                  r.algorithm, r.epsilon, r.bound.eps_lower);
    ck_assert_int_eq(r.bound.n_out + r.bound.n_in, r.trials);
}

/* audit-3.N: audit N of configs/audit.yaml. */
START_TEST(test_audit_config)
{
    check_below_claim(AUDIT_CONFIG, AUDIT_RUNS, _i);
}
END_TEST

/* audit-4.N: audit N of configs/audit_output_gaussian.yaml. */
START_TEST(test_audit_gaussian)
{
    check_below_claim(AUDIT_GAUSSIAN_CONFIG, AUDIT_GAUSSIAN_RUNS, _i);
}
END_TEST

/* audit-5.N: audit N of configs/audit_objective.yaml (objective perturbation, replace-one,
 * the mirror canary pair). */
START_TEST(test_audit_objective)
{
    check_below_claim(AUDIT_OBJECTIVE_CONFIG, AUDIT_OBJECTIVE_RUNS, _i);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("audit");
    test_add_case(s, "audit-1.1", test_cp_reference, 10);
    test_add_case(s, "audit-1.2", test_cp_properties, 10);
    test_add_case(s, "audit-1.3", test_binom_cdf, 10);
    test_add_case(s, "audit-2.1", test_eps_formula, 10);
    test_add_case(s, "audit-2.2", test_evaluate_counts, 10);
    test_add_case(s, "audit-2.3", test_gaussian_mechanism, 30);
    TCase *tc = tcase_create("audit-3");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_audit_config, 0, AUDIT_RUNS);
    suite_add_tcase(s, tc);
    tc = tcase_create("audit-4");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_audit_gaussian, 0, AUDIT_GAUSSIAN_RUNS);
    suite_add_tcase(s, tc);
    tc = tcase_create("audit-5");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_audit_objective, 0, AUDIT_OBJECTIVE_RUNS);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
