/* folder.c: an experiment's results folder opened for a sweep (folder.h).
 *
 * The order of store_sweep_open is the crash-safety argument: the folder and the
 * workers' folder exist before anything is written into them; every file is replaced
 * atomically (store_write_atomic); the record file is rewritten (without its failed
 * records) or cut back to its last newline before the first append, so after a kill at
 * any point the next sweep reads whole records only.
 */
#include "harness/store/folder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/store/record.h"
#include "harness/store/store.h"

static const char *manifest_scale(const json_t *manifest)
{
    return json_string_value(json_object_get(manifest, "scale"));
}

/* How the grid of this sweep compares with the recorded sweep's records: ids to run,
 * recorded ids kept, recorded ids no longer in the grid. */
static void count_grid_change(store_sweep *f, const json_t *ids)
{
    size_t i;
    json_t *id;
    json_t *want = json_object();
    json_array_foreach(ids, i, id) {
        if (!json_is_string(id)) continue;
        if (json_object_get(f->last, json_string_value(id))) f->n_kept++;
        else f->n_new++;
        if (want) json_object_set_new(want, json_string_value(id), json_true());
    }
    const char *key;
    json_t *v;
    json_object_foreach(f->last, key, v) f->n_gone += want && !json_object_get(want, key);
    json_decref(want);
}

/* The folder's other sweep, if any, must be this one: the same scale, and for a shard the
 * same grid (a whole sweep over an edited grid extends it: counted in f). */
static int check_manifest(const store_sweep_opts *o, store_sweep *f, int have_any,
                          dp_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/sweep.json", o->dir);
    f->recorded = json_load_file(path, 0, NULL);
    /* a shard checks it even in a folder without records yet, since another shard of a
     * different grid may have started there a moment ago */
    if (!f->recorded || !(have_any || o->shard)) return 0;
    const char *old_scale = manifest_scale(f->recorded), *new_scale = manifest_scale(o->manifest);
    if (strcmp(old_scale ? old_scale : "", new_scale ? new_scale : "") != 0) {
        /* no --scale is the config as written: the full scale */
        int rc = dp_err_set(err, DP_ESTATE, "%s holds a sweep at scale %s; this command plans "
                            "scale %s", o->dir, old_scale ? old_scale : "full",
                            new_scale ? new_scale : "full");
        if (old_scale)
            dp_err_hint(err, "pass --scale %s to continue it, or --out DIR for this sweep",
                        old_scale);
        else
            dp_err_hint(err, "leave out --scale to continue it, or use --out DIR for this sweep");
        return rc;
    }
    const json_t *ids = json_object_get(o->manifest, "ids");
    if (json_equal(json_object_get(f->recorded, "ids"), ids)) return 0;
    if (o->shard) {
        /* shards of one submission must agree on the grid they split */
        int rc = dp_err_set(err, DP_ESTATE, "%s: the expanded grid differs from the one this "
                            "folder's shards were started with", o->config);
        dp_err_hint(err, "change a sharded sweep's grid between submissions only after "
                    "`dperm merge`; or use --out DIR for the new grid");
        return rc;
    }
    f->grid_changed = 1;
    count_grid_change(f, ids);
    return 0;
}

int store_sweep_check(const store_sweep_opts *o, store_sweep *f, dp_err *err)
{
    char path[PATH_MAX + 32];
    memset(f, 0, sizeof *f);
    f->fd = -1;
    snprintf(f->runs_path, sizeof f->runs_path, "%s/%s", o->dir, o->runs_file);
    snprintf(f->work_path, sizeof f->work_path, "%s/%s", o->dir, o->work_dir);
    f->last = json_object();
    if (!f->last) return dp_err_set(err, DP_ENOMEM, "out of memory");

    /* A folder dperm keeps experiments' folders and their index in is no experiment's
     * folder: records there would mix with the index and no report would list them. */
    snprintf(path, sizeof path, "%s/%s", o->dir, STORE_RESULTS_MARK);
    if (access(path, F_OK) == 0) {
        int rc = dp_err_set(err, DP_ESTATE, "%s holds other experiments' results folders and "
                            "their index, not one experiment's runs", o->dir);
        dp_err_hint(err, "pass --out %s/NAME (or rename the experiment: its `experiment:` "
                    "key names the folder)", o->dir);
        return rc;
    }
    int have_own = access(f->runs_path, F_OK) == 0;
    int have_any = store_has_records(o->dir);
    int rc;
    /* Every file of the folder: a run done by any shard (or merged) is done. */
    if (have_any && (rc = store_load(o->dir, &f->records, err))) return rc;
    if (have_own && (rc = store_load_file(f->runs_path, &f->own, err))) return rc;
    size_t r;
    json_t *rec;
    json_array_foreach(f->records, r, rec) {
        const char *id = json_string_value(json_object_get(rec, "id"));
        if (id && json_object_set(f->last, id, rec) != 0)
            return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    /* Other shards' files are expected in a shard's folder; only its own file, or for a
     * whole sweep any record, means this command was already run here. */
    if ((o->shard ? have_own : have_any) && !o->resume) {
        if (o->shard)
            rc = dp_err_set(err, DP_ESTATE, "%s already holds %zu run records of shard %s",
                            o->dir, json_array_size(f->own), o->shard);
        else
            rc = dp_err_set(err, DP_ESTATE, "%s already holds %zu run records", o->dir,
                            json_array_size(f->records));
        dp_err_hint(err, "pass --resume to run only the missing runs, or --out DIR to start a "
                    "new folder");
        return rc;
    }
    return check_manifest(o, f, have_any, err);
}

json_t *store_sweep_done(const store_sweep *f, const char *id)
{
    json_t *rec = json_object_get(f->last, id);
    return rec && !record_failed(rec) ? rec : NULL;
}

/* The folder's parent becomes a results root dperm indexes (html.h) when dperm makes it
 * now, or when the caller says so (the default results/). */
static int make_folders(const store_sweep_opts *o, store_sweep *f, dp_err *err)
{
    char parent[PATH_MAX], path[PATH_MAX + 32];
    snprintf(parent, sizeof parent, "%s", o->dir);
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(parent, sizeof parent, ".");
    int parent_existed = access(parent, F_OK) == 0;
    int rc = store_mkdirs(o->dir, err);
    if (rc) return rc;
    if (!parent_existed || o->mark_parent) {
        snprintf(path, sizeof path, "%s/%s", parent, STORE_RESULTS_MARK);
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd); /* a mark that cannot be made only means no index */
    }
    if ((rc = store_mkdirs(f->work_path, err))) return rc;
    /* Left by a kill between writing and renaming a file: never read, only in the way. */
    store_remove_stale_temps(o->dir);
    store_remove_stale_temps(f->work_path);
    return 0;
}

/* Retried failures are dropped from this process's file (atomically), so the file keeps
 * one line per id. */
static int drop_failed(store_sweep *f, dp_err *err)
{
    char *buf = NULL;
    size_t len = 0, r;
    json_t *rec;
    FILE *m = open_memstream(&buf, &len);
    json_array_foreach(m ? f->own : NULL, r, rec) {
        if (record_failed(rec)) continue;
        char *line = store_json_dumps(rec, 0);
        if (line) fprintf(m, "%s\n", line);
        free(line);
    }
    if (!m || fclose(m) != 0) {
        free(buf);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    int rc = store_write_atomic(f->runs_path, buf, len, err);
    free(buf);
    return rc;
}

/* A kill mid-append can leave a final line without newline: cut it off so the next
 * append starts on a fresh line. */
static int cut_partial_line(const store_sweep *f, dp_err *err)
{
    struct stat st;
    if (stat(f->runs_path, &st) != 0 || st.st_size == 0) return 0;
    FILE *in = fopen(f->runs_path, "r+b");
    if (!in) return 0;
    off_t keep = st.st_size;
    char ch;
    while (keep > 0 && fseeko(in, keep - 1, SEEK_SET) == 0 && fread(&ch, 1, 1, in) == 1 &&
           ch != '\n')
        keep--;
    fclose(in);
    if (keep != st.st_size && truncate(f->runs_path, keep) != 0)
        return dp_err_set(err, DP_EIO, "cannot repair %s: %s", f->runs_path, strerror(errno));
    return 0;
}

int store_sweep_open(const store_sweep_opts *o, store_sweep *f, const store_text *files,
                     size_t n_files, dp_err *err)
{
    char path[PATH_MAX + 512];
    int rc = make_folders(o, f, err);
    for (size_t i = 0; rc == 0 && i < n_files; i++) {
        snprintf(path, sizeof path, "%s/%s", o->dir, files[i].name);
        rc = store_write_atomic(path, files[i].text, files[i].len, err);
    }
    /* Shards of one grid write the same bytes; once there, their manifest stays. */
    if (rc == 0 && !(f->recorded && o->shard)) {
        char *text = store_json_dumps(o->manifest, 0);
        if (!text) return dp_err_set(err, DP_ENOMEM, "out of memory");
        snprintf(path, sizeof path, "%s/sweep.json", o->dir);
        rc = store_write_atomic(path, text, strlen(text), err);
        free(text);
    }
    if (rc) return rc;
    size_t n_failed = 0, r;
    json_t *rec;
    json_array_foreach(f->own, r, rec) n_failed += (size_t)record_failed(rec);
    if (n_failed) rc = drop_failed(f, err);
    else if (f->own) rc = cut_partial_line(f, err);
    if (rc) return rc;
    f->fd = open(f->runs_path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (f->fd < 0)
        return dp_err_set(err, DP_EIO, "cannot open %s: %s", f->runs_path, strerror(errno));
    return 0;
}

void store_sweep_close(store_sweep *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    json_decref(f->records);
    json_decref(f->last);
    json_decref(f->own);
    json_decref(f->recorded);
    f->records = f->last = f->own = f->recorded = NULL;
}
