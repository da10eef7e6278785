#!/usr/bin/env python3
"""End-to-end tests of the vmaf tool: spawn the binary, check exit statuses,
stderr lines, report files (parsed with json / xml / csv modules) and scores.

usage: test_cli.py VMAF_BINARY BADINPUTS_DIR [--golden golden.json --vectors DIR]
"""
import argparse
import csv
import fcntl
import filecmp
import hashlib
import io
import json
import os
import pty
import re
import resource
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

EXIT = {"ok": 0, "scoring": 1, "usage": 2, "input": 3, "model": 4, "output": 5, "gpu": 6,
        "interrupted": 130}
ERROR_LINE = re.compile(r"^vmaf: [^\n]+ \([^\n]*\): [^\n]+$")
# Lines that may come before a failure's one line.
WARNING_LINE = re.compile(r"^(lib)?vmaf: (warning|backend): ")
SANITIZER = re.compile(r"Sanitizer|runtime error:|LeakSanitizer|Segmentation|Aborted")

failures = []
checks = 0
skips = 0  # tests that could not run here (each says why)
SANITIZE = ""  # the build's b_sanitize: some checks cannot hold under a sanitizer
CPUMASK_SPY = None  # test/cli/cpumask_spy.c, built: preloaded by test_cpumask


def check(cond, msg):
    global checks
    checks += 1
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    return cond


def run(args, timeout=120, **kw):
    p = subprocess.run([VMAF] + [str(a) for a in args], capture_output=True, timeout=timeout, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def finish_or_hang(p, what):
    """Waits for vmaf (a Popen); a run that takes two minutes has hung: it
    is killed and the hang is a failure. Returns (stdout, stderr)."""
    try:
        return p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out = p.communicate()
        check(False, f"{what}: vmaf hangs")
        return out


def expect_error(args, status, needle, what, **kw):
    rc, out, err = run(args, **kw)
    lines = [l for l in err.splitlines() if l.startswith("vmaf: ")]
    ok = check(rc == EXIT[status], f"{what}: exit {rc}, want {EXIT[status]} ({status}); stderr: {err!r}")
    if ok:
        check(lines and ERROR_LINE.match(lines[-1]) is not None,
              f"{what}: last stderr line not 'vmaf: what (where): fix': {err!r}")
        check(needle in err, f"{what}: {needle!r} not in stderr {err!r}")
        # One line says the failure: the library's reason is inside it, not
        # on a line of its own; only warnings may come before it.
        said = [l for l in err.splitlines() if l.strip() and not WARNING_LINE.match(l)]
        check(len(said) == 1, f"{what}: the failure takes {len(said)} lines, not one: {err!r}")
    check(not SANITIZER.search(err), f"{what}: sanitizer report: {err!r}")
    return rc, out, err


# ---------------------------------------------------------------- generators

def plane_dims(fmt, w, h):
    if fmt == "400":
        return [(w, h)]
    sx, sy = {"420": (1, 1), "422": (1, 0), "444": (0, 0)}[fmt]
    return [(w, h), ((w + sx) >> sx, (h + sy) >> sy), ((w + sx) >> sx, (h + sy) >> sy)]


def luma(w, h, bpc, frame, distorted):
    """Deterministic textured luma; the distorted one has added noise."""
    mx = (1 << bpc) - 1
    out = []
    state = 12345 + frame * 7
    for y in range(h):
        for x in range(w):
            v = ((x * 37 + y * 23 + frame * 11) % 97) / 96.0
            v = 0.25 + 0.5 * v + 0.2 * (((x // 4 + y // 4) % 2) - 0.5)
            if distorted:
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                v += ((state >> 16) % 41 - 20) / 400.0
            out.append(max(0, min(mx, int(v * mx))))
    return out


def pack(samples, bpc):
    if bpc == 8:
        return bytes(samples)
    return b"".join(s.to_bytes(2, "little") for s in samples)


def frame_bytes(fmt, w, h, bpc, frame, distorted, chroma_seed=0):
    data = [pack(luma(w, h, bpc, frame, distorted), bpc)]
    for i, (pw, ph) in enumerate(plane_dims(fmt, w, h)[1:]):
        c = [((x * 3 + y * 5 + chroma_seed * 17 + i) % (1 << bpc)) for y in range(ph) for x in range(pw)]
        data.append(pack(c, bpc))
    return b"".join(data)


Y4M_TAG = {("420", 8): "C420jpeg", ("422", 8): "C422", ("444", 8): "C444", ("400", 8): "Cmono"}


def y4m_tag(fmt, bpc):
    if bpc == 8:
        return Y4M_TAG[(fmt, 8)]
    return ("Cmono%d" % bpc) if fmt == "400" else "C%sp%d" % (fmt, bpc)


def write_y4m(path, fmt, w, h, bpc, frames, distorted, tag=None, chroma_seed=0, frame_line=b"FRAME\n"):
    with open(path, "wb") as f:
        t = y4m_tag(fmt, bpc) if tag is None else tag
        f.write(("YUV4MPEG2 W%d H%d F25:1 Ip A1:1%s\n" % (w, h, (" " + t) if t else "")).encode())
        for i in range(frames):
            f.write(frame_line)
            f.write(frame_bytes(fmt, w, h, bpc, i, distorted, chroma_seed))


def y4m_pair(tmp, names=("r.y4m", "d.y4m")):
    """The small reference/distorted pair most tests use: 32x24 8-bit
    4:2:0, three frames each, in tmp."""
    ref, dis = (os.path.join(tmp, n) for n in names)
    write_y4m(ref, "420", 32, 24, 8, 3, False)
    write_y4m(dis, "420", 32, 24, 8, 3, True)
    return ref, dis


def write_yuv(path, fmt, w, h, bpc, frames, distorted):
    with open(path, "wb") as f:
        for i in range(frames):
            f.write(frame_bytes(fmt, w, h, bpc, i, distorted))


def json_scores(path, key="float_ssim"):
    with open(path) as f:
        doc = json.load(f)
    return [fr["metrics"][key] for fr in doc["frames"]], doc


def score(ref, dis, extra, tmp, name="out.json"):
    out = os.path.join(tmp, name)
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-q",
                      "--json", "--precision", "max", "-o", out] + extra)
    if not check(rc == 0, f"score {ref} {dis} {extra}: exit {rc}: {se}"):
        return None
    return json_scores(out)[0]


# --------------------------------------------------------------------- tests

def test_basics(tmp):
    rc, out, err = run(["--help"])
    check(rc == 0 and "Usage: vmaf" in out and "--frame_skip_dist" in out, "--help")
    # The default worker count and --progress are documented there.
    check("default: one per CPU" in out and "--progress" in out, f"--help: {out!r}")
    rc, out, err = run(["-v"])
    check(rc == 0 and re.match(r"^\d+\.\d+\.\d+", out), f"-v: {rc} {out!r}")
    for args, needle in [
            (["--th=foosoxe"], "not abbreviated"),
            (["-r", "a", "-d", "b", "--threads", "x"], "--threads \"x\""),
            (["-r", "a", "-d", "b", "--frame_skip_ref", "-5"], "--frame_skip_ref"),
            (["-r", "a"], "missing distorted"),
            (["-r", "a", "-d", "b", "-w", "0", "-h", "4", "-p", "420", "-b", "8"], "1 to 65536"),
            (["-r", "a", "-d", "b", "-w", "-8"], "-w/--width"),
            (["-r", "a", "-d", "b", "-w", "99999999999999999999"], "-w/--width"),
            (["-r", "a", "-d", "b", "-w", "64"], "missing -h -p -b"),
            (["-r", "a", "-d", "b", "--feature", "float_ssim=scale"], "bad feature option"),
            (["-r", "a", "-d", "b", "-m", "version=x:bogus"], "unknown model option"),
            (["-r", "a", "-d", "b", "--precision", "0"], "--precision"),
            (["-r", "a", "-d", "b", "--backend", "opencl"], "auto, cpu or cuda"),
            (["-r", "a", "-d", "b", "--xml"], "-o PATH"),
    ]:
        expect_error(args, "usage", needle, "usage " + " ".join(args))


def test_formats(tmp):
    """Every Y4M colourspace tag and bit depth, odd sizes; the same luma in
    every chroma layout and as raw YUV gives the same scores."""
    w, h, n = 37, 29, 2
    by_depth = {}
    for bpc in (8, 10, 12, 16):
        for fmt in ("420", "422", "444", "400"):
            tags = [y4m_tag(fmt, bpc)]
            if (fmt, bpc) == ("420", 8):
                tags += ["C420paldv", "C420mpeg2", "C420", ""]
            for tag in tags:
                ref = os.path.join(tmp, "r.y4m")
                dis = os.path.join(tmp, "d.y4m")
                write_y4m(ref, fmt, w, h, bpc, n, False, tag=tag)
                # Chroma differs between ref and dist: only luma may matter.
                write_y4m(dis, fmt, w, h, bpc, n, True, tag=tag, chroma_seed=3,
                          frame_line=b"FRAME Ixyz\n")
                s = score(ref, dis, [], tmp)
                if s is None:
                    continue
                check(len(s) == n, f"{tag or 'no C tag'} {bpc}: {len(s)} frames")
                prev = by_depth.setdefault(bpc, s)
                check(s == prev, f"{tag or 'no C tag'} {bpc}-bit: scores {s} differ from {prev}")
            ref = os.path.join(tmp, "r.yuv")
            dis = os.path.join(tmp, "d.yuv")
            write_yuv(ref, fmt, w, h, bpc, n, False)
            write_yuv(dis, fmt, w, h, bpc, n, True)
            s = score(ref, dis, ["-w", w, "-h", h, "-p", fmt, "-b", bpc], tmp)
            check(s is not None and s == by_depth.get(bpc), f"raw {fmt} {bpc}: {s} vs {by_depth.get(bpc)}")


def test_reports(tmp):
    ref, dis = y4m_pair(tmp)
    base = ["-r", ref, "-d", dis, "-n", "--feature", "float_ssim=enable_lcs=true", "-q"]
    # JSON
    out = os.path.join(tmp, "o.json")
    rc, so, se = run(base + ["--json", "-o", out])
    if check(rc == 0, f"json report: {rc} {se}"):
        s, doc = json_scores(out)
        check(len(s) == 3 and "float_ssim_l" in doc["frames"][0]["metrics"], "json frames")
        check(re.search(r'"float_ssim": \d\.\d{6}[,}\n ]', open(out).read()) is not None,
              "legacy precision %.6f in json")
    # stdout report; summary goes to stderr then
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json", "-o", "-",
                      "--precision", "max"])
    if check(rc == 0, f"-o - : {rc} {se}"):
        doc = json.loads(so)
        check(len(doc["frames"]) == 3, "stdout json frames")
        check(re.search(r"float_ssim: \d\.\d+", se) is not None, f"summary on stderr: {se!r}")
    # A report named for another format, with no format option: XML, the
    # default, with a warning (none with -q, none for a format given).
    for ext in ("json", "csv", "sub"):
        out = os.path.join(tmp, "named." + ext)
        rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-o", out])
        check(rc == 0 and open(out).read().startswith("<VMAF") and
              "vmaf: warning: the report (%s) is written as XML, the default format; give --%s"
              % (out, ext) in se, f"XML report named .{ext}: {rc} {se!r}")
        rc, so, se = run(base + ["-o", out])
        check(rc == 0 and "warning" not in se, f"XML report named .{ext}, -q: {rc} {se!r}")
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--csv", "-o",
                      os.path.join(tmp, "named.sub")])
    check(rc == 0 and "warning" not in se, f"--csv report named .sub: {rc} {se!r}")
    # XML (default format) and summary on stdout
    out = os.path.join(tmp, "o.xml")
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-o", out,
                      "--precision", "3"])
    if check(rc == 0, f"xml report: {rc} {se}"):
        root = ET.parse(out).getroot()
        frames = root.findall(".//frame")
        check(len(frames) == 3, "xml frames")
        check(re.match(r"^\d\.\d{3}$", frames[0].get("float_ssim", "")) is not None,
              f"--precision 3 in xml: {frames[0].attrib}")
        check(re.match(r"^float_ssim: \d\.\d{3}$", so.strip()) is not None, f"summary: {so!r}")
        check("\r" not in se, "no progress line when stderr is not a terminal")
    # --xml, --csv and --sub each write their own layout (the library's
    # tests check the layouts; here, that the flag reaches it), holding the
    # JSON report's frames, names and values.
    jdoc = json.load(open(os.path.join(tmp, "o.json")))
    frames = [(f["frameNum"], f["metrics"]) for f in jdoc["frames"]]
    names = list(frames[0][1])
    out = os.path.join(tmp, "o.csv")
    rc, so, se = run(base + ["--csv", "-o", out])
    if check(rc == 0, f"csv: {rc} {se}"):
        want = ",".join(["Frame"] + names) + ",\n" + "".join(
            "%d,%s,\n" % (i, ",".join("%.6f" % m[n] for n in names)) for i, m in frames)
        got = open(out).read()
        check(got == want, f"--csv report {got!r}, want {want!r}")
    out = os.path.join(tmp, "o.sub")
    rc, so, se = run(base + ["--sub", "-o", out])
    if check(rc == 0, f"sub: {rc} {se}"):
        want = "".join("{%d}{%d}frame: %d|%s|\n" % (i, i + 1, i, "|".join(
            "%s: %.6f" % (n, m[n]) for n in names)) for i, m in frames)
        got = open(out).read()
        check(got == want, f"--sub report {got!r}, want {want!r}")
    out = os.path.join(tmp, "o.out")
    rc, so, se = run(base + ["--xml", "-o", out])
    if check(rc == 0, f"xml: {rc} {se}"):
        got = [{k: float(v) for k, v in e.attrib.items()}
               for e in ET.parse(out).getroot().findall("frames/frame")]
        want = [dict(frameNum=i, **{n: float("%.6f" % m[n]) for n in names}) for i, m in frames]
        check(got == want, f"--xml report frames {got}, want {want}")
    # frame selection: skip + count
    out = os.path.join(tmp, "skip.json")
    full = score(ref, dis, [], tmp, "full.json")
    rc, so, se = run(base + ["--json", "-o", out, "--frame_skip_ref", "1", "--frame_skip_dist", "1",
                             "--frame_cnt", "1", "--precision", "max"])
    if check(rc == 0, f"skip: {rc} {se}") and full:
        s, _ = json_scores(out)
        check(s == [full[1]], f"skip 1 + count 1 scores frame 1: {s} vs {full}")
    rc, so, se = run(base + ["--json", "-o", out, "--threads", "2", "--subsample", "1"])
    check(rc == 0, f"threads: {rc} {se}")
    # --subsample 2: frames 0 and 2 only, pooled over those two.
    rc, so, se = run(base + ["--json", "-o", out, "--subsample", "2", "--precision", "max"])
    if check(rc == 0, f"--subsample 2: {rc} {se}") and full:
        doc = json.load(open(out))
        got = [(f["frameNum"], f["metrics"]["float_ssim"]) for f in doc["frames"]]
        check(got == [(0, full[0]), (2, full[2])], f"--subsample 2 frames: {got} vs {full}")
        pm = doc["pooled_metrics"]["float_ssim"]
        check(pm["min"] == min(full[0], full[2]) and pm["max"] == max(full[0], full[2]) and
              pm["mean"] == (full[0] + full[2]) / 2,
              f"--subsample 2 pooled over frames 0 and 2: {pm} vs {full}")
    # backends
    rc, so, se = run(base + ["--backend", "cpu", "--json", "-o", out])
    check(rc == 0 and "backend" not in se, f"--backend cpu: {rc} {se!r}")
    rc, so, auto_se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim"])
    check(rc == 0 and auto_se.count("vmaf: backend: ") == 1 and "libvmaf: warning" not in auto_se,
          f"--backend auto says once, in one line: {auto_se!r}")
    # -q silences that note, auto given or by default.
    for auto in (["--backend", "auto"], []):
        rc, so, se = run(base + auto + ["--json", "-o", out])
        check(rc == 0 and "backend" not in se, f"-q {' '.join(auto)}: no backend note: {rc} {se!r}")
    # The GPU suite sets VMAF_TEST_REQUIRE_GPU: there auto must pick CUDA,
    # and the GPU twin and --backend cuda must score (a library that lost
    # the GPU would otherwise pass here on the CPU).
    need_gpu = os.environ.get("VMAF_TEST_REQUIRE_GPU", "0") not in ("", "0")
    if need_gpu:
        check("vmaf: backend: cuda\n" in auto_se, f"--backend auto with a GPU: {auto_se!r}")
    # The GPU twin by name: scores on a GPU; without one, or in a build
    # without CUDA, a GPU error (exit 6) at once.
    # Its summary line carries the name its scores are stored under.
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim_cuda"])
    no_gpu_error = (rc == EXIT["gpu"] and ("needs a GPU" in se or "no CUDA support" in se)
                    and "ask for the CPU feature" in se)
    check(rc == 0 or (not need_gpu and no_gpu_error), f"--feature float_ssim_cuda: {rc} {se!r}")
    # A name ending in _cuda that is no twin is an unknown feature, in any build.
    rc, _, se = run(["-r", ref, "-d", dis, "-n", "--feature", "no_such_cuda"])
    check(rc == EXIT["usage"], f"--feature no_such_cuda: {rc} {se!r}")
    if rc == 0:
        rc2, so2, _ = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--backend", "cpu"])
        lines = [l for l in so.splitlines() if l.startswith("float_ssim")]
        check(rc2 == 0 and lines == [l for l in so2.splitlines() if l.startswith("float_ssim")]
              and len(lines) == 1,
              f"--feature float_ssim_cuda summary: {so!r} vs the CPU's {so2!r}")
    rc, so, se = run(base + ["--backend", "cuda", "--json", "-o", out])
    check(rc == 0 or not need_gpu, f"--backend cuda with a GPU: {rc} {se!r}")
    if rc != 0:
        check(rc == EXIT["gpu"] and "--backend cuda" in se and ERROR_LINE.match(se.strip().splitlines()[-1]),
              f"--backend cuda without GPU: {rc} {se!r}")
        # The one line gives the reason, with -q too.
        check(len(se.strip().splitlines()) == 1 and
              re.search(r"\(--backend cuda\): [^;]+; use --backend cpu or auto$", se.strip()),
              f"--backend cuda -q without GPU says why in one line: {se!r}")
    # -q leaves the summary out only when there is a report.
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-q"])
    check(rc == 0 and so.startswith("float_ssim: "), f"-q without -o keeps the summary: {so!r}")
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-q", "-o", out])
    check(rc == 0 and so == "", f"-q with -o: no summary: {so!r}")
    # The default model: works, or says how to go on.
    rc, so, se = run(["-r", ref, "-d", dis, "-q"])
    check(rc == 0 or (rc == EXIT["model"] and "-n" in se), f"default model: {rc} {se!r}")
    # Progress on a terminal; its total is what --frame_cnt leaves.
    progress_on_tty(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim"])
    rc, text = progress_on_tty(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim",
                                "--frame_cnt", "2"], check_progress=False)
    check(rc == 0 and "vmaf: frame 2/2," in text and "/3," not in text,
          f"progress total with --frame_cnt 2: {rc} {text!r}")
    # An error in mid-run starts a line of its own, not the progress line's.
    cut = os.path.join(tmp, "cut.y4m")
    with open(cut, "wb") as f:
        f.write(b"YUV4MPEG2 W16 H16 C420jpeg\n")
        for i in range(200):
            f.write(b"FRAME\n" + bytes([i]) * 384)
        f.write(b"FRAME\n" + b"x" * 10)
    rc, text = progress_on_tty(["-r", cut, "-d", cut, "-n", "--feature", "float_ssim=scale=1"],
                               check_progress=False)
    check(rc == EXIT["input"] and re.search(r"\n\r?vmaf: truncated frame", text) and
          "\x1b[Kvmaf:" not in text, f"an error after a progress line: {rc} {text!r}")


def progress_on_tty(args, check_progress=True):
    master, slave = pty.openpty()
    p = subprocess.Popen([VMAF] + args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    buf = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    p.wait(30)
    os.close(master)
    text = buf.decode("utf-8", "replace")
    if check_progress:
        check(p.returncode == 0 and re.search(r"\rvmaf: frame 3/3, [\d.]+ fps, ETA \d+:\d\d", text),
              f"progress line on a terminal: {p.returncode} {text!r}")
    return p.returncode, text


def test_bad_inputs(tmp):
    good_r, good_d = y4m_pair(tmp, ("gr.y4m", "gd.y4m"))
    F = ["-n", "--feature", "float_ssim", "-q"]

    def y4m(name, header, payload=b""):
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(header + payload)
        return p

    one = frame_bytes("420", 32, 24, 8, 0, False)
    cases = [
        ("missing", ["-r", os.path.join(tmp, "nope.y4m"), "-d", good_d], "input", "No such file"),
        ("directory", ["-r", tmp, "-d", good_d], "input", "directory"),
        ("empty", ["-r", y4m("e.y4m", b""), "-d", good_d], "input", "empty input"),
        ("no signature", ["-r", y4m("ns.y4m", b"RIFF1234"), "-d", good_d], "input", "-w, -h, -p and -b"),
        # Encoded files given directly: said what they are, and how to decode.
        ("an MP4 file", ["-r", y4m("v.mp4", b"\0\0\0\x20ftypisom\0\0\x02\0"), "-d", good_d],
         "input", "it is an MP4/MOV file, which must be decoded first; give <(ffmpeg"),
        ("a Matroska file", ["-r", y4m("v.mkv", b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01"), "-d", good_d],
         "input", "it is a Matroska/WebM file"),
        ("an H.264 stream", ["-r", y4m("v.264", b"\0\0\0\x01\x67\x64\0\x1f"), "-d", good_d],
         "input", "it starts with an MPEG start code, as H.264, HEVC and MPEG-2 streams do: "
         "decode it first"),
        ("raw YUV that starts like a start code", ["-r", y4m("v.yuv", b"\0\0\0\x01" + bytes(64)),
                                                  "-d", good_d], "input", "for raw YUV give -w, -h, -p and -b"),
        ("zero width", ["-r", y4m("zw.y4m", b"YUV4MPEG2 W0 H24\nFRAME\n", one), "-d", good_d], "input", "1 to 65536"),
        ("negative width", ["-r", y4m("nw.y4m", b"YUV4MPEG2 W-8 H24\nFRAME\n", one), "-d", good_d], "input", "W-8"),
        ("huge size", ["-r", y4m("hs.y4m", b"YUV4MPEG2 W65536 H65536 C444p16\nFRAME\n", one), "-d", good_d],
         "input", "truncated frame"),
        ("too huge", ["-r", y4m("th.y4m", b"YUV4MPEG2 W65537 H2\nFRAME\n", one), "-d", good_d], "input", "1 to 65536"),
        ("unknown colourspace", ["-r", y4m("cs.y4m", b"YUV4MPEG2 W32 H24 C411\nFRAME\n", one), "-d", good_d],
         "input", "C411"),
        ("missing FRAME", ["-r", y4m("mf.y4m", b"YUV4MPEG2 W32 H24\n", one + one), "-d", good_d], "input",
         "bad FRAME marker"),
        ("garbled FRAME", ["-r", y4m("gf.y4m", b"YUV4MPEG2 W32 H24\nFRAME\n", one + b"FRAMX\n" + one), "-d", good_d],
         "input", "bad FRAME marker"),
        ("newline after the last frame", ["-r", y4m("nl.y4m", b"YUV4MPEG2 W32 H24\nFRAME\n", one + b"\n"),
                                          "-d", good_d], "input", "found an empty line"),
        ("truncated frame", ["-r", y4m("tf.y4m", b"YUV4MPEG2 W32 H24\nFRAME\n", one + b"FRAME\n" + one[:100]),
                             "-d", good_d], "input", "truncated frame"),
        ("partial marker", ["-r", y4m("pm.y4m", b"YUV4MPEG2 W32 H24\nFRAME\n", one + b"FRA"), "-d", good_d],
         "input", "truncated FRAME marker"),
        ("header too long", ["-r", y4m("hl.y4m", b"YUV4MPEG2 W32 H24 X" + b"a" * 5000), "-d", good_d], "input",
         "too long"),
    ]
    raw = os.path.join(tmp, "raw.yuv")
    with open(raw, "wb") as f:
        f.write(frame_bytes("420", 32, 24, 8, 0, False) * 2 + b"\0" * 7)
    cases.append(("y4m read as raw", ["-r", good_r, "-d", good_d, "-w", 32, "-h", 24, "-p", 420, "-b", 8],
                  "input", "drop -w -h -p -b"))
    cases.append(("raw not whole frames", ["-r", raw, "-d", raw, "-w", 32, "-h", 24, "-p", 420, "-b", 8],
                  "input", "not a whole number of frames"))
    # ref/dist mismatches
    for name, (fmt, w, h, bpc, n), needle in [
            ("geometry", ("420", 30, 24, 8, 3), "size first (ffmpeg: -vf scale=32:24 on the "
             "distorted input)"),
            ("bit depth", ("420", 32, 24, 10, 3), "bit depths differ"),
            ("format", ("444", 32, 24, 8, 3), "pixel formats differ"),
            ("format, advice", ("444", 32, 24, 8, 3), "(ffmpeg: -pix_fmt yuv420p on the "
             "distorted input)")]:
        p = os.path.join(tmp, "mm_%s.y4m" % name.replace(" ", "_"))
        write_y4m(p, fmt, w, h, bpc, n, True)
        cases.append(("mismatch " + name, ["-r", good_r, "-d", p], "input", needle))
    cases.append(("skip beyond end", ["-r", good_r, "-d", good_d, "--frame_skip_ref", 5], "input",
                  "not enough frames"))
    cases.append(("unknown feature", ["-r", good_r, "-d", good_d, "--feature", "no_such_feature"], "usage",
                  "no_such_feature"))
    cases.append(("bad feature option", ["-r", good_r, "-d", good_d, "--feature", "float_ssim=scale=abc"],
                  "usage", "float_ssim"))
    # The library's reason, whole, in the tool's line: the valid keys.
    cases.append(("bad feature option key", ["-r", good_r, "-d", good_d, "--feature", "float_ssim=nokey=1"],
                  "usage", "float_ssim: unknown option 'nokey' (valid options: scale, enable_lcs, "
                  "enable_db, clip_db)"))
    cases.append(("missing model file", ["-r", good_r, "-d", good_d, "-m", "path=" + os.path.join(tmp, "no.json")],
                  "model", "no.json"))
    cases.append(("unknown model version", ["-r", good_r, "-d", good_d, "-m", "version=vmaf_v9"], "model",
                  "vmaf_v9"))
    for name, args, status, needle in cases:
        if name.startswith("unknown model") or name.startswith("missing model"):
            expect_error(args, status, needle, name)
        else:
            expect_error(args + F, status, needle, name)

    # Reports: refused before scoring, never half-written, inputs untouched.
    outdir = os.path.join(tmp, "outdir")
    os.mkdir(outdir)
    base = ["-r", good_r, "-d", good_d] + F
    expect_error(base + ["-o", outdir], "output", "directory", "output is a directory")
    expect_error(base + ["-o", os.path.join(tmp, "no", "dir", "x.xml")], "output", "does not exist",
                 "output in a missing directory")
    expect_error(base + ["-o", os.path.join(tmp, "newdir") + "/"], "output", "give a file name",
                 "output ending in /")
    expect_error(base + ["-o", os.path.join(good_r, "x.xml")], "output", "is a file, not a directory",
                 "output under a file")
    sock_path = os.path.join(tmp, "sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sk:
        sk.bind(sock_path)
        expect_error(base + ["-o", sock_path], "output", "it is a socket", "output is a socket")
    digest = hashlib.sha256(open(good_d, "rb").read()).hexdigest()
    expect_error(base + ["-o", good_d], "output", "distorted input", "output == input")
    link = os.path.join(tmp, "alias.y4m")
    os.symlink(good_r, link)
    expect_error(base + ["-o", link], "output", "reference input", "output == input through a link")
    check(hashlib.sha256(open(good_d, "rb").read()).hexdigest() == digest, "input unchanged")
    # The model file is read too: a report over it would lose the model.
    model_src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model", "data",
                             "ssim_svr_rbf.json")
    if check(os.path.exists(model_src), f"{model_src} exists"):
        mine = os.path.join(tmp, "mine.json")
        shutil.copy(model_src, mine)
        model_digest = hashlib.sha256(open(mine, "rb").read()).hexdigest()
        expect_error(["-r", good_r, "-d", good_d, "-q", "-m", "path=" + mine, "-o", mine, "--json"],
                     "output", "a model file", "output == model file")
        check(hashlib.sha256(open(mine, "rb").read()).hexdigest() == model_digest,
              "model file unchanged")
    if os.path.exists("/dev/full"):
        expect_error(base + ["-o", "/dev/full"], "output", "/dev/full", "/dev/full")
    # A file size limit (ulimit -f) below the report's size: one line that
    # names the limit, status 5, the old file kept, no temporary file left
    # (not death by SIGXFSZ).
    fsz = os.path.join(tmp, "fsz")
    os.mkdir(fsz)
    kept = os.path.join(fsz, "r.json")
    with open(kept, "w") as f:
        f.write("old\n")
    expect_error(base + ["-o", kept, "--json"], "output", "ulimit -f", "file size limit",
                 preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64)))
    check(os.listdir(fsz) == ["r.json"] and open(kept).read() == "old\n",
          f"file size limit: {os.listdir(fsz)} left, want the old r.json alone")
    if os.geteuid() != 0:
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
        expect_error(base + ["-o", os.path.join(ro, "x.xml")], "output", "not writable", "unwritable dir")
        check(os.listdir(ro) == [], "nothing left in the unwritable directory")
        os.chmod(ro, stat.S_IRWXU)
    check(sorted(os.listdir(outdir)) == [], "no partial files")


def interrupt(p, sig=signal.SIGINT):
    """Sends SIGINT (or sig) to a running vmaf once it has settled, waits for
    it (a hang is killed after 20 s, and its status then fails the caller's
    check) and returns its stderr."""
    time.sleep(0.5)
    p.send_signal(sig)
    try:
        _, se = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        _, se = p.communicate()
    return se.decode("utf-8", "replace")


def start_on_fifo(fifo, dis, out, extra=(), **kw):
    """Starts vmaf (with the options extra) reading the reference from a new
    FIFO and feeds it a header and 80 frames: more than a pipe buffer holds,
    so when this returns vmaf is reading (its handlers installed) and waits
    for frame 80. Returns (process, the FIFO's writer, one frame's bytes)."""
    os.mkfifo(fifo)
    p = subprocess.Popen([VMAF, "-r", fifo, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                          "-o", out] + list(extra), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, **kw)
    w = open(fifo, "wb")
    w.write(b"YUV4MPEG2 W32 H24 C420jpeg\n")
    one = frame_bytes("420", 32, 24, 8, 0, False)
    for i in range(80):
        w.write(b"FRAME\n" + one)
    w.flush()
    return p, w, one


def test_same_report(tmp):
    """--threads N and --subsample 0 or 1 change how the frames are scored,
    not what: the report (fps aside) is the plain run's, to the last bit."""
    ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
    # More frames than three workers hold at once, so that they finish out
    # of order. The CPU backend: with a GPU, float_ssim would run on its
    # twin and the workers would score nothing.
    write_y4m(ref, "420", 32, 24, 8, 8, False)
    write_y4m(dis, "420", 32, 24, 8, 8, True)
    base = ["-r", ref, "-d", dis, "-n", "--feature", "float_ssim=enable_lcs=true", "-q",
            "--json", "--precision", "max", "--backend", "cpu"]

    def report(extra):
        out = os.path.join(tmp, "r%s.json" % "".join(extra))
        rc, _, se = run(base + extra + ["-o", out])
        if not check(rc == 0, f"{extra}: exit {rc}: {se!r}"):
            return None
        with open(out) as f:
            doc = json.load(f)
        doc.pop("fps", None)
        return doc

    plain = report([])
    if not check(plain and [f["frameNum"] for f in plain["frames"]] == list(range(8)),
                 f"plain run's frames: {plain}"):
        return
    for extra in (["--threads", "0"], ["--threads", "1"], ["--threads", "3"], ["--subsample", "0"],
                  ["--subsample", "1"], ["--threads", "3", "--subsample", "1"]):
        got = report(extra)
        check(got == plain, f"{' '.join(extra)}: report differs from the plain run's:\n"
              f"{got}\nvs\n{plain}")


def test_default_model(tmp):
    """Without -m and -n the tool scores VMAF with the built-in vmaf_v0.6.1
    and its summary gives the pooled score; -n leaves the model out. (The
    golden scores of the default model: test/vmaf/test_vmaf_cli.py.)"""
    ref, dis = y4m_pair(tmp)
    rc, so, se = run(["-r", ref, "-d", dis])
    m = re.match(r"^vmaf_v0\.6\.1: ([0-9.]+)$", so.strip())
    check(rc == 0 and m is not None and 0.0 <= float(m.group(1)) <= 100.0,
          f"default model: the summary gives vmaf_v0.6.1's score: {rc} {so!r} {se!r}")
    out = os.path.join(tmp, "default.json")
    rc, _, se = run(["-r", ref, "-d", dis, "-q", "--json", "-o", out])
    doc = json.load(open(out)) if rc == 0 else {}
    keys = list(doc.get("frames", [{}])[0].get("metrics", {}))
    check(keys[-1:] == ["vmaf"] and "integer_adm2" in keys and "integer_motion2" in keys,
          f"default model: the report has the features and vmaf last: {keys}")
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim"])
    check(rc == 0 and "vmaf" not in so, f"-n leaves the default model out: {so!r}")


def test_sigint(tmp):
    """SIGINT while scoring: exit 130, no report, no temporary file; SIGTERM
    (timeout, systemd, docker) and SIGHUP the same, exit 128 + signal."""
    dis = os.path.join(tmp, "sig_d.y4m")
    write_y4m(dis, "420", 32, 24, 8, 200, True)
    for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM"),
                      (signal.SIGHUP, "SIGHUP")):
        outdir = os.path.join(tmp, "sigout_" + name)
        os.mkdir(outdir)
        p, w, _ = start_on_fifo(os.path.join(tmp, "ref_%s.fifo" % name), dis,
                                os.path.join(outdir, "r.json"))
        se = interrupt(p, sig)
        w.close()
        check(p.returncode == 128 + sig, f"{name}: exit {p.returncode}, stderr {se!r}")
        check("interrupted (%s, after " % name in se and not SANITIZER.search(se),
              f"{name} message: {se!r}")
        check(os.listdir(outdir) == [], f"{name} leaves no report: {os.listdir(outdir)}")
    # A signal the parent ignores stays ignored (nohup's SIGHUP): the run
    # goes on to the end and writes its report.
    out = os.path.join(tmp, "nohup.json")
    p, w, one = start_on_fifo(os.path.join(tmp, "ref_nohup.fifo"), dis, out,
                              preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    time.sleep(0.5)
    p.send_signal(signal.SIGHUP)
    for i in range(120):
        w.write(b"FRAME\n" + one)
    w.close()
    _, se = finish_or_hang(p, "ignored SIGHUP")
    check(p.returncode == 0 and os.path.exists(out) and len(json_scores(out)[0]) == 200,
          f"ignored SIGHUP: exit {p.returncode}, stderr {se!r}")


def test_sigint_report(tmp):
    """SIGINT and the report: during scoring, an existing file named by -o
    is left as it was; once the report is complete, it stays, the summary
    is not printed, and the tool exits 130 saying so."""
    dis = os.path.join(tmp, "sig_d.y4m")
    write_y4m(dis, "420", 32, 24, 8, 200, True)
    outdir = os.path.join(tmp, "kept")
    os.mkdir(outdir)
    kept = os.path.join(outdir, "r.json")
    with open(kept, "w") as f:
        f.write("old\n")
    p, w, _ = start_on_fifo(os.path.join(tmp, "ref.fifo"), dis, kept)
    se = interrupt(p)
    w.close()
    check(p.returncode == EXIT["interrupted"] and "no report written" in se,
          f"SIGINT while scoring, -o an existing file: exit {p.returncode}, stderr {se!r}")
    check(os.listdir(outdir) == ["r.json"] and open(kept).read() == "old\n",
          f"SIGINT while scoring: left {os.listdir(outdir)}, r.json starts "
          f"{open(kept).read()[:60]!r}")

    # Once the report is in place the tool prints the summary. Its stdout
    # is a pipe already full (one page, where the pipe can be made that
    # small), so the run cannot end before the signal comes: it waits in
    # that write, after the report was renamed into place.
    ref, dis = y4m_pair(tmp)
    outdir = os.path.join(tmp, "done")
    os.mkdir(outdir)
    out = os.path.join(outdir, "r.json")
    r, wfd = os.pipe()
    try:
        fcntl.fcntl(wfd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
    except OSError:
        pass  # a full pipe of the default size blocks the write as well
    os.set_blocking(wfd, False)
    filler = 0
    try:
        while True:
            filler += os.write(wfd, b"x" * 512)
    except BlockingIOError:
        pass
    os.set_blocking(wfd, True)
    p = subprocess.Popen([VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                          "-o", out], stdout=wfd, stderr=subprocess.PIPE)
    os.close(wfd)
    # The report appears, then the tool waits in the write of the summary:
    # until /proc shows that wait (pipe_write, pipe_wait, ... by kernel),
    # or where it does not, for 1.5 s after the report appeared.
    appeared = None
    for _ in range(400):
        time.sleep(0.05)
        if p.poll() is not None:
            break
        if not os.path.exists(out):
            continue
        appeared = appeared or time.monotonic()
        try:
            with open("/proc/%d/wchan" % p.pid) as f:
                wchan = f.read().strip()
        except OSError:
            wchan = ""
        if "pipe" in wchan or time.monotonic() - appeared > 1.5:
            break
    check(p.poll() is None and appeared,
          f"the run waits in the summary's write once the report is in place (exit "
          f"{p.poll()}, report {os.path.exists(out)})")
    p.send_signal(signal.SIGINT)
    try:
        _, se = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        _, se = p.communicate()
    os.set_blocking(r, False)
    got = b""
    try:
        while True:
            chunk = os.read(r, 65536)
            if not chunk:
                break
            got += chunk
    except BlockingIOError:
        pass
    os.close(r)
    se = se.decode("utf-8", "replace")
    last = se.strip().splitlines()[-1] if se.strip() else ""
    check(p.returncode == EXIT["interrupted"] and last == "vmaf: interrupted (SIGINT, after 3 "
          "frames): the report was written, the summary was not",
          f"SIGINT once the report is complete: exit {p.returncode}, stderr {se!r}")
    check(got == b"x" * filler, f"SIGINT once the report is complete: stdout got "
          f"{got[filler:]!r} after the filler, not nothing")
    check(os.listdir(outdir) == ["r.json"] and len(json_scores(out)[0]) == 3,
          f"SIGINT once the report is complete: the whole report stays: {os.listdir(outdir)}")
    check(not SANITIZER.search(se), f"SIGINT once the report is complete: sanitizer: {se!r}")


def test_threads(tmp):
    """--threads N reaches the library: a run waiting on its input holds N
    more threads than the same run with --threads 0; without --threads, one
    more per CPU."""
    global skips
    if not os.path.isdir("/proc/self/task"):
        print("test_threads: SKIP, no /proc/PID/task here", file=sys.stderr)
        skips += 1
        return
    dis = os.path.join(tmp, "thr_d.y4m")
    write_y4m(dis, "420", 32, 24, 8, 200, True)
    held = {}
    # Without --threads: one worker per CPU this process may use (frames
    # this small are far from the memory cap).
    cpus = min(len(os.sched_getaffinity(0)), 1024)
    want = {0: 0, 3: 3, None: cpus}
    for n in (0, 3, None):
        # The CPU backend: a GPU's driver threads would add to the count.
        threads = [] if n is None else ["--threads", str(n)]
        p, w, _ = start_on_fifo(os.path.join(tmp, "thr%s.fifo" % n), dis,
                                os.path.join(tmp, "thr%s.json" % n),
                                threads + ["--backend", "cpu"])
        # The workers start with the scoring context, once both inputs'
        # first frames are in: without them, the fewest threads seen over
        # half a second; with them, look for up to 10 s (a sanitizer build
        # is slow) until the three are there.
        held[n] = None
        for i in range(100):
            time.sleep(0.1)
            try:
                seen = len(os.listdir("/proc/%d/task" % p.pid))
            except OSError:
                held[n] = None
                break
            if n == 0:
                held[0] = seen if held[0] is None else min(held[0], seen)
                if i == 4:
                    break
            else:
                held[n] = seen
                if held[0] is not None and seen - held[0] >= want[n]:
                    break
        interrupt(p)
        w.close()
    check(None not in (held[0], held[3]) and held[3] - held[0] >= 3,
          f"--threads 3 starts 3 worker threads: {held}")
    check(None not in (held[0], held[None]) and cpus <= held[None] - held[0] < cpus + 3,
          f"no --threads starts one worker per CPU ({cpus}): {held}")


CLOSING = re.compile(r"^vmaf: (\d+) frames? in (\d+\.\d\d) s \((\d+\.\d) fps\)$")
PROGRESS_LOG = re.compile(r"^vmaf: frame \d+(/\d+)?, \d+\.\d fps(, ETA \d+:\d\d)?$")


def closing_ok(se, frames):
    """Whether stderr ends in the closing line for `frames` frames, its fps
    being frames over its time."""
    lines = se.splitlines()
    m = CLOSING.match(lines[-1]) if lines else None
    if not m or int(m.group(1)) != frames:
        return False
    # The time is rounded to 0.01 s, the rate to 0.1.
    t, fps = float(m.group(2)), float(m.group(3))
    low = frames / (t + 0.005) - 0.05
    return low <= fps and (t <= 0.005 or fps <= frames / (t - 0.005) + 0.05)


def test_progress(tmp):
    """Progress is on stderr only; away from a terminal only with
    --progress, as lines of their own. A run that succeeds ends with one
    line that says how long it took, unless -q; a failed one ends with its
    error."""
    ref, dis = y4m_pair(tmp)
    base = ["-r", ref, "-d", dis, "-n", "--feature", "float_ssim"]
    rc, so, se = run(base)
    check(rc == 0 and closing_ok(se, 3) and "frame 3" not in se and "\r" not in se,
          f"closing line, no progress when stderr is not a terminal: {rc} {se!r}")
    check(so.startswith("float_ssim: ") and "frames in" not in so, f"stdout: summary only: {so!r}")
    rc, so, se = run(base + ["--frame_cnt", "1"])
    check(rc == 0 and closing_ok(se, 1) and "vmaf: 1 frame in" in se, f"1 frame: {rc} {se!r}")
    rc, so, se = run(base + ["-q"])
    check(rc == 0 and se == "", f"-q: no closing line: {rc} {se!r}")
    # The report on stdout: nothing else there.
    rc, so, se = run(base + ["--json", "-o", "-", "--progress"])
    try:
        frames = len(json.loads(so)["frames"])
    except ValueError:
        frames = None
    check(rc == 0 and frames == 3 and closing_ok(se, 3) and "float_ssim: " in se,
          f"-o - --progress: the report alone on stdout: {rc} {so!r} {se!r}")
    rc, so, se = run(["-r", ref, "-d", os.path.join(tmp, "none.y4m")] + base[4:])
    check(rc == EXIT["input"] and "frames in" not in se, f"failed run: no closing line: {se!r}")
    progress_log(tmp)
    # On a terminal: the line in place, then the closing line; -q silences
    # both unless --progress.
    rc, text = progress_on_tty(base)
    check(re.search(r"\rvmaf: frame 3/3, [^\n]*\n(.*\n)*vmaf: 3 frames in \d+\.\d\d s "
                    r"\(\d+\.\d fps\)\r?\n$", text),
          f"terminal: closing line after the progress line: {text!r}")
    rc, text = progress_on_tty(base + ["-q"], check_progress=False)
    check(rc == 0 and text == "", f"terminal, -q: nothing: {text!r}")
    rc, text = progress_on_tty(base + ["-q", "--progress"])
    check(rc == 0 and "vmaf: 3 frames in" in text and "backend" not in text,
          f"terminal, -q --progress: progress and closing line only: {text!r}")


def progress_log(tmp):
    """--progress away from a terminal: a line of its own every 5 s, also
    with -q. The reference is a FIFO that stalls for 5.5 s after 10 frames,
    so that the line comes when frame 11 is scored."""
    fifo, dis = os.path.join(tmp, "log_r.fifo"), os.path.join(tmp, "log_d.y4m")
    write_y4m(dis, "420", 32, 24, 8, 20, True)
    os.mkfifo(fifo)
    p = subprocess.Popen([VMAF, "-r", fifo, "-d", dis, "-n", "--feature", "float_ssim", "-q",
                          "--progress", "--json", "-o", os.path.join(tmp, "log.json")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(fifo, "wb") as w:
        w.write(b"YUV4MPEG2 W32 H24 F25:1 Ip A1:1 C420jpeg\n")
        for i in range(20):
            if i == 10:
                w.flush()
                time.sleep(5.5)
            w.write(b"FRAME\n" + frame_bytes("420", 32, 24, 8, i, False))
    so, se = finish_or_hang(p, "--progress on a FIFO")
    se = se.decode("utf-8", "replace")
    lines = se.splitlines()
    check(p.returncode == 0 and so == b"" and len(lines) >= 2 and closing_ok(se, 20) and
          all(PROGRESS_LOG.match(l) for l in lines[:-1]) and "\r" not in se and
          "\x1b" not in se, f"--progress -q, not a terminal: {p.returncode} {so!r} {se!r}")


def test_cpumask(tmp):
    """--cpumask reaches the library under every backend choice: the spy
    preloaded into vmaf sees the mask in effect when the pictures are read
    (the library's mask is process-wide: each vmaf_init() sets it, and the
    tool's throw-away contexts used to set it back to 0 under --backend
    auto). Every SIMD level gives the same scores."""
    global skips
    if not CPUMASK_SPY:
        print("test_cpumask: SKIP, no --cpumask-spy given", file=sys.stderr)
        skips += 1
        return
    ref, dis = os.path.join(tmp, "m_r.y4m"), os.path.join(tmp, "m_d.y4m")
    write_y4m(ref, "420", 97, 61, 8, 3, False)
    write_y4m(dis, "420", 97, 61, 8, 3, True)
    spied = os.path.join(tmp, "spy.txt")
    env = dict(os.environ, LD_PRELOAD=CPUMASK_SPY, VMAF_CPUMASK_SPY=spied,
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0")

    def masks(extra):
        if os.path.exists(spied):
            os.unlink(spied)
        out = os.path.join(tmp, "m.json")
        rc, _, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--feature",
                         "motion", "-q", "--json", "--precision", "max", "-o", out] + extra,
                        env=env)
        if not check(rc == 0, f"--cpumask run {extra}: {rc} {se!r}"):
            return None, None
        seen = open(spied).read().split() if os.path.exists(spied) else None
        doc = json.load(open(out))
        return seen, [f["metrics"] for f in doc["frames"]]

    seen, plain = masks([])
    if seen is None and SANITIZE:
        print("test_cpumask: SKIP, the spy cannot be preloaded under the sanitizer",
              file=sys.stderr)
        skips += 1
        return
    check(seen == ["0"], f"no --cpumask: the spy sees 0: {seen}")
    cases = [[], ["--backend", "auto"], ["--backend", "cpu"], ["--gpumask", "1"]]
    if os.environ.get("VMAF_TEST_REQUIRE_GPU", "0") not in ("", "0"):
        cases.append(["--backend", "cuda"])
    for backend in cases:
        for mask, want in (("24", "24"), ("0x8", "8")):
            seen, scores = masks(["--cpumask", mask] + backend)
            check(seen == [want], f"--cpumask {mask} {' '.join(backend)}: the library has "
                  f"{seen}, want [{want}]")
            check(scores == plain, f"--cpumask {mask} {' '.join(backend)}: scores differ: "
                  f"{scores} vs {plain}")


def feed(fifo, data):
    """Writes data into a FIFO from a thread (opening blocks until vmaf reads)."""
    def run_writer():
        try:
            with open(fifo, "wb") as w:
                w.write(data)
        except BrokenPipeError:
            pass
    t = threading.Thread(target=run_writer, daemon=True)
    t.start()
    return t


def test_pipes(tmp):
    """Pipes: one or both inputs from FIFOs (the distorted one read on its own
    thread) give the files' scores; Ctrl-C ends a run whose distorted pipe
    has stalled, whichever thread is waiting for it."""
    ref = os.path.join(tmp, "p_r.y4m")
    dis = os.path.join(tmp, "p_d.y4m")
    write_y4m(ref, "420", 64, 48, 10, 12, False)
    write_y4m(dis, "420", 64, 48, 10, 12, True)
    want = score(ref, dis, [], tmp, "files.json")
    data_r, data_d = open(ref, "rb").read(), open(dis, "rb").read()
    for which in ("ref", "dis", "both"):
        fr, fd = os.path.join(tmp, which + "_r.fifo"), os.path.join(tmp, which + "_d.fifo")
        writers = []
        r_arg, d_arg = ref, dis
        if which in ("ref", "both"):
            os.mkfifo(fr)
            writers.append(feed(fr, data_r))
            r_arg = fr
        if which in ("dis", "both"):
            os.mkfifo(fd)
            writers.append(feed(fd, data_d))
            d_arg = fd
        got = score(r_arg, d_arg, [], tmp, which + ".json")
        for w in writers:
            w.join(timeout=20)
        check(got == want, f"pipes ({which}): scores {got} want {want}")

    for which in ("dis", "both"):
        fd = os.path.join(tmp, "stall_" + which + "_d.fifo")
        os.mkfifo(fd)
        r_arg = ref
        if which == "both":
            r_arg = os.path.join(tmp, "stall_both_r.fifo")
            os.mkfifo(r_arg)
        out = os.path.join(tmp, "stall_" + which + ".json")
        p = subprocess.Popen([VMAF, "-r", r_arg, "-d", fd, "-n", "--feature", "float_ssim",
                              "--json", "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # The header and two frames of each pipe, then nothing more: vmaf
        # waits for frame 2 of the distorted input (and of the reference,
        # for both). vmaf opens the reference and reads its header before it
        # opens the distorted input, and a FIFO's open waits for the other
        # end: the reference's bytes go first (they fit in the pipe).
        head = data_d.index(b"FRAME")
        one = len(b"FRAME\n") + len(frame_bytes("420", 64, 48, 10, 0, True))
        wr = open(r_arg, "wb") if which == "both" else None
        if wr:
            wr.write(data_r[:head + 2 * one])
            wr.flush()
        wd = open(fd, "wb")
        wd.write(data_d[:head + 2 * one])
        wd.flush()
        se = interrupt(p)
        wd.close()
        if wr:
            wr.close()
        check(p.returncode == 130, f"stalled pipe ({which}), SIGINT: exit {p.returncode}, "
              f"stderr {se!r}")
        check("interrupted" in se and not SANITIZER.search(se), f"stalled pipe message: {se!r}")
        check(not os.path.exists(out), "stalled pipe, SIGINT: no report")


def test_pipe_failure(tmp):
    """One process feeds both FIFOs, a frame of each in turn (frames larger
    than a pipe holds): when one input is malformed, its writer waits for it
    to be drained and never writes the other input's next frame. vmaf must
    still end, with the malformed input's error, whichever input it is."""
    w, h = 1920, 1080
    hdr = b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h)
    payload = bytes(w * h * 3 // 2)  # 3 MB: more than a pipe holds
    for bad in ("ref", "dis"):
        fr = os.path.join(tmp, bad + "_r.fifo")
        fd = os.path.join(tmp, bad + "_d.fifo")
        os.mkfifo(fr)
        os.mkfifo(fd)

        def writer():
            try:
                with open(fr, "wb") as r:
                    r.write(hdr)
                    r.flush()
                    with open(fd, "wb") as d:
                        d.write(hdr)
                        d.flush()
                        # The malformed input's frame 1 goes first in its turn.
                        first, second = (d, r) if bad == "dis" else (r, d)
                        for i in range(4):
                            first.write((b"FRAMX\n" if i == 1 else b"FRAME\n") + payload)
                            first.flush()
                            second.write(b"FRAME\n" + payload)
                            second.flush()
            except (BrokenPipeError, ValueError):
                pass
        t = threading.Thread(target=writer, daemon=True)
        t.start()
        p = subprocess.Popen([VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, se = finish_or_hang(p, f"malformed {bad} pipe")
        se = se.decode("utf-8", "replace")
        t.join(timeout=20)
        bad_path = fd if bad == "dis" else fr
        check(p.returncode == EXIT["input"] and "bad FRAME marker (%s, frame 1)" % bad_path in se
              and ERROR_LINE.match(se.strip().splitlines()[-1] if se.strip() else ""),
              f"malformed {bad} pipe: exit {p.returncode}, stderr {se!r}")


def test_pipe_open_order(tmp):
    """One process opens both FIFOs before it writes anything, in either
    order (ffmpeg with two outputs opens its files first), then writes the
    headers and a frame of each in turn. Opened one after the other, the
    tool waited for the reference's header while the writer waited for the
    distorted FIFO's reader: a hang at the start. Frames both inputs skip
    are skipped in pairs too (skipped one input after the other, the tool
    waited for the reference's frames behind a full distorted pipe). With
    `lead`, the writer sends the header and first frame (more than a pipe
    holds) of the FIFO it opened first before the other's header, as
    ffmpeg 5.1 does: the tool used to wait for that header for ever."""
    w, h = 1280, 720
    hdr = b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h)
    frames = [bytes([(7 * i + k) % 256 for k in range(256)]) * (w * h * 3 // 2 // 256)
              for i in range(3)]
    for first, skip, lead in (("ref", 0, False), ("dis", 0, False), ("ref", 2, False),
                              ("ref", 0, True), ("dis", 0, True), ("dis", 2, True)):
        name = "%s%d%s" % (first, skip, "_lead" if lead else "")
        fr = os.path.join(tmp, name + "_open_r.fifo")
        fd = os.path.join(tmp, name + "_open_d.fifo")
        os.mkfifo(fr)
        os.mkfifo(fd)

        def writer():
            try:
                a = open(fr if first == "ref" else fd, "wb")
                b = open(fd if first == "ref" else fr, "wb")
                r, d = (a, b) if first == "ref" else (b, a)
                rest = frames
                if lead:
                    for f in (a, b):
                        f.write(hdr + b"FRAME\n" + frames[0])
                        f.flush()
                    rest = frames[1:]
                else:
                    r.write(hdr)
                    r.flush()
                    d.write(hdr)
                    d.flush()
                for f in rest:
                    r.write(b"FRAME\n" + f)
                    r.flush()
                    d.write(b"FRAME\n" + f)
                    d.flush()
                r.close()
                d.close()
            except (BrokenPipeError, ValueError):
                pass
        t = threading.Thread(target=writer, daemon=True)
        t.start()
        p = subprocess.Popen([VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim",
                              "--backend", "cpu", "--frame_skip_ref", str(skip),
                              "--frame_skip_dist", str(skip)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        what = (f"one writer opening the {first} FIFO first, skipping {skip}"
                + (", its first frame before the other's header" if lead else ""))
        so, se = finish_or_hang(p, what)
        t.join(timeout=20)
        check(p.returncode == 0 and b"float_ssim: 1.000000" in so,
              f"{what}: exit {p.returncode}, stdout {so!r}, stderr {se!r}")


def test_pipe_first_frame_failure(tmp):
    """One input's first frame is cut short or malformed while the other
    input's writer sends its header and then waits (as one program feeding
    both pipes waits for the failed one to be drained): the run must end
    with the failed input's error. The open of a pipe reads its first
    frame, so that failure must fail the open, which interrupts the other
    side; left to the frame's read, it came after the other open, which
    waited for ever."""
    w, h = 64, 48
    hdr = b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h)
    payload = bytes(w * h * 3 // 2)
    for name, bad, data, needle in (
            ("cut", "dis", hdr + b"FRAME\n" + payload[:100], "truncated frame (%s, frame 0): "
             "it holds 100 of"),
            ("cut", "ref", hdr + b"FRAME\n" + payload[:100], "truncated frame (%s, frame 0): "
             "it holds 100 of"),
            ("marker", "dis", hdr + b"FRAMX\n" + payload, "bad FRAME marker (%s, frame 0)")):
        fr = os.path.join(tmp, "%s_%s_r.fifo" % (name, bad))
        fd = os.path.join(tmp, "%s_%s_d.fifo" % (name, bad))
        os.mkfifo(fr)
        os.mkfifo(fd)
        bad_path, good_path = (fd, fr) if bad == "dis" else (fr, fd)
        release = threading.Event()

        def stalled():
            try:
                with open(good_path, "wb") as g:
                    g.write(hdr)
                    g.flush()
                    release.wait(180)  # past finish_or_hang's limit
            except (BrokenPipeError, ValueError):
                pass
        threads = [threading.Thread(target=stalled, daemon=True), feed(bad_path, data)]
        threads[0].start()
        p = subprocess.Popen([VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, se = finish_or_hang(p, f"{bad} first frame {name}, the other writer waiting")
        release.set()
        for t in threads:
            t.join(timeout=20)
        se = se.decode("utf-8", "replace")
        check(p.returncode == EXIT["input"] and needle % bad_path in se,
              f"{bad} first frame {name}, the other writer waiting: exit {p.returncode}, "
              f"stderr {se!r}")


def test_pipe_memory(tmp):
    """Streams whose header promises huge frames and that then end cost the
    memory of what arrived, not of the frames: the tool used to zero two
    pictures of the promised size (2 GiB here; 16 GiB at 65536x65536)
    before it found the first frame cut short. (Pictures of at most 512 MiB
    are zeroed when released, to be reused, so below that size such a
    stream costs what a real frame of its size would.)"""
    global skips
    data = b"YUV4MPEG2 W32768 H16384 C420p16\nFRAME\nabc"
    fr = os.path.join(tmp, "huge_r.fifo")
    fd = os.path.join(tmp, "huge_d.fifo")
    os.mkfifo(fr)
    os.mkfifo(fd)
    writers = [feed(fr, data), feed(fd, data)]
    err_path = os.path.join(tmp, "huge.err")
    # meson test sets MALLOC_PERTURB_, with which glibc fills every block
    # it hands out, calloc()'s included: the pages a user's run leaves
    # untouched are then written. Measure the run a user gets.
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    with open(err_path, "wb") as e:
        p = subprocess.Popen([VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim",
                              "--backend", "cpu", "-q"],
                             stdout=subprocess.DEVNULL, stderr=e, env=env)
        timer = threading.Timer(120, p.kill)
        timer.start()
        _, status, usage = os.wait4(p.pid, 0)
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
    for t in writers:
        t.join(timeout=20)
    with open(err_path, encoding="utf-8", errors="replace") as e:
        se = e.read()
    # Both inputs are cut short; whichever read fails first is reported.
    check(p.returncode == EXIT["input"] and
          any("truncated frame (%s, frame 0): it holds 3 of" % f in se for f in (fr, fd)),
          f"huge frames promised, 3 bytes sent: exit {p.returncode}, stderr {se!r}")
    if "thread" in SANITIZE:
        # ThreadSanitizer's calloc() writes every block it hands out.
        print("test_pipe_memory: SKIP the peak memory check under ThreadSanitizer",
              file=sys.stderr)
        skips += 1
        return
    check(usage.ru_maxrss < 256 * 1024,
          f"huge frames promised, 3 bytes sent: the tool's peak memory was "
          f"{usage.ru_maxrss // 1024} MiB")


def test_sigint_open(tmp):
    """Ctrl-C while a FIFO's open waits for its writer, or while the header
    is read, is an interruption (130), not a bad input."""
    for when in ("header", "open"):
        fr = os.path.join(tmp, when + "_r.fifo")
        fd = os.path.join(tmp, when + "_d.fifo")
        os.mkfifo(fr)
        os.mkfifo(fd)
        p = subprocess.Popen([VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Once this open returns, vmaf has its handler (installed before it
        # opens any input) and waits for the reference's header line; with
        # the whole line written, it waits in the open of the distorted FIFO.
        w = open(fr, "wb")
        w.write(b"YUV4MPEG2 W32 H24" + (b" C420jpeg\n" if when == "open" else b""))
        w.flush()
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        try:
            _, se = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            # The signal came before the open or read began (a slow
            # machine): end that call; the run is interrupted all the same.
            try:
                os.close(os.open(fd, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            w.close()
            try:
                _, se = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                _, se = p.communicate()
        w.close()
        se = se.decode("utf-8", "replace")
        check(p.returncode == EXIT["interrupted"] and "vmaf: interrupted (SIGINT" in se
              and "Interrupted system call" not in se,
              f"SIGINT in the {when}: exit {p.returncode}, stderr {se!r}")


def nobody_prefix():
    """The command prefix that runs vmaf as an unprivileged user when this
    runs as root (whose writes permissions do not stop), or None."""
    if os.geteuid() != 0:
        return []
    for tool in ("/usr/bin/setpriv", "/bin/setpriv"):
        if os.path.exists(tool):
            prefix = [tool, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
            try:
                ok = subprocess.run(prefix + [VMAF, "-v"], capture_output=True, timeout=60).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            return prefix if ok else None
    return None


def test_output_checks(tmp):
    """Reports that cannot be written are refused before scoring: a
    read-only file, a link whose target lies in a read-only or missing
    directory, a dangling link (the library creates its target)."""
    ref, dis = y4m_pair(tmp)
    base = ["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-q"]
    # Testable as root: a dangling link into a missing directory.
    link = os.path.join(tmp, "dangling.xml")
    os.symlink(os.path.join("no", "dir", "r.xml"), link)
    expect_error(base + ["-o", link], "output", "no/dir does not exist", "dangling link, missing dir")
    check(os.path.islink(link), "the dangling link is left as it was")
    chain = os.path.join(tmp, "chain.xml")
    os.symlink("dangling.xml", chain)
    expect_error(base + ["-o", chain], "output", "no/dir does not exist", "chain of dangling links")
    # A directory whose permission bits allow writing but which takes no new
    # file: /proc as root (access() says yes; the tool now creates and
    # removes a file there first). As a user the bits already refuse it.
    if os.path.isdir("/proc"):
        expect_error(base + ["-o", "/proc/vmaf_report.xml"], "output", "directory /proc",
                     "a directory that takes no new file")
    # A path that fits PATH_MAX but not with the report's temporary name
    # (.NAME.XXXXXX beside it): refused before scoring, not after.
    deep = tmp
    while len(deep) < 3900:  # exactly 3900 bytes, no component over NAME_MAX
        deep = os.path.join(deep, "d" * min(200, 3900 - len(deep) - 1))
    os.makedirs(deep, exist_ok=True)
    longest = os.path.join(deep, "r" * (4088 - len(deep) - 1))
    expect_error(base + ["-o", longest], "output", "path too long", "a path too long for the "
                 "temporary name")
    check(not os.listdir(deep), f"long path: left {os.listdir(deep)}")
    # An append-only directory (chattr +a, as root on a file system that has
    # the flag): refused before scoring, and nothing is left in it.
    adir = os.path.join(tmp, "append_only")
    os.mkdir(adir)
    if subprocess.run(["chattr", "+a", adir], capture_output=True).returncode == 0:
        try:
            expect_error(base + ["-o", os.path.join(adir, "r.xml")], "output", "append-only",
                         "an append-only directory")
            check(os.listdir(adir) == [], f"append-only directory: left {os.listdir(adir)}")
        finally:
            subprocess.run(["chattr", "-a", adir], capture_output=True)
    else:
        print("test_output_checks: chattr +a not possible here; append-only case skipped",
              file=sys.stderr)

    prefix = nobody_prefix()
    if prefix is None:
        print("test_output_checks: no way to run unprivileged; permission cases skipped",
              file=sys.stderr)
        return
    # The unprivileged user must reach the inputs.
    top = os.path.dirname(tmp)
    modes = [(d, stat.S_IMODE(os.stat(d).st_mode)) for d in (top, tmp)]
    for d, _ in modes:
        os.chmod(d, 0o755)
    try:
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro)
        target = os.path.join(ro, "t.xml")
        open(target, "w").write("old")
        os.chmod(target, 0o666)
        os.chmod(ro, 0o555)
        # In a directory the user may write: only the file itself refuses.
        rw = os.path.join(tmp, "rw")
        os.mkdir(rw)
        os.chmod(rw, 0o777)
        readonly = os.path.join(rw, "readonly.xml")
        open(readonly, "w").write("old")
        os.chmod(readonly, 0o444)
        to_ro = os.path.join(tmp, "to_ro.xml")
        os.symlink(target, to_ro)
        dangling_ro = os.path.join(tmp, "dangling_ro.xml")
        os.symlink(os.path.join(ro, "new.xml"), dangling_ro)
        for out, needle, what in [
                (readonly, "the file is not writable", "read-only file"),
                (to_ro, "directory %s is not writable" % ro, "link to a file in a read-only dir"),
                (dangling_ro, "directory %s is not writable" % ro, "dangling link into a read-only dir")]:
            p = subprocess.run(prefix + [VMAF, "-o", out] + base, capture_output=True, timeout=120)
            se = p.stderr.decode("utf-8", "replace")
            last = se.strip().splitlines()[-1] if se.strip() else ""
            check(p.returncode == EXIT["output"] and needle in se and ERROR_LINE.match(last)
                  and "cannot write report (%s)" % out in se,
                  f"{what}: exit {p.returncode}, stderr {se!r}")
        check(open(readonly).read() == "old" and open(target).read() == "old", "files left as they were")
        os.chmod(ro, 0o755)
        # Files the user may not read: a model (exit 4) and an input (exit
        # 3), each named with the system's reason, before any frame is read.
        model = os.path.join(tmp, "unreadable_model.json")
        with open(model, "w") as f:
            f.write("{}\n")  # never parsed: the open fails first
        os.chmod(model, 0)
        secret = os.path.join(tmp, "unreadable.y4m")
        shutil.copy(dis, secret)
        os.chmod(secret, 0)
        for args, status, needle, what in [
                (["-r", ref, "-d", dis, "-q", "-m", "path=" + model], "model",
                 "cannot load model (path=%s): permission denied; make the file readable" % model, "unreadable model"),
                (["-r", ref, "-d", secret, "-n", "--feature", "float_ssim", "-q"], "input",
                 "cannot open input (%s): Permission denied" % secret, "unreadable input")]:
            p = subprocess.run(prefix + [VMAF] + args, capture_output=True, timeout=120)
            se = p.stderr.decode("utf-8", "replace")
            lines = se.strip().splitlines()
            check(p.returncode == EXIT[status] and len(lines) == 1 and needle in se
                  and ERROR_LINE.match(lines[0]) and not p.stdout,
                  f"{what}: exit {p.returncode}, stdout {p.stdout!r}, stderr {se!r}")
    finally:
        for d, m in modes:
            os.chmod(d, m)


def test_closed_stdout(tmp):
    """stdout a pipe whose reader has gone: the write error is reported
    (status 5), the tool is not killed by SIGPIPE."""
    ref, dis = y4m_pair(tmp)
    for extra, needle in [([], "cannot write the summary (stdout)"),
                          (["--json", "-o", "-"], "cannot write report (-)")]:
        r, w = os.pipe()
        os.close(r)
        try:
            p = subprocess.run([VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim"] + extra,
                               stdout=w, stderr=subprocess.PIPE, timeout=120)
        finally:
            os.close(w)
        se = p.stderr.decode("utf-8", "replace")
        check(p.returncode == EXIT["output"] and needle in se and "Broken pipe" in se,
              f"closed stdout {extra}: exit {p.returncode}, stderr {se!r}")
    # --version and --help too: status 5 and a line, not a death by SIGPIPE.
    for flag, what in (("--version", "version"), ("--help", "help")):
        r, w = os.pipe()
        os.close(r)
        try:
            p = subprocess.run([VMAF, flag], stdout=w, stderr=subprocess.PIPE, timeout=120)
        finally:
            os.close(w)
        se = p.stderr.decode("utf-8", "replace")
        check(p.returncode == EXIT["output"] and "cannot print the %s (stdout)" % what in se,
              f"{flag} into a closed pipe: exit {p.returncode}, stderr {se!r}")
    # With a report file, a broken stdout costs the summary only: the report
    # is written first.
    out = os.path.join(tmp, "kept.json")
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                            "-o", out], stdout=w, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(w)
    se = p.stderr.decode("utf-8", "replace")
    check(p.returncode == EXIT["output"] and "the report was written" in se and
          len(json_scores(out)[0]) == 3, f"broken stdout with -o FILE: {p.returncode} {se!r}")
    # stdout closed outright (>&-): the report's file must not become fd 1
    # and take the summary; -o - is refused, since it has nowhere to go.
    out = os.path.join(tmp, "closed.json")
    p = subprocess.run([VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                        "-o", out], stderr=subprocess.PIPE, timeout=120,
                       preexec_fn=lambda: os.close(1))
    check(p.returncode == 0 and len(json_scores(out)[0]) == 3,
          f">&- with -o FILE: {p.returncode} {p.stderr!r}")
    for extra in (["--json", "-o", "-"], ["--json", "-o", "/dev/stdout"], [], ["-q"]):
        p = subprocess.run([VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim"] + extra,
                           stderr=subprocess.PIPE, timeout=120, preexec_fn=lambda: os.close(1))
        check(p.returncode == EXIT["output"] and b"stdout is closed" in p.stderr,
              f">&- with {extra}: {p.returncode} {p.stderr!r}")


def test_frame_counts(tmp):
    """Inputs of different lengths: as the reference tool, the common frames
    are scored and reported (exit 0), with one warning naming the input that
    ended first; for files, pipes, raw and Y4M, and after a skip."""
    r3, d2 = os.path.join(tmp, "r3.y4m"), os.path.join(tmp, "d2.y4m")
    write_y4m(r3, "420", 32, 24, 8, 3, False)
    write_y4m(d2, "420", 32, 24, 8, 2, True)
    yr3, yd2 = os.path.join(tmp, "r3.yuv"), os.path.join(tmp, "d2.yuv")
    write_yuv(yr3, "420", 32, 24, 8, 3, False)
    write_yuv(yd2, "420", 32, 24, 8, 2, True)
    raw = ["-w", 32, "-h", 24, "-p", 420, "-b", 8]
    want = score(r3, d2, ["--frame_cnt", 2], tmp, "common.json")
    for what, args, shorter, n in [
            ("Y4M, distorted shorter", ["-r", r3, "-d", d2], d2, 2),
            ("Y4M, reference shorter", ["-r", d2, "-d", r3], d2, 2),
            ("raw, distorted shorter", ["-r", yr3, "-d", yd2] + raw, yd2, 2),
            ("Y4M, skip leaves the reference shorter",
             ["-r", r3, "-d", r3, "--frame_skip_ref", 1], r3, 2)]:
        out = os.path.join(tmp, "fc.json")
        rc, so, se = run(args + ["-n", "--feature", "float_ssim", "-q", "--json", "--precision",
                                 "max", "-o", out])
        warn = [l for l in se.splitlines() if "frame counts differ" in l]
        check(rc == 0 and len(warn) == 1 and ("(%s ends after %d frames" % (shorter, n)) in warn[0]
              and "scoring the first %d" % n in warn[0],
              f"{what}: exit {rc}, stderr {se!r}")
        if rc == 0:
            got = json_scores(out)[0]
            check(len(got) == n, f"{what}: {len(got)} frames reported, want {n}")
            if what.startswith("Y4M, distorted") or what.startswith("raw"):
                check(got == want, f"{what}: scores {got}, want {want}")
    # A path with a newline: the warning stays one line.
    odd = os.path.join(tmp, "d\nvmaf: fake.y4m")
    shutil.copy(d2, odd)
    rc, so, se = run(["-r", r3, "-d", odd, "-n", "--feature", "float_ssim", "-q"])
    check(rc == 0 and len(se.splitlines()) == 1 and "d?vmaf: fake.y4m ends after 2" in se,
          f"control characters in the warning: {rc} {se!r}")
    # Raw counts are known before any work, but the warning waits for the
    # run to be set up: a refused report path gives its error alone.
    rc, so, se = run(["-r", yr3, "-d", yd2] + raw + ["-n", "--feature", "float_ssim", "-o",
                                                      os.path.join(tmp, "none", "x.json")])
    check(rc == EXIT["output"] and "differ" not in se, f"warning before a refusal: {rc} {se!r}")
    # --frame_cnt within the common part: no warning.
    rc, so, se = run(["-r", yr3, "-d", yd2] + raw + ["-n", "--feature", "float_ssim", "-q",
                                                      "--frame_cnt", 2])
    check(rc == 0 and "differ" not in se, f"--frame_cnt 2 on 3 and 2 frames: {rc} {se!r}")
    # A pipe that ends first.
    fd = os.path.join(tmp, "d2.fifo")
    os.mkfifo(fd)
    t = feed(fd, open(d2, "rb").read())
    out = os.path.join(tmp, "fifo.json")
    rc, so, se = run(["-r", r3, "-d", fd, "-n", "--feature", "float_ssim", "-q", "--json",
                      "--precision", "max", "-o", out])
    t.join(timeout=20)
    check(rc == 0 and "(%s ends after 2 frames" % fd in se and json_scores(out)[0] == want,
          f"pipe shorter: {rc} {se!r}")


def test_skip_all(tmp):
    """Skipping every frame of a Y4M file or pipe is said as for raw files."""
    ref, dis = y4m_pair(tmp)
    F = ["-n", "--feature", "float_ssim", "-q"]
    for opt in ("--frame_skip_ref", "--frame_skip_dist"):
        rc, _, se = expect_error(["-r", ref, "-d", dis, opt, 3] + F, "input",
                                 "not enough frames to skip", "Y4M " + opt)
        check("%s 3): the file has only 3 frames" % opt in se and "--frame_cnt 0" not in se,
              f"Y4M {opt} 3: {se!r}")
    fd = os.path.join(tmp, "d.fifo")
    os.mkfifo(fd)
    t = feed(fd, open(dis, "rb").read())
    rc, _, se = expect_error(["-r", ref, "-d", fd, "--frame_skip_dist", 3] + F, "input",
                             "not enough frames to skip (%s, --frame_skip_dist 3)" % fd, "pipe skip")
    t.join(timeout=20)


def test_no_frames(tmp):
    """An input with no frame at all is an input error (3) that says which
    input and why: a Y4M file ending after its header, found when it is
    opened, or a pipe ending before its first frame while the other input
    has frames (a decoder that wrote a header and failed)."""
    ref, dis = y4m_pair(tmp)
    hdr = os.path.join(tmp, "hdr.y4m")
    with open(hdr, "wb") as f:
        f.write(b"YUV4MPEG2 W32 H24 C420jpeg\n")
    F = ["-n", "--feature", "float_ssim", "-q"]
    for args in (["-r", ref, "-d", hdr], ["-r", hdr, "-d", dis]):
        expect_error(args + F, "input", "no frames (%s): the Y4M file ends after its header" % hdr,
                     "a Y4M file with a header only: " + " ".join(args))
    for which in ("ref", "dis"):
        fifo = os.path.join(tmp, which + ".fifo")
        os.mkfifo(fifo)
        t = feed(fifo, open(hdr, "rb").read())
        other = dis if which == "ref" else ref
        args = ["-r", fifo, "-d", dis] if which == "ref" else ["-r", ref, "-d", fifo]
        out = os.path.join(tmp, which + ".json")
        expect_error(args + F + ["--json", "-o", out], "input",
                     "no frames to score (%s): it holds no frames, %s has some" % (fifo, other),
                     f"a {which} pipe with a header only")
        t.join(timeout=20)
        check(not os.path.exists(out), f"a {which} pipe with a header only: a report was written")


def write_frames(path, frames, distorted, y4m=True):
    """32x24 8-bit 4:2:0 frames numbered `frames` (those of y4m_pair's
    generator, so frame i here is frame i there), as Y4M or raw YUV."""
    with open(path, "wb") as f:
        if y4m:
            f.write(b"YUV4MPEG2 W32 H24 C420jpeg\n")
        for i in frames:
            f.write((b"FRAME\n" if y4m else b"") + frame_bytes("420", 32, 24, 8, i, distorted))


def test_frame_skips(tmp):
    """Each skip applies to its own input: inputs that start at different
    frames of one clip, realigned by --frame_skip_ref or --frame_skip_dist,
    give the scores of the matching frames. A skip applied to the wrong
    input pairs frames that do not match, which only the scores show."""
    ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
    write_frames(ref, range(4), False)
    write_frames(dis, range(4), True)
    full = score(ref, dis, [], tmp, "full.json")
    if not full:
        return
    raw = ["-w", 32, "-h", 24, "-p", 420, "-b", 8]
    for y4m in (True, False):
        ext, geo = (".y4m", []) if y4m else (".yuv", raw)
        r, d, r_late, d_late = (os.path.join(tmp, n + ext) for n in ("r", "d", "r1", "d1"))
        write_frames(r, range(4), False, y4m)
        write_frames(d, range(4), True, y4m)
        write_frames(r_late, range(1, 4), False, y4m)  # starts at frame 1
        write_frames(d_late, range(1, 4), True, y4m)
        for what, args, want in [
                ("the distorted starts a frame later", ["-r", r, "-d", d_late,
                                                        "--frame_skip_ref", 1], full[1:]),
                ("the reference starts a frame later", ["-r", r_late, "-d", d,
                                                        "--frame_skip_dist", 1], full[1:]),
                # One frame skipped in pairs, one more on the reference alone.
                ("both skip, the reference more", ["-r", r, "-d", d_late, "--frame_skip_ref", 2,
                                                   "--frame_skip_dist", 1], full[2:])]:
            what = "%s (%s)" % (what, "Y4M" if y4m else "raw")
            out = os.path.join(tmp, "skip.json")
            rc, so, se = run(args + geo + ["-n", "--feature", "float_ssim", "-q", "--json",
                                           "--precision", "max", "-o", out])
            if check(rc == 0 and "differ" not in se, f"{what}: exit {rc}, stderr {se!r}"):
                got = json_scores(out)[0]
                check(got == want, f"{what}: scores {got}, want those of the matching frames "
                      f"{want}")


def test_failed_run_keeps_report(tmp):
    """A run that fails after scoring some frames writes no report: the
    reference tool scores the frames before a read error and exits 0, so a
    script that trusts the report's presence would take a partial one for
    the whole clip. An existing report stays as it was, a new one is not
    created, and the status says which kind of failure it was: 3 for an
    input cut short in mid-run, 1 for a picture the feature refuses."""
    ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
    write_frames(ref, range(4), False)
    with open(dis, "wb") as f:
        f.write(b"YUV4MPEG2 W32 H24 C420jpeg\n")
        for i in range(2):
            f.write(b"FRAME\n" + frame_bytes("420", 32, 24, 8, i, True))
        f.write(b"FRAME\n" + frame_bytes("420", 32, 24, 8, 2, True)[:100])
    tiny = os.path.join(tmp, "tiny.y4m")
    write_y4m(tiny, "420", 8, 8, 8, 2, False)  # below float_ssim's 11x11 window
    for what, args, status, needle in [
            ("a distorted input cut short at frame 2", ["-r", ref, "-d", dis], "input",
             "truncated frame (%s, frame 2)" % dis),
            ("8x8 pictures", ["-r", tiny, "-d", tiny], "scoring", "scoring failed (frame 0)")]:
        outdir = os.path.join(tmp, "out_" + status)
        os.mkdir(outdir)
        kept = os.path.join(outdir, "kept.json")
        with open(kept, "w") as f:
            f.write("old\n")
        for out in (kept, os.path.join(outdir, "new.json")):
            expect_error(args + ["-n", "--feature", "float_ssim", "-q", "--json", "-o", out],
                         status, needle, f"{what}, -o {os.path.basename(out)}")
            check(sorted(os.listdir(outdir)) == ["kept.json"] and open(kept).read() == "old\n",
                  f"{what}, -o {os.path.basename(out)}: left {sorted(os.listdir(outdir))}, "
                  f"kept.json holds {open(kept).read()!r}")


def test_long_paths(tmp):
    """Paths of about 600 characters: messages still end with the reason."""
    d = tmp
    for c in "abc":
        d = os.path.join(d, c * 200)
    os.makedirs(d)
    ref, dis = os.path.join(d, "r.y4m"), os.path.join(d, "d.y4m")
    write_y4m(ref, "420", 32, 24, 8, 3, False)
    write_y4m(dis, "420", 32, 24, 8, 2, True)
    one = frame_bytes("420", 32, 24, 8, 0, False)
    garbled = os.path.join(d, "garbled.y4m")
    with open(garbled, "wb") as f:
        f.write(b"YUV4MPEG2 W32 H24\nFRAME\n" + one + b"FRAMX\n" + one)
    F = ["-n", "--feature", "float_ssim", "-q"]
    for args, status, needle, what in [
            (["-r", os.path.join(d, "none.y4m"), "-d", dis], "input", "none.y4m): No such file",
             "missing input"),
            (["-r", garbled, "-d", garbled], "input", "where \"FRAME\" must start the frame; the "
             "file is damaged or its header size is wrong", "bad input"),
            (["-r", ref, "-d", ref, "-o", os.path.join(d, "no", "r.xml")], "output",
             "does not exist; create it or give another -o path", "report in a missing dir")]:
        expect_error(args + F, status, needle, "long path: " + what)
    # A warning naming two long paths still ends with its advice.
    rc, _, se = run(["-r", ref, "-d", dis] + F)
    check(rc == 0 and se.rstrip().endswith("or set --frame_cnt, to silence this"),
          f"long path: two paths in a warning: {rc} {se!r}")
    # A path of over 1000 characters that cannot be opened: still the reason.
    deep = tmp + "/" + "/".join(["c" * 200] * 5) + "/none.y4m"
    expect_error(["-r", deep, "-d", dis] + F, "input", "): No such file or directory",
                 "long path: 1000 characters")
    # A long argument in a usage error keeps its start and its end, where the
    # bad part often is; one of at most 60 characters is shown whole.
    junk = "1" * 70 + "x"
    expect_error(["-r", ref, "-d", dis, "--threads", junk] + F, "usage",
                 '(--threads "%s...%s")' % (junk[:28], junk[-28:]), "long argument: both ends")
    model = "path=" + "m" * 60 + ".json:float_ssim.scale=2:flavour=3"
    expect_error(["-r", ref, "-d", dis, "-m", model, "-q"], "usage",
                 '(-m "%s...%s", entry "flavour")' % (model[:28], model[-28:]),
                 "long argument: a model's bad option at its end")
    expect_error(["-r", ref, "-d", dis, "--threads", "1" * 59 + "x"] + F, "usage",
                 '(--threads "%s")' % ("1" * 59 + "x"), "argument of 60 characters shown whole")
    opt = "--" + "o" * 70 + "_typo"
    expect_error(["-r", ref, "-d", dis, opt] + F, "usage", "%s...%s" % (opt[:28], opt[-28:]),
                 "long unknown option: both ends")
    # Cuts fall between UTF-8 characters: no lone lead or continuation byte.
    wide = "a" + "\u00e9" * 40
    rc, _, err = run(["-r", ref, "-d", dis, "--threads", wide] + F)
    enc = wide.encode()
    check(rc == EXIT["usage"] and "a" + "\u00e9" * 13 + "..." + "\u00e9" * 14 in err and
          "\ufffd" not in err, "a cut inside a UTF-8 character: %r" % err)
    check(len(enc) > 60, "the UTF-8 argument is long enough to be cut")


def test_streams_and_stdout(tmp):
    """One pipe given as both inputs is refused (its frames would be halves
    of two); a Y4M pipe given raw geometry is recognised; -o naming stdout
    is -o -; stdout appended to an input is refused; Ctrl-C while a report
    FIFO waits for its reader is 130."""
    ref, dis = y4m_pair(tmp)
    F = ["-n", "--feature", "float_ssim"]
    with open(ref, "rb") as f:
        rc, so, se = run(["-r", "/dev/stdin", "-d", "/dev/stdin"] + F, input=f.read())
    check(rc == EXIT["input"] and "same stream" in se, f"one pipe as both inputs: {rc} {se!r}")
    # "-" is stdin.
    want = score(ref, dis, [], tmp, "files.json")
    out = os.path.join(tmp, "dash.json")
    with open(dis, "rb") as f:
        rc, so, se = run(["-r", ref, "-d", "-", "-q", "--json", "--precision", "max", "-o", out]
                         + F, input=f.read())
    check(rc == 0 and json_scores(out)[0] == want, f"-d - reads stdin: {rc} {se!r}")
    with open(ref, "rb") as f:
        rc, so, se = run(["-r", "-", "-d", "-"] + F, input=f.read())
    check(rc == EXIT["input"] and "same stream" in se, f"-r - -d -: {rc} {se!r}")
    fifo = os.path.join(tmp, "both.fifo")
    os.mkfifo(fifo)
    try:
        rc, so, se = run(["-r", fifo, "-d", fifo] + F, timeout=20)
    except subprocess.TimeoutExpired:
        rc, se = None, "(waited for a writer: not refused)"
    check(rc == EXIT["input"] and "same stream" in se, f"one FIFO as both inputs: {rc} {se!r}")
    # A Y4M stream through a pipe, given raw geometry: recognised.
    raw = os.path.join(tmp, "r.yuv")
    with open(raw, "wb") as f:
        f.write(bytes(32 * 24 * 3 // 2 * 3))
    with open(ref, "rb") as f:
        rc, so, se = run(["-r", "/dev/stdin", "-d", raw, "-w", "32", "-h", "24", "-p", "420",
                          "-b", "8"] + F, input=f.read())
    check(rc == EXIT["input"] and "for a Y4M stream (reference /dev/stdin)" in se,
          f"Y4M pipe with raw geometry: {rc} {se!r}")
    # A stream that ends before its first byte (a decoder that failed, as
    # in <(ffmpeg -i missing.mp4 ...)): which input, and where to look.
    rc, so, se = run(["-r", ref, "-d", "-"] + F, input=b"")
    check(rc == EXIT["input"] and "empty input (distorted /dev/stdin): the stream ended "
          "before its first byte" in se, f"empty stream on stdin: {rc} {se!r}")
    if os.path.isdir("/dev/fd"):
        rd, wr = os.pipe()
        os.close(wr)
        try:
            rc, so, se = run(["-r", "/dev/fd/%d" % rd, "-d", dis] + F, pass_fds=(rd,))
        finally:
            os.close(rd)
        check(rc == EXIT["input"] and "empty input (reference /dev/fd/%d)" % rd in se,
              f"empty stream as /dev/fd/N: {rc} {se!r}")
    # The report to /dev/stdout while stdout is a pipe: the JSON alone.
    rc, so, se = run(["-r", ref, "-d", dis, "--json", "-o", "/dev/stdout"] + F)
    try:
        frames = len(json.loads(so)["frames"]) if rc == 0 else -1
    except ValueError:
        frames = -1
    check(frames == 3 and "float_ssim:" in se, f"-o /dev/stdout: {rc} {so[:80]!r} {se!r}")
    # ... and while stdout is a file: written in place, the rest kept.
    log = os.path.join(tmp, "log.txt")
    with open(log, "w") as f:
        f.write("BEFORE\n")
        f.flush()
        rc = subprocess.run([VMAF, "-r", ref, "-d", dis, "--csv", "-o", "/dev/stdout", "-q"] + F,
                            stdout=f, stderr=subprocess.DEVNULL, timeout=120).returncode
        f.write("AFTER\n")
    with open(log) as f:
        text = f.read()
    check(rc == 0 and text.startswith("BEFORE\n") and text.endswith("AFTER\n") and
          "Frame," in text, f"-o /dev/stdout into a file: {rc} {text!r}")
    # stdout appended to the distorted input.
    copy = os.path.join(tmp, "dcopy.y4m")
    shutil.copy(dis, copy)
    with open(copy, "ab") as f:
        p = subprocess.run([VMAF, "-r", ref, "-d", copy, "--json", "-o", "-", "-q"] + F,
                           stdout=f, stderr=subprocess.PIPE, timeout=120)
        rc, se = p.returncode, p.stderr.decode("utf-8", "replace")
    check(rc == EXIT["output"] and "distorted input" in se and filecmp.cmp(copy, dis, False),
          f"stdout appended to an input: {rc} {se!r}")
    # Ctrl-C while the report's FIFO waits for a reader.
    out = os.path.join(tmp, "report.fifo")
    os.mkfifo(out)
    p = subprocess.Popen([VMAF, "-r", ref, "-d", dis, "--json", "-o", out, "-q"] + F,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Interrupt it once it waits in the FIFO's open (the kernel names that
    # wait in /proc/PID/wchan; where it does not, after 1.5 s), so that
    # the interruption is that of the wait, not of the scoring.
    waited = False
    for _ in range(200):
        time.sleep(0.05)
        try:
            with open("/proc/%d/wchan" % p.pid) as f:
                if f.read().strip() == "wait_for_partner":
                    waited = True
                    break
        except OSError:
            break
    if not waited:
        time.sleep(1.5)
    p.send_signal(signal.SIGINT)
    try:
        _, se = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.close(os.open(out, os.O_RDONLY | os.O_NONBLOCK))
        _, se = p.communicate(timeout=20)
    se = se.decode("utf-8", "replace")
    check(p.returncode == EXIT["interrupted"] and "vmaf: interrupted (SIGINT" in se,
          f"SIGINT while the report FIFO waits: {p.returncode} {se!r}")


def test_duplicate_feature(tmp):
    """The same --feature twice: one summary line."""
    ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
    write_y4m(ref, "420", 32, 24, 8, 2, False)
    write_y4m(dis, "420", 32, 24, 8, 2, True)
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--feature", "float_ssim"])
    check(rc == 0 and so.count("float_ssim:") == 1, f"--feature twice: {rc} {so!r} {se!r}")


def test_badinputs_dir(tmp, bad):
    """Every known bad input: a clean error or a correct result, never a crash."""
    modes = {0: ("420", 8), 1: ("422", 8), 2: ("444", 8), 3: ("420", 10), 4: ("422", 10), 5: ("444", 10)}
    good = os.path.join(tmp, "g.y4m")
    write_y4m(good, "420", 16, 16, 8, 1, False)
    for name in sorted(os.listdir(bad)):
        path = os.path.join(bad, name)
        runs = []
        if name.endswith(".y4m"):
            runs.append(["-r", path, "-d", path, "-n", "--feature", "float_ssim", "-q"])
            runs.append(["-r", good, "-d", path, "-n", "--feature", "float_ssim", "-q"])
        elif name.endswith(".yuv"):
            data = open(path, "rb").read()
            fmt, bpc = modes.get(data[0] % 6 if data else 0)
            body = os.path.join(tmp, "body.yuv")
            open(body, "wb").write(data[1:])
            for p in (path, body):
                runs.append(["-r", p, "-d", p, "-w", 32, "-h", 32, "-p", fmt, "-b", bpc, "-n", "--feature",
                             "float_ssim", "-q"])
        elif name.endswith(".argv"):
            raw = open(path, "rb").read()
            args = [a.decode("utf-8", "replace") for a in raw.rstrip(b"\n").split(b"\0")]
            runs.append(args)
            runs.append([a.replace("a", path, 1) if a in ("a", "a.yuv") else a for a in args])
        for args in runs:
            rc, out, err = run(args, cwd=tmp)
            check(0 <= rc < 128, f"{name} {args}: exit {rc} {err!r}")
            check(not SANITIZER.search(err), f"{name}: sanitizer: {err!r}")
            if rc:
                last = err.strip().splitlines()[-1] if err.strip() else ""
                check(ERROR_LINE.match(last), f"{name}: unclear error {err!r}")
                said = [l for l in err.splitlines() if l.strip() and not WARNING_LINE.match(l)]
                check(len(said) == 1, f"{name}: the failure takes {len(said)} lines: {err!r}")


def test_models(tmp, models):
    """-m with model files written for the tests (SVRs over float_ssim)."""
    ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
    write_y4m(ref, "420", 48, 32, 8, 3, False)
    write_y4m(dis, "420", 48, 32, 8, 3, True)
    lin = os.path.join(models, "ssim_svr_linear.json")
    rbf = os.path.join(models, "ssim_svr_rbf.json")
    if not check(os.path.exists(lin) and os.path.exists(rbf), f"test models in {models}"):
        return
    rc, so, se = run(["-r", ref, "-d", dis, "-m", "path=" + lin])
    check(rc == 0 and re.match(r"^%s: -?\d+\.\d{6}$" % re.escape(lin), so.strip()) is not None,
          f"model summary: {rc} {so!r} {se!r}")
    out = os.path.join(tmp, "m.json")
    rc, so, se = run(["-r", ref, "-d", dis, "-m", "path=%s:name=lin" % lin, "-m",
                      "path=%s:name=rbf:disable_clip" % rbf, "-q", "--json", "-o", out, "--precision", "max"])
    if check(rc == 0, f"two models: {rc} {se}"):
        doc = json.load(open(out))
        m = doc["frames"][0]["metrics"]
        check("lin" in m and "rbf" in m and "float_ssim" in m, f"model scores in report: {sorted(m)}")
        check("lin" in doc["pooled_metrics"], "pooled model score")
    # A collection: as the reference prints it, model "0"'s pooled score,
    # then the bagging score with its interval and deviation, each equal to
    # the report's pooled means.
    coll = os.path.join(models, "ssim_collection.json")
    if check(os.path.exists(coll), f"test collection in {models}"):
        rc, so, se = run(["-r", ref, "-d", dis, "-m", "path=" + coll, "--json", "-o", out])
        lines = so.strip().splitlines()
        num = r"(-?\d+\.\d{6})"
        head = re.match(r"^%s: %s$" % (re.escape(coll), num), lines[0]) if lines else None
        bag = re.match(r"^%s: %s, ci\.p95: \[%s, %s\], stddev: %s$" % ((re.escape(coll),) + (num,) * 4),
                       lines[-1]) if lines else None
        if check(rc == 0 and len(lines) == 2 and head and bag,
                 f"collection summary: {rc} {so!r} {se!r}"):
            pm = json.load(open(out))["pooled_metrics"]
            want = [pm[k]["mean"] for k in ("vmaf", "vmaf_bagging", "vmaf_ci_p95_lo",
                                            "vmaf_ci_p95_hi", "vmaf_stddev")]
            got = [float(head.group(1))] + [float(g) for g in bag.groups()]
            check(got == want and want[0] != want[1] and want[4] > 0,
                  f"collection summary {got} against the report's means {want}")
    # The summary: a line per model, labelled by its name= unless that is
    # the default "vmaf" (then by its path, as the reference labels every
    # model), then the --feature lines; each value is the report's pooled
    # mean under the name the report uses.
    rc, so, se = run(["-r", ref, "-d", dis, "-m", "path=%s:name=lin" % lin, "-m",
                      "path=%s:name=vmaf" % rbf, "--feature", "float_ssim", "--json", "-o", out,
                      "--precision", "max"])
    if check(rc == 0, f"summary labels: {rc} {se!r}"):
        pm = json.load(open(out))["pooled_metrics"]
        got = [l.rpartition(": ") for l in so.strip().splitlines()]
        got = [(label, float(v)) for label, _, v in got]
        want = [("lin", pm["lin"]["mean"]), (rbf, pm["vmaf"]["mean"]),
                ("float_ssim", pm["float_ssim"]["mean"])]
        check(got == want, f"summary labels and values {got}, want {want}")
    # -n with -m: the model's features are extracted and reported, but no
    # score is predicted, neither in the report nor in the summary.
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "-m", "path=" + lin, "--json", "-o", out])
    if check(rc == 0 and so == "", f"-n -m: {rc} {so!r} {se!r}"):
        doc = json.load(open(out))
        names = {k for fr in doc["frames"] for k in fr["metrics"]} | set(doc["pooled_metrics"])
        check("float_ssim" in names and all(n.startswith("float_ssim") for n in names)
              and len(doc["frames"]) == 3,
              f"-n -m: the model's features only, no prediction: {sorted(names)}")
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "-m", "path=" + lin, "--feature", "float_ssim"])
    check(rc == 0 and re.match(r"^float_ssim: \d\.\d{6}$", so.strip()) is not None,
          f"-n -m --feature: the feature's summary line alone: {rc} {so!r}")
    rc, so, se = run(["-r", ref, "-d", dis, "-m", "path=%s:float_ssim.scale=1" % lin, "-q"])
    check(rc == 0, f"feature overload: {rc} {se}")
    expect_error(["-r", ref, "-d", dis, "-m", "path=%s:nofeat.scale=2" % lin], "model", "nofeat",
                 "overload of a feature the model lacks")
    expect_error(["-r", ref, "-d", dis, "-m", "path=%s" % os.path.join(models, "ssim_bad_option.json")],
                 "model", "ssim_bad_option.json", "model with a bad feature option")
    expect_error(["-r", ref, "-d", dis, "-m", "path=%s" % os.path.join(models, "ssim_plus_missing.json")],
                 "model", "use a model whose features exist", "model with missing features")
    bad = os.path.join(tmp, "trunc.json")
    open(bad, "w").write(open(lin).read()[:200])
    _, _, se = expect_error(["-r", ref, "-d", dis, "-m", "path=" + bad], "model", "trunc.json",
                            "truncated model")
    # Both loaders fail on it for the same reason: said once, in the line.
    check(se.count("not a valid JSON model") == 1,
          f"truncated model: the parser's reason once: {se!r}")
    # A file that is neither a model nor a collection: each loader's
    # reason, joined by " / " in the one line.
    neither = os.path.join(tmp, "neither.json")
    open(neither, "w").write('{"a": 1}')
    expect_error(["-r", ref, "-d", dis, "-m", "path=" + neither], "model",
                 "key 'model_dict': missing; fix the model file or use another model / model file "
                 "%s: invalid model: key '(top level)'" % neither,
                 "neither a model nor a collection")
    # A long path does not cut the library's reason off the line.
    deep = os.path.join(tmp, *(["d" * 200] * 6))
    os.makedirs(deep, exist_ok=True)
    long_bad = os.path.join(deep, "trunc.json")
    open(long_bad, "w").write(open(lin).read()[:200])
    _, _, se = expect_error(["-r", ref, "-d", dis, "-m", "path=" + long_bad], "model", "trunc.json",
                            "truncated model, long path")
    check(se.count("not a valid JSON model") == 1 and se.rstrip().endswith("another model"),
          f"truncated model, long path: the whole reason: {se[-300:]!r}")
    expect_error(["-r", ref, "-d", dis, "-m", "version=vmaf_v0.6.1:name=a", "-m", "path=%s:name=a" % lin],
                 "usage", "unique", "duplicate model names")


def test_model_clip_transform(tmp, models):
    """-m ...:disable_clip and :enable_transform reach the model: each
    changes the report's model scores as docs/models.md says, and every
    score is the library's prediction restated here from the model file,
    bit for bit. The model (a linear SVR over float_ssim) predicts above
    its clip's maximum and transforms to below its minimum, so the four
    combinations give four different scores."""
    ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
    write_y4m(ref, "420", 48, 32, 8, 3, False)
    write_y4m(dis, "420", 48, 32, 8, 3, True)
    path = os.path.join(models, "ssim_clip_transform.json")
    if not check(os.path.exists(path), f"test model {path}"):
        return
    md = json.load(open(path))["model_dict"]
    lo, hi = md["score_clip"]
    st = md["score_transform"]
    # The libsvm text: "SV" then one line "COEF 1:VALUE"; and rho.
    svm = md["model"].splitlines()
    rho = float(next(l.split()[1] for l in svm if l.startswith("rho ")))
    coef, node = svm[svm.index("SV") + 1].split()
    coef, sv = float(coef), float(node.split(":")[1])

    def predict(ssim, clip, transform):
        # In the library's order of operations (predict.c, svm.c), so
        # that Python's doubles give the same bits.
        s = 0.0 + ssim * sv
        s = 0.0 + coef * s
        s = s - rho
        if transform:
            t = 0.0
            t += st["p0"]
            t += st["p1"] * s
            t += st["p2"] * s * s
            s = t
        if clip:
            s = lo if s < lo else s
            s = hi if s > hi else s
        return s

    seen = {}
    for entries, clip, transform in (("", True, False), (":disable_clip", False, False),
                                     (":disable_clip=false", True, False),
                                     (":enable_transform", True, True),
                                     (":enable_transform=true", True, True),
                                     (":disable_clip:enable_transform", False, True),
                                     (":enable_transform:disable_clip=true", False, True),
                                     (":enable_transform:enable_transform=false", True, False)):
        what = "-m path=...%s" % entries
        out = os.path.join(tmp, "ct.json")
        rc, so, se = run(["-r", ref, "-d", dis, "-m", "path=%s:name=ct%s" % (path, entries),
                          "--json", "--precision", "max", "-o", out])
        if not check(rc == 0, f"{what}: exit {rc}: {se!r}"):
            continue
        doc = json.load(open(out))
        got = [fr["metrics"]["ct"] for fr in doc["frames"]]
        want = [predict(fr["metrics"]["float_ssim"], clip, transform) for fr in doc["frames"]]
        check(len(got) == 3 and got == want,
              f"{what}: the report's model scores {got}, the model's {want}")
        mean = doc["pooled_metrics"]["ct"]["mean"]
        label, _, shown = so.strip().partition(": ")
        check(mean == sum(want) / len(want) and label == "ct" and float(shown) == mean,
              f"{what}: pooled mean {mean!r} and summary {so!r}, per-frame scores {want}")
        seen.setdefault((clip, transform), got)
    # The options must make a difference on this model, or the test would
    # pass whatever the tool did with them: the raw prediction lies above
    # the clip's maximum, and the transformed one below its minimum.
    plain, raw = seen.get((True, False)), seen.get((False, False))
    tr, tr_raw = seen.get((True, True)), seen.get((False, True))
    if check(None not in (plain, raw, tr, tr_raw), "every combination ran"):
        check(all(v == hi for v in plain) and all(r > hi for r in raw),
              f"the clip acts on the raw scores {raw}: {plain}")
        check(all(v == lo for v in tr) and all(r < lo for r in tr_raw),
              f"the clip acts on the transformed scores {tr_raw}: {tr}")


def parity(tmp, golden, vectors, every=False, backend=None):
    """--feature with options through the CLI equals the golden scores; the
    same luma as 4:2:0 Y4M gives the 4:4:4 scores. `every`: all vectors and
    runs (refusals included), not just a few small ones."""
    g = json.load(open(golden))
    byid = {v["id"]: v for v in g["vectors"]}
    ids = sorted(byid) if every else ("p08", "p09", "p16", "p02", "p13")
    extra = ["--backend", backend] if backend else []
    for vid in ids:
        v = byid.get(vid)
        if not v:
            continue
        ref, dis = os.path.join(vectors, v["ref"]), os.path.join(vectors, v["dis"])
        if not (os.path.exists(ref) and os.path.exists(dis)):
            print(f"parity: {vid} vectors missing in {vectors}", file=sys.stderr)
            check(False, f"parity vectors {vid} present")
            continue
        geo = ["-w", v["w"], "-h", v["h"], "-p", v["fmt"], "-b", v["bpc"]]
        runs = v["runs"] if every else \
            v["runs"][:4] + [r for r in v["runs"] if "enable_lcs" in r["options"]][:1]
        for run_ in runs:
            opt = "float_ssim" + ("=" + run_["options"] if run_["options"] else "")
            out = os.path.join(tmp, "par.json")
            if os.path.exists(out):
                os.unlink(out)
            rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", opt, "-q", "--json",
                              "--precision", "max", "-o", out] + geo + extra)
            if run_.get("error"):
                check(0 < rc < 128 and not os.path.exists(out) and ERROR_LINE.match(se.strip().splitlines()[-1]),
                      f"parity {vid} {opt}: refusal expected, got {rc} {se!r}")
                continue
            if not check(rc == 0, f"parity {vid} {opt}: {rc} {se}"):
                continue
            doc = json.load(open(out))
            check(len(doc["frames"]) == len(run_["frames"]), f"parity {vid} {opt}: frame count")
            for i, want in enumerate(run_["frames"]):
                for key, val in want.items():
                    got = doc["frames"][i]["metrics"].get(key)
                    check(val is None or got == val, f"parity {vid} {opt} frame {i} {key}: {got!r} != {val!r}")
            for key, pooled in run_.get("pooled", {}).items():
                for how, val in pooled.items():
                    got = doc["pooled_metrics"].get(key, {}).get(how)
                    check(val is None or got == val, f"parity {vid} {opt} pooled {key} {how}: {got!r} != {val!r}")
            if run_ is runs[0]:
                # The summary, the only result of a run without a report,
                # is the pooled mean too.
                want = run_.get("pooled", {}).get("float_ssim", {}).get("mean")
                rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", opt, "-q",
                                  "--precision", "max"] + geo + extra)
                m = re.match(r"^float_ssim: (\S+)$", so.strip())
                check(rc == 0 and m is not None and want is not None and float(m.group(1)) == want,
                      f"parity {vid} {opt} summary: {so!r} against the pooled mean {want!r}")
        if v["fmt"] == 444 and v["bpc"] == 8 and (vid == "p13" or every):
            # Same luma in 4:2:0 Y4M (chroma made up) must give the 4:4:4 scores.
            w, h = v["w"], v["h"]
            n = os.path.getsize(ref) // (w * h * 3)
            cw, ch = (w + 1) // 2, (h + 1) // 2
            for src, dst in ((ref, "c_ref.y4m"), (dis, "c_dis.y4m")):
                data = open(src, "rb").read()
                with open(os.path.join(tmp, dst), "wb") as f:
                    f.write(b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h))
                    for k in range(n):
                        f.write(b"FRAME\n" + data[k * w * h * 3: k * w * h * 3 + w * h] + b"\x80" * (2 * cw * ch))
            r0 = v["runs"][0]
            want = [f["float_ssim"] for f in r0["frames"]] if r0["options"] == "" and not r0.get("error") else None
            if want is not None:
                s420 = score(os.path.join(tmp, "c_ref.y4m"), os.path.join(tmp, "c_dis.y4m"), extra, tmp)
                check(s420 == want, f"{vid} as 4:2:0 Y4M: {s420} vs 4:4:4 golden {want}")


def main():
    global VMAF, SANITIZE, CPUMASK_SPY
    ap = argparse.ArgumentParser()
    ap.add_argument("vmaf")
    ap.add_argument("badinputs")
    ap.add_argument("--golden")
    ap.add_argument("--vectors")
    ap.add_argument("--models")
    ap.add_argument("--only")
    ap.add_argument("--sanitize", default="", help="the build's b_sanitize (meson)")
    ap.add_argument("--parity-all", action="store_true", help="every golden vector and run")
    ap.add_argument("--backend", help="--backend for the parity runs")
    ap.add_argument("--cpumask-spy", help="the cpumask spy library, for test_cpumask")
    a = ap.parse_args()
    VMAF = os.path.abspath(a.vmaf)
    SANITIZE = a.sanitize
    CPUMASK_SPY = a.cpumask_spy and os.path.abspath(a.cpumask_spy)
    # The tool keeps a stop signal its parent ignores ignored (tested with
    # nohup's SIGHUP), and ignored dispositions pass on to children: under
    # nohup, or in a script's background job (SIGINT), the signal tests
    # would test nothing. Give the runs the default dispositions.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    tests = [test_basics, test_formats, test_reports, test_bad_inputs, test_sigint,
             test_sigint_report, test_pipes,
             test_pipe_failure, test_pipe_open_order, test_pipe_first_frame_failure,
             test_pipe_memory, test_sigint_open,
             test_output_checks,
             test_closed_stdout, test_frame_counts,
             test_skip_all, test_no_frames, test_frame_skips, test_failed_run_keeps_report,
             test_long_paths, test_streams_and_stdout, test_duplicate_feature,
             test_threads, test_progress, test_cpumask, test_same_report,
             test_default_model]
    with tempfile.TemporaryDirectory(prefix="vmaf_cli_") as tmp:
        for t in tests:
            if a.only and a.only not in t.__name__:
                continue
            d = os.path.join(tmp, t.__name__)
            os.mkdir(d)
            t(d)
        if not a.only or a.only in "test_badinputs_dir":
            d = os.path.join(tmp, "bad")
            os.mkdir(d)
            test_badinputs_dir(d, os.path.abspath(a.badinputs))
        if a.models and (not a.only or a.only in "test_models"):
            d = os.path.join(tmp, "models")
            os.mkdir(d)
            test_models(d, a.models)
        if a.models and (not a.only or a.only in "test_model_clip_transform"):
            d = os.path.join(tmp, "model_clip_transform")
            os.mkdir(d)
            test_model_clip_transform(d, a.models)
        if a.golden and a.vectors and (not a.only or a.only in "parity"):
            d = os.path.join(tmp, "parity")
            os.mkdir(d)
            parity(d, a.golden, a.vectors, a.parity_all, a.backend)
    print(f"{checks - len(failures)}/{checks} checks passed")
    if checks == 0:
        if skips:
            return 77  # every test that ran was skipped, and said why
        print("no check ran: --only matched no test, or a data option is missing",
              file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
