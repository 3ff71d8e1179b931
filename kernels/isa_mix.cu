// Instruction-coverage kernel: not a workload of the seeds, but one small kernel that makes nvcc
// emit the PTX forms the front-end must decode beyond the suite (docs/ptx.md): vector loads/stores,
// every shared-memory atomic operation, red, integer division, min/max/abs, bit counting, float
// rcp/sqrt/ ex2/lg2/sin/cos, conversions with rounding modes, 64-bit arithmetic and per-thread
// local memory. Its output is deterministic so an executor can compare it against a CPU reference
// or a real GPU.
//
// Launch: isa_mix<<<1, 64>>>(in, out, iout); in has 256 floats, out 64 * 8 floats, iout 64 * 8
// ints.

extern "C" __global__ void isa_mix(const float4* in, float* out, int* iout) {
  __shared__ int ints[64];
  __shared__ unsigned int flags[4];
  __shared__ unsigned long long wide[2];
  const int t = threadIdx.x;
  if (t < 4) flags[t] = 0;
  if (t < 2) wide[t] = 0;
  ints[t] = t;
  __syncthreads();

  // Shared atomics of every kind (seed 000 §II: the atomics the lock model serializes).
  atomicMin(&ints[t / 2], t);
  atomicMax(&ints[(t + 1) % 64], t);
  atomicExch(&ints[63 - t], t);
  atomicCAS(&ints[t], t, t + 1);
  atomicInc(&flags[0], 1000u);
  atomicDec(&flags[1], 1000u);
  atomicAnd(&flags[2], ~(1u << (t % 32)));
  atomicOr(&flags[3], 1u << (t % 32));
  atomicXor(&flags[3], 1u << ((t + 3) % 32));
  atomicAdd(&wide[t & 1], static_cast<unsigned long long>(t) << 33);
  __syncthreads();

  const float4 v = in[t];  // ld.global.v4.f32
  float local[8];          // indexed dynamically: placed in local memory
  local[0] = v.x / (v.y + 1.0f);
  local[1] = sqrtf(fabsf(v.z));
  local[2] = __frcp_rn(v.w + 2.0f);
  local[3] = exp2f(v.x * 0.125f);
  local[4] = log2f(fabsf(v.y) + 1.0f);
  local[5] = __sinf(v.z) + __cosf(v.w);
  local[6] = fminf(v.x, v.y) - fmaxf(v.z, v.w);
  local[7] = __int2float_rz(t * 7) + __uint2float_rd(static_cast<unsigned>(t)) * 0.5f;
  const int k = (t * 5) & 7;
  for (int j = 0; j < 8; ++j) out[t * 8 + j] = local[(j + k) & 7];

  int* io = iout + t * 8;
  io[0] = ints[t];
  io[1] = static_cast<int>(flags[t % 4]);
  io[2] = (t - 32) / 5 + (t - 32) % 5;
  io[3] = abs(t - 40) + min(t, 17) - max(t, 9);
  io[4] = __popc(static_cast<unsigned>(t) * 2654435761u) + __clz(t + 1);
  io[5] = __float2int_rz(v.x * 3.7f) ^ __float2int_rd(v.y) ^ __float2int_ru(v.z);
  io[6] = static_cast<int>(wide[t & 1] >> 33) + static_cast<int>(__brev(t) >> 26);
  io[7] = static_cast<int>(static_cast<long long>(t) * 3000000000LL % 1000003);
  atomicAdd(&iout[0], 0);  // red.global.add
}
