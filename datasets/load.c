/* load.c: a named dataset from its files to a dp_data (data.h): defaults, the reader for
 * its format, the mnist -> fashion_mnist fallback, then preprocess.c.
 *
 * The fallback (the "embedded default for MNIST-shaped runs"): Fashion-MNIST is
 * the MNIST-shaped dataset a fresh Debian machine has without a download (package
 * dataset-fashion-mnist), so a config naming mnist runs on it when mnist is not found and
 * fallback is on; dp_data.name and .requested then differ, and the harness records both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/data_int.h"

void dp_raw_destroy(dp_raw *r)
{
    if (!r) return;
    free(r->px);
    free(r->x);
    free(r->cat);
    free(r->y);
    free(r->t);
    memset(r, 0, sizeof *r);
}

void dp_data_destroy(dp_data *d)
{
    if (!d) return;
    dp_dataset_destroy(&d->train);
    dp_dataset_destroy(&d->validation);
    dp_dataset_destroy(&d->public_set);
    dp_dataset_destroy(&d->test);
    memset(d, 0, sizeof *d);
}

/* The positive class of the binary sets (the event the papers predict). */
static const struct {
    const char *name, *positive;
} POSITIVE[] = {
    {"adult", ">50K"},   {"bank", "yes"},          {"bank_additional", "yes"},
    {"credit_default", "1"}, {"breast_cancer", "4"}, {"credit_fraud", "1"},
    {"kddcup99", "normal"},
};

int dp_data_opts_default(dp_data_opts *o, const char *name, dp_err *err)
{
    memset(o, 0, sizeof *o);
    const dp_data_info *info = dp_data_find(name);
    if (!info) return dp_err_set(err, DP_EINVAL, "unknown dataset '%s'", name);
    snprintf(o->name, sizeof o->name, "%s", name);
    o->fallback = strcmp(name, "mnist") == 0;
    o->scale = DP_SCALE_MINMAX;
    o->seed = 1;
    o->missing = DP_MISSING_DROP;
    o->test_fraction = info->has_official_test ? 0 : 0.2;
    if (info->format == DP_FMT_CSV) {
        o->one_hot = 1;
        o->unit_l2 = 1;
    }
    if (info->regression) o->target_scale = DP_SCALE_MINMAX;
    for (size_t i = 0; i < sizeof POSITIVE / sizeof POSITIVE[0]; i++)
        if (strcmp(POSITIVE[i].name, name) == 0) {
            o->labels = DP_LABELS_PM1;
            snprintf(o->positive, sizeof o->positive, "%s", POSITIVE[i].positive);
        }
    return DP_OK;
}

static int read_raw(dp_raw *raw, const dp_data_info *info, const dp_data_found *f,
                    dp_err *err)
{
    memset(raw, 0, sizeof *raw);
    int rc;
    switch (info->format) {
    case DP_FMT_IDX:
        rc = dp_idx_read(raw, f->paths[0], f->paths[1], err);
        if (rc == 0) {
            raw->n_official_train = raw->n;
            rc = dp_idx_read(raw, f->paths[2], f->paths[3], err);
        }
        break;
    case DP_FMT_CIFAR:
        if (f->archive) {
            rc = dp_cifar_read_tar(raw, f->paths[0], err);
        } else {
            const char *p[6];
            for (int i = 0; i < 6; i++) p[i] = f->paths[i];
            rc = dp_cifar_read_files(raw, p, 5, 1, err);
        }
        break;
    case DP_FMT_CSV:
        rc = dp_uci_read(raw, info, f, err);
        break;
    case DP_FMT_MAT:
        rc = dp_svhn_read(raw, f->paths[0], f->paths[1], err);
        break;
    default:
        rc = dp_err_set(err, DP_EINVAL, "%s has no file format", info->name);
    }
    /* Published counts: a file cut at a record boundary must not load silently short. */
    if (rc == 0 && info->format != DP_FMT_CSV && info->rows && raw->n != info->rows)
        rc = dp_err_set_at(err, DP_EDATA, f->dir, 0, 0,
                           "%zu records, the published %s has %zu (truncated files, or "
                           "another version)", raw->n, info->name, info->rows);
    if (rc) dp_raw_destroy(raw);
    return rc;
}

int dp_data_load(const dp_data_opts *opts, const dp_data_search *s, dp_data *out,
                 dp_err *err)
{
    memset(out, 0, sizeof *out);
    const dp_data_info *info = dp_data_find(opts->name);
    if (!info) return dp_err_set(err, DP_EINVAL, "unknown dataset '%s'", opts->name);
    dp_data_found found;
    dp_err first;
    int rc = dp_data_locate(info, s, &found, &first);
    if (rc == DP_EDATA && opts->fallback && strcmp(info->name, "mnist") == 0) {
        const dp_data_info *fb = dp_data_find("fashion_mnist");
        if (dp_data_locate(fb, s, &found, NULL) == DP_OK) {
            info = fb;
            rc = DP_OK;
        }
    }
    if (rc) {
        if (err) *err = first;
        return rc;
    }
    snprintf(out->requested, sizeof out->requested, "%s", opts->name);
    snprintf(out->name, sizeof out->name, "%s", info->name);
    snprintf(out->dir, sizeof out->dir, "%s", found.dir);
    out->n_files = found.archive ? 1 : info->n_files;
    for (size_t i = 0; i < out->n_files; i++)
        snprintf(out->files[i], sizeof out->files[i], "%s", found.paths[i]);
    out->opts = *opts;
    snprintf(out->opts.name, sizeof out->opts.name, "%s", info->name);

    dp_raw raw;
    if ((rc = read_raw(&raw, info, &found, err))) return rc;
    out->rows_read = raw.n;
    rc = dp_prep_apply(&raw, &out->opts, out, err);
    dp_raw_destroy(&raw);
    if (rc) dp_data_destroy(out);
    return rc;
}
