/* erm_exact.h: what the drivers built on the exact ERM solver share (erm_exact.c,
 * objective_pert.c). */
#ifndef DPERM_DRIVERS_ERM_EXACT_H
#define DPERM_DRIVERS_ERM_EXACT_H

#include "harness/drivers/driver.h"

/* Fill res for a released model m: one evaluation point (train objective, its gradient
 * norm, test loss and accuracy or rmse) at `iterations`, which is also the curve, and
 * noise_std. res is overwritten (the runner destroys it). 0, DP_EINVAL or DP_ENOMEM. */
int drv_erm_finish(const dp_linear *m, const dp_dataset *tr, const dp_dataset *te,
                   long iterations, double noise_std, dp_train_result *res, dp_err *err);

/* The train block of these drivers: ignored when present (they do not iterate over the
 * data), but it must be a map; sets out->train for the runner (one evaluation point).
 * 0 or DP_ECONFIG. */
int drv_erm_check_train(const cfg_node *root, run_spec *out, dp_err *err);

#endif
