#!/bin/sh
# Copies the seed inputs of a libFuzzer harness into DEST (made empty
# first): the one list of each harness's seeds, read by the meson tests that
# replay them, test/fuzz/run.sh and .ci/run. Inputs other tests use too are
# kept once, where those tests read them:
#   fuzz_y4m, fuzz_yuv, fuzz_cli_args: test/fuzz/corpus/<harness>/ and the
#     *.y4m, *.yuv or *.argv inputs of test/cli/badinputs/;
#   fuzz_feature_options: test/fuzz/corpus/fuzz_feature_options/ (their
#     names say what must be refused: test/api/fuzz_feature_options.c);
#   fuzz_model_load: test/model/corpus/, the models the model tests use
#     (test/model/data/ssim_svr_*.json) and the shipped ones (resource/models/).
#
#   test/fuzz/seeds.sh HARNESS DEST
set -eu
harness=${1:?usage: seeds.sh HARNESS DEST}
dest=${2:?usage: seeds.sh HARNESS DEST}
test_dir=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dest"
mkdir -p "$dest"
case $harness in
    fuzz_y4m) set -- "$test_dir"/fuzz/corpus/fuzz_y4m/* "$test_dir"/cli/badinputs/*.y4m ;;
    fuzz_yuv) set -- "$test_dir"/fuzz/corpus/fuzz_yuv/* "$test_dir"/cli/badinputs/*.yuv ;;
    fuzz_cli_args) set -- "$test_dir"/fuzz/corpus/fuzz_cli_args/* "$test_dir"/cli/badinputs/*.argv ;;
    fuzz_feature_options) set -- "$test_dir"/fuzz/corpus/fuzz_feature_options/* ;;
    fuzz_model_load) set -- "$test_dir"/model/corpus/* "$test_dir"/model/data/ssim_svr_*.json \
                         "$test_dir"/../resource/models/*.json ;;
    *) echo "seeds.sh: no seeds for harness $harness" >&2; exit 1 ;;
esac
cp "$@" "$dest"/
# Sources may be read-only (a packaged tree); libFuzzer adds to DEST.
chmod -R u+w "$dest"
