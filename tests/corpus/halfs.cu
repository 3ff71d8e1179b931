// smemsim-arch: sm_80
// Half-precision intrinsics as kernels use them (issue 16): cuda_fp16.h and cuda_bf16.h
// conversions, f16 and f16x2 arithmetic, max/neg on pairs, low/high extraction (mov unpacking),
// bf16 arithmetic, bf16 to f32 (mov packing with an immediate), the rz/rn conversions and a half
// compare. Each thread writes eight floats; the CPU reference is in tests/exec_half_test.cpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void half_math(const float* in, float* out) {
  const int t = threadIdx.x;
  const float x = in[t], y = in[t + 1];
  float* o = out + 8 * t;
  const __half hx = __float2half(x), hy = __float2half(y);
  o[0] = __half2float(__hadd(hx, hy));
  __half2 h2 = __floats2half2_rn(x, y);  // low x, high y
  h2 = __hfma2(h2, h2, h2);
  const __half2 m = __hmax2(h2, __hneg2(h2));
  o[1] = __half2float(__low2half(m));
  o[2] = __half2float(__high2half(m));
  const __nv_bfloat16 bx = __float2bfloat16(x), by = __float2bfloat16(y);
  o[3] = __bfloat162float(__hmul(__hadd(bx, by), __float2bfloat16(2.0f)));
  const float z = in[64];  // 1 + 2^-10 + 2^-11 + 2^-20
  o[4] = __half2float(__float2half_rz(z));
  o[5] = __half2float(__float2half_rn(z));
  o[6] = float(__hlt(hx, hy) + 2 * __hlt(hy, hx));
  o[7] = __half2float(__low2half(h2)) - __half2float(__high2half(h2));
}
