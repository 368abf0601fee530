/* cli_data.c: `dperm data list | info NAME | check`: which real datasets are found where,
 * their shape after the default preprocessing, their class balance and feature ranges,
 * and whether their files match the published checksums.
 *
 * Exit status: 0; 2 for a usage error, for `info` on a dataset that is missing or does
 * not load, and for `check` when a found file's checksum differs from the published one
 * or a found dataset does not load (a corrupt file). Missing datasets are listed, not
 * errors, for list and check: most machines hold only some of them.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cli/cli.h"
#include "harness/sweep/data_cache.h"

static const char DATA_HELP[] =
    "usage: dperm data list|check [--data-dir DIR]\n"
    "       dperm data info NAME [--data-dir DIR]\n"
    "\n"
    "  list        every dataset: where it was found (or not), its shape after the default\n"
    "              preprocessing, and whether its files match the published checksums\n"
    "  info NAME   the preprocessed shape, class balance and feature ranges of NAME\n"
    "  check       verify the checksums (and that each found dataset loads)\n"
    "\n"
    "Datasets are searched in: --data-dir DIR, each folder of $DPERM_DATA (':'-separated),\n"
    "datasets/data (`make data`), /usr/share/datasets (Debian's dataset-fashion-mnist).\n";

/* Checksum state of a found dataset: "verified", "no published sum", "MISMATCH: file". */
static int checksum_state(const dp_data_info *info, const dp_data_found *f, char *buf,
                          size_t size, dp_err *err)
{
    int any = 0;
    snprintf(buf, size, "verified");
    if (f->archive) {
        snprintf(buf, size, "no published sum (archive; validated by format)");
        return 0;
    }
    for (size_t i = 0; i < info->n_files; i++) {
        if (!info->files[i].sha256 || !f->exact[i]) continue;
        char hex[65];
        int rc = dp_sha256_file(f->paths[i], hex, err);
        if (rc) return rc;
        any = 1;
        if (strcmp(hex, info->files[i].sha256) != 0) {
            snprintf(buf, size, "MISMATCH: %s", f->paths[i]);
            return 1;
        }
    }
    if (!any)
        snprintf(buf, size, "%s", strcmp(info->name, "credit_default") == 0
                                      ? "no published sum (CSV export of the .xls; format and "
                                        "30000 rows checked)"
                                      : "no published sum (format and row counts checked)");
    return 0;
}

static int parse(int argc, char **argv, const char **data_dir, int *first_arg)
{
    static const struct option longopts[] = {{"data-dir", required_argument, 0, 'd'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    *data_dir = NULL;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': *data_dir = optarg; break;
        case 'h': fputs(DATA_HELP, stdout); return -1;
        case ':': return cli_usage_error("data", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("data", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (*data_dir) {
        struct stat st;
        if (stat(*data_dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return cli_usage_error("data", "--data-dir %s is not a folder", *data_dir);
    }
    *first_arg = optind;
    return 0;
}

static int cmd_list(const dp_data_search *s, int check_only)
{
    size_t n;
    const dp_data_info *all = dp_data_list(&n);
    int status = EXIT_OK;
    char where[2048];
    dp_data_search_text(s, where, sizeof where);
    printf("searched: %s\n", where);
    printf("%-16s %-8s %-34s %-24s %s\n", "dataset", "status", "train/validation/test x features",
           "folder", "checksum");
    for (size_t i = 0; i < n; i++) {
        const dp_data_info *info = &all[i];
        dp_data_found f;
        dp_err err;
        if (dp_data_locate(info, s, &f, &err) != DP_OK) {
            printf("%-16s %-8s %-34s %-24s %s\n", info->name, "missing", "-", "-",
                   info->how_to_get);
            continue;
        }
        char sum[1200], shape[64] = "-";
        int rc = checksum_state(info, &f, sum, sizeof sum, &err);
        if (rc < 0) snprintf(sum, sizeof sum, "cannot read: %s", err.msg);
        if (rc != 0) status = EXIT_USAGE;
        dp_data_opts o;
        dp_data d;
        dp_data_opts_default(&o, info->name, NULL);
        o.fallback = 0;
        /* The same search finds the same folder first (dp_data_locate is deterministic). */
        if (dp_data_load(&o, s, &d, &err) == DP_OK) {
            snprintf(shape, sizeof shape, "%zu/%zu/%zu x %zu", d.train.n, d.validation.n,
                     d.test.n, d.train.d);
            dp_data_destroy(&d);
        } else {
            snprintf(shape, sizeof shape, "does not load");
            status = EXIT_USAGE;
            cli_print_error(&err);
        }
        printf("%-16s %-8s %-34s %-24s %s\n", info->name, "found", shape, f.dir, sum);
    }
    if (check_only && status == EXIT_OK) printf("check: every dataset found is verified or validated\n");
    return status;
}

static void ranges(const dp_dataset *ds, double *lo, double *hi, double *max_norm,
                   double *mean_norm)
{
    *lo = INFINITY, *hi = -INFINITY, *max_norm = 0, *mean_norm = 0;
    for (size_t i = 0; i < ds->n; i++) {
        double s = 0;
        for (size_t j = 0; j < ds->d; j++) {
            double v = ds->x[i * ds->d + j];
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
            s += v * v;
        }
        s = sqrt(s);
        *max_norm = s > *max_norm ? s : *max_norm;
        *mean_norm += s;
    }
    if (ds->n) *mean_norm /= (double)ds->n;
}

static int cmd_info(const char *name, const dp_data_search *s)
{
    dp_data_opts o;
    dp_err err;
    dp_err_clear(&err);
    if (!dp_data_find(name)) {
        size_t n;
        const dp_data_info *all = dp_data_list(&n);
        const char *names[32];
        for (size_t i = 0; i < n && i < 32; i++) names[i] = all[i].name;
        const char *sug = cfg_suggest(name, names, n);
        fprintf(stderr, "dperm data: unknown dataset '%s'%s%s%s; see `dperm data list`\n", name,
                sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
        return EXIT_USAGE;
    }
    dp_data_opts_default(&o, name, NULL);
    dp_data d;
    if (dp_data_load(&o, s, &d, &err) != DP_OK) {
        cli_print_error(&err);
        return EXIT_USAGE;
    }
    json_t *desc = data_cache_describe(&d, &err);
    printf("dataset %s", d.name);
    if (strcmp(d.name, d.requested) != 0) printf(" (fallback for %s)", d.requested);
    printf(", from %s\n", d.dir);
    const dp_data_info *info = dp_data_find(d.name);
    printf("  %s\n  source: %s; license: %s\n", info->description, info->source, info->license);
    printf("rows read %zu, dropped for missing values %zu\n", d.rows_read, d.rows_dropped);
    printf("shape: %d x %d x %d = %zu features per example\n", d.c, d.h, d.w, d.train.d);
    if (desc) {
        char *prep = json_dumps(json_object_get(desc, "preprocessing"), JSON_COMPACT);
        printf("preprocessing (defaults): %s\n", prep ? prep : "?");
        free(prep);
        json_t *files = json_object_get(desc, "files");
        for (size_t i = 0; i < json_array_size(files); i++) {
            json_t *f = json_array_get(files, i);
            printf("file %s\n  sha256 %s (published: %s)\n",
                   json_string_value(json_object_get(f, "path")),
                   json_string_value(json_object_get(f, "sha256")),
                   json_string_value(json_object_get(f, "published_sha256")));
        }
        json_decref(desc);
    }
    const dp_dataset *parts[3] = {&d.train, &d.validation, &d.test};
    const char *pname[3] = {"train", "validation", "test"};
    for (int p = 0; p < 3; p++) {
        const dp_dataset *ds = parts[p];
        if (ds->n == 0 && p == 1) continue;
        double lo, hi, mx, mean;
        ranges(ds, &lo, &hi, &mx, &mean);
        printf("%-10s %6zu rows; features in [%.4g, %.4g]; row l2 norm mean %.4g, max %.4g\n",
               pname[p], ds->n, lo, hi, mean, mx);
        if (ds->y) {
            size_t count[DP_DATA_MAX_CLASSES] = {0};
            for (size_t i = 0; i < ds->n; i++) count[ds->y[i]]++;
            printf("           classes:");
            for (int k = 0; k < d.n_classes; k++)
                printf(" %s %zu (%.1f%%)%s", d.class_names[k], count[k],
                       ds->n ? 100.0 * (double)count[k] / (double)ds->n : 0.0,
                       k + 1 < d.n_classes ? "," : "");
            putchar('\n');
        } else {
            double tlo = INFINITY, thi = -INFINITY, tm = 0;
            for (size_t i = 0; i < ds->n; i++) {
                tlo = ds->t[i] < tlo ? ds->t[i] : tlo;
                thi = ds->t[i] > thi ? ds->t[i] : thi;
                tm += ds->t[i];
            }
            printf("           target in [%.4g, %.4g], mean %.4g (scaled: (t - %.4g) / %.4g)\n",
                   tlo, thi, ds->n ? tm / (double)ds->n : 0.0, d.target_shift, d.target_scale);
        }
    }
    dp_data_destroy(&d);
    return EXIT_OK;
}

int cli_data(int argc, char **argv)
{
    const char *data_dir;
    int first = 1;
    int rc = parse(argc, argv, &data_dir, &first);
    if (rc) return rc < 0 ? EXIT_OK : rc;
    if (first >= argc) return cli_usage_error("data", "missing subcommand (list, info NAME, check)");
    const char *sub = argv[first];
    dp_data_search s;
    dp_data_search_init(&s, data_dir);
    if (!strcmp(sub, "list") || !strcmp(sub, "check")) {
        if (first + 1 < argc) return cli_usage_error("data", "unexpected argument '%s'", argv[first + 1]);
        return cmd_list(&s, !strcmp(sub, "check"));
    }
    if (!strcmp(sub, "info")) {
        if (first + 1 >= argc) return cli_usage_error("data", "info needs a dataset name");
        if (first + 2 < argc) return cli_usage_error("data", "unexpected argument '%s'", argv[first + 2]);
        return cmd_info(argv[first + 1], &s);
    }
    return cli_usage_error("data", "unknown subcommand '%s' (list, info NAME, check)", sub);
}
