// The kernel of `smemsim launch init --help`'s example: out[i] = a * in[i], staged through shared
// memory.
__global__ void scale(float* out, const float* in, float a, int n) {
  __shared__ float s[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = a * s[threadIdx.x];
}
