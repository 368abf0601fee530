/* privacy_note.h: the line `dperm report` writes under a table or figure whose axis is
 * epsilon: the axis is the claimed epsilon (what the runs were calibrated to), and beside
 * it what a valid accountant gives for what ran (epsilon_tight) and the verdict, per
 * algorithm. Private to the report module.
 */
#ifndef DPERM_PRIVACY_NOTE_H
#define DPERM_PRIVACY_NOTE_H

#include <jansson.h>
#include <stddef.h>

/* 1 when the config path is the epsilon axis ("epsilon"). */
int privacy_note_is_epsilon(const char *path);

/* The note for the ok records sel[0..n) (malloc'd, the caller frees), or NULL when none of
 * them is a private run with a recorded privacy verdict (or out of memory). */
char *privacy_note(json_t *const *sel, size_t n);

#endif
