/* The reference tool's presets, --aom_ctc and --nflx_ctc: the models and
 * features each version turns on. */
#ifndef VMAF_TOOLS_CLI_PRESETS_H
#define VMAF_TOOLS_CLI_PRESETS_H

#include <stddef.h>

typedef struct CliPreset {
    const char *models[3];   /* -m arguments, NULL terminated */
    const char *features[6]; /* --feature arguments, NULL terminated */
} CliPreset;

/* The preset of `option` ("aom_ctc" or "nflx_ctc") at `version`, or NULL
 * with one line in err: a version this build cannot run (CAMBI), a
 * deprecated or an unknown one. */
const CliPreset *cli_preset_find(const char *option, const char *version, char *err,
                                 size_t err_sz);

#endif /* VMAF_TOOLS_CLI_PRESETS_H */
