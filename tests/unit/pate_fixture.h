/* pate_fixture.h: what the PATE test programs share (test_pate_rdp.c, test_pate_smooth.c):
 * loading a reference file made from TensorFlow Privacy's research/pate_2018 code
 * (tests/fixtures/pate/make_*.py say how) and reading its number lists, where the
 * strings "inf" and "-inf" stand for the infinities JSON cannot hold.
 * Static inline: each test program is one translation unit that includes it. */
#ifndef DPERM_PATE_FIXTURE_H
#define DPERM_PATE_FIXTURE_H

#include <check.h>
#include <jansson.h>
#include <math.h>

/* tests/fixtures/pate/NAME, parsed; the caller json_decref's it. */
static inline json_t *pate_reference(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/pate/%s", name);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    ck_assert_msg(root != NULL, "cannot read %s (%s); run from the repository root", path,
                  jerr.text);
    return root;
}

/* out[0..) = the numbers of list (at most max); returns how many. */
static inline size_t pate_numbers(json_t *list, double *out, size_t max)
{
    size_t i;
    json_t *v;
    ck_assert(json_array_size(list) <= max);
    json_array_foreach(list, i, v) {
        const char *s = json_string_value(v);
        out[i] = s ? (s[0] == '-' ? -INFINITY : INFINITY) : json_number_value(v);
    }
    return json_array_size(list);
}

#endif
