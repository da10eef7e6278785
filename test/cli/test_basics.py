#!/usr/bin/env python3
"""The command line itself: --help, -v, usage errors, a feature asked for twice.

Run by test_cli.py (the cli_e2e test).
"""
import os
import re

from clitest import CliTestCase, check, expect_error, run, write_y4m


class Basics(CliTestCase):
    def test_basics(self):
        tmp = self.tmp
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

    def test_duplicate_feature(self):
        """The same --feature twice: one summary line."""
        tmp = self.tmp
        ref, dis = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
        write_y4m(ref, "420", 32, 24, 8, 2, False)
        write_y4m(dis, "420", 32, 24, 8, 2, True)
        rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--feature", "float_ssim"])
        check(rc == 0 and so.count("float_ssim:") == 1, f"--feature twice: {rc} {so!r} {se!r}")
