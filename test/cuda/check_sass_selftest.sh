#!/bin/sh
# check_sass.sh against made-up cuobjdump listings, so that its rules are
# checked where no GPU toolkit disassembles real kernels (CI): a kernel
# within its rule passes, one FMA too many fails, an FMA in a kernel
# without a library operation fails, a*1+c does not count, a probe scales
# by the seeds, a missing probe and a wrong kernel count fail.
# Usage: check_sass_selftest.sh <check_sass.sh>
CHECK=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/rules" <<'RULES'
_fma_probe   probe  -  probe
k_div        0  S:div_fma_probe  div
.            0  0  other
count div 1
RULES
# kernel NAME SEEDS FMAS [EXACT]: a function with SEEDS f64 reciprocal
# seeds, FMAS real FMAs and EXACT FMAs by one.
kernel() {
    echo "		Function : $1"
    i=0; while [ $i -lt "$2" ]; do echo "        /*0000*/  MUFU.RCP64H R2, R3 ;"; i=$((i + 1)); done
    i=0; while [ $i -lt "$3" ]; do echo "        /*0010*/  DFMA R4, R2, R6, R8 ;"; i=$((i + 1)); done
    i=0; while [ $i -lt "${4:-0}" ]; do echo "        /*0020*/  FFMA R4, R2, 1, R8 ;"; i=$((i + 1)); done
}
listing() { # div kernel's seeds and FMAs, the other kernel's FMAs, [no probe]
    echo "	code for sm_90"
    echo "	arch = sm_90"
    [ -z "$4" ] && kernel div_fma_probe 1 5
    kernel _Z5k_divPd "$1" "$2"
    kernel _Z7k_otherPf 0 "$3" 3
}
fails=0
expect() { # want (pass|fail), what, listing arguments...
    want=$1 what=$2
    shift 2
    listing "$@" >"$dir/sass"
    if sh "$CHECK" "$dir/rules" --sass "$dir/sass" >"$dir/out" 2>&1; then got=pass; else got=fail; fi
    if [ "$got" != "$want" ]; then
        echo "FAIL: $what: check_sass.sh says $got, want $want"; sed 's/^/    /' "$dir/out"
        fails=$((fails + 1))
    else
        echo "ok: $what ($got)"
    fi
}
expect pass "two divisions, twice the probe's FMAs" 2 10 0
expect fail "two divisions, one FMA more" 2 11 0
expect pass "one division, fewer FMAs" 1 3 0
expect fail "an FMA in a kernel without a library operation" 1 5 1
expect fail "the probe missing" 1 5 0 noprobe
{ listing 1 5 0; kernel _Z5k_divPf 1 5; } >"$dir/sass"
if sh "$CHECK" "$dir/rules" --sass "$dir/sass" >"$dir/out" 2>&1; then
    echo "FAIL: two kernels of a group counted 1 pass"; fails=$((fails + 1))
else
    echo "ok: a wrong kernel count fails"
fi
[ $fails -eq 0 ] && echo "check_sass.sh: every case as expected" || exit 1
