/* convex.c: the table of convex drivers (convex.h). One line per algorithm; each driver
 * lives in its own file. */
#include "convex.h"

#include <string.h>

/* Zhang17 Algs. 1-2, Bassily et al. / Lecture15 Alg. 3, InputPert Alg. 1. */
extern const convex_driver convex_output_perturbation, convex_dp_sgd_bassily,
    convex_rrpsgd;

static const convex_driver *const DRIVERS[] = {
    &convex_output_perturbation,
    &convex_dp_sgd_bassily,
    &convex_rrpsgd,
    NULL /* sentinel: drivers are listed above it */
};

const convex_driver *convex_find(const char *name)
{
    for (size_t i = 0; DRIVERS[i]; i++)
        if (!strcmp(DRIVERS[i]->name, name)) return DRIVERS[i];
    return NULL;
}
