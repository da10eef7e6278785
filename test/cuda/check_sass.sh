#!/bin/sh
# Machine-code check of every kernel in the library: no fused multiply-add
# beyond what its rule in a rules file (test/cuda/sass_rules.txt, which says
# why) allows. Each architecture's machine code is checked on its own.
#
# Usage: check_sass.sh RULES <libvmaf.a or object>...   (exit 77 without cuobjdump)
#        check_sass.sh RULES --sass FILE                 (a cuobjdump -sass listing)
RULES=$1
shift
sass=$(mktemp)
one=$(mktemp)
trap 'rm -f "$sass" "$one"' EXIT
if [ "$1" = --sass ]; then
    cat "$2" >"$sass" || exit 1
else
    CUOBJDUMP=$(command -v cuobjdump 2>/dev/null || true)
    [ -z "$CUOBJDUMP" ] && [ -x /usr/local/cuda/bin/cuobjdump ] && CUOBJDUMP=/usr/local/cuda/bin/cuobjdump
    if [ -z "$CUOBJDUMP" ]; then
        echo "SKIP: cuobjdump not found (it comes with a full CUDA toolkit, as on the GPU machine)"
        exit 77
    fi
    # A thin archive (meson's uninstalled static libraries) holds only the
    # paths of its objects, which cuobjdump cannot follow: it reads those.
    dump() {
        if ! "$CUOBJDUMP" -sass "$1" >"$one" 2>&1; then
            echo "FAIL: cuobjdump -sass $1 failed:"; head -5 "$one"; exit 1
        fi
        cat "$one" >>"$sass"
    }
    for lib in "$@"; do
        if [ "$(head -c 7 "$lib" 2>/dev/null)" = '!<thin>' ]; then
            for m in $(ar t "$lib"); do
                case "$m" in /*) dump "$m" ;; *) dump "$(dirname "$lib")/$m" ;; esac
            done
        else
            dump "$lib"
        fi
    done
fi
awk -v rules="$RULES" '
function fail(msg) { print "FAIL: " msg; bad_rules = 1 }
BEGIN {
    while ((getline line < rules) > 0) {
        sub(/^[ \t]+/, "", line)
        if (line ~ /^(#|$)/) continue
        k = split(line, w, /[ \t]+/)
        if (w[1] == "count" && k == 3) { want[w[2]] = w[3]; continue }
        if (k != 4) { fail("rule not PATTERN MIN MAX GROUP: " line); continue }
        nr++; re[nr] = w[1]; lo[nr] = w[2]; hi[nr] = w[3]; grp[nr] = w[4]
    }
    if (!nr) fail("no rules read from " rules)
}
# A bound of kernel f on architecture a (see the rules file).
function bound(expr, f, a,   k, t, i, v, p) {
    v = 0; k = split(expr, t, "+")
    for (i = 1; i <= k; i++) {
        if (t[i] ~ /^[0-9]+$/) { v += t[i]; continue }
        p = a " " substr(t[i], 3)
        if (!(p in pn) || (t[i] ~ /^S:/ && pm[p] < 1)) { fail("probe " p " missing or without seeds, for " f); continue }
        if (t[i] ~ /^P:/) v += pn[p]
        else v += int((mufu[f] * pn[p] + pm[p] - 1) / pm[p])
    }
    return v
}
function rule_of(name,   i) { for (i = 1; i <= nr; i++) if (name ~ re[i]) return i; return 0 }
/^[ \t]*arch = sm_/ { arch = $3; archs[arch] = 1; next }
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
    if (bad_rules) exit 1
    for (f in seen) {
        split(f, part, " ")
        r = rule_of(part[2])
        if (r && lo[r] == "probe") { pn[f] = n[f]; pm[f] = mufu[f]; probes[part[1]] = probes[part[1]] " " part[2] " " n[f] }
    }
    for (a in archs) printf "probes (%s):%s FMAs (library div/sqrt sequences)\n", a, probes[a]
    bad = 0; kernels = 0
    for (f in seen) {
        split(f, part, " ")
        a = part[1]; name = part[2]
        r = rule_of(name)
        if (!r) { fail("no rule for " f); bad++; continue }
        if (lo[r] == "probe") continue
        l = bound(lo[r], f, a); h = bound(hi[r], f, a)
        got[a " " grp[r]]++; kernels++
        ok = n[f] >= l && n[f] <= h
        if (!ok) bad++
        printf "%-4s %4d FMAs (allowed %d..%d, rule %s, %d seeds; %d adds/moves written as FMA)  %s\n", ok ? "ok" : "FAIL", n[f], l, h, re[r], mufu[f], exact[f] + 0, f
        if (!ok && h == 0) printf "      first: %s\n", first[f]
    }
    for (a in archs)
        for (g in want)
            if (got[a " " g] + 0 != want[g]) { printf "FAIL: expected %d %s kernels on %s, found %d\n", want[g], g, a, got[a " " g] + 0; bad++ }
    if (bad_rules || bad) { printf "FAIL: %d kernel(s) or counts outside their rules (a contraction, a changed library sequence, or a kernel without its rule)\n", bad; exit 1 }
    narch = 0; for (a in archs) narch++
    if (!kernels) { print "FAIL: no kernel found in the SASS"; exit 1 }
    printf "no contracted FMA in any kernel (%d kernels, %d architectures)\n", kernels, narch
}' "$sass"
