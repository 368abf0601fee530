/* fuzz_file.h: a fuzz input as a file the readers can open by path, kept in memory.
 *
 * The dataset readers and the runs.jsonl reader take paths (they open plain and gzip files
 * through zlib, or read whole files). A target hands them /proc/self/fd/N of an anonymous
 * memory file (memfd_create): nothing is written to disk, and rewriting the same few
 * memory files for every input leaves no state from one input to the next.
 */
#ifndef DPERM_FUZZ_FILE_H
#define DPERM_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_FILE_SLOTS 8
#define FUZZ_FILE_PATH_MAX 64

/* Make memory file `slot` (0..FUZZ_FILE_SLOTS-1) hold exactly data[0..size) and write its
 * path into path. Aborts when the memory file cannot be made or written: a harness that
 * cannot feed its input must not report that input as passing. */
void fuzz_file(int slot, const uint8_t *data, size_t size, char path[FUZZ_FILE_PATH_MAX]);

/* Split data at a 4-byte big-endian length prefix: *first gets the next
 * min(prefix, rest) bytes, *second what follows. With fewer than 4 bytes both are empty
 * (first) and the whole input (second). Lets one input carry two files. */
void fuzz_split(const uint8_t *data, size_t size, const uint8_t **first, size_t *n_first,
                const uint8_t **second, size_t *n_second);

#endif
