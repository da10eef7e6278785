#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adm_test_params.h"
#include "cpu.h"
#include "feature/adm/adm_dsp.h"

const char *const adm_output_names[ADM_N_OUTPUTS] = {
    "integer_adm2",           "integer_aim",            "integer_adm3",
    "integer_adm_scale0",     "integer_adm_scale1",     "integer_adm_scale2",
    "integer_adm_scale3",     "integer_adm",            "integer_adm_num",
    "integer_adm_den",        "integer_adm_num_scale0", "integer_adm_den_scale0",
    "integer_adm_num_scale1", "integer_adm_den_scale1", "integer_adm_num_scale2",
    "integer_adm_den_scale2", "integer_adm_num_scale3", "integer_adm_den_scale3",
};

double adm_output_value(const AdmScores *s, unsigned i)
{
    const double head[10] = {s->adm2,     s->aim,      s->adm3, s->scale[0], s->scale[1],
                             s->scale[2], s->scale[3], s->adm,  s->num,      s->den};
    if (i < 10)
        return head[i];
    i -= 10;
    return i % 2 ? s->den_scale[i / 2] : s->num_scale[i / 2];
}

static int set_option(AdmParams *p, const char *key, const char *val)
{
    const double d = strtod(val, NULL);
    const bool on = !strcmp(val, "true");
    if (!strcmp(key, "adm_enhn_gain_limit") || !strcmp(key, "egl"))
        p->enhn_gain_limit = d;
    else if (!strcmp(key, "adm_norm_view_dist") || !strcmp(key, "nvd"))
        p->norm_view_dist = d;
    else if (!strcmp(key, "adm_ref_display_height") || !strcmp(key, "rdh"))
        p->ref_display_height = atoi(val);
    else if (!strcmp(key, "adm_csf_scale") || !strcmp(key, "scf"))
        p->csf_scale = d;
    else if (!strcmp(key, "adm_csf_diag_scale") || !strcmp(key, "scfd"))
        p->csf_diag_scale = d;
    else if (!strcmp(key, "adm_noise_weight") || !strcmp(key, "nw"))
        p->noise_weight = d;
    else if (!strcmp(key, "adm_dlm_weight") || !strcmp(key, "dlmw"))
        p->dlm_weight = d;
    else if (!strcmp(key, "adm_min_val") || !strcmp(key, "min"))
        p->min_val = d;
    else if (!strcmp(key, "adm_csf_mode") || !strcmp(key, "csf"))
        p->csf_mode = atoi(val);
    else if (!strcmp(key, "adm_skip_scale0") || !strcmp(key, "ssz"))
        p->skip_scale0 = on;
    else if (!strcmp(key, "adm_skip_aim"))
        p->skip_aim = on;
    else if (strcmp(key, "debug"))
        return -EINVAL;
    return 0;
}

int adm_apply_options(AdmParams *p, const char *opts)
{
    char buf[1024];
    if (strlen(opts) >= sizeof(buf))
        return -EINVAL;
    strcpy(buf, opts);
    char *save = NULL;
    for (char *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return -EINVAL;
        *eq = '\0';
        if (set_option(p, kv, eq + 1)) {
            fprintf(stderr, "adm test: unknown option %s\n", kv);
            return -EINVAL;
        }
    }
    return 0;
}

/* The options a model gives the feature named "..._adm2_score" (JSON values
 * as text). */
static int model_params(const char *path, AdmParams *p)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root) {
        fprintf(stderr, "adm test: %s: %s\n", path, e.text);
        return -EINVAL;
    }
    const json_t *md = json_object_get(root, "model_dict");
    if (!md) /* a bootstrap collection: its models share the features */
        md = json_object_get(json_object_get(root, "0"), "model_dict");
    const json_t *names = json_object_get(md, "feature_names");
    const json_t *opts = json_object_get(md, "feature_opts_dicts");
    int found = md ? 0 : -EINVAL;
    for (size_t i = 0; i < json_array_size(names); i++) {
        const char *name = json_string_value(json_array_get(names, i));
        if (!name || !strstr(name, "_adm"))
            continue;
        found = 1;
        const char *key;
        json_t *val;
        json_object_foreach(json_array_get(opts, i), key, val) {
            char text[64];
            if (json_is_number(val))
                snprintf(text, sizeof(text), "%.17g", json_number_value(val));
            else
                snprintf(text, sizeof(text), "%s", json_is_true(val) ? "true" : "false");
            if (set_option(p, key, text))
                found = -EINVAL;
        }
    }
    json_decref(root);
    return found;
}

int adm_run_params(const GoldenVector *v, unsigned run, const char *models_dir, AdmParams *p)
{
    vmaf_adm_params_default(p);
    const char *opts = golden_run_feature(v, run, "adm");
    if (opts)
        return adm_apply_options(p, opts) ? -EINVAL : 1;
    const char *model = golden_run_model(v, run);
    if (!model)
        return 0;
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", models_dir, model);
    return model_params(path, p);
}

int adm_test_level(const char *name, AdmDsp *dsp)
{
    static const struct {
        const char *name;
        unsigned flags;
    } levels[] = {
        {"c", 0},
        {"avx2", VMAF_CPU_FLAG_AVX2},
        {"avx512", VMAF_CPU_FLAG_AVX2 | VMAF_CPU_FLAG_AVX512},
    };
    if (!strcmp(name, "best")) {
        vmaf_adm_dsp_init(dsp, vmaf_cpu_flags());
        return 0;
    }
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        if (!strcmp(name, levels[i].name)) {
            if ((vmaf_cpu_flags_detected() & levels[i].flags) != levels[i].flags)
                return -1;
            vmaf_adm_dsp_init(dsp, levels[i].flags);
            return 0;
        }
    }
    return -1;
}
