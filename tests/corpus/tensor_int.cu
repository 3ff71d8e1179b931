// smemsim-arch: sm_80
// Integer, single-bit, f64 and Volta-shape tensor cores as kernels use them (issue 27), for
// tests/exec_tensor_int_test.cpp:
// - mma.sync on s8/u8, s4/u4 and b1 at every shape the PTX ISA gives them, on f64 m8n8k4, and f16
//   m8n8k4 (four quad-pair products, row- and column-major A and B, f32 and f16 accumulators).
//   Each lane packs its fragment registers from one-value-per-element arrays by the PTX ISA's
//   "Matrix Fragments for mma.mMnNkK" formulas, written out literally below per shape (g = lane /
//   4, t = lane % 4, element i of the fragment in register i / E at bits (i % E) * bits, "low to
//   high"), and stores D by them; the test compares D with a CPU product.
// - the nvcuda::wmma API: an int8 GEMM (s8 and u8, three shapes, B row- and column-major), s4
//   m8n8k32 and b1 m8n8k128 (XOR and AND) from nvcuda::wmma::experimental, and f64 m8n8k4.
#include <mma.h>

#include <cuda_fp16.h>

// ---- mma.sync: fragment coordinates, PTX ISA 9.7.14.5 (one case per figure) ----
// Shapes: 0 m8n8k16 s8, 1 m16n8k16 s8, 2 m16n8k32 s8, 3 m8n8k32 s4, 4 m16n8k32 s4, 5 m16n8k64 s4,
// 6 m8n8k128 b1, 7 m16n8k128 b1, 8 m16n8k256 b1, 9 m8n8k4 f64.
__device__ void a_coord(int shape, int i, int lane, int& row, int& col) {
  const int g = lane >> 2, t = lane % 4;
  switch (shape) {
    case 0: row = g; col = t * 4 + i; return;
    case 1: row = i < 4 ? g : g + 8; col = t * 4 + (i & 3); return;
    case 2:
      row = (i < 4 || (8 <= i && i < 12)) ? g : g + 8;
      col = i < 8 ? t * 4 + (i & 3) : t * 4 + (i & 3) + 16;
      return;
    case 3: row = g; col = t * 8 + i; return;
    case 4: row = i < 8 ? g : g + 8; col = t * 8 + (i & 7); return;
    case 5:
      row = (i < 8 || (16 <= i && i < 24)) ? g : g + 8;
      col = i < 16 ? t * 8 + (i & 7) : t * 8 + (i & 7) + 32;
      return;
    case 6: row = g; col = t * 32 + i; return;
    case 7: row = i < 32 ? g : g + 8; col = t * 32 + (i & 31); return;
    case 8:
      row = (i < 32 || (64 <= i && i < 96)) ? g : g + 8;
      col = i < 64 ? t * 32 + (i & 31) : t * 32 + (i & 31) + 128;
      return;
    default: row = g; col = t; return;  // m8n8k4 f64
  }
}
__device__ void b_coord(int shape, int i, int lane, int& row, int& col) {
  const int g = lane >> 2, t = lane % 4;
  col = g;
  switch (shape) {
    case 0: case 1: row = t * 4 + i; return;
    case 2: row = i < 4 ? t * 4 + i : t * 4 + (i & 3) + 16; return;
    case 3: case 4: row = t * 8 + i; return;
    case 5: row = i < 8 ? t * 8 + (i & 7) : t * 8 + (i & 7) + 32; return;
    case 6: case 7: row = t * 32 + i; return;
    case 8: row = i < 32 ? t * 32 + (i & 31) : t * 32 + (i & 31) + 128; return;
    default: row = t; return;  // m8n8k4 f64
  }
}
// C/D: m8n8 shapes c0, c1 at row g, col 2t + i; m16n8 c0..c3 at row g (i < 2) or g + 8, col
// 2t + (i & 1).
__device__ void c_coord(bool m16, int i, int lane, int& row, int& col) {
  const int g = lane >> 2, t = lane % 4;
  row = m16 && i >= 2 ? g + 8 : g;
  col = t * 2 + (i & 1);
}

// One-byte values in memory (row-major A m x k, B k x n) packed into registers of `bits`-bit
// elements; C and D row-major m x n.
template <int SHAPE, int M, int K, int BITS, int AR, int BR>
__device__ void pack(const signed char* a, const signed char* b, unsigned (&ra)[AR],
                     unsigned (&rb)[BR]) {
  const int lane = threadIdx.x % 32, e = 32 / BITS;
  const unsigned mask = BITS == 32 ? ~0u : (1u << BITS) - 1;
  for (int r = 0; r < AR; ++r) ra[r] = 0;
  for (int r = 0; r < BR; ++r) rb[r] = 0;
  for (int i = 0; i < AR * e; ++i) {
    int row, col;
    a_coord(SHAPE, i, lane, row, col);
    ra[i / e] |= (unsigned(a[row * K + col]) & mask) << ((i % e) * BITS);
  }
  for (int i = 0; i < BR * e; ++i) {
    int row, col;
    b_coord(SHAPE, i, lane, row, col);
    rb[i / e] |= (unsigned(b[row * 8 + col]) & mask) << ((i % e) * BITS);
  }
}

#define MMA_INT_M8(NAME, SHAPE, K, BITS, PTX)                                           \
  __global__ void NAME(const signed char* a, const signed char* b, const int* c, int* d) { \
    unsigned ra[1], rb[1];                                                               \
    pack<SHAPE, 8, K, BITS>(a, b, ra, rb);                                               \
    int cc[2], dd[2];                                                                    \
    const int lane = threadIdx.x % 32;                                                   \
    for (int i = 0; i < 2; ++i) {                                                        \
      int row, col;                                                                      \
      c_coord(false, i, lane, row, col);                                                 \
      cc[i] = c[row * 8 + col];                                                          \
    }                                                                                    \
    asm volatile(PTX " {%0,%1}, {%2}, {%3}, {%4,%5};"                                    \
                 : "=r"(dd[0]), "=r"(dd[1])                                              \
                 : "r"(ra[0]), "r"(rb[0]), "r"(cc[0]), "r"(cc[1]));                      \
    for (int i = 0; i < 2; ++i) {                                                        \
      int row, col;                                                                      \
      c_coord(false, i, lane, row, col);                                                 \
      d[row * 8 + col] = dd[i];                                                          \
    }                                                                                    \
  }

MMA_INT_M8(mma_m8n8k16_s8, 0, 16, 8, "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32")
MMA_INT_M8(mma_m8n8k32_u4, 3, 32, 4, "mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32")
MMA_INT_M8(mma_m8n8k128_b1_and, 6, 128, 1,
           "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc")

// m16n8 shapes: A in AR registers, B in BR.
template <int SHAPE, int K, int BITS, int AR, int BR>
__device__ void mma_m16(const signed char* a, const signed char* b, const int* c, int* d,
                        int which) {
  unsigned ra[AR], rb[BR];
  pack<SHAPE, 16, K, BITS>(a, b, ra, rb);
  const int lane = threadIdx.x % 32;
  int cc[4], dd[4];
  for (int i = 0; i < 4; ++i) {
    int row, col;
    c_coord(true, i, lane, row, col);
    cc[i] = c[row * 8 + col];
  }
  if constexpr (AR == 2) {
    if (which == 0)  // m16n8k16 u8 x s8 (A unsigned, B signed)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                   : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                   : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
    else if (which == 1)  // m16n8k32 s4, saturating
      asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                   : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                   : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
    else  // m16n8k128 b1 XOR
      asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                   : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                   : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
  } else {
    if (which == 0)  // m16n8k32 s8
      asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                   : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                   : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
    else if (which == 1)  // m16n8k64 s4
      asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                   : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                   : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
    else  // m16n8k256 b1 AND
      asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                   : "=r"(dd[0]), "=r"(dd[1]), "=r"(dd[2]), "=r"(dd[3])
                   : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(cc[0]), "r"(cc[1]), "r"(cc[2]), "r"(cc[3]));
  }
  for (int i = 0; i < 4; ++i) {
    int row, col;
    c_coord(true, i, lane, row, col);
    d[row * 8 + col] = dd[i];
  }
}

__global__ void mma_m16n8k16_u8s8(const signed char* a, const signed char* b, const int* c, int* d) {
  mma_m16<1, 16, 8, 2, 1>(a, b, c, d, 0);
}
__global__ void mma_m16n8k32_s4_sat(const signed char* a, const signed char* b, const int* c, int* d) {
  mma_m16<4, 32, 4, 2, 1>(a, b, c, d, 1);
}
__global__ void mma_m16n8k128_b1_xor(const signed char* a, const signed char* b, const int* c, int* d) {
  mma_m16<7, 128, 1, 2, 1>(a, b, c, d, 2);
}
__global__ void mma_m16n8k32_s8(const signed char* a, const signed char* b, const int* c, int* d) {
  mma_m16<2, 32, 8, 4, 2>(a, b, c, d, 0);
}
__global__ void mma_m16n8k64_s4(const signed char* a, const signed char* b, const int* c, int* d) {
  mma_m16<5, 64, 4, 4, 2>(a, b, c, d, 1);
}
__global__ void mma_m16n8k256_b1_and(const signed char* a, const signed char* b, const int* c, int* d) {
  mma_m16<8, 256, 1, 4, 2>(a, b, c, d, 2);
}

// f64 m8n8k4: a0 at (g, t), b0 at (t, g), c0/c1 at (g, 2t + i).
__global__ void mma_m8n8k4_f64(const double* a, const double* b, const double* c, double* d) {
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane % 4;
  const double ra = a[g * 4 + t], rb = b[t * 8 + g];
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1)
               : "d"(ra), "d"(rb), "d"(c[g * 8 + 2 * t]), "d"(c[g * 8 + 2 * t + 1]));
  d[g * 8 + 2 * t] = d0;
  d[g * 8 + 2 * t + 1] = d1;
}

// f16 m8n8k4: quad-pair q (lanes 4q..4q+3 and 16+4q..16+4q+3) multiplies its own A_q (8 x 4),
// B_q (4 x 8) and C_q (8 x 8), held in a[q], b[q], c[q] row-major (PTX ISA 9.7.14.5.1):
//   A row-major: row l4 (+4 high), col i;   A col-major: row i (+4 high), col l4
//   B row-major: row l4, col i (+4 high);   B col-major: row i, col l4 (+4 high)
//   C f16: row l4 (+4 high), col i;  C f32: row (lane & 1) + (i & 2) (+4 high),
//   col (i & 4) + (lane & 2) + (i & 1)
// with l4 = lane % 4, "high" the lanes 16-31.
template <bool ACOL, bool BCOL, bool F16ACC>
__device__ void m8n8k4(const __half* a, const __half* b, const float* c, float* d) {
  const int lane = threadIdx.x % 32, q = (lane >> 2) & 3, l4 = lane % 4, hi = lane >= 16 ? 4 : 0;
  const __half* aq = a + q * 32;
  const __half* bq = b + q * 32;
  const float* cq = c + q * 64;
  float* dq = d + q * 64;
  __half ha[4], hb[4];
  for (int i = 0; i < 4; ++i) {
    ha[i] = ACOL ? aq[(i + hi) * 4 + l4] : aq[(l4 + hi) * 4 + i];
    hb[i] = BCOL ? bq[i * 8 + l4 + hi] : bq[l4 * 8 + i + hi];
  }
  unsigned ra[2], rb[2];
  for (int r = 0; r < 2; ++r) {
    ra[r] = unsigned(__half_as_ushort(ha[2 * r])) | (unsigned(__half_as_ushort(ha[2 * r + 1])) << 16);
    rb[r] = unsigned(__half_as_ushort(hb[2 * r])) | (unsigned(__half_as_ushort(hb[2 * r + 1])) << 16);
  }
  int row[8], col[8];
  for (int i = 0; i < 8; ++i) {
    row[i] = F16ACC ? l4 + hi : (lane & 1) + (i & 2) + hi;
    col[i] = F16ACC ? i : (i & 4) + (lane & 2) + (i & 1);
  }
  if constexpr (F16ACC) {
    unsigned rc[4], rd[4];
    for (int r = 0; r < 4; ++r)
      rc[r] = unsigned(__half_as_ushort(__float2half(cq[row[2 * r] * 8 + col[2 * r]]))) |
              (unsigned(__half_as_ushort(__float2half(cq[row[2 * r + 1] * 8 + col[2 * r + 1]]))) << 16);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11};"
                 : "=r"(rd[0]), "=r"(rd[1]), "=r"(rd[2]), "=r"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]), "r"(rc[2]), "r"(rc[3]));
    for (int i = 0; i < 8; ++i)
      dq[row[i] * 8 + col[i]] = __half2float(__ushort_as_half((unsigned short)(rd[i / 2] >> (16 * (i % 2)))));
  } else {
    float fc[8], fd[8];
    for (int i = 0; i < 8; ++i) fc[i] = cq[row[i] * 8 + col[i]];
    if (ACOL && BCOL)
      asm volatile("mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"
                   : "=f"(fd[0]), "=f"(fd[1]), "=f"(fd[2]), "=f"(fd[3]), "=f"(fd[4]), "=f"(fd[5]), "=f"(fd[6]), "=f"(fd[7])
                   : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]), "f"(fc[4]), "f"(fc[5]), "f"(fc[6]), "f"(fc[7]));
    else
      asm volatile("mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"
                   : "=f"(fd[0]), "=f"(fd[1]), "=f"(fd[2]), "=f"(fd[3]), "=f"(fd[4]), "=f"(fd[5]), "=f"(fd[6]), "=f"(fd[7])
                   : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "r"(rb[1]), "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]), "f"(fc[4]), "f"(fc[5]), "f"(fc[6]), "f"(fc[7]));
    for (int i = 0; i < 8; ++i) dq[row[i] * 8 + col[i]] = fd[i];
  }
}
__global__ void mma_m8n8k4_f16_rowrow(const __half* a, const __half* b, const float* c, float* d) {
  m8n8k4<false, false, false>(a, b, c, d);
}
__global__ void mma_m8n8k4_f16_colcol(const __half* a, const __half* b, const float* c, float* d) {
  m8n8k4<true, true, false>(a, b, c, d);
}
__global__ void mma_m8n8k4_f16_acc16(const __half* a, const __half* b, const float* c, float* d) {
  m8n8k4<false, true, true>(a, b, c, d);
}

// ---- the wmma API ----
using namespace nvcuda;

// C (m x n, s32) = A (m x k) B (k x n), 8-bit elements, A row-major and B row- or column-major in
// global memory (bt: B stored transposed, n x k), one warp per WM x WN tile, tiles loaded straight
// from global memory.
template <int WM, int WN, int WK, typename T, typename BLayout>
__device__ void wmma_int8(const T* a, const T* b, int* c, int m, int n, int k) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tm = warp / (n / WN), tn = warp % (n / WN);
  if (tm * WM >= m) return;
  const bool bcol = std::is_same<BLayout, wmma::col_major>::value;
  wmma::fragment<wmma::accumulator, WM, WN, WK, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int kk = 0; kk < k; kk += WK) {
    wmma::fragment<wmma::matrix_a, WM, WN, WK, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WM, WN, WK, T, BLayout> fb;
    wmma::load_matrix_sync(fa, a + tm * WM * k + kk, k);
    wmma::load_matrix_sync(fb, bcol ? b + tn * WN * k + kk : b + kk * n + tn * WN, bcol ? k : n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tm * WM * n + tn * WN, acc, n, wmma::mem_row_major);
}
__global__ void wmma_s8_16x16x16(const signed char* a, const signed char* b, int* c, int m, int n, int k) {
  wmma_int8<16, 16, 16, signed char, wmma::row_major>(a, b, c, m, n, k);
}
__global__ void wmma_u8_32x8x16(const unsigned char* a, const unsigned char* b, int* c, int m, int n, int k) {
  wmma_int8<32, 8, 16, unsigned char, wmma::col_major>(a, b, c, m, n, k);
}
__global__ void wmma_s8_8x32x16(const signed char* a, const signed char* b, int* c, int m, int n, int k) {
  wmma_int8<8, 32, 16, signed char, wmma::col_major>(a, b, c, m, n, k);
}

// s4 m8n8k32 and b1 m8n8k128: one 8 x 8 tile per warp; A row-major (8 x K packed: two s4 per
// byte, low nibble first; eight b1 per byte, bit 0 first), B column-major (8 columns of K).
__global__ void wmma_s4(const void* a, const void* b, int* c) {
  using namespace wmma::experimental;
  wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc;
  wmma::load_matrix_sync(acc, c, 8, wmma::mem_row_major);
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 8, wmma::mem_row_major);
}
template <bool XOR>
__device__ void wmma_b1(const void* a, const void* b, int* c) {
  using namespace wmma::experimental;
  wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc;
  wmma::fill_fragment(acc, 0);
  wmma::load_matrix_sync(fa, a, 128);
  wmma::load_matrix_sync(fb, b, 128);
  wmma::bmma_sync(acc, fa, fb, acc, XOR ? bmmaBitOpXOR : bmmaBitOpAND, bmmaAccumulateOpPOPC);
  wmma::store_matrix_sync(c, acc, 8, wmma::mem_row_major);
}
__global__ void wmma_b1_xor(const void* a, const void* b, int* c) { wmma_b1<true>(a, b, c); }
__global__ void wmma_b1_and(const void* a, const void* b, int* c) { wmma_b1<false>(a, b, c); }

// f64 m8n8k4: C (8 x 8) += A (8 x 4, row-major) B (4 x 8, col-major), via shared memory.
__global__ void wmma_f64(const double* a, const double* b, double* c) {
  __shared__ double sa[32], sb[32], sc[64];
  const int lane = threadIdx.x;
  sa[lane] = a[lane];
  sb[lane] = b[lane];
  sc[lane] = c[lane];
  sc[lane + 32] = c[lane + 32];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::load_matrix_sync(fa, sa, 4);
  wmma::load_matrix_sync(fb, sb, 4);
  wmma::load_matrix_sync(acc, sc, 8, wmma::mem_row_major);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(sc, acc, 8, wmma::mem_row_major);
  __syncwarp();
  c[lane] = sc[lane];
  c[lane + 32] = sc[lane + 32];
}
