/*
 * 2^30 / m truncated for m in 1..32768, the decoupling's quotient table
 * (vmaf_adm_div_lut()) computed instead of gathered, for the AVX2 and
 * AVX-512 files (include only where AVX2 is enabled).
 *
 * q0 = (int)(2^30 / m) in float is within 64/m + 1 of the quotient, so the
 * remainder 2^30 - q0*m is below 2^24 and exact in float; floor(remainder
 * / m) in float is exact too: a quotient under 65 in magnitude is never
 * within 2^-18 of an integer it does not equal, as 1/m >= 2^-15. Every m
 * has been checked.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_DIV30_X86_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_DIV30_X86_H

#include <immintrin.h>

static inline __m256i adm_div30_8(__m256i m)
{
    const __m256 mf = _mm256_cvtepi32_ps(m);
    const __m256i q0 = _mm256_cvttps_epi32(_mm256_div_ps(_mm256_set1_ps(1073741824.0f), mf));
    const __m256i rem = _mm256_sub_epi32(_mm256_set1_epi32(1 << 30), _mm256_mullo_epi32(q0, m));
    const __m256 d = _mm256_floor_ps(_mm256_div_ps(_mm256_cvtepi32_ps(rem), mf));
    return _mm256_add_epi32(q0, _mm256_cvttps_epi32(d));
}

#ifdef __AVX512F__
static inline __m512i adm_div30_16(__m512i m)
{
    const __m512 mf = _mm512_cvtepi32_ps(m);
    const __m512i q0 = _mm512_cvttps_epi32(_mm512_div_ps(_mm512_set1_ps(1073741824.0f), mf));
    const __m512i rem = _mm512_sub_epi32(_mm512_set1_epi32(1 << 30), _mm512_mullo_epi32(q0, m));
    const __m512 d = _mm512_div_ps(_mm512_cvtepi32_ps(rem), mf);
    return _mm512_add_epi32(q0,
                            _mm512_cvt_roundps_epi32(d, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_DIV30_X86_H */
