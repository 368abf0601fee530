/* replay_main.c: a plain main() that feeds files to a fuzz target's LLVMFuzzerTestOneInput,
 * so `make test` replays the seed corpora and every crash file found so far without
 * libFuzzer. Built with -fsanitize=address,undefined: any report aborts the program.
 *
 * Usage: replay_TARGET DIR_OR_FILE...  (a directory: every regular file in it, sorted by
 * name so a failure is reproducible; a missing directory is an empty one, since a target
 * may have no crash files yet). Prints how many inputs ran; exit 0 when all returned.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                fprintf(stderr, "replay: out of memory reading %s\n", path);
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        return -1;
    }
    /* A copy of exactly n bytes, as libFuzzer passes: a read past the input's end then
     * lands outside the allocation, where ASan sees it. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
    long n_inputs = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            if (errno == ENOENT) continue;
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed |= replay_file(argv[i]) != 0;
            n_inputs++;
            continue;
        }
        struct dirent **names;
        int n = scandir(argv[i], &names, NULL, by_name);
        if (n < 0) {
            fprintf(stderr, "replay: cannot list %s: %s\n", argv[i], strerror(errno));
            return 2;
        }
        for (int k = 0; k < n; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && names[k]->d_name[0] != '.') {
                failed |= replay_file(path) != 0;
                n_inputs++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %ld inputs\n", n_inputs);
    return failed ? 1 : 0;
}
