/* provenance.c: versions of dperm and of the linked libraries, BLAS kernels, host.
 * Every run record carries this (DESIGN.md: provenance), so a number can be traced to the
 * code, libraries and machine that produced it. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <fftw3.h>
#include <nettle/version.h>
#include <yaml.h>
#include <zlib.h>

#include "algorithms/base/vec.h"
#include "harness/env/provenance.h"

const char *dperm_version_string(void)
{
    static char buf[128];
    if (!buf[0]) snprintf(buf, sizeof buf, "%s (git %s)", DPERM_VERSION, dperm_git_revision());
    return buf;
}

void provenance_utc_now(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The CPU model line of /proc/cpuinfo, or "" where there is none. */
static void cpu_model(char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) break;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, size, "%s", colon);
        break;
    }
    fclose(f);
}

json_t *provenance_json(void)
{
    struct utsname u;
    char cpu[256], nettle[32];
    if (uname(&u) != 0) memset(&u, 0, sizeof u);
    cpu_model(cpu, sizeof cpu);
    snprintf(nettle, sizeof nettle, "%d.%d", nettle_version_major(), nettle_version_minor());
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s}, "
                     "s:{s:s, s:s, s:s, s:s, s:I}}",
                     "dperm_version", DPERM_VERSION,
                     "git_revision", dperm_git_revision(),
                     "blas_core", dp_blas_corename(),
                     "blas_config", dp_blas_config(),
                     "libraries",
                       "fftw", fftw_version,
                       "libyaml", yaml_get_version_string(),
                       "jansson", JANSSON_VERSION,
                       "zlib", zlibVersion(),
                       "nettle", nettle,
                     "host",
                       "name", u.nodename, "system", u.sysname, "release", u.release,
                       "cpu", cpu, "cores", (json_int_t)ncpu);
}

void provenance_print_versions(FILE *out)
{
    fprintf(out, "dperm %s\n", dperm_version_string());
    fprintf(out, "  OpenBLAS %s (kernels: %s)\n", dp_blas_config(), dp_blas_corename());
    fprintf(out, "  %s\n", fftw_version);
    fprintf(out, "  libyaml %s\n", yaml_get_version_string());
    fprintf(out, "  jansson %s\n", JANSSON_VERSION);
    fprintf(out, "  zlib %s\n", zlibVersion());
    fprintf(out, "  nettle %d.%d\n", nettle_version_major(), nettle_version_minor());
}
