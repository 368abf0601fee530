/* err.c: filling dp_err values (see err.h). */
#include "algorithms/base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dp_err_clear(dp_err *e)
{
    if (!e) return;
    memset(e, 0, sizeof *e);
}

static void vset(dp_err *e, int code, const char *fmt, va_list ap)
{
    e->code = code;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    e->hint[0] = '\0';
}

int dp_err_set(dp_err *e, int code, const char *fmt, ...)
{
    if (!e) return code;
    va_list ap;
    va_start(ap, fmt);
    vset(e, code, fmt, ap);
    va_end(ap);
    e->file[0] = '\0';
    e->line = e->col = 0;
    return code;
}

int dp_err_set_at(dp_err *e, int code, const char *file, int line, int col,
                  const char *fmt, ...)
{
    if (!e) return code;
    va_list ap;
    va_start(ap, fmt);
    vset(e, code, fmt, ap);
    va_end(ap);
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->col = col;
    return code;
}

void dp_err_hint(dp_err *e, const char *fmt, ...)
{
    if (!e) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->hint, sizeof e->hint, fmt, ap);
    va_end(ap);
}

const char *dp_err_name(int code)
{
    switch (code) {
    case DP_OK: return "ok";
    case DP_EINVAL: return "invalid argument";
    case DP_ENOMEM: return "out of memory";
    case DP_EIO: return "I/O error";
    case DP_EDATA: return "malformed data";
    case DP_ECONFIG: return "config error";
    case DP_EDIVERGED: return "diverged";
    case DP_EPRIVACY: return "privacy error";
    case DP_ESTATE: return "conflicting state";
    default: return "unknown error";
    }
}
