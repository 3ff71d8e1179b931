// smemsim-arch: sm_80
// __reduce_*_sync (sm_80: redux.sync) over each warp (issue 15). out[4 * warp + k]: the warp's sum,
// signed minimum, unsigned maximum and OR of in[]. Written for smemsim's tests.
__global__ void warp_reductions(const int* in, int* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const unsigned full = 0xffffffffu;
  const int sum = __reduce_add_sync(full, v);
  const int mn = __reduce_min_sync(full, v);
  const unsigned mx = __reduce_max_sync(full, unsigned(v));
  const unsigned orv = __reduce_or_sync(full, unsigned(v));
  if ((threadIdx.x & 31) == 0) {
    const int w = i / 32;
    out[4 * w] = sum;
    out[4 * w + 1] = mn;
    out[4 * w + 2] = int(mx);
    out[4 * w + 3] = int(orv);
  }
}
