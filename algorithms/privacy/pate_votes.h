/* pate_votes.h: the teachers' votes on PATE's public examples, one label per teacher and
 * example (Papernot et al. 2017 §2.1: each teacher predicts; the aggregator sees only the
 * count per class). The harness fills it from the teachers' label files
 * (harness/sweep/pate_teachers.c) and the pate driver reads it.
 */
#ifndef DPERM_PATE_VOTES_H
#define DPERM_PATE_VOTES_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/base/err.h"

typedef struct dp_pate_votes {
    size_t teachers;      /* rows of labels */
    size_t examples;      /* public examples, columns of labels */
    int classes;          /* every label is in [0, classes) */
    uint8_t *labels;      /* (teachers, examples): teacher t's label of example j at
                             t * examples + j; owned */
} dp_pate_votes;

/* Allocate a zeroed table; classes in [2, 256]. DP_EINVAL or DP_ENOMEM, *v then empty. */
int dp_pate_votes_alloc(dp_pate_votes *v, size_t teachers, size_t examples, int classes,
                        dp_err *err);
void dp_pate_votes_destroy(dp_pate_votes *v);

/* counts[0..classes) = how many teachers voted each class on example j. */
void dp_pate_votes_count(const dp_pate_votes *v, size_t j, double *counts);

#endif
