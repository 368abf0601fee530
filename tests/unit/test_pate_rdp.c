/* test_pate_rdp.c: Check suite "pate_rdp" for algorithms/privacy/pate_rdp.c.
 *
 * pate-1.*  against the public implementation of Papernot et al. 2018: every case of
 *           tests/fixtures/pate/reference.json (TensorFlow Privacy's
 *           research/pate_2018/core.py at 03035d5d4a27; make_reference.py beside it says
 *           how it was run): 23 vote histograms x 4 sigmas for GNMax (ln q, the
 *           data-dependent RDP at 12 orders and the data-independent one), x 3
 *           (threshold, sigma1) for Confident-GNMax's test, x 2 lambdas for LNMax, and one
 *           composition of 20 Confident-GNMax queries converted to (eps, delta).
 * pate-2.*  properties: a data-dependent bound is never above the data-independent one;
 *           more consensus never costs more; a certain answer costs nothing.
 * pate-3.*  bad inputs: dp_pate_check names the parameter.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "algorithms/privacy/pate.h"
#include "algorithms/privacy/rdp.h"
#include "tests/unit/pate_fixture.h"
#include "tests/unit/test_util.h"

#define MAX_ORDERS 16
#define MAX_CLASSES 16

/* |a - b| <= tol * max(|b|, 1e-12): relative, with an absolute floor for values near 0. */
static void assert_close(double a, double b, double tol, const char *what, size_t c, size_t i)
{
    if (isinf(b)) {
        ck_assert_msg(a == b, "%s case %zu [%zu]: %.17g, reference %.17g", what, c, i, a, b);
        return;
    }
    double scale = fabs(b) > 1e-12 ? fabs(b) : 1e-12;
    ck_assert_msg(fabs(a - b) <= tol * scale, "%s case %zu [%zu]: %.17g, reference %.17g "
                  "(relative error %.3g > %.3g)", what, c, i, a, b, fabs(a - b) / scale, tol);
}

static double ORDERS[MAX_ORDERS];
static size_t N_ORDERS;

static void load_orders(json_t *root)
{
    N_ORDERS = pate_numbers(json_object_get(root, "orders"), ORDERS, MAX_ORDERS);
    ck_assert_uint_eq(N_ORDERS, 12);
}

/* pate-1.1: GNMax, ln q and the RDP curve (Prop. 7, Theorem 6, Prop. 8). */
START_TEST(gnmax_matches_reference)
{
    json_t *root = pate_reference("reference.json");
    load_orders(root);
    size_t c, n_dependent = 0, n_independent = 0;
    json_t *e;
    json_array_foreach(json_object_get(root, "gnmax"), c, e) {
        double votes[MAX_CLASSES], ref[MAX_ORDERS], ind[MAX_ORDERS], rdp[MAX_ORDERS];
        size_t k = pate_numbers(json_object_get(e, "votes"), votes, MAX_CLASSES);
        double sigma = test_num(e, "sigma");
        pate_numbers(json_object_get(e, "rdp"), ref, MAX_ORDERS);
        pate_numbers(json_object_get(e, "data_independent"), ind, MAX_ORDERS);
        double logq = dp_pate_logq_gnmax(votes, k, sigma);
        assert_close(logq, test_num(e, "logq"), 1e-10, "gnmax logq", c, 0);
        dp_pate_rdp_gnmax(logq, sigma, ORDERS, N_ORDERS, rdp);
        for (size_t i = 0; i < N_ORDERS; i++) assert_close(rdp[i], ref[i], 1e-9, "gnmax rdp", c, i);
        dp_pate_rdp_gnmax_independent(sigma, ORDERS, N_ORDERS, rdp);
        for (size_t i = 0; i < N_ORDERS; i++)
            assert_close(rdp[i], ind[i], 1e-14, "gnmax independent", c, i);
        if (json_is_true(json_object_get(e, "dependent_applies"))) n_dependent++;
        else n_independent++;
    }
    /* the reference exercises both branches of Theorem 6 well */
    ck_assert_uint_ge(n_dependent, 20);
    ck_assert_uint_ge(n_independent, 20);
    json_decref(root);
}
END_TEST

/* pate-1.2: Confident-GNMax's threshold test: ln Pr[answered] and its RDP. */
START_TEST(threshold_matches_reference)
{
    json_t *root = pate_reference("reference.json");
    load_orders(root);
    size_t c;
    json_t *e;
    json_array_foreach(json_object_get(root, "threshold"), c, e) {
        double votes[MAX_CLASSES], ref[MAX_ORDERS], ind[MAX_ORDERS], rdp[MAX_ORDERS];
        size_t k = pate_numbers(json_object_get(e, "votes"), votes, MAX_CLASSES);
        double t = test_num(e, "threshold"), s1 = test_num(e, "sigma1");
        pate_numbers(json_object_get(e, "rdp"), ref, MAX_ORDERS);
        pate_numbers(json_object_get(e, "data_independent"), ind, MAX_ORDERS);
        double lp = dp_pate_log_pr_answered(t, s1, votes, k);
        assert_close(lp, test_num(e, "log_pr_answered"), 1e-10, "threshold log pr", c, 0);
        dp_pate_rdp_threshold(lp, s1, ORDERS, N_ORDERS, rdp);
        for (size_t i = 0; i < N_ORDERS; i++)
            assert_close(rdp[i], ref[i], 1e-9, "threshold rdp", c, i);
        dp_pate_rdp_threshold_independent(s1, ORDERS, N_ORDERS, rdp);
        for (size_t i = 0; i < N_ORDERS; i++)
            assert_close(rdp[i], ind[i], 1e-14, "threshold independent", c, i);
    }
    json_decref(root);
}
END_TEST

/* pate-1.3: LNMax: ln q (Lemma 4) and the RDP of Theorem 3 at eps = 2 / lambda. */
START_TEST(lnmax_matches_reference)
{
    json_t *root = pate_reference("reference.json");
    load_orders(root);
    size_t c;
    json_t *e;
    json_array_foreach(json_object_get(root, "lnmax"), c, e) {
        double votes[MAX_CLASSES], ref[MAX_ORDERS], rdp[MAX_ORDERS];
        size_t k = pate_numbers(json_object_get(e, "votes"), votes, MAX_CLASSES);
        double lambda = test_num(e, "lambda");
        pate_numbers(json_object_get(e, "rdp"), ref, MAX_ORDERS);
        double logq = dp_pate_logq_lnmax(votes, k, lambda);
        assert_close(logq, test_num(e, "logq"), 1e-12, "lnmax logq", c, 0);
        dp_pate_rdp_pure_eps(logq, 2.0 / lambda, ORDERS, N_ORDERS, rdp);
        for (size_t i = 0; i < N_ORDERS; i++) assert_close(rdp[i], ref[i], 1e-10, "lnmax rdp", c, i);
    }
    json_decref(root);
}
END_TEST

/* pate-1.4: 20 Confident-GNMax queries composed (every query pays the test, the answered
 * ones GNMax too), then eps at delta 1e-5 by the classic conversion, data-dependent and
 * data-independent. */
START_TEST(composition_matches_reference)
{
    json_t *root = pate_reference("reference.json");
    load_orders(root);
    json_t *cmp = json_array_get(json_object_get(root, "compose"), 0);
    json_t *gn = json_object_get(root, "gnmax");
    size_t n_queries = (size_t)test_num(cmp, "queries"), answered = 0;
    double min_votes = test_num(cmp, "answered_if_max_at_least");
    double t = test_num(cmp, "threshold"), s1 = test_num(cmp, "sigma1"), s2 = test_num(cmp, "sigma2");
    double total[MAX_ORDERS] = {0}, total_ind[MAX_ORDERS] = {0}, r[MAX_ORDERS];
    /* the histograms are the first 20 of the gnmax cases, 4 sigmas each */
    for (size_t h = 0; h < n_queries; h++) {
        double votes[MAX_CLASSES];
        size_t k = pate_numbers(json_object_get(json_array_get(gn, 4 * h), "votes"), votes, MAX_CLASSES);
        dp_pate_rdp_threshold(dp_pate_log_pr_answered(t, s1, votes, k), s1, ORDERS, N_ORDERS, r);
        for (size_t i = 0; i < N_ORDERS; i++) total[i] += r[i];
        dp_pate_rdp_threshold_independent(s1, ORDERS, N_ORDERS, r);
        for (size_t i = 0; i < N_ORDERS; i++) total_ind[i] += r[i];
        double top = 0;
        for (size_t j = 0; j < k; j++) top = votes[j] > top ? votes[j] : top;
        if (top < min_votes) continue;
        answered++;
        dp_pate_rdp_gnmax(dp_pate_logq_gnmax(votes, k, s2), s2, ORDERS, N_ORDERS, r);
        for (size_t i = 0; i < N_ORDERS; i++) total[i] += r[i];
        dp_pate_rdp_gnmax_independent(s2, ORDERS, N_ORDERS, r);
        for (size_t i = 0; i < N_ORDERS; i++) total_ind[i] += r[i];
    }
    ck_assert_uint_eq(answered, (size_t)test_num(cmp, "answered"));
    double ref[MAX_ORDERS], eps, order;
    pate_numbers(json_object_get(cmp, "rdp"), ref, MAX_ORDERS);
    for (size_t i = 0; i < N_ORDERS; i++) assert_close(total[i], ref[i], 1e-9, "composed rdp", 0, i);
    dp_err err;
    ck_assert_int_eq(dp_rdp_to_epsilon(ORDERS, total, N_ORDERS, test_num(cmp, "delta"),
                                       DP_RDP_CONVERT_CLASSIC, &eps, &order, &err), 0);
    assert_close(eps, test_num(cmp, "eps"), 1e-9, "composed eps", 0, 0);
    ck_assert(order == test_num(cmp, "order"));
    ck_assert_int_eq(dp_rdp_to_epsilon(ORDERS, total_ind, N_ORDERS, test_num(cmp, "delta"),
                                       DP_RDP_CONVERT_CLASSIC, &eps, &order, &err), 0);
    assert_close(eps, test_num(cmp, "eps_data_independent"), 1e-12, "independent eps", 0, 0);
    json_decref(root);
}
END_TEST

/* pate-2.1: over a sweep of two-class histograms and sigmas, the data-dependent bound is
 * never above the data-independent one, and a larger margin never costs more. */
START_TEST(dependent_bound_properties)
{
    static const double orders[] = {1.5, 2, 4, 8, 16, 32, 64};
    size_t n = sizeof orders / sizeof orders[0];
    for (double sigma = 10; sigma <= 160; sigma *= 2) {
        double prev[7], cur[7], ind[7];
        dp_pate_rdp_gnmax_independent(sigma, orders, n, ind);
        for (int margin = 0; margin <= 250; margin += 10) {
            double votes[2] = {(250 + margin) / 2.0, (250 - margin) / 2.0};
            dp_pate_rdp_gnmax(dp_pate_logq_gnmax(votes, 2, sigma), sigma, orders, n, cur);
            for (size_t i = 0; i < n; i++) {
                ck_assert_msg(cur[i] >= 0 && cur[i] <= ind[i], "sigma %g margin %d order %g: "
                              "%g not in [0, %g]", sigma, margin, orders[i], cur[i], ind[i]);
                if (margin > 0)
                    ck_assert_msg(cur[i] <= prev[i] * (1 + 1e-12), "sigma %g margin %d order "
                                  "%g: %g after %g", sigma, margin, orders[i], cur[i], prev[i]);
                prev[i] = cur[i];
            }
        }
    }
    /* unanimous 250 teachers at sigma 40: Theorem 6 applies, 80 times below Prop. 8 */
    double votes[10] = {250}, r[7], ind[7];
    dp_pate_rdp_gnmax(dp_pate_logq_gnmax(votes, 10, 40), 40, orders, n, r);
    dp_pate_rdp_gnmax_independent(40, orders, n, ind);
    ck_assert(r[1] < 0.02 * ind[1]); /* 1.53e-5 against 1.25e-3 */
    /* a certain answer reveals nothing */
    dp_pate_rdp_gnmax(-INFINITY, 40, orders, n, r);
    for (size_t i = 0; i < n; i++) ck_assert(r[i] == 0);
}
END_TEST

/* pate-2.2: the normal tail far out (ln q below what erfc holds) stays finite and
 * continuous where the series takes over. */
START_TEST(far_tail)
{
    double votes[2] = {250, 0};
    double a = dp_pate_logq_gnmax(votes, 2, 5.0); /* z = 25 */
    double b = dp_pate_logq_gnmax(votes, 2, 5.0000001);
    ck_assert(isfinite(a) && a < -600);
    ck_assert(fabs(a - b) < 1e-3);
    double c = dp_pate_logq_gnmax(votes, 2, 1.0); /* z = 125 */
    ck_assert(isfinite(c) && c < -15000);
}
END_TEST

/* pate-3.1: bad parameters are named. */
START_TEST(bad_inputs)
{
    static const double ok[] = {2, 4}, bad[] = {2, 1};
    dp_err err;
    ck_assert_int_eq(dp_pate_check(40, ok, 2, 10, &err), 0);
    ck_assert_int_eq(dp_pate_check(0, ok, 2, 10, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "sigma"));
    ck_assert_int_eq(dp_pate_check(NAN, ok, 2, 10, &err), DP_EINVAL);
    ck_assert_int_eq(dp_pate_check(40, bad, 2, 10, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "orders"));
    ck_assert_int_eq(dp_pate_check(40, ok, 2, 1, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "classes"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pate_rdp");
    test_add_case(s, "pate-1.1", gnmax_matches_reference, 30);
    test_add_case(s, "pate-1.2", threshold_matches_reference, 30);
    test_add_case(s, "pate-1.3", lnmax_matches_reference, 30);
    test_add_case(s, "pate-1.4", composition_matches_reference, 30);
    test_add_case(s, "pate-2.1", dependent_bound_properties, 30);
    test_add_case(s, "pate-2.2", far_tail, 30);
    test_add_case(s, "pate-3.1", bad_inputs, 30);
    return test_run_suite(s);
}
