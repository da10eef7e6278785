/* The presets; see cli_presets.h. Their contents are the reference tool's
 * (libvmaf 3.2), in its order, which is the order of the report. */
#include <stdio.h>
#include <string.h>

#include "cli_presets.h"
#include "one_line.h"

/* AOM CTC v1.0; v2.0 is the same preset. */
static const CliPreset aom_ctc_v1 = {
    .models = { "version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg", NULL },
    .features = { "psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", "ciede",
                  "float_ssim=enable_db=true:clip_db=true",
                  "float_ms_ssim=enable_db=true:clip_db=true", "psnr_hvs", NULL },
};

static const char *const aom_ctc_cambi[] = { "v3.0", "v4.0", "v5.0", "v6.0", "v7.0", NULL };

static const CliPreset *refuse(char *err, size_t err_sz, const char *option,
                               const char *version, const char *why)
{
    snprintf(err, err_sz, "vmaf: not supported (--%s %s): %s", option, version, why);
    one_line(err);
    return NULL;
}

const CliPreset *cli_preset_find(const char *option, const char *version, char *err,
                                 size_t err_sz)
{
    if (!strcmp(option, "aom_ctc")) {
        if (!strcmp(version, "v1.0") || !strcmp(version, "v2.0"))
            return &aom_ctc_v1;
        for (const char *const *v = aom_ctc_cambi; *v; v++)
            if (!strcmp(version, *v))
                return refuse(err, err_sz, option, version, "this version adds CAMBI, which "
                              "this build does not have yet; v1.0 and v2.0 run");
        if (!strcmp(version, "proposed"))
            return refuse(err, err_sz, option, version, "deprecated by the reference; use "
                          "v1.0 or v2.0");
        return refuse(err, err_sz, option, version, "unknown version; v1.0 and v2.0 run");
    }
    if (!strcmp(version, "v1.0"))
        return refuse(err, err_sz, option, version, "the preset needs CAMBI, which this build "
                      "does not have yet; its other parts are -m "
                      "version=vmaf_4k_v0.6.1:name=vmaf -m version=vmaf_4k_v0.6.1neg:name="
                      "vmaf_neg --feature psnr=enable_chroma=true:enable_apsnr=true --feature "
                      "float_ssim=enable_db=true:clip_db=true");
    return refuse(err, err_sz, option, version, "unknown version; the reference has v1.0");
}
