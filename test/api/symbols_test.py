#!/usr/bin/env python3
"""The shared library exports only vmaf_* symbols, exports every function the
public headers declare with VMAF_EXPORT, and carries the soname
libvmaf.so.<major>."""

import argparse
import os
import re
import subprocess
import sys

# Defined by the linker in some binutils versions; not ours to hide.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--readelf", default="readelf")
    ap.add_argument("--major", required=True)
    ap.add_argument("library")
    ap.add_argument("headers", nargs="+")
    args = ap.parse_args()

    out = subprocess.run([args.nm, "-D", "--defined-only", args.library],
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout
    exported = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3:
            exported.add(f[2].split("@")[0])
    failed = 0
    stray = sorted(s for s in exported if not s.startswith("vmaf_") and s not in LINKER_SYMBOLS)
    if stray:
        print("FAIL: %d exported symbol(s) outside the vmaf_ namespace:\n  %s" %
              (len(stray), "\n  ".join(stray)))
        failed += 1

    declared = set()
    for h in args.headers:
        text = open(h).read()
        # Joined declarations: "VMAF_EXPORT <type> vmaf_name(" across lines.
        for m in re.finditer(r"VMAF_EXPORT\b[^;{]*?\b(vmaf_\w+)\s*\(", text, re.S):
            declared.add(m.group(1))
    if not declared:
        print("FAIL: no VMAF_EXPORT declarations found in %s" % args.headers)
        failed += 1
    missing = sorted(declared - exported)
    if missing:
        print("FAIL: declared in the public headers but not exported:\n  %s" %
              "\n  ".join(missing))
        failed += 1
    extra = sorted(s for s in exported if s.startswith("vmaf_") and s not in declared)
    if extra:
        print("FAIL: exported but not declared with VMAF_EXPORT in a public header:\n  %s" %
              "\n  ".join(extra))
        failed += 1

    dyn = subprocess.run([args.readelf, "-d", args.library], stdout=subprocess.PIPE,
                         check=True, universal_newlines=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dyn)
    want = "libvmaf.so.%s" % args.major
    if not m or m.group(1) != want:
        print("FAIL: soname %r, expected %s" % (m.group(1) if m else None, want))
        failed += 1

    print("%d symbols exported, %d declared; soname %s" % (len(exported), len(declared),
                                                          m.group(1) if m else "none"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
