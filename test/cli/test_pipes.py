#!/usr/bin/env python3
"""Inputs from pipes and FIFOs, stdin and stdout: orders of opening, writers
that fail or stall, the memory a broken stream costs.

Run by test_cli.py (the cli_e2e test).
"""
import filecmp
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from clitest import (CliTestCase, ERROR_LINE, EXIT, SANITIZER, cfg, check, feed, finish_or_hang,
                     frame_bytes, interrupt, json_scores, run, score, skip, write_y4m, y4m_pair)


class Pipes(CliTestCase):
    def test_pipes(self):
        """Pipes: one or both inputs from FIFOs (the distorted one read on its own
        thread) give the files' scores; Ctrl-C ends a run whose distorted pipe
        has stalled, whichever thread is waiting for it."""
        tmp = self.tmp
        ref = os.path.join(tmp, "p_r.y4m")
        dis = os.path.join(tmp, "p_d.y4m")
        write_y4m(ref, "420", 64, 48, 10, 12, False)
        write_y4m(dis, "420", 64, 48, 10, 12, True)
        want = score(ref, dis, [], tmp, "files.json")
        data_r, data_d = open(ref, "rb").read(), open(dis, "rb").read()
        for which in ("ref", "dis", "both"):
            fr, fd = os.path.join(tmp, which + "_r.fifo"), os.path.join(tmp, which + "_d.fifo")
            writers = []
            r_arg, d_arg = ref, dis
            if which in ("ref", "both"):
                os.mkfifo(fr)
                writers.append(feed(fr, data_r))
                r_arg = fr
            if which in ("dis", "both"):
                os.mkfifo(fd)
                writers.append(feed(fd, data_d))
                d_arg = fd
            got = score(r_arg, d_arg, [], tmp, which + ".json")
            for w in writers:
                w.join(timeout=20)
            check(got == want, f"pipes ({which}): scores {got} want {want}")

        for which in ("dis", "both"):
            fd = os.path.join(tmp, "stall_" + which + "_d.fifo")
            os.mkfifo(fd)
            r_arg = ref
            if which == "both":
                r_arg = os.path.join(tmp, "stall_both_r.fifo")
                os.mkfifo(r_arg)
            out = os.path.join(tmp, "stall_" + which + ".json")
            p = subprocess.Popen([cfg.VMAF, "-r", r_arg, "-d", fd, "-n", "--feature", "float_ssim",
                                  "--json", "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # The header and two frames of each pipe, then nothing more: vmaf
            # waits for frame 2 of the distorted input (and of the reference,
            # for both). vmaf opens the reference and reads its header before it
            # opens the distorted input, and a FIFO's open waits for the other
            # end: the reference's bytes go first (they fit in the pipe).
            head = data_d.index(b"FRAME")
            one = len(b"FRAME\n") + len(frame_bytes("420", 64, 48, 10, 0, True))
            wr = open(r_arg, "wb") if which == "both" else None
            if wr:
                wr.write(data_r[:head + 2 * one])
                wr.flush()
            wd = open(fd, "wb")
            wd.write(data_d[:head + 2 * one])
            wd.flush()
            se = interrupt(p)
            wd.close()
            if wr:
                wr.close()
            check(p.returncode == 130, f"stalled pipe ({which}), SIGINT: exit {p.returncode}, "
                  f"stderr {se!r}")
            check("interrupted" in se and not SANITIZER.search(se), f"stalled pipe message: {se!r}")
            check(not os.path.exists(out), "stalled pipe, SIGINT: no report")

    def test_pipe_failure(self):
        """One process feeds both FIFOs, a frame of each in turn (frames larger
        than a pipe holds): when one input is malformed, its writer waits for it
        to be drained and never writes the other input's next frame. vmaf must
        still end, with the malformed input's error, whichever input it is."""
        tmp = self.tmp
        w, h = 1920, 1080
        hdr = b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h)
        payload = bytes(w * h * 3 // 2)  # 3 MB: more than a pipe holds
        for bad in ("ref", "dis"):
            fr = os.path.join(tmp, bad + "_r.fifo")
            fd = os.path.join(tmp, bad + "_d.fifo")
            os.mkfifo(fr)
            os.mkfifo(fd)

            def writer():
                try:
                    with open(fr, "wb") as r:
                        r.write(hdr)
                        r.flush()
                        with open(fd, "wb") as d:
                            d.write(hdr)
                            d.flush()
                            # The malformed input's frame 1 goes first in its turn.
                            first, second = (d, r) if bad == "dis" else (r, d)
                            for i in range(4):
                                first.write((b"FRAMX\n" if i == 1 else b"FRAME\n") + payload)
                                first.flush()
                                second.write(b"FRAME\n" + payload)
                                second.flush()
                except (BrokenPipeError, ValueError):
                    pass
            t = threading.Thread(target=writer, daemon=True)
            t.start()
            p = subprocess.Popen([cfg.VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim", "-q"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            _, se = finish_or_hang(p, f"malformed {bad} pipe")
            se = se.decode("utf-8", "replace")
            t.join(timeout=20)
            bad_path = fd if bad == "dis" else fr
            check(p.returncode == EXIT["input"] and "bad FRAME marker (%s, frame 1)" % bad_path in se
                  and ERROR_LINE.match(se.strip().splitlines()[-1] if se.strip() else ""),
                  f"malformed {bad} pipe: exit {p.returncode}, stderr {se!r}")

    def test_pipe_open_order(self):
        """One process opens both FIFOs before it writes anything, in either
        order (ffmpeg with two outputs opens its files first), then writes the
        headers and a frame of each in turn. Opened one after the other, the
        tool waited for the reference's header while the writer waited for the
        distorted FIFO's reader: a hang at the start. Frames both inputs skip
        are skipped in pairs too (skipped one input after the other, the tool
        waited for the reference's frames behind a full distorted pipe). With
        `lead`, the writer sends the header and first frame (more than a pipe
        holds) of the FIFO it opened first before the other's header, as
        ffmpeg 5.1 does: the tool used to wait for that header for ever."""
        tmp = self.tmp
        w, h = 1280, 720
        hdr = b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h)
        frames = [bytes([(7 * i + k) % 256 for k in range(256)]) * (w * h * 3 // 2 // 256)
                  for i in range(3)]
        for first, skip, lead in (("ref", 0, False), ("dis", 0, False), ("ref", 2, False),
                                  ("ref", 0, True), ("dis", 0, True), ("dis", 2, True)):
            name = "%s%d%s" % (first, skip, "_lead" if lead else "")
            fr = os.path.join(tmp, name + "_open_r.fifo")
            fd = os.path.join(tmp, name + "_open_d.fifo")
            os.mkfifo(fr)
            os.mkfifo(fd)

            def writer():
                try:
                    a = open(fr if first == "ref" else fd, "wb")
                    b = open(fd if first == "ref" else fr, "wb")
                    r, d = (a, b) if first == "ref" else (b, a)
                    rest = frames
                    if lead:
                        for f in (a, b):
                            f.write(hdr + b"FRAME\n" + frames[0])
                            f.flush()
                        rest = frames[1:]
                    else:
                        r.write(hdr)
                        r.flush()
                        d.write(hdr)
                        d.flush()
                    for f in rest:
                        r.write(b"FRAME\n" + f)
                        r.flush()
                        d.write(b"FRAME\n" + f)
                        d.flush()
                    r.close()
                    d.close()
                except (BrokenPipeError, ValueError):
                    pass
            t = threading.Thread(target=writer, daemon=True)
            t.start()
            p = subprocess.Popen([cfg.VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim",
                                  "--backend", "cpu", "--frame_skip_ref", str(skip),
                                  "--frame_skip_dist", str(skip)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            what = (f"one writer opening the {first} FIFO first, skipping {skip}"
                    + (", its first frame before the other's header" if lead else ""))
            so, se = finish_or_hang(p, what)
            t.join(timeout=20)
            check(p.returncode == 0 and b"float_ssim: 1.000000" in so,
                  f"{what}: exit {p.returncode}, stdout {so!r}, stderr {se!r}")

    def test_pipe_first_frame_failure(self):
        """One input's first frame is cut short or malformed while the other
        input's writer sends its header and then waits (as one program feeding
        both pipes waits for the failed one to be drained): the run must end
        with the failed input's error. The open of a pipe reads its first
        frame, so that failure must fail the open, which interrupts the other
        side; left to the frame's read, it came after the other open, which
        waited for ever."""
        tmp = self.tmp
        w, h = 64, 48
        hdr = b"YUV4MPEG2 W%d H%d C420jpeg\n" % (w, h)
        payload = bytes(w * h * 3 // 2)
        for name, bad, data, needle in (
                ("cut", "dis", hdr + b"FRAME\n" + payload[:100], "truncated frame (%s, frame 0): "
                 "it holds 100 of"),
                ("cut", "ref", hdr + b"FRAME\n" + payload[:100], "truncated frame (%s, frame 0): "
                 "it holds 100 of"),
                ("marker", "dis", hdr + b"FRAMX\n" + payload, "bad FRAME marker (%s, frame 0)")):
            fr = os.path.join(tmp, "%s_%s_r.fifo" % (name, bad))
            fd = os.path.join(tmp, "%s_%s_d.fifo" % (name, bad))
            os.mkfifo(fr)
            os.mkfifo(fd)
            bad_path, good_path = (fd, fr) if bad == "dis" else (fr, fd)
            release = threading.Event()

            def stalled():
                try:
                    with open(good_path, "wb") as g:
                        g.write(hdr)
                        g.flush()
                        release.wait(180)  # past finish_or_hang's limit
                except (BrokenPipeError, ValueError):
                    pass
            threads = [threading.Thread(target=stalled, daemon=True), feed(bad_path, data)]
            threads[0].start()
            p = subprocess.Popen([cfg.VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim", "-q"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            _, se = finish_or_hang(p, f"{bad} first frame {name}, the other writer waiting")
            release.set()
            for t in threads:
                t.join(timeout=20)
            se = se.decode("utf-8", "replace")
            check(p.returncode == EXIT["input"] and needle % bad_path in se,
                  f"{bad} first frame {name}, the other writer waiting: exit {p.returncode}, "
                  f"stderr {se!r}")

    def test_pipe_memory(self):
        """Streams whose header promises huge frames and that then end cost the
        memory of what arrived, not of the frames: the tool used to zero two
        pictures of the promised size (2 GiB here; 16 GiB at 65536x65536)
        before it found the first frame cut short. (Pictures of at most 512 MiB
        are zeroed when released, to be reused, so below that size such a
        stream costs what a real frame of its size would.)"""
        tmp = self.tmp
        data = b"YUV4MPEG2 W32768 H16384 C420p16\nFRAME\nabc"
        fr = os.path.join(tmp, "huge_r.fifo")
        fd = os.path.join(tmp, "huge_d.fifo")
        os.mkfifo(fr)
        os.mkfifo(fd)
        writers = [feed(fr, data), feed(fd, data)]
        err_path = os.path.join(tmp, "huge.err")
        # meson test sets MALLOC_PERTURB_, with which glibc fills every block
        # it hands out, calloc()'s included: the pages a user's run leaves
        # untouched are then written. Measure the run a user gets.
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
        with open(err_path, "wb") as e:
            p = subprocess.Popen([cfg.VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim",
                                  "--backend", "cpu", "-q"],
                                 stdout=subprocess.DEVNULL, stderr=e, env=env)
            timer = threading.Timer(120, p.kill)
            timer.start()
            _, status, usage = os.wait4(p.pid, 0)
            timer.cancel()
            p.returncode = os.waitstatus_to_exitcode(status)
        for t in writers:
            t.join(timeout=20)
        with open(err_path, encoding="utf-8", errors="replace") as e:
            se = e.read()
        # Both inputs are cut short; whichever read fails first is reported.
        check(p.returncode == EXIT["input"] and
              any("truncated frame (%s, frame 0): it holds 3 of" % f in se for f in (fr, fd)),
              f"huge frames promised, 3 bytes sent: exit {p.returncode}, stderr {se!r}")
        if "thread" in cfg.SANITIZE:
            # ThreadSanitizer's calloc() writes every block it hands out.
            skip("test_pipe_memory: SKIP the peak memory check under ThreadSanitizer")
            return
        check(usage.ru_maxrss < 256 * 1024,
              f"huge frames promised, 3 bytes sent: the tool's peak memory was "
              f"{usage.ru_maxrss // 1024} MiB")

    def test_streams_and_stdout(self):
        """One pipe given as both inputs is refused (its frames would be halves
        of two); a Y4M pipe given raw geometry is recognised; -o naming stdout
        is -o -; stdout appended to an input is refused; Ctrl-C while a report
        FIFO waits for its reader is 130."""
        tmp = self.tmp
        ref, dis = y4m_pair(tmp)
        F = ["-n", "--feature", "float_ssim"]
        with open(ref, "rb") as f:
            rc, so, se = run(["-r", "/dev/stdin", "-d", "/dev/stdin"] + F, input=f.read())
        check(rc == EXIT["input"] and "same stream" in se, f"one pipe as both inputs: {rc} {se!r}")
        # "-" is stdin.
        want = score(ref, dis, [], tmp, "files.json")
        out = os.path.join(tmp, "dash.json")
        with open(dis, "rb") as f:
            rc, so, se = run(["-r", ref, "-d", "-", "-q", "--json", "--precision", "max", "-o", out]
                             + F, input=f.read())
        check(rc == 0 and json_scores(out)[0] == want, f"-d - reads stdin: {rc} {se!r}")
        with open(ref, "rb") as f:
            rc, so, se = run(["-r", "-", "-d", "-"] + F, input=f.read())
        check(rc == EXIT["input"] and "same stream" in se, f"-r - -d -: {rc} {se!r}")
        fifo = os.path.join(tmp, "both.fifo")
        os.mkfifo(fifo)
        try:
            rc, so, se = run(["-r", fifo, "-d", fifo] + F, timeout=20)
        except subprocess.TimeoutExpired:
            rc, se = None, "(waited for a writer: not refused)"
        check(rc == EXIT["input"] and "same stream" in se, f"one FIFO as both inputs: {rc} {se!r}")
        # A Y4M stream through a pipe, given raw geometry: recognised.
        raw = os.path.join(tmp, "r.yuv")
        with open(raw, "wb") as f:
            f.write(bytes(32 * 24 * 3 // 2 * 3))
        with open(ref, "rb") as f:
            rc, so, se = run(["-r", "/dev/stdin", "-d", raw, "-w", "32", "-h", "24", "-p", "420",
                              "-b", "8"] + F, input=f.read())
        check(rc == EXIT["input"] and "for a Y4M stream (reference /dev/stdin)" in se,
              f"Y4M pipe with raw geometry: {rc} {se!r}")
        # A stream that ends before its first byte (a decoder that failed, as
        # in <(ffmpeg -i missing.mp4 ...)): which input, and where to look.
        rc, so, se = run(["-r", ref, "-d", "-"] + F, input=b"")
        check(rc == EXIT["input"] and "empty input (distorted /dev/stdin): the stream ended "
              "before its first byte" in se, f"empty stream on stdin: {rc} {se!r}")
        if os.path.isdir("/dev/fd"):
            rd, wr = os.pipe()
            os.close(wr)
            try:
                rc, so, se = run(["-r", "/dev/fd/%d" % rd, "-d", dis] + F, pass_fds=(rd,))
            finally:
                os.close(rd)
            check(rc == EXIT["input"] and "empty input (reference /dev/fd/%d)" % rd in se,
                  f"empty stream as /dev/fd/N: {rc} {se!r}")
        # The report to /dev/stdout while stdout is a pipe: the JSON alone.
        rc, so, se = run(["-r", ref, "-d", dis, "--json", "-o", "/dev/stdout"] + F)
        try:
            frames = len(json.loads(so)["frames"]) if rc == 0 else -1
        except ValueError:
            frames = -1
        check(frames == 3 and "float_ssim:" in se, f"-o /dev/stdout: {rc} {so[:80]!r} {se!r}")
        # ... and while stdout is a file: written in place, the rest kept.
        log = os.path.join(tmp, "log.txt")
        with open(log, "w") as f:
            f.write("BEFORE\n")
            f.flush()
            rc = subprocess.run([cfg.VMAF, "-r", ref, "-d", dis, "--csv", "-o", "/dev/stdout", "-q"] + F,
                                stdout=f, stderr=subprocess.DEVNULL, timeout=120).returncode
            f.write("AFTER\n")
        with open(log) as f:
            text = f.read()
        check(rc == 0 and text.startswith("BEFORE\n") and text.endswith("AFTER\n") and
              "Frame," in text, f"-o /dev/stdout into a file: {rc} {text!r}")
        # stdout appended to the distorted input.
        copy = os.path.join(tmp, "dcopy.y4m")
        shutil.copy(dis, copy)
        with open(copy, "ab") as f:
            p = subprocess.run([cfg.VMAF, "-r", ref, "-d", copy, "--json", "-o", "-", "-q"] + F,
                               stdout=f, stderr=subprocess.PIPE, timeout=120)
            rc, se = p.returncode, p.stderr.decode("utf-8", "replace")
        check(rc == EXIT["output"] and "distorted input" in se and filecmp.cmp(copy, dis, False),
              f"stdout appended to an input: {rc} {se!r}")
        # Ctrl-C while the report's FIFO waits for a reader.
        out = os.path.join(tmp, "report.fifo")
        os.mkfifo(out)
        p = subprocess.Popen([cfg.VMAF, "-r", ref, "-d", dis, "--json", "-o", out, "-q"] + F,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # Interrupt it once it waits in the FIFO's open (the kernel names that
        # wait in /proc/PID/wchan; where it does not, after 1.5 s), so that
        # the interruption is that of the wait, not of the scoring.
        waited = False
        for _ in range(200):
            time.sleep(0.05)
            try:
                with open("/proc/%d/wchan" % p.pid) as f:
                    if f.read().strip() == "wait_for_partner":
                        waited = True
                        break
            except OSError:
                break
        if not waited:
            time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        try:
            _, se = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.close(os.open(out, os.O_RDONLY | os.O_NONBLOCK))
            _, se = p.communicate(timeout=20)
        se = se.decode("utf-8", "replace")
        check(p.returncode == EXIT["interrupted"] and "vmaf: interrupted (SIGINT" in se,
              f"SIGINT while the report FIFO waits: {p.returncode} {se!r}")
