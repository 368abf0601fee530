/* rdp_curve.c: an RDP curve composed over a heterogeneous schedule (steps that differ in
 * sampling rate, noise multiplier and sampling kind), converted to (eps, delta) at the
 * end (contract in rdp.h).
 *
 * Sources: composition of RDP by addition at each order, Mironov 2017 ("Renyi
 * differential privacy", Prop. 1), as autodp's anaRDPacct and Opacus's RDPAccountant
 * keep their history; the per-step curves are rdp.c (Poisson) and rdp_wor.c (without
 * replacement); the conversion is dp_rdp_to_epsilon.
 *
 * Choices made where the sources are silent.
 * - The curve copies its orders into the same allocation as its RDP values, so the
 *   caller's array (or the default grid) need not outlive it and destroy is one free.
 * - Orders are validated once, at init, by the stricter of the two kinds' rules (the
 *   without-replacement one: finite, > 1, <= 1e6 also for fractional orders), so any
 *   order a curve holds works for both kinds and add cannot fail half-way.
 * - Adding `steps` identical steps is one multiply per order, rdp += steps * r, with
 *   the product written exactly as dp_rdp_epsilon writes it: a homogeneous Poisson
 *   schedule added in one call on the default grid gives the identical epsilon.
 * - Mixed kinds are refused: Poisson steps are bounded for add/remove neighbours and
 *   without-replacement steps for replace-one neighbours, and a sum over both is a
 *   guarantee under neither relation (rdp.h), so no epsilon is ever printed for one.
 */
#include "algorithms/privacy/rdp.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int dp_rdp_curve_init(dp_rdp_curve *c, const double *orders, size_t n, dp_err *err)
{
    if (!c) return dp_err_set(err, DP_EINVAL, "RDP curve is NULL");
    memset(c, 0, sizeof *c);
    if (!orders) n = dp_rdp_default_orders(&orders);
    if (n == 0) return dp_err_set(err, DP_EINVAL, "no RDP orders given (n = 0)");
    if (n > SIZE_MAX / (2 * sizeof(double)))
        return dp_err_set(err, DP_EINVAL, "too many RDP orders (n = %zu)", n);

    double *buf = malloc(2 * n * sizeof *buf); /* rdp[0..n), then the orders */
    if (!buf) return dp_err_set(err, DP_ENOMEM, "out of memory for an RDP curve of %zu orders", n);
    /* q = 1 costs O(1) per order and runs the order checks; the values are discarded. */
    int rc = dp_rdp_wor_subsampled_gaussian(1.0, 1.0, orders, n, buf, err);
    if (rc) {
        free(buf);
        return rc;
    }
    memcpy(buf + n, orders, n * sizeof *buf);
    for (size_t i = 0; i < n; i++) buf[i] = 0.0;
    c->rdp = buf;
    c->orders = buf + n;
    c->n = n;
    return 0;
}

/* One step's RDP at one order; the curve's orders were checked at init. */
static int rdp_step(dp_sampling_kind kind, double q, double sigma, const double *order,
                    double *r, dp_err *err)
{
    if (kind == DP_SAMPLING_KIND_POISSON)
        return dp_rdp_subsampled_gaussian(q, sigma, order, 1, r, err);
    return dp_rdp_wor_subsampled_gaussian(q, sigma, order, 1, r, err);
}

int dp_rdp_curve_add(dp_rdp_curve *c, dp_sampling_kind kind, double q, double sigma,
                     long steps, dp_err *err)
{
    if (!c || !c->rdp || c->n == 0)
        return dp_err_set(err, DP_EINVAL, "RDP curve is NULL or not initialized");
    if (kind != DP_SAMPLING_KIND_POISSON && kind != DP_SAMPLING_KIND_WOR)
        return dp_err_set(err, DP_EINVAL, "unknown sampling kind %d", (int)kind);
    if (steps < 1) return dp_err_set(err, DP_EINVAL, "steps = %ld must be >= 1", steps);
    if (steps > LONG_MAX - c->steps)
        return dp_err_set(err, DP_EINVAL, "steps = %ld would overflow the curve's count %ld",
                          steps, c->steps);

    /* The first order checks q and sigma (with the kind's own messages) before anything
     * is written, so an error leaves the curve unchanged. */
    double r0;
    int rc = rdp_step(kind, q, sigma, &c->orders[0], &r0, err);
    if (rc) return rc;
    if (c->kinds && c->kinds != (unsigned)kind)
        return dp_err_set(err, DP_EINVAL,
                          "cannot compose Poisson (add/remove) and without-replacement "
                          "(replace-one) steps in one RDP curve: no single neighbouring "
                          "relation covers both");
    const double k = (double)steps;
    c->rdp[0] += r0 * k;
    for (size_t i = 1; i < c->n; i++) {
        double r;
        rc = rdp_step(kind, q, sigma, &c->orders[i], &r, err);
        assert(rc == 0); /* arguments and orders are already known to be valid */
        c->rdp[i] += r * k;
    }
    c->steps += steps;
    c->kinds |= (unsigned)kind;
    return 0;
}

int dp_rdp_curve_epsilon(const dp_rdp_curve *c, double delta, dp_rdp_conversion conv,
                         double *eps, double *best_order, dp_err *err)
{
    if (!c || !c->rdp || c->n == 0)
        return dp_err_set(err, DP_EINVAL, "RDP curve is NULL or not initialized");
    return dp_rdp_to_epsilon(c->orders, c->rdp, c->n, delta, conv, eps, best_order, err);
}

void dp_rdp_curve_destroy(dp_rdp_curve *c)
{
    if (!c) return;
    free(c->rdp); /* the orders live in the same block */
    memset(c, 0, sizeof *c);
}
