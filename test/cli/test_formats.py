#!/usr/bin/env python3
"""Input formats: every Y4M colourspace tag and bit depth, raw YUV.

Run by test_cli.py (the cli_e2e test).
"""
import os

from clitest import CliTestCase, check, score, write_y4m, write_yuv, y4m_tag


class Formats(CliTestCase):
    def test_formats(self):
        """Every Y4M colourspace tag and bit depth, odd sizes; the same luma in
        every chroma layout and as raw YUV gives the same scores."""
        tmp = self.tmp
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
