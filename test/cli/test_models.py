#!/usr/bin/env python3
"""Models: the default one, -m with files and options, clip and transform.

Run by test_cli.py (the cli_e2e test).
"""
import json
import os
import re

from clitest import CliTestCase, cfg, check, expect_error, run, write_y4m, y4m_pair


class Models(CliTestCase):
    def test_default_model(self):
        """Without -m and -n the tool scores VMAF with the built-in vmaf_v0.6.1
        and its summary gives the pooled score; -n leaves the model out. (The
        golden scores of the default model: test/vmaf/test_vmaf_cli.py.)"""
        tmp = self.tmp
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

    def test_models(self):
        """-m with model files written for the tests (SVRs over float_ssim)."""
        if not cfg.MODELS:
            self.skipTest("no --models given")
        tmp = self.tmp
        models = cfg.MODELS
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

    def test_model_clip_transform(self):
        """-m ...:disable_clip and :enable_transform reach the model: each
        changes the report's model scores as docs/models.md says, and every
        score is the library's prediction restated here from the model file,
        bit for bit. The model (a linear SVR over float_ssim) predicts above
        its clip's maximum and transforms to below its minimum, so the four
        combinations give four different scores."""
        if not cfg.MODELS:
            self.skipTest("no --models given")
        tmp = self.tmp
        models = cfg.MODELS
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
