/*
 * The CUDA twin as data, on any machine (no GPU needed): registered as the
 * twin of float_ssim with the same options and features, and refusing
 * exactly the geometries the device cannot compute exactly, with a reason;
 * the Gaussian taps symmetric, as the kernels assume; the launch shapes the
 * plan picks.
 * Without a GPU, vmaf_cuda_state_init must fail cleanly with -ENODEV; NULL
 * arguments are -EINVAL everywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf_cuda.h"

#include "cuda_test.h"

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "feature/cuda/float_ssim_cuda.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/ssim/ssim.h"
#include "registry.h"

static int refuses(int scale, unsigned w, unsigned h, unsigned bpc, char *why, size_t n)
{
    const VmafFeatureExtractor *t = &vmaf_fex_float_ssim_cuda;
    void *priv = calloc(1, t->priv_size);
    VmafFeatureDictionary *d = NULL;
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", scale);
    vmaf_feature_dictionary_set(&d, "scale", buf);
    int err = vmaf_fex_parse_options(t, priv, d);
    vmaf_feature_dictionary_free(&d);
    why[0] = '\0';
    if (!err)
        err = t->check_context(priv, w, h, bpc, why, n);
    free(priv);
    return err;
}

/* The launch shape the plan picks on a device of 132 multiprocessors (the
 * H200 its rule was measured on): 0 small tiles, 1 tall tiles, the last
 * strips. */
static int plan_shape(unsigned w, unsigned h, int scale)
{
    SsimCudaConsts k;
    SsimCudaPlan p;
    vmaf_ssim_cuda_consts(&k);
    vmaf_ssim_cuda_plan(&p, w, h, 8, scale, 0, 132, 9, &k);
    return p.shape;
}

int main(void)
{
    const VmafFeatureExtractor *cpu = vmaf_registry_find_by_name("float_ssim");
    const VmafFeatureExtractor *twin = vmaf_registry_twin(cpu, VMAF_FEX_BACKEND_CUDA);
    CHECK(twin == &vmaf_fex_float_ssim_cuda, "float_ssim_cuda is not float_ssim's CUDA twin");
    CHECK(vmaf_registry_cpu_of(twin) == cpu, "the twin does not lead back to float_ssim");
    CHECK(vmaf_registry_validate() == 0, "registry (twin options/features) does not validate");
    CHECK(vmaf_registry_find_by_feature("float_ssim") == cpu,
          "feature lookup must give the CPU extractor (the context picks the twin)");

    /* A twin whose options differ from the CPU's must be caught. */
    VmafFeatureExtractor bad = vmaf_fex_float_ssim_cuda;
    const VmafOption one[] = {{.name = "scale", .help = "x", .type = VMAF_OPT_TYPE_INT,
                               .max = 10},
                              {NULL}};
    bad.options = one;
    const VmafFeatureExtractor *table[] = {cpu, &bad};
    CHECK(vmaf_registry_validate_table(table, 2) != 0, "differing option tables not caught");

    /* The kernels make each product of a symmetric pair of taps once. */
    for (int u = 0; u < SSIM_WINDOW; u++)
        CHECK(!memcmp(&vmaf_ssim_gauss[u], &vmaf_ssim_gauss[SSIM_WINDOW - 1 - u], sizeof(float)),
              "Gaussian taps %d and %d differ: the kernels' shared products would be wrong", u,
              SSIM_WINDOW - 1 - u);

    char why[256];
    CHECK(refuses(0, 1920, 1080, 8, why, sizeof(why)) == 0, "1080p refused: %s", why);
    CHECK(refuses(0, 7680, 4320, 16, why, sizeof(why)) == 0, "8K (scale 17) refused: %s", why);
    CHECK(refuses(10, 110, 110, 8, why, sizeof(why)) == 0, "110x110 at scale 10 refused: %s",
          why);
    CHECK(refuses(10, 100, 100, 8, why, sizeof(why)) == -ENOTSUP && strstr(why, "11x11"),
          "100x100 at scale 10 (10x10 plane) not refused with a reason: '%s'", why);
    CHECK(refuses(1, 10, 300, 8, why, sizeof(why)) == -ENOTSUP && why[0],
          "10x300 not refused with a reason");
    /* Automatic scale 129 (short side 33000): above the exact limit. */
    CHECK(refuses(0, 33000, 33000, 8, why, sizeof(why)) == -ENOTSUP && strstr(why, "128"),
          "automatic scale 129 not refused with a reason: '%s'", why);
    CHECK(refuses(0, 32767, 32767, 8, why, sizeof(why)) == 0,
          "automatic scale 128 refused: %s", why);
    /* The exact edge: a short side of 32895 is scale 128, 32896 is 129. */
    CHECK(refuses(0, 40000, 32895, 8, why, sizeof(why)) == 0,
          "short side 32895 (automatic scale 128) refused: %s", why);
    CHECK(refuses(0, 40000, 32896, 8, why, sizeof(why)) == -ENOTSUP && strstr(why, "128"),
          "short side 32896 (automatic scale 129) not refused with a reason: '%s'", why);
    CHECK(refuses(0, 1920, 1080, 9, why, sizeof(why)) == -ENOTSUP, "9-bit not refused");

    /* Pictures take tall tiles from three quarters of a tile a
     * multiprocessor, decimated planes from two; strips for large planes
     * (STRIPS: the last shape). */
    enum { SMALL = 0, TALL = 1, STRIPS = -1 };
    static const struct {
        unsigned w, h;
        int scale, want;
        const char *what;
    } plans[] = {
        {3840, 2160, 1, STRIPS, "large picture"},
        {1920, 1080, 1, TALL, "picture, 1380 tall tiles"},
        {576, 324, 1, TALL, "picture, 126 tall tiles"},
        {480, 360, 1, TALL, "picture, 120 tall tiles"},
        {426, 240, 1, SMALL, "picture, 65 tall tiles"},
        {3840, 2160, 8, SMALL, "480x270 plane, 90 tall tiles"},
        {1280, 720, 2, SMALL, "640x360 plane, 160 tall tiles"},
        {7680, 4320, 4, TALL, "1920x1080 plane, 1380 tall tiles"},
    };
    for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
        const int want = plans[i].want == STRIPS ? vmaf_ssim_cuda_shapes() - 1 : plans[i].want;
        const int got = plan_shape(plans[i].w, plans[i].h, plans[i].scale);
        CHECK(got == want, "%ux%u at scale %d (%s): plan picks shape %d, want %d", plans[i].w,
              plans[i].h, plans[i].scale, plans[i].what, got, want);
    }

    VmafCudaState *cu = NULL;
    const int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    CHECK(err == 0 || err == -ENODEV, "vmaf_cuda_state_init gave %d (want 0 or -ENODEV)", err);
    CHECK(err ? cu == NULL : cu != NULL, "state pointer inconsistent with the result");
    printf("cuda state: %s\n", err ? "no usable GPU (-ENODEV), as expected here" : "GPU found");
    vmaf_cuda_state_free(cu);

    /* NULL arguments are -EINVAL, GPU or not. */
    CHECK(vmaf_cuda_state_init(NULL, (VmafCudaConfiguration){0}) == -EINVAL,
          "vmaf_cuda_state_init(NULL) not -EINVAL");
    CHECK(vmaf_cuda_import_state(NULL, NULL) == -EINVAL, "import of NULL not -EINVAL");
    CHECK(vmaf_cuda_fetch_preallocated_picture(NULL, NULL) == -EINVAL,
          "fetch with NULL not -EINVAL");
    CHECK(vmaf_cuda_preallocate_pictures(NULL, (VmafCudaPictureConfiguration){0}) == -EINVAL,
          "preallocation with NULL not -EINVAL");

    /* A sticky error is logged once a state, whichever part of the library
     * meets it first (the frames' upload, the extractor's wait); other
     * errors each time they happen. */
    struct VmafCudaState *st = calloc(1, sizeof(*st));
    CHECK(st != NULL, "out of memory");
    if (st) {
        atomic_init(&st->reported, (int)cudaSuccess);
        CHECK(vmaf_cuda_report(st, cudaErrorIllegalAddress), "first sticky error not logged");
        CHECK(!vmaf_cuda_report(st, cudaErrorIllegalAddress), "a sticky error logged twice");
        CHECK(vmaf_cuda_report(st, cudaErrorMemoryAllocation) &&
                  vmaf_cuda_report(st, cudaErrorMemoryAllocation),
              "a plain error (out of memory) not logged each time");
        CHECK(vmaf_cuda_report(st, cudaErrorLaunchFailure) &&
                  !vmaf_cuda_report(st, cudaErrorLaunchFailure),
              "a second sticky error not logged once");
        CHECK(vmaf_cuda_report(NULL, cudaErrorIllegalAddress), "no state: not logged");
        free(st);
    }

    printf("test_cuda_host: %s\n", check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
