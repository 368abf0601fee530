/* params.h: the domain checks every accountant applies to a DP-SGD-style schedule, one
 * wording for all of them (the messages name the parameter, so a user who gets one from
 * any accountant knows what to fix). Each returns 0 or DP_EINVAL with err filled. */
#ifndef DPERM_PRIVACY_PARAMS_H
#define DPERM_PRIVACY_PARAMS_H

#include "algorithms/base/err.h"

int dp_check_rate(double q, dp_err *err);      /* sampling rate q in (0, 1] */
int dp_check_noise(double sigma, dp_err *err); /* noise multiplier finite and > 0 */
int dp_check_steps(long steps, dp_err *err);   /* steps >= 1 */
int dp_check_delta(double delta, dp_err *err); /* delta in (0, 1) */

/* All four, in that order. */
int dp_check_schedule(double q, double sigma, long steps, double delta, dp_err *err);

#endif
