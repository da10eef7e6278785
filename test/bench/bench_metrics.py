#!/usr/bin/env python3
"""Times the vmaf tool on the non-VMAF metrics: for each metric, size and
thread count, ms a frame of `vmaf -n --feature NAME` on a synthetic 8-bit
4:2:0 pair (noise), fastest of the rounds, reading from the page cache.

usage: bench_metrics.py VMAF [--threads 1,N] [--frames F] [--rounds R]
Prints a Markdown table.
"""
import argparse
import os
import subprocess
import tempfile
import time

METRICS = ["psnr", "float_ms_ssim", "ciede", "psnr_hvs"]
SIZES = [(1920, 1080), (3840, 2160)]


def clip(path, w, h, frames):
    with open(path, "wb") as f:
        for _ in range(frames):
            f.write(os.urandom(w * h * 3 // 2))


def run(vmaf, ref, dis, w, h, feature, threads):
    cmd = [vmaf, "-r", ref, "-d", dis, "-w", str(w), "-h", str(h), "-p", "420", "-b", "8",
           "-n", "--feature", feature, "--threads", str(threads), "-q", "-o", os.devnull]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vmaf")
    ap.add_argument("--threads", default="1,%d" % os.cpu_count())
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    print("| metric | size | " + " | ".join("%d thr ms/frame" % t for t in threads) + " |")
    print("| --- | --- |" + " --- |" * len(threads))
    with tempfile.TemporaryDirectory(prefix="bench_metrics_") as tmp:
        for w, h in SIZES:
            ref, dis = os.path.join(tmp, "ref.yuv"), os.path.join(tmp, "dis.yuv")
            clip(ref, w, h, a.frames)
            clip(dis, w, h, a.frames)
            for m in METRICS:
                cells = []
                for t in threads:
                    best = min(run(a.vmaf, ref, dis, w, h, m, t) for _ in range(a.rounds))
                    cells.append("%.1f" % (best * 1000 / a.frames))
                print("| %s | %dx%d | %s |" % (m, w, h, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
