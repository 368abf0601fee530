/* fuzz_svhn.c: libFuzzer target for the SVHN MAT-file reader (datasets/mat.c,
 * dp_svhn_read): the level-5 header, data element tags (normal and small), miMATRIX
 * subelements, miCOMPRESSED zlib streams, either byte order, plain or gzip.
 *
 * The input is two files, split at a 4-byte big-endian length prefix (fuzz_split): the
 * training file, then the test file (appended after it). The seeds are the fixtures of
 * tests/fixtures/svhn/, each as the training file with test-3.mat as the test file.
 */
#include <stdint.h>

#include "datasets/data_int.h"
#include "tests/fuzz/fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *train, *test;
    size_t n_train, n_test;
    fuzz_split(data, size, &train, &n_train, &test, &n_test);
    char train_path[FUZZ_FILE_PATH_MAX], test_path[FUZZ_FILE_PATH_MAX];
    fuzz_file(0, train, n_train, train_path);
    fuzz_file(1, test, n_test, test_path);
    dp_raw raw = {0};
    dp_err err;
    (void)dp_svhn_read(&raw, train_path, test_path, &err);
    dp_raw_destroy(&raw);
    return 0;
}
