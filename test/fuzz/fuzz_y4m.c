/* libFuzzer harness: the Y4M reader on arbitrary bytes. */
#include "fuzz_input_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The last byte's low bit picks whether chroma is read or skipped, so
     * both paths of the payload reader are covered. */
    const int with_chroma = size ? data[size - 1] & 1 : 0;
    fuzz_one(data, size, NULL, with_chroma);
    return 0;
}
