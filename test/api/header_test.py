#!/usr/bin/env python3
"""Each public header compiles alone, included twice (its guard works), as
strict C99 and, when a C++ compiler is given, as C++11 with warnings as
errors. A header that needs another one included first, uses a C11 or GNU
feature, or lacks extern "C" fails here."""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

C_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pedantic-errors",
           "-Wstrict-prototypes", "-Wundef", "-Wshadow"]
CXX_FLAGS = ["-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-pedantic-errors",
             "-Wundef", "-Wshadow"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--cxx", default="")
    ap.add_argument("-I", dest="incs", action="append", default=[])
    ap.add_argument("headers", nargs="+", help="paths of the public headers")
    args = ap.parse_args()

    failed = 0
    with tempfile.TemporaryDirectory(prefix="vmaf_header_") as tmp:
        for h in args.headers:
            name = os.path.basename(h)
            if not os.path.exists(h):
                print("FAIL: %s does not exist" % h)
                failed += 1
                continue
            body = ('#include "libvmaf/%s"\n#include "libvmaf/%s"\n'
                    "int main(void) { return 0; }\n" % (name, name))
            compilers = [("C99", shlex.split(args.cc), C_FLAGS, ".c")]
            if args.cxx:
                compilers.append(("C++11", shlex.split(args.cxx), CXX_FLAGS, ".cpp"))
            for label, cmd, flags, ext in compilers:
                src = os.path.join(tmp, name.replace(".", "_") + ext)
                with open(src, "w") as f:
                    f.write(body)
                argv = cmd + flags + ["-I" + i for i in args.incs] + \
                    ["-c", src, "-o", src + ".o"]
                p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   universal_newlines=True)
                if p.returncode:
                    print("FAIL: %s alone as %s:\n  %s\n%s" % (name, label, " ".join(argv),
                                                               p.stdout))
                    failed += 1
                else:
                    print("ok: %s alone as %s" % (name, label))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
