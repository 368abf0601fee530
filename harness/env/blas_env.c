/* blas_env.c: CPU detection and the one re-exec that lets OpenBLAS load with the right
 * kernels (see blas_env.h for why). */
#include "harness/env/blas_env.h"

#include <stdlib.h>
#include <unistd.h>

const char *blas_env_detect_coretype(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
    if (__builtin_cpu_supports("avx2")) return "Haswell";
#endif
    return NULL;
}

void blas_env_setup(char **argv)
{
    if (getenv("DPERM_BLAS_ENV_DONE")) return; /* already re-executed once */
    int change = 0;
    const char *core = blas_env_detect_coretype();
    if (core && !getenv("OPENBLAS_CORETYPE")) {
        setenv("OPENBLAS_CORETYPE", core, 1);
        change = 1;
    }
    if (!getenv("OPENBLAS_NUM_THREADS")) {
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        change = 1;
    }
    /* OpenBLAS's idle threads spin for 2^28 cycles (about 0.1 s) after each call before
     * sleeping, holding the cores that DP-SGD's noise generation needs between GEMMs;
     * 2^10 cycles measured no slower for GEMM and twice as fast for the noise. */
    if (!getenv("OPENBLAS_THREAD_TIMEOUT")) {
        setenv("OPENBLAS_THREAD_TIMEOUT", "10", 1);
        change = 1;
    }
    if (!change) return;
    setenv("DPERM_BLAS_ENV_DONE", "1", 1);
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc): carry on with the library's own choice. */
}

int blas_env_threads_per_worker(int workers)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    if (workers < 1) workers = 1;
    int t = (int)(cores / workers);
    return t < 1 ? 1 : t;
}
