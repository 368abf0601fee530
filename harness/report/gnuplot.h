/* gnuplot.h: running the gnuplot program on a script and turning its failure into a
 * dp_err. Used by plot.c (and report.c, which checks for gnuplot before writing anything);
 * the one place of dperm that starts gnuplot.
 */
#ifndef DPERM_GNUPLOT_H
#define DPERM_GNUPLOT_H

#include <stddef.h>

#include "algorithms/base/err.h"

/* 1 when an executable `gnuplot` is on PATH, else 0. Can't fail. */
int gnuplot_available(void);

/* Make an image: run `gnuplot -e "fmt='FMT'; out='TMP'" SCRIPT` with `dir` as working
 * folder (stdin and stdout on /dev/null, the first 4 KiB of stderr kept), where TMP is a
 * dot-file in dir that the script writes (`set output out`). Returns 0 with its bytes in
 * *image (length *len, caller frees), TMP removed, and *note NULL or (caller frees) the
 * message of what gnuplot printed while succeeding (a warning such as points dropped on
 * a log axis). Errors, all DP_EIO (DP_ENOMEM aside), with TMP removed: gnuplot cannot be
 * started (hint: install gnuplot-nox), it failed (the message is its own, placed at
 * DIR/SCRIPT:LINE when it names a line of the script), or it wrote no image. */
int gnuplot_render(const char *dir, const char *script, const char *fmt, char **image,
                   size_t *len, char **note, dp_err *err);

#endif
