// __noinline__ device functions, as nvcc emits them (.func, call, .param passing; issue 15 item 5):
// value and pointer arguments, a float return, a call in divergent code, and recursion. Written
// for smemsim's tests (tests/exec_calls_test.cpp).
__device__ __noinline__ int square_plus(int x, int y) { return x * x + y; }

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ void accumulate(int* dst, int v) { atomicAdd(dst, v); }

__device__ __noinline__ float lerp(float a, float b, float t) { return a + t * (b - a); }

// out[i] = in[i]^2 + i, plus fib(in[i] & 15) where in[i] is odd; f[i] = lerp(in[i], 2 in[i], 0.5);
// *total = the sum of in.
__global__ void device_calls(const int* in, int* out, float* f, int* total) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  int r = square_plus(v, i);
  if (v & 1) r += fib(v & 15);
  out[i] = r;
  f[i] = lerp(float(v), float(2 * v), 0.5f);
  accumulate(total, v);
}
