#!/bin/sh
# Machine-code check of every kernel in the library, float_ssim's (and the
# sequential sum's, cuda/seq_sum.cu) by the rules below and any other kernel at
# zero: no fused multiply-add may
# come from our arithmetic (-fmad=false and explicit _rn intrinsics). The
# correctly rounded division and square root sequences of the CUDA library
# do use FMAs internally (their results are still the IEEE ones the CPU
# computes), and so do the combine's f64 division and f32 square root
# (div_in_range, sqrt_in_range: the library's fast paths without their
# range checks, the same FMAs). So:
# Kernels with the library operations swapped out (template flag PROBE)
# must have no FMA at all, which covers all of our own arithmetic; kernels
# without division or square root must have none; and a production kernel
# may have only what the probe kernels holding just the library operations
# have, in proportion to its copies of those operations (counted by their
# f64 reciprocal and square-root seeds, MUFU.RCP64H and MUFU.RSQ64H: two
# f64 divisions a combine, whose square root is now the f32 one), plus
# one final reduction. Every
# architecture's machine code is checked on its own. The probe kernels, and
# the test kernels of the division and square root, live in the tests'
# kernel library (test/cuda/ssim_test_kernels.cu): pass it after the
# library.
# Usage: check_sass.sh <libvmaf.a or object>... (exit 77 without cuobjdump)
CUOBJDUMP=$(command -v cuobjdump 2>/dev/null || true)
[ -z "$CUOBJDUMP" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && CUOBJDUMP=/usr/local/cuda/bin/cuobjdump
if [ -z "$CUOBJDUMP" ]; then
    echo "SKIP: cuobjdump not found (it comes with a full CUDA toolkit, as on the GPU machine)"
    exit 77
fi
sass=$(mktemp)
one=$(mktemp)
trap 'rm -f "$sass" "$one"' EXIT
for lib in "$@"; do
    if ! "$CUOBJDUMP" -sass "$lib" >"$one" 2>&1; then
        echo "FAIL: cuobjdump -sass $lib failed:"; head -5 "$one"; exit 1
    fi
    cat "$one" >>"$sass"
done
awk '
/^[ \t]*arch = sm_/ { arch = $3; next }
/Function :/ { fn = arch " " $NF; n[fn] = 0; mufu[fn] = 0; seen[fn] = 1; next }
fn != "" && /MUFU\.(RSQ|RCP)64H/ { mufu[fn]++ }
fn != "" && /[ \t](FFMA|DFMA|HFMA|HFMA2)[. ;]/ {
    # a*1+c and a*(-1)+c round once like a plain addition, and x*0+c with the
    # zero register is the compiler idiom for loading a constant
    # (HFMA2.MMA R0, -RZ, RZ, 0, 0): only a real product counts.
    line = $0
    sub(/^.*(FFMA|DFMA|HFMA2?)[.A-Z0-9_]* +/, "", line)
    sub(/ *;.*$/, "", line)
    k = split(line, op, / *, */)
    if (k >= 4 && (op[2] ~ /^-?(1(\.0*)?|RZ)$/ || op[3] ~ /^-?(1(\.0*)?|RZ)$/)) { exact[fn]++; next }
    n[fn]++
    if (shown[fn]++ < 3) first[fn] = first[fn] "\n        " $0
}
END {
    bad = 0; kernels = 0; others = 0; checks_k = 0; narch = 0
    for (f in seen) {
        split(f, part, " ")
        if (part[2] ~ /ssim_fma_probe_combine/) { pc[part[1]] = n[f]; pmufu[part[1]] = mufu[f]; archs[part[1]] = 1 }
        if (part[2] ~ /ssim_fma_probe_finalize/) pf[part[1]] = n[f]
    }
    for (a in archs) {
        narch++
        if (!(a in pf) || pmufu[a] < 1) { print "FAIL: probe kernels incomplete for " a; exit 1 }
        printf "%s probes: combine %d, finalize %d FMAs (library div/sqrt sequences)\n", a, pc[a], pf[a]
    }
    if (!narch) { print "FAIL: probe kernels not found in the SASS"; exit 1 }
    for (f in seen) {
        split(f, part, " ")
        a = part[1]; name = part[2]
        if (name ~ /ssim_fma_probe/) continue
        lo = 0; hi = -1; what = ""
        if (name ~ /k_tile|k_strip/ && name ~ /Lb1E/) { hi = 0; what = "tile/strip, library ops swapped out" }
        else if (name ~ /k_tile|k_strip/) {
            # FMAs in proportion to the library sequences present, counted
            # by their f64 reciprocal and square-root seeds (the compiler
            # copies the combine, and shares the slow paths)
            lo = pc[a]; hi = int((mufu[f] * pc[a] + pmufu[a] - 1) / pmufu[a]) + pf[a]
            what = "tile/strip: " mufu[f] " f64 seeds and the means"
        }
        else if (name ~ /k_finalize/) { lo = pf[a]; hi = pf[a]; what = "finalize" }
        else if (name ~ /k_decimate|k_terms_partials|k_seq_/) { hi = 0; what = "no library op" }
        else if (name ~ /k_division_check|k_sqrt_check/) {
            # The tests compare the combine fast paths with the library
            # division and square root here, outside the score path: both
            # sequences, so no more FMAs than the combine probe holds.
            lo = 0; hi = pc[a]; what = "test kernel of the division or square root"; checks_k++
        }
        else {
            # Any other kernel (of another extractor, a copy kernel) is held
            # to no FMA at all: a kernel that legitimately calls the CUDA
            # library division or square root needs a rule above, with
            # probe kernels of its own, or it fails here.
            hi = 0; what = "not a float_ssim kernel: no FMA"; others++
        }
        kernels++
        ok = n[f] >= lo && n[f] <= hi
        if (!ok) bad++
        printf "%-4s %4d FMAs (allowed %d..%d, %s; %d adds/moves written as FMA)  %s\n", ok ? "ok" : "FAIL", n[f], lo, hi, what, exact[f] + 0, f
        if (!ok && hi == 0) printf "      first: %s\n", first[f]
    }
    # per architecture: 12 tiles and 6 strips, 2 probes (tile and strip),
    # 16 decimations, the two finalize kernels (one for the tests, one
    # after the small tiles), the terms kernel and the 5 kernels of the
    # sequential sum; the probes, the tests' finalize and the terms kernel
    # come from the tests' kernel library
    if (kernels - others - checks_k != 44 * narch) { printf "FAIL: expected %d float_ssim kernels (%d architectures), found %d\n", 44 * narch, narch, kernels - others - checks_k; exit 1 }
    if (bad) { printf "FAIL: %d kernel(s) outside their allowed FMA count (a contraction, or a changed library sequence)\n", bad; exit 1 }
    printf "no contracted FMA in any kernel (%d kernels, %d of them not float_ssim kernels, %d architectures)\n", kernels, others, narch
}' "$sass"
