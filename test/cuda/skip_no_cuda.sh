#!/bin/sh
# Stands in for each CUDA test in a build without CUDA.
if [ -n "$VMAF_TEST_REQUIRE_GPU" ] && [ "$VMAF_TEST_REQUIRE_GPU" != 0 ]; then
    echo "FAIL: cuda test '$1' needs a CUDA build, and VMAF_TEST_REQUIRE_GPU is set"
    exit 1
fi
echo "SKIP: cuda test '$1' needs a CUDA build (meson setup -Dcuda=enabled, with nvcc) and a GPU"
exit 77
