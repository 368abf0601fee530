/* html.h: the HTML side of `dperm report`: escaping, the page report.html of one
 * experiment, and the index of a results folder's experiments. Pages are
 * self-contained (inline style, images by relative path, no script, no network), so
 * they read offline from the file system.
 */
#ifndef DPERM_HTML_H
#define DPERM_HTML_H

#include <stddef.h>

#include "algorithms/base/err.h"
#include "harness/report/aggregate.h"

/* Append s to b with &, <, >, " and ' escaped. Can't fail (agg_buf records OOM). */
void html_escape(agg_buf *b, const char *s);

/* The page head (doctype, charset, title escaped, the shared style) and foot. */
void html_page_begin(agg_buf *b, const char *title);
void html_page_end(agg_buf *b);

/* Write PARENT/index.html atomically: one link per folder PARENT/X holding
 * X/report.html, and per PARENT/X/Y when X is itself a results root (results/quick/ in
 * results/), with the experiment's paper, scale, date and fidelity line when its files
 * say them. *path (caller frees) is the file written. Nothing is written
 * (0, *path NULL) over an index.html that dperm did not write (skipped[0..n), when given,
 * then says so), nor in a folder without STORE_RESULTS_MARK (store/folder.h: `dperm run` leaves it in
 * the folder holding an experiment's folder when it created that folder, or when it is
 * the default results/) that has no index yet: a
 * user's own files are never replaced.
 * Errors: DP_EIO (folder unreadable, write failed), DP_ENOMEM. */
int html_write_index(const char *parent, char **path, char *skipped, size_t n, dp_err *err);

#endif
