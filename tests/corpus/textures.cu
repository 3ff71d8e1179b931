// Texture-object kernels in the styles of public CUDA sample code, written for smemsim's tests
// (issue 15): a lookup table read with tex1Dfetch, a 2x bilinear upscale with normalized
// coordinates, a box filter that stages a haloed tile from a clamped 2-D texture into shared
// memory, uchar4 texels read as normalized floats, tex2Dgather, a layered texture and a 3-D
// texture. CPU references: tests/exec_texture_corpus_test.cpp.

// out[i] = lut[idx[i]] through the texture path (cudaResourceTypeLinear, integer coordinates).
__global__ void lut_fetch(cudaTextureObject_t lut, const int* idx, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(lut, idx[i]);
}

// out is (2w) x (2h): each output pixel samples the w x h texture at its own center with linear
// filtering and normalized coordinates, the upscale of the SDK's bilinear examples.
__global__ void upscale2x(cudaTextureObject_t img, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 * w || y >= 2 * h) return;
  const float u = (x + 0.5f) / (2.0f * w), v = (y + 0.5f) / (2.0f * h);
  out[y * 2 * w + x] = tex2D<float>(img, u, v);
}

// 3 x 3 box filter: a 16 x 16 block reads its 18 x 18 tile (with a one-pixel halo, edges clamped
// by the texture) into shared memory, then averages each pixel's neighbourhood from the tile.
__global__ void box3x3(cudaTextureObject_t img, float* out, int w, int h) {
  __shared__ float tile[18][18];
  const int bx = blockIdx.x * 16, by = blockIdx.y * 16;
  for (int i = threadIdx.y * 16 + threadIdx.x; i < 18 * 18; i += 256) {
    const int tx = i % 18, ty = i / 18;
    tile[ty][tx] = tex2D<float>(img, bx + tx - 1 + 0.5f, by + ty - 1 + 0.5f);
  }
  __syncthreads();
  float s = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s += tile[threadIdx.y + dy][threadIdx.x + dx];
  const int x = bx + threadIdx.x, y = by + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = s / 9.0f;
}

// uchar4 texels read as normalized floats (cudaReadModeNormalizedFloat): a gray value per pixel.
__global__ void rgba_to_gray(cudaTextureObject_t rgba, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float4 c = tex2D<float4>(rgba, x + 0.5f, y + 0.5f);
  out[y * w + x] = 0.25f * c.x + 0.5f * c.y + 0.125f * c.z + 0.125f * c.w;
}

// The four texels around each interior grid point, gathered (tex2Dgather, component 0): out gets
// x*1 + y*10 + z*100 + w*1000 of them, which fixes their order.
__global__ void gather4(cudaTextureObject_t img, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float4 g = tex2Dgather<float4>(img, x + 1.0f, y + 1.0f, 0);
  out[y * w + x] = g.x + 10.0f * g.y + 100.0f * g.z + 1000.0f * g.w;
}

// The sum over the layers of a layered 2-D texture at each pixel, and a 3-D texture's voxels.
__global__ void layer_sum(cudaTextureObject_t stack, float* out, int w, int h, int layers) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int l = 0; l < layers; ++l) s += tex2DLayered<float>(stack, x + 0.5f, y + 0.5f, l);
  out[y * w + x] = s;
}

__global__ void volume_read(cudaTextureObject_t vol, float* out, int n) {
  const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < n && y < n) out[(z * n + y) * n + x] = tex3D<float>(vol, x + 0.5f, y + 0.5f, z + 0.5f);
}
