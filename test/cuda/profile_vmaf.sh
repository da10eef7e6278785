#!/bin/bash
# GPU time of the VMAF twins, per kernel and per frame, on a GPU machine,
# from the repository root: Nsight Compute times every kernel launch of
# bench_vmaf's steady state (--e2e) at one size, then the pipe, issue and
# memory metrics of one frame's launches. A development tool: nothing here
# is a test, and ncu serialises the kernels, so wall times mean nothing.
#
#   test/cuda/profile_vmaf.sh [log dir] [spec ...]
#   spec = a bench_vmaf --features spec (default: vmaf and vmaf+vmaf_neg)
# The log dir gets two files: kernels.txt (the benchmark's rows and the
# table a spec) and ncu_detail.txt; the rest stays in a scratch folder.
#
# Environment: BUILD_DIR (default build-gpu-suite, the GPU suite's build,
# else configured here), SIZE (3840x2160, the default, or 1920x1080), BPC
# (default 8), FRAMES_SCALE (default 0.05: at 4K 12 timed frames after 10
# warm-up frames, from host and then from pinned pictures).
set -u
LOG=${1:-${OUT:-/tmp/profile}}
shift || true
mkdir -p "$LOG"
TMP=$(mktemp -d)
BUILD=${BUILD_DIR:-build-gpu-suite}
SIZE=${SIZE:-3840x2160}
BPC=${BPC:-8}
SPECS=("$@")
[ ${#SPECS[@]} -eq 0 ] && SPECS=(vmaf vmaf+vmaf_neg)
export PATH="/usr/local/cuda/bin:$PATH"

. "$(dirname "$0")/jansson_env.sh"
if [ ! -d "$BUILD" ]; then
    meson setup "$BUILD" -Dcuda=enabled -Dcuda-arch=90 -Dbuildtype=release \
        >"$TMP/configure.log" 2>&1 || { tail -20 "$TMP/configure.log"; exit 1; }
fi
ninja -C "$BUILD" test/bench/bench_vmaf >"$TMP/build.log" 2>&1 ||
    { grep -E "error|FAILED" "$TMP/build.log" | head -20; exit 1; }
BENCH=("$BUILD/test/bench/bench_vmaf" --e2e --size "$SIZE" --bpc "$BPC" --repeat 1
       --frames-scale "${FRAMES_SCALE:-0.05}")

# Per kernel: launches, total and mean us, and us a frame (the frames the
# benchmark fed: its two sources, warm-up included).
per_kernel() { # csv, frames
    awk -F'","' -v frames="$2" '
    NR > 1 && $0 ~ /gpu__time_duration.sum/ {
        name = $5; sub(/\([^()]*\)$/, "", name); sub(/^void /, "", name)
        v = $NF; gsub(/[",]/, "", v)
        n[name]++; t[name] += v
    }
    END {
        for (k in n) { all += t[k]
            printf "%9.2f us a frame %6d launches %9.2f us each  %s\n", t[k] / frames / 1e3,
                   n[k], t[k] / n[k] / 1e3, k | "sort -nr" }
        close("sort -nr")
        printf "%9.2f us a frame in all\n", all / frames / 1e3
    }' "$1"
}

METRICS=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
METRICS+=,launch__grid_size,launch__block_size,dram__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,lts__t_sectors.sum,l1tex__t_sectors.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
METRICS+=,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio
i=0
: >"$LOG/kernels.txt"
: >"$LOG/ncu_detail.txt"
for spec in "${SPECS[@]}"; do
    i=$((i + 1))
    "${BENCH[@]}" --features "$spec" >"$TMP/bench$i.txt" 2>&1
    # bench_vmaf's timed frames (60 times its 12 at 1080p, 4 at 4K, scaled).
    base=$([ "$SIZE" = 1920x1080 ] && echo 720 || echo 240)
    frames=$(( 2 * (10 + $(echo "${FRAMES_SCALE:-0.05}" |
        awk -v b="$base" '{ f = int(b * $1 + 0.5); print f < 2 ? 2 : f }')) ))
    ncu --csv --print-units base --metrics gpu__time_duration.sum "${BENCH[@]}" --features "$spec" \
        >"$TMP/ncu_time$i.csv" 2>"$TMP/ncu_time$i.err"
    {
        echo "== $spec, $SIZE $BPC-bit: $frames frames"; grep "^| $SIZE" "$TMP/bench$i.txt"
        per_kernel "$TMP/ncu_time$i.csv" "$frames"
    } | tee -a "$LOG/kernels.txt"
    # The detailed metrics of one steady-state frame's launches.
    per_frame=$(awk -F'","' 'NR > 1 && /gpu__time_duration.sum/ { n++ } END { print n }' \
        "$TMP/ncu_time$i.csv")
    per_frame=$(( ${per_frame:-0} / frames ))
    echo "== $spec" >>"$LOG/ncu_detail.txt"
    [ "$per_frame" -gt 0 ] &&
        ncu --metrics "$METRICS" --launch-skip $(( 12 * per_frame )) \
            --launch-count "$per_frame" "${BENCH[@]}" --features "$spec" \
            >>"$LOG/ncu_detail.txt" 2>&1
done
rm -rf "$TMP"
