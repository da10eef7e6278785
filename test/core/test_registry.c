/* The registry: the real table is valid, the validator catches every kind of
 * broken table we can think of, and lookups by extractor name, feature name
 * and backend return what the table says. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "config.h"
#include "registry.h"

#include "check.h"

/* --- A crafted table: one CPU extractor "a" and its CUDA twin "a_cuda". --- */

typedef struct Priv {
    int n;
    double x;
    bool b;
} Priv;

static int dummy_init(VmafFex *fex) { (void)fex; return 0; }
static void dummy_close(VmafFex *fex) { (void)fex; }
static int dummy_extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    (void)fex, (void)frame, (void)fc;
    return 0;
}
static int dummy_check(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                       size_t why_len)
{
    (void)priv, (void)w, (void)h, (void)bpc, (void)why, (void)why_len;
    return 0;
}
static int dummy_reserve(VmafFex *fex)
{
    (void)fex;
    return 0;
}
static int dummy_submit(VmafFex *fex, const struct VmafCudaPlanes *planes)
{
    (void)fex, (void)planes;
    return 0;
}
static int dummy_collect(VmafFex *fex, bool wait, VmafFeatureCollector *fc)
{
    (void)fex, (void)wait, (void)fc;
    return 0;
}

static const VmafOption opts_a[] = {
    { .name = "n", .help = "an int", .type = VMAF_OPT_TYPE_INT, .offset = offsetof(Priv, n),
      .def.i = 3, .min = 0, .max = 10 },
    { .name = "x", .help = "a double", .type = VMAF_OPT_TYPE_DOUBLE,
      .offset = offsetof(Priv, x), .def.d = 0.5, .min = -1.0, .max = 1.0 },
    { .name = "b", .help = "a bool", .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(Priv, b),
      .def.b = false },
    { .name = NULL }
};

static const char *const feat_a[] = { "fa", "fa_extra", NULL };
static const char *const feat_b[] = { "fb", NULL };
static const char *const feat_b_and_a[] = { "fb", "fa_extra", NULL };
static const char *const flush_a[] = { "fa_extra", NULL };
static const char *const flush_foreign[] = { "fb", NULL };

#define CPU_FLUSH(nm, op, feats, flushed)                                              \
    { .name = (nm), .backend = VMAF_FEX_BACKEND_CPU, .options = (op),                  \
      .priv_size = sizeof(Priv), .provided_features = (feats),                        \
      .flushed_features = (flushed), .init = dummy_init, .extract = dummy_extract,     \
      .close = dummy_close }
#define CPU(nm, op, feats) CPU_FLUSH(nm, op, feats, NULL)
/* A twin has no options or features of its own: it has its CPU extractor's. */
#define TWIN_OWN(nm, of, op, feats)                                                    \
    { .name = (nm), .backend = VMAF_FEX_BACKEND_CUDA, .twin_of = (of), .options = (op), \
      .priv_size = sizeof(Priv), .provided_features = (feats),                         \
      .check_context = dummy_check, .init = dummy_init, .reserve = dummy_reserve,      \
      .submit = dummy_submit, .collect = dummy_collect, .close = dummy_close }
#define TWIN(nm, of) TWIN_OWN(nm, of, NULL, NULL)

static const VmafFeatureExtractor fa = CPU_FLUSH("a", opts_a, feat_a, flush_a);
static const VmafFeatureExtractor fa_dup_name = CPU("a", opts_a, feat_b);
static const VmafFeatureExtractor fb = CPU("b", opts_a, feat_b);
static const VmafFeatureExtractor fb_overlap = CPU("b", opts_a, feat_b_and_a);
static const VmafFeatureExtractor fb_bad_flush = CPU_FLUSH("b", opts_a, feat_a, flush_foreign);
static const VmafFeatureExtractor fa_cuda = TWIN("a_cuda", &fa);
static const VmafFeatureExtractor fa_cuda2 = TWIN("a_cuda2", &fa);
static const VmafFeatureExtractor tw_opts = TWIN_OWN("a_cuda", &fa, opts_a, NULL);
static const VmafFeatureExtractor tw_feats = TWIN_OWN("a_cuda", &fa, NULL, feat_a);
static const VmafFeatureExtractor tw_nocpu = TWIN("a_cuda", &fb); /* fb is not in the tables */
static const VmafFeatureExtractor tw_null = TWIN("a_cuda", NULL);
static const VmafFeatureExtractor tw_of_twin = TWIN("a_cuda_cuda", &fa_cuda);
static const VmafFeatureExtractor no_name = CPU(NULL, opts_a, feat_b);
static const VmafFeatureExtractor no_init = { .name = "c", .backend = VMAF_FEX_BACKEND_CPU,
                                              .provided_features = feat_b,
                                              .extract = dummy_extract, .close = dummy_close };

/* Validates a table with the log captured; returns the result and checks
 * that a failure logged at least one line naming `mention`. */
static int validate(const char *what, const VmafFeatureExtractor *const *t, size_t n,
                    const char *mention)
{
    capture_begin();
    int err = vmaf_registry_validate_table(t, n);
    const char *log = capture_end();
    if (err) {
        if (err != -EINVAL) {
            fprintf(stderr, "%s: expected -EINVAL, got %d\n", what, err);
            check_failures++;
        }
        if (count_lines(log) < 1 || (mention && !strstr(log, mention))) {
            fprintf(stderr, "%s: failure not logged or does not name '%s': [%s]\n", what,
                    mention ? mention : "", log);
            check_failures++;
        }
    } else if (log[0]) {
        fprintf(stderr, "%s: valid table logged something: [%s]\n", what, log);
        check_failures++;
    }
    return err;
}

#define N(t) (sizeof(t) / sizeof((t)[0]))

static void test_crafted_tables(void)
{
    const VmafFeatureExtractor *ok1[] = { &fa };
    const VmafFeatureExtractor *ok2[] = { &fa, &fa_cuda, &fb };
    const VmafFeatureExtractor *ok3[] = { &fa_cuda, &fa }; /* order does not matter */
    CHECK_INT(validate("one cpu", ok1, N(ok1), NULL), 0);
    CHECK_INT(validate("cpu+twin+cpu", ok2, N(ok2), NULL), 0);
    CHECK_INT(validate("twin first", ok3, N(ok3), NULL), 0);
    CHECK_INT(validate("empty", ok1, 0, NULL), 0);

    const VmafFeatureExtractor *dup_entry[] = { &fa, &fb, &fa };
    CHECK_INT(validate("duplicate entry", dup_entry, N(dup_entry), "a"), -EINVAL);
    const VmafFeatureExtractor *dup_twin[] = { &fa, &fa_cuda, &fa_cuda };
    CHECK_INT(validate("duplicate twin entry", dup_twin, N(dup_twin), "a_cuda"), -EINVAL);
    const VmafFeatureExtractor *dup_name[] = { &fa, &fa_dup_name };
    CHECK_INT(validate("duplicate name", dup_name, N(dup_name), "a"), -EINVAL);
    const VmafFeatureExtractor *two_twins[] = { &fa, &fa_cuda, &fa_cuda2 };
    CHECK_INT(validate("two twins on one backend", two_twins, N(two_twins), "a_cuda"),
              -EINVAL);

    struct {
        const char *what;
        const VmafFeatureExtractor *twin;
    } bad_twins[] = {
        { "twin lists options of its own", &tw_opts },
        { "twin lists features of its own", &tw_feats },
        { "twin names a cpu extractor outside the table", &tw_nocpu },
        { "twin names nothing", &tw_null },
    };
    for (size_t i = 0; i < N(bad_twins); i++) {
        const VmafFeatureExtractor *t[] = { &fa, bad_twins[i].twin };
        CHECK_INT(validate(bad_twins[i].what, t, N(t), "a_cuda"), -EINVAL);
        /* Same in the other order: the check must not depend on position. */
        const VmafFeatureExtractor *r[] = { bad_twins[i].twin, &fa };
        CHECK_INT(validate(bad_twins[i].what, r, N(r), "a_cuda"), -EINVAL);
    }
    const VmafFeatureExtractor *bad_flush[] = { &fb_bad_flush };
    CHECK_INT(validate("flushes a feature it does not provide", bad_flush, N(bad_flush), "fb"),
              -EINVAL);
    const VmafFeatureExtractor *twin_alone[] = { &fa_cuda };
    CHECK_INT(validate("twin without its cpu extractor", twin_alone, N(twin_alone), "a_cuda"),
              -EINVAL);
    const VmafFeatureExtractor *twin_of_twin[] = { &fa, &fa_cuda, &tw_of_twin };
    CHECK_INT(validate("twin of a twin", twin_of_twin, N(twin_of_twin), "a_cuda_cuda"),
              -EINVAL);

    /* An incomplete entry is reported, and the others are still checked
     * against it without tripping over its missing fields. */
    const VmafFeatureExtractor *nameless[] = { &no_name, &fa, &fa_cuda };
    CHECK_INT(validate("entry without a name", nameless, N(nameless), "entry 0"), -EINVAL);
    const VmafFeatureExtractor *nameless_last[] = { &fa, &fa_cuda, &no_name };
    CHECK_INT(validate("entry without a name, last", nameless_last, N(nameless_last),
                       "entry 2"),
              -EINVAL);
    const VmafFeatureExtractor *initless[] = { &fa, &no_init };
    CHECK_INT(validate("entry without init", initless, N(initless), "entry 1"), -EINVAL);

    const VmafFeatureExtractor *overlap[] = { &fa, &fb_overlap };
    CHECK_INT(validate("two cpu extractors provide one feature", overlap, N(overlap),
                       "fa_extra"),
              -EINVAL);
    const VmafFeatureExtractor *overlap_r[] = { &fb_overlap, &fa };
    CHECK_INT(validate("two cpu extractors provide one feature (reversed)", overlap_r,
                       N(overlap_r), "fa_extra"),
              -EINVAL);
}

/* --- The real table. --- */

static void test_real_table(void)
{
    capture_begin();
    int err = vmaf_registry_validate();
    const char *log = capture_end();
    CHECK_INT(err, 0);
    if (err)
        fprintf(stderr, "registry problems:\n%s", log);

    size_t n = vmaf_registry_count();
    CHECK(n >= 1);
    CHECK(vmaf_registry_at(n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const VmafFeatureExtractor *f = vmaf_registry_at(i);
        CHECK(f != NULL);
        if (!f)
            continue;
        CHECK(vmaf_registry_find_by_name(f->name) == f);
        CHECK(vmaf_registry_cpu_of(f) != NULL);
        if (f->backend == VMAF_FEX_BACKEND_CPU) {
            CHECK(vmaf_registry_cpu_of(f) == f);
            CHECK(vmaf_registry_twin(f, VMAF_FEX_BACKEND_CPU) == f);
            for (const char *const *p = f->provided_features; p && *p; p++)
                CHECK(vmaf_registry_find_by_feature(*p) == f);
        } else {
            const VmafFeatureExtractor *cpu = vmaf_registry_cpu_of(f);
            CHECK(cpu && cpu->backend == VMAF_FEX_BACKEND_CPU);
            CHECK(cpu == f->twin_of);
            CHECK(vmaf_registry_twin(cpu, f->backend) == f);
            /* Its options and features are its CPU extractor's. */
            CHECK(cpu && vmaf_fex_options(f) == cpu->options);
            CHECK(cpu && vmaf_fex_features(f) == cpu->provided_features);
        }
    }

    const VmafFeatureExtractor *ssim = vmaf_registry_find_by_name("float_ssim");
    CHECK(ssim != NULL);
    if (ssim) {
        CHECK_INT(ssim->backend, VMAF_FEX_BACKEND_CPU);
        CHECK(vmaf_registry_find_by_feature("float_ssim") == ssim);
        CHECK(vmaf_registry_find_by_feature("float_ssim_l") == ssim);
        CHECK(vmaf_registry_find_by_feature("float_ssim_c") == ssim);
        CHECK(vmaf_registry_find_by_feature("float_ssim_s") == ssim);
        static const char *const keys[] = { "scale", "enable_lcs", "enable_db", "clip_db" };
        for (size_t k = 0; k < N(keys); k++) {
            int found = 0;
            for (const VmafOption *o = ssim->options; o && o->name; o++)
                found |= !strcmp(o->name, keys[k]);
            if (!found)
                fprintf(stderr, "float_ssim lacks option %s\n", keys[k]);
            CHECK(found);
        }
        const VmafFeatureExtractor *twin = vmaf_registry_twin(ssim, VMAF_FEX_BACKEND_CUDA);
#if HAVE_CUDA
        CHECK(twin != NULL);
        CHECK(twin == vmaf_registry_find_by_name("float_ssim_cuda"));
        CHECK(vmaf_registry_absent_twin("float_ssim_cuda") == NULL);
#else
        /* Known by name all the same: asking for it is -ENODEV. */
        CHECK(twin == NULL);
        CHECK(vmaf_registry_find_by_name("float_ssim_cuda") == NULL);
        CHECK(vmaf_registry_absent_twin("float_ssim_cuda") == ssim);
#endif
        CHECK(vmaf_registry_absent_twin("float_ssim") == NULL);
        CHECK(vmaf_registry_absent_twin(NULL) == NULL);
    }

    /* Feature names are not extractor names and vice versa where they differ. */
    CHECK(vmaf_registry_find_by_name("float_ssim_l") == NULL);
    CHECK(vmaf_registry_find_by_name("") == NULL);
    CHECK(vmaf_registry_find_by_name("FLOAT_SSIM") == NULL);
    CHECK(vmaf_registry_find_by_name("float_ssi") == NULL);
    CHECK(vmaf_registry_find_by_name(NULL) == NULL);
    CHECK(vmaf_registry_find_by_feature("nonexistent") == NULL);
    CHECK(vmaf_registry_find_by_feature("") == NULL);
    CHECK(vmaf_registry_find_by_feature(NULL) == NULL);
    CHECK(vmaf_registry_twin(NULL, VMAF_FEX_BACKEND_CUDA) == NULL);
    CHECK(vmaf_registry_cpu_of(NULL) == NULL);
}

int main(void)
{
    test_crafted_tables();
    test_real_table();
    return check_result("test_registry");
}
