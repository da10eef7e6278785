/*
 * CIEDE2000 as libvmaf 3.2's `ciede` extractor computes it, bit for bit
 * (docs/metrics/ciede.md): each pixel's colour difference from BT.709
 * limited-range YCbCr through CIELAB, in the reference's float and double
 * steps, summed in raster order.
 */
#ifndef LIBVMAF_SRC_FEATURE_CIEDE_CIEDE_H
#define LIBVMAF_SRC_FEATURE_CIEDE_CIEDE_H

typedef struct CiedeLab {
    float l, a, b;
} CiedeLab;

/* The CIELAB colour of one sample triple of a bpc-bit picture. */
CiedeLab vmaf_ciede_lab(double y, double u, double v, unsigned bpc);

/* The CIEDE2000 difference of two colours, with the weights kL = 0.65,
 * kC = 1, kH = 4 the reference uses. */
float vmaf_ciede2000(CiedeLab c1, CiedeLab c2);

#endif /* LIBVMAF_SRC_FEATURE_CIEDE_CIEDE_H */
