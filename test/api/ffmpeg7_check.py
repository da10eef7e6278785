#!/usr/bin/env python3
"""FFmpeg 7.1's libvmaf and libvmaf_cuda filters, linked against this
library, on every golden vector.

usage: LD_LIBRARY_PATH=<build>/core python3 test/api/ffmpeg7_check.py FFMPEG
           [--golden test/data/golden.json] [--vectors test/data]
           [--bench-frames N] [--only ID,ID...]

FFMPEG comes from test/api/ffmpeg7_build.sh. What runs:

- libvmaf (the CPU filter) on every golden run, each vector in its own
  pixel format (FFmpeg 7.1 copies whole rows above 8 bits, which 5.1 did
  not), and again on the vector as yuv444p16le;
- libvmaf_cuda (the GPU filter: hwupload_cuda, then vmaf_cuda_* calls with
  FFmpeg's own CUDA context and device pictures filled by cuMemcpy2D) on
  every golden run whose vector is yuv420p, the 8-bit format it takes, on
  every vector as yuv444p16le, the other format it takes, and on every
  vector in its own format converted by FFmpeg's format=yuv444p16le;
- the golden error cases, through both filters;
- with --bench-frames N (and a GPU), both filters on N frames of 3840x2160
  yuv420p, timed by ffmpeg's -benchmark;
- with --wrapper CMD, each GPU run under CMD (compute-sanitizer, say);
  --gpu-only leaves the CPU filter out.

yuv444p16le holds each luma sample shifted left by 16 - bpc. float_ssim
reads a 16-bit sample p as p / 256, so the shifted picture is the same
arithmetic as the original one and the golden scores hold for it, except
with clip_db, whose peak comes from the bit depth (those runs are left out).

Every score of the log (frames and pooled min, max, mean, harmonic mean) is
compared with golden.json at the log's %.6f precision; a GPU run must also
say "float_ssim runs as float_ssim_cuda" and log exactly what the CPU filter
logged for the same input. Each error case must fail ffmpeg, print the
library's error line and leave no log. Without a usable GPU the GPU checks
are reported as skipped (failed with VMAF_TEST_REQUIRE_GPU=1). Ends with
"N passed, N failed, N skipped"; exit status 0 when nothing failed.
"""
import argparse
import json
import lzma
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from array import array

PASSED = FAILED = SKIPPED = 0


def result(ok, what, detail=""):
    global PASSED, FAILED
    if ok:
        PASSED += 1
    else:
        FAILED += 1
    print("%s %s%s" % ("ok  " if ok else "FAIL", what, (": " + detail) if detail else ""))
    sys.stdout.flush()


def skip(what, why):
    global SKIPPED
    SKIPPED += 1
    print("SKIP %s: %s" % (what, why))


def native_fmt(v):
    depth = "" if v["bpc"] == 8 else "%dle" % v["bpc"]
    return "yuv%dp%s" % (v["fmt"], depth)


def frame_sizes(v):
    """Luma and one chroma plane, in samples."""
    w, h = v["w"], v["h"]
    cw = (w + 1) // 2 if v["fmt"] in (420, 422) else w
    ch = (h + 1) // 2 if v["fmt"] == 420 else h
    return w * h, cw * ch


def to_444p16(data, v):
    """Every frame as yuv444p16le: luma << (16 - bpc), chroma mid-grey."""
    ysz, csz = frame_sizes(v)
    bps = 1 if v["bpc"] == 8 else 2
    fsz = (ysz + 2 * csz) * bps
    assert len(data) == fsz * v["frames"], "vector size does not match its header"
    chroma = array("H", [0x8000]) * (2 * ysz)
    if sys.byteorder != "little":
        chroma.byteswap()
    chroma = chroma.tobytes()
    out = bytearray()
    for f in range(v["frames"]):
        luma = data[f * fsz:f * fsz + ysz * bps]
        if v["bpc"] == 8:
            y = bytearray(2 * ysz)
            y[1::2] = luma
        else:
            a = array("H", luma)
            if sys.byteorder != "little":
                a.byteswap()
            s = 16 - v["bpc"]
            a = array("H", (p << s for p in a))
            if sys.byteorder != "little":
                a.byteswap()
            y = a.tobytes()
        out += y + chroma
    return bytes(out)


def feature_arg(options):
    # Inside a filter graph the ':' between feature options is escaped twice
    # (graph parser, then option parser): name=float_ssim\\:scale=2.
    return "name=float_ssim" + "".join("\\\\:" + o for o in options.split(":") if o)


class Runner:
    def __init__(self, ffmpeg, tmp, wrapper):
        self.ffmpeg = ffmpeg
        self.tmp = tmp
        self.wrapper = wrapper
        self.n = 0

    def run(self, size, pix, dis, ref, feature, gpu, extra="", convert=""):
        """Runs one filter; returns (exit status, stderr, log dict or None).
        convert: a format FFmpeg converts both inputs to before the filter."""
        self.n += 1
        log = os.path.join(self.tmp, "log%d.json" % self.n)
        inputs = ["-f", "rawvideo", "-pix_fmt", pix, "-s", size, "-i", dis,
                  "-f", "rawvideo", "-pix_fmt", pix, "-s", size, "-i", ref]
        args = "model=:feature=%s:log_path=%s:log_fmt=json%s" % (feature, log, extra)
        # Input 0 is the filter's "main" (distorted) pad, input 1 its "reference".
        conv = "format=%s," % convert if convert else ""
        if gpu:
            cmd = self.wrapper + [self.ffmpeg, "-hide_banner", "-nostdin", "-benchmark",
                   "-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"] + inputs + [
                   "-filter_complex",
                   "[0:v]%shwupload_cuda[d];[1:v]%shwupload_cuda[r];[d][r]libvmaf_cuda=%s" %
                   (conv, conv, args),
                   "-f", "null", "-"]
        else:
            cmd = [self.ffmpeg, "-hide_banner", "-nostdin", "-benchmark"] + inputs + [
                   "-lavfi", "[0:v][1:v]libvmaf=" + args, "-f", "null", "-"]
        # ffmpeg writes nothing to stdout here (-f null -), a wrapper such
        # as compute-sanitizer does: keep it with stderr.
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", timeout=600)
        rep = None
        if os.path.exists(log):
            with open(log) as f:
                rep = json.load(f)
            os.unlink(log)
        return p.returncode, p.stdout, rep


def compare(rep, run):
    """Differences between a JSON log and a golden run, at %.6f."""
    bad = []
    if len(rep["frames"]) != len(run["frames"]):
        bad.append("%d frames logged, %d golden" % (len(rep["frames"]), len(run["frames"])))
    for i, (got, want) in enumerate(zip(rep["frames"], run["frames"])):
        for name, w in want.items():
            g = got["metrics"].get(name)
            if w is None or g is None:
                ok = w is None and g is None
            else:
                ok = "%.6f" % g == "%.6f" % w
            if not ok:
                bad.append("frame %d %s: logged %s, golden %.17g" % (i, name, g, w))
    for name, p in run["pooled"].items():
        for how in ("min", "max", "mean", "harmonic_mean"):
            g = rep["pooled_metrics"].get(name, {}).get(how)
            w = p[how]
            ok = (g is None and w is None) or (g is not None and w is not None
                                                and "%.6f" % g == "%.6f" % w)
            if not ok:
                bad.append("pooled %s %s: logged %s, golden %s" % (how, name, g, w))
    return bad


def gpu_usable(ffmpeg, tmp):
    zero = os.path.join(tmp, "zero.yuv")
    with open(zero, "wb") as f:
        f.write(bytes(64 * 64 * 3 // 2))
    p = subprocess.run([ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error",
                        "-init_hw_device", "cuda=cu", "-filter_hw_device", "cu",
                        "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "64x64", "-i", zero,
                        "-vf", "hwupload_cuda", "-f", "null", "-"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace", timeout=120)
    return p.returncode == 0, p.stderr.strip().splitlines()[-1:] or ["exit %d" % p.returncode]


def bench(r, gpu_ok, v14, tmp, frames):
    """Both filters on frames of 3840x2160 yuv420p (p14 tiled 2 x 2), each
    beside ffmpeg's own work without it (reading, and for the GPU filter
    hwupload_cuda), so that what the filter adds shows. Each command runs
    on frames / 4 and on frames: the difference gives the time a frame
    without the start-up (CUDA contexts, the library's state and pools)."""
    if not gpu_ok:
        skip("benchmark", "no usable GPU")
        return
    w, h = 1920, 1080
    on_disk = 8  # frames in each file; ffmpeg's -stream_loop repeats them
    loops = max(4, (frames + on_disk - 1) // on_disk // 4 * 4)
    counts = (loops // 4 * on_disk, loops * on_disk)
    paths = {}
    for side in ("ref", "dis"):
        with lzma.open(os.path.join(r.vectors, v14[side] + ".xz")) as f:
            src = f.read()
        planes = [(src[:w * h], w, h), (src[w * h:w * h * 5 // 4], w // 2, h // 2),
                  (src[w * h * 5 // 4:w * h * 3 // 2], w // 2, h // 2)]
        big = bytearray()
        for data, pw, ph in planes:
            for y in range(2 * ph):
                row = data[(y % ph) * pw:(y % ph + 1) * pw]
                big += row + row
        paths[side] = os.path.join(tmp, "bench_%s.yuv" % side)
        with open(paths[side], "wb") as f:
            for _ in range(on_disk):
                f.write(big)

    def inputs(n):
        args = []
        for side in ("dis", "ref"):
            args += ["-stream_loop", str(n // on_disk - 1), "-f", "rawvideo",
                     "-pix_fmt", "yuv420p", "-s", "3840x2160", "-i", paths[side]]
        return args

    def timed(make, log=None):
        """(ms a frame past start-up, start-up ms) or (None, failure)."""
        ms = []
        for n in counts:
            if log and os.path.exists(log):
                os.unlink(log)
            p = subprocess.run(make(n), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, errors="replace",
                               timeout=600)
            m = re.search(r"rtime=([0-9.]+)s", p.stderr)
            if p.returncode != 0 or not m:
                return None, "exit %d: %s" % (p.returncode, p.stderr[-400:])
            ms.append(float(m.group(1)) * 1000.0)
        per = (ms[1] - ms[0]) / (counts[1] - counts[0])
        return per, ms[0] - per * counts[0]

    base = [r.ffmpeg, "-hide_banner", "-nostdin", "-benchmark"]
    cuda = ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"]
    threads = os.cpu_count() or 1
    upload = "[0:v]hwupload_cuda[d];[1:v]hwupload_cuda[r]"
    modes = [
        ("libvmaf (n_threads=%d)" % threads, "reading", False, ":n_threads=%d" % threads,
         lambda n: base + inputs(n) + ["-map", "0:v", "-f", "null", "-",
                                       "-map", "1:v", "-f", "null", "-"]),
        ("libvmaf_cuda", "reading and hwupload_cuda", True, "",
         lambda n: base + cuda + inputs(n) + ["-filter_complex", upload, "-map", "[d]",
                                              "-f", "null", "-", "-map", "[r]", "-f", "null", "-"]),
    ]
    size = "%d and %d frames of 3840x2160" % counts
    times, logs = {}, {}
    for name, what, gpu, extra, alone in modes:
        t_alone, start_alone = timed(alone)
        ok = t_alone is not None
        result(ok, "benchmark: ffmpeg's %s alone, %s" % (what, size),
               "%.3f ms a frame, start-up %.0f ms" % (t_alone, start_alone) if ok else start_alone)
        r.n += 1
        log = os.path.join(tmp, "bench%d.json" % r.n)
        args = "model=:feature=name=float_ssim:log_path=%s:log_fmt=json%s" % (log, extra)
        if gpu:
            graph = upload + ";[d][r]libvmaf_cuda=" + args
            make = lambda n: r.wrapper + base + cuda + inputs(n) + [
                "-filter_complex", graph, "-f", "null", "-"]
        else:
            make = lambda n: base + inputs(n) + ["-lavfi", "[0:v][1:v]libvmaf=" + args,
                                                 "-f", "null", "-"]
        t, start = timed(make, log)
        rep = None
        if t is not None and os.path.exists(log):
            with open(log) as f:
                rep = json.load(f)
        ok = rep is not None and len(rep["frames"]) == counts[1]
        detail = start
        if ok:
            times[gpu] = t
            logs[gpu] = rep
            detail = "%.3f ms a frame, start-up %.0f ms" % (t, start)
            if t_alone is not None:
                detail += "; %.3f ms a frame and %.0f ms of start-up more than ffmpeg's %s alone" \
                    % (t - t_alone, start - start_alone, what)
        result(ok, "benchmark %s, %s" % (name, size), detail)
    if len(logs) == 2:
        same = logs[False]["frames"] == logs[True]["frames"] and \
            logs[False]["pooled_metrics"] == logs[True]["pooled_metrics"]
        result(same, "benchmark: libvmaf_cuda logged what libvmaf logged",
               "pooled mean %s; a frame through the GPU filter takes %.2fx the CPU filter's time" %
               (logs[True]["pooled_metrics"]["float_ssim"]["mean"], times[True] / times[False]))
    for p in paths.values():
        os.unlink(p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ffmpeg")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--golden", default=os.path.join(here, "..", "data", "golden.json"))
    ap.add_argument("--vectors", default=os.path.join(here, "..", "data"))
    ap.add_argument("--bench-frames", type=int, default=0)
    ap.add_argument("--only", default="")
    ap.add_argument("--gpu-only", action="store_true", help="leave the CPU filter's runs out")
    ap.add_argument("--wrapper", default="",
                    help="a command that runs each GPU run's ffmpeg, such as compute-sanitizer")
    a = ap.parse_args()
    with open(a.golden) as f:
        vectors = json.load(f)["vectors"]
    only = set(a.only.split(",")) - {""}
    require_gpu = os.environ.get("VMAF_TEST_REQUIRE_GPU") == "1"
    t0 = time.time()

    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(a.ffmpeg, tmp, shlex.split(a.wrapper))
        r.vectors = a.vectors
        gpu_ok, why = gpu_usable(a.ffmpeg, tmp)
        print("GPU: %s" % ("usable" if gpu_ok else "not usable (%s)" % why[0]))
        if not gpu_ok and require_gpu:
            result(False, "a GPU is required (VMAF_TEST_REQUIRE_GPU=1)", why[0])
        for v in vectors:
            if only and v["id"] not in only:
                continue
            files = {}
            for side in ("ref", "dis"):
                with lzma.open(os.path.join(a.vectors, v[side] + ".xz")) as f:
                    data = f.read()
                files[side] = os.path.join(tmp, v[side])
                with open(files[side], "wb") as f:
                    f.write(data)
                files[side + "16"] = files[side] + ".444p16"
                with open(files[side + "16"], "wb") as f:
                    f.write(to_444p16(data, v))
            size = "%dx%d" % (v["w"], v["h"])
            for run in v["runs"]:
                # (GPU filter, input format, file suffix, FFmpeg's conversion)
                cases = [(False, native_fmt(v), "", ""), (False, "yuv444p16le", "16", "")]
                if v["fmt"] == 420 and v["bpc"] == 8:
                    cases.append((True, "yuv420p", "", ""))
                cases.append((True, "yuv444p16le", "16", ""))
                # What a user does with any other format: FFmpeg's format
                # filter, which widens by the same left shift.
                cases.append((True, native_fmt(v), "", "yuv444p16le"))
                cpu_logs = {}
                for gpu, pix, suffix, convert in cases:
                    what = "%s %s %s%s '%s'" % (v["id"], "libvmaf_cuda" if gpu else "libvmaf",
                                                pix, " via format=" + convert if convert else "",
                                                run["options"])
                    if (suffix or convert) and "clip_db" in run["options"]:
                        continue  # its peak follows the bit depth
                    if a.gpu_only and not gpu:
                        continue
                    if gpu and not gpu_ok:
                        skip(what, "no usable GPU")
                        continue
                    rc, err, rep = r.run(size, pix, files["dis" + suffix], files["ref" + suffix],
                                         feature_arg(run["options"]), gpu, convert=convert)
                    lib_errors = [l for l in err.splitlines() if l.startswith("libvmaf: error:")]
                    if run.get("error"):
                        # One line gives the reason. The filter's flush at
                        # its end may add the line of a call refused after
                        # that failure, which does not repeat the reason.
                        later = [l for l in lib_errors[1:] if "stopped at an earlier failure" in l]
                        ok = rc != 0 and rep is None and len(lib_errors) == 1 + len(later) \
                            and "earlier failure" not in lib_errors[0]
                        result(ok, what + " is refused",
                               lib_errors[0] if ok else "exit %d, log %s, error lines %r" %
                               (rc, "written" if rep else "absent", lib_errors))
                        continue
                    if rc != 0 or rep is None:
                        result(False, what, "exit %d: %s" % (rc, err[-600:]))
                        continue
                    bad = compare(rep, run)
                    if gpu:
                        if "float_ssim runs as float_ssim_cuda" not in err:
                            bad.append("the library did not say it runs float_ssim_cuda")
                        cpu = cpu_logs.get(convert or pix)
                        if cpu is not None and (cpu["frames"] != rep["frames"] or
                                                cpu["pooled_metrics"] != rep["pooled_metrics"]):
                            bad.append("the log differs from the CPU filter's")
                    else:
                        cpu_logs[pix] = rep
                    n = sum(len(fr) for fr in run["frames"]) + 4 * len(run["pooled"])
                    detail = "%d scores equal golden.json" % n
                    if gpu and r.wrapper:
                        # compute-sanitizer's last word, where it gives one.
                        said = [l.strip() for l in err.splitlines() if "SUMMARY" in l]
                        detail += ("; " + said[-1]) if said else ""
                    result(not bad, what, "; ".join(bad[:4]) if bad else detail)
        if a.bench_frames > 0:
            v14 = [v for v in vectors if v["id"] == "p14"][0]
            bench(r, gpu_ok, v14, tmp, a.bench_frames)
    print("ffmpeg7_check: %d passed, %d failed, %d skipped (%.0f s)" %
          (PASSED, FAILED, SKIPPED, time.time() - t0))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
