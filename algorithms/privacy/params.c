/* params.c: schedule domain checks shared by the accountants (see params.h). */
#include "algorithms/privacy/params.h"

#include <math.h>

int dp_check_rate(double q, dp_err *err)
{
    if (!(q > 0.0 && q <= 1.0))
        return dp_err_set(err, DP_EINVAL, "sampling rate q = %g is outside (0, 1]", q);
    return 0;
}

int dp_check_noise(double sigma, dp_err *err)
{
    if (!(sigma > 0.0 && isfinite(sigma)))
        return dp_err_set(err, DP_EINVAL, "noise multiplier sigma = %g must be finite and > 0",
                          sigma);
    return 0;
}

int dp_check_steps(long steps, dp_err *err)
{
    if (steps < 1) return dp_err_set(err, DP_EINVAL, "steps = %ld must be >= 1", steps);
    return 0;
}

int dp_check_delta(double delta, dp_err *err)
{
    if (!(delta > 0.0 && delta < 1.0))
        return dp_err_set(err, DP_EINVAL, "delta = %g is outside (0, 1)", delta);
    return 0;
}

int dp_check_schedule(double q, double sigma, long steps, double delta, dp_err *err)
{
    int rc;
    if ((rc = dp_check_rate(q, err)) || (rc = dp_check_noise(sigma, err)) ||
        (rc = dp_check_steps(steps, err)) || (rc = dp_check_delta(delta, err)))
        return rc;
    return 0;
}
