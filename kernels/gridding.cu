// Gridding of non-uniform samples onto a regular 3-D grid: seed 002 Table 5's MRI-grid-2 (Parboil's
// mri-gridding), written for smemsim from the algorithm. Each sample has a k-space position (kx,
// ky, kz, in grid units), a complex value (re, im) and a density compensation weight sdc; grid cell
// c at integer position p accumulates
//     G[c] += w(|p - k|^2) sdc (re, im)   for every sample with |p - k|^2 < W2,
//     w(d2) = 1 - d2 / W2   (a smooth window standing in for Parboil's Kaiser-Bessel kernel).
// A block of 256 threads owns a tile of 8 x 8 x 4 cells (thread t: x = t % 8, y = (t / 8) % 8, z =
// t / 64) and walks the samples in chunks of 256: each thread copies one sample's six floats into
// the array of structures ss[256][6] (re, im, kx, ky, kz, sdc, as Parboil's ReorderedSample), then
// every thread tests all samples of the chunk against its cell.
//
// Bank conflicts (32 banks): the copy stores ss[6 t + f]: stride 6, so lanes t and t + 16 (96
// words apart) share a bank, 2-way for each of the six stores; the reads ss[6 j + f] are the same
// word for every lane (a broadcast).
//
// Launch: grid3d[_sw]<<<(G / 8) (G / 8) (G / 4), 256>>>(samples, m, G, W2, out_re, out_im, k2,
// mask): samples holds m x 6 floats (m a multiple of 256), the grid G^3 cells (G a multiple of 8),
// tiles in x-fastest order. _sw: the shared indices through swhash (kernels/smemsim_swhash.cuh).
#include "smemsim_swhash.cuh"

#define GRID_T 256
#define GRID_F 6

template <bool H>
__device__ void grid3d_body(const float* samples, int m, int g, float w2, float* out_re,
                            float* out_im, unsigned k2, unsigned mask) {
  __shared__ float ss[GRID_T * GRID_F];
  const int t = threadIdx.x;
  const int tiles_x = g / 8, tiles_y = g / 8;
  const int bx = blockIdx.x % tiles_x, by = (blockIdx.x / tiles_x) % tiles_y;
  const int bz = blockIdx.x / (tiles_x * tiles_y);
  const int x = bx * 8 + t % 8, y = by * 8 + (t / 8) % 8, z = bz * 4 + t / 64;
  const float px = float(x), py = float(y), pz = float(z);
  float acc_re = 0.0f, acc_im = 0.0f;
  for (int chunk = 0; chunk < m; chunk += GRID_T) {
    for (int f = 0; f < GRID_F; ++f)
      ss[swhash<H>(GRID_F * t + f, k2, mask)] = samples[(chunk + t) * GRID_F + f];
    __syncthreads();
    for (int j = 0; j < GRID_T; ++j) {
      const float dx = px - ss[swhash<H>(GRID_F * j + 2, k2, mask)];
      const float dy = py - ss[swhash<H>(GRID_F * j + 3, k2, mask)];
      const float dz = pz - ss[swhash<H>(GRID_F * j + 4, k2, mask)];
      const float d2 = dx * dx + dy * dy + dz * dz;
      if (d2 < w2) {
        const float w = (1.0f - d2 / w2) * ss[swhash<H>(GRID_F * j + 5, k2, mask)];
        acc_re += w * ss[swhash<H>(GRID_F * j, k2, mask)];
        acc_im += w * ss[swhash<H>(GRID_F * j + 1, k2, mask)];
      }
    }
    __syncthreads();
  }
  const int cell = (z * g + y) * g + x;
  out_re[cell] = acc_re;
  out_im[cell] = acc_im;
}

extern "C" __global__ void grid3d(const float* samples, int m, int g, float w2, float* out_re,
                                  float* out_im, unsigned k2, unsigned mask) {
  grid3d_body<false>(samples, m, g, w2, out_re, out_im, k2, mask);
}
extern "C" __global__ void grid3d_sw(const float* samples, int m, int g, float w2, float* out_re,
                                     float* out_im, unsigned k2, unsigned mask) {
  grid3d_body<true>(samples, m, g, w2, out_re, out_im, k2, mask);
}
