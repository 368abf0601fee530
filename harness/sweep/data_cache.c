/* data_cache.c: load-once real datasets for a sweep, and their record block (see
 * data_cache.h). Loading happens in the parent, before pool.c forks the workers, which is
 * the simplest way to parse a dataset once per sweep: no cache files to invalidate, and
 * the workers read the parent's pages copy-on-write without copying them.
 */
#include "harness/sweep/data_cache.h"

#include <stdlib.h>
#include <string.h>

static const char *const SCALE_NAMES[] = {"none", "minmax", "standardize"};

void data_cache_init(data_cache *c, const char *data_dir, FILE *notes)
{
    memset(c, 0, sizeof *c);
    dp_data_search_init(&c->search, data_dir);
    c->notes = notes;
}

void data_cache_destroy(data_cache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        dp_data_destroy(&c->items[i]->data);
        json_decref(c->items[i]->record);
        free(c->items[i]);
    }
    free(c->items);
    memset(c, 0, sizeof *c);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

json_t *data_cache_describe(const dp_data *d, dp_err *err)
{
    const dp_data_info *info = dp_data_find(d->name);
    const dp_data_opts *o = &d->opts;
    json_t *files = json_array(), *classes = json_array(), *prep = json_object();
    for (size_t i = 0; i < d->n_files; i++) {
        char hex[65];
        int rc = dp_sha256_file(d->files[i], hex, err);
        if (rc) {
            json_decref(files);
            json_decref(classes);
            json_decref(prep);
            return NULL;
        }
        const char *published = NULL;
        for (size_t k = 0; info && k < info->n_files; k++)
            if (strcmp(info->files[k].name, base_name(d->files[i])) == 0)
                published = info->files[k].sha256;
        json_array_append_new(files, json_pack("{s:s, s:s, s:s}", "path", d->files[i],
                                               "sha256", hex, "published_sha256",
                                               !published ? "none recorded"
                                               : strcmp(published, hex) == 0 ? "match"
                                                                             : "MISMATCH"));
    }
    for (int k = 0; k < d->n_classes; k++)
        json_array_append_new(classes, json_string(d->class_names[k]));
    json_object_set_new(prep, "scale", json_string(SCALE_NAMES[o->scale]));
    if (o->n_standardize_mean) {
        /* the fixed values after the map to [0, 1], as given (1 or one per channel) */
        json_t *mean = json_array(), *sd = json_array();
        for (size_t k = 0; k < o->n_standardize_mean; k++)
            json_array_append_new(mean, json_real(o->standardize_mean[k]));
        for (size_t k = 0; k < o->n_standardize_std; k++)
            json_array_append_new(sd, json_real(o->standardize_std[k]));
        json_object_set_new(prep, "standardize", json_pack("{s:o, s:o}", "mean", mean, "std", sd));
    }
    json_object_set_new(prep, "normalize", json_string(o->unit_l2 ? "unit_l2" : "none"));
    if (info && info->format == DP_FMT_CSV) {
        json_object_set_new(prep, "one_hot", json_boolean(o->one_hot));
        json_object_set_new(prep, "missing", json_string(o->missing ? "impute" : "drop"));
    }
    if (d->n_classes) {
        json_object_set_new(prep, "labels", json_string(o->labels ? "pm1" : "index"));
        if (o->labels == DP_LABELS_PM1) json_object_set_new(prep, "positive", json_string(o->positive));
        if (o->n_classes_keep) {
            json_t *keep = json_array();
            for (size_t k = 0; k < o->n_classes_keep; k++)
                json_array_append_new(keep, json_string(o->classes[k]));
            json_object_set_new(prep, "classes", keep);
        }
    } else {
        json_object_set_new(prep, "target_scale", json_string(SCALE_NAMES[o->target_scale]));
        json_object_set_new(prep, "target_shift", json_real(d->target_shift));
        json_object_set_new(prep, "target_divisor", json_real(d->target_scale));
    }
    if (o->subsample) json_object_set_new(prep, "subsample", json_integer((json_int_t)o->subsample));
    json_object_set_new(prep, "test", o->test_fraction > 0 ? json_real(o->test_fraction)
                                                           : json_string("official"));
    json_object_set_new(prep, "seed", json_integer((json_int_t)o->seed));
    if (o->n_public) /* PATE: the first test rows, before the test set */
        json_object_set_new(prep, "public_rows", json_integer((json_int_t)o->n_public));
    json_t *rec = json_pack(
        "{s:s, s:s, s:b, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:s, s:I, s:[i,i,i], s:o, s:o}",
        "name", d->name, "requested", d->requested, "fallback",
        strcmp(d->name, d->requested) != 0, "folder", d->dir, "files", files, "rows_read",
        (json_int_t)d->rows_read, "rows_dropped", (json_int_t)d->rows_dropped, "n_train",
        (json_int_t)d->train.n, "n_validation", (json_int_t)d->validation.n, "n_test",
        (json_int_t)d->test.n, "evaluated_on", o->evaluate_on_validation ? "validation" : "test",
        "features", (json_int_t)d->train.d, "shape", d->c, d->h, d->w, "classes", classes,
        "preprocessing", prep);
    if (!rec) dp_err_set(err, DP_ENOMEM, "out of memory");
    return rec;
}

int data_cache_get(data_cache *c, const dp_data_opts *o, const data_entry **out, dp_err *err)
{
    /* Options structs are zeroed before being filled (dp_data_opts_default), padding
     * included, so equal options compare equal byte for byte. */
    for (size_t i = 0; i < c->n; i++)
        if (memcmp(&c->items[i]->key, o, sizeof *o) == 0) {
            *out = c->items[i];
            return DP_OK;
        }
    data_entry **items = realloc(c->items, (c->n + 1) * sizeof *items);
    if (!items) return dp_err_set(err, DP_ENOMEM, "out of memory");
    c->items = items;
    data_entry *e = calloc(1, sizeof *e);
    if (!e) return dp_err_set(err, DP_ENOMEM, "out of memory");
    e->key = *o;
    int rc = dp_data_load(o, &c->search, &e->data, err);
    if (rc == 0) {
        e->record = data_cache_describe(&e->data, err);
        if (!e->record) rc = err ? err->code : DP_ENOMEM;
    }
    if (rc) {
        dp_data_destroy(&e->data);
        free(e);
        return rc;
    }
    if (c->notes && strcmp(e->data.name, e->data.requested) != 0)
        fprintf(c->notes, "dperm: note: dataset '%s' not found; using %s from %s instead "
                          "(each record's dataset block says so)\n",
                e->data.requested, e->data.name, e->data.dir);
    c->items[c->n++] = e;
    *out = e;
    return DP_OK;
}

int data_cache_bind(data_cache *c, run_spec *s, const cfg_node *run_config, dp_err *err)
{
    if (!s->real) return DP_OK;
    const cfg_node *ds = cfg_get(run_config, "dataset");
    const data_entry *e;
    dp_err lerr;
    dp_err_clear(&lerr);
    int rc = data_cache_get(c, &s->data, &e, &lerr);
    if (rc == DP_EDATA && lerr.file[0]) {
        *err = lerr; /* about a data file: its own position */
        return rc;
    }
    if (rc == DP_ENOMEM) {
        *err = lerr;
        return rc;
    }
    if (rc == DP_EDATA && s->data_optional) {
        /* dataset.required false: the run is recorded as failed with this message (a
         * report's "data missing" cell) and the rest of the sweep goes on. */
        snprintf(s->data_missing, sizeof s->data_missing, "%s", lerr.msg);
        return DP_OK;
    }
    if (rc) {
        /* Missing dataset (DP_EDATA, no file) or options that do not fit the data
         * (DP_EINVAL): about the config, so at its dataset block. */
        const cfg_node *at = rc == DP_EDATA ? cfg_get(ds, "name") : ds;
        int code = rc == DP_EDATA ? DP_EDATA : DP_ECONFIG;
        cfg_error(err, at, 0, "%s", lerr.msg);
        err->code = code;
        return code;
    }
    s->bound_record = e->record;
    return spec_bind_data(s, run_config, &e->data, err);
}
