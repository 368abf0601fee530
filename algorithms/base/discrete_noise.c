/* discrete_noise.c: exact discrete Laplace and discrete Gaussian samplers in integer
 * arithmetic, and the grid that carries them to real-valued noise (see discrete_noise.h).
 *
 * Source: Canonne, Kamath, Steinke 2020 (CKS), "The Discrete Gaussian for Differential
 * Privacy": Alg. 1 (Bernoulli(exp(-gamma))), Alg. 2 (discrete Laplace), Alg. 3 (discrete
 * Gaussian); Mironov 2012 (CCS) for why floating-point samplers are not private.
 *
 * The grid. A real scale sigma (or b) becomes the integer scale sigma/g with g the largest
 * power of two <= 2^-40 sigma, i.e. sigma/g in [2^40, 2^41). Why this grid:
 *   - g is a power of two, so x/g and Z*g are exact in binary floating point, rounding a
 *     value to the grid is exact (rint of x/g), and the noisy value q + Z g (q = x rounded
 *     to the grid) is an exact multiple of g: IEEE addition returns it correctly rounded,
 *     a function of the noisy value alone (post-processing), unlike a floating-point
 *     normal whose irregular support reveals x through the result's low bits (Mironov).
 *   - the integers stay small: |Z| < 2^53 (so Z * g is exact) except with probability
 *     below 2^-5000, where the draw is repeated; S = sigma^2 / g^2 < 2^82 and every
 *     product below fits 128 bits.
 *   - what it costs in privacy: the mechanism really releases q(D) + g Z with q(D) the
 *     query rounded to the grid, whose l2 sensitivity (in grid units) is at most
 *     (Delta + g sqrt(d)) / g for d coordinates (l1: (Delta + g d) / g). So the effective
 *     noise multiplier is sigma / (Delta + g sqrt(d)) >= z / (1 + z sqrt(d) 2^-40) for the
 *     nominal z = sigma / Delta: for z = 10 and 10^7 parameters, a relative 3e-8, far
 *     below the 0.1% step of dperm's noise calibration. The scale itself is rounded up
 *     (S the next multiple of t above sigma^2/g^2: at most 2^-40 relative).
 *   - discrete against continuous Gaussian: CKS Thm 4 (one coordinate) and Thm 14
 *     (d coordinates, l2 sensitivity) give the discrete Gaussian the concentrated DP of
 *     the continuous one, rho = Delta^2 / (2 sigma^2), up to a term of order
 *     d exp(-pi^2 sigma_int^2) with sigma_int >= 2^40: nothing a double can hold. For the
 *     subsampled accountants (RDP, PLD of the Poisson-subsampled Gaussian), which analyse
 *     the continuous Gaussian: N_Z(0, s^2) is within total variation about 0.03 / s^2
 *     of the continuous N(0, s^2) rounded to the integers (Euler-Maclaurin on the pmf;
 *     leading order), and rounding is post-processing, so an (eps, delta) guarantee of the
 *     continuous mechanism holds for ours with delta + (1 + e^eps) T d 0.03 2^-80: below
 *     1e-14 for 10^7 parameters and 10^5 steps.
 *   - discrete Laplace: Lap_Z(b/g) on a query with integer sensitivity Delta/g + d is
 *     exactly (Delta + g d)/b-DP (CKS §2 and Prop. 2 of Ghosh, Roughgarden, Sundararajan
 *     2009's geometric mechanism): eps grows by a relative d 2^-40 / eps at most.
 *
 * Loop caps (documented deviations from exactness): Alg. 1's alternating series stops at
 * k = 2^15 (probability 1/(2^15 - 1)! to get there); a Laplace proposal whose value would
 * pass 2^62 or a draw with |Z| >= 2^53 is repeated (probability below 2^-5000 at these
 * scales); a Gaussian proposal farther than 2^63 from mu is rejected outright (its
 * acceptance probability is below exp(-2^60)).
 */
#include "algorithms/base/discrete_noise.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/random.h>

#define GRID_BITS 40             /* scale / spacing in [2^40, 2^41) */
#define MAX_SERIES_K (1u << 15)
#define TWO53 9007199254740992.0

// ---- random bytes --------------------------------------------------------------------

int dp_bytes_init_os(dp_bytes *b, dp_err *err)
{
    memset(b, 0, sizeof *b);
    b->pos = DP_BYTES_BUF;
    /* Probe once, so a kernel without getrandom(2) is a clear error before any run. */
    unsigned char probe[8];
    if (getrandom(probe, sizeof probe, 0) != (ssize_t)sizeof probe)
        return dp_err_set(err, DP_EIO, "secure noise: getrandom(2) failed: %s", strerror(errno));
    return 0;
}

void dp_bytes_init_rng(dp_bytes *b, dp_rng *r)
{
    memset(b, 0, sizeof *b);
    b->pos = DP_BYTES_BUF;
    b->rng = r;
}

int dp_bytes_error(const dp_bytes *b, dp_err *err)
{
    if (!b->error) return 0;
    return dp_err_set(err, DP_EIO, "secure noise: getrandom(2) failed: %s", strerror(b->error));
}

static void refill(dp_bytes *b)
{
    if (b->rng) {
        for (size_t i = 0; i < DP_BYTES_BUF; i += 8) {
            uint64_t w = dp_rng_u64(b->rng);
            memcpy(b->buf + i, &w, 8);
        }
    } else {
        size_t got = 0;
        while (got < DP_BYTES_BUF && !b->error) {
            ssize_t r = getrandom(b->buf + got, DP_BYTES_BUF - got, 0);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) b->error = r < 0 ? errno : EIO;
            else got += (size_t)r;
        }
        /* On failure the buffer is zeros: samplers see b->error and stop. */
        if (b->error) memset(b->buf, 0, DP_BYTES_BUF);
    }
    b->pos = 0;
}

uint64_t dp_bytes_u64(dp_bytes *b)
{
    if (b->pos + 8 > DP_BYTES_BUF) refill(b);
    uint64_t w;
    memcpy(&w, b->buf + b->pos, 8);
    b->pos += 8;
    return w;
}

static int coin(dp_bytes *b)
{
    if (b->n_bits == 0) {
        b->bits = dp_bytes_u64(b);
        b->n_bits = 64;
    }
    int c = (int)(b->bits & 1);
    b->bits >>= 1;
    b->n_bits--;
    return c;
}

uint64_t dp_bytes_below(dp_bytes *b, uint64_t n)
{
    /* Reject the top 2^64 mod n values so every residue is equally likely. */
    uint64_t reject_below = (0 - n) % n;
    for (;;) {
        uint64_t x = dp_bytes_u64(b);
        if (x >= reject_below || b->error) return x % n;
    }
}

// ---- CKS Alg. 1 ------------------------------------------------------------------------

/* Bernoulli(num / den), 0 <= num, 1 <= den < 2^127: a uniform U in [0, 1) compared with
 * p = num/den one binary digit at a time, p's digits by long division, U's by fair coins;
 * the first digit where they differ decides (U < p iff there p has the 1). Exact, and two
 * coins on average whatever the size of den: a uniform integer below den would take 16
 * bytes per trial once den passes 2^64, which made getrandom most of the cost. */
static int bernoulli(dp_bytes *b, dp_u128 num, dp_u128 den)
{
    if (num >= den) return 1;
    dp_u128 r = num;
    for (;;) {
        r <<= 1;
        int p_bit = r >= den;
        if (p_bit) r -= den;
        int u_bit = coin(b);
        if (u_bit != p_bit || b->error) return p_bit;
    }
}

/* Bernoulli(exp(-gamma)), gamma = num/den in [0, 1]: draw A_k ~ Bernoulli(gamma / k) for
 * k = 1, 2, ... until one is 0; the result is 1 iff that k is odd (the probability is
 * sum_k (-1)^(k+1) ... = exp(-gamma), CKS Alg. 1 case gamma <= 1). */
static int bernoulli_exp_le1(dp_bytes *b, dp_u128 num, dp_u128 den)
{
    unsigned k = 1;
    while (k < MAX_SERIES_K && bernoulli(b, num, den * k) && !b->error) k++;
    return k & 1;
}

int dp_bernoulli_exp(dp_bytes *b, dp_u128 num, dp_u128 den)
{
    /* gamma > 1: exp(-gamma) = exp(-1)^floor(gamma) exp(-frac(gamma)), CKS Alg. 1. */
    while (num > den) {
        if (!bernoulli_exp_le1(b, 1, 1) || b->error) return 0;
        num -= den;
    }
    return bernoulli_exp_le1(b, num, den);
}

// ---- CKS Alg. 2: discrete Laplace ------------------------------------------------------

int dp_dlaplace_plan(dp_dlaplace *p, uint64_t s, uint64_t t, dp_err *err)
{
    if (s < 1 || t < 1 || s > (UINT64_C(1) << 62) || t > (UINT64_C(1) << 62))
        return dp_err_set(err, DP_EINVAL,
                          "discrete Laplace needs integers 1 <= s, t <= 2^62, got s = %llu, t = %llu",
                          (unsigned long long)s, (unsigned long long)t);
    p->s = s;
    p->t = t;
    return 0;
}

int64_t dp_dlaplace_sample(dp_bytes *b, const dp_dlaplace *p)
{
    const uint64_t limit = UINT64_C(1) << 62;
    while (!b->error) {
        /* X = U + t V has P[X = x] proportional to exp(-x / t): U uniform below t,
         * accepted with probability exp(-U/t), V geometric with ratio exp(-1). */
        uint64_t u = dp_bytes_below(b, p->t);
        if (!dp_bernoulli_exp(b, u, p->t)) continue;
        uint64_t v = 0;
        while (dp_bernoulli_exp(b, 1, 1) && !b->error) v++;
        if (v > (limit - u) / p->t) continue; /* X past 2^62: probability below e^-2^20 */
        uint64_t y = (u + p->t * v) / p->s;
        /* Y = floor(X / s) is geometric with ratio exp(-s/t); a random sign, with the
         * negative zero rejected so that 0 is not counted twice. */
        int neg = coin(b);
        if (neg && y == 0) continue;
        return neg ? -(int64_t)y : (int64_t)y;
    }
    return 0;
}

// ---- CKS Alg. 3: discrete Gaussian -----------------------------------------------------

int dp_dgauss_plan(dp_dgauss *g, dp_u128 S, uint64_t t, dp_err *err)
{
    if (S < 1 || S >> 100 != 0 || t < 1 || t > (UINT64_C(1) << 62) || S % t != 0)
        return dp_err_set(err, DP_EINVAL,
                          "discrete Gaussian needs an integer variance 1 <= S < 2^100 and a "
                          "proposal scale 1 <= t <= 2^62 dividing it, got S = %.17g, t = %llu",
                          (double)S, (unsigned long long)t);
    g->S = S;
    g->t = t;
    g->mu = (uint64_t)(S / t);
    return dp_dlaplace_plan(&g->lap, 1, t, err);
}

int64_t dp_dgauss_sample(dp_bytes *b, const dp_dgauss *g)
{
    while (!b->error) {
        /* Y ~ Lap_Z(t), kept with probability exp(-(|Y| - S/t)^2 / (2 S)): the product of
         * the two is exp(-Y^2 / (2S)) times a constant, so Y ~ N_Z(0, S). */
        int64_t y = dp_dlaplace_sample(b, &g->lap);
        uint64_t a = y < 0 ? (uint64_t)0 - (uint64_t)y : (uint64_t)y;
        uint64_t diff = a > g->mu ? a - g->mu : g->mu - a;
        if (diff >> 63) continue;
        if (dp_bernoulli_exp(b, (dp_u128)diff * diff, 2 * g->S)) return y;
    }
    return 0;
}

// ---- the grid ----------------------------------------------------------------------------

/* The largest power of two <= scale 2^-GRID_BITS, or 0 when scale is unusable. */
static double grid_spacing(double scale)
{
    if (!(scale > 0.0) || !isfinite(scale)) return 0.0;
    int e;
    frexp(scale, &e); /* scale = f 2^e, f in [0.5, 1) */
    double g = ldexp(1.0, e - 1 - GRID_BITS);
    return g >= 2.2250738585072014e-308 ? g : 0.0; /* a normal double: x/g stays exact */
}

/* Zero p and give it the grid of `scale`: 0, or DP_EINVAL naming the scale. */
static int grid_start(dp_grid_noise *p, double scale, int gaussian, dp_err *err)
{
    memset(p, 0, sizeof *p);
    p->spacing = grid_spacing(scale);
    p->gaussian = gaussian;
    if (p->spacing == 0.0)
        return dp_err_set(err, DP_EINVAL, "secure %s noise needs a finite %s > 1e-290, got %g",
                          gaussian ? "Gaussian" : "Laplace", gaussian ? "sigma" : "scale", scale);
    return 0;
}

int dp_grid_gaussian_plan(dp_grid_noise *p, double sigma, dp_err *err)
{
    int rc = grid_start(p, sigma, 1, err);
    if (rc) return rc;
    /* sigma / g = m 2^-12 exactly, m < 2^53 (sigma / g in [2^40, 2^41)). */
    double si = sigma / p->spacing;
    dp_u128 m = (dp_u128)ldexp(si, 12);
    dp_u128 m2 = m * m; /* (sigma/g)^2 = m^2 2^-24 */
    uint64_t t = si < 1518500249988.0 /* 2^40.5 */ ? UINT64_C(1) << 40 : UINT64_C(1) << 41;
    dp_u128 unit = (dp_u128)t << 24;
    dp_u128 S = (m2 + unit - 1) / unit * t; /* the next multiple of t above m^2 2^-24 */
    p->scale = sqrt((double)S) * p->spacing;
    return dp_dgauss_plan(&p->dg, S, t, err);
}

int dp_grid_laplace_plan(dp_grid_noise *p, double b, dp_err *err)
{
    int rc = grid_start(p, b, 0, err);
    if (rc) return rc;
    /* b / g = m 2^-12 exactly: Lap_Z(m / 2^12) is Lap_Z(b / g). */
    uint64_t m = (uint64_t)ldexp(b / p->spacing, 12);
    p->scale = b;
    return dp_dlaplace_plan(&p->lap, UINT64_C(1) << 12, m, err);
}

double dp_grid_snap(const dp_grid_noise *p, double x)
{
    double g = p->spacing;
    /* A double of magnitude >= 2^52 g is already a multiple of g (its ulp is >= g). */
    return fabs(x) >= TWO53 * 0.5 * g ? x : rint(x / g) * g;
}

double dp_grid_add(dp_bytes *b, const dp_grid_noise *p, double x)
{
    double g = p->spacing;
    double q = dp_grid_snap(p, x);
    int64_t z;
    do {
        z = p->gaussian ? dp_dgauss_sample(b, &p->dg) : dp_dlaplace_sample(b, &p->lap);
    } while ((z >= (INT64_C(1) << 53) || z <= -(INT64_C(1) << 53)) && !b->error);
    return q + (double)z * g;
}
