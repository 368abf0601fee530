/* report_figures.c: what a figure's section holds besides the figure (report_int.h):
 * the table whose paper values it draws, and its privacy-truth line.
 */
#include "harness/report/report_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/html.h"
#include "harness/report/privacy_note.h"

/* Under a figure whose x axis or series is epsilon: the privacy-truth line (privacy_note.h)
 * in report.md and report.html. 0, or DP_ENOMEM. */
int report_figure_privacy_note(agg_out *o, json_t *fig, json_t *const *recs, size_t n)
{
    int axis = privacy_note_is_epsilon(json_string_value(json_object_get(fig, "x")));
    json_t *by = json_object_get(fig, "by"), *v;
    size_t i;
    if (json_is_string(by)) axis |= privacy_note_is_epsilon(json_string_value(by));
    json_array_foreach(by, i, v) axis |= privacy_note_is_epsilon(json_string_value(v));
    if (!axis) return 0;
    json_t **sel = malloc((n + 1) * sizeof *sel);
    if (!sel) return DP_ENOMEM;
    size_t m = 0;
    json_t *where = json_object_get(fig, "where");
    for (size_t r = 0; r < n; r++)
        if (agg_where_match(recs[r], where)) sel[m++] = recs[r];
    char *truth = privacy_note(sel, m);
    free(sel);
    if (!truth) return 0;
    agg_buf_printf(&o->md, "%s\n\n", truth);
    agg_buf_puts(&o->html, "<p class=\"note privacy\">");
    html_escape(&o->html, truth);
    agg_buf_puts(&o->html, "</p>\n");
    free(truth);
    return 0;
}

/* The table figure `fig` is drawn beside (plot.h): the one its `table` names ("none": no
 * table), else the first table with a reference whose cell is the figure's y, whose cols
 * are its x and whose rows are all among its `by`. A table split by protocol answers to
 * its own name and to the name it was split from. out->ref stays NULL without one. */
void report_figure_paper(json_t *fig, json_t *tables, const table_result *tabs, size_t n_tabs,
                         plot_paper *out)
{
    memset(out, 0, sizeof *out);
    const char *named = json_string_value(json_object_get(fig, "table"));
    const char *x = json_string_value(json_object_get(fig, "x"));
    const char *y = json_string_value(json_object_get(fig, "y"));
    json_t *by = json_object_get(fig, "by");
    if (named && !strcmp(named, "none")) return;
    for (size_t i = 0; i < n_tabs; i++) {
        const table_result *t = &tabs[i];
        const char *of = json_string_value(json_object_get(json_array_get(tables, i), "split_of"));
        if (named) {
            if (strcmp(t->name, named) && !(of && !strcmp(of, named))) continue;
        } else {
            if (!t->has_ref || !x || !y || !t->cols || !t->cell || strcmp(t->cell, y) || strcmp(t->cols, x))
                continue;
            size_t p = 0;
            for (; p < t->ref.n_rows; p++) {
                int in_by = json_is_string(by) && !strcmp(json_string_value(by), t->ref.rows[p]);
                for (size_t k = 0; json_is_array(by) && k < json_array_size(by); k++)
                    in_by |= !strcmp(json_string_value(json_array_get(by, k)) ?: "",
                                     t->ref.rows[p]);
                if (!in_by) break;
            }
            if (p < t->ref.n_rows) continue;
        }
        out->ref = t->has_ref ? &t->ref : NULL;
        out->table = of ? of : t->name;
        return;
    }
}
