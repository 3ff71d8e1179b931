// Kernels for the debugging tools (issue 45): printf, assert and the shared-memory race checker.
// Written for the tests (tests/debug_tools_test.cpp), each with what it must do in its comment;
// the PTX ships in kernels/ptx/debugging.ptx (scripts/gen-ptx.sh debugging).
#include <cassert>
#include <cstdio>

// printf's conversions, flags, widths, precisions, 64-bit and string arguments. Every thread
// prints one line; out[t] = printf's return value (the number of arguments parsed).
extern "C" __global__ void printf_formats(int* out, long long big, double x, const char* unused) {
  const int t = threadIdx.x;
  const int r = printf("t=%d neg=%d u=%u hex=%#x HEX=%08X oct=%o w=[%5d] l=[%-4d] big=%lld ubig=%llu "
                       "f=%.3f e=%e g=%g c=%c s=%s pct=%% p=%p\n",
                       t, -7 * t - 1, 4000000000u + t, 255 * t, 0xBEEF + t, 8 + t, t * 11, t, big,
                       (unsigned long long)big * 3, x * t, x, x / 1024, 'A' + t, "str", out);
  out[t] = r;
  (void)unused;
}

// A printf with no arguments, one with a %s from global memory, and a star width.
__device__ const char kWord[] = "shared";
extern "C" __global__ void printf_misc(int* out) {
  const int t = threadIdx.x;
  if (t == 0) out[0] = printf("no arguments\n");
  if (t == 1) out[1] = printf("%s memory [%*d]\n", kWord, 6, 42);
}

// assert(a[t] >= 0): fails at the first negative value.
extern "C" __global__ void assert_positive(const int* a, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  assert(a[t] >= 0);
  out[t] = a[t] * 2;
}

// Read after write with no barrier: warp 1 reads the slot warp 0 writes (the missing
// __syncthreads of llm.c's softmax_forward_kernel4, reduced to two lines).
extern "C" __global__ void race_raw(float* out) {
  __shared__ float slot[32];
  const int t = threadIdx.x;
  if (t < 32) slot[t] = float(t);           // written by warp 0
  if (t >= 32) out[t - 32] = slot[t - 32];  // read by warp 1, no barrier between
}

// Write after read: warp 1 overwrites what warp 0 reads, with no barrier between.
extern "C" __global__ void race_war(float* out) {
  __shared__ float buf[64];
  const int t = threadIdx.x;
  buf[t] = float(t);
  __syncthreads();
  if (t < 32) out[t] = buf[t + 32];  // warp 0 reads buf[32..63]
  if (t >= 32) buf[t] = 0.0f;        // warp 1 writes them
}

// Write after write: every warp writes one word, no barrier, then all read it after one.
extern "C" __global__ void race_waw(int* out) {
  __shared__ int last;
  const int t = threadIdx.x;
  if (t % 32 == 0) last = t;  // lane 0 of each warp
  __syncthreads();
  out[t] = last;
}

// Correct: a block reduction with a barrier at every step, then a warp-synchronous tail that
// orders its steps with __syncwarp (CUDA's cooperative-groups-free idiom since Volta).
extern "C" __global__ void reduce_synced(const int* in, int* out) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int d = 128; d >= 32; d /= 2) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t < 32) {
    int v = s[t];
    for (int d = 16; d > 0; d /= 2) {
      v += s[t + d];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = v;
  }
}

// Correct: atomics from every warp on one shared counter are not a hazard with each other.
extern "C" __global__ void atomic_count(int* out) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = count;
}

// Producer/consumer on named barriers: warps 0-1 write, arrive at barrier 1 and go on; warps 2-3
// wait at it (128 threads) and read. Correct: the barrier orders the writes before the reads.
extern "C" __global__ void named_handoff(int* out) {
  __shared__ int buf[64];
  const int t = threadIdx.x;
  if (t < 64) {
    buf[t] = t * 3;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    out[t - 64] = buf[127 - t];
  }
}

// The same with the consumers synchronizing only with each other (barrier 2, 64 threads): a
// barrier orders only the warps that take part in it, so the reads race with the writes.
extern "C" __global__ void named_handoff_wrong(int* out) {
  __shared__ int buf[64];
  const int t = threadIdx.x;
  if (t < 64) {
    buf[t] = t * 3;
  } else {
    asm volatile("bar.sync 2, 64;" ::: "memory");
    out[t - 64] = buf[127 - t];
  }
}

// A field wider than any fixed buffer: 599 spaces, then 7 (and a precision as wide).
extern "C" __global__ void printf_wide() {
  printf("%600d|%.700f|\n", 7, 0.5);
}
