#!/usr/bin/env python3
"""What the end-to-end tests of the vmaf tool share: their configuration,
the checks and their count, running the binary, and the inputs they write
(generators). The tests are in test_<topic>.py, one unittest.TestCase a
topic; test_cli.py runs them."""
import argparse
import atexit
import functools
import json
import os
import pty
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

EXIT = {"ok": 0, "scoring": 1, "usage": 2, "input": 3, "model": 4, "output": 5, "gpu": 6,
        "interrupted": 130}
ERROR_LINE = re.compile(r"^vmaf: [^\n]+ \([^\n]*\): [^\n]+$")
# Lines that may come before a failure's one line.
WARNING_LINE = re.compile(r"^(lib)?vmaf: (warning|backend): ")
SANITIZER = re.compile(r"Sanitizer|runtime error:|LeakSanitizer|Segmentation|Aborted")


class Config:
    """What the tests run and read, set once by configure()."""
    VMAF = None          # the vmaf binary
    BADINPUTS = None     # test/cli/badinputs
    MODELS = None        # model files (--models), for the model tests
    GOLDEN = None        # golden.json (--golden) and the vectors (--vectors), for parity
    VECTORS = None
    PARITY_ALL = False   # every golden vector and run, not just a few small ones
    BACKEND = None       # --backend for the parity runs
    SANITIZE = ""        # the build's b_sanitize: some checks cannot hold under a sanitizer
    CPUMASK_SPY = None   # test/cli/cpumask_spy.c, built: preloaded by test_cpumask


class State:
    """The count of checks, the failed ones, the parts skipped here, and the
    folder every test gets a folder of its own in."""
    checks = 0
    failures = []
    skips = 0
    base = None


cfg = Config()
state = State()


def parse_args(argv):
    ap = argparse.ArgumentParser(description="End-to-end tests of the vmaf tool.")
    ap.add_argument("vmaf")
    ap.add_argument("badinputs")
    ap.add_argument("--golden")
    ap.add_argument("--vectors")
    ap.add_argument("--models")
    ap.add_argument("--only", help="run the tests whose name contains this")
    ap.add_argument("--sanitize", default="", help="the build's b_sanitize (meson)")
    ap.add_argument("--parity-all", action="store_true", help="every golden vector and run")
    ap.add_argument("--backend", help="--backend for the parity runs")
    ap.add_argument("--cpumask-spy", help="the cpumask spy library, for test_cpumask")
    return ap.parse_args(argv)


def configure(a):
    cfg.VMAF = os.path.abspath(a.vmaf)
    cfg.BADINPUTS = os.path.abspath(a.badinputs)
    cfg.MODELS = a.models
    cfg.GOLDEN, cfg.VECTORS = a.golden, a.vectors
    cfg.PARITY_ALL, cfg.BACKEND = a.parity_all, a.backend
    cfg.SANITIZE = a.sanitize
    cfg.CPUMASK_SPY = a.cpumask_spy and os.path.abspath(a.cpumask_spy)
    # The tool keeps a stop signal its parent ignores ignored (tested with
    # nohup's SIGHUP), and ignored dispositions pass on to children: under
    # nohup, or in a script's background job (SIGINT), the signal tests
    # would test nothing. Give the runs the default dispositions.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)


def check(cond, msg):
    """One check: counted, and a failure said at once (the test fails at its
    end, after all its checks)."""
    state.checks += 1
    if not cond:
        state.failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    return cond


def skip(msg):
    """A part of a test that cannot run here, said and counted (a run in
    which every test that ran skipped exits 77)."""
    print(msg, file=sys.stderr)
    state.skips += 1


def _checked(test):
    @functools.wraps(test)
    def run_checked(self):
        before = len(state.failures)
        test(self)
        failed = state.failures[before:]
        if failed:
            self.fail("%d check(s) failed:\n  %s" % (len(failed), "\n  ".join(failed)))
    return run_checked


class CliTestCase(unittest.TestCase):
    """A topic's tests: each gets a folder of its own (self.tmp) and fails
    when any of its checks did. Run outside test_cli.py (python3 -m
    unittest), the arguments come from VMAF_CLI_TEST_ARGS."""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        for name, value in list(vars(cls).items()):
            if name.startswith("test") and callable(value):
                setattr(cls, name, _checked(value))

    @classmethod
    def setUpClass(cls):
        if cfg.VMAF is None:
            args = os.environ.get("VMAF_CLI_TEST_ARGS")
            if not args:
                raise unittest.SkipTest("run by test_cli.py, or give its arguments in "
                                        "VMAF_CLI_TEST_ARGS")
            configure(parse_args(shlex.split(args)))
        if state.base is None:
            state.base = tempfile.mkdtemp(prefix="vmaf_cli_")
            atexit.register(shutil.rmtree, state.base, True)

    def setUp(self):
        self.tmp = os.path.join(state.base, self._testMethodName)
        os.mkdir(self.tmp)


# ---------------------------------------------------------------- running vmaf


def run(args, timeout=120, **kw):
    p = subprocess.run([cfg.VMAF] + [str(a) for a in args], capture_output=True, timeout=timeout, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def finish_or_hang(p, what):
    """Waits for vmaf (a Popen); a run that takes two minutes has hung: it
    is killed and the hang is a failure. Returns (stdout, stderr)."""
    try:
        return p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out = p.communicate()
        check(False, f"{what}: vmaf hangs")
        return out


def expect_error(args, status, needle, what, **kw):
    rc, out, err = run(args, **kw)
    lines = [l for l in err.splitlines() if l.startswith("vmaf: ")]
    ok = check(rc == EXIT[status], f"{what}: exit {rc}, want {EXIT[status]} ({status}); stderr: {err!r}")
    if ok:
        check(lines and ERROR_LINE.match(lines[-1]) is not None,
              f"{what}: last stderr line not 'vmaf: what (where): fix': {err!r}")
        check(needle in err, f"{what}: {needle!r} not in stderr {err!r}")
        # One line says the failure: the library's reason is inside it, not
        # on a line of its own; only warnings may come before it.
        said = [l for l in err.splitlines() if l.strip() and not WARNING_LINE.match(l)]
        check(len(said) == 1, f"{what}: the failure takes {len(said)} lines, not one: {err!r}")
    check(not SANITIZER.search(err), f"{what}: sanitizer report: {err!r}")
    return rc, out, err


def plane_dims(fmt, w, h):
    if fmt == "400":
        return [(w, h)]
    sx, sy = {"420": (1, 1), "422": (1, 0), "444": (0, 0)}[fmt]
    return [(w, h), ((w + sx) >> sx, (h + sy) >> sy), ((w + sx) >> sx, (h + sy) >> sy)]


def luma(w, h, bpc, frame, distorted):
    """Deterministic textured luma; the distorted one has added noise."""
    mx = (1 << bpc) - 1
    out = []
    state = 12345 + frame * 7
    for y in range(h):
        for x in range(w):
            v = ((x * 37 + y * 23 + frame * 11) % 97) / 96.0
            v = 0.25 + 0.5 * v + 0.2 * (((x // 4 + y // 4) % 2) - 0.5)
            if distorted:
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                v += ((state >> 16) % 41 - 20) / 400.0
            out.append(max(0, min(mx, int(v * mx))))
    return out


def pack(samples, bpc):
    if bpc == 8:
        return bytes(samples)
    return b"".join(s.to_bytes(2, "little") for s in samples)


def frame_bytes(fmt, w, h, bpc, frame, distorted, chroma_seed=0):
    data = [pack(luma(w, h, bpc, frame, distorted), bpc)]
    for i, (pw, ph) in enumerate(plane_dims(fmt, w, h)[1:]):
        c = [((x * 3 + y * 5 + chroma_seed * 17 + i) % (1 << bpc)) for y in range(ph) for x in range(pw)]
        data.append(pack(c, bpc))
    return b"".join(data)


Y4M_TAG = {("420", 8): "C420jpeg", ("422", 8): "C422", ("444", 8): "C444", ("400", 8): "Cmono"}


def y4m_tag(fmt, bpc):
    if bpc == 8:
        return Y4M_TAG[(fmt, 8)]
    return ("Cmono%d" % bpc) if fmt == "400" else "C%sp%d" % (fmt, bpc)


def write_y4m(path, fmt, w, h, bpc, frames, distorted, tag=None, chroma_seed=0, frame_line=b"FRAME\n"):
    with open(path, "wb") as f:
        t = y4m_tag(fmt, bpc) if tag is None else tag
        f.write(("YUV4MPEG2 W%d H%d F25:1 Ip A1:1%s\n" % (w, h, (" " + t) if t else "")).encode())
        for i in range(frames):
            f.write(frame_line)
            f.write(frame_bytes(fmt, w, h, bpc, i, distorted, chroma_seed))


def y4m_pair(tmp, names=("r.y4m", "d.y4m")):
    """The small reference/distorted pair most tests use: 32x24 8-bit
    4:2:0, three frames each, in tmp."""
    ref, dis = (os.path.join(tmp, n) for n in names)
    write_y4m(ref, "420", 32, 24, 8, 3, False)
    write_y4m(dis, "420", 32, 24, 8, 3, True)
    return ref, dis


def write_yuv(path, fmt, w, h, bpc, frames, distorted):
    with open(path, "wb") as f:
        for i in range(frames):
            f.write(frame_bytes(fmt, w, h, bpc, i, distorted))


def json_scores(path, key="float_ssim"):
    with open(path) as f:
        doc = json.load(f)
    return [fr["metrics"][key] for fr in doc["frames"]], doc


def score(ref, dis, extra, tmp, name="out.json"):
    out = os.path.join(tmp, name)
    rc, so, se = run(["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-q",
                      "--json", "--precision", "max", "-o", out] + extra)
    if not check(rc == 0, f"score {ref} {dis} {extra}: exit {rc}: {se}"):
        return None
    return json_scores(out)[0]


def progress_on_tty(args, check_progress=True):
    master, slave = pty.openpty()
    p = subprocess.Popen([cfg.VMAF] + args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    buf = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
    p.wait(30)
    os.close(master)
    text = buf.decode("utf-8", "replace")
    if check_progress:
        check(p.returncode == 0 and re.search(r"\rvmaf: frame 3/3, [\d.]+ fps, ETA \d+:\d\d", text),
              f"progress line on a terminal: {p.returncode} {text!r}")
    return p.returncode, text


def interrupt(p, sig=signal.SIGINT):
    """Sends SIGINT (or sig) to a running vmaf once it has settled, waits for
    it (a hang is killed after 20 s, and its status then fails the caller's
    check) and returns its stderr."""
    time.sleep(0.5)
    p.send_signal(sig)
    try:
        _, se = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        _, se = p.communicate()
    return se.decode("utf-8", "replace")


def start_on_fifo(fifo, dis, out, extra=(), **kw):
    """Starts vmaf (with the options extra) reading the reference from a new
    FIFO and feeds it a header and 80 frames: more than a pipe buffer holds,
    so when this returns vmaf is reading (its handlers installed) and waits
    for frame 80. Returns (process, the FIFO's writer, one frame's bytes)."""
    os.mkfifo(fifo)
    p = subprocess.Popen([cfg.VMAF, "-r", fifo, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                          "-o", out] + list(extra), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, **kw)
    w = open(fifo, "wb")
    w.write(b"YUV4MPEG2 W32 H24 C420jpeg\n")
    one = frame_bytes("420", 32, 24, 8, 0, False)
    for i in range(80):
        w.write(b"FRAME\n" + one)
    w.flush()
    return p, w, one


def feed(fifo, data):
    """Writes data into a FIFO from a thread (opening blocks until vmaf reads)."""
    def run_writer():
        try:
            with open(fifo, "wb") as w:
                w.write(data)
        except BrokenPipeError:
            pass
    t = threading.Thread(target=run_writer, daemon=True)
    t.start()
    return t


def write_frames(path, frames, distorted, y4m=True):
    """32x24 8-bit 4:2:0 frames numbered `frames` (those of y4m_pair's
    generator, so frame i here is frame i there), as Y4M or raw YUV."""
    with open(path, "wb") as f:
        if y4m:
            f.write(b"YUV4MPEG2 W32 H24 C420jpeg\n")
        for i in frames:
            f.write((b"FRAME\n" if y4m else b"") + frame_bytes("420", 32, 24, 8, i, distorted))
