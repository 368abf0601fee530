/* err.h: the error value every dperm library function fills instead of printing.
 *
 * Library code never prints and never exits (house rule 7): a function returns 0 on
 * success or a negative DP_E* code, and fills a caller-owned dp_err with a message and,
 * when the error is about a place in an input file, that place (1-based line/column,
 * libyaml's problem_mark idea). Only harness/ turns a dp_err into a line on stderr and
 * an exit status.
 *
 * This is a leaf header: it includes nothing else of the project.
 */
#ifndef DPERM_ERR_H
#define DPERM_ERR_H

#include <stddef.h>

/* Result codes: stable small integers, one meaning each (SQLite's catalogue). */
enum {
    DP_OK = 0,
    DP_EINVAL = -1,    /* a parameter is out of its domain (caller error) */
    DP_ENOMEM = -2,    /* an allocation failed */
    DP_EIO = -3,       /* reading or writing a file failed */
    DP_EDATA = -4,     /* an input file is malformed (dataset, runs.jsonl) */
    DP_ECONFIG = -5,   /* an experiment config is malformed or inconsistent */
    DP_EDIVERGED = -6, /* training produced NaN or inf */
    DP_EPRIVACY = -7,  /* a privacy precondition is violated or a target unreachable */
    DP_ESTATE = -8     /* an operation conflicts with what is on disk (e.g. results exist) */
};

#define DP_ERR_MSG_MAX 512
#define DP_ERR_FILE_MAX 256

typedef struct dp_err {
    int code;                     /* DP_OK when nothing went wrong */
    char msg[DP_ERR_MSG_MAX];     /* one line, no trailing newline, no "dperm:" prefix */
    char hint[DP_ERR_MSG_MAX];    /* optional: what the user can do about it ("" if none) */
    char file[DP_ERR_FILE_MAX];   /* input file the error is about, "" if none */
    int line, col;                /* 1-based position in file, 0 if unknown */
} dp_err;

/* Reset to "no error". Safe on a NULL pointer. */
void dp_err_clear(dp_err *e);

/* Record an error without a position and return code, so callers can write
 * `return dp_err_set(e, DP_EINVAL, "...", ...)`. e may be NULL (the code is still returned). */
int dp_err_set(dp_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Record an error at FILE:LINE:COL (1-based; 0 means unknown) and return code. */
int dp_err_set_at(dp_err *e, int code, const char *file, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Attach a hint ("run `make data` or pass --data-dir") to an error already set. */
void dp_err_hint(dp_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Short stable name of a code ("invalid argument", "config error", ...). Never NULL. */
const char *dp_err_name(int code);

#endif
