/* Strict option parsing (vmaf_fex_parse_options) on a crafted extractor:
 * defaults first, every malformed value refused with one log line that says
 * what is valid, and nothing ever accepted by accident. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dict.h"
#include "feature/feature_extractor.h"

#include "check.h"

typedef struct Priv {
    bool flag;
    int n;
    double x;
    int neg;
} Priv;

static const VmafOption opts[] = {
    { .name = "flag", .help = "a switch", .type = VMAF_OPT_TYPE_BOOL,
      .offset = offsetof(Priv, flag), .def.b = true },
    { .name = "n", .help = "a count", .type = VMAF_OPT_TYPE_INT, .offset = offsetof(Priv, n),
      .def.i = 3, .min = 0, .max = 10 },
    { .name = "x", .help = "a weight", .type = VMAF_OPT_TYPE_DOUBLE,
      .offset = offsetof(Priv, x), .def.d = 0.5, .min = -1.0, .max = 1.0 },
    { .name = "neg", .help = "any int", .type = VMAF_OPT_TYPE_INT,
      .offset = offsetof(Priv, neg), .def.i = -7, .min = -2147483648.0, .max = 2147483647.0 },
    { .name = NULL }
};

static const VmafFeatureExtractor fex = { .name = "crafted", .options = opts,
                                          .priv_size = sizeof(Priv) };
static const VmafFeatureExtractor fex_none = { .name = "no_options", .options = NULL,
                                               .priv_size = sizeof(Priv) };

static void poison(Priv *p)
{
    memset(p, 0xa5, sizeof(*p));
}

static int defaults_ok(const Priv *p)
{
    return p->flag == true && p->n == 3 && p->x == 0.5 && p->neg == -7;
}

/* Parses one key=value; returns the error, the log in *log. */
static int parse1(const VmafFeatureExtractor *f, Priv *p, const char *key, const char *val,
                  const char **log)
{
    VmafFeatureDictionary *d = NULL;
    if (vmaf_feature_dictionary_set(&d, key, val)) {
        fprintf(stderr, "dictionary set failed\n");
        exit(99);
    }
    poison(p);
    capture_begin();
    int err = vmaf_fex_parse_options(f, p, d);
    *log = capture_end();
    vmaf_feature_dictionary_free(&d);
    return err;
}

/* A value that must be refused: -EINVAL and exactly one log line naming the
 * extractor, the key and each of the `hints` (the range or the choices). */
static void refuse(const char *key, const char *val, const char *hint1, const char *hint2)
{
    Priv p;
    const char *log;
    int err = parse1(&fex, &p, key, val, &log);
    if (err != -EINVAL) {
        fprintf(stderr, "option %s='%s': expected -EINVAL, got %d\n", key, val, err);
        check_failures++;
        return;
    }
    /* A value holding a newline may split the line; count lines otherwise. */
    const int want_lines = strchr(val, '\n') ? count_lines(log) : 1;
    if (count_lines(log) != want_lines || !log[0] || !strstr(log, "crafted") ||
        !strstr(log, key) ||
        (hint1 && !strstr(log, hint1)) || (hint2 && !strstr(log, hint2))) {
        fprintf(stderr, "option %s='%s': log should be one line naming crafted, %s, %s, %s: [%s]\n",
                key, val, key, hint1 ? hint1 : "-", hint2 ? hint2 : "-", log);
        check_failures++;
    }
}

static void accept_int(const char *key, const char *val, int want)
{
    Priv p;
    const char *log;
    int err = parse1(&fex, &p, key, val, &log);
    if (err || log[0]) {
        fprintf(stderr, "option %s='%s': expected success, got %d [%s]\n", key, val, err, log);
        check_failures++;
        return;
    }
    int got = !strcmp(key, "n") ? p.n : p.neg;
    if (got != want) {
        fprintf(stderr, "option %s='%s': got %d, expected %d\n", key, val, got, want);
        check_failures++;
    }
}

static void accept_double(const char *val, double want)
{
    Priv p;
    const char *log;
    int err = parse1(&fex, &p, "x", val, &log);
    if (err || log[0] || p.x != want) {
        fprintf(stderr, "option x='%s': expected %.17g, got err %d value %.17g [%s]\n", val,
                want, err, p.x, log);
        check_failures++;
    }
}

static void accept_bool(const char *val, bool want)
{
    Priv p;
    const char *log;
    int err = parse1(&fex, &p, "flag", val, &log);
    if (err || log[0] || p.flag != want) {
        fprintf(stderr, "option flag='%s': expected %d, got err %d value %d [%s]\n", val,
                want, err, p.flag, log);
        check_failures++;
    }
}

static void test_defaults(void)
{
    Priv p;
    poison(&p);
    CHECK_INT(vmaf_fex_parse_options(&fex, &p, NULL), 0);
    CHECK(defaults_ok(&p));

    VmafFeatureDictionary empty = { 0 };
    poison(&p);
    CHECK_INT(vmaf_fex_parse_options(&fex, &p, &empty), 0);
    CHECK(defaults_ok(&p));

    /* Setting one option leaves the others at their defaults. */
    const char *log;
    CHECK_INT(parse1(&fex, &p, "n", "7", &log), 0);
    CHECK(p.n == 7 && p.flag == true && p.x == 0.5 && p.neg == -7);

    VmafFeatureDictionary *d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "flag", "false"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&d, "x", "-0.25"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&d, "n", "10"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&d, "neg", "-2147483648"), 0);
    poison(&p);
    CHECK_INT(vmaf_fex_parse_options(&fex, &p, d), 0);
    CHECK(p.flag == false && p.n == 10 && p.x == -0.25 && p.neg == INT32_MIN);
    /* Options apply to the private struct only at their offsets. */
    vmaf_feature_dictionary_free(&d);

    /* An extractor without options: defaults are trivially fine, any key is not. */
    poison(&p);
    CHECK_INT(vmaf_fex_parse_options(&fex_none, &p, NULL), 0);
    CHECK_INT(parse1(&fex_none, &p, "some_key", "1", &log), -EINVAL);
    CHECK(count_lines(log) == 1 && strstr(log, "no_options") && strstr(log, "some_key"));
}

static void test_unknown_key(void)
{
    Priv p;
    const char *log;
    CHECK_INT(parse1(&fex, &p, "typo_key", "1", &log), -EINVAL);
    /* The message lists every valid key so that the user can fix the typo. */
    CHECK(count_lines(log) == 1);
    CHECK(strstr(log, "crafted") != NULL);
    CHECK(strstr(log, "typo_key") != NULL);
    CHECK(strstr(log, "flag") && strstr(log, "neg") && strstr(log, "x"));
    if (!(strstr(log, "flag") && strstr(log, "neg")))
        fprintf(stderr, "unknown key log: [%s]\n", log);
    /* Case matters, and prefixes are not keys. */
    CHECK_INT(parse1(&fex, &p, "N", "1", &log), -EINVAL);
    CHECK_INT(parse1(&fex, &p, "fla", "true", &log), -EINVAL);
    CHECK_INT(parse1(&fex, &p, "flags", "true", &log), -EINVAL);
    CHECK_INT(parse1(&fex, &p, "", "1", &log), -EINVAL);

    /* One bad key among good ones still fails the whole set. */
    VmafFeatureDictionary *d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "n", "2"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&d, "bogus", "2"), 0);
    capture_begin();
    CHECK_INT(vmaf_fex_parse_options(&fex, &p, d), -EINVAL);
    log = capture_end();
    CHECK(strstr(log, "bogus") != NULL);
    vmaf_feature_dictionary_free(&d);
}

static void test_int(void)
{
    accept_int("n", "0", 0);
    accept_int("n", "10", 10);
    accept_int("n", "5", 5);
    accept_int("neg", "2147483647", 2147483647);
    accept_int("neg", "-2147483648", -2147483647 - 1);
    accept_int("neg", "-1", -1);

    /* Out of range: the message gives the range. */
    refuse("n", "11", "0", "10");
    refuse("n", "-1", "0", "10");
    refuse("n", "1000000", "0", "10");
    /* Overflow of int and of long. */
    refuse("neg", "2147483648", NULL, NULL);
    refuse("neg", "-2147483649", NULL, NULL);
    refuse("neg", "99999999999999999999999", NULL, NULL);
    refuse("n", "99999999999999999999999", NULL, NULL);
    /* Not one whole integer. */
    refuse("n", "2xyz", NULL, NULL);
    refuse("n", "2 ", NULL, NULL);
    refuse("n", " 2", NULL, NULL);
    refuse("n", "\t2", NULL, NULL);
    refuse("n", "\n2", NULL, NULL);
    refuse("n", "2\n", NULL, NULL);
    refuse("n", "", NULL, NULL);
    refuse("n", "-", NULL, NULL);
    refuse("n", "2.0", NULL, NULL);
    refuse("n", "2.5", NULL, NULL);
    refuse("n", "1e1", NULL, NULL);
    refuse("n", "0x2", NULL, NULL);
    refuse("n", "two", NULL, NULL);
    refuse("n", "true", NULL, NULL);
    refuse("n", "nan", NULL, NULL);
}

static void test_double(void)
{
    accept_double("0.5", 0.5);
    accept_double("-1", -1.0);
    accept_double("1", 1.0);
    accept_double("1.0", 1.0);
    accept_double("0", 0.0);
    accept_double("-0.125", -0.125);
    accept_double("2.5e-1", 0.25);

    refuse("x", "1.0000001", "-1", "1");
    refuse("x", "-1.5", "-1", "1");
    refuse("x", "nan", NULL, NULL);
    refuse("x", "NaN", NULL, NULL);
    refuse("x", "-nan", NULL, NULL);
    refuse("x", "inf", NULL, NULL);
    refuse("x", "-inf", NULL, NULL);
    refuse("x", "infinity", NULL, NULL);
    refuse("x", "1e999", NULL, NULL);
    refuse("x", "-1e999", NULL, NULL);
    refuse("x", "0.5abc", NULL, NULL);
    refuse("x", "0.5 ", NULL, NULL);
    refuse("x", " 0.5", NULL, NULL);
    refuse("x", "\n0.5", NULL, NULL);
    refuse("x", "", NULL, NULL);
    refuse("x", ".", NULL, NULL);
    refuse("x", "e1", NULL, NULL);
    refuse("x", "0.5,", NULL, NULL);
    refuse("x", "false", NULL, NULL);
}

static void test_bool(void)
{
    accept_bool("true", true);
    accept_bool("false", false);
    static const char *const bad[] = { "1", "0", "yes", "no", "TRUE", "True", "False",
                                       "", " true", "true ", "t", "f", "on", "truex" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        refuse("flag", bad[i], "true", "false");
}

int main(void)
{
    test_defaults();
    test_unknown_key();
    test_int();
    test_double();
    test_bool();
    return check_result("test_options");
}
