/* rng_int.h: what rng.c shares with noise.c, the bulk Gaussian noise kernel; nothing
 * outside algorithms/base includes it. */
#ifndef DPERM_RNG_INT_H
#define DPERM_RNG_INT_H

#include <stdint.h>

#include "algorithms/base/rng.h"

/* The ziggurat's tables (rng.c): a 64-bit word u gives layer idx = u & 0xff, sign bit
 * (u >> 8) & 1 and magnitude m = (u >> 9) & (2^52 - 1); when m < dp_zig_ki[idx] the normal
 * is +-m * dp_zig_wi[idx] at once (about 99% of words). Valid after dp_zig_tables(). */
extern uint64_t dp_zig_ki[256];
extern double dp_zig_wi[256];

/* Build the tables once per process (thread-safe); cheap after the first call. */
void dp_zig_tables(void);

/* The normal whose first ziggurat trial is the word u, rejected trials going on with
 * draws from r: exactly dp_rng_gaussian's algorithm with its first word given. */
double dp_zig_finish(dp_rng *r, uint64_t u);

#endif
