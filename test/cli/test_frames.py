#!/usr/bin/env python3
"""Frame counts: inputs of different lengths, no frames, skips.

Run by test_cli.py (the cli_e2e test).
"""
import os
import shutil

from clitest import (CliTestCase, EXIT, check, expect_error, feed, json_scores, run, score,
                     write_frames, write_y4m, write_yuv, y4m_pair)


class Frames(CliTestCase):
    def test_frame_counts(self):
        """Inputs of different lengths: as the reference tool, the common frames
        are scored and reported (exit 0), with one warning naming the input that
        ended first; for files, pipes, raw and Y4M, and after a skip."""
        tmp = self.tmp
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

    def test_skip_all(self):
        """Skipping every frame of a Y4M file or pipe is said as for raw files."""
        tmp = self.tmp
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

    def test_no_frames(self):
        """An input with no frame at all is an input error (3) that says which
        input and why: a Y4M file ending after its header, found when it is
        opened, or a pipe ending before its first frame while the other input
        has frames (a decoder that wrote a header and failed)."""
        tmp = self.tmp
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

    def test_frame_skips(self):
        """Each skip applies to its own input: inputs that start at different
        frames of one clip, realigned by --frame_skip_ref or --frame_skip_dist,
        give the scores of the matching frames. A skip applied to the wrong
        input pairs frames that do not match, which only the scores show."""
        tmp = self.tmp
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
