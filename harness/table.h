/* table.h: the tables of `dperm report`: one Markdown and one CSV file per table spec.
 * Private to report.c; report.h describes a table spec and the files.
 */
#ifndef DPERM_TABLE_H
#define DPERM_TABLE_H

#include <stddef.h>

#include <jansson.h>

#include "../algorithms/base/err.h"
#include "aggregate.h"

/* Which files to write. */
enum { TABLE_MD = 1, TABLE_CSV = 2 };

/* Build table `spec` (one entry of report.tables; `number` is its 1-based position, for
 * the default name tableN) from the records of recs[0..n) matching its `where`: writes
 * DIR/tables/NAME.md and/or NAME.csv as `formats` asks, and appends the table (always,
 * whatever the formats) to out->md. Errors: DP_ECONFIG (malformed entry), DP_EIO,
 * DP_ENOMEM; files written before an error stay listed in out->files. */
int table_write(agg_out *out, json_t *const *recs, size_t n, json_t *spec, size_t number,
                unsigned formats, dp_err *err);

#endif
