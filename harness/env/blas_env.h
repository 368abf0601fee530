/* blas_env.h: choosing OpenBLAS kernels and threads before the library initialises.
 *
 * Debian's OpenBLAS 0.3.21 does not recognise the AVX-512 Xeons of this project's machines
 * and falls back to generic SSE3 kernels (about 4x slower GEMM). OpenBLAS reads
 * OPENBLAS_CORETYPE, OPENBLAS_NUM_THREADS and OPENBLAS_THREAD_TIMEOUT only when it is
 * loaded, i.e. before main(), so dperm detects the CPU, sets them, and re-executes itself
 * once. A user's own values always win. OpenBLAS runs one thread (dp_set_threads keeps it
 * there: its threaded GEMMs change the last bits with the thread count, vec.c); dperm's
 * own threads, set per worker process after fork, split the large GEMMs, the lanes and
 * the noise, so workers x threads never exceeds the cores. The thread timeout matters only
 * to a user who sets OPENBLAS_NUM_THREADS for other programs: idle BLAS threads sleep
 * after 2^10 cycles instead of spinning for 2^28.
 */
#ifndef DPERM_BLAS_ENV_H
#define DPERM_BLAS_ENV_H

/* Call first thing in main(). May not return (re-exec). Harmless if exec fails. */
void blas_env_setup(char **argv);

/* The kernel name dperm would choose for this CPU ("SkylakeX", "Haswell") or NULL. */
const char *blas_env_detect_coretype(void);

/* Threads (dp_set_threads) each of `workers` processes should use so the cores are not
 * oversubscribed. */
int blas_env_threads_per_worker(int workers);

#endif
