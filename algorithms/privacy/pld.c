/* pld.c: privacy loss distribution accountant for the Poisson-subsampled Gaussian
 * mechanism, pessimistic discretization, self-composition by FFT (contract in pld.h).
 *
 * Sources (Google dp_accounting, python/dp_accounting/pld: privacy_loss_mechanism.py,
 * privacy_loss_distribution.py, pld_pmf.py, common.py; the facts, not the code).
 * - One step, noise N(0, s^2), sensitivity 1, rate q, two directions (GaussianPrivacyLoss):
 *     remove: upper (1-q) N(0) + q N(-1), lower N(0), loss log(1 - q + q e^l),
 *     add:    upper N(0), lower (1-q) N(0) + q N(1), loss -log(1 - q + q e^-l),
 *   l = (-/+ 1/2 - x)/s^2 the loss without subsampling, decreasing in x, so a loss grid
 *   maps to x cut-offs. delta(e) = q dG(l) (remove), q e^(e-l) dG(l) (add), with l the
 *   unsubsampled loss at e and dG(l) = Phi(1/(2s) - l s) - e^l Phi(-1/(2s) - l s) the
 *   Gaussian's (Balle & Wang 2018, Thm 8). For q = 1 the directions coincide.
 * - Grid (from_gaussian_mechanism, pessimistic, its default connect-the-dots,
 *   log_mass_truncation_bound -50): x is cut at Phi^-1(e^-50 / 2) s (shifted by the
 *   sensitivity on one side); losses k d for k from floor(loss(x_hi)/d) to
 *   ceil(loss(x_lo)/d); delta at the top grid point is the mass at +infinity.
 * - Connect the dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, Alg. 1): the
 *   mass of losses in (e_i, e_i+1] is split between e_i and e_i+1 keeping both the upper
 *   mass A and the lower mass B = E_upper[e^-L]: delta is exact at grid points, an upper
 *   bound in between.
 * - Composition (self_convolve): FFT convolution on a range bounded by a Chernoff bound,
 *   tail_mass_truncation 1e-15 to +infinity; epsilon is the larger of the two directions'
 *   (PrivacyLossDistribution.get_epsilon_for_delta), each solved exactly between grid
 *   points from delta(e) = inf_mass + sum_{L_j > e} p_j (1 - e^(e - L_j)).
 *
 * Choices made where the sources are silent or that differ from them.
 * - Interval masses instead of differences of deltas. dp_accounting forms each mass from
 *   second differences of delta(e_i) over e^d - 1, an absolute error ~1e-16/d per point.
 *   Here the same connect-the-dots masses come from Gaussian interval probabilities taken
 *   on the small-tail side (in log space where the likelihood ratio would overflow), so
 *   each keeps its relative accuracy; in exact arithmetic the two are identical.
 * - Repeated squaring with linear convolutions instead of one FFT power: each product is
 *   zero-padded to its full length (no wrap-around), then cut to the Chernoff range of its
 *   number of compositions m; the cut mass moves pessimistically (left tail onto the first
 *   kept loss, right tail to +infinity), so the result is an upper bound whatever the
 *   bound says; the bound only keeps the moved mass small. The mass cut at m compositions
 *   reappears up to steps/m times in the result, so tau(m) is shared to total 1e-15.
 * - q = 1 is composed exactly, as dp_accounting does for a Gaussian event: `steps`
 *   Gaussians of noise sigma are one Gaussian of noise sigma/sqrt(steps).
 * - Default interval 1e-4, dp_accounting's PLDAccountant default. Measured here (2 cores):
 *   q 256/60000, sigma 1.1 takes 0.12 / 0.16 / 0.25 s for 1e3 / 1e4 / 1e5 steps, the
 *   slowest case of reference_eps.json 0.7 s; epsilons match dp_accounting's to 3e-7.
 *   1e-3 would be ~5x faster but is loose where the whole one-step loss range is only a
 *   few grid points wide (q 0.004, sigma 10: +40%, up to +130% at q 0.0026); at 1e-4 the
 *   worst such case is 1.4% above the converged (1e-5 grid) value. When the composed loss
 *   would span more than DP_PLD_MAX_POINTS grid points (epsilons of ~50 and more), the
 *   default is coarsened, sized by a probe on a 4096-point grid, so memory stays ~100 MB.
 * - pld_wor.c (fixed-size batches, replace-one) reuses the one-step PMFs, the grid sizing
 *   and the composition through pld_int.h: pld_compose takes any mechanism that builds
 *   its one-step PMFs on a given grid (build_poisson here).
 */
#include "algorithms/privacy/pld.h"
#include "algorithms/privacy/params.h"
#include "algorithms/privacy/pld_int.h"

#include <complex.h> /* before fftw3.h: fftw_complex is then double _Complex */
#include <fftw3.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* dp_accounting's log_mass_truncation_bound: ln of the noise mass left off the x range. */
#define LOG_MASS_TRUNCATION (-50.0)
/* Tail mass the whole self-composition may move (dp_accounting's tail_mass_truncation). */
#define TAIL_BUDGET 1e-15
/* Chernoff orders t = +-2^(j/2) / n for j in [ORDER_JMIN, ORDER_JMAX] (n the one-step
 * grid size): reaches the optimum from one step to ~1e10 steps (cgf_init); half-octave
 * steps cost at most ~6% of the range width. */
#define ORDER_JMIN (-28)
#define ORDER_JMAX 16
#define N_ORDERS (ORDER_JMAX - ORDER_JMIN + 1)
/* Coarsenings of the default interval tried before giving up. */
#define MAX_ATTEMPTS 40
/* One-step grid size of the probe that sizes the default grid. */
#define PROBE_POINTS 4096.0

/* A discretized PLD (pld_int.h), by its short name in this file. */
typedef pld_pmf pmf;

// ---- Gaussian tails -------------------------------------------------------------------

static double norm_cdf(double u) { return 0.5 * erfc(-u / M_SQRT2); }

/* log Phi(u), accurate in the far left tail where erfc underflows (asymptotic series,
 * Abramowitz & Stegun 26.2.12; at u < -35 the omitted term is < 1e-13 relative). */
static double log_norm_cdf(double u)
{
    if (u > 0) return log1p(-norm_cdf(-u));
    if (u > -35) return log(norm_cdf(u));
    if (u == -INFINITY) return -INFINITY;
    double r = 1.0 / (u * u), s = 1.0, term = 1.0;
    for (int k = 1; k <= 5; k++) {
        term *= -(2.0 * k - 1.0) * r;
        s += term;
    }
    return -0.5 * u * u - log(-u) - 0.5 * log(2.0 * M_PI) + log(s);
}

/* A cut-off point of the x grid as seen by one Gaussian component: u = (x - c)/s and the
 * log of the smaller tail Phi(-|u|), from which interval masses keep relative accuracy. */
typedef struct { double u, lt; } cut;

static cut make_cut(double u) { return (cut){u, log_norm_cdf(-fabs(u))}; }

/* e^shift * (Phi(hi.u) - Phi(lo.u)), without overflow or cancellation of the tail side. */
static double scaled_mass(double shift, cut lo, cut hi)
{
    if (!(hi.u > lo.u)) return 0.0;
    if (hi.u <= 0) {
        if (hi.lt == -INFINITY) return 0.0;
        return exp(shift + hi.lt) * -expm1(lo.lt - hi.lt);
    }
    if (lo.u >= 0) {
        if (lo.lt == -INFINITY) return 0.0;
        return exp(shift + lo.lt) * -expm1(hi.lt - lo.lt);
    }
    return exp(shift) * (1.0 - exp(lo.lt) - exp(hi.lt));
}

/* 1 - Phi(u) at a cut, from the stored small tail. */
static double above(cut c) { return c.u > 0 ? exp(c.lt) : -expm1(c.lt); }

// ---- the mechanism --------------------------------------------------------------------

/* Unsubsampled loss l at subsampled loss e: remove l = log(1 + (e^e - 1)/q), -inf when
 * e <= log(1-q); add l = -log(1 + (e^-e - 1)/q), +inf when e >= -log(1-q). */
static double unsub_loss(pld_dir dir, double q, double e)
{
    if (q == 1.0) return e;
    if (dir == PLD_REMOVE) {
        if (e <= log1p(-q)) return -INFINITY;
        return e > 0 ? e - log(q) + log1p((q - 1.0) * exp(-e)) : log1p(expm1(e) / q);
    }
    if (e >= -log1p(-q)) return INFINITY;
    return e < 0 ? e + log(q) - log1p((q - 1.0) * exp(e)) : -log1p(expm1(-e) / q);
}

static double log_add_exp(double x, double y)
{
    double hi = fmax(x, y), lo = fmin(x, y);
    if (lo == -INFINITY) return hi;
    return hi + log1p(exp(lo - hi));
}

/* z with Phi(-z) = e^LOG_MASS_TRUNCATION / 2 (~9.8), by bisection on log Phi. */
static double truncation_z(void)
{
    double target = LOG_MASS_TRUNCATION - log(2.0), a = 0.0, b = 40.0;
    for (int i = 0; i < 200 && b - a > 1e-15; i++) {
        double mid = 0.5 * (a + b);
        if (log_norm_cdf(-mid) > target) a = mid;
        else b = mid;
    }
    return b;
}

/* Loss range [lo, hi] of the remove direction; the add direction's is [-hi, -lo]. */
static void remove_range(double q, double s, double *lo, double *hi)
{
    double z = truncation_z(), lmax = z / s + 0.5 / (s * s);
    /* remove loss at unsubsampled l: log((1-q) + q e^l) */
    *hi = q == 1.0 ? lmax : log_add_exp(log1p(-q), log(q) + lmax);
    *lo = q == 1.0 ? -lmax : log_add_exp(log1p(-q), log(q) - lmax);
}

// ---- one step: connect-the-dots PMF ---------------------------------------------------

/* The two Gaussian components' cut-offs at grid loss e. remove: c0 = N(0) (the lower
 * distribution; weight 1-q in the upper), c1 = N(-1) (weight q in the upper); add: c0 =
 * N(0) (the upper; weight 1-q in the lower), c1 = N(1) (weight q in the lower). */
typedef struct { double e, l; cut c0, c1; } grid_pt;

static grid_pt make_pt(pld_dir dir, double q, double s, double e)
{
    grid_pt g;
    g.e = e;
    g.l = unsub_loss(dir, q, e);
    /* u of the cut at l; never NaN: 0.5/s is finite once the loss range is (callers) */
    double a = 0.5 / s - g.l * s, b = -0.5 / s - g.l * s;
    g.c0 = make_cut(dir == PLD_REMOVE ? b : a);
    g.c1 = make_cut(dir == PLD_REMOVE ? a : b);
    return g;
}

/* Upper mass A, and A - e^e_i B (B the lower mass), of the losses in (e_i, e_i+1], i.e.
 * of x in [x_j, x_i), from the grid points pi (e_i) and pj (e_i+1). */
static void interval_masses(pld_dir dir, double q, grid_pt pi, grid_pt pj, double *A,
                            double *num)
{
    double g0 = scaled_mass(0.0, pj.c0, pi.c0), g1 = scaled_mass(0.0, pj.c1, pi.c1);
    if (dir == PLD_REMOVE) {
        *A = (1.0 - q) * g0 + q * g1;
        /* A - e^e B = q g1 + (1 - q - e^e) g0 = q (g1 - e^l g0), since q e^l = e^e - 1 + q */
        *num = pi.l == -INFINITY ? q * g1 + (-expm1(pi.e) - q) * g0
                                 : q * (g1 - scaled_mass(pi.l, pj.c0, pi.c0));
    } else {
        *A = g0;
        /* A - e^e B = (1 - e^e (1-q)) g0 - q e^e g1 = q e^e (e^-l g0 - g1) */
        *num = q * (scaled_mass(pi.e - pi.l, pj.c0, pi.c0) - scaled_mass(pi.e, pj.c1, pi.c1));
    }
}

/* One step's pessimistic PLD on the grid k*d, k = kl..ku. Returns 0 or DP_ENOMEM. */
static int single_pmf(pld_dir dir, double q, double s, double d, long long kl, long long ku,
                      pmf *out)
{
    size_t n = (size_t)(ku - kl + 1);
    double *p = calloc(n, sizeof *p);
    if (!p) return DP_ENOMEM;
    double split = -expm1(-d); /* 1 - e^-d */
    grid_pt cur = make_pt(dir, q, s, (double)kl * d);
    /* losses <= e_0 (x >= x_0) all go to e_0 */
    p[0] = dir == PLD_REMOVE ? (1.0 - q) * above(cur.c0) + q * above(cur.c1) : above(cur.c0);
    for (size_t i = 0; i + 1 < n; i++) {
        grid_pt nxt = make_pt(dir, q, s, (double)(kl + (long long)i + 1) * d);
        double A, num;
        interval_masses(dir, q, cur, nxt, &A, &num);
        double hi = num / split; /* the share of (e_i, e_i+1] put on e_i+1 */
        hi = hi < 0 ? 0.0 : hi > A ? A : hi;
        p[i] += A - hi;
        p[i + 1] += hi;
        cur = nxt;
    }
    /* losses > e_top (x < x_top, up to a sentinel at x = -inf): A - e^e_top B there is
     * delta(e_top), which goes to +infinity; the rest stays on e_top */
    grid_pt end = {.c0 = make_cut(-INFINITY), .c1 = make_cut(-INFINITY)};
    double a_top, inf;
    interval_masses(dir, q, cur, end, &a_top, &inf);
    inf = inf < 0 ? 0.0 : inf > a_top ? a_top : inf;
    p[n - 1] += a_top - inf;
    *out = (pmf){.lo = kl, .n = n, .p = p, .inf = inf, .m = 1};
    return 0;
}

// ---- Chernoff ranges ------------------------------------------------------------------

/* Cumulant generating function K(t) = log sum_k p_k e^(t k) of the one-step PMF at the
 * orders t_j, by running products walking away from the heavy end (terms fall
 * geometrically, so the walk stops once the rest cannot matter). */
typedef struct { double t[2 * N_ORDERS], K[2 * N_ORDERS]; size_t n1; int n; } cgf;

/* sum_k v[k] r^k over k < n with 0 < r < 1: four interleaved chains (the loop is
 * latency-bound otherwise), stopping once the remaining terms are < 1e-18 of the sum. */
static double geometric_sum(const double *v, ptrdiff_t stride, size_t n, double r)
{
    double r2 = r * r, r4 = r2 * r2, w[4] = {1.0, r, r2, r2 * r}, s[4] = {0, 0, 0, 0};
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        for (int j = 0; j < 4; j++) {
            s[j] += v[(ptrdiff_t)(k + j) * stride] * w[j];
            w[j] *= r4;
        }
        if ((k & 255) == 252 && w[0] * (double)(n - k) < 1e-18 * (s[0] + s[1] + s[2] + s[3]))
            return s[0] + s[1] + s[2] + s[3];
    }
    double sum = s[0] + s[1] + s[2] + s[3], wk = w[0];
    for (; k < n; k++, wk *= r) sum += v[(ptrdiff_t)k * stride] * wk;
    return sum;
}

/* Orders for up to T compositions: the best t for m of them is about
 * sqrt(2 log(2/tau) / m) / std >= 2 sqrt(70/T) / n (index std <= n/2, tau <= 1e-15), so
 * orders below sqrt(60/T) / (4n) never win and are skipped (each scans the whole grid). */
static void cgf_init(cgf *c, const pmf *x, double T)
{
    size_t n = x->n;
    int jlo = (int)floor(2.0 * log2(sqrt(60.0 / T) / 4.0));
    if (jlo < ORDER_JMIN) jlo = ORDER_JMIN;
    c->n1 = n;
    c->n = 0;
    for (int j = jlo; j <= ORDER_JMAX; j++) {
        double t = pow(2.0, 0.5 * j) / (double)n, r = exp(-t);
        c->t[c->n] = t; /* t > 0: from the top end down */
        c->K[c->n++] = t * (double)(n - 1) + log(geometric_sum(x->p + n - 1, -1, n, r));
        c->t[c->n] = -t; /* t < 0: from the bottom end up */
        c->K[c->n++] = log(geometric_sum(x->p, 1, n, r));
    }
}

/* Chernoff range [lo, hi] (grid index relative to m * the one-step lo) holding all but
 * tau of the m-fold composition; clamped to the support [0, m (n1 - 1)]. */
static void cgf_range(const cgf *c, double m, double tau, double *lo, double *hi)
{
    double cst = log(2.0 / tau), top = m * (double)(c->n1 - 1);
    *lo = 0.0;
    *hi = top;
    for (int k = 0; k < c->n; k++) {
        if (!isfinite(c->K[k])) continue;
        double b = (m * c->K[k] + cst) / c->t[k];
        if (c->t[k] > 0 && b < *hi) *hi = ceil(b);
        if (c->t[k] < 0 && b > *lo) *lo = floor(b);
    }
    if (*hi < *lo) *hi = *lo;
}

// ---- composition ----------------------------------------------------------------------

/* Smallest 2^a 3^b 5^c 7^e >= n (sizes FFTW handles with its fastest codelets). */
static size_t fft_size(size_t n)
{
    size_t best = (size_t)1 << 62;
    for (size_t p7 = 1; p7 < 2 * n; p7 *= 7)
        for (size_t p5 = p7; p5 < 2 * n; p5 *= 5)
            for (size_t p3 = p5; p3 < 2 * n; p3 *= 3) {
                size_t v = p3;
                while (v < n) v *= 2;
                if (v < best) best = v;
            }
    return best;
}

/* out = a (*) b, the linear convolution by a zero-padded real FFT (no wrap-around); a may
 * equal b (one forward transform). Negative rounding noise is clipped to 0. On error
 * out->p is NULL. */
static int convolve(const pmf *a, const pmf *b, pmf *out)
{
    size_t n = a->n + b->n - 1;
    double *res = NULL;
    *out = (pmf){.lo = a->lo + b->lo, .n = n, .m = a->m + b->m,
                 .inf = a->inf + b->inf - a->inf * b->inf};
    if (a->n == 1 || b->n == 1) { /* a scaled shift: exact, no transform noise */
        const pmf *pt = a->n == 1 ? a : b, *other = a->n == 1 ? b : a;
        if (!(res = malloc(n * sizeof *res))) return DP_ENOMEM;
        for (size_t k = 0; k < n; k++) res[k] = other->p[k] * pt->p[0];
        out->p = res;
        return 0;
    }
    size_t N = fft_size(n), nc = N / 2 + 1;
    int rc = DP_ENOMEM;
    double *buf = fftw_alloc_real(N);
    fftw_complex *fa = fftw_alloc_complex(nc), *fb = a == b ? NULL : fftw_alloc_complex(nc);
    fftw_plan fwd = NULL, inv = NULL;
    if (!buf || !fa || (a != b && !fb)) goto fail;
    fwd = fftw_plan_dft_r2c_1d((int)N, buf, fa, FFTW_ESTIMATE);
    inv = fftw_plan_dft_c2r_1d((int)N, fa, buf, FFTW_ESTIMATE);
    if (!fwd || !inv) goto fail;
    memset(buf, 0, N * sizeof *buf);
    memcpy(buf, a->p, a->n * sizeof *buf);
    fftw_execute(fwd);
    if (fb) {
        memset(buf, 0, N * sizeof *buf);
        memcpy(buf, b->p, b->n * sizeof *buf);
        fftw_execute_dft_r2c(fwd, buf, fb);
    }
    for (size_t k = 0; k < nc; k++) fa[k] *= fb ? fb[k] : fa[k];
    fftw_execute(inv);
    if (!(res = malloc(n * sizeof *res))) goto fail;
    for (size_t k = 0; k < n; k++) {
        double v = buf[k] / (double)N;
        res[k] = v > 0 ? v : 0.0;
    }
    out->p = res;
    rc = 0;
fail:
    if (inv) fftw_destroy_plan(inv);
    if (fwd) fftw_destroy_plan(fwd);
    fftw_free(fb);
    fftw_free(fa);
    fftw_free(buf);
    return rc;
}

/* Keeps grid indices [wlo, whi] of x: the mass below moves up onto the first kept loss,
 * the mass above goes to +infinity (both pessimistic). */
static void truncate_pmf(pmf *x, double wlo, double whi)
{
    double first = (double)x->lo, last = first + (double)(x->n - 1);
    double k0 = fmax(first, wlo), k1 = fmin(last, whi);
    if (k1 < k0) k0 = k1 = whi < first ? first : last;
    size_t i0 = (size_t)(k0 - first), i1 = (size_t)(k1 - first); /* indices < 2^52: exact */
    if (i1 >= x->n) i1 = x->n - 1;
    double left = 0.0, right = 0.0;
    for (size_t i = 0; i < i0; i++) left += x->p[i];
    for (size_t i = i1 + 1; i < x->n; i++) right += x->p[i];
    memmove(x->p, x->p + i0, (i1 - i0 + 1) * sizeof *x->p);
    x->p[0] += left;
    x->inf += right;
    if (x->inf > 1) x->inf = 1;
    x->lo += (long long)i0;
    x->n = i1 - i0 + 1;
}

/* The Chernoff ranges of one direction: its one-step CGF, the one-step grid start lo1,
 * and the tail budget per composition (tau(m) = tau_unit * m). */
typedef struct { const cgf *c; long long lo1; double tau_unit; } window;

/* Cuts x, an m-fold composition, to its Chernoff range with tail budget tau(m). */
static void apply_window(const window *w, pmf *x)
{
    double lo, hi;
    cgf_range(w->c, x->m, w->tau_unit * x->m, &lo, &hi);
    double base = x->m * (double)w->lo1;
    truncate_pmf(x, base + lo, base + hi);
}

static void pmf_free(pmf *x)
{
    free(x->p);
    x->p = NULL;
}

/* The steps-fold composition of one by repeated squaring, each product cut to its
 * Chernoff range. Takes over one's array (one->p is NULL on return, success or not). */
static int self_compose(pmf *one, long steps, const window *w, pmf *out)
{
    pmf base = *one, acc = {.n = 1, .m = 0}, tmp; /* acc: the identity, all mass at 0 */
    int rc = 0;
    one->p = NULL;
    apply_window(w, &base);
    if (!(acc.p = malloc(sizeof *acc.p))) {
        rc = DP_ENOMEM;
        goto fail;
    }
    acc.p[0] = 1.0;
    for (long r = steps;;) {
        if (r & 1) {
            if ((rc = convolve(&acc, &base, &tmp))) goto fail;
            pmf_free(&acc);
            acc = tmp;
            apply_window(w, &acc);
        }
        r >>= 1;
        if (!r) break;
        if ((rc = convolve(&base, &base, &tmp))) goto fail;
        pmf_free(&base);
        base = tmp;
        apply_window(w, &base);
    }
    pmf_free(&base);
    *out = acc;
    return 0;
fail:
    pmf_free(&base);
    pmf_free(&acc);
    return rc;
}

// ---- epsilon and delta of a PMF -------------------------------------------------------

/* Smallest e >= 0 with delta(e) <= target, exact between grid points (+inf when the
 * infinity mass alone exceeds the target). Scans down from the top loss keeping U = inf +
 * sum_{j>k} p_j and S = sum_{j>k} p_j e^(e_k - e_j), so delta(e_k) = U - S. */
static double pmf_epsilon(const pmf *x, double d, double target)
{
    if (x->inf > target) return INFINITY;
    double U = x->inf, S = 0.0, shrink = exp(-d);
    for (long long k = (long long)x->n - 1;; k--) {
        double ek = (double)(x->lo + k) * d;
        /* k = -1: below the lowest loss delta(e) = U - e^(e - e_k) S holds for all e */
        if (U - S > target || k < 0) {
            /* delta(e) = U - e^(e - e_k) S on (e_k, e_k+1]: solve delta(e) = target */
            double e = U <= target ? 0.0 : S > 0 ? ek + log((U - target) / S) : ek + d;
            if (e > ek + d) e = ek + d;
            return e > 0 ? e : 0.0;
        }
        if (ek <= 0) return 0.0; /* delta(0) <= delta(e_k) <= target */
        U += x->p[k];
        S = (S + x->p[k]) * shrink;
    }
}

static double pmf_delta(const pmf *x, double d, double eps)
{
    double r = x->inf;
    for (size_t k = x->n; k-- > 0;) {
        double ek = (double)(x->lo + (long long)k) * d;
        if (ek <= eps) break;
        r += x->p[k] * -expm1(eps - ek);
    }
    return r < 0 ? 0.0 : r > 1 ? 1.0 : r;
}

// ---- the accountant -------------------------------------------------------------------

/* The one-step PMFs of the mechanism on grid d and their CGFs; *need gets the grid
 * points the composition will occupy (the larger of the one-step grid and the Chernoff
 * range of T compositions), +inf when grid indices could overflow. On DP_ENOMEM
 * nothing is left allocated. */
static int build_steps(const pld_mech *mech, long T, double d, double tau, pmf one[2],
                       cgf cg[2], double *need)
{
    double n1;
    int rc = mech->build(mech, d, one, &n1);
    *need = n1;
    if (rc || n1 > (double)DP_PLD_MAX_POINTS) return rc;
    for (int k = 0; k < mech->nd; k++) {
        double lo, hi;
        cgf_init(&cg[k], &one[k], (double)T);
        cgf_range(&cg[k], (double)T, tau, &lo, &hi);
        if (hi - lo + 1 > *need) *need = hi - lo + 1;
        if ((double)T * (fabs((double)one[k].lo) + n1) > 0x1p52) /* exact in a double */
            *need = INFINITY;
    }
    return 0;
}

/* pld_mech.build of the Poisson accountant: remove on [floor(rlo/d), ceil(rhi/d)], add
 * (when nd = 2) on the mirror of that range. */
static int build_poisson(const pld_mech *m, double d, pmf one[2], double *n1)
{
    double kl = floor(m->rlo / d), ku = ceil(m->rhi / d);
    *n1 = ku - kl + 1;
    if (*n1 > (double)DP_PLD_MAX_POINTS) return 0;
    for (int k = 0; k < m->nd; k++) {
        pld_dir dir = k == 0 ? PLD_REMOVE : PLD_ADD;
        double a = dir == PLD_REMOVE ? kl : -ku, b = dir == PLD_REMOVE ? ku : -kl;
        if (single_pmf(dir, m->q, m->s, d, (long long)a, (long long)b, &one[k])) {
            for (int j = 0; j < k; j++) pmf_free(&one[j]);
            return DP_ENOMEM;
        }
    }
    return 0;
}

int pld_compose(const pld_mech *m, long T, long steps, double interval, pmf out[2],
                double *d_used, dp_err *err)
{
    int nd = m->nd, bits = 0, explicit_d = interval > 0, rc = 0;
    double rlo = m->rlo, rhi = m->rhi, need;
    /* points the default grid may fill; an explicit interval may use DP_PLD_MAX_POINTS */
    double maxp = (double)(!explicit_d && m->max_points > 0 ? m->max_points : DP_PLD_MAX_POINTS);
    if ((double)T * 4.0 > 0x1p52) /* even a 3-point grid leaves exact double indices */
        return dp_err_set(err, DP_EPRIVACY, "PLD: %ld steps are too many to compose", steps);
    for (long r = T; r; r >>= 1) bits++;
    /* truncations: at most 2 per bit of T, each at m compositions reappearing <= T/m
     * times in the result, so tau(m) = budget m / (2 bits T) keeps the total in budget */
    double tau_unit = TAIL_BUDGET / (2.0 * bits * (double)T), tau_T = tau_unit * (double)T;
    double d = explicit_d ? interval : DP_PLD_DEFAULT_INTERVAL;
    pmf one[2] = {{0}, {0}};
    cgf cg[2]; /* ~3 KB */
    if (!explicit_d) {
        /* Size the default grid from a probe on <= PROBE_POINTS one-step points: the
         * composed range in loss units hardly depends on the interval, and a wrong
         * guess only costs a rebuild in the loop below. */
        double dp = fmax(d, (rhi - rlo) / PROBE_POINTS);
        if (build_steps(m, T, dp, tau_T, one, cg, &need)) goto nomem;
        for (int k = 0; k < nd; k++) pmf_free(&one[k]);
        if (isfinite(need)) d = fmax(d, need * dp / maxp);
        d = fmax(d, 1.01 * (rhi - rlo) / maxp);
    }
    for (int attempt = 0;; attempt++) {
        if (attempt == MAX_ATTEMPTS) {
            rc = dp_err_set(err, DP_EPRIVACY,
                            "PLD: %ld steps do not fit a grid of %.0f points even at interval %g",
                            steps, maxp, d);
            goto fail;
        }
        if (build_steps(m, T, d, tau_T, one, cg, &need)) goto nomem;
        if (need <= maxp) break;
        for (int k = 0; k < nd; k++) pmf_free(&one[k]);
        if (explicit_d) {
            rc = dp_err_set(err, DP_EINVAL,
                            "PLD interval %g needs %.3g grid points (more than %ld)", d, need,
                            DP_PLD_MAX_POINTS);
            dp_err_hint(err, "use a coarser interval, or 0 for the default");
            goto fail;
        }
        double f = isfinite(need) ? 1.05 * need / maxp : 4.0;
        d *= f > 1.5 ? f : 1.5;
    }
    for (int k = 0; k < nd; k++) {
        window w = {.c = &cg[k], .lo1 = one[k].lo, .tau_unit = tau_unit};
        if (self_compose(&one[k], T, &w, &out[k])) {
            for (int j = 0; j < k; j++) pmf_free(&out[j]);
            goto nomem;
        }
    }
    *d_used = d;
    goto fail; /* success: only the scratch is released */
nomem:
    rc = dp_err_set(err, DP_ENOMEM, "PLD: out of memory (interval %g, %ld steps)", d, steps);
fail:
    for (int k = 0; k < 2; k++) pmf_free(&one[k]);
    return rc;
}

/* Both directions' composed PMFs (one when q = 1) on the grid *d_used. Returns 0, 1 when
 * the privacy loss is not representable (sigma tiny: the caller reports the trivial
 * bound), or a negative DP_E* code. */
static int compose_both(double q, double sigma, long steps, double interval, long max_points,
                        pmf out[2], int *ndir, double *d_used, dp_err *err)
{
    pld_mech m = {.q = q, .s = q == 1.0 ? sigma / sqrt((double)steps) : sigma,
                  .nd = q == 1.0 ? 1 : 2, .max_points = max_points, .build = build_poisson};
    remove_range(q, m.s, &m.rlo, &m.rhi);
    if (!isfinite(m.rlo) || !isfinite(m.rhi)) return 1;
    int rc = pld_compose(&m, q == 1.0 ? 1 : steps, steps, interval, out, d_used, err);
    if (rc == 0) *ndir = m.nd;
    return rc;
}

static int check_args(double q, double sigma, long steps, double interval, dp_err *err)
{
    int rc;
    if ((rc = dp_check_rate(q, err)) || (rc = dp_check_noise(sigma, err)) ||
        (rc = dp_check_steps(steps, err)))
        return rc;
    if (isnan(interval) || interval == INFINITY)
        return dp_err_set(err, DP_EINVAL, "PLD interval = %g must be finite", interval);
    return 0;
}

/* Composes, then reports the larger direction's epsilon at delta = x (want_eps) or delta
 * at eps = x. */
static int evaluate(double q, double sigma, long steps, double x, double interval,
                    long max_points, int want_eps, double *out, dp_err *err)
{
    pmf pm[2];
    int nd = 0;
    double d = 0, r = 0.0;
    int rc = compose_both(q, sigma, steps, interval, max_points, pm, &nd, &d, err);
    if (rc < 0) return rc;
    if (rc == 1) { /* privacy loss beyond a double: only the trivial bound */
        *out = want_eps ? INFINITY : 1.0;
        return 0;
    }
    for (int k = 0; k < nd; k++) {
        double v = want_eps ? pmf_epsilon(&pm[k], d, x) : pmf_delta(&pm[k], d, x);
        if (v > r) r = v;
        pmf_free(&pm[k]);
    }
    *out = r;
    return 0;
}

int dp_pld_epsilon(double q, double sigma, long steps, double delta, double interval,
                   double *eps, dp_err *err)
{
    int rc = check_args(q, sigma, steps, interval, err);
    if (rc) return rc;
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside (0, 1)", delta);
    if (!eps) return dp_err_set(err, DP_EINVAL, "eps output is NULL");
    return evaluate(q, sigma, steps, delta, interval, 0, 1, eps, err);
}

int dp_pld_epsilon_coarse(double q, double sigma, long steps, double delta, long max_points,
                          double *eps, dp_err *err)
{
    int rc = check_args(q, sigma, steps, 0.0, err);
    if (rc) return rc;
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside (0, 1)", delta);
    if (max_points < DP_PLD_MIN_COARSE_POINTS || max_points > DP_PLD_MAX_POINTS)
        return dp_err_set(err, DP_EINVAL, "PLD max_points = %ld is outside [%ld, %ld]",
                          max_points, DP_PLD_MIN_COARSE_POINTS, DP_PLD_MAX_POINTS);
    if (!eps) return dp_err_set(err, DP_EINVAL, "eps output is NULL");
    return evaluate(q, sigma, steps, delta, 0.0, max_points, 1, eps, err);
}

int dp_pld_delta(double q, double sigma, long steps, double eps, double interval,
                 double *delta, dp_err *err)
{
    int rc = check_args(q, sigma, steps, interval, err);
    if (rc) return rc;
    if (!(eps >= 0.0)) return dp_err_set(err, DP_EINVAL, "eps = %g must be >= 0", eps);
    if (!delta) return dp_err_set(err, DP_EINVAL, "delta output is NULL");
    return evaluate(q, sigma, steps, eps, interval, 0, 0, delta, err);
}

// ---- the internal interface (pld_int.h) -----------------------------------------------

int pld_check_args(double q, double sigma, long steps, double interval, dp_err *err)
{
    return check_args(q, sigma, steps, interval, err);
}

void pld_remove_range(double q, double s, double *lo, double *hi) { remove_range(q, s, lo, hi); }

int pld_single_pmf(pld_dir dir, double q, double s, double d, long long kl, long long ku,
                   pmf *out)
{
    return single_pmf(dir, q, s, d, kl, ku, out);
}

double pld_pmf_epsilon(const pmf *x, double d, double target) { return pmf_epsilon(x, d, target); }

double pld_pmf_delta(const pmf *x, double d, double eps) { return pmf_delta(x, d, eps); }

void pld_pmf_free(pmf *x) { pmf_free(x); }
