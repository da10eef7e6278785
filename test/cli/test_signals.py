#!/usr/bin/env python3
"""Stop signals: SIGINT while scoring, while the report is written, while
an input is opened.

Run by test_cli.py (the cli_e2e test).
"""
import fcntl
import os
import signal
import subprocess
import time

from clitest import (CliTestCase, EXIT, SANITIZER, cfg, check, finish_or_hang, interrupt,
                     json_scores, start_on_fifo, write_y4m, y4m_pair)


class Signals(CliTestCase):
    def test_sigint(self):
        """SIGINT while scoring: exit 130, no report, no temporary file; SIGTERM
        (timeout, systemd, docker) and SIGHUP the same, exit 128 + signal."""
        tmp = self.tmp
        dis = os.path.join(tmp, "sig_d.y4m")
        write_y4m(dis, "420", 32, 24, 8, 200, True)
        for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM"),
                          (signal.SIGHUP, "SIGHUP")):
            outdir = os.path.join(tmp, "sigout_" + name)
            os.mkdir(outdir)
            p, w, _ = start_on_fifo(os.path.join(tmp, "ref_%s.fifo" % name), dis,
                                    os.path.join(outdir, "r.json"))
            se = interrupt(p, sig)
            w.close()
            check(p.returncode == 128 + sig, f"{name}: exit {p.returncode}, stderr {se!r}")
            check("interrupted (%s, after " % name in se and not SANITIZER.search(se),
                  f"{name} message: {se!r}")
            check(os.listdir(outdir) == [], f"{name} leaves no report: {os.listdir(outdir)}")
        # A signal the parent ignores stays ignored (nohup's SIGHUP): the run
        # goes on to the end and writes its report.
        out = os.path.join(tmp, "nohup.json")
        p, w, one = start_on_fifo(os.path.join(tmp, "ref_nohup.fifo"), dis, out,
                                  preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        time.sleep(0.5)
        p.send_signal(signal.SIGHUP)
        for i in range(120):
            w.write(b"FRAME\n" + one)
        w.close()
        _, se = finish_or_hang(p, "ignored SIGHUP")
        check(p.returncode == 0 and os.path.exists(out) and len(json_scores(out)[0]) == 200,
              f"ignored SIGHUP: exit {p.returncode}, stderr {se!r}")

    def test_sigint_report(self):
        """SIGINT and the report: during scoring, an existing file named by -o
        is left as it was; once the report is complete, it stays, the summary
        is not printed, and the tool exits 130 saying so."""
        tmp = self.tmp
        dis = os.path.join(tmp, "sig_d.y4m")
        write_y4m(dis, "420", 32, 24, 8, 200, True)
        outdir = os.path.join(tmp, "kept")
        os.mkdir(outdir)
        kept = os.path.join(outdir, "r.json")
        with open(kept, "w") as f:
            f.write("old\n")
        p, w, _ = start_on_fifo(os.path.join(tmp, "ref.fifo"), dis, kept)
        se = interrupt(p)
        w.close()
        check(p.returncode == EXIT["interrupted"] and "no report written" in se,
              f"SIGINT while scoring, -o an existing file: exit {p.returncode}, stderr {se!r}")
        check(os.listdir(outdir) == ["r.json"] and open(kept).read() == "old\n",
              f"SIGINT while scoring: left {os.listdir(outdir)}, r.json starts "
              f"{open(kept).read()[:60]!r}")

        # Once the report is in place the tool prints the summary. Its stdout
        # is a pipe already full (one page, where the pipe can be made that
        # small), so the run cannot end before the signal comes: it waits in
        # that write, after the report was renamed into place.
        ref, dis = y4m_pair(tmp)
        outdir = os.path.join(tmp, "done")
        os.mkdir(outdir)
        out = os.path.join(outdir, "r.json")
        r, wfd = os.pipe()
        try:
            fcntl.fcntl(wfd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
        except OSError:
            pass  # a full pipe of the default size blocks the write as well
        os.set_blocking(wfd, False)
        filler = 0
        try:
            while True:
                filler += os.write(wfd, b"x" * 512)
        except BlockingIOError:
            pass
        os.set_blocking(wfd, True)
        p = subprocess.Popen([cfg.VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                              "-o", out], stdout=wfd, stderr=subprocess.PIPE)
        os.close(wfd)
        # The report appears, then the tool waits in the write of the summary:
        # until /proc shows that wait (pipe_write, pipe_wait, ... by kernel),
        # or where it does not, for 1.5 s after the report appeared.
        appeared = None
        for _ in range(400):
            time.sleep(0.05)
            if p.poll() is not None:
                break
            if not os.path.exists(out):
                continue
            appeared = appeared or time.monotonic()
            try:
                with open("/proc/%d/wchan" % p.pid) as f:
                    wchan = f.read().strip()
            except OSError:
                wchan = ""
            if "pipe" in wchan or time.monotonic() - appeared > 1.5:
                break
        check(p.poll() is None and appeared,
              f"the run waits in the summary's write once the report is in place (exit "
              f"{p.poll()}, report {os.path.exists(out)})")
        p.send_signal(signal.SIGINT)
        try:
            _, se = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            _, se = p.communicate()
        os.set_blocking(r, False)
        got = b""
        try:
            while True:
                chunk = os.read(r, 65536)
                if not chunk:
                    break
                got += chunk
        except BlockingIOError:
            pass
        os.close(r)
        se = se.decode("utf-8", "replace")
        last = se.strip().splitlines()[-1] if se.strip() else ""
        check(p.returncode == EXIT["interrupted"] and last == "vmaf: interrupted (SIGINT, after 3 "
              "frames): the report was written, the summary was not",
              f"SIGINT once the report is complete: exit {p.returncode}, stderr {se!r}")
        check(got == b"x" * filler, f"SIGINT once the report is complete: stdout got "
              f"{got[filler:]!r} after the filler, not nothing")
        check(os.listdir(outdir) == ["r.json"] and len(json_scores(out)[0]) == 3,
              f"SIGINT once the report is complete: the whole report stays: {os.listdir(outdir)}")
        check(not SANITIZER.search(se), f"SIGINT once the report is complete: sanitizer: {se!r}")

    def test_sigint_open(self):
        """Ctrl-C while a FIFO's open waits for its writer, or while the header
        is read, is an interruption (130), not a bad input."""
        tmp = self.tmp
        for when in ("header", "open"):
            fr = os.path.join(tmp, when + "_r.fifo")
            fd = os.path.join(tmp, when + "_d.fifo")
            os.mkfifo(fr)
            os.mkfifo(fd)
            p = subprocess.Popen([cfg.VMAF, "-r", fr, "-d", fd, "-n", "--feature", "float_ssim"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # Once this open returns, vmaf has its handler (installed before it
            # opens any input) and waits for the reference's header line; with
            # the whole line written, it waits in the open of the distorted FIFO.
            w = open(fr, "wb")
            w.write(b"YUV4MPEG2 W32 H24" + (b" C420jpeg\n" if when == "open" else b""))
            w.flush()
            time.sleep(0.5)
            p.send_signal(signal.SIGINT)
            try:
                _, se = p.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                # The signal came before the open or read began (a slow
                # machine): end that call; the run is interrupted all the same.
                try:
                    os.close(os.open(fd, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
                w.close()
                try:
                    _, se = p.communicate(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    _, se = p.communicate()
            w.close()
            se = se.decode("utf-8", "replace")
            check(p.returncode == EXIT["interrupted"] and "vmaf: interrupted (SIGINT" in se
                  and "Interrupted system call" not in se,
                  f"SIGINT in the {when}: exit {p.returncode}, stderr {se!r}")
