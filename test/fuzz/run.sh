#!/bin/sh
# Runs each of the vmaf tool's libFuzzer harnesses for a while, starting from
# its seeds (seeds.sh copies them to a scratch folder, so the source tree
# stays clean).
#   test/fuzz/run.sh BUILD_DIR [SECONDS_PER_HARNESS]   (default 60)
# BUILD_DIR is configured with: CC=clang meson setup BUILD_DIR -Dfuzz=true
#   -Db_sanitize=address,undefined -Db_lundef=false
# Exits nonzero if any harness finds a crash; its reproducer is kept in the
# scratch folder, whose path is printed.
set -u
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
src=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/vmaf-fuzz.XXXXXX")
status=0
for h in fuzz_y4m fuzz_yuv fuzz_cli_args; do
    exe="$build/test/fuzz/$h"
    if [ ! -x "$exe" ]; then
        echo "run.sh: $exe not built (configure with -Dfuzz=true)" >&2
        status=1
        continue
    fi
    mkdir -p "$scratch/$h/artifacts"
    sh "$src/seeds.sh" "$h" "$scratch/$h/corpus"
    if "$exe" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$scratch/$h/artifacts/" "$scratch/$h/corpus" > "$scratch/$h/log" 2>&1; then
        echo "$h: ok ($(grep -E '^stat::number_of_executed_units' "$scratch/$h/log" | awk '{print $2}') runs in ${secs}s)"
    else
        echo "$h: FAILED, see $scratch/$h/log and $scratch/$h/artifacts/"
        tail -n 30 "$scratch/$h/log"
        status=1
    fi
done
[ "$status" = 0 ] && rm -rf "$scratch"
exit "$status"
