/* summary.h: DIR/summary.csv, one flat row per run record, for spreadsheets and pandas.
 * Columns: id, status, message, every config path (dotted, e.g. train.lr.a), then every
 * metric as metrics.NAME. Rewritten atomically from runs.jsonl. */
#ifndef DPERM_SUMMARY_H
#define DPERM_SUMMARY_H

#include "algorithms/base/err.h"

int summary_write(const char *dir, dp_err *err);

#endif
