/* fuzz_file.c: fuzz inputs as in-memory files (fuzz_file.h). */
#include "tests/fuzz/fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* One memory file per slot, made on first use and kept for the process: the fuzzer calls
 * a target millions of times, and reopening would cost more than the reader. */
static int slot_fd[FUZZ_FILE_SLOTS] = {-1, -1, -1, -1, -1, -1, -1, -1};

void fuzz_file(int slot, const uint8_t *data, size_t size, char path[FUZZ_FILE_PATH_MAX])
{
    if (slot < 0 || slot >= FUZZ_FILE_SLOTS) abort();
    if (slot_fd[slot] < 0 && (slot_fd[slot] = memfd_create("dperm-fuzz", MFD_CLOEXEC)) < 0) {
        perror("fuzz_file: memfd_create");
        abort();
    }
    int fd = slot_fd[slot];
    if (ftruncate(fd, 0) != 0) {
        perror("fuzz_file: ftruncate");
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0) {
            perror("fuzz_file: pwrite");
            abort();
        }
        done += (size_t)w;
    }
    snprintf(path, FUZZ_FILE_PATH_MAX, "/proc/self/fd/%d", fd);
}

void fuzz_split(const uint8_t *data, size_t size, const uint8_t **first, size_t *n_first,
                const uint8_t **second, size_t *n_second)
{
    if (size < 4) {
        *first = data;
        *n_first = 0;
        *second = data;
        *n_second = size;
        return;
    }
    size_t want = (size_t)data[0] << 24 | (size_t)data[1] << 16 | (size_t)data[2] << 8 | data[3];
    size_t rest = size - 4;
    *n_first = want < rest ? want : rest;
    *first = data + 4;
    *second = data + 4 + *n_first;
    *n_second = rest - *n_first;
}
