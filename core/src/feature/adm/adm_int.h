/* Integer helpers shared by the plain C inner loops. */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_INT_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_INT_H

#include <stdint.h>

/* |v| as uint32_t, 2^31 for INT32_MIN (the reference's abs() wraps there).
 * Branch-free so that the loops around it vectorise and do not mispredict
 * on signed data. */
static inline uint32_t adm_mag(int32_t v)
{
    const uint32_t sign = (uint32_t)(v >> 31);
    return ((uint32_t)v ^ sign) - sign;
}

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_INT_H */
