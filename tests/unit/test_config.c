/* test_config.c: the YAML reader (harness/config/config.c): node positions, every parse error
 * with its FILE:LINE:COL, YAML 1.2 core-schema scalar typing, typed accessors and their
 * messages, typed JSON, and did-you-mean suggestions. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/config.h"

/* tests/fixtures/config/NAME, found from this file's path (make builds from the root). */
static void fixture(char *buf, size_t size, const char *name)
{
    const char *f = __FILE__;
    const char *cut = strstr(f, "unit/test_config.c");
    snprintf(buf, size, "%.*sfixtures/config/%s", cut ? (int)(cut - f) : 0, f, name);
}

static cfg_doc parse_ok(const char *text)
{
    cfg_doc d;
    dp_err e;
    dp_err_clear(&e);
    int rc = cfg_parse_string(&d, text, strlen(text), "t.yaml", &e);
    ck_assert_msg(rc == 0, "parse failed: %d:%d: %s", e.line, e.col, e.msg);
    return d;
}

/* Parsing must fail with DP_ECONFIG at line:col with phrase in the message. */
static void parse_err(const char *text, int line, int col, const char *phrase)
{
    cfg_doc d;
    dp_err e;
    dp_err_clear(&e);
    int rc = cfg_parse_string(&d, text, strlen(text), "t.yaml", &e);
    ck_assert_int_eq(rc, DP_ECONFIG);
    ck_assert_int_eq(e.code, DP_ECONFIG);
    ck_assert_str_eq(e.file, "t.yaml");
    ck_assert_msg(e.line == line && e.col == col, "at %d:%d, expected %d:%d (%s)", e.line,
                  e.col, line, col, e.msg);
    ck_assert_msg(strstr(e.msg, phrase), "message '%s' lacks '%s'", e.msg, phrase);
    ck_assert_ptr_null(d.root);
    ck_assert_ptr_null(d.file);
}

// ---- 1: tree and positions -----------------------------------------------------------

/* config-1.1: keys and values remember 1-based positions, block and flow style. */
START_TEST(test_positions)
{
    cfg_doc d = parse_ok("experiment: t\n"
                         "train:\n"
                         "  epochs: 5\n"
                         "  lr: {schedule: step, value: 0.1}\n"
                         "grid:\n"
                         "  seed: [1, 22]\n");
    ck_assert_int_eq(d.root->kind, CFG_MAP);
    ck_assert_uint_eq(d.root->n_items, 3);
    ck_assert_str_eq(d.root->file, "t.yaml");
    const cfg_node *exp = cfg_get(d.root, "experiment");
    ck_assert_int_eq(exp->key_line, 1);
    ck_assert_int_eq(exp->key_col, 1);
    ck_assert_int_eq(exp->line, 1);
    ck_assert_int_eq(exp->col, 13);
    const cfg_node *ep = cfg_get_path(d.root, "train.epochs");
    ck_assert_int_eq(ep->key_line, 3);
    ck_assert_int_eq(ep->key_col, 3);
    ck_assert_int_eq(ep->line, 3);
    ck_assert_int_eq(ep->col, 11);
    const cfg_node *lr = cfg_get_path(d.root, "train.lr");
    ck_assert_int_eq(lr->kind, CFG_MAP);
    ck_assert_int_eq(lr->line, 4);
    ck_assert_int_eq(lr->col, 7);
    const cfg_node *v = cfg_get(lr, "value");
    ck_assert_int_eq(v->key_col, 24);
    ck_assert_int_eq(v->col, 31);
    const cfg_node *seed = cfg_get_path(d.root, "grid.seed");
    ck_assert_int_eq(seed->kind, CFG_SEQ);
    ck_assert_uint_eq(seed->n_items, 2);
    ck_assert_str_eq(seed->items[1]->value, "22");
    ck_assert_int_eq(seed->items[1]->line, 6);
    ck_assert_int_eq(seed->items[1]->col, 13);
    ck_assert_ptr_null(seed->items[1]->key);
    cfg_doc_destroy(&d);
    cfg_doc_destroy(&d); /* idempotent */
}
END_TEST

/* config-1.2: quoting and block scalars make strings; map order is document order. */
START_TEST(test_quoting_and_order)
{
    cfg_doc d = parse_ok("z: \"5\"\ny: '5'\nx: 5\nw: |\n  text\n");
    const char *order[] = {"z", "y", "x", "w"};
    for (size_t i = 0; i < 4; i++) ck_assert_str_eq(d.root->items[i]->key, order[i]);
    ck_assert_int_eq(cfg_get(d.root, "z")->quoted, 1);
    ck_assert_int_eq(cfg_scalar_type(cfg_get(d.root, "z")), CFG_T_STRING);
    ck_assert_int_eq(cfg_scalar_type(cfg_get(d.root, "y")), CFG_T_STRING);
    ck_assert_int_eq(cfg_scalar_type(cfg_get(d.root, "x")), CFG_T_INT);
    ck_assert_int_eq(cfg_scalar_type(cfg_get(d.root, "w")), CFG_T_STRING);
    ck_assert_str_eq(cfg_get(d.root, "w")->value, "text\n");
    cfg_doc_destroy(&d);
}
END_TEST

/* config-1.3: lookups by key and dotted path; misses and non-maps give NULL. */
START_TEST(test_lookup)
{
    cfg_doc d = parse_ok("a: {b: {c: 1}, l: [1]}\nab: 2\n");
    ck_assert_str_eq(cfg_get_path(d.root, "a.b.c")->value, "1");
    ck_assert_ptr_eq(cfg_get_path(d.root, "a"), cfg_get(d.root, "a"));
    ck_assert_str_eq(cfg_get_path(d.root, "ab")->value, "2");
    ck_assert_ptr_null(cfg_get_path(d.root, "a.b.c.d"));
    ck_assert_ptr_null(cfg_get_path(d.root, "a.x"));
    ck_assert_ptr_null(cfg_get_path(d.root, "a.l.0"));
    ck_assert_ptr_null(cfg_get_path(d.root, "a.b."));
    ck_assert_ptr_null(cfg_get(cfg_get_path(d.root, "a.l"), "x"));
    ck_assert_ptr_null(cfg_get(NULL, "a"));
    ck_assert_ptr_null(cfg_get_path(NULL, "a"));
    cfg_doc_destroy(&d);
}
END_TEST

/* config-1.4: clones are deep, keep positions and outlive their source tree. */
START_TEST(test_clone)
{
    cfg_doc d = parse_ok("a:\n  b: [1, {c: \"x\"}]\n");
    cfg_node *c = cfg_clone(d.root);
    ck_assert_ptr_nonnull(c);
    char *file = strdup(d.file);
    json_t *j1 = cfg_to_json(d.root);
    cfg_free(d.root); /* the tree goes; the clone must not share nodes with it */
    d.root = NULL;
    const cfg_node *x = cfg_get(cfg_get_path(c, "a.b")->items[1], "c");
    ck_assert_str_eq(x->value, "x");
    ck_assert_int_eq(x->quoted, 1);
    ck_assert_int_eq(x->line, 2);
    ck_assert_int_eq(x->col, 14);
    json_t *j2 = cfg_to_json(c);
    ck_assert(json_equal(j1, j2));
    json_decref(j1);
    json_decref(j2);
    cfg_free(c);
    cfg_free(NULL);
    cfg_doc_destroy(&d);
    free(file);
}
END_TEST

/* config-1.5: files: the path names positions; a missing file is DP_EIO. */
START_TEST(test_parse_file)
{
    char path[512];
    cfg_doc d;
    dp_err e;
    fixture(path, sizeof path, "valid.yaml");
    ck_assert_int_eq(cfg_parse_file(&d, path, &e), 0);
    ck_assert_str_eq(d.file, path);
    const cfg_node *ep = cfg_get_path(d.root, "train.epochs");
    ck_assert_str_eq(ep->file, path);
    ck_assert_int_eq(ep->line, 8);
    cfg_doc_destroy(&d);

    fixture(path, sizeof path, "bad_syntax.yaml");
    ck_assert_int_eq(cfg_parse_file(&d, path, &e), DP_ECONFIG);
    ck_assert_str_eq(e.file, path);
    ck_assert_int_eq(e.line, 5);
    ck_assert_int_eq(e.col, 5);
    ck_assert_ptr_nonnull(strstr(e.msg, "flow sequence at line 4, column 15"));

    fixture(path, sizeof path, "no_such_file.yaml");
    ck_assert_int_eq(cfg_parse_file(&d, path, &e), DP_EIO);
    ck_assert_ptr_nonnull(strstr(e.msg, "no_such_file.yaml"));
    ck_assert_ptr_null(d.root);
}
END_TEST

// ---- 2: parse errors -----------------------------------------------------------------

/* config-2.1: a libyaml syntax error is reported at libyaml's problem mark. */
START_TEST(test_syntax_error)
{
    parse_err("a: 1\nb: [1, 2\nc: 3\n", 3, 2, "did not find expected ',' or ']'");
    parse_err("a: b: c\n", 1, 5, "mapping values are not allowed");
    parse_err("a: \"open\n", 2, 1, "found unexpected end of stream");
}
END_TEST

/* config-2.2: a duplicate key fails at the second occurrence, naming the first. */
START_TEST(test_duplicate_key)
{
    parse_err("a: 1\nb: 2\na: 3\n", 3, 1, "duplicate key 'a' (first at line 1, column 1)");
    parse_err("t:\n  x: 1\n  y: 2\n  x: 3\n", 4, 3, "duplicate key 'x'");
    parse_err("t: {x: 1, \"x\": 2}\n", 1, 11, "duplicate key 'x'");
    /* the same key in different maps is fine */
    cfg_doc d = parse_ok("a: {x: 1}\nb: {x: 2}\n");
    cfg_doc_destroy(&d);
}
END_TEST

/* config-2.3: aliases, anchors and tags are refused where they appear. */
START_TEST(test_alias_anchor_tag)
{
    parse_err("a: &x 1\nb: 2\n", 1, 4, "anchors (&x)");
    parse_err("a: 1\nb:\n  c: *q\n", 3, 6, "aliases (*q)");
    parse_err("a: !!str 1\n", 1, 4, "tags (!!str)");
    parse_err("a: !custom {b: 1}\n", 1, 4, "tags (!custom)");
    parse_err("a: &m\n  b: 1\n", 1, 4, "anchors (&m)");
}
END_TEST

/* config-2.4: the root must be one mapping: not a list, a scalar, or nothing. */
START_TEST(test_root_shape)
{
    parse_err("- 1\n- 2\n", 1, 1, "got a list");
    parse_err("hello\n", 1, 1, "got a scalar");
    parse_err("", 1, 1, "empty document");
    parse_err("# only a comment\n\n", 1, 1, "empty document");
    parse_err("---\n", 2, 1, "empty document");
}
END_TEST

/* config-2.5: a second document is an error at its '---'. */
START_TEST(test_multiple_documents)
{
    parse_err("a: 1\n---\nb: 2\n", 2, 1, "second YAML document");
    parse_err("--- \na: 1\n...\n---\nb: 2\n", 4, 1, "second YAML document");
}
END_TEST

/* config-2.6: tabs used for indentation: libyaml's error plus a hint. */
START_TEST(test_tabs)
{
    const char *cases[] = {"a:\n\tb: 1\n", "a: 1\n\tb: 2\n"};
    for (size_t i = 0; i < 2; i++) {
        cfg_doc d;
        dp_err e;
        ck_assert_int_eq(cfg_parse_string(&d, cases[i], strlen(cases[i]), "t.yaml", &e),
                         DP_ECONFIG);
        ck_assert_int_eq(e.line, 2);
        ck_assert_int_eq(e.col, 1);
        ck_assert_ptr_nonnull(strstr(e.hint, "tabs"));
    }
}
END_TEST

/* config-2.7: keys must be scalars and non-empty. */
START_TEST(test_key_shapes)
{
    parse_err("{[a]: 1}\n", 1, 2, "not a list");
    parse_err("? {a: 1}\n: 2\n", 1, 3, "not a map");
    parse_err("\"\": 1\n", 1, 1, "empty key");
}
END_TEST

/* config-2.8: bytes that are not UTF-8 are located by offset. */
START_TEST(test_bad_utf8)
{
    parse_err("a: 1\nb: \"\xff\"\n", 2, 5, "UTF-8");
}
END_TEST

/* config-2.9: nesting is bounded (the tree helpers recurse). */
START_TEST(test_depth_limit)
{
    char text[400] = "a: ";
    for (int i = 0; i < 70; i++) strcat(text, "[");
    for (int i = 0; i < 70; i++) strcat(text, "]");
    strcat(text, "\n");
    parse_err(text, 1, 67, "nesting deeper than 64");
}
END_TEST

// ---- 3: scalars and typed reads ------------------------------------------------------

/* config-3.1: YAML 1.2 core schema for plain scalars; quoted is always a string. */
START_TEST(test_scalar_types)
{
    static const struct {
        const char *text;
        cfg_type type;
    } cases[] = {
        {"~", CFG_T_NULL},       {"null", CFG_T_NULL},     {"NULL", CFG_T_NULL},
        {"", CFG_T_NULL},        {"nil", CFG_T_STRING},    {"true", CFG_T_BOOL},
        {"False", CFG_T_BOOL},   {"TRUE", CFG_T_BOOL},     {"yes", CFG_T_STRING},
        {"on", CFG_T_STRING},    {"0", CFG_T_INT},         {"-17", CFG_T_INT},
        {"+3", CFG_T_INT},       {"0x1F", CFG_T_INT},      {"0o17", CFG_T_INT},
        {"0o19", CFG_T_STRING},  {"1_000", CFG_T_STRING},  {"1.5", CFG_T_FLOAT},
        {"1.", CFG_T_FLOAT},     {".5", CFG_T_FLOAT},      {"-1e-5", CFG_T_FLOAT},
        {"1.0e+3", CFG_T_FLOAT}, {"1e", CFG_T_STRING},     {".", CFG_T_STRING},
        {".inf", CFG_T_FLOAT},   {"-.Inf", CFG_T_FLOAT},   {"+.INF", CFG_T_FLOAT},
        {".nan", CFG_T_FLOAT},   {"-.nan", CFG_T_STRING},  {"inf", CFG_T_STRING},
        {"five", CFG_T_STRING},  {"1.2.3", CFG_T_STRING},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cfg_node n = {.kind = CFG_SCALAR, .value = (char *)cases[i].text};
        ck_assert_msg(cfg_scalar_type(&n) == cases[i].type, "'%s' typed %d, expected %d",
                      cases[i].text, cfg_scalar_type(&n), cases[i].type);
        n.quoted = 1;
        ck_assert_int_eq(cfg_scalar_type(&n), CFG_T_STRING);
    }
    cfg_node map = {.kind = CFG_MAP};
    ck_assert_int_eq(cfg_scalar_type(&map), 0);
}
END_TEST

/* config-3.2: typed reads of well-typed scalars. */
START_TEST(test_typed_reads)
{
    cfg_doc d = parse_ok("i: 42\nh: 0x10\no: 0o10\nf: 2.5e-1\ne: 1e-5\ninf: -.inf\nb: FALSE\n"
                         "s: hello\nq: \"true\"\nbig: 99999999999999999999\n");
    double x;
    long l;
    int b;
    const char *s;
    dp_err e;
    ck_assert_int_eq(cfg_as_double(cfg_get(d.root, "i"), "i", &x, &e), 0);
    ck_assert_double_eq(x, 42.0);
    ck_assert_int_eq(cfg_as_double(cfg_get(d.root, "h"), "h", &x, &e), 0);
    ck_assert_double_eq(x, 16.0);
    ck_assert_int_eq(cfg_as_double(cfg_get(d.root, "f"), "f", &x, &e), 0);
    ck_assert_double_eq(x, 0.25);
    ck_assert_int_eq(cfg_as_double(cfg_get(d.root, "e"), "e", &x, &e), 0);
    ck_assert_double_eq(x, 1e-5);
    ck_assert_int_eq(cfg_as_double(cfg_get(d.root, "inf"), "inf", &x, &e), 0);
    ck_assert(isinf(x) && x < 0);
    ck_assert_int_eq(cfg_as_double(cfg_get(d.root, "big"), "big", &x, &e), 0);
    ck_assert_double_eq(x, 1e20);
    ck_assert_int_eq(cfg_as_long(cfg_get(d.root, "i"), "i", &l, &e), 0);
    ck_assert_int_eq(l, 42);
    ck_assert_int_eq(cfg_as_long(cfg_get(d.root, "o"), "o", &l, &e), 0);
    ck_assert_int_eq(l, 8);
    ck_assert_int_eq(cfg_as_bool(cfg_get(d.root, "b"), "b", &b, &e), 0);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(cfg_as_string(cfg_get(d.root, "s"), "s", &s, &e), 0);
    ck_assert_str_eq(s, "hello");
    ck_assert_int_eq(cfg_as_string(cfg_get(d.root, "q"), "q", &s, &e), 0);
    ck_assert_str_eq(s, "true");
    cfg_doc_destroy(&d);
}
END_TEST

static void read_err(int rc, const dp_err *e, int line, int col, const char *msg)
{
    ck_assert_int_eq(rc, DP_ECONFIG);
    ck_assert_int_eq(e->code, DP_ECONFIG);
    ck_assert_msg(e->line == line && e->col == col, "at %d:%d, expected %d:%d", e->line, e->col,
                  line, col);
    ck_assert_msg(strstr(e->msg, msg), "message '%s' lacks '%s'", e->msg, msg);
}

/* config-3.3: mismatches name the field, what was expected and what was found, at the
 * value's position. */
START_TEST(test_typed_read_errors)
{
    cfg_doc d = parse_ok("train:\n  epochs: five\n  lr: \"0.1\"\n  f: 5.0\n  m: {a: 1}\n"
                         "  l: [1]\n  n:\n  big: 99999999999999999999\n  t: 1\n  h: 1e999\n");
    const cfg_node *t = cfg_get(d.root, "train");
    double x;
    long l;
    int b;
    const char *s;
    dp_err e;
    read_err(cfg_as_long(cfg_get(t, "epochs"), "train.epochs", &l, &e), &e, 2, 11,
             "train.epochs: expected an integer, got 'five'");
    read_err(cfg_as_double(cfg_get(t, "epochs"), "train.epochs", &x, &e), &e, 2, 11,
             "expected a number, got 'five'");
    read_err(cfg_as_double(cfg_get(t, "lr"), "train.lr", &x, &e), &e, 3, 7,
             "train.lr: expected a number, got the quoted string \"0.1\"");
    read_err(cfg_as_long(cfg_get(t, "f"), "train.f", &l, &e), &e, 4, 6,
             "expected an integer, got '5.0'");
    read_err(cfg_as_long(cfg_get(t, "m"), "train.m", &l, &e), &e, 5, 6, "got a map");
    read_err(cfg_as_string(cfg_get(t, "l"), "train.l", &s, &e), &e, 6, 6, "got a list");
    read_err(cfg_as_double(cfg_get(t, "n"), "train.n", &x, &e), &e, 7, 5,
             "got an empty value");
    read_err(cfg_as_long(cfg_get(t, "big"), "train.big", &l, &e), &e, 8, 8,
             "integer out of range");
    read_err(cfg_as_bool(cfg_get(t, "t"), "train.t", &b, &e), &e, 9, 6,
             "expected true or false, got '1'");
    read_err(cfg_as_string(cfg_get(t, "t"), "train.t", &s, &e), &e, 9, 6,
             "expected a string, got '1'");
    ck_assert_ptr_nonnull(strstr(e.hint, "quote"));
    read_err(cfg_as_double(cfg_get(t, "h"), "train.h", &x, &e), &e, 10, 6, "out of range");
    /* errors can be requested at the key too */
    read_err(cfg_error(&e, cfg_get(t, "epochs"), 1, "bad %s", "key"), &e, 2, 3, "bad key");
    read_err(cfg_error(&e, cfg_get(t, "epochs"), 0, "bad value"), &e, 2, 11, "bad value");
    ck_assert_str_eq(e.file, "t.yaml");
    /* at_key on the root (no key) falls back to the value position */
    read_err(cfg_error(&e, d.root, 1, "root"), &e, 1, 1, "root");
    cfg_doc_destroy(&d);
}
END_TEST

// ---- 4: JSON -------------------------------------------------------------------------

/* config-4.1: typed JSON keeps map order; ints, reals, bools, nulls and strings. */
START_TEST(test_to_json)
{
    cfg_doc d = parse_ok("z: 1\na: 0.5\nm: {y: true, b: ~}\nl: [\"1\", 0x10, abc, 1e-5]\n");
    json_t *j = cfg_to_json(d.root);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    ck_assert_str_eq(s, "{\"z\":1,\"a\":0.5,\"m\":{\"y\":true,\"b\":null},"
                        "\"l\":[\"1\",16,\"abc\",1.0000000000000001e-5]}");
    ck_assert(json_is_integer(json_object_get(j, "z")));
    ck_assert(json_is_real(json_object_get(j, "a")));
    free(s);
    json_decref(j);
    cfg_doc_destroy(&d);
}
END_TEST

/* config-4.2: non-finite floats become their canonical YAML spelling (JSON has none). */
START_TEST(test_to_json_nonfinite)
{
    cfg_doc d = parse_ok("a: .Inf\nb: -.INF\nc: .NaN\nd: 1e999\n");
    json_t *j = cfg_to_json(d.root);
    ck_assert_str_eq(json_string_value(json_object_get(j, "a")), ".inf");
    ck_assert_str_eq(json_string_value(json_object_get(j, "b")), "-.inf");
    ck_assert_str_eq(json_string_value(json_object_get(j, "c")), ".nan");
    ck_assert_str_eq(json_string_value(json_object_get(j, "d")), ".inf");
    json_decref(j);
    cfg_doc_destroy(&d);
}
END_TEST

// ---- 5: suggestions ------------------------------------------------------------------

/* config-5.1: the closest candidate within max(1, len/3) edits, first on ties. */
START_TEST(test_suggest)
{
    static const char *const keys[] = {"epochs", "batch_size", "sampling", "lr", "eval_every"};
    ck_assert_str_eq(cfg_suggest("epocs", keys, 5), "epochs");
    ck_assert_str_eq(cfg_suggest("epohcs", keys, 5), "epochs");
    ck_assert_str_eq(cfg_suggest("batchsize", keys, 5), "batch_size");
    ck_assert_str_eq(cfg_suggest("lrr", keys, 5), "lr");
    ck_assert_str_eq(cfg_suggest("l", keys, 5), "lr");
    /* swaps of adjacent letters cost one edit (optimal string alignment) */
    const char *const acc[] = {"rdp", "pld", "moments"};
    ck_assert_str_eq(cfg_suggest("rpd", acc, 3), "rdp");
    ck_assert_str_eq(cfg_suggest("momnets", acc, 3), "moments");
    ck_assert_ptr_null(cfg_suggest("xyz", acc, 3));
    ck_assert_ptr_null(cfg_suggest("momentum", keys, 5));
    ck_assert_ptr_null(cfg_suggest("xy", keys, 5));
    ck_assert_ptr_null(cfg_suggest("epo", keys, 5)); /* 3 edits > max(1, 3/3) */
    ck_assert_ptr_null(cfg_suggest("anything", keys, 0));
    static const char *const tie[] = {"ab", "ac"};
    ck_assert_str_eq(cfg_suggest("aa", tie, 2), "ab");
}
END_TEST

static TCase *tcase(const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test);
    return tc;
}

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    suite_add_tcase(s, tcase("config-1.1", test_positions));
    suite_add_tcase(s, tcase("config-1.2", test_quoting_and_order));
    suite_add_tcase(s, tcase("config-1.3", test_lookup));
    suite_add_tcase(s, tcase("config-1.4", test_clone));
    suite_add_tcase(s, tcase("config-1.5", test_parse_file));
    suite_add_tcase(s, tcase("config-2.1", test_syntax_error));
    suite_add_tcase(s, tcase("config-2.2", test_duplicate_key));
    suite_add_tcase(s, tcase("config-2.3", test_alias_anchor_tag));
    suite_add_tcase(s, tcase("config-2.4", test_root_shape));
    suite_add_tcase(s, tcase("config-2.5", test_multiple_documents));
    suite_add_tcase(s, tcase("config-2.6", test_tabs));
    suite_add_tcase(s, tcase("config-2.7", test_key_shapes));
    suite_add_tcase(s, tcase("config-2.8", test_bad_utf8));
    suite_add_tcase(s, tcase("config-2.9", test_depth_limit));
    suite_add_tcase(s, tcase("config-3.1", test_scalar_types));
    suite_add_tcase(s, tcase("config-3.2", test_typed_reads));
    suite_add_tcase(s, tcase("config-3.3", test_typed_read_errors));
    suite_add_tcase(s, tcase("config-4.1", test_to_json));
    suite_add_tcase(s, tcase("config-4.2", test_to_json_nonfinite));
    suite_add_tcase(s, tcase("config-5.1", test_suggest));
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(config_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
