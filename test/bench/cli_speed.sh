#!/usr/bin/env bash
# Frames per second of the vmaf tool on raw 4:2:0 files in the page cache:
# the figures of the "Speed" table in docs/cli.md. Writes random frames
# (the arithmetic does not depend on them) to WORKDIR, reads each file once
# to bring it into the page cache, then runs each case ROUNDS times and
# prints the report's fps (frame pairs from the first read to the flush,
# reading included).
#
# usage: test/bench/cli_speed.sh VMAF [FRAMES [ROUNDS [WORKDIR]]]
#   VMAF     the tool (build/tools/vmaf)
#   FRAMES   frames a file (default 120)
#   ROUNDS   runs a case (default 2)
#   WORKDIR  where the files go (default a temporary folder, removed after)
# CUDA rows are left out when --backend cuda cannot run.
set -euo pipefail
vmaf=${1:?usage: cli_speed.sh VMAF [FRAMES [ROUNDS [WORKDIR]]]}
frames=${2:-120}
rounds=${3:-2}
if [ -n "${4:-}" ]; then
    work=$4
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
threads=$(nproc)

# gen PATH W H BPC: random 4:2:0 frames, samples within BPC bits.
gen() {
    python3 - "$1" "$2" "$3" "$4" "$frames" <<'PY'
import os, sys
path, w, h, bpc, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
size = w * h * 3 // 2 * (2 if bpc > 8 else 1)
mask = bytes(b & ((1 << (bpc - 8)) - 1) for b in range(256)) if bpc > 8 else None
with open(path, "wb") as f:
    for _ in range(n):
        frame = bytearray(os.urandom(size))
        if mask:
            frame[1::2] = frame[1::2].translate(mask)
        f.write(frame)
PY
}

run() { # run W H BPC LABEL ARGS...
    local w=$1 h=$2 bpc=$3 label=$4
    shift 4
    local fps=()
    for ((r = 0; r < rounds; r++)); do
        if ! "$vmaf" -r "$work/r_${w}_$bpc.yuv" -d "$work/d_${w}_$bpc.yuv" -w "$w" -h "$h" \
                -p 420 -b "$bpc" -n --feature float_ssim -q --json -o "$work/out.json" "$@" \
                2>"$work/err.txt"; then
            printf '%-28s %4sx%-4s %2s-bit: failed: %s\n' "$label" "$w" "$h" "$bpc" \
                "$(head -c 300 "$work/err.txt")"
            return
        fi
        fps+=("$(python3 -c 'import json,sys; print("%.0f" % json.load(open(sys.argv[1]))["fps"])' \
                 "$work/out.json")")
    done
    printf '%-28s %4sx%-4s %2s-bit: %s fps\n' "$label" "$w" "$h" "$bpc" "${fps[*]}"
}

cuda=1
for geo in "1920 1080 8" "3840 2160 8" "3840 2160 10"; do
    set -- $geo
    gen "$work/r_$1_$3.yuv" "$1" "$2" "$3"
    gen "$work/d_$1_$3.yuv" "$1" "$2" "$3"
    cat "$work/r_$1_$3.yuv" "$work/d_$1_$3.yuv" >/dev/null
    if [ $cuda = 1 ] && ! "$vmaf" -r "$work/r_$1_$3.yuv" -d "$work/d_$1_$3.yuv" -w "$1" -h "$2" \
            -p 420 -b "$3" -n --feature float_ssim -q --backend cuda --frame_cnt 1 \
            -o /dev/null --json 2>/dev/null; then
        cuda=0
        echo "(no usable GPU: the --backend cuda rows are left out)"
    fi
    [ $cuda = 1 ] && run "$1" "$2" "$3" "--backend cuda" --backend cuda
    run "$1" "$2" "$3" "--backend cpu --threads $threads" --backend cpu --threads "$threads"
    rm -f "$work/r_$1_$3.yuv" "$work/d_$1_$3.yuv"
done
