/* audit_fixture.h: the audits of configs/audit.yaml, for test_audit.c (the mechanisms as
 * built: every bound below its claim) and test_audit_broken.c (the noise divided by 10:
 * every bound above it). Static inline: each test program is one translation unit. */
#ifndef DPERM_AUDIT_FIXTURE_H
#define DPERM_AUDIT_FIXTURE_H

#include <check.h>
#include <stdio.h>

#include "algorithms/base/vec.h"
#include "harness/sweep/audit.h"
#include "tests/unit/test_util.h"

/* The experiment files audited (relative to the repository root, where `make` runs the
 * tests) and their numbers of audits: 4 algorithms x 3 epsilons; Gaussian output
 * perturbation at the same 3; Gaussian objective perturbation under replace-one at
 * epsilon 1, 4 and 16. */
#define AUDIT_CONFIG "configs/audit.yaml"
#define AUDIT_RUNS 12
#define AUDIT_GAUSSIAN_CONFIG "configs/audit_output_gaussian.yaml"
#define AUDIT_GAUSSIAN_RUNS 3
#define AUDIT_OBJECTIVE_CONFIG "configs/audit_objective.yaml"
#define AUDIT_OBJECTIVE_RUNS 3

/* Audit i of config (n_runs audits) into *r and print its row (so the test log holds the
 * table docs/privacy.md reports). Under the sanitizers only every test_case_stride()-th audit
 * runs (the trials are the same code each time); *ran says whether this one did. */
static inline void audit_fixture_run(const char *config, size_t n_runs, int i,
                                     const char *label, audit_result *r, int *ran)
{
    *ran = 0;
    if ((size_t)i % test_case_stride() != 0) return;
    dp_set_threads(1); /* as `dperm audit` does */
    audit_set a;
    dp_err err;
    dp_err_clear(&err);
    int rc = audit_set_load(&a, config, NULL, NULL, &err);
    ck_assert_msg(rc == 0, "%s: %s", config, err.msg);
    ck_assert_uint_eq(a.g.n, n_runs);
    rc = audit_set_run_one(&a, (size_t)i, r, &err);
    ck_assert_msg(rc == 0, "audit %d: %s", i, err.msg);
    printf("%s | %s | eps %g | delta %g | %ld trials | FPR %.4f | FNR %.4f | threshold %.4g | "
           "lower bound %.3f | %s\n", label, r->algorithm, r->epsilon, r->delta, r->trials,
           r->bound.fpr, r->bound.fnr, r->bound.threshold, r->bound.eps_lower,
           r->violation ? "VIOLATION" : "below claim");
    fflush(stdout);
    audit_set_destroy(&a);
    *ran = 1;
}

#endif
