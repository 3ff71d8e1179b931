// The kernel of the README's "your own kernel" example: a block-wide sum in shared memory, with
// the classic interleaved addressing (2-way and worse bank conflicts as the stride grows).
__global__ void myKernel(float* out, const float* in, int n) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned j = 2 * stride * t;
    if (j + stride < blockDim.x) s[j] += s[j + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
