/*
 * The per-pixel statistic of the integer VIF (stat_px, vif_dsp.h) with
 * AVX2, 8 pixels a step: the rounded 64-bit products of the means, the
 * variances, and for the pixels with log terms the f64 steps of
 * docs/metrics/vif_numerics.md §3 in C's types and order, 4 doubles at a
 * time. Every integer whose log2q is taken (the 32-bit ones and t, below
 * 2^45) is an exact double here, so log2q reads the double's bits: the
 * exponent gives k, the top 15 mantissa bits the table index (scalar
 * loads). All sums are exact integers, so lanes may be added in any order.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/vif/vif_x86.h"

#define NSQ 131072

/* The table indices of a step's two halves (bit h of a mask: half h holds
 * indices), looked up at the next step: loaded right after the long f64
 * chain that yields them, they would stall it. */
typedef struct PxPending {
    uint64_t den[8], t[8], n1[8], over_t[8], over_p[VIF_MAX_SETS][8];
    unsigned den_halves, num_halves, over_halves;
} PxPending;

typedef struct PxSums {
    __m256i nnl;  /* 4 x i64: sigma2_sq of the pixels without log terms */
    __m256i nnl_count, log_count; /* 8 x i32: pixel counts (n < 2^31) */
    __m256i eden; /* 4 x i64: biased exponents of the denominator's terms */
    __m256i enum_; /* 4 x i64: exponent differences of the shared numerator's */
    __m256i eextra[VIF_MAX_SETS]; /* 4 x i64: those of set p less the shared */
    int64_t tden, tnum, textra[VIF_MAX_SETS]; /* the table parts of the same */
    PxPending q;
} PxSums;

/* The sets whose limit exceeds the smallest one. */
typedef struct PxSets {
    __m256d min, limit[VIF_MAX_SETS];
    unsigned index[VIF_MAX_SETS], n;
} PxSets;

static inline __m256d round_z(__m256d x)
{
    return _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}

static inline __m256i log_exponent(__m256d v)
{
    return _mm256_srli_epi64(_mm256_castpd_si256(v), 52);
}

/* The table indices of v in the lanes of mask, the table's zero entry in
 * the others, to x[0..3]. Lookups are scalar loads: AVX2 gathers are slower
 * here. */
static inline void put_index(uint64_t *x, __m256d v, __m256i mask)
{
    const __m256i i = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(v), 37),
                                       _mm256_set1_epi64x(0x7fff));
    _mm256_storeu_si256((__m256i *)x,
                        _mm256_blendv_epi8(_mm256_set1_epi64x(VIF_LOG2_TABLE_SIZE), i, mask));
}

static inline int32_t sum4(const uint64_t *x)
{
    const uint16_t *t = vmaf_vif_log2_table;
    return (t[x[0]] + t[x[1]]) + (t[x[2]] + t[x[3]]);
}

/* The table parts of the pending terms. */
static void px_lookups(const PxSets *sets, PxSums *s)
{
    PxPending *q = &s->q;
    /* through memory: gcc would move each index out of its vector alone */
    __asm__("" : "+m"(*q));
    for (unsigned h = 0; h < 2; h++) {
        if (q->den_halves >> h & 1)
            s->tden += sum4(q->den + 4 * h);
        if (q->num_halves >> h & 1)
            s->tnum += sum4(q->t + 4 * h) - sum4(q->n1 + 4 * h);
        if (!(q->over_halves >> h & 1))
            continue;
        const int32_t t_shared = sum4(q->over_t + 4 * h);
        for (unsigned p = 0; p < sets->n; p++)
            s->textra[p] += sum4(q->over_p[p] + 4 * h) - t_shared;
    }
    q->den_halves = q->num_halves = q->over_halves = 0;
}

/* The numerator terms of the sets with a larger limit, in the lanes where
 * g exceeds the smallest limit: their difference from the shared term. */
static void px_extra(const PxSets *sets, __m256d g, __m256d d1, __m256d n1, __m256d t,
                     __m256i num, unsigned h, PxSums *s)
{
    const __m256i over = _mm256_and_si256(
        _mm256_castpd_si256(_mm256_cmp_pd(g, sets->min, _CMP_GT_OQ)), num);
    if (_mm256_testz_si256(over, over))
        return;
    const __m256i e_shared = log_exponent(t);
    put_index(s->q.over_t + 4 * h, t, over);
    for (unsigned p = 0; p < sets->n; p++) {
        const __m256d gl = _mm256_min_pd(g, sets->limit[p]);
        const __m256d tp = _mm256_add_pd(round_z(_mm256_mul_pd(_mm256_mul_pd(gl, gl), d1)), n1);
        const __m256i de = _mm256_sub_epi64(log_exponent(tp), e_shared);
        s->eextra[p] = _mm256_add_epi64(s->eextra[p], _mm256_and_si256(de, over));
        put_index(s->q.over_p[p] + 4 * h, tp, over);
    }
    s->q.over_halves |= 1u << h;
}

/* The log terms of 4 pixels, half h of a step (lanes of lg: sigma1_sq >= 2;
 * of num: also sigma12 > 0 and sigma2_sq > 0), in the reference's f64
 * order. */
static inline void px_logs(__m128i s1, __m128i s2, __m128i s12, __m128i lg32, __m128i num32,
                           unsigned h, const PxSets *sets, PxSums *s)
{
    const __m256d nsq = _mm256_set1_pd(NSQ);
    const __m256i lg = _mm256_cvtepi32_epi64(lg32);
    const __m256d d1 = _mm256_cvtepi32_pd(s1);
    const __m256d vden = _mm256_add_pd(d1, nsq);
    put_index(s->q.den + 4 * h, vden, lg);
    s->q.den_halves |= 1u << h;
    s->eden = _mm256_add_epi64(s->eden, _mm256_and_si256(log_exponent(vden), lg));
    if (!_mm_movemask_epi8(num32))
        return;
    const __m256i num = _mm256_cvtepi32_epi64(num32);
    const double eps = 65536 * 1.0e-10; /* as C spells it */
    const __m256d d2 = _mm256_cvtepi32_pd(s2), d12 = _mm256_cvtepi32_pd(s12);
    const __m256d g = _mm256_div_pd(d12, _mm256_add_pd(d1, _mm256_set1_pd(eps)));
    const __m256d sv = _mm256_sub_pd(d2, _mm256_mul_pd(g, d12));
    /* (int32)sv for sv > 0, else 0; exact as a double */
    const __m256d n1 = _mm256_add_pd(_mm256_max_pd(round_z(sv), _mm256_setzero_pd()), nsq);
    const __m256d gl = _mm256_min_pd(g, sets->min);
    const __m256d t = _mm256_add_pd(round_z(_mm256_mul_pd(_mm256_mul_pd(gl, gl), d1)), n1);
    put_index(s->q.t + 4 * h, t, num);
    put_index(s->q.n1 + 4 * h, n1, num);
    s->q.num_halves |= 1u << h;
    const __m256i de = _mm256_sub_epi64(log_exponent(t), log_exponent(n1));
    s->enum_ = _mm256_add_epi64(s->enum_, _mm256_and_si256(de, num));
    if (sets->n)
        px_extra(sets, g, d1, n1, t, num, h, s);
}

/* (a * b + 2^31) >> 32 of u32 lanes; ao, bo: a, b shifted down 32. */
static inline __m256i mul_round(__m256i a, __m256i ao, __m256i b, __m256i bo)
{
    const __m256i half = _mm256_set1_epi64x(0x80000000);
    const __m256i e = _mm256_add_epi64(_mm256_mul_epu32(a, b), half);
    const __m256i o = _mm256_add_epi64(_mm256_mul_epu32(ao, bo), half);
    return _mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xaa);
}

static inline __m256i load_lanes(const uint32_t *p, __m256i valid, int full)
{
    return full ? _mm256_loadu_si256((const __m256i *)p)
                : _mm256_maskload_epi32((const int *)p, valid);
}

/* 8 pixels at m + i; lanes outside valid (a tail) count nowhere. */
static inline void px8(const VifMoments *m, unsigned i, __m256i valid, int full,
                       const PxSets *sets, PxSums *s)
{
    const __m256i mu1 = load_lanes(m->mu1 + i, valid, full);
    const __m256i mu2 = load_lanes(m->mu2 + i, valid, full);
    const __m256i mu1o = _mm256_srli_epi64(mu1, 32), mu2o = _mm256_srli_epi64(mu2, 32);
    const __m256i zero = _mm256_setzero_si256();
    px_lookups(sets, s); /* the step before's */
    /* the differences wrap in 32 bits and are read as signed, as in C */
    const __m256i s1 = _mm256_sub_epi32(load_lanes(m->xx + i, valid, full),
                                        mul_round(mu1, mu1o, mu1, mu1o));
    const __m256i s2 = _mm256_max_epi32(_mm256_sub_epi32(load_lanes(m->yy + i, valid, full),
                                                         mul_round(mu2, mu2o, mu2, mu2o)),
                                        zero);
    const __m256i s12 = _mm256_sub_epi32(load_lanes(m->xy + i, valid, full),
                                         mul_round(mu1, mu1o, mu2, mu2o));
    const __m256i nl = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(NSQ), s1), valid);
    const __m256i lg = _mm256_andnot_si256(nl, valid);
    const __m256i nl_s2 = _mm256_and_si256(nl, s2);
    s->nnl = _mm256_add_epi64(s->nnl, _mm256_add_epi64(_mm256_srli_epi64(nl_s2, 32),
                                                       _mm256_blend_epi32(nl_s2, zero, 0xaa)));
    s->nnl_count = _mm256_sub_epi32(s->nnl_count, nl);
    s->log_count = _mm256_sub_epi32(s->log_count, lg);
    if (_mm256_testz_si256(lg, lg))
        return;
    const __m256i num = _mm256_and_si256(
        lg, _mm256_and_si256(_mm256_cmpgt_epi32(s12, zero), _mm256_cmpgt_epi32(s2, zero)));
    px_logs(_mm256_castsi256_si128(s1), _mm256_castsi256_si128(s2), _mm256_castsi256_si128(s12),
            _mm256_castsi256_si128(lg), _mm256_castsi256_si128(num), 0, sets, s);
    px_logs(_mm256_extracti128_si256(s1, 1), _mm256_extracti128_si256(s2, 1),
            _mm256_extracti128_si256(s12, 1), _mm256_extracti128_si256(lg, 1),
            _mm256_extracti128_si256(num, 1), 1, sets, s);
}

static int64_t hsum64(__m256i v)
{
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_cvtsi128_si64(x) + _mm_extract_epi64(x, 1);
}

static int64_t hsum32(__m128i v)
{
    return (int64_t)_mm_extract_epi32(v, 0) + _mm_extract_epi32(v, 1) + _mm_extract_epi32(v, 2) +
           _mm_extract_epi32(v, 3);
}

static void px_flush(PxSums *s, const PxSets *sets, const VifGain *gain, VifAccum *acc)
{
    const int64_t log_count = hsum32(_mm_add_epi32(_mm256_castsi256_si128(s->log_count),
                                                    _mm256_extracti128_si256(s->log_count, 1)));
    const int64_t nnl_count = hsum32(_mm_add_epi32(_mm256_castsi256_si128(s->nnl_count),
                                                    _mm256_extracti128_si256(s->nnl_count, 1)));
    /* a term is T + 2048 * (exponent - 1023 - 15), and the denominator's
     * less 17 * 2048 */
    acc->den_log += s->tden + 2048 * (hsum64(s->eden) - 1055 * log_count);
    acc->num_non_log += hsum64(s->nnl);
    acc->den_non_log += nnl_count;
    const int64_t shared = s->tnum + 2048 * hsum64(s->enum_);
    for (unsigned p = 0; p < gain->n; p++)
        acc->num_log[p] += shared;
    for (unsigned q = 0; q < sets->n; q++)
        acc->num_log[sets->index[q]] += s->textra[q] + 2048 * hsum64(s->eextra[q]);
}

static void stat_px_avx2(const VifMoments *m, unsigned n, const VifGain *gain, VifAccum *acc)
{
    PxSets sets; /* no initialiser: it would clear every limit first */
    sets.min = _mm256_set1_pd(gain->min);
    sets.n = 0;
    for (unsigned p = 0; p < gain->n; p++)
        if (gain->limit[p] > gain->min) {
            sets.limit[sets.n] = _mm256_set1_pd(gain->limit[p]);
            sets.index[sets.n++] = p;
        }
    PxSums s; /* the sets' sums only as far as used */
    s.nnl = s.eden = s.enum_ = _mm256_setzero_si256();
    s.tden = s.tnum = 0;
    s.q.den_halves = s.q.num_halves = s.q.over_halves = 0;
    s.nnl_count = _mm256_setzero_si256();
    s.log_count = _mm256_setzero_si256();
    for (unsigned q = 0; q < sets.n; q++) {
        s.eextra[q] = _mm256_setzero_si256();
        s.textra[q] = 0;
    }
    unsigned i = 0;
    for (; i + 8 <= n; i += 8)
        px8(m, i, _mm256_set1_epi32(-1), 1, &sets, &s);
    if (i < n) {
        const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)),
                                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        px8(m, i, valid, 0, &sets, &s);
    }
    px_lookups(&sets, &s);
    px_flush(&s, &sets, gain, acc);
}

void vmaf_vif_dsp_init_stat_avx2(VifDsp *dsp)
{
    dsp->stat_px = stat_px_avx2;
}
