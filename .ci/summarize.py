#!/usr/bin/env python3
"""Adds up meson test logs and extra results into one closing line.

usage: summarize.py TESTLOG.json... [--extra FILE]
--extra FILE holds lines "<name> PASS|FAIL|SKIP" from runs that are not meson
tests (the fuzz smoke runs)."""
import json
import sys

passed = failed = skipped = 0
failures = []
skips = []
args = sys.argv[1:]
extra = []
if "--extra" in args:
    i = args.index("--extra")
    extra = args[i + 1:]
    args = args[:i]
for path in args:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        print(f"summary: missing test log {path}: that stage did not run")
        failed += 1
        continue
    for line in lines:
        if not line.strip():
            continue
        t = json.loads(line)
        r = t.get("result")
        name = f"{path.split('/')[0]}:{t.get('name')}"
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
            # The test's own reason ("SKIP: needs a CUDA GPU ..."), if it said one.
            why = next((l for l in (t.get("stdout") or "").splitlines()
                        if l.startswith("SKIP")), "")
            skips.append(f"{name}{' - ' + why if why else ''}")
        else:
            failed += 1
            failures.append(f"{name} ({r})")
for path in extra:
    for line in open(path).read().splitlines():
        name, _, r = line.rpartition(" ")
        if r == "PASS":
            passed += 1
        elif r == "SKIP":
            skipped += 1
            skips.append(name)
        else:
            failed += 1
            failures.append(f"{name} ({r})")
for s in skips:
    print(f"SKIP: {s}")
for f in failures:
    print(f"FAILED: {f}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
