#!/bin/bash
# Profile the float_ssim kernels on a GPU machine, from the repository root:
# builds the benchmark for sm_90, writes the static SASS opcode mix of each
# tile and decimation kernel, and runs Nsight Compute on chosen cases of the
# benchmark's one-case mode (pipe utilisation, issue efficiency, instruction
# counts). A development tool: nothing here is a test.
#
#   test/cuda/profile_kernels.sh [log dir] [case ...]
#   case = "WxH bpc scale shape", e.g. "3840x2160 8 1 -1" (default: 4K scale 1
#   and 4K automatic scale, the library's shapes)
#
# Environment: BUILD_DIR (default build-profile), CUDA_ARCH (default 90),
# NCU_SECTIONS (default: the pipe, issue and instruction metrics below).
set -u
LOG=${1:-${OUT:-/tmp/profile}}
shift || true
mkdir -p "$LOG"
BUILD=${BUILD_DIR:-build-profile}
ARCH=${CUDA_ARCH:-90}
export PATH="/usr/local/cuda/bin:$PATH"
CASES=("$@")
[ ${#CASES[@]} -eq 0 ] && CASES=("3840x2160 8 1 -1" "3840x2160 8 0 -1")

# jansson: configure and the library want it; the system's or the carried .debs.
. "$(dirname "$0")/jansson_env.sh"
if [ ! -d "$BUILD" ]; then
    meson setup "$BUILD" -Dcuda=enabled -Dcuda-arch="$ARCH" -Dbuildtype=release \
        >"$LOG/configure.log" 2>&1 || { tail -20 "$LOG/configure.log"; exit 1; }
fi
ninja -C "$BUILD" test/cuda/bench_cuda_ssim >"$LOG/build.log" 2>&1 ||
    { grep -E "error|FAILED" "$LOG/build.log" | head -20; exit 1; }

# Static opcode mix per kernel (opcode without modifiers, counts), of every
# kernel of the library (the twins' kernels are in several objects).
ninja -C "$BUILD" core/libvmaf.a >>"$LOG/build.log" 2>&1 ||
    { grep -E "error|FAILED" "$LOG/build.log" | head -20; exit 1; }
cuobjdump -sass "$BUILD/core/libvmaf.a" >"$LOG/sass.txt" 2>&1
awk '
/Function :/ { fn = $NF; next }
fn != "" && /^ +\/\*[0-9a-f]+\*\/ / {
    line = $0; sub(/^ +\/\*[0-9a-f]+\*\/ +/, "", line); sub(/^@!?U?P[0-9T] +/, "", line)
    split(line, w, /[ ;]/); op = w[1]; sub(/\..*/, "", op)
    if (op != "") { c[fn " " op]++; tot[fn]++ }
}
END {
    for (k in c) { split(k, p, " "); printf "%s %6d %s\n", p[1], c[k], p[2] }
    for (f in tot) printf "%s %6d TOTAL\n", f, tot[f]
}' "$LOG/sass.txt" | sort -k1,1 -k2,2nr >"$LOG/opcodes.txt"

BENCH="$BUILD/test/cuda/bench_cuda_ssim"
METRICS=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg
METRICS+=,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active
METRICS+=,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active
METRICS+=,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio
METRICS+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
i=0
for c in "${CASES[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$BENCH" 120 $c >"$LOG/case$i.txt" 2>&1
    # shellcheck disable=SC2086
    ncu --kernel-name regex:"k_" --launch-skip 30 --launch-count 2 \
        --metrics "$METRICS" "$BENCH" 40 $c >"$LOG/ncu$i.txt" 2>&1
    echo "== case $i: $c"; cat "$LOG/case$i.txt"
done
