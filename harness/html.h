/* html.h: the HTML side of `dperm report`: escaping, the page report.html of one
 * experiment, and the index of a results folder's experiments. Pages are
 * self-contained (inline style, images by relative path, no script, no network), so
 * they read offline from the file system.
 */
#ifndef DPERM_HTML_H
#define DPERM_HTML_H

#include <stddef.h>

#include "../algorithms/base/err.h"
#include "aggregate.h"

/* Append s to b with &, <, >, " and ' escaped. Can't fail (agg_buf records OOM). */
void html_escape(agg_buf *b, const char *s);

/* The page head (doctype, charset, title escaped, the shared style) and foot. */
void html_page_begin(agg_buf *b, const char *title);
void html_page_end(agg_buf *b);

/* Write PARENT/index.html atomically: one link per folder PARENT/X holding
 * X/report.html, with the experiment's name, run counts and fidelity line when
 * X/fidelity.json says them. *path (caller frees) is the file written.
 * Errors: DP_EIO (folder unreadable, write failed), DP_ENOMEM. */
int html_write_index(const char *parent, char **path, dp_err *err);

#endif
