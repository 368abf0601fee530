/* uci.c: one table of column schemas for the delimited-text datasets, and the reader that
 * turns their files into a dp_raw (data_int.h).
 *
 * Sources and licenses are in registry.c and docs/datasets.md; each schema below notes its
 * file's quirks. Column letters: N numeric, C categorical (one-hot later), L class
 * label, T real regression target, S skipped (an ID, or a column that leaks the target).
 * Categorical levels are the values seen in the files, sorted (strcmp), so a level's code
 * depends on the data alone; classes are listed in the schema where the papers fix the
 * positive class, else the observed labels sorted (kddcup99).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "datasets/data_int.h"

#define MAX_LEVELS 256

typedef struct uci_schema {
    const char *name;
    char sep;
    int header_rows;            /* skipped at the top of every file */
    const char *cols;           /* one letter per field, see the header comment */
    const char *missing;        /* missing-value marker, or NULL */
    const char *classes[4];     /* label strings in class order; {NULL}: observed, sorted */
    int strip_label_dot;        /* labels may end in '.' (adult.test, kddcup) */
    int skip_pipe_lines;        /* lines starting with '|' are comments (adult.test) */
    size_t n_train_files;       /* files after these are the official test */
} uci_schema;

static const uci_schema SCHEMAS[] = {
    /* adult.data / adult.test: ", " separator, '?' missing (workclass, occupation,
     * native-country), adult.test's first line "|1x3 Cross validator" and its labels'
     * trailing '.'; both files end with an empty line. fnlwgt is a census sampling weight,
     * kept as a number as in the papers' feature counts. */
    {"adult", ',', 0, "NCNCNCCCCCNNNCL", "?", {"<=50K", ">50K"}, 1, 1, 1},
    /* bank-full.csv: ';', header, strings quoted; "unknown" is a category, not missing;
     * duration (known only after the call) is kept as the papers did. */
    {"bank", ';', 1, "NCCCCNCCCNCNNNNCL", NULL, {"no", "yes"}, 0, 0, 1},
    /* bank-additional-full.csv: 20 attributes incl. 5 social/economic indicators, CRLF. */
    {"bank_additional", ';', 1, "NCCCCCCCCCNNNNCNNNNNL", NULL, {"no", "yes"}, 0, 0, 1},
    /* CSV export of the .xls: two header rows, ID first, SEX/EDUCATION/MARRIAGE coded
     * categories, PAY_x ordinal (kept numeric), label 0/1. */
    {"credit_default", ',', 2, "SNCCCNNNNNNNNNNNNNNNNNNNL", NULL, {"0", "1"}, 0, 0, 1},
    /* winequality-red.csv + winequality-white.csv: ';', quoted header, 11 inputs,
     * target quality (0..10). No official test: both files form one pool. */
    {"wine_quality", ';', 1, "NNNNNNNNNNNT", NULL, {NULL}, 0, 0, 2},
    /* hour.csv: instant and dteday skipped (an index and the date, whose parts are the
     * next columns), casual + registered = cnt skipped (they leak the target). */
    {"bike", ',', 1, "SSCNCCNCNCNNNNSST", NULL, {NULL}, 0, 0, 1},
    /* kddcup.data_10_percent(.gz): 41 features (protocol_type, service, flag symbolic),
     * label with a trailing '.'; 23 labels, observed and sorted. */
    {"kddcup99", ',', 0, "NCCCNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNL", NULL, {NULL}, 1, 0, 1},
    /* breast-cancer-wisconsin.data: sample code number (not unique) skipped, 9 features
     * 1..10, '?' missing in Bare Nuclei (16 rows), class 2 benign / 4 malignant. */
    {"breast_cancer", ',', 0, "SNNNNNNNNNL", "?", {"2", "4"}, 0, 0, 1},
    /* iris.data: 4 measurements, 3 classes, empty last line. */
    {"iris", ',', 0, "NNNNL", NULL, {"Iris-setosa", "Iris-versicolor", "Iris-virginica"}, 0, 0, 1},
    /* creditcard.csv (ULB): quoted header "Time","V1".."V28","Amount","Class", label "0"/"1". */
    {"credit_fraud", ',', 1, "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNL", NULL, {"0", "1"}, 0, 0, 1},
};

static const uci_schema *find_schema(const char *name)
{
    for (size_t i = 0; i < sizeof SCHEMAS / sizeof SCHEMAS[0]; i++)
        if (strcmp(SCHEMAS[i].name, name) == 0) return &SCHEMAS[i];
    return NULL;
}

/* Observed strings of one categorical column (or of the labels), codes in order seen. */
typedef struct vocab {
    char *s[MAX_LEVELS];
    int n;
} vocab;

static void vocab_free(vocab *v)
{
    for (int i = 0; i < v->n; i++) free(v->s[i]);
    v->n = 0;
}

/* Code of s, adding it; -1 when there are too many levels, -2 out of memory. */
static int vocab_code(vocab *v, const char *s)
{
    for (int i = v->n - 1; i >= 0; i--)
        if (strcmp(v->s[i], s) == 0) return i;
    if (v->n == MAX_LEVELS) return -1;
    v->s[v->n] = strdup(s);
    if (!v->s[v->n]) return -2;
    return v->n++;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted order of v: remap[old code] = new code; v->s sorted in place. */
static void vocab_sort(vocab *v, int *remap)
{
    char *sorted[MAX_LEVELS];
    memcpy(sorted, v->s, (size_t)v->n * sizeof *sorted);
    qsort(sorted, (size_t)v->n, sizeof *sorted, cmp_str);
    for (int i = 0; i < v->n; i++)
        for (int j = 0; j < v->n; j++)
            if (v->s[i] == sorted[j]) remap[i] = j;
    memcpy(v->s, sorted, (size_t)v->n * sizeof *sorted);
}

typedef struct reader {
    const uci_schema *sc;
    size_t n_cols, d;        /* fields per line; features kept */
    int *feat_of;            /* field -> feature index, -1 if none */
    vocab *cats;             /* per feature (only for C) */
    vocab labels;
    size_t cap;
} reader;

static int grow(dp_raw *raw, reader *r, const char *path, dp_err *err)
{
    size_t cap = r->cap ? r->cap * 2 : 4096;
    double *x = realloc(raw->x, cap * r->d * sizeof *x);
    if (!x) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
    raw->x = x;
    if (strchr(r->sc->cols, 'T')) {
        double *t = realloc(raw->t, cap * sizeof *t);
        if (!t) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
        raw->t = t;
    } else {
        int *y = realloc(raw->y, cap * sizeof *y);
        if (!y) return dp_err_set(err, DP_ENOMEM, "out of memory reading %s", path);
        raw->y = y;
    }
    r->cap = cap;
    return DP_OK;
}

static int label_code(reader *r, char *s, dp_csv *c, dp_err *err)
{
    size_t n = strlen(s);
    if (r->sc->strip_label_dot && n > 0 && s[n - 1] == '.') s[n - 1] = '\0';
    if (r->sc->classes[0]) {
        for (int k = 0; k < 4 && r->sc->classes[k]; k++)
            if (strcmp(s, r->sc->classes[k]) == 0) return k;
        char known[200] = "";
        for (int k = 0; k < 4 && r->sc->classes[k]; k++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                     r->sc->classes[k]);
        return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                             "label '%.60s' is not one of %s", s, known);
    }
    int code = vocab_code(&r->labels, s);
    if (code == -2) return dp_err_set(err, DP_ENOMEM, "out of memory");
    if (code < 0 || code >= DP_DATA_MAX_CLASSES)
        return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                             "more than %d distinct labels", DP_DATA_MAX_CLASSES);
    return code;
}

/* One data line into row raw->n. */
static int read_row(dp_raw *raw, reader *r, dp_csv *c, dp_err *err)
{
    const uci_schema *sc = r->sc;
    if (c->n_fields != r->n_cols)
        return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                             "%zu fields, expected %zu (separator '%c')", c->n_fields, r->n_cols,
                             sc->sep);
    if (raw->n == r->cap) {
        int rc = grow(raw, r, c->path, err);
        if (rc) return rc;
    }
    double *row = raw->x + raw->n * r->d;
    for (size_t j = 0; j < r->n_cols; j++) {
        char *f = c->fields[j];
        char kind = sc->cols[j];
        int missing = sc->missing && strcmp(f, sc->missing) == 0;
        if (kind == 'S') continue;
        if (kind == 'L') {
            if (missing || !*f)
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                     "field %zu: the label is missing", j + 1);
            int k = label_code(r, f, c, err);
            if (k < 0) return k;
            raw->y[raw->n] = k;
            continue;
        }
        if (kind == 'T') {
            if (missing || dp_parse_double(f, &raw->t[raw->n]))
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                     "field %zu: target '%.40s' is not a number", j + 1, f);
            continue;
        }
        double *v = &row[r->feat_of[j]];
        if (missing) {
            *v = NAN;
        } else if (kind == 'N') {
            if (dp_parse_double(f, v))
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                     "field %zu: '%.40s' is not a number", j + 1, f);
        } else {
            if (!*f)
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                     "field %zu: empty category", j + 1);
            int code = vocab_code(&r->cats[r->feat_of[j]], f);
            if (code == -2) return dp_err_set(err, DP_ENOMEM, "out of memory");
            if (code < 0)
                return dp_err_set_at(err, DP_EDATA, c->path, (int)c->line, 0,
                                     "field %zu: more than %d distinct categories", j + 1,
                                     MAX_LEVELS);
            *v = code;
        }
    }
    raw->n++;
    return DP_OK;
}

static int read_file(dp_raw *raw, reader *r, const char *path, size_t expect_rows,
                     dp_err *err)
{
    dp_csv c;
    int rc = dp_csv_open(&c, path, r->sc->sep, err), blank;
    if (rc) return rc;
    size_t n0 = raw->n;
    int headers = 0;
    while ((rc = dp_csv_next(&c, &blank, err)) == 1) {
        if (blank) continue; /* trailing empty lines (adult, iris) */
        if (r->sc->skip_pipe_lines && c.fields[0][0] == '|') continue;
        if (headers < r->sc->header_rows) {
            headers++;
            continue;
        }
        if ((rc = read_row(raw, r, &c, err))) break;
    }
    if (rc == 0 && raw->n == n0)
        rc = dp_err_set_at(err, DP_EDATA, path, 0, 0, "no data rows");
    if (rc == 0 && expect_rows && raw->n - n0 != expect_rows)
        rc = dp_err_set_at(err, DP_EDATA, path, 0, 0,
                           "%zu data rows, the published file has %zu (truncated, or another "
                           "version of the file)", raw->n - n0, expect_rows);
    dp_csv_close(&c);
    return rc;
}

/* Replace provisional codes (order seen) by the sorted order's. */
static void finish_codes(dp_raw *raw, reader *r)
{
    int remap[MAX_LEVELS];
    for (size_t f = 0; f < r->d; f++) {
        if (!raw->cat[f]) continue;
        vocab_sort(&r->cats[f], remap);
        raw->cat[f] = r->cats[f].n;
        for (size_t i = 0; i < raw->n; i++) {
            double *v = &raw->x[i * r->d + f];
            if (!isnan(*v)) *v = remap[(int)*v];
        }
    }
    if (raw->y && !r->sc->classes[0]) {
        vocab_sort(&r->labels, remap);
        for (size_t i = 0; i < raw->n; i++) raw->y[i] = remap[raw->y[i]];
    }
}

int dp_uci_read(dp_raw *raw, const dp_data_info *info, const dp_data_found *found,
                dp_err *err)
{
    const uci_schema *sc = find_schema(info->name);
    if (!sc) return dp_err_set(err, DP_EINVAL, "no CSV schema for dataset '%s'", info->name);
    reader r = {.sc = sc, .n_cols = strlen(sc->cols)};
    int rc = DP_OK;
    memset(raw, 0, sizeof *raw);
    r.feat_of = malloc(r.n_cols * sizeof *r.feat_of);
    if (!r.feat_of) return dp_err_set(err, DP_ENOMEM, "out of memory");
    for (size_t j = 0; j < r.n_cols; j++)
        r.feat_of[j] = (sc->cols[j] == 'N' || sc->cols[j] == 'C') ? (int)r.d++ : -1;
    r.cats = calloc(r.d, sizeof *r.cats);
    raw->cat = calloc(r.d, sizeof *raw->cat);
    if (!r.cats || !raw->cat) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < r.n_cols; j++)
        if (sc->cols[j] == 'C') raw->cat[r.feat_of[j]] = 1; /* final level count later */
    raw->d = r.d;
    for (size_t i = 0; i < info->n_files && rc == 0; i++) {
        if (i == sc->n_train_files) raw->n_official_train = raw->n;
        rc = read_file(raw, &r, found->paths[i], info->files[i].rows, err);
    }
    if (rc) goto out;
    if (info->n_files <= sc->n_train_files) raw->n_official_train = raw->n;
    finish_codes(raw, &r);
    if (raw->y) {
        if (sc->classes[0]) {
            for (int k = 0; k < 4 && sc->classes[k]; k++) {
                snprintf(raw->class_names[k], sizeof raw->class_names[k], "%s", sc->classes[k]);
                raw->n_classes = k + 1;
            }
        } else {
            for (int k = 0; k < r.labels.n; k++)
                snprintf(raw->class_names[k], sizeof raw->class_names[k], "%s", r.labels.s[k]);
            raw->n_classes = r.labels.n;
        }
    }
out:
    for (size_t f = 0; r.cats && f < r.d; f++) vocab_free(&r.cats[f]);
    vocab_free(&r.labels);
    free(r.cats);
    free(r.feat_of);
    if (rc) dp_raw_destroy(raw);
    return rc;
}
