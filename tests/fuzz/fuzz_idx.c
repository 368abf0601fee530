/* fuzz_idx.c: libFuzzer target for the IDX reader of MNIST and Fashion-MNIST
 * (datasets/idx.c, dp_idx_read), plain or gzip (zlib reads both).
 *
 * The input is two files, split at a 4-byte big-endian length prefix (fuzz_split): the
 * idx3 images, then the idx1 labels. When they load, the same pair is read a second time
 * into the same table, as the test files are appended after the training files.
 */
#include <stdint.h>

#include "datasets/data_int.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *images, *labels;
    size_t n_images, n_labels;
    fuzz_split(data, size, &images, &n_images, &labels, &n_labels);
    char images_path[FUZZ_FILE_PATH_MAX], labels_path[FUZZ_FILE_PATH_MAX];
    fuzz_file(0, images, n_images, images_path);
    fuzz_file(1, labels, n_labels, labels_path);
    dp_raw raw = {0};
    dp_err err;
    if (dp_idx_read(&raw, images_path, labels_path, &err) == 0)
        (void)dp_idx_read(&raw, images_path, labels_path, &err);
    dp_raw_destroy(&raw);
    return 0;
}
