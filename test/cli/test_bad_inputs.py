#!/usr/bin/env python3
"""Bad and edge inputs: clear errors, never a crash (test/cli/badinputs
among them), and messages that keep their reason with long paths.

Run by test_cli.py (the cli_e2e test).
"""
import hashlib
import os
import resource
import shutil
import socket
import stat

from clitest import (CliTestCase, ERROR_LINE, EXIT, SANITIZER, WARNING_LINE, cfg, check,
                     expect_error, frame_bytes, run, write_y4m, y4m_pair)


class BadInputs(CliTestCase):
    def test_bad_inputs(self):
        tmp = self.tmp
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

        # The reference's presets: versions that need CAMBI are refused with
        # what runs instead; --nflx_ctc's runnable parts run as given.
        expect_error(["-r", good_r, "-d", good_d, "--aom_ctc", "v3.0"], "usage", "CAMBI",
                     "--aom_ctc v3.0")
        nflx = ("-m version=vmaf_4k_v0.6.1:name=vmaf -m version=vmaf_4k_v0.6.1neg:name=vmaf_neg "
                "--feature psnr=enable_chroma=true:enable_apsnr=true "
                "--feature float_ssim=enable_db=true:clip_db=true")
        _, _, err = expect_error(["-r", good_r, "-d", good_d, "--nflx_ctc", "v1.0"], "usage",
                                 "CAMBI", "--nflx_ctc")
        check(nflx in err, "--nflx_ctc: the runnable parts not named: %r" % err)
        rc, out, err = run(["-r", good_r, "-d", good_d, "-q"] + nflx.split())
        check(rc == 0 and "vmaf_neg" in out, "--nflx_ctc's runnable parts: %d %r" % (rc, err))

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

    def test_badinputs_dir(self):
        """Every known bad input: a clean error or a correct result, never a crash."""
        tmp = self.tmp
        bad = cfg.BADINPUTS
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

    def test_long_paths(self):
        """Paths of about 600 characters: messages still end with the reason."""
        tmp = self.tmp
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
                 "does not exist; create it or choose another output path", "report in a missing dir")]:
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
