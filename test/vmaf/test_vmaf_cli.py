#!/usr/bin/env python3
"""Every run of golden_vmaf.json through the vmaf command line, as the
reference ran it (its arguments, model files from test/data/vmaf/models):
each per-frame and pooled value of the JSON report must equal the
reference's (printed %.17g, read back as doubles; --precision max prints
them round-trip exact), frames must carry the reference's keys in its
order, and the XML report the same attributes in the same order. The
built-in default model (no -m) must give the vmaf_v0.6.1 run's scores.
The reference's probes (option values it refuses or lets pass silently)
must be refused in one line that names the option; a feature name given
for its extractor (--feature integer_adm) is this library's extension and
scores.

usage: test_vmaf_cli.py VMAF GOLDEN VECTOR_DIR MODEL_DIR [--threads N] [--only ID]
                        [--backend cpu|cuda|auto] [--runs NAME,...]
GOLDEN is golden_vmaf.json or golden_metrics.json (whose aggregate values,
apsnr, are compared too); --runs takes only the named runs.
Ends with "N/N checks passed"; exit status 0 when nothing failed.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

checks = 0
failures = []


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        if len(failures) <= 40:
            print("FAIL " + what, file=sys.stderr)
    return cond


def args_of(run, model_dir):
    """The run's arguments with the reference tree's model paths mapped."""
    out = []
    for a in run["args"]:
        if a.startswith("path=model/"):
            a = "path=" + os.path.join(model_dir, os.path.basename(a[len("path="):]))
        out.append(a)
    return out


def score(vmaf, v, vdir, extra, out, fmt="--json"):
    geo = ["-w", str(v["w"]), "-h", str(v["h"]), "-p", str(v["fmt"]), "-b", str(v["bpc"])]
    cmd = [vmaf, "-r", os.path.join(vdir, v["ref"]), "-d", os.path.join(vdir, v["dis"])] + geo
    cmd += ["-q", fmt, "--precision", "max", "-o", out] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr


def exact(run, metric):
    return run["exact"] or metric not in run.get("inexact_metrics", []) and \
        "(all)" not in run.get("inexact_metrics", [])


def compare(what, run, doc):
    frames = doc.get("frames", [])
    if not check(len(frames) == len(run["frames"]), f"{what}: {len(frames)} frames"):
        return
    for i, want in enumerate(run["frames"]):
        got = frames[i]["metrics"]
        check(list(got) == list(want), f"{what} frame {i}: keys {list(got)} != {list(want)}")
        for key, val in want.items():
            g = got.get(key)
            if exact(run, key):
                check(val is None or g == val, f"{what} frame {i} {key}: {g!r} != {val!r}")
            else:  # the reference overflows there; this library gives a number
                check(isinstance(g, (int, float)), f"{what} frame {i} {key}: {g!r} not finite")
    for key, pooled in run.get("pooled", {}).items():
        for how, val in pooled.items():
            g = doc.get("pooled_metrics", {}).get(key, {}).get(how)
            if exact(run, key):
                check(val is None or g == val, f"{what} pooled {key} {how}: {g!r} != {val!r}")
    got = doc.get("aggregate_metrics", {})
    want = run.get("aggregate", {})
    check(list(got) == list(want), f"{what}: aggregate keys {list(got)} != {list(want)}")
    for key, val in want.items():
        check(got.get(key) == val, f"{what} aggregate {key}: {got.get(key)!r} != {val!r}")


def compare_xml(what, run, path):
    root = ET.parse(path).getroot()
    frames = root.find("frames")
    f0 = frames[0].attrib if frames is not None and len(frames) else {}
    keys = [k for k in f0 if k != "frameNum"]
    check(keys == list(run["frames"][0]), f"{what} XML keys {keys} != {list(run['frames'][0])}")
    agg = root.find("aggregate_metrics")
    got = {k: float(v) for k, v in (agg.attrib if agg is not None else {}).items()}
    want = run.get("aggregate", {})
    check(list(got) == list(want) and all(got[k] == v for k, v in want.items()),
          f"{what} XML aggregate {got} != {want}")


def probe_setting(args):
    """The --feature or -m argument of a probe."""
    for i, arg in enumerate(args[:-1]):
        if arg in ("--feature", "-m"):
            return args[i + 1]
    return ""


def probe_key(setting):
    """The option a probe sets ("adm=adm_csf_mode=4" -> adm_csf_mode;
    "path=x.json:adm.adm_norm_view_dist=1.0" -> adm_norm_view_dist), or None
    for a bare name."""
    last = setting.split(":")[-1]
    if last.count("=") < (2 if ":" not in setting else 1):
        return None
    return last.split("=")[-2].split(".")[-1]


def check_probes(a, v, out):
    """The option probes; those of input layouts ('input': the reference
    crashes on the files as stored) are the golden runs themselves here."""
    for probe in v.get("probes", []):
        if "input" in probe:
            continue
        args = args_of(probe, a.models)
        setting = probe_setting(args)
        key = probe_key(setting)
        what = f"{v['id']} probe {setting} (reference: {probe['outcome']})"
        if os.path.exists(out):
            os.remove(out)
        rc, se = score(a.vmaf, v, a.vectors, args, out)
        lines = [l for l in se.splitlines() if l.strip()]
        if key is None:
            check(rc == 0, f"{what}: exit {rc}: {se.strip()}")
        else:
            check(rc != 0 and len(lines) == 1 and key in se and not os.path.exists(out),
                  f"{what}: exit {rc}, want a refusal in one line naming {key}: {se!r}")


def gpu_usable(a, v, out):
    """Whether --backend cuda runs here (exit 6 when there is no usable GPU,
    or no CUDA in the build): a SKIP then, unless VMAF_TEST_REQUIRE_GPU."""
    rc, se = score(a.vmaf, v, a.vectors, ["-n", "--feature", "motion", "--frame_cnt", "1",
                                          "--backend", "cuda"], out)
    if rc != 6:
        return True
    if os.environ.get("VMAF_TEST_REQUIRE_GPU", "0") not in ("", "0"):
        check(False, f"--backend cuda: exit 6 with VMAF_TEST_REQUIRE_GPU set: {se.strip()}")
        return True
    print(f"SKIP: --backend cuda needs a usable GPU: {se.strip()}")
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vmaf")
    ap.add_argument("golden")
    ap.add_argument("vectors")
    ap.add_argument("models")
    ap.add_argument("--threads")
    ap.add_argument("--only")
    ap.add_argument("--backend", help="passed to every run (cuda: the twins score)")
    ap.add_argument("--runs", help="comma-separated run names: only these (and no probes)")
    a = ap.parse_args()
    g = json.load(open(a.golden))
    extra = ["--threads", a.threads] if a.threads else []
    extra += ["--backend", a.backend] if a.backend else []
    with tempfile.TemporaryDirectory(prefix="vmaf_cli_parity_") as tmp:
        out = os.path.join(tmp, "out.json")
        if a.backend == "cuda" and not gpu_usable(a, g["vectors"][0], out):
            return 77
        for v in g["vectors"]:
            if a.only and v["id"] != a.only:
                continue
            for run in v["runs"]:
                if a.runs and run["name"] not in a.runs.split(","):
                    continue
                what = f"{v['id']} {run['name']}"
                rc, se = score(a.vmaf, v, a.vectors, args_of(run, a.models) + extra, out)
                if run.get("absent_features"):
                    # The reference drops a failing extractor's outputs (and
                    # others of that frame) without failing; this tool refuses
                    # the input in one line naming the extractor.
                    failed = run["absent_features"][0]
                    lines = [l for l in se.splitlines() if l.strip()]
                    check(rc != 0 and len(lines) == 1 and failed in se,
                          f"{what}: want a refusal naming {failed}: exit {rc}: {se.strip()}")
                    continue
                if check(rc == 0, f"{what}: exit {rc}: {se.strip()}"):
                    compare(what, run, json.load(open(out)))
                if run["name"] == "vmaf_v0.6.1":
                    # The built-in default model is the same model.
                    rc, se = score(a.vmaf, v, a.vectors, ["--cpumask", "255"] + extra, out)
                    if check(rc == 0, f"{what} (default model): exit {rc}: {se.strip()}"):
                        compare(what + " (default model)", run, json.load(open(out)))
                if (run["name"] == "debug_all" or run.get("aggregate")) and \
                        v["id"] in ("v01", "v10"):
                    xml = os.path.join(tmp, "out.xml")
                    rc, se = score(a.vmaf, v, a.vectors, args_of(run, a.models), xml, "--xml")
                    if check(rc == 0, f"{what} (XML): exit {rc}: {se.strip()}"):
                        compare_xml(what, run, xml)
            if not a.runs:
                check_probes(a, v, out)
    print(f"{checks - len(failures)}/{checks} checks passed")
    return 1 if failures or not checks else 0


if __name__ == "__main__":
    sys.exit(main())
