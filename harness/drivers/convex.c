/* convex.c: the table of convex drivers (convex.h). One line per algorithm; each driver
 * lives in its own file. */
#include "harness/drivers/convex.h"

#include <string.h>

/* Zhang17 Algs. 1-2, Bassily et al. / Lecture15 Alg. 3, InputPert Alg. 1, Wang, Ye & Xu
 * 2017 §6 (DP-GD). */
extern const convex_driver convex_output_perturbation, convex_dp_sgd_bassily,
    convex_rrpsgd, convex_input_perturbation, convex_wang17_gd;

/* Exact ERM; Chaudhuri et al. 2011 Alg. 2 and Kifer et al. 2012 Thm 2. */
extern const convex_driver convex_erm_exact, convex_objective_perturbation;

static const convex_driver *const DRIVERS[] = {
    &convex_output_perturbation,
    &convex_dp_sgd_bassily,
    &convex_rrpsgd,
    &convex_input_perturbation,
    &convex_wang17_gd,               /* driver_wang17.c */
    &convex_erm_exact,               /* driver_erm.c */
    &convex_objective_perturbation,  /* driver_objective.c */
    NULL /* sentinel: drivers are listed above it */
};

const convex_driver *convex_find(const char *name)
{
    for (size_t i = 0; DRIVERS[i]; i++)
        if (!strcmp(DRIVERS[i]->name, name)) return DRIVERS[i];
    return NULL;
}
