#!/bin/sh
# Compiles the kernels to PTX with the project's nvcc flags and fails on any
# floating-point multiply-add (fma.*.f32/f64, mad.f32): contraction changes
# the last bits, and the scores are specified bit for bit. Needs only nvcc,
# so it runs on machines without a GPU (CI); the SASS check (check_sass.sh)
# covers what ptxas does on a GPU machine.
#   check_ptx.sh NVCC SOURCE [nvcc args...]
set -u
nvcc=$1
src=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! "$nvcc" -ptx -arch=compute_90 "$@" "$src" -o "$out/k.ptx" 2>"$out/err"; then
    cat "$out/err"
    echo "FAIL: nvcc -ptx failed"
    exit 1
fi
entries=$(grep -cE '^[.]visible [.]entry|^[.]entry' "$out/k.ptx")
pattern='^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?(fma|mad)([.][a-z0-9]+)*[.]f(16|32|64)'
n=$(grep -cE "$pattern" "$out/k.ptx")
echo "$entries kernels, $n floating-point multiply-adds in the PTX"
if [ "$entries" -eq 0 ]; then
    echo "FAIL: no kernel entry found in the PTX"
    exit 1
fi
if [ "$n" -ne 0 ]; then
    grep -nE "$pattern" "$out/k.ptx" | head -n 10
    echo "FAIL: contracted multiply-add in the kernels"
    exit 1
fi
echo "ok: no contracted multiply-add"
