/* record.c: the run record's vocabulary (record.h). */
#include "harness/store/record.h"

#include <math.h>
#include <string.h>

const char *record_status(json_t *record)
{
    const char *s = json_string_value(json_object_get(record, "status"));
    if (s && (!strcmp(s, RECORD_OK) || !strcmp(s, RECORD_DIVERGED))) return s;
    return RECORD_FAILED;
}

int record_failed(json_t *record)
{
    return !strcmp(record_status(record), RECORD_FAILED);
}

json_t *record_number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
