#!/usr/bin/env python3
"""Every relative link of the Markdown files resolves: the target file
exists and an #anchor names one of its headings. Paths of pages named in
the text (`docs/metrics/vmaf.md`) must exist too, so that a renamed or
removed page is caught wherever it is mentioned."""

import argparse
import os
import re
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
NAMED = re.compile(r"(?<![\w/(.-])((?:docs|test|core|tools)(?:/[\w.-]+)+\.md)\b")
CODE = re.compile(r"`[^`]*`")


def markdown_files(root):
    """The project's pages: hidden folders, build folders and the test
    vectors left out."""
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs
                         if not x.startswith(".") and not (rel == "." and x.startswith("build"))
                         and os.path.join(rel, x) != os.path.join("test", "data"))
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.normpath(os.path.join(rel, f))


def prose(path):
    """(line number, text) outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced:
                yield n, line


def slug(heading):
    """GitHub's anchor for a heading."""
    h = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")


def anchors(path):
    return {slug(t.lstrip("#")) for _, t in prose(path) if t.startswith("#")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", help="the source tree")
    root = ap.parse_args().root
    pages = list(markdown_files(root))
    bad = 0
    for page in pages:
        for n, line in prose(os.path.join(root, page)):
            text = CODE.sub("", line)
            for target in LINK.findall(text):
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, frag = target.partition("#")
                full = (os.path.normpath(os.path.join(root, os.path.dirname(page), path))
                        if path else os.path.join(root, page))
                if not os.path.exists(full):
                    print("FAIL: %s:%d: %s: no such file" % (page, n, target))
                    bad += 1
                elif frag and full.endswith(".md") and frag not in anchors(full):
                    print("FAIL: %s:%d: %s: no heading #%s" % (page, n, target, frag))
                    bad += 1
            for path in NAMED.findall(line):
                if "NNNN" not in path and not os.path.exists(os.path.join(root, path)):
                    print("FAIL: %s:%d: %s: no such file" % (page, n, path))
                    bad += 1
    print("%d pages, %d broken links" % (len(pages), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
