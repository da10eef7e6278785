#!/usr/bin/env python3
"""Report writer tests: fill a context through the public API (report_tool),
write XML, JSON, CSV and SUB, and read them back with Python's own parsers.

Usage: test_output.py REPORT_TOOL CASE   (exit 0 pass, 1 fail, 77 skip)
"""
import csv
import errno
import io
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TOOL = None
FAILURES = []
POOLS = ("min", "max", "mean", "harmonic_mean")


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


class Skip(Exception):
    pass


def hexs(s):
    if isinstance(s, str):
        s = s.encode("utf-8", "surrogateescape")
    return s.hex() or "00"  # "00" decodes to the empty string


def make_file(path, text, mode=None, owner=None):
    """Creates path holding text, with mode and (uid, gid) owner if given."""
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)
    if owner is not None:
        os.chown(path, *owner)
    return path


def run(workdir, lines, stdout=None, user=None, expect_status=0, env=None):
    """Runs report_tool on a script; returns (return values of the writes, stderr)."""
    script = os.path.join(workdir, "script.txt")
    results = os.path.join(workdir, "results.txt")
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(script, 0o644)
    with open(results, "w"):
        pass
    os.chmod(results, 0o666)

    def pre():
        os.umask(0o022)
        if user is not None:
            os.setgid(user)
            os.setuid(user)

    p = subprocess.run([TOOL, script, results], stdout=stdout or subprocess.PIPE,
                       stderr=subprocess.PIPE, preexec_fn=pre, env=env)
    if p.returncode == 77:
        raise Skip("report_tool: feature not available")
    check(p.returncode == expect_status,
          "report_tool exit %d, expected %d; stderr: %s" % (p.returncode, expect_status,
                                                             p.stderr.decode(errors="replace")))
    with open(results) as f:
        rcs = [int(x) for x in f.read().split()]
    return rcs, p.stderr.decode("utf-8", "replace"), p.stdout


def score_lines(data):
    """data: list of (name, {index: value}) in the order the scores are imported."""
    lines = []
    # Import frame by frame, first seen name first, as an extractor would.
    n = max((max(v) for _, v in data if v), default=-1) + 1
    for i in range(n):
        for name, values in data:
            if i in values:
                lines.append("score %s %d %s" % (hexs(name), i, float(values[i]).hex()
                                                 if math.isfinite(values[i]) else repr(values[i])))
    return lines


def pooled(values, indices):
    """The reference pooling: in index order, plain double arithmetic; min
    and max start from the first frame, so a NaN there is the result."""
    vals = [values[i] for i in indices]
    lo, hi, s, inv = vals[0], vals[0], 0.0, 0.0
    for v in vals:
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        s += v
        inv += 1.0 / (v + 1.0)
    return {"min": lo, "max": hi, "mean": s / len(vals),
            "harmonic_mean": len(vals) / inv - 1.0}


def strict_json(text):
    def bad_constant(name):
        raise ValueError("non-JSON constant " + name)
    return json.loads(text, parse_constant=bad_constant)


def same(a, b):
    if a is None or b is None:
        return a is b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def text_float(s):
    """How XML/CSV/SUB scores are read: Python's float() ('nan', 'inf' included)."""
    return float(s)


def expected_model(data, subsample=1, n_frames=None):
    """Frames written, per-frame metrics in order, pooled, as the reference does."""
    names = [n for n, _ in data]
    n_slots = max((max(v) + 1 for _, v in data if v), default=0)
    frames = []
    for i in range(n_slots):
        if subsample > 1 and i % subsample:
            continue
        m = [(n, v[i]) for n, v in data if i in v]
        if m:
            frames.append((i, m))
    n_pool = n_frames if n_frames is not None else n_slots
    grid = [i for i in range(n_pool) if not (subsample > 1 and i % subsample)]
    pools = {}
    for n, v in data:
        pools[n] = pooled(v, grid) if grid and all(i in v for i in grid) else None
    return names, frames, pools


def fmt_value(v, fmt, json_mode):
    if not math.isfinite(v):
        if json_mode:
            return None
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return fmt % v


def parse_reports(d, base, xml=True):
    out = {}
    with open(os.path.join(d, base + ".json"), encoding="utf-8") as f:
        out["json"] = strict_json(f.read())
    if xml:
        out["xml"] = ET.parse(os.path.join(d, base + ".xml")).getroot()
    with open(os.path.join(d, base + ".csv"), newline="", encoding="utf-8",
              errors="surrogateescape") as f:
        out["csv"] = list(csv.reader(f))
    with open(os.path.join(d, base + ".sub"), encoding="utf-8", errors="surrogateescape") as f:
        out["sub"] = f.read()
    return out


def verify(d, base, data, fmt="%.6f", subsample=1, xml=True, sub_name=None, json_name=None):
    """Parses the four reports written under d/base.* and compares every value."""
    names, frames, pools = expected_model(data, subsample)
    sub_name = sub_name or (lambda n: n)
    json_name = json_name or (lambda n: n)
    r = parse_reports(d, base, xml)

    def want(v, json_mode):
        t = fmt_value(v, fmt, json_mode)
        if t is None:
            return None
        return float(t)

    # JSON
    j = r["json"]
    check(list(j.keys()) == ["version", "fps", "frames", "pooled_metrics", "aggregate_metrics"],
          "JSON top-level keys %s" % list(j.keys()))
    check(isinstance(j["version"], str) and j["version"], "JSON version")
    check([fr["frameNum"] for fr in j["frames"]] == [i for i, _ in frames],
          "JSON frame numbers %s" % [fr["frameNum"] for fr in j["frames"]])
    for fr, (i, m) in zip(j["frames"], frames):
        check(list(fr.keys()) == ["frameNum", "metrics"], "JSON frame keys")
        check(list(fr["metrics"].keys()) == [json_name(n) for n, _ in m],
              "JSON frame %d metric names %r" % (i, list(fr["metrics"].keys())))
        for (n, v), got in zip(m, fr["metrics"].values()):
            check(same(got, want(v, True)), "JSON frame %d %r: %r != %r" % (i, n, got, want(v, True)))
    check(list(j["pooled_metrics"].keys()) == [json_name(n) for n in names], "JSON pooled names")
    for n, got in zip(names, j["pooled_metrics"].values()):
        p = pools[n]
        if p is None:
            check(got == {}, "JSON pooled %r should be empty: %r" % (n, got))
            continue
        check(list(got.keys()) == list(POOLS), "JSON pooled keys %r" % list(got.keys()))
        for k in POOLS:
            check(same(got.get(k), want(p[k], True)),
                  "JSON pooled %r %s: %r != %r" % (n, k, got.get(k), want(p[k], True)))
    check(j["aggregate_metrics"] == {}, "JSON aggregate_metrics")

    # XML
    if xml:
        x = r["xml"]
        check(x.tag == "VMAF" and x.get("version") == j["version"], "XML root")
        check([c.tag for c in x] == ["params", "fyi", "frames", "pooled_metrics",
                                     "aggregate_metrics"], "XML children %s" % [c.tag for c in x])
        check(x.find("params").get("qualityWidth") is not None, "XML params")
        check(x.find("fyi").get("fps") is not None, "XML fps")
        xf = x.findall("frames/frame")
        check([int(e.get("frameNum")) for e in xf] == [i for i, _ in frames], "XML frame numbers")
        for e, (i, m) in zip(xf, frames):
            keys = list(e.attrib.keys())
            check(keys == ["frameNum"] + [n for n, _ in m], "XML frame %d attributes %r" % (i, keys))
            for n, v in m:
                check(same(text_float(e.get(n)), want(v, False)),
                      "XML frame %d %r: %r" % (i, n, e.get(n)))
        xm = x.findall("pooled_metrics/metric")
        check([e.get("name") for e in xm] == names, "XML pooled names")
        for e, n in zip(xm, names):
            p = pools[n]
            if p is None:
                check(list(e.attrib.keys()) == ["name"], "XML pooled %r should be empty" % n)
                continue
            check(list(e.attrib.keys()) == ["name"] + list(POOLS), "XML pooled attributes")
            for k in POOLS:
                check(same(text_float(e.get(k)), want(p[k], False)), "XML pooled %r %s" % (n, k))
        check(len(x.find("aggregate_metrics").attrib) == 0, "XML aggregate_metrics")

    # CSV: header "Frame,<names>," and "i,<scores>," (the trailing comma as the reference)
    c = r["csv"]
    check(c[0] == ["Frame"] + names + [""], "CSV header %r" % c[0])
    check([int(row[0]) for row in c[1:]] == [i for i, _ in frames], "CSV frame numbers")
    for row, (i, m) in zip(c[1:], frames):
        check(len(row) == len(names) + 2 and row[-1] == "", "CSV row %d width %r" % (i, row))
        mv = dict(m)
        for n, cell in zip(names, row[1:]):
            if n not in mv:
                check(cell == "", "CSV frame %d %r should be empty: %r" % (i, n, cell))
            else:
                check(cell == fmt_value(mv[n], fmt, False), "CSV frame %d %r: %r" % (i, n, cell))

    # SUB: "{i}{i+1}frame: i|name: score|...|"
    lines = r["sub"].split("\n")
    check(lines[-1] == "", "SUB ends with a newline")
    lines = lines[:-1]
    check(len(lines) == len(frames), "SUB line count %d != %d" % (len(lines), len(frames)))
    for line, (i, m) in zip(lines, frames):
        want_line = "{%d}{%d}frame: %d|" % (i, i + 1, i) + "".join(
            "%s: %s|" % (sub_name(n), fmt_value(v, fmt, False)) for n, v in m)
        check(line == want_line, "SUB line %r != %r" % (line, want_line))
    return r


def write_all(base, fmt_hex="-", formats=("xml", "json", "csv", "sub")):
    return ["write %s %s.%s %s" % (f, base, f, fmt_hex) for f in formats]


BASIC = [
    ("float_ssim", {i: 0.9 + i * 0.012345678912345 for i in range(6)}),
    ("vmaf", {i: 95.123456789 - i * 3.3 for i in range(6)}),
    ("psnr_y", {0: 1e10, 1: 1e-9, 2: -3.5, 3: 0.0, 4: 123456.0000004, 5: 2.5e-7}),
]


def case_layout(d):
    """Byte-for-byte the reference layout for a small report."""
    data = [("float_ssim", {0: 0.5, 1: 0.25})]
    b = os.path.join(d, "r")
    rcs, err, _ = run(d, ["init 1"] + score_lines(data) + write_all(b))
    check(rcs == [0, 0, 0, 0], "write results %r; %s" % (rcs, err))
    with open(b + ".json") as f:
        version = json.load(f)["version"]
    hm = "%.6f" % (2 / (1 / 1.5 + 1 / 1.25) - 1)
    want = {
        "xml": '<VMAF version="%s">\n'
               '  <params qualityWidth="0" qualityHeight="0" />\n'
               '  <fyi fps="nan" />\n'
               '  <frames>\n'
               '    <frame frameNum="0" float_ssim="0.500000" />\n'
               '    <frame frameNum="1" float_ssim="0.250000" />\n'
               '  </frames>\n'
               '  <pooled_metrics>\n'
               '    <metric name="float_ssim" min="0.250000" max="0.500000" mean="0.375000" '
               'harmonic_mean="%s" />\n'
               '  </pooled_metrics>\n'
               '  <aggregate_metrics />\n'
               '</VMAF>\n' % (version, hm),
        "json": '{\n  "version": "%s",\n  "fps": null,\n  "frames": [\n'
                '    {\n      "frameNum": 0,\n      "metrics": {\n        "float_ssim": 0.500000\n'
                '      }\n    },\n'
                '    {\n      "frameNum": 1,\n      "metrics": {\n        "float_ssim": 0.250000\n'
                '      }\n    }\n  ],\n'
                '  "pooled_metrics": {\n    "float_ssim": {\n      "min": 0.250000,\n'
                '      "max": 0.500000,\n      "mean": 0.375000,\n      "harmonic_mean": %s\n'
                '    }\n  },\n  "aggregate_metrics": {\n  }\n}\n' % (version, hm),
        "csv": "Frame,float_ssim,\n0,0.500000,\n1,0.250000,\n",
        "sub": "{0}{1}frame: 0|float_ssim: 0.500000|\n{1}{2}frame: 1|float_ssim: 0.250000|\n",
    }
    for f, text in want.items():
        with open(b + "." + f) as fh:
            got = fh.read()
        check(got == text, "%s layout differs:\n%s\n--- expected ---\n%s" % (f, got, text))


def case_roundtrip(d):
    b6 = os.path.join(d, "r6")
    bx = os.path.join(d, "rx")
    rcs, err, _ = run(d, ["init 0"] + score_lines(BASIC) + write_all(b6) +
                      write_all(bx, hexs("%.17g")))
    check(rcs == [0] * 8, "write results %r; %s" % (rcs, err))
    check(err == "", "no log on success: %r" % err)
    verify(d, "r6", BASIC)
    r = verify(d, "rx", BASIC, fmt="%.17g")
    # %.17g is exact: the JSON values are the imported doubles.
    for fr in r["json"]["frames"]:
        i = fr["frameNum"]
        for n, v in BASIC:
            check(fr["metrics"][n] == v[i], "exact %r frame %d" % (n, i))
    # Read the way existing consumers do (access patterns of easyVmaf's
    # read_scores/read_frames and ffmpeg-quality-metrics' VMAF log reader).
    names = [n for n, _ in BASIC]
    means = {n: sum(float("%.6f" % x) for x in v.values()) / len(v) for n, v in BASIC}
    with open(b6 + ".csv", newline="") as f:
        rows = list(csv.DictReader(f))
    got = {n: sum(float(row[n]) for row in rows) / len(rows) for n in names}
    check(got == means, "CSV DictReader means %r != %r" % (got, means))
    check([int(row["Frame"]) for row in rows] == list(range(6)), "CSV Frame column")
    frames = ET.parse(b6 + ".xml").getroot().findall("frames/frame")
    got = {n: sum(float(e.attrib[n]) for e in frames) / len(frames) for n in names}
    check(got == means, "XML frames/frame means %r" % got)
    with open(b6 + ".json") as f:
        log = json.load(f)
    per_frame = []
    for fr in log["frames"]:
        fr["metrics"]["n"] = int(fr["frameNum"]) + 1
        per_frame.append(fr["metrics"])
    keys = [k for k in per_frame[0] if k != "n"]
    check(keys == names and [m["n"] for m in per_frame] == list(range(1, 7)), "JSON consumer keys")
    got = {k: sum(float(m[k]) for m in per_frame) / len(per_frame) for k in keys}
    check(got == means, "JSON metrics means %r" % got)
    check(set(log["pooled_metrics"]["vmaf"]) == set(POOLS), "JSON pooled_metrics.vmaf")
    # New files get 0666 & ~umask (umask 022 in run()), like fopen would.
    check(stat.S_IMODE(os.stat(b6 + ".json").st_mode) == 0o644,
          "mode %o" % stat.S_IMODE(os.stat(b6 + ".json").st_mode))
    # Nothing but the reports is left in the directory (no temporary files).
    left = sorted(f for f in os.listdir(d) if not f.endswith(".txt"))
    check(left == sorted("r%s.%s" % (p, f) for p in "6x" for f in ("xml", "json", "csv", "sub")),
          "files left: %r" % left)


ESCAPE_NAMES = ['q"uote', "back\\slash", "lt<gt>", "amp&", "apos'", "comma,sep", "new\nline",
                "ctl\x01x", "tab\tx", "café", "pipe|x", " spaced ", "del\x7f",
                b"bad\xff".decode("utf-8", "surrogateescape")]


def case_escaping(d):
    data = [(n, {0: 0.1 * k, 1: 0.2 * k}) for k, n in enumerate(ESCAPE_NAMES)]
    b = os.path.join(d, "e")
    with open(b + ".xml", "w") as f:
        f.write("keep")
    rcs, err, _ = run(d, ["init 1"] + score_lines(data) + write_all(b))
    # Such names cannot be XML attribute names: XML is refused before the
    # target is touched; the other formats carry them.
    check(rcs == [-errno.EINVAL, 0, 0, 0], "write results %r" % rcs)
    with open(b + ".xml") as f:
        check(f.read() == "keep", "XML target preserved after refusal")
    check(err.count("libvmaf: error:") == 1 and "XML" in err and "JSON" in err,
          "one error suggesting JSON/CSV: %r" % err)
    sub_name = lambda n: re.sub(r"[|\x00-\x1f\x7f]", "_", n)
    json_name = lambda n: n.replace("\udcff", "\ufffd")
    verify(d, "e", data, xml=False, sub_name=sub_name, json_name=json_name)

    # Names XML can carry, non-ASCII ones included.
    ok = [("café", {0: 1.0}), ("a.b-c_d9", {0: 2.0}), ("Ωmega", {0: 3.0}), ("_x", {0: 4.0})]
    rcs, err, _ = run(d, ["init 1"] + score_lines(ok) + write_all(os.path.join(d, "ok")))
    check(rcs == [0] * 4, "XML-safe names %r; %s" % (rcs, err))
    verify(d, "ok", ok)
    # Model-file feature names are written under the reference's aliases.
    al = [("'VMAF_feature_adm2_score'", {0: 0.75}), ("'VMAF_integer_feature_motion2_score'", {0: 2.0})]
    rcs, err, _ = run(d, ["init 1"] + score_lines(al) + write_all(os.path.join(d, "al")))
    check(rcs == [0] * 4, "aliased names %r; %s" % (rcs, err))
    alias = {"'VMAF_feature_adm2_score'": "adm2", "'VMAF_integer_feature_motion2_score'": "integer_motion2"}
    verify(d, "al", [(alias[n], v) for n, v in al])
    # Names XML cannot carry, each refused alone with a clear message.
    # (An empty name cannot get this far: vmaf_import_feature_score refuses it.)
    for bad in ["9lives", "ns:name", "frameNum", "sp ace", "-dash", "two\nlines"]:
        rcs, err, _ = run(d, ["init 1", "score %s 0 1.0" % hexs(bad),
                              "write xml %s -" % os.path.join(d, "bad.xml")])
        check(rcs == [-errno.EINVAL], "XML refuses %r: %r" % (bad, rcs))
        check(not os.path.exists(os.path.join(d, "bad.xml")), "no XML file for %r" % bad)
        check('"%s"' % re.sub(r"[\x00-\x1f]", "?", bad) in err, "error names %r: %r" % (bad, err))
        check(err.count("\n") == 1, "one error line for %r: %r" % (bad, err))


def case_nonfinite(d):
    nan, inf = float("nan"), float("inf")
    data = [("a", {0: nan, 1: 1.0, 2: inf, 3: -inf}),
            ("b", {0: 1.0, 1: 2.0, 2: 3.0, 3: 4.0}),
            ("c", {0: inf, 1: 0.5, 2: 0.5, 3: 0.5}),
            ("d", {0: nan, 1: nan, 2: nan, 3: nan})]
    b = os.path.join(d, "n")
    rcs, err, _ = run(d, ["init 1"] + score_lines(data) + write_all(b) +
                      write_all(os.path.join(d, "nx"), hexs("%.17g")))
    check(rcs == [0] * 8, "write results %r; %s" % (rcs, err))
    r = verify(d, "n", data)
    verify(d, "nx", data, fmt="%.17g")
    with open(b + ".json") as f:
        text = f.read()
    check("NaN" not in text and "Infinity" not in text and "null" in text, "JSON uses null")
    check(r["json"]["fps"] is None, "fps unknown without pictures: null")
    check(r["xml"].find("fyi").get("fps") == "nan", "XML fps nan")
    # Pooled min/max start from the first frame: NaN there gives NaN (not
    # the 1 a comparison from +inf finds), and all-NaN is NaN, not +-inf.
    seen = set()
    for m in r["xml"].iter("metric"):
        if m.get("name") in ("a", "d") and m.get("min") is not None:
            seen.add(m.get("name"))
            check(m.get("min") == "nan" and m.get("max") == "nan",
                  "XML pooled %s min/max nan: %r" % (m.get("name"), m.attrib))
    check(seen == {"a", "d"}, "XML pooled metrics a and d present: %r" % seen)


def case_subsample(d):
    data = [("a", {i: i / 8.0 for i in range(9)}),
            ("b", {0: 1.5, 3: 2.5, 6: 3.5}),
            ("c", {1: 7.0})]  # off the grid: listed, never printed
    b = os.path.join(d, "s")
    rcs, err, _ = run(d, ["init 3"] + score_lines(data) + write_all(b))
    check(rcs == [0] * 4, "write results %r; %s" % (rcs, err))
    r = verify(d, "s", data, subsample=3)
    check([f["frameNum"] for f in r["json"]["frames"]] == [0, 3, 6], "subsampled frames")
    # The first frame written need not be 0; JSON stays valid (the reference's is not).
    data = [("a", {2: 1.0, 3: 2.0}), ("b", {3: 5.0})]
    rcs, err, _ = run(d, ["init 1"] + score_lines(data) + write_all(os.path.join(d, "g")))
    check(rcs == [0] * 4, "write results %r; %s" % (rcs, err))
    verify(d, "g", data)
    # An empty context writes empty but valid reports.
    rcs, err, _ = run(d, ["init 1"] + write_all(os.path.join(d, "z")))
    check(rcs == [0] * 4, "empty write results %r; %s" % (rcs, err))
    r = verify(d, "z", [])
    check(r["json"]["frames"] == [] and r["json"]["pooled_metrics"] == {}, "empty JSON")
    check(os.path.getsize(os.path.join(d, "z.sub")) == 0, "empty SUB")


def case_faults(d):
    data = score_lines(BASIC)
    # /dev/full: every format fails with ENOSPC and one error naming the path.
    for f in ("xml", "json", "csv", "sub"):
        rcs, err, _ = run(d, ["init 1"] + data + ["write %s /dev/full -" % f])
        check(rcs == [-errno.ENOSPC], "/dev/full %s: %r" % (f, rcs))
        check(err.count("libvmaf: error:") == 1 and "/dev/full" in err,
              "/dev/full error line: %r" % err)
    # /dev/null is a device too: written directly, succeeds, stays a device.
    rcs, err, _ = run(d, ["init 1"] + data + ["write json /dev/null -"])
    check(rcs == [0] and stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null %r" % rcs)
    # A directory.
    sub = os.path.join(d, "adir")
    os.mkdir(sub)
    rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % sub])
    check(rcs == [-errno.EISDIR], "directory: %r" % rcs)
    check(os.listdir(sub) == [] and sub in err and "directory" in err, "directory: %r" % err)
    # A missing directory.
    rcs, err, _ = run(d, ["init 1"] + data + ["write json %s/none/x.json -" % d])
    check(rcs == [-errno.ENOENT] and "none/x.json" in err, "missing dir: %r %r" % (rcs, err))
    # A failure half-way (file size limit): the existing target keeps its
    # content and no temporary file is left.
    fdir = os.path.join(d, "full")
    os.mkdir(fdir)
    target = os.path.join(fdir, "keep.json")
    with open(target, "w") as f:
        f.write("precious input")
    for f in ("json", "xml", "csv", "sub"):
        rcs, err, _ = run(d, ["init 1"] + data + ["fsize 100", "write %s %s -" % (f, target)])
        check(rcs == [-errno.EFBIG], "size limit %s: %r" % (f, rcs))
        check(err.count("libvmaf: error:") == 1 and target in err, "size limit error: %r" % err)
        with open(target) as fh:
            check(fh.read() == "precious input", "target preserved (%s)" % f)
        check(os.listdir(fdir) == ["keep.json"], "no temporary left: %r" % os.listdir(fdir))
    # An append-only directory (chattr +a): its temporary file could be
    # created but neither renamed nor removed, so the write is refused
    # before anything is created. Needs root and a file system with the
    # flag; otherwise this part is skipped, saying so.
    adir = os.path.join(d, "append_only")
    os.mkdir(adir)
    if subprocess.run(["chattr", "+a", adir], capture_output=True).returncode == 0:
        try:
            rcs, err, _ = run(d, ["init 1"] + data + ["write json %s/r.json -" % adir])
            check(rcs == [-errno.EPERM] and err.count("libvmaf: error:") == 1
                  and "append-only" in err, "append-only directory: %r %r" % (rcs, err))
            check(os.listdir(adir) == [], "append-only: left %r" % os.listdir(adir))
        finally:
            subprocess.run(["chattr", "-a", adir], capture_output=True)
    else:
        print("faults: chattr +a not possible here; the append-only case is skipped",
              file=sys.stderr)
    # Bad formats.
    for fmt in ("0", "5", "-1"):
        rcs, err, _ = run(d, ["init 1"] + data + ["write %s %s/bad.out -" % (fmt, d)])
        check(rcs == [-errno.EINVAL] and not os.path.exists(d + "/bad.out"),
              "format %s: %r" % (fmt, rcs))
        check("format" in err, "format error names the problem: %r" % err)
    # Overwriting keeps the file's mode; a symlink stays a link to the new report.
    real = os.path.join(d, "real.json")
    with open(real, "w") as f:
        f.write("old")
    os.chmod(real, 0o640)
    link = os.path.join(d, "link.json")
    os.symlink("real.json", link)
    rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % link])
    check(rcs == [0], "symlink write %r; %s" % (rcs, err))
    check(os.path.islink(link) and strict_json(open(real).read())["frames"], "symlink target")
    check(stat.S_IMODE(os.stat(real).st_mode) == 0o640, "mode kept")
    # A file with a second hard link: both names see the new report (one
    # inode, written in place once complete), no temporary file is left.
    hdir = os.path.join(d, "hard")
    os.mkdir(hdir)
    first = make_file(os.path.join(hdir, "a.json"), "old")
    second = os.path.join(hdir, "b.json")
    os.link(first, second)
    rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % first])
    check(rcs == [0] and os.stat(first).st_ino == os.stat(second).st_ino and
          strict_json(open(second).read())["frames"], "hard link: %r %s" % (rcs, err))
    check(sorted(os.listdir(hdir)) == ["a.json", "b.json"], "hard link: no temporary left: %r" %
          os.listdir(hdir))
    if os.geteuid() == 0:
        # Another owner: kept, whether the writer may give the file to them
        # (root: renamed over) or not (nobody: written in place).
        odir = os.path.join(d, "owned")
        os.mkdir(odir)
        os.chmod(odir, 0o777)
        theirs = make_file(os.path.join(odir, "theirs.json"), "old", owner=(65534, 65534))
        rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % theirs])
        st = os.stat(theirs)
        check(rcs == [0] and (st.st_uid, st.st_gid) == (65534, 65534) and
              strict_json(open(theirs).read())["frames"], "owner kept (root): %r %s" % (rcs, err))
        roots = make_file(os.path.join(odir, "roots.json"), "old", mode=0o666)
        rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % roots], user=65534)
        st = os.stat(roots)
        check(rcs == [0] and st.st_uid == 0 and strict_json(open(roots).read())["frames"],
              "owner kept (nobody writing root's file): %r %s" % (rcs, err))
        # Write-only and hard-linked, written by its owner: copied in place
        # from the temporary file, which that mode would not let it reopen.
        wo = make_file(os.path.join(odir, "wo.json"), "old", mode=0o200, owner=(65534, 65534))
        os.link(wo, os.path.join(odir, "wo_link.json"))
        rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % wo], user=65534)
        check(rcs == [0] and strict_json(open(os.path.join(odir, "wo_link.json")).read())["frames"]
              and stat.S_IMODE(os.stat(wo).st_mode) == 0o200,
              "write-only hard-linked file: %r %s" % (rcs, err))
        check(sorted(os.listdir(odir)) == ["roots.json", "theirs.json", "wo.json", "wo_link.json"],
              "owners: no temporary left: %r" % os.listdir(odir))
        # A file bind-mounted on its own (a container's -v file:file) cannot
        # be renamed over (EBUSY): written in place. Needs mount rights.
        src, mnt = os.path.join(d, "bind_src.json"), os.path.join(d, "bind_dst.json")
        for path in (src, mnt):
            make_file(path, "old")
        if subprocess.run(["mount", "--bind", src, mnt], stderr=subprocess.DEVNULL).returncode:
            print("skipping the bind-mount check: mount --bind is not permitted here",
                  file=sys.stderr)
        else:
            try:
                rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % mnt])
                check(rcs == [0] and strict_json(open(src).read())["frames"],
                      "bind-mounted file: %r %s" % (rcs, err))
            finally:
                subprocess.run(["umount", mnt])
            check(not [n for n in os.listdir(d) if n.startswith(".bind_dst")],
                  "bind mount: no temporary left")
    else:
        print("skipping the checks of other owners' files and of bind mounts: they need root",
              file=sys.stderr)
    # A dangling symlink: the report is created where the link points (a
    # relative target relative to the link's directory, through a chain of
    # links), the link stays a link, and no temporary file is left.
    ldir = os.path.join(d, "links")
    os.mkdir(ldir)
    os.mkdir(os.path.join(ldir, "out"))
    dangling = os.path.join(ldir, "dangling.json")
    os.symlink("out/new.json", dangling)
    rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % dangling])
    made = os.path.join(ldir, "out", "new.json")
    check(rcs == [0], "dangling symlink write %r; %s" % (rcs, err))
    check(os.path.islink(dangling) and os.readlink(dangling) == "out/new.json",
          "dangling symlink kept as a link")
    check(os.path.isfile(made) and strict_json(open(made).read())["frames"],
          "dangling symlink target written")
    check(sorted(os.listdir(ldir)) == ["dangling.json", "out"] and
          os.listdir(os.path.join(ldir, "out")) == ["new.json"], "no temporary left: %r" %
          os.listdir(ldir))
    chain = os.path.join(ldir, "chain.json")
    os.symlink(os.path.join(ldir, "abs.json"), chain)
    os.symlink("out/chained.json", os.path.join(ldir, "abs.json"))
    rcs, err, _ = run(d, ["init 1"] + data + ["write csv %s -" % chain])
    check(rcs == [0] and os.path.islink(chain) and os.path.islink(ldir + "/abs.json") and
          os.path.isfile(ldir + "/out/chained.json"), "chain of dangling links %r %s" %
          (rcs, err))
    # Into a missing directory: refused like any missing directory; the link stays.
    nowhere = os.path.join(ldir, "nowhere.json")
    os.symlink("missing/x.json", nowhere)
    rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % nowhere])
    check(rcs == [-errno.ENOENT] and os.path.islink(nowhere), "link to a missing dir %r" % rcs)
    # Permissions: an unwritable directory and a read-only file. Root may
    # write anywhere, so as root these run as nobody.
    user = None
    if os.geteuid() == 0:
        user = 65534
    locked = os.path.join(d, "locked")
    os.mkdir(locked)
    os.chmod(d, 0o755)
    ro = make_file(os.path.join(locked, "ro.json"), "read only", mode=0o444)
    os.chmod(locked, 0o555)
    if user is None and (os.access(locked, os.W_OK) or os.access(ro, os.W_OK)):
        print("skipping permission checks: this user can write anyway", file=sys.stderr)
    else:
        rcs, err, _ = run(d, ["init 1"] + data + ["write json %s/new.json -" % locked],
                          user=user)
        check(rcs == [-errno.EACCES], "unwritable dir: %r" % rcs)
        check(not os.path.exists(locked + "/new.json") and locked in err, "unwritable: %r" % err)
        rcs, err, _ = run(d, ["init 1"] + data + ["write json %s -" % ro], user=user)
        check(rcs == [-errno.EACCES], "read-only file: %r" % rcs)
        check(open(ro).read() == "read only" and ro in err, "read-only kept: %r" % err)
    os.chmod(locked, 0o755)


def case_sync_faults(d):
    """fsync fails (the disk lost data): the report is an error, the existing
    target keeps its content and no temporary file is left; a file system
    without fsync (EINVAL) is no error. report_tool makes fsync fail where
    the linker could wrap it (else this case is skipped)."""
    data = score_lines(BASIC)
    fdir = os.path.join(d, "sync")
    os.mkdir(fdir)
    target = os.path.join(fdir, "keep.json")
    with open(target, "w") as f:
        f.write("precious input")
    rcs, err, _ = run(d, ["init 1"] + data + ["syncfail %d" % errno.EIO,
                                              "write json %s -" % target])
    check(rcs == [-errno.EIO], "fsync EIO: %r" % rcs)
    check(err.count("libvmaf: error:") == 1 and target in err, "fsync error line: %r" % err)
    with open(target) as fh:
        check(fh.read() == "precious input", "fsync EIO: target preserved")
    check(os.listdir(fdir) == ["keep.json"], "fsync EIO: no temporary left: %r" %
          os.listdir(fdir))
    rcs, err, _ = run(d, ["init 1"] + data + ["syncfail %d" % errno.EINVAL,
                                              "write json %s -" % target])
    with open(target) as fh:
        check(rcs == [0] and strict_json(fh.read())["frames"],
              "no fsync on this file system: %r %s" % (rcs, err))
    # A hard-linked target is copied in place from the synced temporary file:
    # a failing sync of the copy is an error that says the file may hold an
    # incomplete report, and the link stays one.
    linked = os.path.join(fdir, "linked.json")
    os.link(target, linked)
    rcs, err, _ = run(d, ["init 1"] + data + ["syncfail %d 1" % errno.EIO,
                                              "write json %s -" % target])
    check(rcs == [-errno.EIO] and "in place" in err and "incomplete report" in err and
          err.count("libvmaf: error:") == 1, "fsync EIO in place: %r %s" % (rcs, err))
    check(os.stat(target).st_ino == os.stat(linked).st_ino and
          sorted(os.listdir(fdir)) == ["keep.json", "linked.json"],
          "fsync EIO in place: the link kept, no temporary left: %r" % os.listdir(fdir))


def case_score_format(d):
    data = [("x", {0: 0.5, 1: 1234.56789, 2: -0.000123456, 3: 1e300, 4: 0.0})]
    lines = ["init 1"] + score_lines(data)
    bad = ["", "%", "%%", "%d", "%s", "%n", "%lf", "%Lf", "%F", "%a", "%*f", "%.*f",
           "%.6f%s", "x%.6f", "%.6f ", "%100f", "%.100f", "%1$f", "%.6f\n", "%-"]
    for i, fmt in enumerate(bad):
        lines.append("write json %s/bad%d.json %s" % (d, i, hexs(fmt)))
    good = ["%.6f", "%.17g", "%e", "%g", "%f", "%.f", "%+08.3f", "%#.0f", "%#.0e", "% g",
            "%-12.4f", "%012.2e", "%#g", "%99.99f"]
    for i, fmt in enumerate(good):
        base = "%s/good%d" % (d, i)
        lines += write_all(base, hexs(fmt), ("json", "csv", "xml"))
    rcs, err, _ = run(d, lines)
    check(rcs[:len(bad)] == [-errno.EINVAL] * len(bad), "bad formats: %r" % rcs[:len(bad)])
    check(err.count("libvmaf: error:") == len(bad), "one error per bad format")
    for i in range(len(bad)):
        check(not os.path.exists("%s/bad%d.json" % (d, i)), "no file for bad format %d" % i)
    check(rcs[len(bad):] == [0] * (3 * len(good)), "good formats: %r" % rcs[len(bad):])
    for i, fmt in enumerate(good):
        base = "%s/good%d" % (d, i)
        with open(base + ".json") as f:
            j = strict_json(f.read())   # flags such as '+', '0', '#' still give JSON numbers
        got = [fr["metrics"]["x"] for fr in j["frames"]]
        want = [float(fmt % v) for v in data[0][1].values()]
        check(got == want, "format %r JSON: %r != %r" % (fmt, got, want))
        with open(base + ".csv", newline="") as f:
            rows = list(csv.reader(f))
        check([r[1] for r in rows[1:]] == [fmt % v for v in data[0][1].values()],
              "format %r CSV text" % fmt)
        x = ET.parse(base + ".xml").getroot()
        check([e.get("x") for e in x.findall("frames/frame")] ==
              [fmt % v for v in data[0][1].values()], "format %r XML text" % fmt)


def case_stdout(d):
    rcs, err, out = run(d, ["init 1"] + score_lines(BASIC) + ["write json - -"])
    check(rcs == [0], "stdout write %r; %s" % (rcs, err))
    j = strict_json(out.decode())
    check(len(j["frames"]) == 6, "stdout JSON frames")
    check(not os.path.exists(os.path.join(d, "-")), "no file named '-'")
    with open("/dev/full", "wb") as full:
        rcs, err, _ = run(d, ["init 1"] + score_lines(BASIC) + ["write xml - -"], stdout=full)
    check(rcs == [-errno.ENOSPC], "stdout on /dev/full: %r" % rcs)
    check(err.count("libvmaf: error:") == 1 and "stdout" in err, "stdout error: %r" % err)


def case_pictures(d):
    """Scores from real frames: picture size and fps come from the context."""
    b = os.path.join(d, "p")
    rcs, err, _ = run(d, ["init 1", "pictures 3 64 48"] + write_all(b))
    check(rcs == [0] * 4, "write results %r; %s" % (rcs, err))
    r = parse_reports(d, "p")
    x, j = r["xml"], r["json"]
    check(x.find("params").get("qualityWidth") == "64" and
          x.find("params").get("qualityHeight") == "48", "XML picture size")
    check(isinstance(j["fps"], float) and j["fps"] > 0, "JSON fps %r" % j["fps"])
    check(float(x.find("fyi").get("fps")) > 0, "XML fps")
    check([f["frameNum"] for f in j["frames"]] == [0, 1, 2], "frames")
    check(all("float_ssim" in f["metrics"] for f in j["frames"]), "float_ssim scores")
    check(set(j["pooled_metrics"]["float_ssim"]) == set(POOLS), "pooled float_ssim")


def case_locale(d):
    """An application locale with a decimal comma does not change the reports."""
    if not shutil.which("localedef"):
        raise Skip("localedef not installed")
    loc = os.path.join(d, "locales")
    os.mkdir(loc)
    p = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(loc, "de_DE.UTF-8")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1) or not os.path.isdir(os.path.join(loc, "de_DE.UTF-8")):
        raise Skip("cannot build the de_DE locale: %s" % p.stderr.decode(errors="replace"))
    env = dict(os.environ, LOCPATH=loc)
    b = os.path.join(d, "l")
    # The locale is set after the scores are imported: report_tool reads them with strtod.
    rcs, err, _ = run(d, ["init 1"] + score_lines(BASIC) + ["locale de_DE.UTF-8"] +
                      write_all(b) + write_all(b + "x", hexs("%.17g")), env=env)
    check("formats 0.5 as 0,5" in err, "the locale is in effect: %r" % err)
    check(rcs == [0] * 8, "write results %r" % rcs)
    verify(d, "l", BASIC)
    verify(d, "lx", BASIC, fmt="%.17g")


def case_leaks(d):
    # Under a sanitizer build, ASan/LSan check the run themselves (valgrind
    # cannot run such a binary); otherwise valgrind does.
    with open(TOOL, "rb") as f:
        image = f.read()
    if b"__tsan_init" in image:
        raise Skip("a ThreadSanitizer build has no leak checker and valgrind cannot run it")
    asan = b"__asan_init" in image
    vg = shutil.which("valgrind")
    if not asan and not vg:
        raise Skip("valgrind not installed")
    checker = [] if asan else [vg, "-q", "--leak-check=full",
                               "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99"]
    script = os.path.join(d, "script.txt")
    results = os.path.join(d, "results.txt")
    lines = (["init 2"] + score_lines(BASIC) + write_all(os.path.join(d, "v")) +
             ["write json /dev/full -", "write json %s -" % d, "write xml %s/x/y.xml -" % d,
              "write json %s/v.json %s" % (d, hexs("%d")),
              "score %s 0 1.0" % hexs("a<b"), "write xml %s/v.xml -" % d,
              "fsize 100", "write json %s/v.json -" % d])
    with open(script, "w") as f:
        f.write("\n".join(lines) + "\n")
    p = subprocess.run(checker + [TOOL, script, results],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0, "checked run exit %d: %s" % (p.returncode, p.stderr.decode()[-3000:]))
    with open(results) as f:
        rcs = [int(x) for x in f.read().split()]
    check(rcs == [0, 0, 0, 0, -errno.ENOSPC, -errno.EISDIR, -errno.ENOENT, -errno.EINVAL,
                  -errno.EINVAL, -errno.EFBIG], "results under valgrind %r" % rcs)


CASES = {n[5:].replace("_", "-"): f for n, f in globals().items() if n.startswith("case_")}


def main():
    global TOOL
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print("usage: test_output.py REPORT_TOOL {%s}" % ",".join(CASES), file=sys.stderr)
        return 2
    TOOL = os.path.abspath(sys.argv[1])
    d = tempfile.mkdtemp(prefix="vmaf-output-")
    os.chmod(d, 0o755)
    try:
        CASES[sys.argv[2]](d)
    except Skip as e:
        print("SKIP:", e, file=sys.stderr)
        return 77
    finally:
        for root, dirs, _ in os.walk(d):
            for x in dirs:
                os.chmod(os.path.join(root, x), 0o755)
        shutil.rmtree(d, ignore_errors=True)
    if FAILURES:
        print("%d check(s) failed" % len(FAILURES), file=sys.stderr)
        return 1
    print("all checks passed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
