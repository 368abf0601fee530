/* test_registry.c: the registry tables (`dperm list`) and the names the config validator
 * accepts are the same sets: every listed name validates, and an unknown name's error
 * lists exactly the registry's names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/config.h"
#include "harness/cli/registry.h"
#include "harness/drivers/driver.h"
#include "harness/spec/spec.h"
#include "harness/sweep/plan.h"

/* A valid run config with one name substituted into the block `which`. */
static int validate_with(const char *which, const char *name, run_spec *out, dp_err *err)
{
    const char *dataset = !strcmp(which, "datasets") ? name : "synthetic";
    const char *model = !strcmp(which, "models") ? name : "logistic";
    const char *accountant = !strcmp(which, "accountants") ? name : "rdp";
    /* lecture15_gd analyses full-batch gradient descent only */
    const char *algorithm = !strcmp(which, "algorithms") ? name
                            : !strcmp(name, "lecture15_gd") ? "dp_gd" : "dp_sgd";
    /* private algorithms need clip and a noise multiplier; the gd family uses the whole
     * training set (no batch_size) */
    int private_algo = 1, full = 0, convex = 0, student = 0;
    size_t n_algos;
    const spec_algorithm *algos = spec_algorithm_list(&n_algos);
    for (size_t i = 0; i < n_algos; i++)
        if (!strcmp(algos[i].name, algorithm)) {
            private_algo = algos[i].private_;
            full = algos[i].full_batch;
            convex = algos[i].kind == SPEC_KIND_DRIVER;
            student = algos[i].student;
        }
    /* a convex driver takes its budget as epsilon and its own keys (none required) */
    const char *algo_extra = !convex && private_algo ? ", clip: 1.0, noise_multiplier: 1.0" : "";
    const char *top_extra = convex && private_algo ? "epsilon: 0.5\n" : "";
    /* a convex driver's train block is its own (its defaults come from its theorems) */
    /* ... except PATE's, whose train block is its student's */
    const char *train = convex && !student ? ""
                        : full ? "train: {epochs: 1, lr: 0.1}\n"
                               : "train: {epochs: 1, batch_size: 10, lr: 0.1}\n";
    /* a custom model is its layer list */
    const char *model_extra =
        !strcmp(model, "custom") ? ", layers: [{type: flatten}, {type: dense, units: 2}]"
        /* strongly convex, so theorem-driven algorithms need no extra bound */
        : convex ? ", l2: 0.1" : "";
    /* deep models need image-shaped data they fit: 3x32x32 for the CIFAR nets and mlp's
     * default widths, 1x28x28 for the MNIST-shaped ones */
    const char *shape = "";
    if (!strncmp(model, "cnn_cifar", 9) || !strcmp(model, "mlp"))
        shape = ", d: 3072, shape: [3, 32, 32]";
    else if (!strcmp(model, "cnn_mnist") || !strcmp(model, "mlp_inputpert"))
        shape = ", d: 784, shape: [1, 28, 28]";
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "experiment: t\n"
             "dataset: {name: %s%s}\n"
             "model: {type: %s%s}\n"
             "privacy: {accountant: %s}\n"
             "%s"
             "algorithm: {name: %s%s}\n"
             "%s",
             dataset, shape, model, model_extra, accountant, train, algorithm, algo_extra,
             top_extra);
    cfg_doc doc;
    int rc = cfg_parse_string(&doc, yaml, strlen(yaml), "<registry>", err);
    if (rc) return rc;
    rc = plan_check(doc.root, out, err);
    cfg_doc_destroy(&doc);
    return rc;
}

/* registry-1.1: every name in every table is accepted by the validator. */
START_TEST(listed_names_validate)
{
    const char *tables[] = {"algorithms", "models", "datasets", "accountants"};
    for (size_t t = 0; t < 4; t++) {
        const registry *r = registry_find(tables[t]);
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_gt(r->count(), 0);
        for (size_t i = 0; i < r->count(); i++) {
            registry_entry e = r->entry(i);
            run_spec s;
            dp_err err;
            int rc = validate_with(tables[t], e.name, &s, &err);
            /* The regression datasets need a regression model and the regression models a
             * regression dataset (the test's other blocks are a classifier on classes):
             * their rejection must say exactly that. */
            if (rc && strstr(err.msg, "is a regression dataset (real target)")) continue;
            if (rc && strstr(err.msg, "use it on a regression dataset")) continue;
            /* An algorithm with a driver of its own was recognized when its driver asks for
             * one of its own required settings. */
            if (rc && !strcmp(tables[t], "algorithms") && strstr(err.msg, "missing required key"))
                continue;
            ck_assert_msg(rc == 0, "%s '%s' is listed but rejected: %s", tables[t],
                          e.name, err.msg);
        }
    }
}
END_TEST

/* registry-1.2: an unknown name is rejected, and the error's list of known names is the
 * registry's (so nothing is accepted that `dperm list` does not show). */
START_TEST(unknown_name_lists_registry)
{
    const char *tables[] = {"algorithms", "models", "datasets", "accountants"};
    for (size_t t = 0; t < 4; t++) {
        const registry *r = registry_find(tables[t]);
        run_spec s;
        dp_err err;
        ck_assert_int_eq(validate_with(tables[t], "no_such_name", &s, &err), DP_ECONFIG);
        char names[512], expect[600];
        registry_names(r, names, sizeof names);
        snprintf(expect, sizeof expect, "(known: %s)", names);
        ck_assert_msg(strstr(err.msg, expect) != NULL, "%s: '%s' does not list '%s'", tables[t],
                      err.msg, expect);
    }
}
END_TEST

/* registry-1.3: lookups. */
START_TEST(lookups)
{
    ck_assert_ptr_null(registry_find("nope"));
    registry_entry e;
    ck_assert_int_eq(registry_lookup(registry_find("algorithms"), "dp_sgd", &e), 1);
    ck_assert_str_eq(e.name, "dp_sgd");
    ck_assert_int_eq(registry_lookup(registry_find("algorithms"), "dp_sgdx", NULL), 0);
    size_t n = 0;
    for (const registry *const *r = registry_all(); *r; r++) n++;
    ck_assert_uint_eq(n, 4);
}
END_TEST

/* registry-1.4: the algorithm table and the driver table name the same algorithms: every
 * algorithm of kind driver has a driver, and every driver runs an algorithm of that kind
 * (a driver holds functions only; its name, description and keys are the table's). */
START_TEST(drivers_match_algorithms)
{
    size_t n, n_driver_kind = 0, n_drivers = 0;
    const spec_algorithm *all = spec_algorithm_list(&n);
    for (size_t i = 0; i < n; i++) {
        if (all[i].kind != SPEC_KIND_DRIVER) {
            ck_assert_msg(driver_find(all[i].name) == NULL, "%s has a driver but is a "
                          "first-order algorithm", all[i].name);
            continue;
        }
        n_driver_kind++;
        ck_assert_msg(driver_find(all[i].name) != NULL, "%s has no driver", all[i].name);
    }
    for (const driver *const *d = driver_list(); *d; d++) n_drivers++;
    ck_assert_uint_eq(n_drivers, n_driver_kind);
    ck_assert_uint_ge(n_drivers, 7);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("registry");
    TCase *t = tcase_create("registry");
    tcase_add_test(t, listed_names_validate);
    tcase_add_test(t, unknown_name_lists_registry);
    tcase_add_test(t, lookups);
    tcase_add_test(t, drivers_match_algorithms);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
