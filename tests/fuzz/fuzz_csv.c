/* fuzz_csv.c: libFuzzer target for the delimited-text readers (datasets/csv.c, the CSV
 * line reader, and datasets/uci.c, the UCI schemas: separators, header rows, quotes,
 * missing markers, categorical levels, labels and regression targets).
 *
 * The first byte picks one of the catalogue's CSV datasets (adult, bank, ..., iris); the
 * rest is that dataset's files in catalogue order, each but the last cut off at a 4-byte
 * big-endian length prefix (fuzz_split). The published row counts are not checked here
 * (they are zeroed in a copy of the catalogue entry): otherwise nearly every input would
 * stop at the first file's count and the later files and the level coding would go
 * unexplored. That check is a comparison covered by the unit tests.
 */
#include <stdint.h>
#include <string.h>

#include "datasets/data_int.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    size_t n_info, n_csv = 0;
    const dp_data_info *all = dp_data_list(&n_info), *csv[64];
    for (size_t i = 0; i < n_info && n_csv < 64; i++)
        if (all[i].format == DP_FMT_CSV) csv[n_csv++] = &all[i];
    if (n_csv == 0) return 0;
    dp_data_info info = *csv[data[0] % n_csv];
    if (info.n_files == 0 || info.n_files > FUZZ_FILE_SLOTS) return 0;
    dp_data_found found;
    memset(&found, 0, sizeof found);
    const uint8_t *rest = data + 1;
    size_t n_rest = size - 1;
    for (size_t f = 0; f < info.n_files; f++) {
        const uint8_t *part = rest;
        size_t n_part = n_rest;
        if (f + 1 < info.n_files) fuzz_split(rest, n_rest, &part, &n_part, &rest, &n_rest);
        char path[FUZZ_FILE_PATH_MAX];
        fuzz_file((int)f, part, n_part, path);
        memcpy(found.paths[f], path, sizeof path);
        info.files[f].rows = 0;
    }
    dp_raw raw;
    dp_err err;
    if (dp_uci_read(&raw, &info, &found, &err) == 0) dp_raw_destroy(&raw);
    return 0;
}
