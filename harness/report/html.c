/* html.c: escaping, the shared page frame of report.html, and results/index.html
 * (html.h). Everything a page needs is inline: a browser opening the file offline shows
 * it as written, and nothing is fetched.
 */
#include "harness/report/html.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/config/config.h"
#include "harness/report/report_scale.h"
#include "harness/store/folder.h"
#include "harness/store/store.h"

void html_escape(agg_buf *b, const char *s)
{
    if (!s) return;
    for (; *s; s++) {
        switch (*s) {
        case '&': agg_buf_puts(b, "&amp;"); break;
        case '<': agg_buf_puts(b, "&lt;"); break;
        case '>': agg_buf_puts(b, "&gt;"); break;
        case '"': agg_buf_puts(b, "&quot;"); break;
        case '\'': agg_buf_puts(b, "&#39;"); break;
        default: agg_buf_printf(b, "%c", *s);
        }
    }
}

static const char STYLE[] =
    "body{font-family:sans-serif;margin:1em;padding:0 1em;color:#222}\n"
    "p,ul,h1,h2,h3,figure{max-width:72em}\n"
    "section.table{overflow-x:auto}\n"
    "table{border-collapse:collapse;margin:.5em 0}\n"
    "th,td{border:1px solid #bbb;padding:.2em .5em}\n"
    "td{text-align:right;font-variant-numeric:tabular-nums}\n"
    "th.group{text-align:center}\n"
    "td.outside{background:#fde2e2}\n"
    "td.empty{color:#888}\n"
    "td.paper{color:#555}\n"
    "p.note{font-size:90%;margin:.2em 0}\n"
    "li.holds{color:#1a6b1a} li.fails{color:#a01010} li.nodata{color:#8a6d00}\n"
    "figure{margin:1em 0} figure img{max-width:100%;border:1px solid #ddd}\n"
    "code{background:#f3f3f3;padding:0 .2em}\n";

void html_page_begin(agg_buf *b, const char *title)
{
    agg_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<title>");
    html_escape(b, title);
    agg_buf_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", STYLE);
}

void html_page_end(agg_buf *b)
{
    agg_buf_puts(b, "</body>\n</html>\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The index line of one experiment folder from its fidelity.json (absent: none). */
static void fidelity_line(agg_buf *b, const char *path)
{
    json_t *f = json_load_file(path, 0, NULL);
    if (!f) return;
    size_t i, within = 0, compared = 0, holds = 0, claims = 0;
    json_t *e;
    json_array_foreach(json_object_get(f, "tables"), i, e) {
        within += (size_t)json_integer_value(json_object_get(e, "within"));
        compared += (size_t)json_integer_value(json_object_get(e, "compared"));
    }
    json_array_foreach(json_object_get(f, "claims"), i, e) {
        claims++;
        holds += !strcmp(json_string_value(json_object_get(e, "verdict")) ?: "", "holds");
    }
    if (compared) agg_buf_printf(b, "%zu of %zu cells within the paper's band", within, compared);
    if (claims) agg_buf_printf(b, "%s%zu of %zu claims hold", compared ? "; " : "", holds, claims);
    json_decref(f);
}

/* The line that says an index.html is dperm's own (and, for indexes written before the
 * line existed, their heading). */
#define INDEX_MARK "<!-- dperm results index -->"
#define INDEX_MARK_OLD "<h1>dperm results</h1>"

/* 1 when the file at path is an index dperm wrote: one of its marks in the first 4 KiB. */
static int dperm_index(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[4097];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return strstr(head, INDEX_MARK) || strstr(head, INDEX_MARK_OLD);
}

/* "WHAT</td><td>SCALE</td><td>DATE" of experiment folder PARENT/NAME: the paper and
 * description of the experiment (config.yaml, JSON), the scale its sweep ran at
 * (sweep.json; "full" when it names none) with what the scale sets, and when its
 * report.html was written (UTC). */
static void index_scale_and_date(agg_buf *b, const char *parent, const char *name)
{
    char path[4300], date[32] = "", dir[4200], scale[64];
    snprintf(dir, sizeof dir, "%s/%s", parent, name);
    snprintf(path, sizeof path, "%s/config.yaml", dir);
    cfg_doc doc;   /* YAML as given, or the scaled experiment as JSON (also YAML) */
    dp_err err;
    if (cfg_parse_file(&doc, path, &err) == 0) {
        const cfg_node *paper = cfg_get(doc.root, "paper"), *desc = cfg_get(doc.root, "description");
        if (paper && paper->kind == CFG_SCALAR) html_escape(b, paper->value);
        if (paper && desc) agg_buf_puts(b, ": ");
        if (desc && desc->kind == CFG_SCALAR) html_escape(b, desc->value);
        cfg_doc_destroy(&doc);
    } else { /* a report of no sweep (dperm smoothing): its page's title, already escaped */
        snprintf(path, sizeof path, "%s/report.html", dir);
        FILE *f = fopen(path, "rb");
        char head[1024] = "";
        size_t got = f ? fread(head, 1, sizeof head - 1, f) : 0;
        if (f) fclose(f);
        head[got] = '\0';
        char *t = strstr(head, "<title>"), *end = t ? strstr(t, "</title>") : NULL;
        if (t && end) agg_buf_printf(b, "%.*s", (int)(end - t - 7), t + 7);
    }
    agg_buf_puts(b, "</td><td>");
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    if (report_scale_name(dir, scale, sizeof scale)) {
        agg_buf changes;
        agg_buf_init(&changes);
        report_scale_changes(dir, scale, &changes);
        html_escape(b, scale);
        if (changes.len) {
            agg_buf_puts(b, "<br><small>");
            html_escape(b, agg_buf_str(&changes));
            agg_buf_puts(b, "</small>");
        }
        b->oom |= changes.oom;
        agg_buf_destroy(&changes);
    } else {
        html_escape(b, access(path, F_OK) == 0 ? "full" : "—");   /* — : no sweep */
    }
    snprintf(path, sizeof path, "%s/%s/report.html", parent, name);
    struct stat st;
    struct tm tm;
    if (stat(path, &st) == 0 && gmtime_r(&st.st_mtime, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    agg_buf_printf(b, "</td><td>%s", date);
}

/* Append to names the folders under ROOT/SUB (SUB NULL: ROOT itself) that hold a
 * report.html, as paths relative to ROOT ("demo", "quick/demo"); with `nested`, also
 * those of a subfolder that is itself a results root (STORE_RESULTS_MARK: results/quick/
 * of make reproduce), one level down. 0, DP_EIO (ROOT unreadable) or DP_ENOMEM. */
static int list_reports(const char *root, const char *sub, agg_strs *names, int nested)
{
    char dir[4300], path[4700], rel[4400];
    snprintf(dir, sizeof dir, "%s%s%s", root, sub ? "/" : "", sub ? sub : "");
    DIR *d = opendir(dir);
    if (!d) return sub ? 0 : DP_EIO;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(rel, sizeof rel, "%s%s%s", sub ? sub : "", sub ? "/" : "", e->d_name);
        snprintf(path, sizeof path, "%s/%s/report.html", root, rel);
        if (access(path, R_OK) == 0) {
            if (agg_strs_push(names, rel)) rc = DP_ENOMEM;
            continue;
        }
        snprintf(path, sizeof path, "%s/%s/%s", root, rel, STORE_RESULTS_MARK);
        if (nested && access(path, F_OK) == 0) rc = list_reports(root, rel, names, 0);
    }
    closedir(d);
    return rc;
}

int html_write_index(const char *parent, char **path, char *skipped, size_t n, dp_err *err)
{
    *path = NULL;
    if (skipped && n) skipped[0] = '\0';
    char file[4200], mark[4200];
    snprintf(file, sizeof file, "%s/index.html", parent);
    snprintf(mark, sizeof mark, "%s/%s", parent, STORE_RESULTS_MARK);
    if (access(file, F_OK) == 0 ? !dperm_index(file) : access(mark, F_OK) != 0) {
        /* a folder of the user's without an index: nothing to say */
        if (skipped && n && access(file, F_OK) == 0)
            snprintf(skipped, n, "%s is not an index dperm wrote: left as it is", file);
        return 0;
    }
    agg_strs names = {0};
    agg_buf b, p;
    agg_buf_init(&b);
    agg_buf_init(&p);
    int rc = list_reports(parent, NULL, &names, 1);
    if (rc == DP_EIO) {
        agg_strs_destroy(&names);
        return dp_err_set(err, DP_EIO, "cannot read folder %s", parent);
    }
    if (!rc) {
        qsort(names.s, names.n, sizeof *names.s, cmp_str);
        html_page_begin(&b, "dperm results");
        agg_buf_puts(&b, INDEX_MARK "\n<h1>dperm results</h1>\n");
        if (!names.n) agg_buf_puts(&b, "<p>No experiment has a report yet.</p>\n");
        else agg_buf_puts(&b, "<table>\n<thead><tr><th>experiment</th><th>what</th>"
                              "<th>scale</th><th>report</th><th>fidelity</th></tr></thead>\n"
                              "<tbody>\n");
        for (size_t i = 0; i < names.n; i++) {
            agg_buf_puts(&b, "<tr><th><a href=\"");
            html_escape(&b, names.s[i]);
            agg_buf_puts(&b, "/report.html\">");
            html_escape(&b, names.s[i]);
            agg_buf_puts(&b, "</a></th><td style=\"text-align:left\">");
            index_scale_and_date(&b, parent, names.s[i]);
            agg_buf_puts(&b, "</td><td style=\"text-align:left\">");
            agg_buf_destroy(&p);
            agg_buf_printf(&p, "%s/%s/fidelity.json", parent, names.s[i]);
            agg_buf line;
            agg_buf_init(&line);
            fidelity_line(&line, agg_buf_str(&p));
            html_escape(&b, line.len ? agg_buf_str(&line) : "no published numbers compared");
            agg_buf_destroy(&line);
            agg_buf_puts(&b, "</td></tr>\n");
        }
        if (names.n) agg_buf_puts(&b, "</tbody>\n</table>\n");
        html_page_end(&b);
        agg_buf_destroy(&p);
        agg_buf_printf(&p, "%s/index.html", parent);
        if (b.oom || p.oom) rc = DP_ENOMEM;
    }
    if (rc == DP_ENOMEM) dp_err_set(err, rc, "out of memory writing the results index");
    if (!rc) rc = store_write_atomic(agg_buf_str(&p), b.data, b.len, err);
    if (!rc && !(*path = strdup(agg_buf_str(&p)))) rc = dp_err_set(err, DP_ENOMEM, "oom");
    agg_strs_destroy(&names);
    agg_buf_destroy(&b);
    agg_buf_destroy(&p);
    return rc;
}
