/* fuzz_runs_jsonl.c: libFuzzer target for the runs.jsonl reader (harness/store/store.c,
 * store_load_file) and the combining of records that every reader of a results folder
 * applies (harness/store/merge.c, merge_records): the input is the file, records that load are
 * merged as store_load does, with "runs.jsonl:N" origins so conflicts name their places.
 */
#include <stdint.h>

#include <jansson.h>

#include "harness/store/merge.h"
#include "harness/store/store.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[FUZZ_FILE_PATH_MAX];
    fuzz_file(0, data, size, path);
    json_t *records = NULL;
    dp_err err;
    if (store_load_file(path, &records, &err) != 0) return 0;
    json_t *origins = json_array();
    for (size_t i = 0; origins && i < json_array_size(records); i++)
        json_array_append_new(origins, json_sprintf("runs.jsonl:%zu", i + 1));
    json_t *merged = NULL;
    merge_stats stats;
    if (origins && merge_records(records, origins, &merged, &stats, &err) == 0)
        json_decref(merged);
    json_decref(origins);
    json_decref(records);
    return 0;
}
