#!/bin/bash
# The whole CUDA check on a GPU machine, in one command, from the repository
# root: build with CUDA for sm_90, run the cuda and ssim suites, the golden
# parity through the CLI with --backend cpu and --backend cuda,
# compute-sanitizer memcheck and racecheck on parity runs, the benchmarks,
# then FFmpeg's filters. Logs go to $OUT (or the first argument, or /tmp/gpu_suite); a
# summary table is printed last, also when the run is stopped (SIGTERM,
# SIGINT) or runs out of TIME_LIMIT.
#
#   test/cuda/gpu_suite.sh [log dir]
#
# Environment: BUILD_DIR (default build-gpu-suite), CUDA_ARCH (default 90),
# BENCH_FRAMES (default 200), JOBS (default: all cores), TAR_LOGS=1 (pack the
# logs into logs.tar.xz), SUITES (default: VMAF_SUITES_GPU of
# test/suites.sh), PARITY=0 / SANITIZE=0 / BENCH=0 to leave a step out,
# CPU_BENCH=0 the CPU extractors' benchmarks (they do not change with GPU
# work), SANITIZE_TOOLS (default "memcheck racecheck");
# FFMPEG7 (default .ffmpeg7/ffmpeg, from test/api/ffmpeg7_build.sh; 0 leaves
# the FFmpeg step out) and FFMPEG7_BENCH_FRAMES (default 48), TIME_LIMIT
# (seconds for the whole run: a step still running then is stopped and
# marked FAIL(time), later steps are marked skip; set it under a runner's
# own limit, which would otherwise kill the run before its summary).
set -u
LOG=${1:-${OUT:-/tmp/gpu_suite}}
mkdir -p "$LOG"
BUILD=${BUILD_DIR:-build-gpu-suite}
ARCH=${CUDA_ARCH:-90}
JOBS=${JOBS:-$(nproc)}
FRAMES=${BENCH_FRAMES:-200}
. "$(dirname "$0")/../suites.sh"
SUITES=${SUITES:-$VMAF_SUITES_GPU}
mapfile -t suite_args < <(vmaf_suite_args "$SUITES")
export PATH="/usr/local/cuda/bin:$PATH"
# On this machine a GPU test that finds no GPU fails instead of skipping.
export VMAF_TEST_REQUIRE_GPU=1
SUMMARY=()

# One row of the summary table: name, result, seconds (empty for a step
# left out), log or reason.
row() {
    local t=""
    [ -n "$3" ] && t="$3s"
    SUMMARY+=("$(printf '%-44s %-10s %5s  %s' "$1" "$2" "$t" "$4")")
}

STEP_PID=""
STEP_NAME=""
STEP_LOG=""
STEP_T0=0
# Steps after TIME_LIMIT are not started; the one running then gets only
# the seconds left (timeout's 124 becomes FAIL(time)).
step() { # name, log file, command...
    local name=$1 log=$2
    shift 2
    local left=""
    if [ -n "${TIME_LIMIT:-}" ]; then
        left=$((TIME_LIMIT - SECONDS))
        if [ "$left" -le 0 ]; then
            row "$name" skip "" "(TIME_LIMIT=$TIME_LIMIT reached)"
            echo "== $name: skip (TIME_LIMIT reached)"
            return 0
        fi
    fi
    STEP_NAME=$name STEP_LOG=$log STEP_T0=$SECONDS
    # In the background, and waited for: bash runs a trap only once the
    # foreground command ends, but interrupts a wait.
    if [ -n "$left" ]; then
        timeout "$left" "$@" >"$LOG/$log" 2>&1 &
    else
        "$@" >"$LOG/$log" 2>&1 &
    fi
    STEP_PID=$!
    wait "$STEP_PID"
    local rc=$?
    STEP_PID=""
    local res=ok
    [ $rc -eq 77 ] && res=skip
    [ $rc -ne 0 ] && [ $rc -ne 77 ] && res="FAIL($rc)"
    [ -n "$left" ] && [ $rc -eq 124 ] && res="FAIL(time)"
    row "$name" "$res" $((SECONDS - STEP_T0)) "$log"
    echo "== $name: $res ($((SECONDS - STEP_T0)) s)"
    return $rc
}

# The report: the results of every step run, the benchmark, the summary
# table; the logs packed last where asked.
report() {
    echo
    echo "==== test results"
    [ -f "$LOG/tests_summary.txt" ] && cat "$LOG/tests_summary.txt"
    for b in cpu cuda; do
        [ -f "$LOG/parity_$b.log" ] && echo "CLI parity $b: $(tail -1 "$LOG/parity_$b.log")"
    done
    [ -f "$LOG/ffmpeg7.log" ] && {
        echo "FFmpeg 7.1 filters: $(tail -1 "$LOG/ffmpeg7.log")"
        grep -E "^(FAIL|ok   (benchmark|NVDEC))" "$LOG/ffmpeg7.log"
    }
    [ -f "$LOG/cli_basics.log" ] &&
        echo "CLI basics and reports with a GPU: $(grep "checks passed" "$LOG/cli_basics.log" | tr '\n' ' ')"
    for f in "$LOG"/sanitizer_*.log; do
        [ -f "$f" ] && echo "$(basename "$f"): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$f" | tr '\n' ' ')"
    done
    echo "==== machine-code check (no_fma)"
    if [ -f "$LOG/testlog.txt" ]; then
        # The verdict first, then the first kernels' counts; the probe's
        # failure is the check proving that it finds a contracted FMA.
        test_log() { awk "/^test: .*libvmaf:$1\$/,/^====/" "$LOG/testlog.txt"; }
        test_log no_fma | grep -E "^(FAIL|probes|no contracted)"
        test_log no_fma_ptx | grep -E "^(FAIL|ok|[0-9]+ kernels)" | head -3
        test_log no_fma_ptx_probe | grep -E "^FAIL" | sed 's/^/expected (the probe, an FMA planted on purpose): /'
        test_log no_fma | grep -E "^ok" | sed 's/_ZN[0-9]*_GLOBAL__N__[0-9a-z_]*cu_[0-9a-f]*//' | head -30
    fi
    echo "==== benchmark"
    [ -f "$LOG/bench.log" ] && cat "$LOG/bench.log"
    [ -f "$LOG/bench_devpool.log" ] && cat "$LOG/bench_devpool.log"
    [ -f "$LOG/bench_odd.log" ] && cat "$LOG/bench_odd.log"
    [ -f "$LOG/bench_cpu.log" ] && cat "$LOG/bench_cpu.log"
    [ -f "$LOG/bench_vmaf_cuda.log" ] && cat "$LOG/bench_vmaf_cuda.log"
    [ -f "$LOG/bench_vmaf_e2e.log" ] && cat "$LOG/bench_vmaf_e2e.log"
    [ -f "$LOG/bench_vmaf_cpu.log" ] && cat "$LOG/bench_vmaf_cpu.log"
    [ -f "$LOG/bench_metrics_cuda.log" ] && cat "$LOG/bench_metrics_cuda.log"
    [ -f "$LOG/bench_metrics_cpu.log" ] && cat "$LOG/bench_metrics_cpu.log"
    echo "==== summary"
    [ -f "$LOG/gpu.txt" ] && cat "$LOG/gpu.txt"
    printf '%s\n' "${SUMMARY[@]}"
    if [ "${TAR_LOGS:-0}" = 1 ]; then
        # Some runners bring back only a few files: pack the logs into one.
        tar -cJf /tmp/gpu_suite_logs.tar.xz -C "$LOG" . &&
            rm -f "$LOG"/*.log "$LOG"/*.txt "$LOG"/*.json &&
            mv /tmp/gpu_suite_logs.tar.xz "$LOG/logs.tar.xz"
    fi
}

# A stopped run (the runner's limit, ^C) still reports what it did: the
# running step is stopped and marked, the rest never run.
stopped() {
    local sig=$1
    trap - TERM INT
    if [ -n "$STEP_PID" ]; then
        kill -TERM "$STEP_PID" 2>/dev/null
        wait "$STEP_PID" 2>/dev/null
        row "$STEP_NAME" "FAIL(SIG$sig)" $((SECONDS - STEP_T0)) "$STEP_LOG"
        echo "== $STEP_NAME: stopped by SIG$sig"
    fi
    SUMMARY+=("(stopped by SIG$sig after $SECONDS s: the steps after this one did not run)")
    report
    exit $((128 + $2))
}
trap 'stopped TERM 15' TERM
trap 'stopped INT 2' INT

# jansson: the system's, else the Debian packages carried in .deb/.
. "$(dirname "$0")/jansson_env.sh"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv >"$LOG/gpu.txt" 2>&1
nvcc --version | tail -2 >>"$LOG/gpu.txt" 2>&1

rm -rf "$BUILD"
step "configure (cuda, sm_$ARCH)" configure.log \
    meson setup "$BUILD" -Dcuda=enabled -Dcuda-arch="$ARCH" -Dbuildtype=release || {
    tail -20 "$LOG/configure.log"
    report
    exit 1
}
step "build" build.log ninja -C "$BUILD" -j"$JOBS" || {
    grep -E "error|FAILED" "$LOG/build.log" | head -20
    report
    exit 1
}

step "meson test: $SUITES" tests.log \
    meson test -C "$BUILD" "${suite_args[@]}" --print-errorlogs --num-processes 4 -t 2
cp "$BUILD/meson-logs/testlog.txt" "$LOG/testlog.txt" 2>/dev/null
grep -E "^ *[0-9]+/[0-9]+ " "$LOG/tests.log" >"$LOG/tests_summary.txt"

VMAF="$BUILD/tools/vmaf"
if [ "${PARITY:-1}" = 0 ]; then
    row "CLI golden parity" skip "" "(PARITY=0)"
elif [ -x "$VMAF" ]; then
    for b in cpu cuda; do
        step "CLI golden parity --backend $b" "parity_$b.log" \
            python3 test/cli/test_cli.py "$VMAF" test/cli/badinputs --golden test/data/golden.json \
            --vectors "$BUILD/test/data" --only parity --parity-all --backend "$b"
    done
    # The CLI's basic and report checks, here with a GPU: --backend cuda
    # and auto choose it (VMAF_TEST_REQUIRE_GPU makes that a check), and
    # --feature float_ssim_cuda scores and prints its summary line (without
    # a GPU, as in CI, those checks take their no-GPU branch).
    step "CLI basics and reports with a GPU" cli_basics.log bash -c "
        python3 test/cli/test_cli.py '$VMAF' test/cli/badinputs --only test_basics &&
        python3 test/cli/test_cli.py '$VMAF' test/cli/badinputs --only test_reports"
    # With every GPU hidden, as on a machine without one: the library has no
    # CUDA runtime or driver among its dependencies (the runtime is static,
    # the driver is found at run time), auto scores on the CPU and says so
    # once, and --backend cuda is the GPU error, exit 6. The distorted comes
    # through a pipe (a redirected file has a size): of unknown length, a
    # run makes auto try CUDA.
    step "no visible GPU (CUDA_VISIBLE_DEVICES=)" no_gpu.log bash -c "
        set -x
        ! readelf -d '$BUILD/core/libvmaf.so' | grep -E 'NEEDED.*lib(cuda|cudart)' || exit 1
        y=\$(mktemp -d)
        xz -dc test/data/p07_ref_320x240_420p8.yuv.xz >\$y/r.yuv
        xz -dc test/data/p07_dis_320x240_420p8.yuv.xz >\$y/d.yuv
        a='-r '\$y'/r.yuv -d - -w 320 -h 240 -p 420 -b 8 -n --feature float_ssim'
        cat \$y/d.yuv | CUDA_VISIBLE_DEVICES= '$VMAF' \$a 2>\$y/auto.err >\$y/auto.out || exit 2
        cat \$y/auto.err
        [ \$(grep -c 'vmaf: backend: cpu (CUDA not used: ' \$y/auto.err) = 1 ] || exit 3
        cat \$y/d.yuv | '$VMAF' \$a --backend cpu >\$y/cpu.out 2>/dev/null || exit 4
        cmp \$y/auto.out \$y/cpu.out || exit 5
        cat \$y/d.yuv | CUDA_VISIBLE_DEVICES= '$VMAF' \$a --backend cuda 2>\$y/cuda.err; rc=\$?
        cat \$y/cuda.err
        [ \$rc = 6 ] && [ \$(wc -l <\$y/cuda.err) = 1 ] || exit 6
        rm -rf \$y"
    # A GPU the build has no kernels for (here: kernels for sm_100 only,
    # so not on an sm_100 GPU): the CUDA state refuses it with one warning
    # naming its compute capability, auto scores on the CPU, --backend cuda
    # is exit 6.
    if [ "${FOREIGN_ARCH:-1}" != 0 ] && [ "$ARCH" != 100 ]; then
        step "a build without this GPU's kernels (sm_100)" foreign_arch.log bash -c "
            set -x
            rm -rf '$BUILD-sm100'
            meson setup '$BUILD-sm100' -Dcuda=enabled -Dcuda-arch=100 >/dev/null || exit 1
            ninja -C '$BUILD-sm100' tools/vmaf >/dev/null || exit 1
            y=\$(mktemp -d)
            xz -dc test/data/p07_ref_320x240_420p8.yuv.xz >\$y/r.yuv
            xz -dc test/data/p07_dis_320x240_420p8.yuv.xz >\$y/d.yuv
            a='-r '\$y'/r.yuv -d - -w 320 -h 240 -p 420 -b 8 -n --feature float_ssim'
            cat \$y/d.yuv | '$BUILD-sm100/tools/vmaf' \$a 2>\$y/auto.err >/dev/null || exit 2
            cat \$y/auto.err
            grep -Eq 'vmaf: backend: cpu \(CUDA not used: .*compute capability ([0-9]+)\.([0-9]).*-Dcuda-arch including \1\2 ' \$y/auto.err || exit 3
            cat \$y/d.yuv | '$BUILD-sm100/tools/vmaf' \$a --backend cuda 2>\$y/cuda.err; rc=\$?
            cat \$y/cuda.err
            [ \$rc = 6 ] || exit 4
            rm -rf \$y '$BUILD-sm100'"
    fi
else
    row "CLI golden parity" skip "" "(no $VMAF)"
fi

if [ "${SANITIZE:-1}" = 0 ]; then
    row "compute-sanitizer" skip "" "(SANITIZE=0)"
elif command -v compute-sanitizer >/dev/null; then
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
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
                --feature float_ssim=enable_lcs=true --feature float_ms_ssim=enable_lcs=true \
                --backend cuda -q --json -o "$LOG/p01_cuda.json"
        fi
    done
else
    row "compute-sanitizer" skip "" "(not installed)"
fi

# The benchmarks after the checks: where TIME_LIMIT cuts a run short, it
# cuts timings, not correctness.
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
    CPU_BENCH=${CPU_BENCH:-1}
    [ "$CPU_BENCH" != 0 ] && [ -x "$BUILD/test/bench/bench_float_ssim" ] &&
        step "CPU benchmark (float_ssim)" bench_cpu.log "$BUILD/test/bench/bench_float_ssim"
    # VMAF with the twins on this GPU (the others on the CPU) and on the
    # CPU alone, on the same host.
    if [ -x "$BUILD/test/bench/bench_vmaf" ]; then
        step "VMAF benchmark, CUDA twins" bench_vmaf_cuda.log \
            "$BUILD/test/bench/bench_vmaf" --cuda --frames-scale 4 --repeat 2
        step "VMAF steady state, CUDA twins" bench_vmaf_e2e.log \
            "$BUILD/test/bench/bench_vmaf" --e2e --repeat 2
        [ "$CPU_BENCH" != 0 ] &&
            step "VMAF benchmark, CPU" bench_vmaf_cpu.log "$BUILD/test/bench/bench_vmaf" --repeat 1
        # The other metrics' twins, each alone, and the part of the AOM CTC
        # preset (tools/cli_presets.c) that has twins, in steady state; then
        # the CPU extractors.
        metrics=psnr,float_ms_ssim,psnr_hvs
        aom="vmaf+vmaf_neg+psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5"
        aom="$aom+float_ssim=enable_db=true:clip_db=true+float_ms_ssim=enable_db=true:clip_db=true"
        aom="$aom+psnr_hvs"
        step "metrics steady state, CUDA twins" bench_metrics_cuda.log \
            "$BUILD/test/bench/bench_vmaf" --e2e --features "$metrics,$aom" --frames-scale 0.5 \
            --repeat 2
        [ "$CPU_BENCH" != 0 ] && step "metrics benchmark, CPU" bench_metrics_cpu.log \
            "$BUILD/test/bench/bench_vmaf" --features $metrics --repeat 1
    fi
fi

# FFmpeg 7.1's own libvmaf_cuda filter (and its CPU libvmaf filter) on the
# golden vectors, then 4K timings of both, on raw files and, with the 8-bit
# H.264 and 10-bit HEVC streams of .ffmpeg7/media/, through NVDEC. Neither
# the binary nor the streams can be made here (no network, no encoder):
# test/api/ffmpeg7_build.sh makes them on a machine with Debian's package
# servers, and the run carries .ffmpeg7/.
FFMPEG7=${FFMPEG7:-$PWD/.ffmpeg7/ffmpeg}
if [ "$FFMPEG7" = 0 ]; then
    row "FFmpeg 7.1 filters" skip "" "(FFMPEG7=0)"
elif [ -x "$FFMPEG7" ]; then
    case $BUILD in /*) libdir=$BUILD/core ;; *) libdir=$PWD/$BUILD/core ;; esac
    ffcheck=(env LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
             python3 test/api/ffmpeg7_check.py "$FFMPEG7")
    # 48 frames keep the whole suite inside a 600 s runner (the step took
    # 307 s with 100 frames, 384 s with the streams' 192 through NVDEC).
    step "FFmpeg 7.1 libvmaf/libvmaf_cuda filters" ffmpeg7.log \
        "${ffcheck[@]}" --bench-frames "${FFMPEG7_BENCH_FRAMES:-48}"
    if [ "${SANITIZE:-1}" != 0 ] && command -v compute-sanitizer >/dev/null; then
        # The library inside FFmpeg's CUDA context, with FFmpeg's device
        # pictures and copies: p01's runs through the GPU filter.
        step "compute-sanitizer memcheck (FFmpeg p01)" sanitizer_ffmpeg7_memcheck.log \
            "${ffcheck[@]}" --only p01 --gpu-only \
            --wrapper "compute-sanitizer --tool memcheck --error-exitcode 9"
    fi
else
    row "FFmpeg 7.1 filters" skip "" "(no $FFMPEG7; see test/api/ffmpeg7_build.sh)"
fi

report
# The exit status says whether every step that ran passed.
! printf '%s\n' "${SUMMARY[@]}" | grep -q 'FAIL('
