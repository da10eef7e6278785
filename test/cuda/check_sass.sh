#!/bin/sh
# Machine-code check of the float_ssim kernels: no fused multiply-add may
# come from our arithmetic (-fmad=false and explicit _rn intrinsics). The
# correctly rounded division and square root sequences of the CUDA library
# do use FMAs internally (their results are still the IEEE ones the CPU
# computes). So: the kernels built with those library operations swapped for
# plain multiplications (template flag PROBE) must have no FMA at all, which
# covers all of our own arithmetic; kernels without division or square root
# must have none; and each production kernel may have only what probe
# kernels holding just the library operations have (times the unrolled
# copies of the combine in the fused kernel).
# Usage: check_sass.sh <libvmaf.a or object>     (exit 77 without cuobjdump)
lib="$1"
CUOBJDUMP=$(command -v cuobjdump 2>/dev/null || true)
[ -z "$CUOBJDUMP" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && CUOBJDUMP=/usr/local/cuda/bin/cuobjdump
if [ -z "$CUOBJDUMP" ]; then
    echo "SKIP: cuobjdump not found (it comes with a full CUDA toolkit, as on the GPU machine)"
    exit 77
fi
sass=$(mktemp)
trap 'rm -f "$sass"' EXIT
if ! "$CUOBJDUMP" -sass "$lib" >"$sass" 2>&1; then
    echo "FAIL: cuobjdump -sass $lib failed:"; head -5 "$sass"; exit 1
fi
awk '
/Function :/ { fn = $NF; n[fn] = 0; seen[fn] = 1; next }
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
    bad = 0; probe_c = -1; probe_f = -1; kernels = 0
    for (f in seen) {
        if (f ~ /ssim_fma_probe_combine/) probe_c = n[f]
        if (f ~ /ssim_fma_probe_finalize/) probe_f = n[f]
    }
    if (probe_c < 0 || probe_f < 0) { print "FAIL: probe kernels not found in the SASS"; exit 1 }
    printf "probes: combine %d, finalize %d FMAs (library div/sqrt sequences)\n", probe_c, probe_f
    for (f in seen) {
        if (f ~ /ssim_fma_probe/) continue
        lo = 0; hi = -1; what = ""
        if (f ~ /k_ssim/ && f ~ /Lb1E/) { hi = 0; what = "fused, library ops swapped out" }
        else if (f ~ /k_vpass/ && f ~ /Lb1E/) { hi = 0; what = "vertical, library ops swapped out" }
        else if (f ~ /k_ssim/) { lo = probe_c; hi = 11 * probe_c; what = "fused: 11 unrolled combines" }
        else if (f ~ /k_vpass/) { lo = probe_c; hi = probe_c; what = "vertical: one combine" }
        else if (f ~ /k_finalize/) { lo = probe_f; hi = probe_f; what = "finalize" }
        else if (f ~ /k_decimate|k_terms_partials|k_hpass/) { hi = 0; what = "no library op" }
        if (hi < 0) continue
        kernels++
        ok = n[f] >= lo && n[f] <= hi
        if (!ok) bad++
        printf "%-4s %4d FMAs (allowed %d..%d, %s; %d adds/moves written as FMA)  %s\n", ok ? "ok" : "FAIL", n[f], lo, hi, what, exact[f] + 0, f
        if (!ok && hi == 0) printf "      first: %s\n", first[f]
    }
    if (kernels < 17) { printf "FAIL: expected 17 kernels, found %d\n", kernels; exit 1 }
    if (bad) { printf "FAIL: %d kernel(s) outside their allowed FMA count (a contraction, or a changed library sequence)\n", bad; exit 1 }
    print "no contracted FMA in any float_ssim kernel"
}' "$sass"
