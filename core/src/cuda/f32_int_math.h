/*
 * Correctly rounded f32 division and square root in integer arithmetic:
 * what the CPU's `a / b` and `(float)sqrt((double)x)` give, with no
 * floating-point instruction. The device's own f32 division and square
 * root are FMA sequences, which the machine-code check (test/cuda) admits
 * only where a probe kernel accounts for them; these need no such rule,
 * and the host tests run the very same functions
 * (test/psnr_hvs/test_f32_int_math.c).
 *
 * Plain C99 usable from CUDA device code (F32_INT_FN).
 */
#ifndef LIBVMAF_SRC_CUDA_F32_INT_MATH_H
#define LIBVMAF_SRC_CUDA_F32_INT_MATH_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define F32_INT_FN static __host__ __device__ __forceinline__
#else
#define F32_INT_FN static inline
#endif

F32_INT_FN uint32_t f32_int_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof(b));
    return b;
}

F32_INT_FN float f32_int_float(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof(x));
    return x;
}

/* The significand m (2^23 <= m < 2^24) and exponent e of a positive finite
 * x = m 2^(e - 150), subnormals normalized. */
F32_INT_FN void f32_int_unpack(uint32_t b, uint32_t *m, int *e)
{
    int ex = (int)(b >> 23);
    uint32_t mx = b & 0x7fffffu;
    if (ex)
        mx |= 0x800000u;
    else
        ex = 1;
    while (!(mx & 0x800000u)) {
        mx <<= 1;
        ex--;
    }
    *m = mx;
    *e = ex;
}

/* The f32 nearest (q + f) 2^p, ties to even, for 2^24 <= q < 2^40 and a
 * fraction 0 <= f < 1 that is non-zero exactly when sticky: subnormal
 * results and overflow to infinity included. */
F32_INT_FN float f32_int_round(uint64_t q, int sticky, int p)
{
    int nb = 0;
    while (nb < 64 && (q >> nb) > 1)
        nb++;
    nb++; /* bits of q */
    const int s = nb - 24; /* >= 1: the bits below the significand */
    const int eb = p + s + 150; /* biased exponent of a normal result */
    const int e0 = eb >= 1 ? eb : 1;
    int shift = s + (e0 - eb); /* more for a subnormal result */
    if (shift > 63)
        shift = 63;
    uint64_t m = q >> shift;
    const uint64_t dropped = q & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (dropped > half || (dropped == half && (sticky || (m & 1))))
        m++; /* a carry into 2^24 moves the exponent up, as it should */
    const uint64_t bits = ((uint64_t)(e0 - 1) << 23) + m;
    return f32_int_float(bits >= 0x7f800000u ? 0x7f800000u : (uint32_t)bits);
}

/* a / b rounded to nearest, for a >= 0 and b > 0, both finite. */
F32_INT_FN float f32_int_div(float a, float b)
{
    const uint32_t ua = f32_int_bits(a), ub = f32_int_bits(b);
    if (!(ua & 0x7fffffffu))
        return a; /* zero */
    uint32_t ma, mb;
    int ea, eb;
    f32_int_unpack(ua, &ma, &ea);
    f32_int_unpack(ub, &mb, &eb);
    /* a / b = (ma / mb) 2^(ea - eb); the quotient of ma 2^26 by mb is in
     * [2^25, 2^27), enough bits to round, the remainder the sticky bit. */
    const uint64_t num = (uint64_t)ma << 26;
    const uint64_t q = num / mb;
    return f32_int_round(q, num - q * mb != 0, ea - eb - 26);
}

/* sqrt(x) rounded to nearest, for a finite x >= 0: the f32 that the CPU's
 * f64 square root gives rounded to f32 (a double rounding that cannot
 * differ, 53 >= 2 * 24 + 2). */
F32_INT_FN float f32_int_sqrt(float x)
{
    const uint32_t ux = f32_int_bits(x);
    if (!(ux & 0x7fffffffu))
        return x; /* zero */
    uint32_t m;
    int e;
    f32_int_unpack(ux, &m, &e);
    int k = e - 150; /* x = m 2^k */
    uint64_t n = m;
    if (k & 1) {
        n <<= 1;
        k--;
    }
    n <<= 26; /* sqrt(n) in [2^24.5, 2^26): 25 or 26 bits */
    /* The integer square root, bit by bit. */
    uint64_t r = 0, rem = n;
    for (uint64_t bit = 1ull << 50; bit; bit >>= 2) {
        if (rem >= r + bit) {
            rem -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
    }
    return f32_int_round(r, rem != 0, k / 2 - 13);
}

#endif /* LIBVMAF_SRC_CUDA_F32_INT_MATH_H */
