// __constant__ memory as CUDA code sets it with cudaMemcpyToSymbol; a smemsim launch spec sets it
// with [symbols.NAME] (issue 15). Written for smemsim's tests (tests/exec_corpus_cli_test.cpp).
constexpr int kTaps = 5;
__constant__ float coeffs[kTaps];
__constant__ int offset;

// out[i] = sum over k < 5 of coeffs[k] * in[i + k], for i < n.
__global__ void conv1d(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < kTaps; ++k) s += coeffs[k] * in[i + k];
  out[i] = s;
}

// data[i] += offset.
__global__ void add_offset(int* data) {
  data[blockIdx.x * blockDim.x + threadIdx.x] += offset;
}
