/* libFuzzer harness: the raw YUV reader. The first byte selects the geometry,
 * the rest is the file. Bytes 0..5 are 32x32 4:2:0/4:2:2/4:4:4 at 8 bit,
 * then the same at 10 bit (the seed corpus uses these); larger values reach
 * 4:0:0, 12 and 16 bit, and odd or tiny sizes. */
#include "fuzz_input_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P };
    static const unsigned bpcs[] = { 8, 10, 12, 16 };
    static const unsigned sizes[][2] = { { 32, 32 }, { 7, 5 }, { 1, 1 }, { 65, 3 } };
    const unsigned m = data[0];
    InputRawParams raw;
    if (m < 6) {
        raw = (InputRawParams){ 32, 32, fmts[m % 3], m < 3 ? 8u : 10u };
    } else {
        raw = (InputRawParams){ sizes[(m >> 4) & 3][0], sizes[(m >> 4) & 3][1], fmts[m & 3],
                                bpcs[(m >> 2) & 3] };
    }
    fuzz_one(data + 1, size - 1, &raw, (m >> 6) & 1);
    return 0;
}
