#!/bin/bash
# What a CLI run pays before its first frame on CUDA, and where that stops
# mattering, on a GPU machine from the repository root after a build: the
# wall time of `vmaf` (fastest of 3, page cache warm) with --backend cpu,
# cuda and auto, for float_ssim and for the default VMAF model, on clips of
# 1, 48 and 300 frames at 1080p and of 1 and 48 frames at 4K, made by
# repeating (and, at 4K, tiling) the golden clip v06. A development tool,
# not a test.
#
#   test/cuda/startup.sh [build dir] [scratch dir]
#   (defaults build-gpu-suite and /tmp/vmaf_startup; the clips take 2.5 GB)
set -u
BUILD=${1:-build-gpu-suite}
TMP=${2:-/tmp/vmaf_startup}
VMAF=$BUILD/tools/vmaf
mkdir -p "$TMP"
for s in ref dis; do
    ninja -C "$BUILD" "test/data/v06_${s}_1920x1080_420p8.yuv" >/dev/null || exit 1
done
# clip side frames [tile]: v06's 12 frames repeated, each tiled 2x2 for 4K.
python3 - "$BUILD/test/data" "$TMP" <<'EOF' || exit 1
import sys
src, dst = sys.argv[1:]
w, h = 1920, 1080
fb = w * h * 3 // 2
for side in ("ref", "dis"):
    frames = open(f"{src}/v06_{side}_1920x1080_420p8.yuv", "rb").read()
    frames = [frames[i:i + fb] for i in range(0, len(frames), fb)]
    def tiled(f):
        out = []
        for (pw, ph, off) in ((w, h, 0), (w // 2, h // 2, w * h), (w // 2, h // 2, w * h * 5 // 4)):
            rows = [f[off + r * pw: off + (r + 1) * pw] * 2 for r in range(ph)]
            out.append(b"".join(rows) * 2)
        return b"".join(out)
    for n in (1, 48, 300):
        with open(f"{dst}/{side}_1920x1080_{n}.yuv", "wb") as o:
            for i in range(n):
                o.write(frames[i % len(frames)])
    big = [tiled(f) for f in frames]
    for n in (1, 48):
        with open(f"{dst}/{side}_3840x2160_{n}.yuv", "wb") as o:
            for i in range(n):
                o.write(big[i % len(big)])
EOF

fastest() { # command...: the fastest wall time of 3, in ms
    local best=
    for _ in 1 2 3; do
        local t0 t1 ms
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; echo "-"; return; }
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 ))
        { [ -z "$best" ] || [ "$ms" -lt "$best" ]; } && best=$ms
    done
    echo "$best"
}
echo "Wall ms of vmaf (fastest of 3); auto: what --backend auto chose"
echo
echo "| size | frames | job | cpu | cuda | auto | auto chose |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for clip in 1920x1080:1 1920x1080:48 1920x1080:300 3840x2160:1 3840x2160:48; do
    size=${clip%:*} n=${clip#*:}
    for job in "float_ssim:-n --feature float_ssim" "vmaf:"; do
        name=${job%%:*} args=${job#*:}
        # shellcheck disable=SC2086
        base=("$VMAF" -r "$TMP/ref_${size}_$n.yuv" -d "$TMP/dis_${size}_$n.yuv"
              --width "${size%x*}" --height "${size#*x}" --pixel_format 420 --bitdepth 8
              $args)
        row=""
        for b in cpu cuda auto; do
            row="$row | $(fastest "${base[@]}" -q --backend "$b")"
        done
        chose=$("${base[@]}" --backend auto 2>&1 >/dev/null | grep -o "backend: [a-z]*")
        echo "| $size | $n | $name$row | ${chose#backend: } |"
    done
done
rm -rf "$TMP"
