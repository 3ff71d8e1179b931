// The kernel `k` of the --help examples (`smemsim run|profile|sim k.ptx --kernel k ... --launch
// k.toml`): each block stages its part of `in` in shared memory and writes it back reversed, reading
// the tile with a stride of 2 words (a 2-way bank conflict on 32 banks). Compiled to k.ptx with
//   nvcc -ptx -lineinfo -arch=sm_75 k.cu -o k.ptx
extern "C" __global__ void k(float* out, const float* in, int n) {
  __shared__ float tile[512];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = threadIdx.x;
  tile[2 * t] = i < n ? in[i] : 0.0f;
  tile[2 * t + 1] = 0.0f;
  __syncthreads();
  const float v = tile[2 * (blockDim.x - 1 - t)];
  if (i < n) out[i] = v;
}
