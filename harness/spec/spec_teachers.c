/* spec_teachers.c: PATE's top-level `teachers` block, and the run config of one teacher.
 *
 *   teachers.count      int >= 2, required: the training set is cut into this many
 *                       disjoint parts (dp_dataset_part: consecutive runs of the seeded
 *                       training order), one teacher each (Papernot et al. 2017 §2.1)
 *   teachers.model      the teachers' model block; default: the run's (the student's)
 *   teachers.train      the teachers' train block, required (a teacher sees count times
 *                       fewer rows than the student's data has)
 *   teachers.algorithm  their trainer, non-private: sgd (default), gd or adam
 *   teachers.seed       int >= 0, default 1: teacher i trains with run seed seed + i
 *
 * A teacher's run config is the PATE run's with model, train and algorithm replaced by
 * the block's (clones: a bad value is reported at its line in the teachers block),
 * `teachers`, `epsilon` and `seed` dropped and seed + i set, so the teachers depend on
 * the dataset and this block alone: every PATE run of a grid that shares them shares
 * the teachers (sweep/pate_teachers.c trains them once).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "harness/spec/spec.h"
#include "harness/spec/spec_int.h"

static const char *const TEACHER_KEYS[] = {"count", "model", "train", "algorithm", "seed"};

int spec_read_teachers(const cfg_node *root, size_t *count, long *seed, dp_err *err)
{
    const cfg_node *t = cfg_get(root, "teachers");
    long n, s;
    int rc;
    if (!t)
        return cfg_error(err, cfg_get(root, "algorithm"), 1,
                         "pate needs a top-level teachers block: {count, train, model, "
                         "algorithm} of the teachers that vote");
    if ((rc = cfg_expect_map(t, "teachers", err)) ||
        (rc = cfg_check_keys(t, "teachers", TEACHER_KEYS, COUNT(TEACHER_KEYS), err)) ||
        (rc = cfg_read_int(t, "teachers", "count", 1, 0, 2, 1 << 20, &n, err)) ||
        (rc = cfg_read_int(t, "teachers", "seed", 0, 1, 0, LONG_MAX / 2, &s, err)))
        return rc;
    if (!cfg_get(t, "train")) return cfg_missing(t, "teachers", "train", err);
    *count = (size_t)n;
    if (seed) *seed = s;
    return 0;
}

/* A map entry `key` holding a clone of src's items (positions kept). */
static cfg_node *renamed_clone(const cfg_node *src, const char *key)
{
    cfg_node *c = cfg_clone(src);
    if (!c) return NULL;
    char *k = strdup(key);
    if (!k) {
        cfg_free(c);
        return NULL;
    }
    free(c->key);
    c->key = k;
    return c;
}

int spec_teacher_config(const cfg_node *root, size_t index, cfg_node **out, dp_err *err)
{
    size_t count;
    long seed;
    int rc;
    *out = NULL;
    if ((rc = spec_read_teachers(root, &count, &seed, err))) return rc;
    const cfg_node *t = cfg_get(root, "teachers");
    cfg_node *c = cfg_clone(root);
    if (!c) return dp_err_set(err, DP_ENOMEM, "out of memory");
    cfg_remove(c, "teachers");
    cfg_remove(c, "epsilon");
    const cfg_node *model = cfg_get(t, "model") ? cfg_get(t, "model") : cfg_get(root, "model");
    const cfg_node *algo = cfg_get(t, "algorithm");
    char seed_text[32];
    snprintf(seed_text, sizeof seed_text, "%ld", seed + (long)index);
    cfg_node *parts[4] = {model ? renamed_clone(model, "model") : NULL,
                          renamed_clone(cfg_get(t, "train"), "train"),
                          algo ? renamed_clone(algo, "algorithm") : cfg_new_map("algorithm", t),
                          cfg_new_scalar("seed", seed_text, t)};
    int ok = parts[1] && parts[2] && parts[3] && (parts[0] || !model);
    if (ok && !algo) { /* the default trainer, {name: sgd}, at the teachers block */
        cfg_node *name = cfg_new_scalar("name", "sgd", t);
        ok = name && cfg_put(parts[2], name) == 0;
    }
    for (int i = 0; i < 4; i++) {
        if (!parts[i]) continue;
        if (ok) ok = cfg_put(c, parts[i]) == 0;
        else cfg_free(parts[i]);
    }
    if (!ok) {
        cfg_free(c);
        return dp_err_set(err, DP_ENOMEM, "out of memory");
    }
    *out = c;
    return 0;
}

int spec_check_teacher(const cfg_node *root, run_spec *teacher, dp_err *err)
{
    cfg_node *c;
    int rc = spec_teacher_config(root, 0, &c, err);
    if (rc) return rc;
    rc = spec_from_config(c, teacher, err);
    if (rc == 0 && teacher->algo->private_)
        rc = cfg_error(err, cfg_get(c, "algorithm"), 0,
                       "teachers.algorithm %s: PATE's teachers train non-privately (the "
                       "aggregator's noise is the privacy); use sgd, gd or adam",
                       teacher->algorithm);
    if (rc == 0 && teacher->algo->kind != SPEC_KIND_FIRST_ORDER)
        rc = cfg_error(err, cfg_get(c, "algorithm"), 0,
                       "teachers.algorithm %s: a teacher is trained by the first-order loop; "
                       "use sgd, gd or adam", teacher->algorithm);
    cfg_free(c);
    return rc;
}
