/*
 * float_ms_ssim's decimation on the device: both planes of one scale
 * low-passed by the 9x9 wavelet filter and decimated by two, one thread an
 * output (ms_ssim_lpf_sample.h has the arithmetic). The scale-0 planes are
 * the pictures themselves, converted sample by sample as the CPU converts
 * them; the next scales read the f32 planes this kernel wrote. The taps
 * come with the launch, from the CPU's own table.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/ms_ssim_cuda_kernels.h"

namespace {

constexpr int BX = 32, BY = 8;

template <typename T>
__device__ __forceinline__ float lpf_at(const T *src, size_t pitch, float mul, int w, int h,
                                        int x, int y, const MsSsimLpfTaps *k);
template <>
__device__ __forceinline__ float lpf_at<uint8_t>(const uint8_t *src, size_t pitch, float mul,
                                                 int w, int h, int x, int y,
                                                 const MsSsimLpfTaps *k)
{
    return ms_ssim_lpf_at_u8(src, pitch, mul, w, h, x, y, k);
}
template <>
__device__ __forceinline__ float lpf_at<uint16_t>(const uint16_t *src, size_t pitch, float mul,
                                                  int w, int h, int x, int y,
                                                  const MsSsimLpfTaps *k)
{
    return ms_ssim_lpf_at_u16(src, pitch, mul, w, h, x, y, k);
}
template <>
__device__ __forceinline__ float lpf_at<float>(const float *src, size_t pitch, float mul, int w,
                                               int h, int x, int y, const MsSsimLpfTaps *k)
{
    return ms_ssim_lpf_at_f32(src, pitch, mul, w, h, x, y, k);
}

/* blockIdx.z: 0 the reference, 1 the distorted plane. Pitches in samples. */
template <typename T>
__global__ void __launch_bounds__(BX * BY)
    k_ms_ssim_lpf(const T *ref, size_t ref_pitch, const T *dis, size_t dis_pitch, float mul,
                  int w, int h, MsSsimLpfTaps taps, float *dref, float *ddis, size_t dpitch)
{
    /* The SSIM kernel after this one waits for all of it anyway. */
    let_dependents_launch();
    const int dw = (w + 1) / 2, dh = (h + 1) / 2;
    const int x = (int)(blockIdx.x * BX + threadIdx.x), y = (int)(blockIdx.y * BY + threadIdx.y);
    if (x >= dw || y >= dh)
        return;
    const bool is_dis = blockIdx.z != 0;
    const T *src = is_dis ? dis : ref;
    float *dst = is_dis ? ddis : dref;
    dst[(size_t)y * dpitch + x] =
        lpf_at<T>(src, is_dis ? dis_pitch : ref_pitch, mul, w, h, 2 * x, 2 * y, &taps);
}

template <typename T>
cudaError_t launch(const void *ref, size_t ref_pitch, const void *dis, size_t dis_pitch,
                   float mul, unsigned w, unsigned h, const MsSsimLpfTaps *taps, float *dref,
                   float *ddis, size_t dpitch, cudaStream_t st)
{
    const dim3 block(BX, BY), grid(ceil_div((w + 1) / 2, BX), ceil_div((h + 1) / 2, BY), 2);
    return launched([&] {
        k_ms_ssim_lpf<T><<<grid, block, 0, st>>>(
            (const T *)ref, ref_pitch / sizeof(T), (const T *)dis, dis_pitch / sizeof(T), mul,
            (int)w, (int)h, *taps, dref, ddis, dpitch / sizeof(float));
    });
}

} // namespace

extern "C" {

cudaError_t vmaf_ms_ssim_cuda_prepare(void)
{
    cudaError_t e = load_kernel(k_ms_ssim_lpf<uint8_t>, cudaSuccess);
    e = load_kernel(k_ms_ssim_lpf<uint16_t>, e);
    return load_kernel(k_ms_ssim_lpf<float>, e);
}

cudaError_t vmaf_ms_ssim_cuda_decimate(const void *ref, size_t ref_pitch, const void *dis,
                                       size_t dis_pitch, unsigned bpc, unsigned w, unsigned h,
                                       const MsSsimLpfTaps *taps, float *dref, float *ddis,
                                       size_t dpitch, cudaStream_t st)
{
    if (!bpc)
        return launch<float>(ref, ref_pitch, dis, dis_pitch, 1.0f, w, h, taps, dref, ddis,
                             dpitch, st);
    const float mul = 1.0f / (float)(1u << (bpc - 8));
    if (bpc == 8)
        return launch<uint8_t>(ref, ref_pitch, dis, dis_pitch, mul, w, h, taps, dref, ddis,
                               dpitch, st);
    return launch<uint16_t>(ref, ref_pitch, dis, dis_pitch, mul, w, h, taps, dref, ddis, dpitch,
                            st);
}

} // extern "C"
