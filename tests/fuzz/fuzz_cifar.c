/* fuzz_cifar.c: libFuzzer target for the CIFAR-10 binary reader (datasets/cifar.c): the
 * batch files (dp_cifar_read_files) and cifar-10-binary.tar.gz (dp_cifar_read_tar, its tar
 * headers, member names, sizes and padding), plain or gzip.
 *
 * The first byte chooses: even, the rest is split at a 4-byte big-endian length prefix
 * (fuzz_split) into a training batch and a test batch; odd, the rest is the archive.
 */
#include <stdint.h>

#include "datasets/data_int.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    dp_raw raw = {0};
    dp_err err;
    if (data[0] & 1) {
        char path[FUZZ_FILE_PATH_MAX];
        fuzz_file(0, data + 1, size - 1, path);
        (void)dp_cifar_read_tar(&raw, path, &err);
    } else {
        const uint8_t *train, *test;
        size_t n_train, n_test;
        fuzz_split(data + 1, size - 1, &train, &n_train, &test, &n_test);
        char train_path[FUZZ_FILE_PATH_MAX], test_path[FUZZ_FILE_PATH_MAX];
        fuzz_file(0, train, n_train, train_path);
        fuzz_file(1, test, n_test, test_path);
        const char *const paths[] = {train_path, test_path};
        (void)dp_cifar_read_files(&raw, paths, 1, 1, &err);
    }
    dp_raw_destroy(&raw);
    return 0;
}
