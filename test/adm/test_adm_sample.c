/*
 * The adm CUDA twin's arithmetic (feature/cuda/adm/adm_sample.h), run on
 * the CPU sample by sample in the kernels' stage order, against
 * vmaf_adm_compute(): every score of every option set bit for bit, on
 * random sizes (the smallest, odd), row pitches (ref's and dis's apart,
 * as device pictures may have), bit depths, pictures (noise, a distorted
 * copy, the same picture) and option sets grouped as the twin groups
 * them. Needs no GPU, so every build checks the twin's reformulation of
 * the row-streaming CPU code; the GPU suite checks the device against
 * the same CPU code.
 *
 * Usage: test_adm_sample [seed [cases]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_random.h"

#include "feature/adm/adm.h"
#include "feature/adm/adm_csf.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_frame.h"
#include "feature/adm/adm_tables.h"
#include "feature/cuda/adm/adm_sample.h"

typedef struct Case {
    unsigned w, h, bpc, n;
    unsigned pad[2]; /* samples after each row of ref, dis */
    AdmParams params[ADM_CUDA_GROUPS];
} Case;

/* ---- the twin's passes, serially ---- */

static int32_t *plane(size_t n)
{
    return calloc(n ? n : 1, sizeof(int32_t));
}

static void frame_alloc(AdmCudaFrame *f)
{
    const size_t n = (size_t)f->plan[0].w * f->plan[0].h;
    for (int side = 0; side < 2; side++) {
        for (int b = 0; b < 3; b++)
            f->band[side][b] = plane(n);
        for (int k = 0; k < 2; k++)
            f->low[k][side] = plane(n);
    }
    for (int g = 0; g < ADM_CUDA_GROUPS; g++) {
        f->fa[g] = plane(n);
        f->fr[g] = plane(n);
    }
    f->rows = calloc((size_t)f->row_base[4] * ADM_CUDA_ROW_SUMS, sizeof(uint64_t));
}

static void frame_free(AdmCudaFrame *f)
{
    for (int side = 0; side < 2; side++) {
        for (int b = 0; b < 3; b++)
            free(f->band[side][b]);
        for (int k = 0; k < 2; k++)
            free(f->low[k][side]);
    }
    for (int g = 0; g < ADM_CUDA_GROUPS; g++) {
        free(f->fa[g]);
        free(f->fr[g]);
    }
    free(f->rows);
}

/* k_adm_dwt, k_adm_weigh and k_adm_mask of scale s. */
static void run_scale(const AdmCudaFrame *f, int s, const void *in[2], const size_t pitch[2])
{
    const AdmScalePlan *p = &f->plan[s];
    for (int side = 0; side < 2; side++)
        for (int y = 0; y < (int)p->h; y++)
            for (int x = 0; x < (int)p->w; x++) {
                int32_t out[4];
                adm_dwt_sample(f, s, in[side], pitch[side], x, y, out);
                adm_dwt_store(f, s, side, x, y, out);
            }
    if (s == 0 && !f->scale0)
        return;
    for (int y = p->work_y0; y < p->work_y1; y++)
        for (int x = p->work_x0; x < p->work_x1; x++)
            adm_weigh_sample(f, s, x, y);
    for (int c = p->top; c < p->bottom; c++) {
        uint64_t *row = f->rows + (size_t)(f->row_base[s] + c) * ADM_CUDA_ROW_SUMS;
        for (int x = p->left; x < p->right; x++) {
            uint64_t v[ADM_CUDA_ROW_SUMS] = {0};
            adm_mask_sample(f, s, x, c, v);
            for (int k = 0; k < ADM_CUDA_ROW_SUMS; k++)
                row[k] += v[k];
        }
    }
}

/* The twin's sums and scores of one frame. */
static void twin_scores(const Case *c, const void *ref, const void *dis, AdmScores *out)
{
    AdmCudaFrame f;
    AdmWeights w[ADM_CUDA_GROUPS];
    unsigned member[ADM_CUDA_GROUPS];
    CHECK(!vmaf_adm_sample_plan(&f, c->w, c->h, c->bpc, c->params, c->n, w, member));
    f.div_lut = vmaf_adm_div_lut();
    frame_alloc(&f);
    const size_t bytes = c->bpc > 8 ? 2 : 1;
    const void *in[2] = {ref, dis};
    size_t pitch[2] = {(c->w + c->pad[0]) * bytes, (c->w + c->pad[1]) * bytes};
    run_scale(&f, 0, in, pitch);
    for (int s = 1; s < 4; s++) {
        in[0] = f.low[(s - 1) & 1][0];
        in[1] = f.low[(s - 1) & 1][1];
        pitch[0] = pitch[1] = (size_t)f.plan[s].in_w * sizeof(int32_t);
        run_scale(&f, s, in, pitch);
    }
    AdmCudaOut sums;
    memset(&sums, 0, sizeof(sums));
    for (int s = 0; s < 4; s++)
        for (int k = 0; k < 3 + 6 * (int)f.n_groups; k++) {
            uint64_t t = 0;
            for (int y = f.plan[s].top; y < f.plan[s].bottom; y++)
                t += adm_row_rounded(&f, s, k, y);
            adm_store_sum(&sums, s, k, t);
        }
    for (unsigned v = 0; v < c->n; v++) {
        const unsigned g = member[v];
        const AdmSums ss = {sums.den, sums.dlm[g], sums.aim[g]};
        vmaf_adm_score(f.plan, &ss, &w[v], &c->params[v], c->w, c->h, &out[v]);
    }
    frame_free(&f);
}

/* ---- cases ---- */

static void random_params(uint64_t *rng, AdmParams *p)
{
    vmaf_adm_params_default(p);
    const uint32_t r = test_random(rng);
    if (r & 1)
        p->enhn_gain_limit = (r & 2) ? 1.0 : 1.0 + (test_random(rng) % 990) / 10.0;
    if (r & 4)
        p->skip_aim = true;
    if ((r & 24) == 8)
        p->skip_scale0 = true;
    if ((r & 96) == 32)
        p->csf_mode = ADM_CSF_BARTEN;
    if ((r & 384) == 128) {
        p->norm_view_dist = 3.0 + (test_random(rng) % 100) / 10.0;
        p->ref_display_height = 1080 + (int)(test_random(rng) % 1000);
    }
}

/* The pixel pair (a, b) of each sample, at each picture's pitch: dis is
 * noise (kind 0), a small distortion of ref (1), or ref itself (2). */
static void put(const Case *c, void *ref, void *dis, unsigned x, unsigned y, unsigned a,
                unsigned b)
{
    const size_t i = (size_t)y * (c->w + c->pad[0]) + x;
    const size_t j = (size_t)y * (c->w + c->pad[1]) + x;
    if (c->bpc == 8) {
        ((uint8_t *)ref)[i] = (uint8_t)a;
        ((uint8_t *)dis)[j] = (uint8_t)b;
    } else {
        ((uint16_t *)ref)[i] = (uint16_t)a;
        ((uint16_t *)dis)[j] = (uint16_t)b;
    }
}

static void fill(uint64_t *rng, const Case *c, void *ref, void *dis, int kind)
{
    const unsigned max = (1u << c->bpc) - 1;
    for (unsigned y = 0; y < c->h; y++) {
        for (unsigned x = 0; x < c->w; x++) {
            const unsigned a = test_random(rng) & max;
            unsigned b = a;
            if (kind == 0) {
                b = test_random(rng) & max;
            } else if (kind == 1) {
                const int d = (int)(test_random(rng) % 9) - 4;
                const int v = (int)a + d * (int)(max >> 7);
                b = v < 0 ? 0 : v > (int)max ? max : (unsigned)v;
            }
            put(c, ref, dis, x, y, a, b);
        }
    }
}

static void run_case(uint64_t *rng, const Case *c, int kind)
{
    const size_t sample = c->bpc > 8 ? 2 : 1;
    void *ref = malloc((size_t)(c->w + c->pad[0]) * c->h * sample);
    void *dis = malloc((size_t)(c->w + c->pad[1]) * c->h * sample);
    fill(rng, c, ref, dis, kind);
    const size_t sz = vmaf_adm_scratch_size(c->w, c->h, c->n);
    void *scratch = malloc(sz);
    AdmScores want[ADM_CUDA_GROUPS], got[ADM_CUDA_GROUPS];
    memset(want, 0, sizeof(want));
    memset(got, 0, sizeof(got));
    const ptrdiff_t ref_stride = (ptrdiff_t)((c->w + c->pad[0]) * sample);
    const ptrdiff_t dis_stride = (ptrdiff_t)((c->w + c->pad[1]) * sample);
    const int err = vmaf_adm_compute(ref, ref_stride, dis, dis_stride, c->w, c->h, c->bpc,
                                     c->params, c->n, scratch, sz, want);
    CHECK(!err, "%ux%u %u-bit: vmaf_adm_compute failed (%d)", c->w, c->h, c->bpc, err);
    twin_scores(c, ref, dis, got);
    for (unsigned v = 0; v < c->n && !err; v++)
        CHECK(!memcmp(&got[v], &want[v], sizeof(AdmScores)),
              "%ux%u %u-bit, picture kind %d, set %u of %u (egl %g, csf %d, skip_aim %d, "
              "skip_scale0 %d): adm2 %.17g, expected %.17g",
              c->w, c->h, c->bpc, kind, v, c->n, c->params[v].enhn_gain_limit,
              c->params[v].csf_mode, c->params[v].skip_aim, c->params[v].skip_scale0,
              got[v].adm2, want[v].adm2);
    free(scratch);
    free(ref);
    free(dis);
}

int main(int argc, char **argv)
{
    uint64_t rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 0xad3c0ffee5eedull;
    const unsigned cases = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 60;
    static const unsigned depths[] = {8, 10, 12, 16};
    for (unsigned i = 0; i < cases; i++) {
        Case c = {0};
        c.w = i < 2 ? 17 : 17 + test_random(&rng) % 200;
        c.h = i < 2 ? 17 + i : 17 + test_random(&rng) % 150;
        c.bpc = depths[test_random(&rng) % 4];
        c.pad[0] = test_random(&rng) % 3 ? 0 : test_random(&rng) % 64;
        c.pad[1] = test_random(&rng) % 3 ? 0 : test_random(&rng) % 64;
        c.n = 1 + test_random(&rng) % ADM_CUDA_GROUPS;
        for (unsigned v = 0; v < c.n; v++) {
            do
                random_params(&rng, &c.params[v]);
            while (vmaf_adm_check(c.w, c.h, c.bpc, &c.params[v], NULL, 0));
        }
        run_case(&rng, &c, (int)(i % 3));
    }
    return check_result("test_adm_sample");
}
