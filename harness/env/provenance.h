/* provenance.h: what a run record says about where and with what it was computed. */
#ifndef DPERM_PROVENANCE_H
#define DPERM_PROVENANCE_H

#include <stdio.h>

#include <jansson.h>

#define DPERM_VERSION "0.1.0"

/* "0.1.0 (git abc123def456-dirty)". Static storage. */
const char *dperm_version_string(void);
/* The git revision compiled in ("unknown" outside a checkout). */
const char *dperm_git_revision(void);

/* {"dperm_version", "git_revision", "blas_core", "blas_config", "libraries": {...},
 *  "host": {...}}: a new object, or NULL on ENOMEM. */
json_t *provenance_json(void);

/* Multi-line text for `dperm --version`: version, revision, each library's own string. */
void provenance_print_versions(FILE *out);

/* Current UTC time as ISO 8601 ("2026-11-22T01:02:03Z"), into buf (>= 21 bytes). */
void provenance_utc_now(char *buf, size_t size);

#endif
