/*
 * The per-pixel statistic of the integer VIF (stat_px, vif_dsp.h) with
 * AVX-512 (F, DQ), 16 pixels a step and 8 doubles at a time; the method is
 * vif_stat_avx2.c's (C's f64 steps in C's order, log2q read off the exact
 * double of its argument, the table sums scalar). Lanes are selected with
 * mask registers; a tail is loaded under its mask.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/vif/vif_x86.h"

#define NSQ 131072

/* The table indices of a step's two halves (bit h of a mask: half h holds
 * indices), looked up at the next step: loaded right after the long f64
 * chain that yields them, they would stall it. */
typedef struct PxPending {
    uint64_t den[16], t[16], n1[16], over_t[16], over_p[VIF_MAX_SETS][16];
    unsigned den_halves, num_halves, over_halves;
} PxPending;

typedef struct PxSums {
    __m512i nnl;  /* 8 x i64: sigma2_sq of the pixels without log terms */
    __m512i eden; /* 8 x i64: biased exponents of the denominator's terms */
    __m512i enum_; /* 8 x i64: exponent differences of the shared numerator's */
    __m512i eextra[VIF_MAX_SETS]; /* 8 x i64: those of set p less the shared */
    int64_t tden, tnum, textra[VIF_MAX_SETS]; /* the table parts of the same */
    int64_t nnl_count, log_count;
    PxPending q;
} PxSums;

/* The sets whose limit exceeds the smallest one. */
typedef struct PxSets {
    __m512d min, limit[VIF_MAX_SETS];
    unsigned index[VIF_MAX_SETS], n;
} PxSets;

static inline __m512d round_z(__m512d x)
{
    return _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
}

static inline __m512i log_exponent(__m512d v)
{
    return _mm512_srli_epi64(_mm512_castpd_si512(v), 52);
}

/* The table indices of v in the lanes of k, the table's zero entry in the
 * others, to x[0..7]. */
static inline void put_index(uint64_t *x, __m512d v, __mmask8 k)
{
    const __m512i i = _mm512_and_si512(_mm512_srli_epi64(_mm512_castpd_si512(v), 37),
                                       _mm512_set1_epi64(0x7fff));
    _mm512_storeu_si512(x, _mm512_mask_blend_epi64(k, _mm512_set1_epi64(VIF_LOG2_TABLE_SIZE), i));
}

static inline int32_t sum8(const uint64_t *x)
{
    const uint16_t *t = vmaf_vif_log2_table;
    return (t[x[0]] + t[x[1]] + t[x[2]] + t[x[3]]) + (t[x[4]] + t[x[5]] + t[x[6]] + t[x[7]]);
}

/* The table parts of the pending terms. */
static void px_lookups(const PxSets *sets, PxSums *s)
{
    PxPending *q = &s->q;
    /* through memory: gcc would move each index out of its vector alone */
    __asm__("" : "+m"(*q));
    for (unsigned h = 0; h < 2; h++) {
        if (q->den_halves >> h & 1)
            s->tden += sum8(q->den + 8 * h);
        if (q->num_halves >> h & 1)
            s->tnum += sum8(q->t + 8 * h) - sum8(q->n1 + 8 * h);
        if (!(q->over_halves >> h & 1))
            continue;
        const int32_t t_shared = sum8(q->over_t + 8 * h);
        for (unsigned p = 0; p < sets->n; p++)
            s->textra[p] += sum8(q->over_p[p] + 8 * h) - t_shared;
    }
    q->den_halves = q->num_halves = q->over_halves = 0;
}

/* The numerator terms of the sets with a larger limit, in the lanes where
 * g exceeds the smallest limit: their difference from the shared term. */
static void px_extra(const PxSets *sets, __m512d g, __m512d d1, __m512d n1, __m512d t,
                     __mmask8 num, unsigned h, PxSums *s)
{
    const __mmask8 over = _mm512_mask_cmp_pd_mask(num, g, sets->min, _CMP_GT_OQ);
    if (!over)
        return;
    const __m512i e_shared = log_exponent(t);
    put_index(s->q.over_t + 8 * h, t, over);
    for (unsigned p = 0; p < sets->n; p++) {
        const __m512d gl = _mm512_min_pd(g, sets->limit[p]);
        const __m512d tp = _mm512_add_pd(round_z(_mm512_mul_pd(_mm512_mul_pd(gl, gl), d1)), n1);
        const __m512i de = _mm512_sub_epi64(log_exponent(tp), e_shared);
        s->eextra[p] = _mm512_mask_add_epi64(s->eextra[p], over, s->eextra[p], de);
        put_index(s->q.over_p[p] + 8 * h, tp, over);
    }
    s->q.over_halves |= 1u << h;
}

/* The log terms of 8 pixels, half h of a step (lanes of lg: sigma1_sq >= 2;
 * of num: also sigma12 > 0 and sigma2_sq > 0), in the reference's f64
 * order. */
static inline void px_logs(__m256i s1, __m256i s2, __m256i s12, __mmask8 lg, __mmask8 num,
                           unsigned h, const PxSets *sets, PxSums *s)
{
    const __m512d nsq = _mm512_set1_pd(NSQ);
    const __m512d d1 = _mm512_cvtepi32_pd(s1);
    const __m512d vden = _mm512_add_pd(d1, nsq);
    put_index(s->q.den + 8 * h, vden, lg);
    s->q.den_halves |= 1u << h;
    s->eden = _mm512_mask_add_epi64(s->eden, lg, s->eden, log_exponent(vden));
    if (!num)
        return;
    const double eps = 65536 * 1.0e-10; /* as C spells it */
    const __m512d d2 = _mm512_cvtepi32_pd(s2), d12 = _mm512_cvtepi32_pd(s12);
    const __m512d g = _mm512_div_pd(d12, _mm512_add_pd(d1, _mm512_set1_pd(eps)));
    const __m512d sv = _mm512_sub_pd(d2, _mm512_mul_pd(g, d12));
    /* (int32)sv for sv > 0, else 0; exact as a double */
    const __m512d n1 = _mm512_add_pd(_mm512_max_pd(round_z(sv), _mm512_setzero_pd()), nsq);
    const __m512d gl = _mm512_min_pd(g, sets->min);
    const __m512d t = _mm512_add_pd(round_z(_mm512_mul_pd(_mm512_mul_pd(gl, gl), d1)), n1);
    put_index(s->q.t + 8 * h, t, num);
    put_index(s->q.n1 + 8 * h, n1, num);
    s->q.num_halves |= 1u << h;
    const __m512i de = _mm512_sub_epi64(log_exponent(t), log_exponent(n1));
    s->enum_ = _mm512_mask_add_epi64(s->enum_, num, s->enum_, de);
    if (sets->n)
        px_extra(sets, g, d1, n1, t, num, h, s);
}

/* (a * b + 2^31) >> 32 of u32 lanes; ao, bo: a, b shifted down 32. */
static inline __m512i mul_round(__m512i a, __m512i ao, __m512i b, __m512i bo)
{
    const __m512i half = _mm512_set1_epi64(0x80000000);
    const __m512i e = _mm512_add_epi64(_mm512_mul_epu32(a, b), half);
    const __m512i o = _mm512_add_epi64(_mm512_mul_epu32(ao, bo), half);
    return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 32), o);
}

/* 16 pixels at m + i, those outside valid (a tail) not loaded nor counted. */
static inline void px16(const VifMoments *m, unsigned i, __mmask16 valid, const PxSets *sets,
                        PxSums *s)
{
    const __m512i mu1 = _mm512_maskz_loadu_epi32(valid, m->mu1 + i);
    const __m512i mu2 = _mm512_maskz_loadu_epi32(valid, m->mu2 + i);
    const __m512i mu1o = _mm512_srli_epi64(mu1, 32), mu2o = _mm512_srli_epi64(mu2, 32);
    const __m512i zero = _mm512_setzero_si512();
    px_lookups(sets, s); /* the step before's */
    /* the differences wrap in 32 bits and are read as signed, as in C */
    const __m512i s1 = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(valid, m->xx + i),
                                        mul_round(mu1, mu1o, mu1, mu1o));
    const __m512i s2 = _mm512_max_epi32(_mm512_sub_epi32(_mm512_maskz_loadu_epi32(valid, m->yy + i),
                                                         mul_round(mu2, mu2o, mu2, mu2o)),
                                        zero);
    const __m512i s12 = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(valid, m->xy + i),
                                         mul_round(mu1, mu1o, mu2, mu2o));
    const __mmask16 nl = _mm512_mask_cmpgt_epi32_mask(valid, _mm512_set1_epi32(NSQ), s1);
    const __mmask16 lg = valid & ~nl;
    const __m512i nl_s2 = _mm512_maskz_mov_epi32(nl, s2);
    s->nnl = _mm512_add_epi64(s->nnl, _mm512_add_epi64(_mm512_srli_epi64(nl_s2, 32),
                                                       _mm512_maskz_mov_epi32(0x5555, nl_s2)));
    s->nnl_count += __builtin_popcount(nl);
    s->log_count += __builtin_popcount(lg);
    if (!lg)
        return;
    const __mmask16 num = _mm512_mask_cmpgt_epi32_mask(_mm512_mask_cmpgt_epi32_mask(lg, s12, zero),
                                                       s2, zero);
    px_logs(_mm512_castsi512_si256(s1), _mm512_castsi512_si256(s2), _mm512_castsi512_si256(s12),
            (__mmask8)lg, (__mmask8)num, 0, sets, s);
    px_logs(_mm512_extracti64x4_epi64(s1, 1), _mm512_extracti64x4_epi64(s2, 1),
            _mm512_extracti64x4_epi64(s12, 1), (__mmask8)(lg >> 8), (__mmask8)(num >> 8), 1,
            sets, s);
}

static void px_flush(const PxSums *s, const PxSets *sets, const VifGain *gain, VifAccum *acc)
{
    /* a term is T + 2048 * (exponent - 1023 - 15), and the denominator's
     * less 17 * 2048 */
    acc->den_log += s->tden + 2048 * (_mm512_reduce_add_epi64(s->eden) - 1055 * s->log_count);
    acc->num_non_log += _mm512_reduce_add_epi64(s->nnl);
    acc->den_non_log += s->nnl_count;
    const int64_t shared = s->tnum + 2048 * _mm512_reduce_add_epi64(s->enum_);
    for (unsigned p = 0; p < gain->n; p++)
        acc->num_log[p] += shared;
    for (unsigned q = 0; q < sets->n; q++)
        acc->num_log[sets->index[q]] += s->textra[q] + 2048 * _mm512_reduce_add_epi64(s->eextra[q]);
}

static void stat_px_avx512(const VifMoments *m, unsigned n, const VifGain *gain, VifAccum *acc)
{
    PxSets sets; /* no initialiser: it would clear every limit first */
    sets.min = _mm512_set1_pd(gain->min);
    sets.n = 0;
    for (unsigned p = 0; p < gain->n; p++)
        if (gain->limit[p] > gain->min) {
            sets.limit[sets.n] = _mm512_set1_pd(gain->limit[p]);
            sets.index[sets.n++] = p;
        }
    PxSums s; /* the sets' sums only as far as used */
    s.nnl = s.eden = s.enum_ = _mm512_setzero_si512();
    s.tden = s.tnum = 0;
    s.nnl_count = s.log_count = 0;
    s.q.den_halves = s.q.num_halves = s.q.over_halves = 0;
    for (unsigned q = 0; q < sets.n; q++) {
        s.eextra[q] = _mm512_setzero_si512();
        s.textra[q] = 0;
    }
    for (unsigned i = 0; i < n; i += 16)
        px16(m, i, n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1), &sets, &s);
    px_lookups(&sets, &s);
    px_flush(&s, &sets, gain, acc);
}

void vmaf_vif_dsp_init_stat_avx512(VifDsp *dsp)
{
    dsp->stat_px = stat_px_avx512;
}
