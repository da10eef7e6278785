#!/bin/sh
# Stands in for each CUDA test in a build without CUDA.
echo "SKIP: cuda test '$1' needs a CUDA build (meson setup -Dcuda=enabled, with nvcc) and a GPU"
exit 77
