/* table_csv.c: the long CSV of a report table (table.h) for scripts: one line per cell
 * with every statistic at 12 significant digits in our own unit (about what a double mean
 * of a few seeds is worth), so scripts never parse "±"; the paper's columns as printed,
 * diff in the paper's unit (table_render.c's header says what they are).
 */
#include "harness/report/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One RFC 4180 field: quoted when it holds a comma, a quote, a line break or starts with
 * a space. */
static void csv_field(agg_buf *b, const char *s)
{
    if (s[strcspn(s, ",\"\r\n")] == '\0' && s[0] != ' ') {
        agg_buf_puts(b, s);
        return;
    }
    agg_buf_puts(b, "\"");
    for (; *s; s++) {
        if (*s == '"') agg_buf_puts(b, "\"\"");
        else agg_buf_printf(b, "%c", *s);
    }
    agg_buf_puts(b, "\"");
}

void table_render_csv(agg_buf *b, const table_result *t)
{
    char num[40];
    size_t nr = t->rk.n_groups, nc = t->ck.n_groups;
    for (size_t p = 0; p < t->rows.n; p++) {
        csv_field(b, t->rows.s[p]);
        agg_buf_puts(b, ",");
    }
    if (t->cols) {
        csv_field(b, t->cols);
        agg_buf_puts(b, ",");
    }
    agg_buf_puts(b, "metric,mean,std,n,min,max,median");
    if (t->best_over) agg_buf_puts(b, ",best_over,chosen,configurations");
    if (t->has_ref) agg_buf_puts(b, ",paper_mean,paper_std,paper_scale,diff,outside_band,note");
    agg_buf_puts(b, "\n");
    for (size_t r = 0; r < nr; r++) {
        for (size_t c = 0; c < nc; c++) {
            const table_cell *cell = &t->cells[r * nc + c];
            const agg_stats *st = &cell->st;
            if (st->n == 0 && !(t->has_ref && cell->paper)) continue;
            for (size_t p = 0; p < t->rows.n; p++) {   /* an absent value is an empty field */
                size_t i = r * t->rows.n + p;
                csv_field(b, t->rk.values[i] ? t->rk.labels[i] : "");
                agg_buf_puts(b, ",");
            }
            if (t->cols) {
                csv_field(b, t->ck.values[c] ? t->ck.labels[c] : "");
                agg_buf_puts(b, ",");
            }
            csv_field(b, t->cell);
            if (st->n) {
                agg_fmt_double(num, sizeof num, st->mean, 12);
                agg_buf_printf(b, ",%s,", num);
                if (st->n > 1) {
                    agg_fmt_double(num, sizeof num, st->std, 12);
                    agg_buf_puts(b, num);
                }
                agg_buf_printf(b, ",%zu,", st->n);
                agg_fmt_double(num, sizeof num, st->min, 12);
                agg_buf_printf(b, "%s,", num);
                agg_fmt_double(num, sizeof num, st->max, 12);
                agg_buf_printf(b, "%s,", num);
                agg_fmt_double(num, sizeof num, st->median, 12);
                agg_buf_puts(b, num);
            } else {
                agg_buf_puts(b, ",,,0,,,");
            }
            if (t->best_over) {
                char *v = cell->chosen ? agg_value_label(cell->chosen, "") : NULL;
                agg_buf_puts(b, ",");
                csv_field(b, t->best_over);
                agg_buf_puts(b, ",");
                csv_field(b, v ? v : "");
                agg_buf_printf(b, ",%zu", cell->k);
                free(v);
            }
            if (t->has_ref) {
                const ref_cell *pc = cell->paper;
                agg_buf_printf(b, ",%s,%s,", pc ? pc->mean_text : "",
                               pc && pc->has_std ? pc->std_text : "");
                agg_fmt_double(num, sizeof num, t->scale, 12);
                agg_buf_puts(b, num);
                if (pc && st->n) {
                    agg_fmt_double(num, sizeof num, cell->diff, 12);
                    agg_buf_printf(b, ",%s,%d,", num, cell->outside);
                } else {
                    agg_buf_puts(b, ",,,");
                    csv_field(b, !pc ? "no paper value" : cell->note ? cell->note
                              : cell->n_data_missing ? "data missing" : "no runs");
                }
            }
            agg_buf_puts(b, "\n");
        }
    }
}
