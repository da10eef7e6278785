#!/bin/sh
# Builds a minimal FFmpeg 7.1 (Debian 13's source package) with both of its
# libvmaf filters, libvmaf (CPU) and libvmaf_cuda (GPU, FFmpeg 6.1 and
# later), linked against this library, with NVDEC and scale_cuda for the
# GPU pipeline on encoded video, and encodes the streams that pipeline is
# run on: two 8-bit H.264 ones and two 10-bit HEVC ones.
# test/api/ffmpeg7_check.py then runs them; docs/consumers.md has the
# results.
#
# It downloads about 11 MB of source from Debian's servers and compiles for
# about 2 minutes on 2 cores; .ci/run builds it with MEDIA=0 and runs the
# check's CPU part. Nothing of FFmpeg is committed.
# The binary needs no GPU to build or to run its CPU filter, and it loads
# libvmaf.so.3 at run time, so the same binary serves a GPU machine that has
# no network: copy it there (the CUDA suite's FFMPEG7 variable takes it) and
# point LD_LIBRARY_PATH at a CUDA build of the library.
#
# usage: test/api/ffmpeg7_build.sh [OUTDIR]   (from the repository root, as
#        root for apt-get; default OUTDIR .ffmpeg7, which git ignores)
# Environment: WORK (default /tmp/ffmpeg7-work) for the sources and the
#              library's install prefix; JOBS (default: all cores);
#              SKIP_APT=1 when the sources are already under WORK;
#              MEDIA=0 leaves the streams (and x264, x265) out.
# Exit status 77 when the sources or the tools could not be had (no
# network, no root): nothing of this project was tested then. Any other
# failure, such as FFmpeg's configure or link refusing the library, is 1.
set -eu

SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR=${1:-$SRC/.ffmpeg7}
WORK=${WORK:-/tmp/ffmpeg7-work}
JOBS=${JOBS:-$(nproc)}
PREFIX=$WORK/vmaf-prefix
say() { printf '== %s\n' "$*"; }

# 1. The library's headers and pkg-config file. A build without CUDA is
#    enough to link: libvmaf_cuda.h and its functions exist in every build,
#    and FFmpeg's configure only checks that vmaf_cuda_state_init links.
say "installing the library into $PREFIX"
BUILD=$WORK/build-lib
[ -d "$BUILD" ] || meson setup --prefix="$PREFIX" "$BUILD" "$SRC" -Dcuda=disabled -Dtests=false >/dev/null
ninja -C "$BUILD" -j"$JOBS" install >/dev/null
PCDIR=$(dirname "$(find "$PREFIX" -name libvmaf.pc | head -n 1)")

# 2. Sources: FFmpeg 7.1 and nv-codec-headers (the driver API declarations
#    FFmpeg's CUDA code loads libcuda.so.1 with) from Debian 13's deb-src.
#    A sources file of its own adds deb-src only: no binary package of
#    Debian 13 can be installed through it.
mkdir -p "$WORK"
if [ "${SKIP_APT:-0}" != 1 ]; then
    list=/etc/apt/sources.list.d/vmaf-ffmpeg7-src.sources
    if [ ! -f "$list" ]; then
        printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: trixie' \
            'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$list"
    fi
    # A failed update or install shows below as a missing tarball or tool.
    apt-get update -q || true
    # clang compiles scale_cuda's kernels (--enable-cuda-llvm, no nvcc
    # needed); x264 and x265 encode the streams of the NVDEC runs.
    tools="dpkg-dev xz-utils pkg-config make clang"
    [ "${MEDIA:-1}" = 0 ] || tools="$tools x264 x265"
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $tools || true
    # --download-only: only the upstream tarballs are used, not Debian's
    # packaging. A missing packaging file (the mirror once answered 404 for
    # nv-codec-headers' .debian.tar.xz) fails apt-get but not this build:
    # the check below wants the tarballs alone.
    for pkg in ffmpeg nv-codec-headers; do
        (cd "$WORK" && apt-get source -q --download-only "$pkg/trixie") ||
            echo "ffmpeg7_build: apt-get source $pkg/trixie reported an error; going on if its .orig tarball came" >&2
    done
fi
FFTAR=$(ls "$WORK"/ffmpeg_7.1*.orig.tar.xz 2>/dev/null | head -n 1 || true)
NVTAR=$(ls "$WORK"/nv-codec-headers_*.orig.tar.xz 2>/dev/null | head -n 1 || true)
[ -n "$FFTAR" ] && [ -n "$NVTAR" ] || {
    echo "ffmpeg7_build: the FFmpeg 7.1 or nv-codec-headers source tarball is missing from $WORK;" \
         "run as root with network access, or put them there and set SKIP_APT=1" >&2
    exit 77
}
for t in make clang pkg-config; do
    command -v "$t" >/dev/null || { echo "ffmpeg7_build: $t is not installed" >&2; exit 77; }
done
if [ "${MEDIA:-1}" != 0 ]; then
    for t in x264 x265; do
        command -v "$t" >/dev/null ||
            { echo "ffmpeg7_build: $t is not installed (MEDIA=0 builds without the streams)" >&2; exit 77; }
    done
fi
FF=$WORK/$(tar -tf "$FFTAR" | head -n 1 | cut -d/ -f1)
NV=$WORK/$(tar -tf "$NVTAR" | head -n 1 | cut -d/ -f1)
[ -d "$FF" ] || tar -xf "$FFTAR" -C "$WORK"
[ -d "$NV" ] || tar -xf "$NVTAR" -C "$WORK"
make -C "$NV" PREFIX="$WORK/nvh" install >/dev/null
say "FFmpeg source: $FF"

# 3. Raw video, Y4M, raw H.264 and raw HEVC in; the two filters, the CUDA
#    upload and download, NVDEC for H.264 and HEVC (whose Main 10 profile
#    NVDEC decodes into 10-bit p010 frames) and scale_cuda (its kernels
#    compiled by clang); the null muxer out. configure:
#    libvmaf_cuda_filter_deps="libvmaf libvmaf_cuda ffnvcodec", where
#    libvmaf_cuda is check_pkg_config libvmaf_cuda "libvmaf >= 2.0.0"
#    libvmaf_cuda.h vmaf_cuda_state_init.
(cd "$FF" &&
 PKG_CONFIG_PATH=$PCDIR:$WORK/nvh/lib/pkgconfig ./configure --enable-libvmaf \
    --enable-ffnvcodec --enable-cuda --enable-cuda-llvm --enable-nvdec \
    --disable-everything --disable-autodetect --disable-doc --disable-x86asm \
    --disable-debug --disable-ffplay --disable-ffprobe --disable-network \
    --enable-filter=libvmaf,libvmaf_cuda,hwupload_cuda,hwdownload,scale_cuda,null,buffer,buffersink,scale,format \
    --enable-protocol=file,pipe --enable-demuxer=rawvideo,yuv4mpegpipe,h264,hevc --enable-parser=h264,hevc \
    --enable-decoder=rawvideo,wrapped_avframe,h264,hevc --enable-hwaccel=h264_nvdec,hevc_nvdec \
    --enable-encoder=wrapped_avframe,rawvideo --enable-muxer=null,rawvideo >"$WORK/configure.log" 2>&1 ||
 { tail -20 "$WORK/configure.log" >&2; exit 1; })
for c in LIBVMAF_FILTER LIBVMAF_CUDA_FILTER HWUPLOAD_CUDA_FILTER HWDOWNLOAD_FILTER \
         SCALE_CUDA_FILTER H264_NVDEC_HWACCEL HEVC_NVDEC_HWACCEL; do
    grep -q "^#define CONFIG_$c 1" "$FF/config_components.h" || {
        echo "ffmpeg7_build: configure left $c out (see $WORK/configure.log)" >&2
        exit 1
    }
done
(cd "$FF" && nice -n 10 make -j"$JOBS" ffmpeg >"$WORK/make.log" 2>&1) ||
    { tail -20 "$WORK/make.log" >&2; exit 1; }
mkdir -p "$OUTDIR"
cp "$FF/ffmpeg" "$OUTDIR/ffmpeg"
# 4. The streams of the NVDEC runs, beside the binary.
[ "${MEDIA:-1}" = 0 ] || python3 "$SRC/test/api/ffmpeg7_check.py" --make-media "$OUTDIR/media"
say "built $OUTDIR/ffmpeg ($(basename "$FF")); it needs libvmaf.so.3 on LD_LIBRARY_PATH:"
say "  LD_LIBRARY_PATH=<build>/core python3 test/api/ffmpeg7_check.py $OUTDIR/ffmpeg"
