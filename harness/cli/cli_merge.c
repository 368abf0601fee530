/* cli_merge.c: `dperm merge DIR`: combine runs.jsonl and the shard files
 * runs.<I>-of-<N>.jsonl into one runs.jsonl (one record per run id, in grid order) and
 * rewrite summary.csv; say which runs of the sweep manifest are missing or failed.
 *
 * The shard files are kept: the merged runs.jsonl holds all their records, readers
 * combine duplicates (store.h), and a shard still running (or re-submitted) keeps
 * appending to its own file, so no record can be lost by merging too early.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/store/record.h"
#include "harness/cli/cli.h"
#include "harness/store/store.h"
#include "harness/store/summary.h"

static const char MERGE_HELP[] =
    "usage: dperm merge DIR [-q]\n"
    "\n"
    "Combine DIR/runs.jsonl and the shard files DIR/runs.I-of-N.jsonl (written by\n"
    "`dperm run --shard I/N`) into DIR/runs.jsonl, one record per run in grid order, and\n"
    "rewrite DIR/summary.csv. Records of one run with equal results are kept once (results:\n"
    "everything but provenance and timings); a failed record gives way to a successful\n"
    "retry; two different results for one run are refused. Runs of the sweep manifest\n"
    "(DIR/sweep.json) without a record are listed. The shard files are left in place.\n"
    "\n"
    "options:\n"
    "  -q, --quiet   print only problems\n"
    "\n"
    "exit status: 0 every run of the sweep recorded and none failed; 1 runs missing or\n"
    "failed (the merged file is written all the same); 2 usage error, unreadable records, or\n"
    "two different results for one run (nothing written).\n";

static json_int_t index_of(json_t *rec)
{
    json_t *i = json_object_get(rec, "index");
    return json_is_integer(i) ? json_integer_value(i) : LLONG_MAX;
}

/* Grid order: the order of a single-machine sweep's --dry-run, whatever shard ran what. */
static int by_index_then_id(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t i = index_of(x), j = index_of(y);
    if (i != j) return i < j ? -1 : 1;
    return strcmp(json_string_value(json_object_get(x, "id")) ?: "",
                  json_string_value(json_object_get(y, "id")) ?: "");
}

/* runs.jsonl text of the records in grid order into *buf. 0 or DP_ENOMEM. */
static int merged_text(json_t *records, char **buf, size_t *len, dp_err *err)
{
    size_t n = json_array_size(records);
    json_t **sorted = malloc((n ? n : 1) * sizeof *sorted);
    FILE *f = open_memstream(buf, len);
    int bad = !sorted || !f;
    for (size_t i = 0; !bad && i < n; i++) sorted[i] = json_array_get(records, i);
    if (!bad) qsort(sorted, n, sizeof *sorted, by_index_then_id);
    for (size_t i = 0; !bad && i < n; i++) {
        char *line = store_json_dumps(sorted[i], 0);
        if (!line) bad = 1;
        else fprintf(f, "%s\n", line);
        free(line);
    }
    free(sorted);
    if (f && fclose(f) != 0) bad = 1;
    if (bad) {
        if (f) free(*buf);
        *buf = NULL;
        return dp_err_set(err, DP_ENOMEM, "out of memory merging records");
    }
    return 0;
}

/* Ids of the manifest with no record, or only a failed one: listed (the first few) on
 * stderr. Returns how many. */
static size_t report_missing(const char *dir, json_t *records, size_t *n_manifest, int quiet)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    json_t *man = json_load_file(path, 0, NULL);
    json_t *ids = json_object_get(man, "ids");
    *n_manifest = json_array_size(ids);
    json_t *have = json_object(); /* id -> 1 for recorded runs that did not fail */
    for (size_t r = 0; r < json_array_size(records); r++) {
        json_t *rec = json_array_get(records, r);
        const char *id = json_string_value(json_object_get(rec, "id"));
        if (id && !record_failed(rec)) json_object_set_new(have, id, json_true());
    }
    size_t missing = 0;
    enum { SHOW = 10 };
    char list[SHOW * 18 + 8] = "";
    for (size_t i = 0; i < json_array_size(ids); i++) {
        const char *id = json_string_value(json_array_get(ids, i));
        if (!id || json_object_get(have, id)) continue;
        if (missing < SHOW) {
            strcat(list, " ");
            strncat(list, id, 17);
        }
        missing++;
    }
    if (missing && !quiet)
        fprintf(stderr, "dperm: %zu of %zu runs of the sweep have no successful record:%s%s\n",
                missing, *n_manifest, list, missing > SHOW ? " ..." : "");
    if (!man && !quiet)
        fprintf(stderr, "dperm: note: %s not found; missing runs cannot be listed\n", path);
    json_decref(have);
    json_decref(man);
    return missing;
}

int cli_merge(int argc, char **argv)
{
    static const struct option longopts[] = {{"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    int quiet = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case 'h': fputs(MERGE_HELP, stdout); return EXIT_OK;
        default: return cli_usage_error("merge", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("merge", "missing the results folder DIR");
    if (optind + 1 < argc) return cli_usage_error("merge", "unexpected argument '%s'", argv[optind + 1]);
    const char *dir = argv[optind];

    dp_err err;
    dp_err_clear(&err);
    json_t *records = NULL;
    store_load_info info;
    char *buf = NULL;
    size_t len = 0;
    char path[PATH_MAX];
    int rc = store_load_stats(dir, &records, &info, &err);
    if (rc == 0) rc = merged_text(records, &buf, &len, &err);
    if (rc == 0) {
        /* runs.jsonl is replaced atomically by a superset of its own records: a crash
         * here leaves either the old file or the merged one. */
        snprintf(path, sizeof path, "%s/runs.jsonl", dir);
        rc = store_write_atomic(path, buf, len, &err);
    }
    free(buf);
    if (rc == 0) rc = summary_write(dir, &err);
    if (rc) {
        cli_print_error(&err);
        json_decref(records);
        return rc == DP_ENOMEM ? EXIT_RUNS_FAILED : EXIT_USAGE;
    }
    size_t n = json_array_size(records), n_failed = 0, n_manifest = 0;
    for (size_t r = 0; r < n; r++) n_failed += record_failed(json_array_get(records, r));
    size_t missing = report_missing(dir, records, &n_manifest, quiet);
    if (!quiet) {
        printf("dperm: merged %zu records from %zu file%s into %s/runs.jsonl: %zu runs "
               "(%zu failed)",
               info.n_read, info.n_files, info.n_files == 1 ? "" : "s", dir, n, n_failed);
        if (info.n_duplicates || info.n_superseded)
            printf("; dropped %zu duplicate%s and %zu failed attempt%s of runs that later succeeded",
                   info.n_duplicates, info.n_duplicates == 1 ? "" : "s", info.n_superseded,
                   info.n_superseded == 1 ? "" : "s");
        printf("\n");
        if (n_manifest)
            printf("dperm: %zu of %zu runs of the sweep recorded%s\n", n_manifest - missing,
                   n_manifest, missing ? "; `dperm run CONFIG --resume` (or the shards with "
                                         "--resume) runs the rest" : "");
    }
    json_decref(records);
    return missing || n_failed ? EXIT_RUNS_FAILED : EXIT_OK;
}
