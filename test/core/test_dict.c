/* Option dictionaries: the public set/free and the internal get, copy, merge
 * and equal that the context and the model code build on. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dict.h"

#include "check.h"

static void test_set_get_free(void)
{
    VmafFeatureDictionary *d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "2"), 0);
    CHECK(d != NULL);
    CHECK(vmaf_dict_get(d, "scale") && !strcmp(vmaf_dict_get(d, "scale"), "2"));
    CHECK(vmaf_dict_get(d, "missing") == NULL);
    CHECK(vmaf_dict_get(d, "scal") == NULL);
    CHECK(vmaf_dict_get(NULL, "scale") == NULL);
    CHECK(vmaf_dict_get(d, NULL) == NULL);

    /* Keys and values are copied, not referenced. */
    char key[] = "enable_lcs", val[] = "true";
    CHECK_INT(vmaf_feature_dictionary_set(&d, key, val), 0);
    key[0] = 'X', val[0] = 'X';
    CHECK(vmaf_dict_get(d, "enable_lcs") && !strcmp(vmaf_dict_get(d, "enable_lcs"), "true"));

    /* Replacing keeps one entry. */
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "3"), 0);
    CHECK(!strcmp(vmaf_dict_get(d, "scale"), "3"));
    CHECK_INT(d->cnt, 2);
    /* Empty values are values. */
    CHECK_INT(vmaf_feature_dictionary_set(&d, "empty", ""), 0);
    CHECK(vmaf_dict_get(d, "empty") && !strcmp(vmaf_dict_get(d, "empty"), ""));
    CHECK_INT(d->cnt, 3);

    /* Bad arguments change nothing. */
    CHECK_INT(vmaf_feature_dictionary_set(NULL, "k", "v"), -EINVAL);
    CHECK_INT(vmaf_feature_dictionary_set(&d, NULL, "v"), -EINVAL);
    CHECK_INT(vmaf_feature_dictionary_set(&d, "k", NULL), -EINVAL);
    CHECK_INT(d->cnt, 3);
    VmafFeatureDictionary *none = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&none, NULL, "v"), -EINVAL);
    CHECK(none == NULL);

    /* Growth past any initial capacity keeps every entry and its order. */
    for (int i = 0; i < 200; i++) {
        char k[16], v[16];
        snprintf(k, sizeof(k), "k%d", i);
        snprintf(v, sizeof(v), "v%d", i * 3);
        CHECK_INT(vmaf_feature_dictionary_set(&d, k, v), 0);
    }
    CHECK_INT(d->cnt, 203);
    for (int i = 0; i < 200; i++) {
        char k[16], v[16];
        snprintf(k, sizeof(k), "k%d", i);
        snprintf(v, sizeof(v), "v%d", i * 3);
        const char *got = vmaf_dict_get(d, k);
        CHECK(got && !strcmp(got, v));
        CHECK(!strcmp(d->entry[3 + i].key, k));
    }
    CHECK(!strcmp(d->entry[0].key, "scale") && !strcmp(d->entry[1].key, "enable_lcs"));

    CHECK_INT(vmaf_feature_dictionary_free(&d), 0);
    CHECK(d == NULL);
    CHECK_INT(vmaf_feature_dictionary_free(&d), 0);
    CHECK_INT(vmaf_feature_dictionary_free(NULL), 0);
}

static void test_copy(void)
{
    VmafFeatureDictionary *src = NULL, *dst = (VmafFeatureDictionary *)&dst;
    /* NULL and empty sources copy to NULL. */
    CHECK_INT(vmaf_dict_copy(NULL, &dst), 0);
    CHECK(dst == NULL);
    VmafFeatureDictionary empty = { 0 };
    CHECK_INT(vmaf_dict_copy(&empty, &dst), 0);
    CHECK(dst == NULL);

    CHECK_INT(vmaf_feature_dictionary_set(&src, "a", "1"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&src, "b", "2"), 0);
    CHECK_INT(vmaf_dict_copy(src, &dst), 0);
    CHECK(dst != NULL && dst != src);
    CHECK(vmaf_dict_equal(src, dst));
    /* A deep copy: changing or freeing the source leaves the copy as it was. */
    CHECK_INT(vmaf_feature_dictionary_set(&src, "a", "changed"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&src, "c", "3"), 0);
    CHECK(!strcmp(vmaf_dict_get(dst, "a"), "1"));
    CHECK(vmaf_dict_get(dst, "c") == NULL);
    CHECK(!vmaf_dict_equal(src, dst));
    vmaf_feature_dictionary_free(&src);
    CHECK(!strcmp(vmaf_dict_get(dst, "b"), "2"));
    CHECK(dst->cnt == 2);
    vmaf_feature_dictionary_free(&dst);
}

static void test_merge(void)
{
    VmafFeatureDictionary *dst = NULL, *src = NULL;
    /* Merging nothing changes nothing (and creates nothing). */
    CHECK_INT(vmaf_dict_merge(&dst, NULL), 0);
    CHECK(dst == NULL);

    CHECK_INT(vmaf_feature_dictionary_set(&src, "a", "1"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&src, "b", "2"), 0);
    /* Into NULL: creates a copy. */
    CHECK_INT(vmaf_dict_merge(&dst, src), 0);
    CHECK(dst && vmaf_dict_equal(dst, src));

    /* Source wins on shared keys; keys only in dst stay. */
    VmafFeatureDictionary *over = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&dst, "only_dst", "x"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&over, "a", "10"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&over, "new", "y"), 0);
    CHECK_INT(vmaf_dict_merge(&dst, over), 0);
    CHECK(!strcmp(vmaf_dict_get(dst, "a"), "10"));
    CHECK(!strcmp(vmaf_dict_get(dst, "b"), "2"));
    CHECK(!strcmp(vmaf_dict_get(dst, "only_dst"), "x"));
    CHECK(!strcmp(vmaf_dict_get(dst, "new"), "y"));
    CHECK_INT(dst->cnt, 4);
    /* The source is untouched. */
    CHECK_INT(over->cnt, 2);
    CHECK(!strcmp(vmaf_dict_get(over, "a"), "10"));

    /* Merging a dictionary into itself is a no-op, not a use after free. */
    CHECK_INT(vmaf_dict_merge(&dst, dst), 0);
    CHECK_INT(dst->cnt, 4);
    CHECK(!strcmp(vmaf_dict_get(dst, "a"), "10"));

    vmaf_feature_dictionary_free(&dst);
    vmaf_feature_dictionary_free(&src);
    vmaf_feature_dictionary_free(&over);
}

static void test_equal(void)
{
    VmafFeatureDictionary *a = NULL, *b = NULL;
    VmafFeatureDictionary empty = { 0 };
    CHECK(vmaf_dict_equal(NULL, NULL));
    CHECK(vmaf_dict_equal(NULL, &empty));
    CHECK(vmaf_dict_equal(&empty, NULL));

    CHECK_INT(vmaf_feature_dictionary_set(&a, "x", "1"), 0);
    CHECK(!vmaf_dict_equal(a, NULL));
    CHECK(!vmaf_dict_equal(NULL, a));
    CHECK(!vmaf_dict_equal(a, &empty));
    CHECK(vmaf_dict_equal(a, a));

    CHECK_INT(vmaf_feature_dictionary_set(&a, "y", "2"), 0);
    /* Same content in another order. */
    CHECK_INT(vmaf_feature_dictionary_set(&b, "y", "2"), 0);
    CHECK(!vmaf_dict_equal(a, b)); /* subset */
    CHECK(!vmaf_dict_equal(b, a)); /* superset */
    CHECK_INT(vmaf_feature_dictionary_set(&b, "x", "1"), 0);
    CHECK(vmaf_dict_equal(a, b));
    CHECK(vmaf_dict_equal(b, a));
    /* Different value. */
    CHECK_INT(vmaf_feature_dictionary_set(&b, "x", "1.0"), 0);
    CHECK(!vmaf_dict_equal(a, b));
    /* Same count, different key. */
    VmafFeatureDictionary *c = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&c, "x", "1"), 0);
    CHECK_INT(vmaf_feature_dictionary_set(&c, "z", "2"), 0);
    CHECK(!vmaf_dict_equal(a, c));
    CHECK(!vmaf_dict_equal(c, a));
    vmaf_feature_dictionary_free(&a);
    vmaf_feature_dictionary_free(&b);
    vmaf_feature_dictionary_free(&c);
}

int main(void)
{
    test_set_get_free();
    test_copy();
    test_merge();
    test_equal();
    return check_result("test_dict");
}
