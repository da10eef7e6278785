#!/usr/bin/env python3
"""Golden parity through the CLI: --feature with options gives the golden
scores.

Run by test_cli.py (the cli_e2e test).
"""
import json
import os
import re
import sys

from clitest import CliTestCase, ERROR_LINE, cfg, check, run, score


class Parity(CliTestCase):
    def test_parity(self):
        """--feature with options through the CLI equals the golden scores; the
        same luma as 4:2:0 Y4M gives the 4:4:4 scores. `every`: all vectors and
        runs (refusals included), not just a few small ones."""
        if not (cfg.GOLDEN and cfg.VECTORS):
            self.skipTest("no --golden and --vectors given")
        tmp = self.tmp
        golden, vectors = cfg.GOLDEN, cfg.VECTORS
        every, backend = cfg.PARITY_ALL, cfg.BACKEND
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
