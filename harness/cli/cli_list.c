/* cli_list.c: `dperm list algorithms|models|datasets|accountants`. */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/registry.h"

/* Names in one column as wide as the longest (objective_perturbation is 22). */
static void print_table(const registry *r)
{
    int w = 0;
    size_t n = r->count();
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(r->entry(i).name);
        if (len > w) w = len;
    }
    printf("%s:\n", r->what);
    for (size_t i = 0; i < n; i++) {
        registry_entry e = r->entry(i);
        printf("  %-*s  %s\n  %-*s    source: %s\n", w, e.name, e.description, w, "", e.source);
        if (e.neighbours) printf("  %-*s    neighbours: %s\n", w, "", e.neighbours);
    }
}

int cli_list(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        puts("usage: dperm list [algorithms|models|datasets|accountants]\n\n"
             "Print what a config can name, with a description and source of each.\n"
             "Without an argument, every table.");
        return EXIT_OK;
    }
    if (argc > 2) return cli_usage_error("list", "unexpected argument '%s'", argv[2]);
    if (argc == 1) {
        for (const registry *const *r = registry_all(); *r; r++) {
            print_table(*r);
            if (r[1]) putchar('\n');
        }
        return EXIT_OK;
    }
    const registry *r = registry_find(argv[1]);
    if (!r)
        return cli_usage_error("list", "unknown table '%s' (algorithms, models, datasets, accountants)",
                               argv[1]);
    print_table(r);
    return EXIT_OK;
}
