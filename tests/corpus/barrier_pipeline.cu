// smemsim-arch: sm_80
// cuda::barrier and cuda::pipeline as kernels use them (issue 27), for tests/mbarrier_test.cpp:
// libcu++ compiles them to mbarrier.init/arrive/test_wait(.parity)/inval, cp.async with
// cp.async.mbarrier.arrive, and a wait loop that backs off with %globaltimer and nanosleep.
// Written for smemsim's tests.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

// Tiles of 256 floats double-buffered into shared memory with cuda::memcpy_async on a
// cuda::barrier per buffer: out[t] = sum over tiles of tile[(t * 7) % 256].
__global__ void tile_sum(const float* in, float* out, int tiles) {
  __shared__ float buf[2][256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar[2];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar[0], block.size());
    init(&bar[1], block.size());
  }
  block.sync();
  cuda::memcpy_async(block, buf[0], in, sizeof(float) * 256, bar[0]);
  float acc = 0;
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles)
      cuda::memcpy_async(block, buf[(t + 1) % 2], in + (t + 1) * 256, sizeof(float) * 256,
                         bar[(t + 1) % 2]);
    bar[t % 2].arrive_and_wait();
    acc += buf[t % 2][(threadIdx.x * 7) % 256];
    block.sync();
  }
  out[threadIdx.x] = acc;
}

// A split barrier: each thread writes, arrives, and reads its neighbour's value after the wait.
__global__ void split(int* out) {
  __shared__ int v[128];
  __shared__ cuda::barrier<cuda::thread_scope_block> b;
  if (threadIdx.x == 0) init(&b, blockDim.x);
  __syncthreads();
  v[threadIdx.x] = threadIdx.x * 3;
  auto token = b.arrive();
  b.wait(std::move(token));
  out[threadIdx.x] = v[(threadIdx.x + 1) % blockDim.x];
}

// A two-stage block-scope cuda::pipeline: the block copies tile t + 1 while it reads tile t;
// out[t] = sum over tiles k of tile_k[(t + k) % 128].
__global__ void pipe_sum(const int* in, int* out, int tiles) {
  constexpr int stages = 2;
  __shared__ int buf[stages][128];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int acc = 0;
  for (int fetch = 0, t = 0; t < tiles; ++t) {
    for (; fetch < tiles && fetch < t + stages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[fetch % stages], in + fetch * 128, sizeof(int) * 128, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += buf[t % stages][(threadIdx.x + t) % 128];
    pipe.consumer_release();
  }
  out[threadIdx.x] = acc;
}

__device__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Expects one arrival more than the block makes: the phase never completes.
__global__ void never(int* out) {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(&bar)), "r"(blockDim.x + 1));
  __syncthreads();
  unsigned long long s;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(s) : "r"(smem(&bar)));
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(smem(&bar)), "l"(s));
  out[threadIdx.x] = 1;
}

// Arrives on an mbarrier nobody initialized.
__global__ void uninitialized(int* out) {
  __shared__ unsigned long long bar;
  unsigned long long s;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(s) : "r"(smem(&bar)));
  out[threadIdx.x] = int(s);
}
