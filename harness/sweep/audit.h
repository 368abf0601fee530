/* audit.h: `dperm audit`, an empirical privacy audit of the private algorithms of an
 * experiment file: each run of its grid (an algorithm at a claimed epsilon) is trained
 * many times, with different seeds, on its training set D and on D plus one canary
 * example, and a threshold test on the released model gives a lower bound on the
 * epsilon the algorithm really has (algorithms/privacy/audit_bound.h). A bound above the
 * claimed epsilon is a violation: the algorithm, its calibration or its proof is broken.
 *
 * Lifecycle: audit_set_load (parse, expand, validate, calibrate, load data: every error
 * before anything runs), audit_set_run_one per run, audit_set_destroy.
 */
#ifndef DPERM_AUDIT_H
#define DPERM_AUDIT_H

#include <stdint.h>
#include <stdio.h>

#include "algorithms/privacy/audit_bound.h"
#include "harness/config/config.h"
#include "harness/sweep/data_cache.h"
#include "harness/grid/grid.h"
#include "harness/spec/spec.h"

/* "schema" of the audit file (DIR/audit.json) this build writes. */
#define AUDIT_SCHEMA 1

typedef enum {
    AUDIT_STAT_PROJECTION = 0, /* the released weights projected on the canary */
    AUDIT_STAT_LOSS = 1        /* minus the canary's loss under the released weights */
} audit_statistic;

typedef enum {
    AUDIT_NEIGHBOURS_AUTO = 0,       /* the relation of the algorithm's privacy analysis */
    AUDIT_NEIGHBOURS_ADD_REMOVE = 1, /* D and D plus the canary */
    AUDIT_NEIGHBOURS_REPLACE_ONE = 2 /* D plus the canary with another label, and with its own */
} audit_neighbours;

typedef enum {
    AUDIT_PAIR_AUTO = 0,    /* mirror for objective_perturbation, relabel for the others */
    AUDIT_PAIR_RELABEL = 1, /* replace-one: the canary x with its label against another label */
    AUDIT_PAIR_MIRROR = 2   /* replace-one: x against -x, one label: on data whose model leans
                               against that label both rows are misclassified and their loss
                               gradients differ by up to 2 ||[x; 1]|| */
} audit_pair;

/* The document's `audit:` block (docs/privacy.md, "Empirical privacy audit"), defaults filled. */
typedef struct audit_opts {
    long trials;            /* per data set, half to choose the threshold, half to
                               evaluate it; default 1000 */
    double confidence;      /* of the lower bound, in (0, 1); default 0.95 */
    uint64_t seed;          /* seeds of the trials derive from it; default 1 */
    audit_statistic statistic;
    double canary_norm;     /* ||x|| of the canary; 0: the default (audit.c) */
    audit_neighbours neighbours;
    audit_pair pair;        /* audit.canary.pair */
} audit_opts;

/* Command-line values that replace the block's (0 / has_seed 0: keep the block's). */
typedef struct audit_overrides {
    long trials;
    double confidence;
    int has_seed;
    uint64_t seed;
} audit_overrides;

typedef struct audit_set {
    cfg_doc doc;
    grid g;
    run_spec *specs;        /* validated and calibrated, one per g.runs[i] */
    data_cache data;
    audit_opts opts;
    FILE *progress;         /* a line here every few seconds of a long audit, or NULL */
} audit_set;

/* One audit's outcome. */
typedef struct audit_result {
    char algorithm[32];
    double epsilon, delta;  /* the claim (delta 0 for an eps-DP mechanism) */
    long trials;            /* per data set */
    double canary_norm;
    audit_neighbours neighbours; /* the relation audited (never AUTO) */
    audit_pair pair;        /* replace-one: the pair used (never AUTO) */
    dp_audit_bound bound;   /* on the evaluation half */
    int violation;          /* bound.eps_lower > epsilon */
    double seconds;
} audit_result;

/* Parse the experiment file at path, check its audit block and apply ov, expand the grid,
 * validate every run (a private algorithm with a target epsilon, a linear classifier),
 * load its data (data_dir: as `dperm run --data-dir`, or NULL) and calibrate its noise.
 * 0, or DP_ECONFIG / DP_EDATA / DP_EIO with a position; *a must be destroyed either way. */
int audit_set_load(audit_set *a, const char *path, const audit_overrides *ov,
                   const char *data_dir, dp_err *err);

/* Audit run i of a loaded set. 0, or the first error of a trial (DP_E*). */
int audit_set_run_one(audit_set *a, size_t i, audit_result *r, dp_err *err);

/* Frees everything a load made; a zeroed set is fine. */
void audit_set_destroy(audit_set *a);

#endif
