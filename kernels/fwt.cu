// Fast Walsh Transform of one 2^log2n-element segment per block in shared memory (seed 002 §3.2.4;
// CUDA SDK fastWalshTransform).
//
// Radix-4 butterflies with stride = N/4, N/16, ..., then one radix-2 stage if log2n is odd. The
// shared memory index of the first butterfly input is
//     lo = pos & (stride - 1);  i0 = ((pos - lo) << 2) + lo;
// i.e. s = 4 * stride * t_y + t_x with sub-warps of `stride` threads (seed 002 §3.2.4): for N =
// 2048 the strides are 512, 128, 32, 8, 2, and stride 8 gives a 4-way bank conflict on 32 banks.
//
// Launch: fwt<<<segments, threads, (1 << log2n) * 4>>>(data, log2n); data holds segments * 2^log2n
// floats, transformed in place (unnormalized).

extern "C" __global__ void fwt(float* data, int log2n) {
  extern __shared__ float s_data[];
  const int n = 1 << log2n;
  float* segment = data + static_cast<size_t>(blockIdx.x) * n;
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) s_data[pos] = segment[pos];

  for (int stride = n >> 2; stride > 0; stride >>= 2) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < n / 4; pos += blockDim.x) {
      const int lo = pos & (stride - 1);
      const int i0 = ((pos - lo) << 2) + lo;
      const int i1 = i0 + stride;
      const int i2 = i1 + stride;
      const int i3 = i2 + stride;
      float d0 = s_data[i0], d1 = s_data[i1], d2 = s_data[i2], d3 = s_data[i3];
      float t = d0;
      d0 = d0 + d2;
      d2 = t - d2;
      t = d1;
      d1 = d1 + d3;
      d3 = t - d3;
      s_data[i0] = d0 + d1;
      s_data[i1] = d0 - d1;
      s_data[i2] = d2 + d3;
      s_data[i3] = d2 - d3;
    }
  }

  __syncthreads();
  if (log2n & 1) {  // last radix-2 stage
    for (int pos = threadIdx.x; pos < n / 2; pos += blockDim.x) {
      const int i0 = pos << 1;
      const float d0 = s_data[i0], d1 = s_data[i0 + 1];
      s_data[i0] = d0 + d1;
      s_data[i0 + 1] = d0 - d1;
    }
    __syncthreads();
  }
  for (int pos = threadIdx.x; pos < n; pos += blockDim.x) segment[pos] = s_data[pos];
}
