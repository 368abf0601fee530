/* pate_int.h: log-space helpers shared by pate_rdp.c and pate_smooth.c.
 *
 * The normal tail is log(erfc(z) / 2) while erfc(z) is a normal number (z < 25) and its
 * asymptotic series beyond, where five terms are exact to about 1e-14 relative.
 */
#ifndef DPERM_PATE_INT_H
#define DPERM_PATE_INT_H

#include <math.h>

/* ln Pr[N(0, scale^2) >= x]. */
static inline double log_normal_sf(double x, double scale)
{
    double z = x / (scale * M_SQRT2);
    if (z < 0) return log1p(-0.5 * erfc(-z));
    if (z < 25) return log(0.5 * erfc(z));
    /* erfc(z) = exp(-z^2) / (z sqrt(pi)) (1 - 1/(2z^2) + 3/(4z^4) - 15/(8z^6) + 105/(16z^8)) */
    double u = 1.0 / (z * z);
    double series = 1.0 + u * (-0.5 + u * (0.75 + u * (-1.875 + u * 6.5625)));
    return log(0.5) - z * z - log(z) - 0.5 * log(M_PI) + log(series);
}

/* ln(1 - e^x) for x <= 0, without cancellation; -inf at 0. */
static inline double log1mexp(double x)
{
    if (x < -1) return log1p(-exp(x));
    if (x < 0) return log(-expm1(x));
    return -INFINITY;
}

static inline double logaddexp(double a, double b)
{
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}

#endif
