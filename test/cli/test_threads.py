#!/usr/bin/env python3
"""Worker threads, progress lines and --cpumask reaching the library.

Run by test_cli.py (the cli_e2e test).
"""
import json
import os
import re
import subprocess
import time

from clitest import (CliTestCase, EXIT, cfg, check, finish_or_hang, frame_bytes, interrupt,
                     progress_on_tty, run, skip, start_on_fifo, write_y4m, y4m_pair)


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


def progress_log(tmp):
    """--progress away from a terminal: a line of its own every 5 s, also
    with -q. The reference is a FIFO that stalls for 5.5 s after 10 frames,
    so that the line comes when frame 11 is scored."""
    fifo, dis = os.path.join(tmp, "log_r.fifo"), os.path.join(tmp, "log_d.y4m")
    write_y4m(dis, "420", 32, 24, 8, 20, True)
    os.mkfifo(fifo)
    p = subprocess.Popen([cfg.VMAF, "-r", fifo, "-d", dis, "-n", "--feature", "float_ssim", "-q",
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


class ThreadsProgress(CliTestCase):
    def test_threads(self):
        """--threads N reaches the library: a run waiting on its input holds N
        more threads than the same run with --threads 0; without --threads, one
        more per CPU."""
        tmp = self.tmp
        if not os.path.isdir("/proc/self/task"):
            skip("test_threads: SKIP, no /proc/PID/task here")
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

    def test_progress(self):
        """Progress is on stderr only; away from a terminal only with
        --progress, as lines of their own. A run that succeeds ends with one
        line that says how long it took, unless -q; a failed one ends with its
        error."""
        tmp = self.tmp
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

    def test_cpumask(self):
        """--cpumask reaches the library under every backend choice: the spy
        preloaded into vmaf sees the mask in effect when the pictures are read
        (the library's mask is process-wide: each vmaf_init() sets it, and the
        tool's throw-away contexts used to set it back to 0 under --backend
        auto). Every SIMD level gives the same scores."""
        tmp = self.tmp
        if not cfg.CPUMASK_SPY:
            skip("test_cpumask: SKIP, no --cpumask-spy given")
            return
        ref, dis = os.path.join(tmp, "m_r.y4m"), os.path.join(tmp, "m_d.y4m")
        write_y4m(ref, "420", 97, 61, 8, 3, False)
        write_y4m(dis, "420", 97, 61, 8, 3, True)
        spied = os.path.join(tmp, "spy.txt")
        env = dict(os.environ, LD_PRELOAD=cfg.CPUMASK_SPY, VMAF_CPUMASK_SPY=spied,
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
        if seen is None and cfg.SANITIZE:
            skip("test_cpumask: SKIP, the spy cannot be preloaded under the sanitizer")
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
