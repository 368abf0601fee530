/* driver.c: the table of convex drivers (driver.h). One line per algorithm; each driver
 * lives in its own file. */
#include "harness/drivers/driver.h"

#include <string.h>

/* Zhang17 Algs. 1-2, Bassily et al. / Lecture15 Alg. 3, InputPert Alg. 1, Wang, Ye & Xu
 * 2017 §6 (DP-GD). */
extern const driver driver_output_perturbation, driver_dp_sgd_bassily,
    driver_rrpsgd, driver_input_perturbation, driver_wang17_gd;

/* Exact ERM; Chaudhuri et al. 2011 Alg. 2 and Kifer et al. 2012 Thm 2. */
extern const driver driver_erm_exact, driver_objective_perturbation;

/* PATE: Papernot et al. 2017, 2018; Lecture15 §15.5.1. */
extern const driver driver_pate;

static const driver *const DRIVERS[] = {
    &driver_output_perturbation,
    &driver_dp_sgd_bassily,
    &driver_rrpsgd,
    &driver_input_perturbation,
    &driver_wang17_gd,               /* wang17_gd.c */
    &driver_erm_exact,               /* erm_exact.c */
    &driver_objective_perturbation,  /* objective_pert.c */
    &driver_pate,                    /* pate.c */
    NULL /* sentinel: drivers are listed above it */
};

const driver *driver_find(const char *name)
{
    for (size_t i = 0; DRIVERS[i]; i++)
        if (!strcmp(DRIVERS[i]->name, name)) return DRIVERS[i];
    return NULL;
}

const driver *const *driver_list(void)
{
    return DRIVERS;
}
