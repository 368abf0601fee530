/* test_pate_smooth.c: Check suite "pate_smooth" for algorithms/privacy/pate_smooth.c.
 *
 * pate-ss-1.*  against the public implementation of Papernot et al. 2018: every case of
 *              tests/fixtures/pate/smooth_reference.json (TensorFlow Privacy's
 *              research/pate_2018/smooth_sensitivity.py at 03035d5d4a27;
 *              make_smooth_reference.py beside it says how it was run): ln q0 and ln q1
 *              for 8 (sigma, order) settings, the bounds on q one vote away (48), the
 *              local sensitivities at every distance for 9 histograms of 250 teachers
 *              (GNMax: 72 settings; the threshold test: 27), the discounted maximum and
 *              the RDP of the GNSS release.
 * pate-ss-2.*  properties: q's bounds bracket q; smooth sensitivity is at least the
 *              local sensitivity at the votes and shrinks as beta grows; GNSS outside
 *              its orders is NAN; bad class counts are refused.
 */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "algorithms/privacy/pate.h"
#include "tests/unit/pate_fixture.h"
#include "tests/unit/test_util.h"

#define TEACHERS 250
#define MAX_CLASSES 16

/* |a - b| <= tol * max(|b|, floor). */
static void assert_close(double a, double b, double tol, double floor, const char *what,
                         size_t c, size_t i)
{
    double scale = fabs(b) > floor ? fabs(b) : floor;
    ck_assert_msg(fabs(a - b) <= tol * scale, "%s case %zu [%zu]: %.17g, reference %.17g "
                  "(error %.3g > %.3g)", what, c, i, a, b, fabs(a - b) / scale, tol);
}

/* pate-ss-1.1: ln q0 (the reference finds the root to 2e-12 with Brent's method, dperm
 * to the last bit: 1e-10 relative) and ln q1 = ln of q0's lower bound. */
START_TEST(logq0_matches_reference)
{
    json_t *root = pate_reference("smooth_reference.json");
    size_t c;
    json_t *e;
    json_array_foreach(json_object_get(root, "logq0"), c, e) {
        double sigma = test_num(e, "sigma"), order = test_num(e, "order");
        double logq0 = dp_pate_logq0_gnmax(sigma, order);
        assert_close(logq0, test_num(e, "logq0"), 1e-10, 1e-12, "logq0", c, 0);
        double logq1 = log(dp_pate_q_lower_gnmax(exp(logq0), sigma, 10));
        assert_close(logq1, test_num(e, "logq1"), 1e-10, 1e-12, "logq1", c, 0);
    }
    ck_assert_uint_eq(c, 8);
    json_decref(root);
}
END_TEST

/* pate-ss-1.2: q's bounds one vote away, through erfc^-1 (to 1e-12 relative). */
START_TEST(bounds_match_reference)
{
    json_t *root = pate_reference("smooth_reference.json");
    size_t c;
    json_t *e;
    json_array_foreach(json_object_get(root, "bounds"), c, e) {
        double q = test_num(e, "q"), sigma = test_num(e, "sigma");
        size_t k = (size_t)test_num(e, "classes");
        assert_close(dp_pate_q_lower_gnmax(q, sigma, k), test_num(e, "bl"), 1e-12, 1e-300,
                     "bl", c, 0);
        assert_close(dp_pate_q_upper_gnmax(q, sigma, k), test_num(e, "bu"), 1e-12, 1e-300,
                     "bu", c, 0);
    }
    ck_assert_uint_eq(c, 48);
    json_decref(root);
}
END_TEST

/* pate-ss-1.3: GNMax's local sensitivity at every distance 0..249 (1e-8 relative, floor
 * 1e-12: differences of RDP values near the switch inherit q0's root tolerance). */
START_TEST(local_gnmax_matches_reference)
{
    json_t *root = pate_reference("smooth_reference.json");
    size_t c, walked = 0;
    json_t *e;
    json_array_foreach(json_object_get(root, "local_gnmax"), c, e) {
        double votes[MAX_CLASSES], ref[TEACHERS], ls[TEACHERS];
        size_t k = pate_numbers(json_object_get(e, "votes"), votes, MAX_CLASSES);
        ck_assert_uint_eq(pate_numbers(json_object_get(e, "ls"), ref, TEACHERS), TEACHERS);
        ck_assert_int_eq(dp_pate_local_sensitivity_gnmax(votes, k, TEACHERS,
                                                         test_num(e, "sigma"),
                                                         test_num(e, "order"), ls), 0);
        for (size_t d = 0; d < TEACHERS; d++)
            assert_close(ls[d], ref[d], 1e-8, 1e-12, "local_gnmax", c, d);
        walked += ref[0] != ref[TEACHERS - 1];
    }
    ck_assert_uint_eq(c, 72);
    ck_assert_msg(walked >= 20, "only %zu cases leave the plateau", walked);
    json_decref(root);
}
END_TEST

/* pate-ss-1.4: the threshold test's local sensitivity at every distance. */
START_TEST(local_threshold_matches_reference)
{
    json_t *root = pate_reference("smooth_reference.json");
    size_t c;
    json_t *e;
    json_array_foreach(json_object_get(root, "local_threshold"), c, e) {
        double votes[MAX_CLASSES], ref[TEACHERS], ls[TEACHERS];
        size_t k = pate_numbers(json_object_get(e, "votes"), votes, MAX_CLASSES);
        ck_assert_uint_eq(pate_numbers(json_object_get(e, "ls"), ref, TEACHERS), TEACHERS);
        dp_pate_local_sensitivity_threshold(votes, k, TEACHERS, test_num(e, "threshold"),
                                            test_num(e, "sigma1"), test_num(e, "order"), ls);
        for (size_t d = 0; d < TEACHERS; d++)
            assert_close(ls[d], ref[d], 1e-9, 1e-12, "local_threshold", c, d);
    }
    ck_assert_uint_eq(c, 27);
    json_decref(root);
}
END_TEST

/* pate-ss-1.5: the discounted maximum and GNSS's RDP (Theorem 23). */
START_TEST(release_matches_reference)
{
    json_t *root = pate_reference("smooth_reference.json");
    size_t c;
    json_t *e;
    json_array_foreach(json_object_get(root, "discounted_max"), c, e) {
        double a[16];
        size_t n = pate_numbers(json_object_get(e, "a"), a, 16);
        assert_close(dp_pate_discounted_max(test_num(e, "beta"), a, n), test_num(e, "max"),
                     1e-14, 1e-12, "discounted_max", c, 0);
    }
    json_array_foreach(json_object_get(root, "gnss_rdp"), c, e)
        assert_close(dp_pate_rdp_gnss(test_num(e, "beta"), test_num(e, "sigma"),
                                      test_num(e, "order")),
                     test_num(e, "rdp"), 1e-13, 1e-12, "gnss_rdp", c, 0);
    ck_assert_uint_eq(c, 12);
    json_decref(root);
}
END_TEST

/* pate-ss-2.1: properties. */
START_TEST(properties)
{
    for (double q = 1e-15; q < 0.5; q *= 7) {
        ck_assert(dp_pate_q_lower_gnmax(q, 40, 10) < q);
        ck_assert(dp_pate_q_upper_gnmax(q, 40, 10) > q);
    }
    double votes[10] = {200, 50}, ls[TEACHERS];
    ck_assert_int_eq(dp_pate_local_sensitivity_gnmax(votes, 10, TEACHERS, 40, 10, ls), 0);
    double s1 = dp_pate_discounted_max(0.01, ls, TEACHERS);
    double s2 = dp_pate_discounted_max(0.1, ls, TEACHERS);
    ck_assert(s1 >= ls[0] && s2 >= ls[0] && s1 >= s2);
    ck_assert(isnan(dp_pate_rdp_gnss(0.1, 1, 5)));  /* order >= 1 / (2 beta) */
    ck_assert(isnan(dp_pate_rdp_gnss(0.01, 1, 1))); /* order <= 1 */
    ck_assert_int_eq(dp_pate_local_sensitivity_gnmax(votes, 1, TEACHERS, 40, 10, ls), DP_EINVAL);
    ck_assert_int_eq(dp_pate_local_sensitivity_gnmax(votes, DP_PATE_MAX_CLASSES + 1, TEACHERS,
                                                     40, 10, ls), DP_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pate_smooth");
    test_add_case(s, "pate-ss-1.1", logq0_matches_reference, 30);
    test_add_case(s, "pate-ss-1.2", bounds_match_reference, 30);
    test_add_case(s, "pate-ss-1.3", local_gnmax_matches_reference, 60);
    test_add_case(s, "pate-ss-1.4", local_threshold_matches_reference, 60);
    test_add_case(s, "pate-ss-1.5", release_matches_reference, 30);
    test_add_case(s, "pate-ss-2.1", properties, 30);
    return test_run_suite(s);
}
