/* report_scale.c: a folder's scale and what it changed (report_scale.h). */
#include "harness/report/report_scale.h"

#include <stdio.h>

#include <jansson.h>

#include "harness/config/config.h"
#include "harness/store/flat.h"

int report_scale_name(const char *dir, char *name, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sweep.json", dir);
    json_t *sweep = json_load_file(path, 0, NULL);
    const char *scale = json_string_value(json_object_get(sweep, "scale"));
    if (scale) snprintf(name, n, "%s", scale);
    json_decref(sweep);
    return scale != NULL;
}

void report_scale_changes(const char *dir, const char *name, agg_buf *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.original.yaml", dir);
    cfg_doc doc;
    dp_err err;
    if (cfg_parse_file(&doc, path, &err) != 0) return;
    json_t *j = cfg_to_json(cfg_get(cfg_get(doc.root, "scales"), name));
    flat f = {0};
    if (j && flat_add(&f, NULL, j) == 0)
        for (size_t i = 0; i < f.n; i++)
            agg_buf_printf(out, "%s%s=%s", i ? ", " : "", f.keys[i], f.values[i]);
    flat_destroy(&f);
    json_decref(j);
    cfg_doc_destroy(&doc);
}
