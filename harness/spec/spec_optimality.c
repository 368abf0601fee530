/* spec_optimality.c: the top-level key optimality_gap (true, false or
 * {reference_epochs: N}) into run_spec.optimality_gap: 0 when off, else the reference
 * epochs of a deep model (sweep/optimality.h computes f_star and the gap from it).
 *
 * Choices where the brief was silent: a map value with no key ({}) means true with the
 * default epochs; reference_epochs on a linear model is accepted and ignored (a grid may
 * mix linear and deep models under one top-level key); N is at most 100000.
 */
#include "harness/spec/spec_int.h"

#include <math.h>
#include <stdio.h>

static const char *const GAP_KEYS[] = {"reference_epochs"};

int spec_read_optimality(const cfg_node *root, run_spec *out, dp_err *err)
{
    const cfg_node *n = cfg_get(root, "optimality_gap");
    out->optimality_gap = 0;
    out->f_star = NAN;
    if (!n) return 0;
    if (n->kind == CFG_SCALAR && cfg_scalar_type(n) == CFG_T_BOOL) {
        int on = 0;
        int rc = cfg_as_bool(n, "optimality_gap", &on, err);
        if (rc == 0 && on) out->optimality_gap = OPTIMALITY_REFERENCE_EPOCHS;
        return rc;
    }
    if (n->kind != CFG_MAP) {
        char got[96];
        if (n->kind == CFG_SEQ)
            snprintf(got, sizeof got, "a list");
        else if (cfg_scalar_type(n) == CFG_T_NULL)
            snprintf(got, sizeof got, "an empty value");
        else if (n->quoted)
            snprintf(got, sizeof got, "the quoted string \"%.60s\"", n->value);
        else
            snprintf(got, sizeof got, "'%.60s'", n->value);
        return cfg_error(err, n, 0,
                         "optimality_gap: expected true, false or {reference_epochs: N} (N an "
                         "integer >= 1), got %s", got);
    }
    long epochs;
    int rc;
    if ((rc = cfg_check_keys(n, "optimality_gap", GAP_KEYS, CFG_COUNT(GAP_KEYS), err)) ||
        (rc = cfg_read_int(n, "optimality_gap", "reference_epochs", 0,
                           OPTIMALITY_REFERENCE_EPOCHS, 1, 100000, &epochs, err)))
        return rc;
    out->optimality_gap = (int)epochs;
    return 0;
}
