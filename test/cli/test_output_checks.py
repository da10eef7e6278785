#!/usr/bin/env python3
"""Report paths refused before scoring, and a closed or broken stdout.

Run by test_cli.py (the cli_e2e test).
"""
import os
import shutil
import stat
import subprocess
import sys

from clitest import (CliTestCase, ERROR_LINE, EXIT, cfg, check, expect_error, json_scores,
                     y4m_pair)


def nobody_prefix():
    """The command prefix that runs vmaf as an unprivileged user when this
    runs as root (whose writes permissions do not stop), or None."""
    if os.geteuid() != 0:
        return []
    for tool in ("/usr/bin/setpriv", "/bin/setpriv"):
        if os.path.exists(tool):
            prefix = [tool, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
            try:
                ok = subprocess.run(prefix + [cfg.VMAF, "-v"], capture_output=True, timeout=60).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            return prefix if ok else None
    return None


class OutputChecks(CliTestCase):
    def test_output_checks(self):
        """Reports that cannot be written are refused before scoring: a
        read-only file, a link whose target lies in a read-only or missing
        directory, a dangling link (the library creates its target)."""
        tmp = self.tmp
        ref, dis = y4m_pair(tmp)
        base = ["-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "-q"]
        # Testable as root: a dangling link into a missing directory.
        link = os.path.join(tmp, "dangling.xml")
        os.symlink(os.path.join("no", "dir", "r.xml"), link)
        expect_error(base + ["-o", link], "output", "no/dir does not exist", "dangling link, missing dir")
        check(os.path.islink(link), "the dangling link is left as it was")
        chain = os.path.join(tmp, "chain.xml")
        os.symlink("dangling.xml", chain)
        expect_error(base + ["-o", chain], "output", "no/dir does not exist", "chain of dangling links")
        # A directory whose permission bits allow writing but which takes no new
        # file: /proc as root (access() says yes; the tool now creates and
        # removes a file there first). As a user the bits already refuse it.
        if os.path.isdir("/proc"):
            expect_error(base + ["-o", "/proc/vmaf_report.xml"], "output", "directory /proc",
                         "a directory that takes no new file")
        # A path that fits PATH_MAX but not with the report's temporary name
        # (.NAME.XXXXXX beside it): refused before scoring, not after.
        deep = tmp
        while len(deep) < 3900:  # exactly 3900 bytes, no component over NAME_MAX
            deep = os.path.join(deep, "d" * min(200, 3900 - len(deep) - 1))
        os.makedirs(deep, exist_ok=True)
        longest = os.path.join(deep, "r" * (4088 - len(deep) - 1))
        expect_error(base + ["-o", longest], "output", "path too long", "a path too long for the "
                     "temporary name")
        check(not os.listdir(deep), f"long path: left {os.listdir(deep)}")
        # An append-only directory (chattr +a, as root on a file system that has
        # the flag): refused before scoring, and nothing is left in it.
        adir = os.path.join(tmp, "append_only")
        os.mkdir(adir)
        if subprocess.run(["chattr", "+a", adir], capture_output=True).returncode == 0:
            try:
                expect_error(base + ["-o", os.path.join(adir, "r.xml")], "output", "append-only",
                             "an append-only directory")
                check(os.listdir(adir) == [], f"append-only directory: left {os.listdir(adir)}")
            finally:
                subprocess.run(["chattr", "-a", adir], capture_output=True)
        else:
            print("test_output_checks: chattr +a not possible here; append-only case skipped",
                  file=sys.stderr)

        prefix = nobody_prefix()
        if prefix is None:
            print("test_output_checks: no way to run unprivileged; permission cases skipped",
                  file=sys.stderr)
            return
        # The unprivileged user must reach the inputs.
        top = os.path.dirname(tmp)
        modes = [(d, stat.S_IMODE(os.stat(d).st_mode)) for d in (top, tmp)]
        for d, _ in modes:
            os.chmod(d, 0o755)
        try:
            ro = os.path.join(tmp, "ro")
            os.mkdir(ro)
            target = os.path.join(ro, "t.xml")
            open(target, "w").write("old")
            os.chmod(target, 0o666)
            os.chmod(ro, 0o555)
            # In a directory the user may write: only the file itself refuses.
            rw = os.path.join(tmp, "rw")
            os.mkdir(rw)
            os.chmod(rw, 0o777)
            readonly = os.path.join(rw, "readonly.xml")
            open(readonly, "w").write("old")
            os.chmod(readonly, 0o444)
            to_ro = os.path.join(tmp, "to_ro.xml")
            os.symlink(target, to_ro)
            dangling_ro = os.path.join(tmp, "dangling_ro.xml")
            os.symlink(os.path.join(ro, "new.xml"), dangling_ro)
            for out, needle, what in [
                    (readonly, "the file is not writable", "read-only file"),
                    (to_ro, "directory %s is not writable" % ro, "link to a file in a read-only dir"),
                    (dangling_ro, "directory %s is not writable" % ro, "dangling link into a read-only dir")]:
                p = subprocess.run(prefix + [cfg.VMAF, "-o", out] + base, capture_output=True, timeout=120)
                se = p.stderr.decode("utf-8", "replace")
                last = se.strip().splitlines()[-1] if se.strip() else ""
                check(p.returncode == EXIT["output"] and needle in se and ERROR_LINE.match(last)
                      and "cannot write report (%s)" % out in se,
                      f"{what}: exit {p.returncode}, stderr {se!r}")
            check(open(readonly).read() == "old" and open(target).read() == "old", "files left as they were")
            os.chmod(ro, 0o755)
            # Files the user may not read: a model (exit 4) and an input (exit
            # 3), each named with the system's reason, before any frame is read.
            model = os.path.join(tmp, "unreadable_model.json")
            with open(model, "w") as f:
                f.write("{}\n")  # never parsed: the open fails first
            os.chmod(model, 0)
            secret = os.path.join(tmp, "unreadable.y4m")
            shutil.copy(dis, secret)
            os.chmod(secret, 0)
            for args, status, needle, what in [
                    (["-r", ref, "-d", dis, "-q", "-m", "path=" + model], "model",
                     "cannot load model (path=%s): permission denied; make the file readable" % model, "unreadable model"),
                    (["-r", ref, "-d", secret, "-n", "--feature", "float_ssim", "-q"], "input",
                     "cannot open input (%s): Permission denied" % secret, "unreadable input")]:
                p = subprocess.run(prefix + [cfg.VMAF] + args, capture_output=True, timeout=120)
                se = p.stderr.decode("utf-8", "replace")
                lines = se.strip().splitlines()
                check(p.returncode == EXIT[status] and len(lines) == 1 and needle in se
                      and ERROR_LINE.match(lines[0]) and not p.stdout,
                      f"{what}: exit {p.returncode}, stdout {p.stdout!r}, stderr {se!r}")
        finally:
            for d, m in modes:
                os.chmod(d, m)

    def test_closed_stdout(self):
        """stdout a pipe whose reader has gone: the write error is reported
        (status 5), the tool is not killed by SIGPIPE."""
        tmp = self.tmp
        ref, dis = y4m_pair(tmp)
        for extra, needle in [([], "cannot write the summary (stdout)"),
                              (["--json", "-o", "-"], "cannot write report (-)")]:
            r, w = os.pipe()
            os.close(r)
            try:
                p = subprocess.run([cfg.VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim"] + extra,
                                   stdout=w, stderr=subprocess.PIPE, timeout=120)
            finally:
                os.close(w)
            se = p.stderr.decode("utf-8", "replace")
            check(p.returncode == EXIT["output"] and needle in se and "Broken pipe" in se,
                  f"closed stdout {extra}: exit {p.returncode}, stderr {se!r}")
        # --version and --help too: status 5 and a line, not a death by SIGPIPE.
        for flag, what in (("--version", "version"), ("--help", "help")):
            r, w = os.pipe()
            os.close(r)
            try:
                p = subprocess.run([cfg.VMAF, flag], stdout=w, stderr=subprocess.PIPE, timeout=120)
            finally:
                os.close(w)
            se = p.stderr.decode("utf-8", "replace")
            check(p.returncode == EXIT["output"] and "cannot print the %s (stdout)" % what in se,
                  f"{flag} into a closed pipe: exit {p.returncode}, stderr {se!r}")
        # With a report file, a broken stdout costs the summary only: the report
        # is written first.
        out = os.path.join(tmp, "kept.json")
        r, w = os.pipe()
        os.close(r)
        try:
            p = subprocess.run([cfg.VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                                "-o", out], stdout=w, stderr=subprocess.PIPE, timeout=120)
        finally:
            os.close(w)
        se = p.stderr.decode("utf-8", "replace")
        check(p.returncode == EXIT["output"] and "the report was written" in se and
              len(json_scores(out)[0]) == 3, f"broken stdout with -o FILE: {p.returncode} {se!r}")
        # stdout closed outright (>&-): the report's file must not become fd 1
        # and take the summary; -o - is refused, since it has nowhere to go.
        out = os.path.join(tmp, "closed.json")
        p = subprocess.run([cfg.VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim", "--json",
                            "-o", out], stderr=subprocess.PIPE, timeout=120,
                           preexec_fn=lambda: os.close(1))
        check(p.returncode == 0 and len(json_scores(out)[0]) == 3,
              f">&- with -o FILE: {p.returncode} {p.stderr!r}")
        for extra in (["--json", "-o", "-"], ["--json", "-o", "/dev/stdout"], [], ["-q"]):
            p = subprocess.run([cfg.VMAF, "-r", ref, "-d", dis, "-n", "--feature", "float_ssim"] + extra,
                               stderr=subprocess.PIPE, timeout=120, preexec_fn=lambda: os.close(1))
            check(p.returncode == EXIT["output"] and b"stdout is closed" in p.stderr,
                  f">&- with {extra}: {p.returncode} {p.stderr!r}")
