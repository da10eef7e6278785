#!/bin/bash
# The whole CUDA check on a GPU machine, in one command, from the repository
# root: build with CUDA for sm_90, run the cuda and ssim suites, the
# benchmark, the golden parity through the CLI with --backend cpu and --backend
# cuda, and compute-sanitizer memcheck and racecheck on parity runs. Logs go to
# $OUT (or the first argument, or /tmp/gpu_suite); a summary table is printed last.
#
#   test/cuda/gpu_suite.sh [log dir]
#
# Environment: BUILD_DIR (default build-gpu-suite), CUDA_ARCH (default 90),
# BENCH_FRAMES (default 200), JOBS (default: all cores), TAR_LOGS=1 (pack the
# logs into logs.tar.xz), SUITES (default
# "cuda cuda_host ssim"), PARITY=0 / SANITIZE=0 / BENCH=0 to leave a step out.
set -u
LOG=${1:-${OUT:-/tmp/gpu_suite}}
mkdir -p "$LOG"
BUILD=${BUILD_DIR:-build-gpu-suite}
ARCH=${CUDA_ARCH:-90}
JOBS=${JOBS:-$(nproc)}
FRAMES=${BENCH_FRAMES:-200}
SUITES=${SUITES:-cuda cuda_host ssim}
suite_args=()
for s in $SUITES; do suite_args+=(--suite "$s"); done
export PATH="/usr/local/cuda/bin:$PATH"
SUMMARY=()

step() { # name, log file, command...
    local name=$1 log=$2
    shift 2
    local t0=$SECONDS
    "$@" >"$LOG/$log" 2>&1
    local rc=$?
    local res=ok
    [ $rc -eq 77 ] && res=skip
    [ $rc -ne 0 ] && [ $rc -ne 77 ] && res="FAIL($rc)"
    SUMMARY+=("$(printf '%-34s %-9s %4ss  %s' "$name" "$res" $((SECONDS - t0)) "$log")")
    echo "== $name: $res ($((SECONDS - t0)) s)"
    return $rc
}

# jansson: the system's, else the Debian packages carried in .deb/.
. "$(dirname "$0")/jansson_env.sh"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv >"$LOG/gpu.txt" 2>&1
nvcc --version | tail -2 >>"$LOG/gpu.txt" 2>&1

rm -rf "$BUILD"
step "configure (cuda, sm_$ARCH)" configure.log \
    meson setup "$BUILD" -Dcuda=enabled -Dcuda-arch="$ARCH" -Dbuildtype=release || {
    cat "$LOG/configure.log" | tail -20
    printf '%s\n' "${SUMMARY[@]}"
    exit 1
}
step "build" build.log ninja -C "$BUILD" -j"$JOBS" || {
    grep -E "error|FAILED" "$LOG/build.log" | head -20
    printf '%s\n' "${SUMMARY[@]}"
    exit 1
}

step "meson test: $SUITES" tests.log \
    meson test -C "$BUILD" "${suite_args[@]}" --print-errorlogs --num-processes 4 -t 2
cp "$BUILD/meson-logs/testlog.txt" "$LOG/testlog.txt" 2>/dev/null
grep -E "^ *[0-9]+/[0-9]+ " "$LOG/tests.log" >"$LOG/tests_summary.txt"

if [ "${BENCH:-1}" != 0 ]; then
    step "benchmark ($FRAMES frames)" bench.log "$BUILD/test/cuda/bench_cuda_ssim" "$FRAMES"
    # The device pool (FFmpeg's CUDA filter's pictures) end to end, with the
    # slots' graphs and one by one, and the host's time in the library.
    step "device pool end to end" bench_devpool.log \
        "$BUILD/test/cuda/bench_cuda_ssim" $((FRAMES * 5)) devpool
    # Odd widths at the automatic scales (the last output column's window
    # passes the row's end): they should cost what the even width does.
    step "odd widths" bench_odd.log bash -c "set -o pipefail; rc=0
        for c in '3841x2160 8' '3841x2160 10' '1921x1081 8'; do set -- \$c
        '$BUILD/test/cuda/bench_cuda_ssim' $FRAMES \$1 \$2 0 -1 | tail -1 || rc=\$?; done; exit \$rc"
    # The CPU extractor on this host's cores, for the GPU/CPU ratio and the
    # comparison with the reference's published CPU figures.
    [ -x "$BUILD/test/bench/bench_float_ssim" ] &&
        step "CPU benchmark (float_ssim)" bench_cpu.log "$BUILD/test/bench/bench_float_ssim"
fi

VMAF="$BUILD/tools/vmaf"
if [ "${PARITY:-1}" = 0 ]; then
    SUMMARY+=("CLI golden parity                  skip      (PARITY=0)")
elif [ -x "$VMAF" ]; then
    for b in cpu cuda; do
        step "CLI golden parity --backend $b" "parity_$b.log" \
            python3 test/cli/test_cli.py "$VMAF" test/cli/badinputs --golden test/data/golden.json \
            --vectors "$BUILD/test/data" --only parity --parity-all --backend "$b"
    done
    # The CLI's basic checks, here with a GPU: --backend cuda and auto
    # choose it, and --feature float_ssim_cuda scores and prints its summary
    # line (without a GPU, as in CI, those checks take their no-GPU branch).
    step "CLI basics with a GPU" cli_basics.log \
        python3 test/cli/test_cli.py "$VMAF" test/cli/badinputs --only test_basics
else
    SUMMARY+=("CLI golden parity                  skip      (no $VMAF)")
fi

if [ "${SANITIZE:-1}" = 0 ]; then
    SUMMARY+=("compute-sanitizer                  skip      (SANITIZE=0)")
elif command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
        extra=""
        [ $tool = memcheck ] && extra="--leak-check full"
        step "compute-sanitizer $tool (parity quick)" "sanitizer_$tool.log" \
            compute-sanitizer --tool $tool $extra --error-exitcode 9 \
            "$BUILD/test/cuda/test_cuda_parity" quick
        if [ -x "$VMAF" ] && [ -f "$BUILD/test/data/p01_ref_576x324_420p8.yuv" ]; then
            step "compute-sanitizer $tool (CLI p01)" "sanitizer_cli_$tool.log" \
                compute-sanitizer --tool $tool $extra --error-exitcode 9 \
                "$VMAF" -r "$BUILD/test/data/p01_ref_576x324_420p8.yuv" \
                -d "$BUILD/test/data/p01_dis_576x324_420p8.yuv" -w 576 -h 324 -p 420 -b 8 \
                -n --feature float_ssim=enable_lcs=true --backend cuda -q --json -o "$LOG/p01_cuda.json"
        fi
    done
else
    SUMMARY+=("compute-sanitizer                  skip      (not installed)")
fi


echo
echo "==== test results"
cat "$LOG/tests_summary.txt"
for b in cpu cuda; do
    [ -f "$LOG/parity_$b.log" ] && echo "CLI parity $b: $(tail -1 "$LOG/parity_$b.log")"
done
[ -f "$LOG/cli_basics.log" ] && echo "CLI basics with a GPU: $(tail -1 "$LOG/cli_basics.log")"
for f in "$LOG"/sanitizer_*.log; do
    [ -f "$f" ] && echo "$(basename "$f"): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$f" | tr '\n' ' ')"
done
echo "==== machine-code check (no_fma)"
awk '/^test: .*no_fma/,/^====/' "$LOG/testlog.txt" | grep -E "^(ok|FAIL|probes|no contracted)" | sed 's/_ZN[0-9]*_GLOBAL__N__[0-9a-z_]*cu_[0-9a-f]*//' | head -30
echo "==== benchmark"
[ -f "$LOG/bench.log" ] && cat "$LOG/bench.log"
[ -f "$LOG/bench_devpool.log" ] && cat "$LOG/bench_devpool.log"
[ -f "$LOG/bench_odd.log" ] && cat "$LOG/bench_odd.log"
[ -f "$LOG/bench_cpu.log" ] && cat "$LOG/bench_cpu.log"
echo "==== summary"
cat "$LOG/gpu.txt"
printf '%s\n' "${SUMMARY[@]}"
if [ "${TAR_LOGS:-0}" = 1 ]; then
    # Some runners bring back only a few files: pack the logs into one.
    tar -cJf /tmp/gpu_suite_logs.tar.xz -C "$LOG" . &&
        rm -f "$LOG"/*.log "$LOG"/*.txt "$LOG"/*.json &&
        mv /tmp/gpu_suite_logs.tar.xz "$LOG/logs.tar.xz"
fi
