/* test_pate_aggregate.c: Check suite "pate_aggregate" for
 * algorithms/privacy/pate_aggregate.c: each aggregator's noise against its definition.
 *
 * The chance that a given outcome occurs has a closed form for two classes; over N
 * seeded queries its frequency must lie within 5 binomial standard errors of it (a false
 * failure has probability ~6e-7). Dropping the noise, or scaling it by sqrt 2 or 2, moves
 * the frequency by 3 to 80 standard errors, so each case fails then (pagg-1.*, the
 * cases' comments give both numbers).
 * pagg-2.*: PTR's distance to instability; answers are reproducible from the seed;
 * bad settings are named.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/privacy/pate_aggregate.h"
#include "tests/unit/test_util.h"

#define N_QUERIES 200000

/* Frequency of label `want` (-1: not answered) over N_QUERIES queries on votes. */
static double frequency(const dp_pate_cfg *c, const double *votes, size_t k, int want)
{
    dp_noise noise;
    dp_err err;
    double work[8];
    ck_assert_int_eq(dp_noise_init(&noise, 7, 11, 0, &err), 0);
    size_t hits = 0;
    for (size_t i = 0; i < N_QUERIES; i++) {
        int label;
        ck_assert_int_eq(dp_pate_answer(c, votes, k, &noise, work, &label, &err), 0);
        hits += label == want;
    }
    return (double)hits / N_QUERIES;
}

static void assert_frequency(double f, double p, const char *what)
{
    double se = sqrt(p * (1 - p) / N_QUERIES);
    ck_assert_msg(fabs(f - p) <= 5 * se, "%s: frequency %.5f, expected %.5f (5 standard errors "
                  "= %.5f)", what, f, p, 5 * se);
}

/* pagg-1.1: GNMax on votes (10, 9), sigma 5: the second class wins when
 * N(0, 2 sigma^2) > 1, p = erfc(1 / (2 sigma)) / 2 = 0.44378. Without noise p = 0;
 * sigma sqrt 2 gives 0.46013 (15 SE away), 2 sigma 0.47505 (28 SE). */
START_TEST(gnmax_noise)
{
    dp_pate_cfg c = {.kind = DP_PATE_GNMAX, .sigma = 5};
    double votes[2] = {10, 9};
    assert_frequency(frequency(&c, votes, 2, 1), 0.5 * erfc(1.0 / (2 * 5)), "GNMax");
}
END_TEST

/* pagg-1.2: LNMax on votes (10, 9), lambda 2: the difference of two Laplace(b) exceeds
 * t >= 0 with probability (2 + t/b) exp(-t/b) / 4, here 0.37908. lambda 2 sqrt 2 gives
 * 0.40670 (25 SE away); no noise 0. */
START_TEST(lnmax_noise)
{
    dp_pate_cfg c = {.kind = DP_PATE_LNMAX, .lambda = 2};
    double votes[2] = {10, 9};
    assert_frequency(frequency(&c, votes, 2, 1), (2 + 0.5) * exp(-0.5) / 4, "LNMax");
}
END_TEST

/* pagg-1.3: Confident-GNMax's test on votes (10, 0), T 14, sigma1 4: answered when
 * N(0, 16) >= 4, p = erfc(1 / sqrt 2) / 2 = 0.15866; sigma1 4 sqrt 2 gives 0.23975
 * (99 SE away), no noise 0. sigma2 5 with a 10-vote margin: the answer is class 0 but
 * for erfc(1) / 2 = 0.0786 of the answered queries, checked on the answered ones. */
START_TEST(confident_gnmax_noise)
{
    dp_pate_cfg c = {.kind = DP_PATE_CONFIDENT_GNMAX, .sigma = 5, .threshold = 14, .sigma1 = 4};
    double votes[2] = {10, 0};
    double p_answer = 0.5 * erfc(1 / M_SQRT2);
    assert_frequency(1 - frequency(&c, votes, 2, -1), p_answer, "Confident-GNMax test");
    double p1 = frequency(&c, votes, 2, 1);
    /* of the answered queries, class 1 wins w.p. Pr[N(0, 50) > 10] = erfc(1) / 2 */
    double p = p_answer * 0.5 * erfc(1.0);
    assert_frequency(p1, p, "Confident-GNMax answer");
}
END_TEST

/* pagg-1.4: PTR with eps 1, delta 1e-5 (threshold ln(1e5) = 11.513): votes (20, 0) have
 * d = 9, released when 9 + Lap(1) > 11.513, p = exp(-2.513) / 2 = 0.04052; a Laplace of
 * scale 2 would give 0.14235, no noise 0. Votes (40, 0), d = 19: p = 1 - exp(-7.487) / 2. */
START_TEST(ptr_noise)
{
    dp_pate_cfg c = {.kind = DP_PATE_PTR, .eps = 1, .delta = 1e-5};
    double t = log(1e5);
    double votes[2] = {20, 0};
    assert_frequency(frequency(&c, votes, 2, 0), 0.5 * exp(-(t - 9)), "PTR, d 9");
    votes[0] = 40;
    assert_frequency(frequency(&c, votes, 2, 0), 1 - 0.5 * exp(-(19 - t)), "PTR, d 19");
}
END_TEST

/* pagg-2.1: the distance to instability. */
START_TEST(ptr_distance)
{
    double a[3] = {10, 9, 0}, b[3] = {10, 8, 0}, c[3] = {11, 8, 1}, d[3] = {30, 0, 30}, e[2] = {250, 0};
    ck_assert(dp_pate_ptr_distance(a, 3) == 0); /* one changed vote ties them */
    ck_assert(dp_pate_ptr_distance(b, 3) == 0); /* 9 : 9 after one change */
    ck_assert(dp_pate_ptr_distance(c, 3) == 1); /* gap 3: 10 : 9 after one change, unstable */
    ck_assert(dp_pate_ptr_distance(d, 3) == 0); /* a tie */
    ck_assert(dp_pate_ptr_distance(e, 2) == 124);
}
END_TEST

/* pagg-2.2: the same seed gives the same answers; settings are checked. */
START_TEST(reproducible_and_checked)
{
    dp_pate_cfg c = {.kind = DP_PATE_GNMAX, .sigma = 40};
    double votes[3] = {100, 90, 60}, work[3];
    int a[50], b[50];
    dp_noise n1, n2;
    dp_err err;
    ck_assert_int_eq(dp_noise_init(&n1, 3, 5, 0, &err), 0);
    ck_assert_int_eq(dp_noise_init(&n2, 3, 5, 0, &err), 0);
    for (int i = 0; i < 50; i++) {
        ck_assert_int_eq(dp_pate_answer(&c, votes, 3, &n1, work, &a[i], &err), 0);
        ck_assert_int_eq(dp_pate_answer(&c, votes, 3, &n2, work, &b[i], &err), 0);
    }
    ck_assert(memcmp(a, b, sizeof a) == 0);
    ck_assert_int_eq(dp_pate_cfg_check(&c, &err), 0);
    c.sigma = 0;
    ck_assert_int_eq(dp_pate_cfg_check(&c, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "sigma"));
    dp_pate_cfg p = {.kind = DP_PATE_PTR, .eps = 1, .delta = 1};
    ck_assert_int_eq(dp_pate_cfg_check(&p, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "delta"));
    dp_pate_cfg q = {.kind = DP_PATE_CONFIDENT_GNMAX, .sigma = 40, .threshold = 300};
    ck_assert_int_eq(dp_pate_cfg_check(&q, &err), DP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "sigma1"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pate_aggregate");
    test_add_case(s, "pagg-1.1", gnmax_noise, 60);
    test_add_case(s, "pagg-1.2", lnmax_noise, 60);
    test_add_case(s, "pagg-1.3", confident_gnmax_noise, 60);
    test_add_case(s, "pagg-1.4", ptr_noise, 60);
    test_add_case(s, "pagg-2.1", ptr_distance, 30);
    test_add_case(s, "pagg-2.2", reproducible_and_checked, 30);
    return test_run_suite(s);
}
