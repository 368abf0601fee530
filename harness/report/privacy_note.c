/* privacy_note.c: the privacy-truth line under an epsilon axis (privacy_note.h).
 *
 * Per algorithm (config algorithm.name, in order of first appearance): how many of its
 * runs hold, are not confirmed, or have no valid bound, and the range of
 * epsilon_tight / epsilon_claimed with the tight accountant's name, e.g.
 *   "eps axis: the claimed epsilon. Tight (a valid accountant for what ran): dp_lssgd
 *    0.24-0.31 x the claim (pld_wor), verdict holds 20 of 20; input_perturbation: no valid
 *    bound (none) 15 of 15."
 */
#include "harness/report/privacy_note.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/aggregate.h"

#define MAX_ALGOS 16

typedef struct {
    const char *name, *accountant; /* borrowed from the records */
    size_t holds, not_confirmed, none;
    double lo, hi;                 /* tight / claimed over the runs with both */
    double dd_lo, dd_hi, wc_lo, wc_hi; /* no valid bound: the estimates' ranges */
} algo_truth;

int privacy_note_is_epsilon(const char *path)
{
    return path && strcmp(path, "epsilon") == 0;
}

static double number(json_t *metrics, const char *key)
{
    json_t *v = json_object_get(metrics, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The accountant's short name: its text up to the first ':' or ' '. */
static void short_name(char *buf, size_t size, const char *text)
{
    size_t k = strcspn(text ? text : "", ": ");
    if (k >= size) k = size - 1;
    memcpy(buf, text ? text : "", k);
    buf[k] = '\0';
}

char *privacy_note(json_t *const *sel, size_t n)
{
    algo_truth a[MAX_ALGOS];
    size_t na = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *m = json_object_get(sel[i], "metrics");
        const char *verdict = json_string_value(json_object_get(m, "privacy_verdict"));
        const char *name = json_string_value(agg_config_get(sel[i], "algorithm.name"));
        if (!verdict || !name || strcmp(agg_status(sel[i]), "ok") != 0) continue;
        size_t k = 0;
        while (k < na && strcmp(a[k].name, name) != 0) k++;
        if (k == na) {
            if (na == MAX_ALGOS) continue;
            a[na++] = (algo_truth){.name = name, .lo = INFINITY, .hi = -INFINITY,
                                   .dd_lo = INFINITY, .dd_hi = -INFINITY,
                                   .wc_lo = INFINITY, .wc_hi = -INFINITY};
        }
        if (!strcmp(verdict, "holds")) a[k].holds++;
        else if (!strcmp(verdict, "not_confirmed")) a[k].not_confirmed++;
        else a[k].none++;
        double dd = number(m, "epsilon_data_dependent"), wc = number(m, "epsilon_worst_case");
        if (isfinite(dd)) a[k].dd_lo = fmin(a[k].dd_lo, dd), a[k].dd_hi = fmax(a[k].dd_hi, dd);
        if (isfinite(wc)) a[k].wc_lo = fmin(a[k].wc_lo, wc), a[k].wc_hi = fmax(a[k].wc_hi, wc);
        double t = number(m, "epsilon_tight"), c = number(m, "epsilon_claimed");
        if (isfinite(t) && isfinite(c) && c > 0) {
            a[k].lo = fmin(a[k].lo, t / c);
            a[k].hi = fmax(a[k].hi, t / c);
            if (!a[k].accountant)
                a[k].accountant = json_string_value(json_object_get(m, "tight_accountant"));
        }
    }
    if (!na) return NULL;
    agg_buf b;
    agg_buf_init(&b);
    agg_buf_puts(&b, "eps axis: the claimed epsilon (what the runs were calibrated to, "
                     "metrics.epsilon_claimed). Tight (the smallest epsilon a valid accountant "
                     "gives for what ran, metrics.epsilon_tight):");
    for (size_t k = 0; k < na; k++) {
        size_t total = a[k].holds + a[k].not_confirmed + a[k].none;
        agg_buf_printf(&b, "%s %s ", k ? ";" : "", a[k].name);
        if (isfinite(a[k].lo)) {
            char acc[48];
            short_name(acc, sizeof acc, a[k].accountant);
            if (a[k].hi - a[k].lo < 0.005)
                agg_buf_printf(&b, "%.2f x the claim (%s)", a[k].lo, acc);
            else
                agg_buf_printf(&b, "%.2f-%.2f x the claim (%s)", a[k].lo, a[k].hi, acc);
        } else {
            agg_buf_puts(&b, "no valid bound");
            if (isfinite(a[k].dd_lo))
                agg_buf_printf(&b, " (estimated spend: %.3g-%.3g from the data's largest "
                               "gradient%s", a[k].dd_lo, a[k].dd_hi,
                               isfinite(a[k].wc_lo) ? "" : ")");
            if (isfinite(a[k].dd_lo) && isfinite(a[k].wc_lo))
                agg_buf_printf(&b, ", %.3g-%.3g worst case over the input domain)", a[k].wc_lo,
                               a[k].wc_hi);
        }
        agg_buf_puts(&b, ", verdict");
        if (a[k].holds) agg_buf_printf(&b, " holds %zu", a[k].holds);
        if (a[k].not_confirmed)
            agg_buf_printf(&b, "%s not_confirmed %zu", a[k].holds ? "," : "", a[k].not_confirmed);
        if (a[k].none)
            agg_buf_printf(&b, "%s none %zu", a[k].holds || a[k].not_confirmed ? "," : "",
                           a[k].none);
        agg_buf_printf(&b, " of %zu", total);
    }
    agg_buf_puts(&b, ".");
    char *out = b.oom ? NULL : strdup(agg_buf_str(&b));
    agg_buf_destroy(&b);
    return out;
}
