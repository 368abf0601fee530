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

json_t *record_new(const char *id, size_t index, const char *experiment, const char *status,
                   const char *message, json_t *config)
{
    json_t *rec = json_pack("{s:i, s:s, s:I, s:s, s:s}", "schema", RECORD_SCHEMA, "id", id,
                            "index", (json_int_t)index, "experiment", experiment, "status",
                            status);
    if (rec && message && json_object_set_new(rec, "message", json_string(message)) != 0) {
        json_decref(rec);
        rec = NULL;
    }
    if (!rec || !config || json_object_set_new(rec, "config", config) != 0) {
        if (!rec) json_decref(config);
        json_decref(rec);
        return NULL;
    }
    return rec;
}

json_t *record_new_failed(const char *id, size_t index, const char *experiment,
                          const char *message, json_t *config, json_t *provenance)
{
    json_t *rec = record_new(id, index, experiment, RECORD_FAILED, message, config);
    int bad = !rec || json_object_set_new(rec, "metrics", json_object()) != 0 ||
              json_object_set_new(rec, "curves", json_object()) != 0;
    /* json_object_set_new takes the value even when it fails */
    if (provenance) bad |= bad ? (json_decref(provenance), 1)
                               : json_object_set_new(rec, "provenance", provenance) != 0;
    if (bad) {
        json_decref(rec);
        return NULL;
    }
    return rec;
}
