#!/bin/bash
# Compiles the kernels to PTX with the project's nvcc flags and fails on any
# floating-point multiply-add (fma.*.f32/f64, mad.f32): contraction changes
# the last bits, and the scores are specified bit for bit. Needs only nvcc,
# so it runs on machines without a GPU (CI); the SASS check (check_sass.sh)
# covers what ptxas does on a GPU machine.
#   check_ptx.sh NVCC SOURCE... -- [nvcc args...]
set -u
nvcc=$1
shift
srcs=() # an array: paths may hold spaces
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    srcs+=("$1")
    shift
done
[ $# -gt 0 ] && shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
: >"$out/k.ptx"
for src in "${srcs[@]}"; do
    if ! "$nvcc" -ptx -arch=compute_90 "$@" "$src" -o "$out/one.ptx" 2>"$out/err"; then
        cat "$out/err"
        echo "FAIL: nvcc -ptx $src failed"
        exit 1
    fi
    cat "$out/one.ptx" >>"$out/k.ptx"
done
entries=$(grep -cE '^[.]visible [.]entry|^[.]entry' "$out/k.ptx")
pattern='^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?(fma|mad)([.][a-z0-9]+)*[.]f(16|32|64)'
# The two places where multiply-adds are the algorithm and not a
# contraction: the combine's division and square root (div_in_range and
# sqrt_in_range in float_ssim/ssim_exact.cuh), each an inline assembly
# block that starts with its tag and holds exactly seven fma.rn.f64
# (division) or two fma.rn.f32 (square root). Those are admitted; a tagged
# block with any other count, and every multiply-add outside such blocks,
# fails.
awk -v pat="$pattern" '
/begin inline asm/ { inasm = 1; want = 0; nf = 0; next }
/end inline asm/ {
    if (want) { blocks++; if (nf != want) badblocks++ }
    inasm = 0; want = 0; next
}
inasm && index($0, "float_ssim: division fast path") { want = 7; kind = "fma[.]rn[.]f64" }
inasm && index($0, "float_ssim: square root fast path") { want = 2; kind = "fma[.]rn[.]f32" }
$0 ~ pat {
    if (inasm && want && $0 ~ kind) { nf++; admitted++ }
    else { n++; if (shown++ < 10) print NR ": " $0 }
}
END { printf "%d %d %d\n", n + 0, admitted + 0, blocks + 0 > "/dev/stderr"; exit (badblocks ? 2 : 0) }
' "$out/k.ptx" 2>"$out/counts" >"$out/shown"
rc=$?
read -r n admitted blocks <"$out/counts"
echo "$entries kernels, $n floating-point multiply-adds in the PTX" \
    "(and $admitted in $blocks division and square root blocks)"
if [ "$entries" -eq 0 ]; then
    echo "FAIL: no kernel entry found in the PTX"
    exit 1
fi
if [ "$rc" -ne 0 ]; then
    echo "FAIL: a tagged division or square root block with the wrong multiply-adds"
    exit 1
fi
if [ "$n" -ne 0 ]; then
    cat "$out/shown"
    echo "FAIL: contracted multiply-add in the kernels"
    exit 1
fi
echo "ok: no contracted multiply-add"
