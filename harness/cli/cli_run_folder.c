/* cli_run_folder.c: the results folder of `dperm run` (cli_run_int.h): the manifest and
 * config files it writes, which runs it runs, which records it copies, and the command
 * that continues the sweep after an interrupt or a full disk.
 */
#include "harness/cli/cli_run_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/report/aggregate.h"
#include "harness/store/record.h"
#include "harness/store/store.h"
#include "harness/sweep/shared_runs.h"

/* ---- the command that continues a sweep ------------------------------------------------ */

/* Append " arg" to buf (size n), in single quotes when the shell would split or expand
 * it, so the hint can be pasted as it is. */
static void append_arg(char *buf, size_t n, const char *arg)
{
    size_t len = strlen(buf);
    int plain = arg[0] != '\0';
    for (const char *c = arg; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
                    *c))
            plain = 0;
    if (plain) {
        snprintf(buf + len, n - len, " %s", arg);
        return;
    }
    snprintf(buf + len, n - len, " '");
    for (const char *c = arg; *c; c++) {
        len = strlen(buf);
        if (*c == '\'') snprintf(buf + len, n - len, "'\\''");
        else snprintf(buf + len, n - len, "%c", *c);
    }
    len = strlen(buf);
    snprintf(buf + len, n - len, "'");
}

/* "dperm run CONFIG ... --resume" with every option that shapes the sweep (its folder, its
 * scale, the --only filters, the data folder, the shard, secure noise): the exact command
 * that continues this sweep in this folder. Without --out or --scale a resume plans the
 * default folder at full scale, which is another sweep. */
void cli_run_continue_command(const sweep *s, char *buf, size_t n)
{
    snprintf(buf, n, "dperm run");
    append_arg(buf, n, s->opt.config);
    if (s->opt.scale) {
        append_arg(buf, n, "--scale");
        append_arg(buf, n, s->opt.scale);
    }
    for (size_t i = 0; i < s->opt.n_only; i++) {
        append_arg(buf, n, "--only");
        append_arg(buf, n, s->opt.only[i]);
    }
    if (s->opt.data_dir) {
        append_arg(buf, n, "--data-dir");
        append_arg(buf, n, s->opt.data_dir);
    }
    if (s->opt.sharded) {
        char shard[64];
        snprintf(shard, sizeof shard, "%u/%u", s->opt.shard.index, s->opt.shard.count);
        append_arg(buf, n, "--shard");
        append_arg(buf, n, shard);
    }
    if (s->opt.secure_noise) append_arg(buf, n, "--secure-noise");
    append_arg(buf, n, "--out");
    append_arg(buf, n, s->dir);
    append_arg(buf, n, "--resume");
}

/* ---- the results folder -------------------------------------------------------------- */

/* The manifest: every id of the full expansion (before --only) under this scale, so a
 * --resume with an edited grid is caught. */
static json_t *manifest_json(const sweep *s, const grid *full)
{
    json_t *ids = json_array();
    for (size_t i = 0; i < full->n; i++) json_array_append_new(ids, json_string(full->runs[i].id));
    return json_pack("{s:i, s:s, s:s?, s:o}", "schema", STORE_MANIFEST_SCHEMA, "experiment",
                     s->g.n ? s->specs[0].experiment : "", "scale", s->opt.scale, "ids", ids);
}

/* "the grid changed: N new runs, M kept, K recorded ones no longer in it", once, even with
 * --quiet: a resume that runs other runs than before says so. */
static void grid_change_note(const store_sweep *f)
{
    fprintf(stderr, "dperm: note: the grid changed since this folder's last sweep: %zu new "
            "run%s to run, %zu recorded and kept, %zu recorded run%s no longer in the grid "
            "(kept in runs.jsonl, left out of reports)\n", f->n_new, f->n_new == 1 ? "" : "s",
            f->n_kept, f->n_gone, f->n_gone == 1 ? "" : "s");
}

/* DIR/config.original.yaml: the experiment file as given; DIR/config.yaml: the experiment
 * as this sweep runs it, which `dperm report` reads. Without --scale or --secure-noise the
 * two are the same text; with them config.yaml is the document with the scale merged in
 * (and privacy.secure_noise set), written as JSON (which is YAML) under a comment saying
 * so: a quick-scale folder then shows the epochs and seeds its runs had. Reals in 15
 * significant digits (0.3, not 0.29999999999999999): the values of a hand-written file.
 * *out is NULL when config.yaml is the file as given. */
static int config_as_run(const sweep *s, agg_buf *out, dp_err *err)
{
    cfg_node *doc = NULL;
    int rc = grid_scaled_document(s->doc.root, s->opt.scale, &doc, err);
    if (rc) return rc;
    json_t *j = cfg_to_json(doc);
    cfg_free(doc);
    char *body = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(j);
    agg_buf_printf(out, "# The experiment as this folder's sweep ran it: %s", s->opt.config);
    if (s->opt.scale) agg_buf_printf(out, " with scales.%s merged in", s->opt.scale);
    if (s->opt.secure_noise) agg_buf_puts(out, " and --secure-noise");
    agg_buf_puts(out, " (JSON, which is YAML; the file as given: config.original.yaml).\n");
    if (body) agg_buf_printf(out, "%s\n", body);
    free(body);
    return !body || out->oom ? dp_err_set(err, DP_ENOMEM, "out of memory") : 0;
}

/* A group of runs that train alike (shared_runs.h) trains once: an undone run copies a
 * done member's record now (appended here), else the group's first undone run trains
 * (todo) and the others copy its record when it arrives (copy_of, job_done). */
static int plan_copies(sweep *s, size_t *todo, size_t *n_todo, dp_err *err)
{
    size_t n = s->g.n;
    json_t **from = calloc(n + 1, sizeof *from); /* per group: a done record */
    size_t *trainer = malloc((n + 1) * sizeof *trainer); /* per group: the run that trains */
    s->copy_of = malloc((n + 1) * sizeof *s->copy_of);
    int rc = 0;
    if (!from || !trainer || !s->copy_of) {
        rc = dp_err_set(err, DP_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *done = store_sweep_done(&s->folder, s->g.runs[i].id);
        if (done && !from[s->group[i]]) from[s->group[i]] = done;
        trainer[i] = s->copy_of[i] = SIZE_MAX;
    }
    *n_todo = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t g = s->group[i];
        if (store_sweep_done(&s->folder, s->g.runs[i].id)) continue;
        if (from[g]) {
            json_t *copy = shared_runs_copy(from[g], &s->g.runs[i]);
            rc = copy ? store_append_record(s->folder.fd, s->folder.runs_path, copy, err)
                      : dp_err_set(err, DP_ENOMEM, "out of memory");
            json_decref(copy);
            s->n_copied += rc == 0;
        } else if (trainer[g] == SIZE_MAX) {
            todo[(*n_todo)++] = trainer[g] = i;
        } else {
            s->copy_of[i] = trainer[g];
        }
    }
out:
    free(from);
    free(trainer);
    return rc;
}

/* Open the results folder (store/folder.h) and decide what to run: fills todo[] with
 * indices into s->g.runs. */
int cli_run_open_folder(sweep *s, size_t *todo, size_t *n_todo, dp_err *err)
{
    grid full = {0};
    int rc = grid_expand(s->doc.root, s->opt.scale, NULL, 0, &full, err);
    if (rc) return rc;
    json_t *manifest = manifest_json(s, &full);
    grid_destroy(&full);
    if (!manifest) return dp_err_set(err, DP_ENOMEM, "out of memory");

    char runs_file[64] = "runs.jsonl", work_dir[64] = ".work", shard[32];
    if (s->opt.sharded) {
        shard_file_name(&s->opt.shard, runs_file, sizeof runs_file);
        snprintf(work_dir, sizeof work_dir, ".work.%u-of-%u", s->opt.shard.index,
                 s->opt.shard.count);
        snprintf(shard, sizeof shard, "%u/%u", s->opt.shard.index, s->opt.shard.count);
    }
    store_sweep_opts o = {.dir = s->dir,
                          .config = s->opt.config,
                          .runs_file = runs_file,
                          .work_dir = work_dir,
                          .shard = s->opt.sharded ? shard : NULL,
                          .resume = s->opt.resume,
                          .mark_parent = !s->opt.out,
                          .manifest = manifest};
    char *text = NULL;
    size_t len = 0;
    agg_buf as_run;
    agg_buf_init(&as_run);
    rc = store_sweep_check(&o, &s->folder, err);
    if (rc) goto out;
    if (s->folder.grid_changed) grid_change_note(&s->folder);
    /* The config as given (report reads it) and as run, each replaced atomically. */
    if ((rc = store_read_file(s->opt.config, &text, &len, err))) goto out;
    if ((s->opt.scale || s->opt.secure_noise) && (rc = config_as_run(s, &as_run, err))) goto out;
    store_text files[] = {
        {"config.original.yaml", text, len},
        {"config.yaml", as_run.len ? agg_buf_str(&as_run) : text, as_run.len ? as_run.len : len}};
    if ((rc = store_sweep_open(&o, &s->folder, files, 2, err))) goto out;
    rc = plan_copies(s, todo, n_todo, err);
out:
    free(text);
    agg_buf_destroy(&as_run);
    json_decref(manifest);
    return rc;
}
