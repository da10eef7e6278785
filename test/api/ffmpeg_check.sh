#!/bin/sh
# Builds Debian's FFmpeg 5.1 with --enable-libvmaf against this library and
# checks that its libvmaf filter logs the golden float_ssim scores
# (golden.json), and that with its default options (the built-in model
# vmaf_v0.6.1) it logs the golden VMAF of four 8-bit vectors
# (golden_vmaf.json: v01, v02 and v11 at odd sizes, v07), also with both
# models at once (vmaf_v0.6.1 and vmaf_v0.6.1neg): every value of the JSON
# log at its %.6f, and the summary line "VMAF score: %f". This is the
# check recorded in docs/consumers.md. Not run by CI: it downloads the
# FFmpeg source package and builds it.
#
# usage: test/api/ffmpeg_check.sh            (from the repository root, as root
#                                             for apt-get; set SKIP_APT=1 when the
#                                             source and nasm are already there)
# Environment: WORK (default /work) holds vmaf-prefix/ and ffmpeg-src/;
#              JOBS (default 2).
set -eu

SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/work}
PREFIX=$WORK/vmaf-prefix
FFSRC=$WORK/ffmpeg-src
JOBS=${JOBS:-2}
BUILD=$SRC/build-ffm

say() { printf '== %s\n' "$*"; }

# 1. The library, installed into a prefix of its own.
say "installing the library into $PREFIX"
if [ ! -d "$BUILD" ]; then
    meson setup --prefix="$PREFIX" "$BUILD" -Dcuda=disabled -Dtests=false
else
    meson configure "$BUILD" -Dprefix="$PREFIX"
fi
ninja -C "$BUILD" -j"$JOBS" install >/dev/null
PC=$(find "$PREFIX" -name libvmaf.pc | head -n 1)
[ -n "$PC" ] || { echo "no libvmaf.pc under $PREFIX" >&2; exit 1; }
PCDIR=$(dirname "$PC")
LIBDIR=$(dirname "$PCDIR")

# 2. FFmpeg 5.1 from Debian's source package (needs deb-src in the sources).
if [ "${SKIP_APT:-0}" != 1 ]; then
    if ! grep -q '^Types:.*deb-src' /etc/apt/sources.list.d/debian.sources; then
        sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources
    fi
    apt-get update -q
    apt-get install -y -q dpkg-dev xz-utils nasm pkg-config
fi
mkdir -p "$FFSRC"
FF=$(ls -d "$FFSRC"/ffmpeg-5.1* 2>/dev/null | head -n 1 || true)
if [ -z "$FF" ]; then
    (cd "$FFSRC" && apt-get source ffmpeg)
    FF=$(ls -d "$FFSRC"/ffmpeg-5.1* | head -n 1)
fi
say "FFmpeg source: $FF"

# 3. A minimal FFmpeg: raw video in, the libvmaf filter, the null muxer out.
#    libvmaf_filter_deps="libvmaf"; configure runs
#    require_pkg_config libvmaf "libvmaf >= 2.0.0" libvmaf.h vmaf_init.
if [ ! -x "$FF/ffmpeg" ]; then
    (cd "$FF" &&
     PKG_CONFIG_PATH=$PCDIR ./configure --enable-libvmaf \
        --disable-everything --disable-autodetect --disable-doc --disable-x86asm \
        --disable-debug --disable-ffplay --disable-ffprobe --disable-network \
        --enable-filter=libvmaf,scale,format,null,buffer,buffersink \
        --enable-protocol=file,pipe --enable-demuxer=rawvideo,yuv4mpegpipe \
        --enable-decoder=rawvideo,wrapped_avframe \
        --enable-encoder=wrapped_avframe,rawvideo --enable-muxer=null,rawvideo &&
     nice -n 10 make -j"$JOBS" ffmpeg)
fi
FFMPEG=$FF/ffmpeg
export LD_LIBRARY_PATH=$LIBDIR
say "ffmpeg loads: $(ldd "$FFMPEG" | grep libvmaf)"
ldd "$FFMPEG" | grep -q "$LIBDIR/libvmaf.so" || { echo "ffmpeg does not load $LIBDIR" >&2; exit 1; }

# 4. Vectors and the comparison.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
GOLDEN=$SRC/test/data/golden.json
FAILED=0

# check ID FFMPEG_PIX_FMT OPTIONS FEATURE_STRING [FILTER_OPTIONS]
check() {
    id=$1 pixfmt=$2 opts=$3 feature=$4 extra=${5:-}
    eval "$(python3 - "$GOLDEN" "$id" <<'EOF'
import json, sys
v = [v for v in json.load(open(sys.argv[1]))["vectors"] if v["id"] == sys.argv[2]][0]
print("ref=%s dis=%s size=%dx%d" % (v["ref"], v["dis"], v["w"], v["h"]))
EOF
)"
    for f in "$ref" "$dis"; do
        [ -f "$TMP/$f" ] || xz -dc "$SRC/test/data/$f.xz" > "$TMP/$f"
    done
    log=$TMP/${id}_$(echo "$opts$extra" | tr '=:' '__').json
    # Input 0 is the filter's "main" (distorted) pad, input 1 its "reference".
    set -- "$FFMPEG" -hide_banner -nostdin -loglevel error \
        -f rawvideo -pix_fmt "$pixfmt" -s "$size" -i "$TMP/$dis" \
        -f rawvideo -pix_fmt "$pixfmt" -s "$size" -i "$TMP/$ref" \
        -lavfi "[0:v][1:v]libvmaf=model=:feature=$feature:log_path=$log:log_fmt=json$extra" \
        -f null -
    say "$*"
    "$@"
    python3 - "$GOLDEN" "$id" "$opts" "$log" <<'EOF' || FAILED=1
import json, sys
golden, vid, opts, log = sys.argv[1:]
v = [v for v in json.load(open(golden))["vectors"] if v["id"] == vid][0]
run = [r for r in v["runs"] if r["options"] == opts][0]
rep = json.load(open(log))
bad = 0
if len(rep["frames"]) != len(run["frames"]):
    print("frames: %d logged, %d golden" % (len(rep["frames"]), len(run["frames"])))
    bad = 1
for i, (got, want) in enumerate(zip(rep["frames"], run["frames"])):
    for name, w in want.items():
        g = got["metrics"].get(name)
        # The log prints %.6f, as the reference does; compare at that precision.
        ok = g is not None and w is not None and "%.6f" % g == "%.6f" % w
        print("  frame %d %-13s logged %-10s golden %.17g %s" %
              (i, name, g, w, "ok" if ok else "DIFFERENT"))
        bad |= not ok
for name, p in run["pooled"].items():
    g = rep["pooled_metrics"][name]["mean"]
    ok = "%.6f" % g == "%.6f" % p["mean"]
    print("  pooled mean %-8s logged %-10s golden %.17g %s" %
          (name, g, p["mean"], "ok" if ok else "DIFFERENT"))
    bad |= not ok
print("%s '%s': %s" % (vid, opts, "equal to golden.json" if not bad else "DIFFERENT"))
sys.exit(bad)
EOF
}

# Filter options inside a filter graph need their ':' escaped twice (once for
# the graph parser, once for the option parser): name=float_ssim\\:scale=2.
check p01 yuv420p "" 'name=float_ssim'
check p01 yuv420p "scale=2" 'name=float_ssim\\:scale=2'
check p01 yuv420p "enable_lcs=true" 'name=float_ssim\\:enable_lcs=true'
# The filter's n_threads goes to VmafConfiguration: the library's workers.
check p01 yuv420p "" 'name=float_ssim' ':n_threads=2'
check p05 yuv420p "" 'name=float_ssim'
check p06 yuv444p "" 'name=float_ssim'

# FFmpeg 5.1 copies w[i] *bytes* per row into a picture of 16-bit samples
# (vf_libvmaf.c, copy_picture_data), so above 8 bits it scores half-copied
# pictures with any libvmaf; shown here, not counted as our failure.
say "known FFmpeg 5.1 limitation, 10-bit input (expected to differ):"
( check p02 yuv420p10le "" 'name=float_ssim' ) || true

# check_vmaf ID FFMPEG_PIX_FMT [MODEL]: the filter with its default options
# (only log_path and log_fmt given), or with MODEL as the filter receives
# it (one of ffmpeg7_check.py's VMAF_MODELS, whose comparison this uses).
check_vmaf() {
    id=$1 pixfmt=$2 model=${3:-}
    eval "$(python3 - "$SRC/test/api" "$VGOLDEN" "$id" "$model" "$TMP" <<'EOF'
import json, shlex, sys
sys.path.insert(0, sys.argv[1])
import ffmpeg7_check as c
v = [v for v in json.load(open(sys.argv[2]))["vectors"] if v["id"] == sys.argv[3]][0]
log = "%s/%s_vmaf%d.json" % (sys.argv[5], v["id"], len(sys.argv[4]))
print("ref=%s dis=%s size=%dx%d log=%s opts=%s" % (
    v["ref"], v["dis"], v["w"], v["h"], log,
    shlex.quote(c.vmaf_args(sys.argv[4] or None, log))))
EOF
)"
    for f in "$ref" "$dis"; do
        [ -f "$TMP/$f" ] || xz -dc "$SRC/test/data/vmaf/$f.xz" > "$TMP/$f"
    done
    set -- "$FFMPEG" -hide_banner -nostdin -loglevel info \
        -f rawvideo -pix_fmt "$pixfmt" -s "$size" -i "$TMP/$dis" \
        -f rawvideo -pix_fmt "$pixfmt" -s "$size" -i "$TMP/$ref" \
        -lavfi "[0:v][1:v]libvmaf=$opts" -f null -
    say "$*"
    "$@" 2>"$TMP/stderr.txt" || { tail -n 5 "$TMP/stderr.txt"; FAILED=1; return 0; }
    grep -E "VMAF score|libvmaf: (error|warning)" "$TMP/stderr.txt" || true
    python3 - "$SRC/test/api" "$VGOLDEN" "$id" "$model" "$log" "$TMP/stderr.txt" <<'EOF' || { FAILED=1; return 0; }
import json, sys
sys.path.insert(0, sys.argv[1])
import ffmpeg7_check as c
golden, vid, model, log, err = sys.argv[2:]
v = [v for v in json.load(open(golden))["vectors"] if v["id"] == vid][0]
vruns = {r["name"]: r for r in v["runs"]}
label, _, scores = [m for m in c.VMAF_MODELS if (m[1] or "") == model][0]
rep = c.read_log(log, as_text=True)
if rep is None:
    print("%s '%s': no log written" % (vid, label))
    sys.exit(1)
want, clashes = c.vmaf_expected(vruns, scores)
bad, n, n_scores = c.compare_text(rep, want, {name for name, _ in scores})
bad += ["the golden runs disagree: " + x for x in clashes]
lines = c.summary_scores(open(err).read())
means = [c.score_text(vruns[g]["pooled"]["vmaf"]["mean"]) for _, g in scores]
if lines != means:
    bad.append("summary lines 'VMAF score: %s', golden pooled means %s"
               % (" / ".join(lines) or "(none)", " / ".join(means)))
for b in bad[:10]:
    print("  DIFFERENT: " + b)
if bad:
    print("%s '%s': DIFFERENT (%d differences)" % (vid, label, len(bad)))
    sys.exit(1)
print("%s '%s': %d values equal golden_vmaf.json at %%.6f (%d of them %s scores), "
      "VMAF score %s" % (vid, label, n, n_scores, "/".join(s for s, _ in scores),
                         " / ".join(lines)))
EOF
}

# VMAF with the filter's default options: FFmpeg's built-in model
# vmaf_v0.6.1 (golden_vmaf.json's run vmaf_v0.6.1); and both models at
# once, the second named (two models under the default name "vmaf" are
# refused by the library).
VGOLDEN=$SRC/test/data/vmaf/golden_vmaf.json
BOTH="version=vmaf_v0.6.1:name=vmaf|version=vmaf_v0.6.1neg:name=vmaf_neg"
check_vmaf v01 yuv420p
check_vmaf v01 yuv420p "$BOTH"
check_vmaf v02 yuv420p            # 481x271, chroma rounded up as stored
check_vmaf v07 yuv420p
check_vmaf v11 yuv422p "$BOTH"    # 357x201 4:2:2

# The same FFmpeg 5.1 limitation above 8 bits (and 5.1 takes no 12- or
# 16-bit input: it converts those to 10 bits first).
say "known FFmpeg 5.1 limitation, 10-bit input (expected to differ):"
( check_vmaf v03 yuv420p10le ) || true

if [ "$FAILED" = 0 ]; then
    say "FFmpeg 5.1 libvmaf filter: all 8-bit scores equal golden.json and golden_vmaf.json"
else
    say "FAILED"
fi
exit "$FAILED"
