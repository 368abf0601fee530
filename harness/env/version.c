/* version.c: the git revision, compiled into this one file (the Makefile regenerates
 * build/version.h only when the revision changes, so nothing else rebuilds). */
#include "version.h" /* build/version.h, generated */

#include "harness/env/provenance.h"

const char *dperm_git_revision(void)
{
    return DPERM_GIT_REV;
}
