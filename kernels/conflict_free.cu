// The five benchmarks seed 002 §7.1 runs to measure the cost of the configurable hash's extra cycle
// on kernels that use shared memory without bank conflicts: back propagation, srad and hotspot
// (Rodinia), scalar product (CUDA SDK) and matrix-matrix multiply (Parboil). Written for smemsim
// from the algorithms; every shared access below is unit-stride in a 16- or 32-word row, or a
// broadcast, so none has a bank conflict on 32 banks (tested).
//
// scalar_prod<<<pairs, T>>>(a, b, out, len): out[p] = sum over i of a[p len + i] b[p len + i];
//   thread t accumulates i = t, t + T, ... into acc[t], then a tree sum acc[t] += acc[t + s] for s
//   = T/2 .. 1 (sequential addressing).
// matmul<<<(n/16, n/16), (16, 16)>>>(a, b, c, n): C = A B (n x n, row-major) through 16 x 16 tiles
//   As, Bs; a warp is two tile rows, As[ty][k] (two words, a broadcast each) and Bs[k][tx] (16
//   consecutive words).
// srad1 / srad2 (speckle-reducing anisotropic diffusion, one iteration of Rodinia's srad v2 on a
//   rows x cols image, blocks of 16 x 16): srad1 stages J and its four clamped neighbours in five
//   16 x 16 tiles and computes the derivatives dN, dS, dW, dE and the diffusion coefficient
//       G2 = (dN^2 + dS^2 + dW^2 + dE^2) / J^2,  L = (dN + dS + dW + dE) / J,
//       q2 = (G2 / 2 - L^2 / 16) / (1 + L / 4)^2,  c = 1 / (1 + (q2 - q0) / (q0 (1 + q0))),
//   clamped to [0, 1]; srad2 stages c, its south and east neighbours and updates
//       J += lambda / 4 (c dN + cS dS + c dW + cE dE).
// hotspot<<<(ceil(cols/14), ceil(rows/14)), (16, 16)>>>(power, src, dst, rows, cols, step_cap, rx,
//   ry, rz, amb): one explicit step of Rodinia's thermal model on 16 x 16 tiles with a one-cell
//   halo (14 x 14 outputs per block):
//       T' = T + step_cap (P + (TS + TN - 2T) ry + (TE + TW - 2T) rx + (amb - T) rz),
//   neighbours clamped at the chip's edge.
// backprop<<<(1, in/16), (16, 16)>>>(input, w, partial, in): Rodinia's bpnn_layerforward for 16
//   hidden units: block by multiplies 16 inputs by their 16 x 16 weights and sums each column by a
//   tree over ty (ty % 2^i == 0 adds the row 2^(i-1) below); partial[by 16 + h] = sum over the
//   block's inputs i of w[i][h] input[i].
#define CF_B 16

extern "C" __global__ void scalar_prod(const float* a, const float* b, float* out, int len) {
  __shared__ float acc[1024];
  const int t = threadIdx.x, T = blockDim.x;
  const float* pa = a + blockIdx.x * len;
  const float* pb = b + blockIdx.x * len;
  float sum = 0.0f;
  for (int i = t; i < len; i += T) sum += pa[i] * pb[i];
  acc[t] = sum;
  for (int s = T / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (t < s) acc[t] += acc[t + s];
  }
  if (t == 0) out[blockIdx.x] = acc[0];
}

extern "C" __global__ void matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float As[CF_B][CF_B], Bs[CF_B][CF_B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * CF_B + ty, col = blockIdx.x * CF_B + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += CF_B) {
    As[ty][tx] = a[row * n + k0 + tx];
    Bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < CF_B; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

extern "C" __global__ void srad1(const float* J, float* C, float* dN, float* dS, float* dW,
                                 float* dE, int rows, int cols, float q0) {
  __shared__ float tc[CF_B][CF_B], tn[CF_B][CF_B], ts[CF_B][CF_B], tw[CF_B][CF_B], te[CF_B][CF_B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r = blockIdx.y * CF_B + ty, c = blockIdx.x * CF_B + tx;
  const int i = r * cols + c;
  tc[ty][tx] = J[i];
  tn[ty][tx] = J[(r > 0 ? r - 1 : 0) * cols + c];
  ts[ty][tx] = J[(r < rows - 1 ? r + 1 : rows - 1) * cols + c];
  tw[ty][tx] = J[r * cols + (c > 0 ? c - 1 : 0)];
  te[ty][tx] = J[r * cols + (c < cols - 1 ? c + 1 : cols - 1)];
  __syncthreads();
  const float j = tc[ty][tx];
  const float n = tn[ty][tx] - j, s = ts[ty][tx] - j, w = tw[ty][tx] - j, e = te[ty][tx] - j;
  const float g2 = (n * n + s * s + w * w + e * e) / (j * j);
  const float l = (n + s + w + e) / j;
  const float num = 0.5f * g2 - 0.0625f * l * l;
  const float den = 1.0f + 0.25f * l;
  const float q2 = num / (den * den);
  float coef = 1.0f / (1.0f + (q2 - q0) / (q0 * (1.0f + q0)));
  coef = coef < 0.0f ? 0.0f : (coef > 1.0f ? 1.0f : coef);
  C[i] = coef;
  dN[i] = n;
  dS[i] = s;
  dW[i] = w;
  dE[i] = e;
}

extern "C" __global__ void srad2(float* J, const float* C, const float* dN, const float* dS,
                                 const float* dW, const float* dE, int rows, int cols,
                                 float lambda) {
  __shared__ float tc[CF_B][CF_B], tsouth[CF_B][CF_B], teast[CF_B][CF_B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r = blockIdx.y * CF_B + ty, c = blockIdx.x * CF_B + tx;
  const int i = r * cols + c;
  tc[ty][tx] = C[i];
  tsouth[ty][tx] = C[(r < rows - 1 ? r + 1 : rows - 1) * cols + c];
  teast[ty][tx] = C[r * cols + (c < cols - 1 ? c + 1 : cols - 1)];
  __syncthreads();
  const float cn = tc[ty][tx], cs = tsouth[ty][tx], ce = teast[ty][tx];
  const float div = cn * dN[i] + cs * dS[i] + cn * dW[i] + ce * dE[i];
  J[i] = J[i] + 0.25f * lambda * div;
}

extern "C" __global__ void hotspot(const float* power, const float* src, float* dst, int rows,
                                   int cols, float step_cap, float rx, float ry, float rz,
                                   float amb) {
  __shared__ float tt[CF_B][CF_B], pp[CF_B][CF_B];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // The block's 16 x 16 window starts one cell before its 14 x 14 outputs.
  int r = blockIdx.y * (CF_B - 2) + ty - 1, c = blockIdx.x * (CF_B - 2) + tx - 1;
  r = r < 0 ? 0 : (r >= rows ? rows - 1 : r);
  c = c < 0 ? 0 : (c >= cols ? cols - 1 : c);
  tt[ty][tx] = src[r * cols + c];
  pp[ty][tx] = power[r * cols + c];
  __syncthreads();
  const int orow = blockIdx.y * (CF_B - 2) + ty - 1, ocol = blockIdx.x * (CF_B - 2) + tx - 1;
  if (tx == 0 || ty == 0 || tx == CF_B - 1 || ty == CF_B - 1 || orow >= rows || ocol >= cols)
    return;
  const float t = tt[ty][tx];
  const float tn = tt[ty - 1][tx], ts = tt[ty + 1][tx], tw = tt[ty][tx - 1], te = tt[ty][tx + 1];
  dst[orow * cols + ocol] = t + step_cap * (pp[ty][tx] + (ts + tn - 2.0f * t) * ry +
                                            (te + tw - 2.0f * t) * rx + (amb - t) * rz);
}

extern "C" __global__ void backprop(const float* input, const float* w, float* partial, int in) {
  __shared__ float node[CF_B];
  __shared__ float wm[CF_B][CF_B];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * CF_B + ty;
  if (tx == 0) node[ty] = input[row];
  __syncthreads();
  wm[ty][tx] = w[row * CF_B + tx] * node[ty];
  __syncthreads();
  for (int p = 2; p <= CF_B; p *= 2) {
    if (ty % p == 0) wm[ty][tx] += wm[ty + p / 2][tx];
    __syncthreads();
  }
  if (tx == 0) partial[blockIdx.y * CF_B + ty] = wm[0][ty];
}

// matmul_naive: the same product without the tiles (issue 44: what the shared-memory tile saves
// in global traffic). Each thread reads its row of A and its column of B from global memory.
extern "C" __global__ void matmul_naive(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * CF_B + threadIdx.y, col = blockIdx.x * CF_B + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}
