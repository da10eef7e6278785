#!/usr/bin/env python3
"""Reports: formats, precision, the summary, the backend line, a report
that is the same whatever the threads, and none after a failed run.

Run by test_cli.py (the cli_e2e test).
"""
import json
import os
import re
import xml.etree.ElementTree as ET

from clitest import (CliTestCase, ERROR_LINE, EXIT, check, expect_error, frame_bytes, json_scores,
                     progress_on_tty, run, score, write_frames, write_y4m, y4m_pair)


class Reports(CliTestCase):
    def test_reports(self):
        tmp = self.tmp
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
        # Three tiny frames: auto takes the CPU without trying CUDA, GPU or not.
        check("vmaf: backend: cpu (CUDA not used: about 0.00 s of work, less than CUDA's "
              "start-up; --backend cuda uses it anyway)\n" in auto_se,
              f"--backend auto on a short run: {auto_se!r}")
        # A feature without a twin gives the GPU nothing to do.
        rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "ciede"])
        check(rc == 0 and "vmaf: backend: cpu (CUDA not used: no feature asked for has a "
              "CUDA twin)\n" in se, f"--backend auto, ciede alone: {rc} {se!r}")
        # From a pipe the length is unknown: auto tries CUDA.
        with open(dis, "rb") as f:
            rc, so, pipe_se = run(["-r", ref, "-d", "-", "-n", "--feature", "float_ssim"],
                                  input=f.read())
        check(rc == 0 and pipe_se.count("vmaf: backend: ") == 1 and "about" not in pipe_se,
              f"--backend auto from a pipe: {rc} {pipe_se!r}")
        # -q silences that note, auto given or by default.
        for auto in (["--backend", "auto"], []):
            rc, so, se = run(base + auto + ["--json", "-o", out])
            check(rc == 0 and "backend" not in se, f"-q {' '.join(auto)}: no backend note: {rc} {se!r}")
        # The GPU suite sets VMAF_TEST_REQUIRE_GPU: there auto must pick CUDA,
        # and the GPU twin and --backend cuda must score (a library that lost
        # the GPU would otherwise pass here on the CPU).
        need_gpu = os.environ.get("VMAF_TEST_REQUIRE_GPU", "0") not in ("", "0")
        if need_gpu:
            check("vmaf: backend: cuda\n" in pipe_se, f"--backend auto with a GPU: {pipe_se!r}")
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

    def test_same_report(self):
        """--threads N and --subsample 0 or 1 change how the frames are scored,
        not what: the report (fps aside) is the plain run's, to the last bit."""
        tmp = self.tmp
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

    def test_failed_run_keeps_report(self):
        """A run that fails after scoring some frames writes no report: the
        reference tool scores the frames before a read error and exits 0, so a
        script that trusts the report's presence would take a partial one for
        the whole clip. An existing report stays as it was, a new one is not
        created, and the status says which kind of failure it was: 3 for an
        input cut short in mid-run, 1 for a picture the feature refuses."""
        tmp = self.tmp
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
