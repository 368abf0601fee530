/* csv.c: a small, strict reader of delimited text (UCI .data/.csv files), through zlib so
 * that plain and .gz files read alike (gzopen passes plain files through).
 *
 * Choices: one record per line (none of the supported files has quoted newlines);
 * CRLF and LF both end a line; a NUL byte or a line over 1 MB is an error rather than a
 * silently cut record; fields are trimmed of blanks (adult's ", " separator) and one
 * level of surrounding double quotes (bank's "yes"). Errors carry FILE:LINE.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "datasets/data_int.h"

#define CSV_MAX_LINE (1u << 20)

int dp_csv_open(dp_csv *c, const char *path, char sep, dp_err *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->sep = sep;
    c->cap = 4096;
    c->buf = malloc(c->cap);
    if (!c->buf) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
    gzFile f = gzopen(path, "rb");
    if (!f) {
        free(c->buf);
        c->buf = NULL;
        return dp_err_set_at(err, DP_EIO, path, 0, 0, "cannot open the file");
    }
    gzbuffer(f, 1u << 17);
    c->gz = f;
    return DP_OK;
}

void dp_csv_close(dp_csv *c)
{
    if (c->gz) gzclose((gzFile)c->gz);
    free(c->buf);
    memset(c, 0, sizeof *c);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
    return s;
}

int dp_csv_next(dp_csv *c, int *blank, dp_err *err)
{
    gzFile f = (gzFile)c->gz;
    size_t len = 0;
    *blank = 0;
    c->n_fields = 0;
    /* Read one whole line, growing the buffer for long ones. */
    for (;;) {
        if (!gzgets(f, c->buf + len, (int)(c->cap - len))) {
            int z;
            const char *m = gzerror(f, &z);
            /* Z_BUF_ERROR here is zlib's "unexpected end of file": a truncated .gz. Checked
             * even with a partial line in hand: it is the cut-off end of the stream. */
            if (z != Z_OK)
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line + 1, 0,
                                     "corrupt or truncated gzip data: %s", m);
            if (len == 0) {
                if (!gzeof(f))
                    return dp_err_set_at(err, DP_EIO, c->path, (int)c->line + 1, 0,
                                         "read error");
                return 0;
            }
            break; /* last line without a newline */
        }
        len += strlen(c->buf + len);
        if (len > 0 && c->buf[len - 1] == '\n') break;
        if (gzeof(f)) {
            int z;
            const char *m = gzerror(f, &z);
            if (z != Z_OK)
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line + 1, 0,
                                     "corrupt or truncated gzip data: %s", m);
            break;
        }
        if (len < c->cap - 1) {
            /* gzgets stopped early without newline or EOF: a NUL byte in the line. */
            return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line + 1, 0,
                                 "a NUL byte in the line: not a text file");
        }
        if (c->cap >= CSV_MAX_LINE)
            return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line + 1, 0,
                                 "line longer than %u bytes: not a CSV file", CSV_MAX_LINE);
        char *nb = realloc(c->buf, c->cap * 2);
        if (!nb) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", c->path);
        c->buf = nb;
        c->cap *= 2;
    }
    c->line++;
    while (len > 0 && (c->buf[len - 1] == '\n' || c->buf[len - 1] == '\r')) c->buf[--len] = '\0';
    if (strlen(c->buf) != len)
        return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                             "a NUL byte in the line: not a text file");
    char *p = c->buf;
    if (*trim(p) == '\0') {
        *blank = 1;
        return 1;
    }
    for (;;) {
        char *end = strchr(p, c->sep);
        if (end) *end = '\0';
        if (c->n_fields == DP_CSV_MAX_FIELDS)
            return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                 "more than %d fields", DP_CSV_MAX_FIELDS);
        char *fld = trim(p);
        size_t n = strlen(fld);
        if (n >= 2 && fld[0] == '"' && fld[n - 1] == '"') {
            fld[n - 1] = '\0';
            fld++;
        }
        if (strchr(fld, '"'))
            return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                 "field %zu has an unbalanced double quote", c->n_fields + 1);
        c->fields[c->n_fields++] = fld;
        if (!end) break;
        p = end + 1;
    }
    return 1;
}

int dp_parse_double(const char *s, double *out)
{
    if (!*s || isspace((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}
