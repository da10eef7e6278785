// A kernel that contracts when allowed to (-fmad=true): check_ptx.sh must
// reject it, which shows that the check can fail.
__global__ void k_probe(const float *a, const float *b, const float *c, float *out)
{
    const int i = threadIdx.x;
    out[i] = a[i] * b[i] + c[i];
}
