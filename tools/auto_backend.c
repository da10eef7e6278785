/* --backend auto for short runs; see auto_backend.h. */
#include <string.h>

#include "auto_backend.h"

/* One thread's ns a luma pixel of each feature that has a GPU twin,
 * measured at 1920x1080 8-bit with `bench_vmaf --features` (AVX2, one
 * thread, picture copies included). Rough figures suffice: the choice only
 * matters where the whole run takes a fraction of a second. */
static const struct {
    const char *name;
    double ns;
} twin_cost[] = {
    { "motion", 3.1 },        { "vif", 11.9 },  { "adm", 3.0 },
    { "float_ssim", 1.6 },    { "psnr", 0.43 }, { "psnr_hvs", 22.6 },
    { "float_ms_ssim", 33.7 },
};

/* A model's features, computed together: vmaf_v0.6.1 and its relatives. */
#define MODEL_COST_NS 17.1

static bool names_twin(const char *name)
{
    const size_t n = strlen(name), k = strlen("_cuda");
    return n > k && !strcmp(name + n - k, "_cuda");
}

double auto_twin_cost_ns(const CliSettings *c)
{
    double ns = c->model_cnt ? MODEL_COST_NS : 0.0;
    for (unsigned i = 0; i < c->feature_cnt; i++) {
        const char *name = c->feature[i].name;
        if (names_twin(name))
            return -1.0;
        for (size_t k = 0; k < sizeof(twin_cost) / sizeof(twin_cost[0]); k++)
            if (!strcmp(name, twin_cost[k].name))
                ns += twin_cost[k].ns;
    }
    return ns;
}

double auto_cpu_seconds(const AutoWork *w, double ns_per_px)
{
    if (w->frames < 0 || ns_per_px < 0)
        return -1.0;
    const double scored = w->subsample > 1 ? (double)w->frames / w->subsample
                                           : (double)w->frames;
    /* Frame-parallel workers scale well but not perfectly, and no more
     * of them work than there are frames. */
    const double busy = scored < w->threads ? scored : w->threads;
    const double parallel = busy > 1 ? 0.75 * busy : 1.0;
    return scored * w->w * w->h * ns_per_px * 1e-9 / parallel;
}

bool auto_prefers_cpu(double cpu_seconds)
{
    return cpu_seconds >= 0 && cpu_seconds < AUTO_CUDA_STARTUP_S;
}
