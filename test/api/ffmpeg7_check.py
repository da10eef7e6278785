#!/usr/bin/env python3
"""FFmpeg 7.1's libvmaf and libvmaf_cuda filters, linked against this
library, on every golden vector.

usage: LD_LIBRARY_PATH=<build>/core python3 test/api/ffmpeg7_check.py FFMPEG
           [--golden test/data/golden.json] [--vectors test/data]
           [--vmaf-golden test/data/vmaf/golden_vmaf.json]
           [--vmaf-vectors test/data/vmaf]
           [--bench-frames N] [--media DIR] [--only ID,ID...]
           [--gpu-only] [--wrapper CMD] [--jobs N]
       python3 test/api/ffmpeg7_check.py --make-media DIR   (x264, x265)
       python3 test/api/ffmpeg7_check.py --self-test        (no FFmpeg)

FFMPEG and the media come from test/api/ffmpeg7_build.sh. What runs:

- libvmaf (the CPU filter) on every golden run, each vector in its own
  pixel format (FFmpeg 7.1 copies whole rows above 8 bits, which 5.1 did
  not), and again on the vector as yuv444p16le;
- libvmaf_cuda (the GPU filter: hwupload_cuda, then vmaf_cuda_* calls with
  FFmpeg's own CUDA context and device pictures filled by cuMemcpy2D) on
  every golden run whose vector is yuv420p, the 8-bit format it takes, on
  every vector as yuv444p16le, the other format it takes, and on every
  vector in its own format converted by FFmpeg's format=yuv444p16le;
- the golden error cases, through both filters;
- VMAF (golden_vmaf.json, v01..v11, raw files as stored: chroma rounded up
  at odd sizes, as FFmpeg's rawvideo reads them): libvmaf with its default
  options, i.e. FFmpeg's built-in model "version=vmaf_v0.6.1", in each
  vector's own pixel format; with model=version=vmaf_v0.6.1neg; with both
  models at once (model=version=vmaf_v0.6.1:name=vmaf|version=
  vmaf_v0.6.1neg:name=vmaf_neg); with its default options through
  format=yuv444p16le; and with no option at all (its summary line only).
  Two models under the one default name (model='version=vmaf_v0.6.1|
  version=vmaf_v0.6.1neg') must be refused with the library's reason.
  libvmaf_cuda with its default options (and both models) as yuv420p on
  the 8-bit 4:2:0 vectors and through format=yuv444p16le on every vector:
  no VMAF extractor has a CUDA twin yet, so the library runs them on the
  CPU beside the GPU, and the scores must be the CPU filter's;
- with --bench-frames N, both filters (without a GPU, the CPU filter) on
  N frames of 3840x2160 yuv420p, timed by ffmpeg's -benchmark; and, where
  the streams of --make-media exist (8-bit H.264, 10-bit HEVC), the
  pipeline a user runs on encoded video (NVDEC, scale_cuda, libvmaf_cuda)
  against software decoding and the CPU filter, which must log the same
  scores;
- with --wrapper CMD, each GPU run under CMD (compute-sanitizer, say);
  --gpu-only leaves the CPU filter out.

The golden runs go on --jobs at a time (default: half the cores, at most
8), each its own ffmpeg process, and are reported in golden.json's order,
then the VMAF runs the same way; the timed runs go one at a time.

yuv444p16le holds each luma sample shifted left by 16 - bpc. float_ssim
reads a 16-bit sample p as p / 256, so the shifted picture is the same
arithmetic as the original one and the golden scores hold for it, except
with clip_db, whose peak comes from the bit depth (those runs are left out).

Every score of the log (frames and pooled min, max, mean, harmonic mean) is
compared with golden.json at the log's %.6f precision; a GPU run must also
say "float_ssim runs as float_ssim_cuda" and log exactly what the CPU filter
logged for the same input.

Each error case must fail ffmpeg, print the library's error line and
leave no log.

A VMAF log is compared as text: every number the filter's log holds (the
model's features and each model's score, per frame and pooled) must be the
golden run's value printed with %.6f, which is all the filter can give (it
calls vmaf_write_output, whose scores are %.6f), and no other score may be
logged. The filter's summary lines, "VMAF score: %f" (one a model), must be
the golden pooled means; a GPU log must also be the CPU filter's for the
same input, value for value. The widened yuv444p16le frames are no golden
input, but their VMAF is the original's, bit for bit (the vmaf tool with
--precision max agreed on every frame of v01..v11), so those logs are held
to golden_vmaf.json as well. No subset: every vector, every run above.

Without a usable GPU the GPU checks are reported as skipped (failed with
VMAF_TEST_REQUIRE_GPU=1). Ends with "N passed, N failed, N skipped"; exit
status 0 when nothing failed.
"""
import argparse
import concurrent.futures
import itertools
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


BASE = ["-hide_banner", "-nostdin", "-benchmark"]
CUDA = ["-init_hw_device", "cuda=cu", "-filter_hw_device", "cu"]
# Before an input: decode it with NVDEC into CUDA frames on that device.
NVDEC = ["-hwaccel", "cuda", "-hwaccel_device", "cu", "-hwaccel_output_format", "cuda"]
THREADS = os.cpu_count() or 1


class Runner:
    def __init__(self, ffmpeg, tmp, wrapper, vectors):
        self.ffmpeg = ffmpeg
        self.tmp = tmp
        self.wrapper = wrapper
        self.vectors = vectors
        # Runs may go on in several threads: each takes its own log name
        # (next() on a count is one step under the interpreter's lock).
        self.ids = itertools.count(1)

    def run(self, size, pix, dis, ref, feature, gpu, convert=""):
        """Runs one filter on float_ssim alone; returns (exit status, its
        output, stderr and stdout together, log dict or None). convert: a
        format FFmpeg converts both inputs to before the filter."""
        log = os.path.join(self.tmp, "log%d.json" % next(self.ids))
        args = "model=:feature=%s:log_path=%s:log_fmt=json" % (feature, log)
        rc, out = self.ffmpeg_run(size, pix, dis, ref, args, gpu, convert)
        return rc, out, read_log(log)

    def ffmpeg_run(self, size, pix, dis, ref, args, gpu, convert=""):
        """ffmpeg with one filter given args (the filter's options as
        written in the graph; "" gives it none); returns (exit status,
        stderr and stdout together)."""
        inputs = ["-f", "rawvideo", "-pix_fmt", pix, "-s", size, "-i", dis,
                  "-f", "rawvideo", "-pix_fmt", pix, "-s", size, "-i", ref]
        opts = "=" + args if args else ""
        # Input 0 is the filter's "main" (distorted) pad, input 1 its "reference".
        conv = "format=%s," % convert if convert else ""
        if gpu:
            cmd = self.wrapper + [self.ffmpeg] + BASE + CUDA + inputs + [
                   "-filter_complex",
                   "[0:v]%shwupload_cuda[d];[1:v]%shwupload_cuda[r];[d][r]libvmaf_cuda%s" %
                   (conv, conv, opts),
                   "-f", "null", "-"]
        elif convert:
            cmd = [self.ffmpeg] + BASE + inputs + [
                   "-lavfi", "[0:v]format=%s[d];[1:v]format=%s[r];[d][r]libvmaf%s" %
                   (convert, convert, opts), "-f", "null", "-"]
        else:
            cmd = [self.ffmpeg] + BASE + inputs + [
                   "-lavfi", "[0:v][1:v]libvmaf" + opts, "-f", "null", "-"]
        # ffmpeg writes nothing to stdout here (-f null -), a wrapper such
        # as compute-sanitizer does: keep it with stderr.
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace", timeout=600)
        return p.returncode, p.stdout


def read_log(path, as_text=False):
    """The JSON log at path, or None where there is none (deleted once
    read). as_text: every number as the text the log holds."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    if as_text:
        return json.loads(text, parse_float=str, parse_int=str)
    return json.loads(text)


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


def write_vector(v, vdir, tmp):
    """The vector's files in tmp, as it is and as yuv444p16le."""
    files = {}
    for side in ("ref", "dis"):
        with lzma.open(os.path.join(vdir, v[side] + ".xz")) as f:
            data = f.read()
        files[side] = os.path.join(tmp, v[side])
        with open(files[side], "wb") as f:
            f.write(data)
        files[side + "16"] = files[side] + ".444p16"
        with open(files[side + "16"], "wb") as f:
            f.write(to_444p16(data, v))
    return files


def check_run(r, v, files, run, gpu_ok, gpu_only):
    """One golden run through both filters. Returns its outcomes in order,
    (True/False, what, detail) for a check and (None, what, why) for a
    skip, so that runs can go on in several threads and still be reported
    in golden.json's order."""
    out = []
    size = "%dx%d" % (v["w"], v["h"])
    # (GPU filter, input format, file suffix, FFmpeg's conversion)
    cases = [(False, native_fmt(v), "", ""), (False, "yuv444p16le", "16", "")]
    if v["fmt"] == 420 and v["bpc"] == 8:
        cases.append((True, "yuv420p", "", ""))
    cases.append((True, "yuv444p16le", "16", ""))
    # What a user does with any other format: FFmpeg's format filter,
    # which widens by the same left shift.
    cases.append((True, native_fmt(v), "", "yuv444p16le"))
    cpu_logs = {}
    for gpu, pix, suffix, convert in cases:
        what = "%s %s %s%s '%s'" % (v["id"], "libvmaf_cuda" if gpu else "libvmaf",
                                    pix, " via format=" + convert if convert else "",
                                    run["options"])
        if (suffix or convert) and "clip_db" in run["options"]:
            continue  # its peak follows the bit depth
        if gpu_only and not gpu:
            continue
        if gpu and not gpu_ok:
            out.append((None, what, "no usable GPU"))
            continue
        rc, err, rep = r.run(size, pix, files["dis" + suffix], files["ref" + suffix],
                             feature_arg(run["options"]), gpu, convert=convert)
        lib_errors = [l for l in err.splitlines() if l.startswith("libvmaf: error:")]
        if run.get("error"):
            # One line gives the reason. The filter's flush at its end may
            # add the line of a call refused after that failure, which does
            # not repeat the reason.
            later = [l for l in lib_errors[1:] if "stopped at an earlier failure" in l]
            ok = rc != 0 and rep is None and len(lib_errors) == 1 + len(later) \
                and "earlier failure" not in lib_errors[0]
            out.append((ok, what + " is refused",
                        lib_errors[0] if ok else "exit %d, log %s, error lines %r" %
                        (rc, "written" if rep else "absent", lib_errors)))
            continue
        if rc != 0 or rep is None:
            out.append((False, what, "exit %d: %s" % (rc, err[-600:])))
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
        out.append((not bad, what, "; ".join(bad[:4]) if bad else detail))
    return out


def report(outcomes):
    for ok, what, detail in outcomes:
        if ok is None:
            skip(what, detail)
        else:
            result(ok, what, detail)


# The VMAF runs (golden_vmaf.json): what the filter is given and which
# golden runs its log must equal. Each entry: (label, the filter's model
# option before escaping, None to leave FFmpeg's default
# "version=vmaf_v0.6.1", and each model's score as (its name in the log,
# the golden run whose "vmaf" it is)). A second model needs a name of its
# own (name=): two models under the default name "vmaf" are refused by the
# library, which VMAF_CLASH checks.
VMAF_MODELS = (
    ("default options", None, (("vmaf", "vmaf_v0.6.1"),)),
    ("model=version=vmaf_v0.6.1neg", "version=vmaf_v0.6.1neg", (("vmaf", "vmaf_v0.6.1neg"),)),
    ("model=version=vmaf_v0.6.1:name=vmaf|version=vmaf_v0.6.1neg:name=vmaf_neg",
     "version=vmaf_v0.6.1:name=vmaf|version=vmaf_v0.6.1neg:name=vmaf_neg",
     (("vmaf", "vmaf_v0.6.1"), ("vmaf_neg", "vmaf_v0.6.1neg"))),
)
VMAF_CLASH = "version=vmaf_v0.6.1|version=vmaf_v0.6.1neg"
VMAF_CLASH_VECTOR = "v01"
POOLS = ("min", "max", "mean", "harmonic_mean")


def escape_opt(value):
    """An option's value inside a filter graph: ':' escaped twice (graph
    parser, then option parser)."""
    return value.replace(":", "\\\\:")


def vmaf_args(model, log):
    """The filter's options for a VMAF run: the model where one is given,
    and the JSON log; nothing else, so the rest stays FFmpeg's default."""
    args = "model=%s:" % escape_opt(model) if model is not None else ""
    return args + "log_path=%s:log_fmt=json" % log


def vmaf_expected(vruns, scores):
    """What a log must hold, from the golden runs (vruns, by name): the
    features of each golden run of scores, and each model's "vmaf" under
    its name in the log. Returns ({"frames", "pooled"}, clashes), clashes
    naming a value that two golden runs give differently."""
    frames = [dict() for _ in vruns[scores[0][1]]["frames"]]
    pooled = {}
    clashes = []
    for name, golden in scores:
        run = vruns[golden]
        if len(run["frames"]) != len(frames):
            clashes.append("%s has %d frames, %s %d" % (golden, len(run["frames"]),
                                                         scores[0][1], len(frames)))
        for i, fr in enumerate(run["frames"][:len(frames)]):
            for k, val in fr.items():
                key = name if k == "vmaf" else k
                if key in frames[i] and frames[i][key] != val:
                    clashes.append("frame %d %s: %s gives %r, another golden run %r"
                                   % (i, key, golden, val, frames[i][key]))
                frames[i][key] = val
        for k, p in run["pooled"].items():
            key = name if k == "vmaf" else k
            if key in pooled and pooled[key] != p:
                clashes.append("pooled %s: %s gives %r, another golden run %r"
                               % (key, golden, p, pooled[key]))
            pooled[key] = p
    return {"frames": frames, "pooled": pooled}, clashes


def score_text(x):
    """A golden value as the log writes it: %.6f, null for NaN or inf."""
    return "null" if x is None else "%.6f" % x


def logged(d, key):
    """A number of a log read as text: its text, "null", or "absent"."""
    if key not in d:
        return "absent"
    return "null" if d[key] is None else d[key]


def compare_text(rep, want, scores):
    """A log read with its numbers as text against the golden values at
    the log's %.6f: (differences, values compared, of which the scores of
    the names in scores)."""
    bad = []
    n = n_scores = 0
    frames = rep.get("frames", [])
    if len(frames) != len(want["frames"]):
        bad.append("%d frames logged, %d golden" % (len(frames), len(want["frames"])))
    for i, (got, w) in enumerate(zip(frames, want["frames"])):
        m = got.get("metrics", {})
        if got.get("frameNum") != str(i):
            bad.append("frame %d logged as frameNum %s" % (i, got.get("frameNum")))
        extra = sorted(set(m) - set(w))
        if extra:
            bad.append("frame %d: %s logged, in no golden run" % (i, ", ".join(extra)))
        for name, val in w.items():
            n += 1
            n_scores += name in scores
            if logged(m, name) != score_text(val):
                bad.append("frame %d %s: logged %s, golden %s (%s)" % (
                    i, name, logged(m, name), score_text(val),
                    "NaN or inf" if val is None else "%.17g" % val))
    pm = rep.get("pooled_metrics", {})
    extra = sorted(set(pm) - set(want["pooled"]))
    if extra:
        bad.append("pooled %s logged, in no golden run" % ", ".join(extra))
    for name, p in want["pooled"].items():
        for how in POOLS:
            n += 1
            n_scores += name in scores
            g = logged(pm.get(name, {}), how)
            if g != score_text(p[how]):
                bad.append("pooled %s %s: logged %s, golden %s" % (how, name, g,
                                                                    score_text(p[how])))
    return bad, n, n_scores


def log_differences(a, b):
    """Where two logs read as text differ, frames and pooled scores."""
    bad = []
    fa, fb = a.get("frames", []), b.get("frames", [])
    if len(fa) != len(fb):
        bad.append("%d frames against %d" % (len(fa), len(fb)))
    for i, (x, y) in enumerate(zip(fa, fb)):
        mx, my = x.get("metrics", {}), y.get("metrics", {})
        for k in sorted(set(mx) | set(my)):
            if logged(mx, k) != logged(my, k):
                bad.append("frame %d %s: %s against %s" % (i, k, logged(mx, k), logged(my, k)))
    px, py = a.get("pooled_metrics", {}), b.get("pooled_metrics", {})
    for k in sorted(set(px) | set(py)):
        if px.get(k) != py.get(k):
            bad.append("pooled %s: %s against %s" % (k, px.get(k), py.get(k)))
    return bad


def summary_scores(out):
    """The filter's summary lines, "VMAF score: %f" (one a model, in the
    order of its model option), as text."""
    return re.findall(r"\] VMAF score: (\S+)", out)


def backends(out):
    """The library's "X runs as Y" lines, in words."""
    runs = re.findall(r"libvmaf: info: (\w+) runs as (\w+)", out)
    return ", ".join(x if x == y else "%s as %s" % (x, y) for x, y in sorted(set(runs))) \
        or "none said"


def check_vmaf(r, v, files, vruns, gpu_ok, gpu_only):
    """A VMAF vector through both filters. The CPU filter: in the vector's
    own format with each entry of VMAF_MODELS, with no option at all, and
    with its default options through format=yuv444p16le; the refused
    VMAF_CLASH on VMAF_CLASH_VECTOR. The GPU filter (no VMAF extractor has
    a CUDA twin: the library runs them on the CPU beside the GPU) with its
    default options and two models as yuv420p for 8-bit 4:2:0 vectors, and
    with its default options through format=yuv444p16le for every vector.
    Every log against the golden runs; a GPU log also against the CPU
    filter's for the same input. Returns outcomes as check_run does."""
    out = []
    size = "%dx%d" % (v["w"], v["h"])
    pix = native_fmt(v)

    def run(model, gpu, convert=""):
        log = os.path.join(r.tmp, "vmaf%d.json" % next(r.ids))
        rc, err = r.ffmpeg_run(size, pix, files["dis"], files["ref"], vmaf_args(model, log),
                               gpu, convert)
        return rc, err, read_log(log, as_text=True)

    def against_golden(rep, err, scores):
        want, clashes = vmaf_expected(vruns, scores)
        bad, n, n_scores = compare_text(rep, want, {name for name, _ in scores})
        bad += ["the golden runs disagree: " + c for c in clashes]
        lines = summary_scores(err)
        means = [score_text(vruns[g]["pooled"]["vmaf"]["mean"]) for _, g in scores]
        if lines != means:
            bad.append("summary lines 'VMAF score: %s', golden pooled means %s"
                       % (" / ".join(lines) or "(none)", " / ".join(means)))
        return bad, "%d values equal golden_vmaf.json at %%.6f (%d of them %s scores); " \
            "VMAF score: %s" % (n, n_scores, "/".join(name for name, _ in scores),
                                " / ".join(lines))

    def name(gpu, convert, label):
        return "%s %s %s%s, %s" % (v["id"], "libvmaf_cuda" if gpu else "libvmaf", pix,
                                   " via format=" + convert if convert else "", label)

    default = VMAF_MODELS[0]
    cases = [(False, "") + m for m in VMAF_MODELS] + [(False, "yuv444p16le") + default]
    if (v["fmt"], v["bpc"]) == (420, 8):
        cases += [(True, "") + m for m in (default, VMAF_MODELS[2])]
    cases.append((True, "yuv444p16le") + default)
    cpu_logs = {}
    for gpu, convert, label, model, scores in cases:
        what = name(gpu, convert, label)
        if gpu_only and not gpu:
            continue
        if gpu and not gpu_ok:
            out.append((None, what, "no usable GPU"))
            continue
        rc, err, rep = run(model, gpu, convert)
        if rc != 0 or rep is None:
            out.append((False, what, "exit %d, log %s: %s" % (
                rc, "written" if rep else "absent", err[-600:])))
            continue
        bad, detail = against_golden(rep, err, scores)
        if not gpu:
            cpu_logs[convert, label] = rep
        else:
            cpu = cpu_logs.get((convert, label))
            if cpu is not None:
                diff = log_differences(rep, cpu)
                bad += ["against the CPU filter's log: " + d for d in diff[:2]]
                detail += "; the CPU filter's log, value for value"
            detail += "; extractors: " + backends(err)
        out.append((not bad, what, "; ".join(bad[:4]) if bad else detail))

    if not gpu_only:
        # Exactly what a user types: the filter without any option.
        what = name(False, "", "no options (summary line only)")
        rc, err = r.ffmpeg_run(size, pix, files["dis"], files["ref"], "", False)
        lines = summary_scores(err)
        mean = score_text(vruns["vmaf_v0.6.1"]["pooled"]["vmaf"]["mean"])
        ok = rc == 0 and lines == [mean]
        out.append((ok, what, "VMAF score: %s, the golden pooled mean" % mean if ok else
                    "exit %d, summary lines %r, golden pooled mean %s%s"
                    % (rc, lines, mean, ": " + err[-300:] if rc else "")))

    # Two models under one score name: the library's reason, in one line.
    if v["id"] == VMAF_CLASH_VECTOR:
        for gpu in (False, True):
            what = name(gpu, "", "model='%s' is refused" % VMAF_CLASH)
            if (gpu_only and not gpu) or (gpu and (v["fmt"], v["bpc"]) != (420, 8)):
                continue
            if gpu and not gpu_ok:
                out.append((None, what, "no usable GPU"))
                continue
            rc, err, rep = run(VMAF_CLASH, gpu)
            lib_errors = [l for l in err.splitlines() if l.startswith("libvmaf: error:")]
            ok = rc != 0 and rep is None and len(lib_errors) == 1 and \
                "vmaf_v0.6.1neg" in lib_errors[0]
            out.append((ok, what, lib_errors[0] if ok else "exit %d, log %s, error lines %r" %
                        (rc, "written" if rep else "absent", lib_errors)))
    return out


def write_raw(v, vdir, tmp):
    """A vector's two files in tmp, as stored (raw, chroma rounded up)."""
    files = {}
    for side in ("ref", "dis"):
        files[side] = os.path.join(tmp, v[side])
        with lzma.open(os.path.join(vdir, v[side] + ".xz")) as f, open(files[side], "wb") as g:
            g.write(f.read())
    return files


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


def tile_4k(src, shift=0):
    """A 3840x2160 yuv420p frame from a 1920x1080 one: tiled 2 x 2, rolled
    left by shift pixels (even; half that in chroma)."""
    w, h = 1920, 1080
    planes = [(src[:w * h], w, h, shift),
              (src[w * h:w * h * 5 // 4], w // 2, h // 2, shift // 2),
              (src[w * h * 5 // 4:w * h * 3 // 2], w // 2, h // 2, shift // 2)]
    big = bytearray()
    for data, pw, ph, sh in planes:
        sh %= 2 * pw
        for y in range(2 * ph):
            row = data[(y % ph) * pw:(y % ph + 1) * pw]
            row = row + row
            big += row[sh:] + row[:sh]
    return bytes(big)


def timed(counts, make, log=None):
    """Runs make(n) for both frame counts: (ms a frame past start-up,
    start-up ms), or (None, the failure). A first, untimed run takes the
    machine's one-time costs (the first NVDEC session took 8 s on a fresh
    machine), and the lower of two rounds is kept, since ffmpeg's reading
    varies from run to run by more than a filter adds. The frames are the
    ones ffmpeg reports, not n: an input cut by -t in seconds holds the
    frames its timestamps put there, which need not be n."""
    best = None
    for rnd in range(3):
        ms, frames = [], []
        for n in (counts if rnd else counts[:1]):
            if log and os.path.exists(log):
                os.unlink(log)
            p = subprocess.run(make(n), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, errors="replace",
                               timeout=600)
            m = re.search(r"rtime=([0-9.]+)s", p.stderr)
            f = re.findall(r"frame=\s*(\d+)", p.stderr)
            if p.returncode != 0 or not m or not f:
                return None, "exit %d: %s" % (p.returncode, p.stderr[-400:])
            ms.append(float(m.group(1)) * 1000.0)
            frames.append(int(f[-1]))
        if rnd:
            if frames[1] <= frames[0]:
                return None, "ffmpeg reported %d and %d frames for %d and %d" % (
                    frames[0], frames[1], counts[0], counts[1])
            per = (ms[1] - ms[0]) / (frames[1] - frames[0])
            if best is None or per < best[0]:
                best = (per, ms[0] - per * frames[0])
    return best


def timing_text(t, start):
    """A pipeline's time in words. A time a frame at or below zero means
    that the run with more frames took no longer than the one with fewer:
    the noise of ffmpeg's start-up outweighed the frames between them."""
    if t <= 0:
        return ("no time a frame measurable (%.3f ms: too few frames, raise "
                "--bench-frames), start-up %.0f ms" % (t, start))
    return "%.3f ms a frame, start-up %.0f ms" % (t, start)


def ratio_text(gpu, cpu):
    """The GPU filter's time a frame against the CPU filter's, in words."""
    if gpu <= 0 or cpu <= 0:
        return "the filters' times a frame are not measurable with these frames"
    return "a frame through the GPU filter takes %.2fx the CPU filter's time" % (gpu / cpu)


def pipelines(r, label, counts, modes):
    """Each mode: (name, what ffmpeg does without the filter, GPU?, that
    command for n frames, the command with the filter for n frames and the
    filter's arguments). Times both, checks that each filter logged every
    frame and that the two filters logged the same scores."""
    size = "%d and %d frames of 3840x2160" % counts
    times, logs = {}, {}
    for name, what, gpu, alone, scored in modes:
        t_alone, start_alone = timed(counts, alone)
        ok = t_alone is not None
        result(ok, "%s: ffmpeg's %s alone, %s" % (label, what, size),
               timing_text(t_alone, start_alone) if ok else start_alone)
        log = os.path.join(r.tmp, "timed%d.json" % next(r.ids))
        args = "model=:feature=name=float_ssim:log_path=%s:log_fmt=json" % log
        t, start = timed(counts, lambda n: scored(n, args), log)
        rep = None
        if t is not None and os.path.exists(log):
            with open(log) as f:
                rep = json.load(f)
        ok = rep is not None and len(rep["frames"]) == counts[1]
        detail = start
        if ok:
            times[gpu] = t
            logs[gpu] = rep
            detail = timing_text(t, start)
            if t_alone is not None and t > 0 and t_alone > 0:
                detail += "; %.3f ms a frame and %.0f ms of start-up more than ffmpeg's %s alone" \
                    % (t - t_alone, start - start_alone, what)
            elif t_alone is not None:
                detail += "; %.0f ms of start-up more than ffmpeg's %s alone" \
                    % (start - start_alone, what)
        elif rep is not None:
            detail = "%d frames logged, %d expected" % (len(rep["frames"]), counts[1])
        result(ok, "%s: %s, %s" % (label, name, size), detail)
    if len(logs) == 2:
        same = logs[False]["frames"] == logs[True]["frames"] and \
            logs[False]["pooled_metrics"] == logs[True]["pooled_metrics"]
        detail = "pooled mean %s; %s" % (logs[True]["pooled_metrics"]["float_ssim"]["mean"],
                                         ratio_text(times[True], times[False]))
        if not same:
            detail = "%s; pooled mean %s against %s" % (
                log_difference(logs[True], logs[False]),
                logs[True]["pooled_metrics"]["float_ssim"]["mean"],
                logs[False]["pooled_metrics"]["float_ssim"]["mean"])
        result(same, "%s: libvmaf_cuda logged what libvmaf logged" % label, detail)
    return logs


def log_difference(a, b):
    """How two logs' float_ssim frame scores differ, in words."""
    if len(a["frames"]) != len(b["frames"]):
        return "%d frames against %d" % (len(a["frames"]), len(b["frames"]))
    d = [abs(x["metrics"]["float_ssim"] - y["metrics"]["float_ssim"])
         for x, y in zip(a["frames"], b["frames"])]
    return "%d of %d frame scores differ, by up to %.3g" % (
        sum(1 for x in d if x), len(d), max(d) if d else 0.0)


def cpu_mode(r, inputs, name, what):
    """A mode of pipelines(): the two inputs of inputs(n) (distorted first),
    read or decoded alone, then scored by libvmaf."""
    ff = [r.ffmpeg] + BASE
    return (name, what, False,
            lambda n: ff + inputs(n) + ["-map", "0:v", "-f", "null", "-",
                                        "-map", "1:v", "-f", "null", "-"],
            lambda n, args: ff + inputs(n) + [
                "-lavfi", "[0:v][1:v]libvmaf=%s:n_threads=%d" % (args, THREADS),
                "-f", "null", "-"])


def gpu_mode(r, inputs, chain, name, what):
    """A mode of pipelines(): the two inputs of inputs(n) through the
    filters of chain each, alone, then scored by libvmaf_cuda (under the
    wrapper, where one is given)."""
    ff = [r.ffmpeg] + BASE + CUDA
    convert = "[0:v]{0}[d];[1:v]{0}[r]".format(chain)
    return (name, what, True,
            lambda n: ff + inputs(n) + ["-filter_complex", convert, "-map", "[d]", "-f", "null",
                                        "-", "-map", "[r]", "-f", "null", "-"],
            lambda n, args: r.wrapper + ff + inputs(n) + [
                "-filter_complex", convert + ";[d][r]libvmaf_cuda=" + args, "-f", "null", "-"])


def bench(r, gpu_ok, v14, frames):
    """Both filters on frames of 3840x2160 yuv420p (p14 tiled 2 x 2), each
    beside ffmpeg's own work without it (reading, and for the GPU filter
    hwupload_cuda), so that what the filter adds shows. Each command runs
    on frames / 4 and on frames: the difference gives the time a frame
    without the start-up (CUDA contexts, the library's state and pools).
    Without a GPU the CPU filter is timed alone."""
    on_disk = 8  # frames in each file; ffmpeg's -stream_loop repeats them
    loops = max(4, (frames + on_disk - 1) // on_disk // 4 * 4)
    counts = (loops // 4 * on_disk, loops * on_disk)
    paths = {}
    for side in ("ref", "dis"):
        with lzma.open(os.path.join(r.vectors, v14[side] + ".xz")) as f:
            big = tile_4k(f.read())
        paths[side] = os.path.join(r.tmp, "bench_%s.yuv" % side)
        with open(paths[side], "wb") as f:
            for _ in range(on_disk):
                f.write(big)

    def inputs(n):
        args = []
        for side in ("dis", "ref"):
            args += ["-stream_loop", str(n // on_disk - 1), "-f", "rawvideo",
                     "-pix_fmt", "yuv420p", "-s", "3840x2160", "-i", paths[side]]
        return args

    modes = [cpu_mode(r, inputs, "libvmaf (n_threads=%d)" % THREADS, "reading")]
    if gpu_ok:
        modes.append(gpu_mode(r, inputs, "hwupload_cuda", "libvmaf_cuda",
                              "reading and hwupload_cuda"))
    else:
        skip("benchmark: libvmaf_cuda", "no usable GPU")
    pipelines(r, "benchmark", counts, modes)
    for p in paths.values():
        os.unlink(p)


# The encoded streams of the NVDEC runs: (label, reference and distorted
# files, the pixel format FFmpeg's software decoder gives, the filters that
# take NVDEC's frames to a format libvmaf_cuda takes, yuv420p or
# yuv444p16le). NVDEC gives nv12 for 8-bit H.264, which scale_cuda makes
# yuv420p exactly. For HEVC Main 10 it gives p010, which scale_cuda widens
# to yuv444p16le by bit replication, (p << 6) | (p >> 4), not the left
# shift the 10-bit scores need (p010_widening shows it); the exact way is
# through the host, where FFmpeg's format filter widens by p << 6.
STREAMS = (
    ("NVDEC pipeline, 8-bit H.264", ("ref_3840x2160.264", "dist_3840x2160.264"),
     "yuv420p", "scale_cuda=format=yuv420p"),
    ("NVDEC pipeline, 10-bit HEVC", ("ref_3840x2160_10bit.hevc", "dist_3840x2160_10bit.hevc"),
     "yuv420p10le", "hwdownload,format=p010le,format=yuv444p16le,hwupload_cuda"),
)
MEDIA_FPS = 30


def make_media(vectors, v14, out, frames):
    """Two encodes of one moving 3840x2160 scene (p14's reference tiled
    2 x 2, rolled 8 pixels a frame), a good one as the reference and a poor
    one as the distorted video, for the NVDEC runs: 8-bit H.264 by x264 and
    HEVC Main 10 by x265 (which widens the 8-bit scene; its lossy coding
    fills the two new low bits). Needs x264 and x265."""
    os.makedirs(out, exist_ok=True)
    with lzma.open(os.path.join(vectors, v14["ref"] + ".xz")) as f:
        src = f.read()
    raw = os.path.join(out, "scene.yuv")
    with open(raw, "wb") as f:
        for k in range(frames):
            f.write(tile_4k(src, 8 * k))
    h264, hevc = STREAMS[0][1], STREAMS[1][1]
    try:
        for name, crf in zip(h264, ("16", "34")):
            subprocess.run(["x264", "--quiet", "--no-progress", "--preset", "veryfast", "--crf", crf,
                            "--keyint", "48", "--input-res", "3840x2160",
                            "--fps", str(MEDIA_FPS), "-o", os.path.join(out, name), raw],
                           check=True)
        for name, crf in zip(hevc, ("16", "34")):
            subprocess.run(["x265", "--log-level", "error", "--no-progress", "--preset", "ultrafast",
                            "--crf", crf, "--keyint", "48", "--input-res", "3840x2160",
                            "--fps", str(MEDIA_FPS), "--input-depth", "8", "--output-depth", "10",
                            "--profile", "main10", "--input", raw,
                            "--output", os.path.join(out, name)], check=True)
    finally:
        os.unlink(raw)
    for name in h264 + hevc:
        print("wrote %s (%d bytes)" % (os.path.join(out, name),
                                       os.path.getsize(os.path.join(out, name))))


def nvdec(r, gpu_ok, media, frames, label, names, sw_pix, chain):
    """The GPU pipeline a user runs on encoded video: both streams decoded
    by NVDEC into CUDA frames, taken by the filters of chain to a format
    libvmaf_cuda takes, scored by libvmaf_cuda; against FFmpeg's software
    decoder (giving sw_pix) and the CPU filter, which must log the same
    scores (H.264 and HEVC decoding are exact). Timed on frames / 4 and
    frames of the streams (at most all of them). Returns the two logs (a
    dict by "GPU?") and the paths and frame counts, or None."""
    paths = [os.path.join(media, m) for m in names]
    if not all(os.path.exists(p) for p in paths):
        skip(label, "no streams %s in %s (test/api/ffmpeg7_build.sh makes them)"
             % (" and ".join(names), media))
        return None
    if not gpu_ok:
        skip(label, "no usable GPU")
        return None
    p = subprocess.run([r.ffmpeg, "-hide_banner", "-nostdin", "-i", paths[0],
                        "-f", "null", "-"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       errors="replace")
    m = re.findall(r"frame=\s*(\d+)", p.stderr)
    on_disk = int(m[-1]) if m else 0
    pix = re.search(r"Video: [^,]+, (\w+)", p.stderr)
    if p.returncode != 0 or on_disk == 0 or not pix or pix.group(1) != sw_pix:
        result(False, "%s: the streams decode in software to %s" % (label, sw_pix),
               "exit %d, %s: %s" % (p.returncode, pix.group(1) if pix else "no format",
                                    p.stderr[-300:]))
        return None
    n = min(on_disk, max(frames, 8))  # a floor, as the raw files' 8 and 32
    counts = (n // 4, n)
    logs = pipelines(r, label, counts, [
        cpu_mode(r, lambda n: nvdec_inputs(paths, n, False),
                 "software decoding and libvmaf (n_threads=%d)" % THREADS, "software decoding"),
        nvdec_mode(r, paths, chain),
    ])
    return logs, paths, counts


def nvdec_inputs(paths, n, hw):
    """ffmpeg's inputs for the first n frames of the distorted and the
    reference stream, decoded by NVDEC into CUDA frames if hw. A raw H.264
    or HEVC stream cannot be looped (its demuxer does not seek), so the
    streams hold every frame, and -t cuts the first n of them. Their
    timestamps follow the rate the encoders wrote into the streams (frame k
    at k / MEDIA_FPS seconds), so n - 1/2 frames' time keeps n."""
    args = []
    for path in (paths[1], paths[0]):  # distorted first: the "main" pad
        if hw:
            args += NVDEC
        args += ["-t", "%g" % ((n - 0.5) / MEDIA_FPS), "-i", path]
    return args


def nvdec_mode(r, paths, chain):
    """A mode of pipelines(): NVDEC, the filters of chain on each stream,
    then libvmaf_cuda."""
    return gpu_mode(r, lambda n: nvdec_inputs(paths, n, True), chain,
                    "NVDEC, %s and libvmaf_cuda" % chain, "NVDEC and " + chain)


def p010_widening(r, run):
    """What scale_cuda=format=yuv444p16le, the all-GPU way to libvmaf_cuda
    for NVDEC's 10-bit frames, does to them: each luma sample of a decoded
    frame must be (p << 6) | (p >> 4) of the software decoder's p; the
    pipeline is timed, and its scores are measured against the 10-bit ones.
    run: what nvdec returned for the HEVC streams."""
    logs, paths, counts = run
    chain = "scale_cuda=format=yuv444p16le"
    label = "NVDEC pipeline, 10-bit HEVC, " + chain
    frame = {}
    for hw in (False, True):
        out = os.path.join(r.tmp, "frame0_%d.raw" % hw)
        cmd = [r.ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error"]
        if hw:
            cmd += CUDA + NVDEC + ["-i", paths[0],
                                   "-vf", chain + ",hwdownload,format=yuv444p16le"]
        else:
            cmd += ["-i", paths[0], "-pix_fmt", "yuv420p10le"]
        p = subprocess.run(cmd + ["-frames:v", "1", "-f", "rawvideo", "-y", out],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=300)
        if p.returncode != 0:
            result(False, "%s: frame 0 through %s" % (label, "the GPU" if hw else "software"),
                   "exit %d: %s" % (p.returncode, p.stderr[-300:]))
            return
        with open(out, "rb") as f:
            luma = array("H", f.read(3840 * 2160 * 2))
        os.unlink(out)
        if sys.byteorder != "little":
            luma.byteswap()
        frame[hw] = luma
    want = array("H", ((p << 6) | (p >> 4) for p in frame[False]))
    shifted = sum(1 for p, q in zip(frame[False], frame[True]) if q == p << 6)
    result(frame[True] == want, "%s: luma is (p << 6) | (p >> 4), not p << 6" % label,
           "%d of %d samples of frame 0 as replication gives them; %d equal to p << 6"
           % (sum(1 for a, b in zip(want, frame[True]) if a == b), len(want), shifted))
    rep = pipelines(r, label, counts, [nvdec_mode(r, paths, chain)]).get(True)
    cpu = logs.get(False)
    ok = rep is not None and cpu is not None
    result(ok, "%s: libvmaf_cuda's scores against the 10-bit ones" % label,
           "%s; pooled mean %s against %s" % (log_difference(rep, cpu),
                                              rep["pooled_metrics"]["float_ssim"]["mean"],
                                              cpu["pooled_metrics"]["float_ssim"]["mean"])
           if ok else "no log from %s" % ("libvmaf" if rep else "libvmaf_cuda"))


def self_test(vectors, vdir, vmaf_vectors):
    """The helpers every FFmpeg run rests on, without FFmpeg: CI runs this
    (meson test --suite api), so the check cannot rot where no FFmpeg 7.1
    and no GPU exist."""
    fmts = {(420, 8): "yuv420p", (422, 10): "yuv422p10le", (444, 12): "yuv444p12le",
            (422, 16): "yuv422p16le"}
    for (fmt, bpc), want in fmts.items():
        got = native_fmt({"fmt": fmt, "bpc": bpc})
        result(got == want, "native_fmt %d %d-bit is %s" % (fmt, bpc, want), got)
    for opts, want in (("", "name=float_ssim"),
                       ("scale=2", "name=float_ssim\\\\:scale=2"),
                       ("enable_db=true:clip_db=true",
                        "name=float_ssim\\\\:enable_db=true\\\\:clip_db=true")):
        got = feature_arg(opts)
        result(got == want, "feature_arg('%s') escapes ':' twice" % opts, got)
    for t, want in ((4.5, "4.500 ms a frame, start-up 30 ms"),
                    (-3.3, "no time a frame measurable (-3.300 ms: too few frames, "
                           "raise --bench-frames), start-up 30 ms")):
        got = timing_text(t, 30.0)
        result(got == want, "timing_text(%g) reads '%s'" % (t, want), got)
    for gpu, cpu, want in ((1.0, 4.0, "a frame through the GPU filter takes 0.25x the CPU "
                                      "filter's time"),
                           (-0.5, 4.0, "the filters' times a frame are not measurable with "
                                       "these frames")):
        got = ratio_text(gpu, cpu)
        result(got == want, "ratio_text(%g, %g) reads '%s'" % (gpu, cpu, want), got)
    for v in vectors:
        with lzma.open(os.path.join(vdir, v["ref"] + ".xz")) as f:
            data = f.read()
        out = array("H", to_444p16(data, v))
        if sys.byteorder != "little":
            out.byteswap()
        ysz, csz = frame_sizes(v)
        bps = 1 if v["bpc"] == 8 else 2
        inp = array("B", data) if bps == 1 else array("H", data)
        if bps == 2 and sys.byteorder != "little":
            inp.byteswap()
        bad = [] if len(out) == 3 * ysz * v["frames"] else ["%d samples" % len(out)]
        for k in range(v["frames"] if not bad else 0):
            luma = inp[k * (ysz + 2 * csz):k * (ysz + 2 * csz) + ysz]
            want = array("H", (p << (16 - v["bpc"]) for p in luma))
            if out[3 * ysz * k:3 * ysz * k + ysz] != want:
                bad.append("frame %d: luma is not p << %d" % (k, 16 - v["bpc"]))
            if out[3 * ysz * k + ysz:3 * ysz * (k + 1)] != array("H", [0x8000]) * (2 * ysz):
                bad.append("frame %d: chroma is not mid-grey" % k)
        result(not bad, "%s as yuv444p16le: luma << %d, chroma 0x8000" %
               (v["id"], 16 - v["bpc"]), "; ".join(bad))
    v14 = [v for v in vectors if v["id"] == "p14"][0]
    with lzma.open(os.path.join(vdir, v14["ref"] + ".xz")) as f:
        src = f.read()
    w, h = 1920, 1080
    for shift in (0, 8, 3842):
        big = tile_4k(src, shift)
        bad = [] if len(big) == 3840 * 2160 * 3 // 2 else ["%d bytes" % len(big)]
        for y in (0, 1079, 1080, 2159) if not bad else ():
            row = src[(y % h) * w:(y % h + 1) * w] * 2
            sh = shift % 3840
            if big[y * 3840:(y + 1) * 3840] != row[sh:] + row[:sh]:
                bad.append("luma row %d" % y)
        for y in (0, 539, 540, 1079) if not bad else ():
            plane = src[w * h:w * h * 5 // 4]
            row = plane[(y % 540) * 960:(y % 540 + 1) * 960] * 2
            sh = (shift // 2) % 1920
            off = 3840 * 2160 + y * 1920
            if big[off:off + 1920] != row[sh:] + row[:sh]:
                bad.append("first chroma row %d" % y)
        result(not bad, "tile_4k(p14, %d): 2 x 2 tiles rolled left by %d" % (shift, shift),
               "; ".join(bad))
    # The words a failed comparison of two logs gives.
    log = {"frames": [{"metrics": {"float_ssim": x}} for x in (0.5, 0.25, 0.75)]}
    moved = {"frames": [{"metrics": {"float_ssim": x}} for x in (0.5, 0.25 + 2 ** -20, 0.75)]}
    for a, b, want in ((log, log, "0 of 3 frame scores differ, by up to 0"),
                       (moved, log, "1 of 3 frame scores differ, by up to 9.54e-07"),
                       ({"frames": log["frames"][:2]}, log, "2 frames against 3")):
        got = log_difference(a, b)
        result(got == want, "log_difference says '%s'" % want, got)
    vmaf_self_test(vmaf_vectors)


def vmaf_self_test(vmaf_vectors):
    """The VMAF section's helpers: the options the filter gets, what each
    log must hold (from golden_vmaf.json), the comparison at %.6f and the
    summary lines."""
    for model, want in ((None, "log_path=L:log_fmt=json"),
                        ("version=vmaf_v0.6.1neg",
                         "model=version=vmaf_v0.6.1neg:log_path=L:log_fmt=json"),
                        (VMAF_MODELS[2][1],
                         "model=version=vmaf_v0.6.1\\\\:name=vmaf|version=vmaf_v0.6.1neg"
                         "\\\\:name=vmaf_neg:log_path=L:log_fmt=json")):
        got = vmaf_args(model, "L")
        result(got == want, "vmaf_args(%s) gives '%s'" % (model, want), got)
    for v in vmaf_vectors:
        vruns = {run["name"]: run for run in v["runs"]}
        for label, model, scores in VMAF_MODELS:
            want, clashes = vmaf_expected(vruns, scores)
            names = [name for name, _ in scores]
            bad = list(clashes)
            if any(set(names) - set(fr) for fr in want["frames"]) or set(names) - set(want["pooled"]):
                bad.append("a model's score is missing")
            # A log as the library writes it (%.6f) equals it; one value
            # moved by 1e-6 does not, and the difference names it.
            log = {"frames": [{"frameNum": str(i),
                               "metrics": {k: score_text(x) for k, x in fr.items()}}
                              for i, fr in enumerate(want["frames"])],
                   "pooled_metrics": {k: {h: score_text(p[h]) for h in POOLS}
                                      for k, p in want["pooled"].items()}}
            diff, n, n_scores = compare_text(log, want, set(names))
            frames = len(v["runs"][0]["frames"])
            if diff or n_scores != len(names) * (frames + 4):
                bad.append("a log of the golden values: %r, %d scores" % (diff[:2], n_scores))
            last = log["frames"][-1]["metrics"]
            last[names[-1]] = "%.6f" % (float(last[names[-1]]) + 1e-6)
            diff = compare_text(log, want, set(names))[0]
            if len(diff) != 1 or not diff[0].startswith("frame %d %s: logged" %
                                                        (frames - 1, names[-1])):
                bad.append("one moved score gives %r" % diff)
            result(not bad, "%s %s: the log must hold %d values, %d of them %s" %
                   (v["id"], label, n, n_scores, "/".join(names)), "; ".join(bad))
    a = {"frames": [{"metrics": {"vmaf": "70.693220", "integer_adm2": "0.936955"}}],
         "pooled_metrics": {"vmaf": {"mean": "70.693220"}}}
    b = json.loads(json.dumps(a))
    b["frames"][0]["metrics"]["integer_adm2"] = "0.936956"
    for x, y, want in ((a, a, []), (b, a, ["frame 0 integer_adm2: 0.936956 against 0.936955"])):
        got = log_differences(x, y)
        result(got == want, "log_differences gives %r" % want, repr(got))
    out = ("[Parsed_libvmaf_0 @ 0x55d0] VMAF score: 51.498397\n"
           "frame=   24 fps=0.0 q=-0.0 size=N/A\r"
           "[Parsed_libvmaf_0 @ 0x55d0] VMAF score: 49.637179\n")
    got = summary_scores(out)
    result(got == ["51.498397", "49.637179"], "summary_scores reads both lines", repr(got))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ffmpeg", nargs="?")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--golden", default=os.path.join(here, "..", "data", "golden.json"))
    ap.add_argument("--vectors", default=os.path.join(here, "..", "data"))
    ap.add_argument("--vmaf-golden",
                    default=os.path.join(here, "..", "data", "vmaf", "golden_vmaf.json"))
    ap.add_argument("--vmaf-vectors", default=os.path.join(here, "..", "data", "vmaf"))
    ap.add_argument("--bench-frames", type=int, default=0)
    ap.add_argument("--media", default="",
                    help="folder of the encoded streams for the NVDEC runs (default: "
                         "'media' beside the ffmpeg binary)")
    ap.add_argument("--make-media", default="", metavar="DIR",
                    help="write the encoded streams into DIR with x264 and x265, and stop")
    ap.add_argument("--media-frames", type=int, default=192)
    ap.add_argument("--self-test", action="store_true",
                    help="check the conversions and escapes without FFmpeg, and stop")
    ap.add_argument("--only", default="")
    ap.add_argument("--gpu-only", action="store_true", help="leave the CPU filter's runs out")
    ap.add_argument("--jobs", type=int, default=max(1, min(8, THREADS // 2)),
                    help="golden runs at once (default: half the cores, at most 8)")
    ap.add_argument("--wrapper", default="",
                    help="a command that runs each GPU run's ffmpeg, such as compute-sanitizer")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    with open(a.golden) as f:
        vectors = json.load(f)["vectors"]
    with open(a.vmaf_golden) as f:
        vmaf_vectors = json.load(f)["vectors"]
    v14 = [v for v in vectors if v["id"] == "p14"][0]
    if a.make_media:
        make_media(a.vectors, v14, a.make_media, a.media_frames)
        return 0
    if a.self_test:
        self_test(vectors, a.vectors, vmaf_vectors)
        print("ffmpeg7_check self-test: %d passed, %d failed" % (PASSED, FAILED))
        return 1 if FAILED else 0
    if not a.ffmpeg:
        ap.error("give the ffmpeg binary")
    media = a.media or os.path.join(os.path.dirname(os.path.abspath(a.ffmpeg)), "media")
    only = set(a.only.split(",")) - {""}
    require_gpu = os.environ.get("VMAF_TEST_REQUIRE_GPU") == "1"
    t0 = time.time()

    with tempfile.TemporaryDirectory() as tmp:
        r = Runner(a.ffmpeg, tmp, shlex.split(a.wrapper), a.vectors)
        gpu_ok, why = gpu_usable(a.ffmpeg, tmp)
        print("GPU: %s" % ("usable" if gpu_ok else "not usable (%s)" % why[0]))
        if not gpu_ok and require_gpu:
            result(False, "a GPU is required (VMAF_TEST_REQUIRE_GPU=1)", why[0])
        # The golden runs are separate ffmpeg processes: several at once
        # (--jobs), reported in order as they finish. A vector's files are
        # written while the runs of the vectors before it go on.
        runs = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for v in vectors:
                if only and v["id"] not in only:
                    continue
                files = write_vector(v, a.vectors, tmp)
                for run in v["runs"]:
                    runs.append(pool.submit(check_run, r, v, files, run, gpu_ok, a.gpu_only))
                while runs and runs[0].done():
                    report(runs.pop(0).result())
            for f in runs:
                report(f.result())
        # The split between the golden runs and the timed ones, so that
        # --jobs can be judged on each machine.
        print("golden runs: %.0f s, %d at a time" % (time.time() - t0, a.jobs))
        # VMAF, each vector's runs in turn, the same way.
        t1 = time.time()
        runs = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for v in vmaf_vectors:
                if only and v["id"] not in only:
                    continue
                files = write_raw(v, a.vmaf_vectors, tmp)
                vruns = {run["name"]: run for run in v["runs"]}
                runs.append(pool.submit(check_vmaf, r, v, files, vruns, gpu_ok, a.gpu_only))
                while runs and runs[0].done():
                    report(runs.pop(0).result())
            for f in runs:
                report(f.result())
        print("VMAF runs: %.0f s, %d at a time" % (time.time() - t1, a.jobs))
        if a.bench_frames > 0:
            bench(r, gpu_ok, v14, a.bench_frames)
            for stream in STREAMS:
                run = nvdec(r, gpu_ok, media, a.bench_frames, *stream)
                if run and stream[2] == "yuv420p10le":
                    p010_widening(r, run)
    print("ffmpeg7_check: %d passed, %d failed, %d skipped (%.0f s)" %
          (PASSED, FAILED, SKIPPED, time.time() - t0))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
