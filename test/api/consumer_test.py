#!/usr/bin/env python3
"""Install the library into a temporary DESTDIR, build consumer.c with nothing
but `cc consumer.c $(pkg-config --cflags --libs libvmaf)`, run it on parity
vectors and compare every per-frame and pooled score with golden.json as
doubles. Also checks the JSON report it writes (legacy %.6f precision)."""

import argparse
import glob
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

# (vector, float_ssim options, worker threads)
CASES = [
    ("p01", "", 0),
    ("p01", "enable_lcs=true", 0),
    ("p01", "scale=2", 2),
    ("p02", "enable_lcs=true", 0),
    ("p03", "", 2),
    ("p04", "scale=2", 0),
]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def run(cmd, env=None, cwd=None, shell=False):
    p = subprocess.run(cmd, env=env, cwd=cwd, shell=shell, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def golden_value(v):
    # null in golden.json stands for +inf or NaN; those are compared as "not finite".
    return None if v is None else float(v)


def same(got, want):
    if want is None:
        return not math.isfinite(got)
    return got == want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--meson", required=True)
    ap.add_argument("--build-root", required=True)
    ap.add_argument("--golden", required=True)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--version", required=True)
    # A sanitizer build's library needs the sanitizer runtime in the program
    # too; that flag is the only thing added to the pkg-config command line.
    ap.add_argument("--sanitize", default="none")
    args = ap.parse_args()

    golden = {v["id"]: v for v in json.load(open(args.golden))["vectors"]}

    with tempfile.TemporaryDirectory(prefix="vmaf_consumer_") as tmp:
        destdir = os.path.join(tmp, "destdir")
        rc, out, err = run(shlex.split(args.meson) +
                           ["install", "-C", args.build_root, "--destdir", destdir,
                            "--no-rebuild"])
        if rc:
            print(out + err, file=sys.stderr)
            fail("meson install --destdir failed (%d)" % rc)
            return 1

        pcs = glob.glob(os.path.join(destdir, "**", "pkgconfig", "libvmaf.pc"), recursive=True)
        if len(pcs) != 1:
            fail("expected one installed libvmaf.pc, found %r" % pcs)
            return 1
        pcdir = os.path.dirname(pcs[0])
        env = dict(os.environ)
        env["PKG_CONFIG_PATH"] = pcdir
        # The .pc file names the final prefix; the sysroot maps it into DESTDIR.
        env["PKG_CONFIG_SYSROOT_DIR"] = destdir
        env.pop("PKG_CONFIG_LIBDIR", None)
        env.pop("CPATH", None)
        env.pop("C_INCLUDE_PATH", None)
        env.pop("LIBRARY_PATH", None)

        rc, out, err = run(["pkg-config", "--modversion", "libvmaf"], env=env)
        if rc or out.strip() != args.version:
            fail("pkg-config --modversion libvmaf: %r %s (expected %s)" % (out.strip(), err,
                                                                          args.version))
        rc, cflags, err = run(["pkg-config", "--cflags", "libvmaf"], env=env)
        incs = [f[2:] for f in shlex.split(cflags) if f.startswith("-I")]
        if not any(i.endswith("/include") for i in incs) or \
           not any(i.endswith("/include/libvmaf") for i in incs):
            fail("pkg-config --cflags libvmaf must give -I${includedir} and "
                 "-I${includedir}/libvmaf, got %r" % cflags.strip())
        for i in incs:
            if not i.startswith(destdir):
                fail("Cflags reach outside the installed tree: %s" % i)
        rc, lflags, err = run(["pkg-config", "--libs-only-L", "libvmaf"], env=env)
        libdirs = [f[2:] for f in shlex.split(lflags) if f.startswith("-L")]
        if not libdirs:
            fail("pkg-config --libs-only-L libvmaf gives no -L: %r" % lflags)
            return 1

        # Exactly the command a consumer would type.
        src = os.path.join(tmp, "consumer.c")
        with open(args.source) as f, open(src, "w") as g:
            g.write(f.read())
        cc = args.cc
        if args.sanitize not in ("", "none"):
            cc += " -fsanitize=" + args.sanitize
        cmd = '%s consumer.c $(pkg-config --cflags --libs libvmaf) -o consumer' % cc
        rc, out, err = run(cmd, env=env, cwd=tmp, shell=True)
        if rc:
            print(out + err, file=sys.stderr)
            fail("`%s` failed" % cmd)
            return 1
        # Both include forms compile with the same flags.
        with open(os.path.join(tmp, "both.c"), "w") as g:
            g.write("#include <libvmaf/libvmaf.h>\n#include <libvmaf.h>\n"
                    "int main(void) { return vmaf_version() == 0; }\n")
        cmd2 = '%s both.c $(pkg-config --cflags --libs libvmaf) -o both' % cc
        rc, out, err = run(cmd2, env=env, cwd=tmp, shell=True)
        if rc:
            print(out + err, file=sys.stderr)
            fail("`%s` failed" % cmd2)

        # The build tree's uninstalled libvmaf.pc serves both forms too.
        uenv = dict(env)
        uenv["PKG_CONFIG_PATH"] = os.path.join(args.build_root, "meson-uninstalled")
        uenv.pop("PKG_CONFIG_SYSROOT_DIR", None)
        cmd3 = '%s both.c $(pkg-config --cflags --libs libvmaf) -o both_uninstalled' % cc
        rc, out, err = run(cmd3, env=uenv, cwd=tmp, shell=True)
        if rc:
            print(out + err, file=sys.stderr)
            fail("`%s` failed with the build tree's uninstalled libvmaf.pc" % cmd3)

        # The static archive, linked as docs/api.md says: no libvmaf.so needed.
        cmd4 = ("%s consumer.c $(pkg-config --cflags libvmaf) $(pkg-config --static --libs "
                "libvmaf | sed 's/-lvmaf /-l:libvmaf.a /') -o consumer_static" % cc)
        rc, out, err = run(cmd4, env=env, cwd=tmp, shell=True)
        if rc:
            print(out + err, file=sys.stderr)
            fail("`%s` failed" % cmd4)
        else:
            rc, out, err = run(["ldd", os.path.join(tmp, "consumer_static")], env=env)
            if rc == 0 and "libvmaf.so" in out:
                fail("consumer_static loads libvmaf.so: %s" % out)

        renv = dict(env)
        renv["LD_LIBRARY_PATH"] = ":".join(libdirs)
        # The binary must pick the installed copy, not one from the build tree.
        rc, out, err = run(["ldd", os.path.join(tmp, "consumer")], env=renv)
        if rc == 0:
            line = [l for l in out.splitlines() if "libvmaf.so" in l]
            if not line or destdir not in line[0]:
                fail("consumer does not load the installed libvmaf: %r" % line)

        for vid, opts, threads in CASES:
            v = golden.get(vid)
            runs = [r for r in (v or {}).get("runs", []) if r["options"] == opts]
            if not v or not runs:
                fail("golden.json has no run %s '%s'" % (vid, opts))
                continue
            r = runs[0]
            ref = os.path.join(args.data_dir, v["ref"])
            dis = os.path.join(args.data_dir, v["dis"])
            report = os.path.join(tmp, "%s_%s.json" % (vid, opts.replace("=", "_")))
            argv = [os.path.join(tmp, "consumer"), ref, dis, str(v["w"]), str(v["h"]),
                    str(v["fmt"]), str(v["bpc"]), opts, report, str(threads)]
            rc, out, err = run(argv, env=renv)
            what = "%s '%s' threads %d" % (vid, opts, threads)
            if rc:
                print(err, file=sys.stderr)
                fail("consumer %s exited %d" % (what, rc))
                continue
            got = {}
            for line in out.splitlines():
                f = line.split()
                if f[0] == "frame":
                    got[("frame", int(f[1]), f[2])] = float(f[3])
                elif f[0] == "pooled":
                    got[("pooled", f[1], f[2])] = float(f[3])
            checked = 0
            for i, fr in enumerate(r["frames"]):
                for name, want in fr.items():
                    key = ("frame", i, name)
                    if key not in got:
                        fail("%s: no %s at frame %d" % (what, name, i))
                    elif not same(got[key], golden_value(want)):
                        fail("%s: frame %d %s = %.17g, golden %r" % (what, i, name, got[key],
                                                                     want))
                    checked += 1
            for name, pooled in r.get("pooled", {}).items():
                for method, want in pooled.items():
                    key = ("pooled", name, method)
                    if key not in got:
                        fail("%s: no pooled %s %s" % (what, name, method))
                    elif not same(got[key], golden_value(want)):
                        fail("%s: pooled %s %s = %.17g, golden %r" % (what, name, method,
                                                                      got[key], want))
                    checked += 1
            n_frames = sum(1 for k in got if k[0] == "frame" and k[2] == "float_ssim")
            if n_frames != len(r["frames"]):
                fail("%s: %d frames scored, golden has %d" % (what, n_frames, len(r["frames"])))

            # The report: the reference's layout at its %.6f precision.
            try:
                rep = json.load(open(report))
                frames = rep["frames"]
                if len(frames) != len(r["frames"]):
                    fail("%s: report has %d frames" % (what, len(frames)))
                for i, fr in enumerate(frames[:len(r["frames"])]):
                    want = golden_value(r["frames"][i]["float_ssim"])
                    val = fr["metrics"]["float_ssim"]
                    if want is not None and "%.6f" % val != "%.6f" % want:
                        fail("%s: report frame %d float_ssim %r, golden %.6f" % (what, i, val,
                                                                                 want))
                    if fr.get("frameNum") != i:
                        fail("%s: report frame %d has frameNum %r" % (what, i,
                                                                      fr.get("frameNum")))
                pm = rep["pooled_metrics"]["float_ssim"]["mean"]
                want = golden_value(r["pooled"]["float_ssim"]["mean"])
                if want is not None and "%.6f" % pm != "%.6f" % want:
                    fail("%s: report pooled mean %r, golden %.6f" % (what, pm, want))
            except (OSError, ValueError, KeyError, TypeError) as e:
                fail("%s: report %s unreadable or not in the reference layout: %r" %
                     (what, report, e))
            print("%s: %d scores equal golden.json" % (what, checked))

    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("consumer built with pkg-config alone; all scores equal golden.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
