/* pate_votes.c: the teachers' vote table (pate_votes.h). */
#include "algorithms/privacy/pate_votes.h"

#include <stdlib.h>
#include <string.h>

int dp_pate_votes_alloc(dp_pate_votes *v, size_t teachers, size_t examples, int classes,
                        dp_err *err)
{
    memset(v, 0, sizeof *v);
    if (classes < 2 || classes > 256)
        return dp_err_set(err, DP_EINVAL, "PATE votes: %d classes; a label is one byte, so "
                          "2 to 256", classes);
    if (teachers && examples > SIZE_MAX / teachers)
        return dp_err_set(err, DP_ENOMEM, "PATE votes: %zu x %zu labels is too many",
                          teachers, examples);
    v->labels = calloc(teachers * examples + 1, 1);
    if (!v->labels)
        return dp_err_set(err, DP_ENOMEM, "out of memory for %zu teachers' votes on %zu "
                          "examples", teachers, examples);
    v->teachers = teachers;
    v->examples = examples;
    v->classes = classes;
    return 0;
}

void dp_pate_votes_destroy(dp_pate_votes *v)
{
    if (!v) return;
    free(v->labels);
    memset(v, 0, sizeof *v);
}

void dp_pate_votes_count(const dp_pate_votes *v, size_t j, double *counts)
{
    for (int c = 0; c < v->classes; c++) counts[c] = 0;
    for (size_t t = 0; t < v->teachers; t++) counts[v->labels[t * v->examples + j]] += 1;
}
