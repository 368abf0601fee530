/* test_uci.c: the CSV reader (datasets/csv.c) and the UCI schemas (datasets/uci.c) on tiny
 * files written here in each original layout (adult's ", " and junk line and trailing
 * '.', bank's ';' and quotes, credit-default's two header rows, wine's two files, kdd's
 * gzip, breast-cancer's '?', ...), and corrupt variants with their messages.
 *
 * The published row counts are switched off for the tiny files (a copy of the catalog
 * entry with rows = 0), except in uci-3.7 which checks that very guard.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "datasets/data_int.h"
#include "tests/unit/test_util.h"

static char dir[256];

static void setup(void) { test_tmpdir(dir, sizeof dir, "dperm-uci-"); }
static void teardown(void) { test_rmtree(dir); }

static void write_text(const char *name, const char *text)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (strstr(name, ".gz")) {
        gzFile f = gzopen(p, "wb");
        gzwrite(f, text, (unsigned)strlen(text));
        gzclose(f);
    } else {
        FILE *f = fopen(p, "wb");
        fwrite(text, 1, strlen(text), f);
        fclose(f);
    }
}

/* Read dataset `name` from the catalog's file names in dir (rows checks off unless
 * keep_rows). */
static int read_set(const char *name, dp_raw *raw, dp_err *e, int keep_rows)
{
    dp_data_info info = *dp_data_find(name);
    dp_data_found f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < info.n_files; i++) {
        if (!keep_rows) info.files[i].rows = 0;
        snprintf(f.paths[i], sizeof f.paths[i], "%s/%s", dir, info.files[i].name);
    }
    dp_err_clear(e);
    return dp_uci_read(raw, &info, &f, e);
}

static void expect_error(int rc, const dp_err *e, int line, const char *phrase)
{
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_msg(e->line == line, "line %d, expected %d (%s)", e->line, line, e->msg);
    ck_assert_msg(strstr(e->msg, phrase) != NULL, "message '%s' lacks '%s'", e->msg, phrase);
}

static const char ADULT_DATA[] =
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
    "Male, 2174, 0, 40, United-States, <=50K\n"
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, "
    "White, Male, 0, 0, 13, United-States, >50K\n"
    "38, ?, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, "
    "40, ?, <=50K\n"
    "\n";
static const char ADULT_TEST[] =
    "|1x3 Cross validator\n"
    "25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, "
    "0, 40, United-States, <=50K.\n"
    "\n";

// ---- uci-1: each layout reads ------------------------------------------------------------

START_TEST(test_adult)
{
    write_text("adult.data", ADULT_DATA);
    write_text("adult.test", ADULT_TEST);
    dp_raw raw;
    dp_err e;
    ck_assert_int_eq(read_set("adult", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.n, 4);
    ck_assert_uint_eq(raw.n_official_train, 3);
    ck_assert_uint_eq(raw.d, 14);
    ck_assert_int_eq(raw.n_classes, 2);
    ck_assert_str_eq(raw.class_names[1], ">50K");
    ck_assert_int_eq(raw.y[1], 1);
    ck_assert_int_eq(raw.y[3], 0); /* "<=50K." with the test file's period */
    ck_assert(isnan(raw.x[2 * 14 + 1]));   /* '?' workclass */
    ck_assert_int_eq(raw.cat[1], 3);       /* workclass levels seen: 3 ("?" is missing) */
    ck_assert_int_eq(raw.cat[0], 0);       /* age is numeric */
    ck_assert_double_eq(raw.x[0 * 14 + 2], 77516);
    /* levels sorted: Private < Self-emp-not-inc < State-gov */
    ck_assert_double_eq(raw.x[3 * 14 + 1], 0);
    ck_assert_double_eq(raw.x[0 * 14 + 1], 2);
    dp_raw_destroy(&raw);
}
END_TEST

START_TEST(test_other_layouts)
{
    dp_raw raw;
    dp_err e;
    /* uci-1.2 bank: ';', quoted header and strings */
    write_text("bank-full.csv",
               "\"age\";\"job\";\"marital\";\"education\";\"default\";\"balance\";\"housing\";"
               "\"loan\";\"contact\";\"day\";\"month\";\"duration\";\"campaign\";\"pdays\";"
               "\"previous\";\"poutcome\";\"y\"\n"
               "58;\"management\";\"married\";\"tertiary\";\"no\";2143;\"yes\";\"no\";\"unknown\";"
               "5;\"may\";261;1;-1;0;\"unknown\";\"no\"\n"
               "44;\"technician\";\"single\";\"secondary\";\"no\";29;\"yes\";\"no\";\"unknown\";"
               "5;\"may\";151;1;-1;0;\"unknown\";\"yes\"\n");
    ck_assert_int_eq(read_set("bank", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.n, 2);
    ck_assert_uint_eq(raw.d, 16);
    ck_assert_int_eq(raw.y[1], 1);
    ck_assert_double_eq(raw.x[5], 2143);
    dp_raw_destroy(&raw);
    /* uci-1.3 credit_default: two header rows, CRLF, ID skipped */
    write_text("default of credit card clients.csv",
               ",X1,X2,X3,X4,X5,X6,X7,X8,X9,X10,X11,X12,X13,X14,X15,X16,X17,X18,X19,X20,X21,X22,X23,Y\r\n"
               "ID,LIMIT_BAL,SEX,EDUCATION,MARRIAGE,AGE,PAY_0,PAY_2,PAY_3,PAY_4,PAY_5,PAY_6,"
               "BILL_AMT1,BILL_AMT2,BILL_AMT3,BILL_AMT4,BILL_AMT5,BILL_AMT6,PAY_AMT1,PAY_AMT2,"
               "PAY_AMT3,PAY_AMT4,PAY_AMT5,PAY_AMT6,default payment next month\r\n"
               "1,20000,2,2,1,24,2,2,-1,-1,-2,-2,3913,3102,689,0,0,0,0,689,0,0,0,0,1\r\n");
    ck_assert_int_eq(read_set("credit_default", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.n, 1);
    ck_assert_uint_eq(raw.d, 23);
    ck_assert_double_eq(raw.x[0], 20000);
    ck_assert_int_eq(raw.y[0], 1);
    dp_raw_destroy(&raw);
    /* uci-1.4 wine_quality: two files pooled, real target */
    const char *hdr = "\"fixed acidity\";\"volatile acidity\";\"citric acid\";\"residual sugar\";"
                      "\"chlorides\";\"free sulfur dioxide\";\"total sulfur dioxide\";\"density\";"
                      "\"pH\";\"sulphates\";\"alcohol\";\"quality\"\n";
    char red[1024], white[1024];
    snprintf(red, sizeof red, "%s7.4;0.7;0;1.9;0.076;11;34;0.9978;3.51;0.56;9.4;5\n", hdr);
    snprintf(white, sizeof white, "%s7;0.27;0.36;20.7;0.045;45;170;1.001;3;0.45;8.8;6\n", hdr);
    write_text("winequality-red.csv", red);
    write_text("winequality-white.csv", white);
    ck_assert_int_eq(read_set("wine_quality", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.n, 2);
    ck_assert_uint_eq(raw.n_official_train, 2); /* no official test */
    ck_assert_ptr_null(raw.y);
    ck_assert_double_eq(raw.t[1], 6);
    dp_raw_destroy(&raw);
    /* uci-1.5 bike: instant, dteday, casual, registered skipped; cnt the target */
    write_text("hour.csv",
               "instant,dteday,season,yr,mnth,hr,holiday,weekday,workingday,weathersit,temp,"
               "atemp,hum,windspeed,casual,registered,cnt\r\n"
               "1,2011-01-01,1,0,1,0,0,6,0,1,0.24,0.2879,0.81,0,3,13,16\r\n");
    ck_assert_int_eq(read_set("bike", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.d, 12);
    ck_assert_double_eq(raw.t[0], 16);
    dp_raw_destroy(&raw);
    /* uci-1.6 kddcup99: gzip, labels with '.', observed and sorted */
    char kdd[4096] = "";
    const char *labs[3] = {"smurf.", "normal.", "neptune."};
    for (int i = 0; i < 3; i++) {
        strcat(kdd, "0,tcp,http,SF");
        for (int j = 0; j < 37; j++) strcat(kdd, ",1");
        strcat(kdd, ",");
        strcat(kdd, labs[i]);
        strcat(kdd, "\n");
    }
    write_text("kddcup.data_10_percent.gz", kdd);
    ck_assert_int_eq(read_set("kddcup99", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.n, 3);
    ck_assert_int_eq(raw.n_classes, 3);
    ck_assert_str_eq(raw.class_names[0], "neptune");
    ck_assert_str_eq(raw.class_names[2], "smurf");
    ck_assert_int_eq(raw.y[0], 2);
    dp_raw_destroy(&raw);
    /* uci-1.7 breast_cancer: '?' missing, classes 2 / 4 */
    write_text("breast-cancer-wisconsin.data",
               "1000025,5,1,1,1,2,1,3,1,1,2\n1057013,8,4,5,1,2,?,7,3,1,4\n");
    ck_assert_int_eq(read_set("breast_cancer", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.d, 9);
    ck_assert(isnan(raw.x[9 + 5]));
    ck_assert_int_eq(raw.y[1], 1);
    dp_raw_destroy(&raw);
    /* uci-1.8 iris and uci-1.9 credit_fraud (quoted header, quoted labels) */
    write_text("iris.data", "5.1,3.5,1.4,0.2,Iris-setosa\n6.3,3.3,6.0,2.5,Iris-virginica\n\n");
    ck_assert_int_eq(read_set("iris", &raw, &e, 0), DP_OK);
    ck_assert_int_eq(raw.y[1], 2);
    dp_raw_destroy(&raw);
    char cc[4096] = "\"Time\"";
    for (int j = 1; j <= 28; j++) sprintf(cc + strlen(cc), ",\"V%d\"", j);
    strcat(cc, ",\"Amount\",\"Class\"\n0");
    for (int j = 1; j <= 28; j++) strcat(cc, ",-1.5");
    strcat(cc, ",149.62,\"1\"\n");
    write_text("creditcard.csv", cc);
    ck_assert_int_eq(read_set("credit_fraud", &raw, &e, 0), DP_OK);
    ck_assert_uint_eq(raw.d, 30);
    ck_assert_int_eq(raw.y[0], 1);
    ck_assert_double_eq(raw.x[29], 149.62);
    dp_raw_destroy(&raw);
}
END_TEST

// ---- uci-3: corrupt files ---------------------------------------------------------------

START_TEST(test_corrupt)
{
    dp_raw raw;
    dp_err e;
    write_text("adult.test", ADULT_TEST);
    /* uci-3.1 a short row */
    write_text("adult.data", "39, State-gov, 77516, Bachelors, 13\n");
    expect_error(read_set("adult", &raw, &e, 0), &e, 1, "5 fields, expected 15 (separator ',')");
    ck_assert_msg(strstr(e.file, "adult.data"), "%s", e.file);
    /* uci-3.2 a non-number in a numeric column, on line 2 */
    char bad[2048];
    snprintf(bad, sizeof bad, "%.*s%s", (int)(strchr(ADULT_DATA, '\n') - ADULT_DATA + 1),
             ADULT_DATA, "x39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
             "Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n");
    write_text("adult.data", bad);
    expect_error(read_set("adult", &raw, &e, 0), &e, 2, "field 1: 'x39' is not a number");
    /* uci-3.3 an unknown label */
    write_text("adult.data", "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, "
                             "Not-in-family, White, Male, 2174, 0, 40, United-States, maybe\n");
    expect_error(read_set("adult", &raw, &e, 0), &e, 1, "label 'maybe' is not one of <=50K, >50K");
    /* uci-3.4 a NUL byte (a binary file given as text) */
    FILE *f = fopen("/dev/null", "r");
    fclose(f);
    char p[400];
    snprintf(p, sizeof p, "%s/iris.data", dir);
    f = fopen(p, "wb");
    fwrite("5.1,3.5,1.4,0.2,Iris-setosa\n5.1,3\0.5,1.4\n", 1, 41, f);
    fclose(f);
    expect_error(read_set("iris", &raw, &e, 0), &e, 2, "a NUL byte in the line");
    /* uci-3.5 a truncated .gz */
    char kdd[65536] = "";
    for (int i = 0; i < 300; i++) {
        sprintf(kdd + strlen(kdd), "%d,tcp,http,SF", i);
        for (int j = 0; j < 37; j++) sprintf(kdd + strlen(kdd), ",%d", (i * 7 + j) % 13);
        strcat(kdd, ",normal.\n");
    }
    write_text("k.gz", kdd);
    char kp[400], cut[400];
    snprintf(kp, sizeof kp, "%s/k.gz", dir);
    snprintf(cut, sizeof cut, "%s/kddcup.data_10_percent.gz", dir);
    f = fopen(kp, "rb");
    static unsigned char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(cut, "wb");
    fwrite(buf, 1, n * 2 / 3, f);
    fclose(f);
    int rc = read_set("kddcup99", &raw, &e, 0);
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_msg(strstr(e.msg, "corrupt or truncated gzip data"), "%s", e.msg);
    /* uci-3.6 only a header */
    write_text("hour.csv", "instant,dteday,season,yr,mnth,hr,holiday,weekday,workingday,"
                           "weathersit,temp,atemp,hum,windspeed,casual,registered,cnt\n");
    rc = read_set("bike", &raw, &e, 0);
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_str_eq(e.msg, "no data rows");
    /* uci-3.7 fewer rows than the published file (cut at a line boundary) */
    write_text("iris.data", "5.1,3.5,1.4,0.2,Iris-setosa\n");
    rc = read_set("iris", &raw, &e, 1);
    ck_assert_int_eq(rc, DP_EDATA);
    ck_assert_msg(strstr(e.msg, "1 data rows, the published file has 150"), "%s", e.msg);
    /* uci-3.8 a stray quote */
    write_text("iris.data", "5.1,3.5,1.4,0.2,\"Iris-setosa\n");
    expect_error(read_set("iris", &raw, &e, 0), &e, 1, "field 5 has an unbalanced double quote");
    /* uci-3.9 a missing target */
    write_text("hour.csv", "h\n1,2011-01-01,1,0,1,0,0,6,0,1,0.24,0.2879,0.81,0,3,13,?\n");
    expect_error(read_set("bike", &raw, &e, 0), &e, 2, "field 17: target '?' is not a number");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("uci");
    const test_case_def cases[] = {{"uci-1.1", test_adult}, {"uci-1.2", test_other_layouts},
                                   {"uci-3.1", test_corrupt}};
    test_add_cases(s, cases, sizeof cases / sizeof cases[0], 30, setup, teardown);
    return s;
}

int main(void) { return test_run_suite(suite()); }
