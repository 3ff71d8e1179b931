// smemsim-arch: sm_90
// The Tensor Memory Accelerator (issue 46), written by us from the CUDA C++ Programming Guide's
// description of it ("Asynchronous Data Copies using the Tensor Memory Accelerator"), with
// libcu++'s cuda::device::experimental copies and a block-scope cuda::barrier (an mbarrier whose
// phase completes on its arrivals and on the bytes the copies deliver):
//   tma_load_2d / tma_load_3d   one thread copies the box at the coordinates into a 1024-byte-
//                               aligned shared tile; after the barrier every thread writes the
//                               tile's words out as they lie in shared memory, so the map's
//                               swizzle is visible in `out`;
//   tma_load_2d_expect_first    tma_load_2d announcing the bytes before the copy (CUTLASS's order);
//   tma_store_2d                the block fills a tile, one thread stores it to the box at (x, y);
//   bulk_roundtrip              each block brings 4 KiB in with a contiguous bulk copy, adds 1 to
//                               each word and sends it back with a bulk copy to global memory;
//   bulk_reduce_add             each block adds its 1 KiB (word i: blockIdx.x + i) into acc with
//                               one bulk reduction;
//   tma_reduce_max_2d           each block takes the maximum of its tile (word i: i + 100 *
//                               blockIdx.x) and the box at (x, y) of a tensor, in place;
//   tma_rows                    loads a 32 x 32 u32 box unswizzled; thread t sums row t, so at
//                               each step the warp reads a column, 128 bytes a lane apart (the
//                               bank conflict the swizzle modes are for);
//   tma_im2col_4d               one thread copies an NHWC tensor's pixels with the im2col mode
//                               (the pixels of a convolution's filter tap, offsets (off_w, off_h))
//                               into a 1024-byte-aligned tile, written out as tma_load_2d does.
#include <cuda.h>

#include <cuda/barrier>
#include <cuda/ptx>

#pragma nv_diag_suppress static_var_with_dynamic_init

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int kTileWords = 2048;  // 8 KiB

// One thread initializes the block's barrier for every thread; the fence makes the init visible
// to the TMA (the async proxy) before any copy names the barrier.
__device__ void start_barrier(block_barrier& bar) {
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
}

__device__ void wait_for_box(block_barrier& bar, int bytes, bool issuer) {
  block_barrier::arrival_token token;
  if (issuer)
    token = cuda::device::barrier_arrive_tx(bar, 1, bytes);  // the copy's bytes, then arrive
  else
    token = bar.arrive();
  bar.wait(std::move(token));
}

__global__ void tma_load_2d(const __grid_constant__ CUtensorMap map, int x, int y, unsigned* out,
                            int words) {
  __shared__ alignas(1024) unsigned tile[kTileWords];
  __shared__ block_barrier bar;
  start_barrier(bar);
  if (threadIdx.x == 0) cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &map, x, y, bar);
  wait_for_box(bar, words * 4, threadIdx.x == 0);
  for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = tile[i];
}

__global__ void tma_load_3d(const __grid_constant__ CUtensorMap map, int x, int y, int z,
                            unsigned* out, int words) {
  __shared__ alignas(1024) unsigned tile[kTileWords];
  __shared__ block_barrier bar;
  start_barrier(bar);
  if (threadIdx.x == 0) cde::cp_async_bulk_tensor_3d_global_to_shared(tile, &map, x, y, z, bar);
  wait_for_box(bar, words * 4, threadIdx.x == 0);
  for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = tile[i];
}

__global__ void tma_im2col_4d(const __grid_constant__ CUtensorMap map, int c, int w, int h, int n,
                              int off_w, int off_h, unsigned* out, int words) {
  __shared__ alignas(1024) unsigned tile[kTileWords];
  __shared__ block_barrier bar;
  start_barrier(bar);
  if (threadIdx.x == 0) {
    const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
    const auto mb =
        static_cast<unsigned>(__cvta_generic_to_shared(cuda::device::barrier_native_handle(bar)));
    const auto ow = static_cast<unsigned short>(off_w), oh = static_cast<unsigned short>(off_h);
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(dst),
        "l"(&map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(mb), "h"(ow), "h"(oh)
        : "memory");
  }
  wait_for_box(bar, words * 4, threadIdx.x == 0);
  for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = tile[i];
}

__global__ void tma_store_2d(const __grid_constant__ CUtensorMap map, int x, int y, int words) {
  __shared__ alignas(1024) unsigned tile[kTileWords];
  for (int i = threadIdx.x; i < words; i += blockDim.x) tile[i] = 0x10000u + unsigned(i);
  cde::fence_proxy_async_shared_cta();  // the threads' writes, visible to the TMA
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&map, x, y, tile);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();  // the tile may be reused once it has been read
  }
}

__global__ void bulk_roundtrip(const int4* in, int4* out) {
  __shared__ alignas(128) int4 buf[256];  // 4 KiB
  __shared__ block_barrier bar;
  start_barrier(bar);
  const int4* src = in + blockIdx.x * 256;
  if (threadIdx.x == 0) cde::cp_async_bulk_global_to_shared(buf, src, sizeof(buf), bar);
  wait_for_box(bar, sizeof(buf), threadIdx.x == 0);
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    buf[i].x += 1;
    buf[i].y += 1;
    buf[i].z += 1;
    buf[i].w += 1;
  }
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(out + blockIdx.x * 256, buf, sizeof(buf));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// tma_load_2d with the transaction count announced before the copy is issued (CUTLASS's order:
// arrive_and_expect_tx, then the copy): the phase can complete only when the copy's bytes land.
__global__ void tma_load_2d_expect_first(const __grid_constant__ CUtensorMap map, int x, int y,
                                         unsigned* out, int words) {
  __shared__ alignas(1024) unsigned tile[kTileWords];
  __shared__ block_barrier bar;
  start_barrier(bar);
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    token = cuda::device::barrier_arrive_tx(bar, 1, words * 4);
    cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &map, x, y, bar);
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = tile[i];
}

__global__ void bulk_reduce_add(int* acc) {
  __shared__ alignas(128) int part[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) part[i] = int(blockIdx.x) + i;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_reduce_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared,
                                    cuda::ptx::op_add, acc, part, sizeof(part));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

__global__ void tma_reduce_max_2d(const __grid_constant__ CUtensorMap map, int x, int y,
                                  int words) {
  __shared__ alignas(1024) int tile[kTileWords];
  for (int i = threadIdx.x; i < words; i += blockDim.x) tile[i] = i + 100 * int(blockIdx.x);
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    const int32_t coords[2] = {x, y};
    cuda::ptx::cp_reduce_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared,
                                           cuda::ptx::op_max, &map, coords, tile);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

__global__ void tma_rows(const __grid_constant__ CUtensorMap map, unsigned* sums) {
  __shared__ alignas(1024) unsigned tile[32 * 32];
  __shared__ block_barrier bar;
  start_barrier(bar);
  if (threadIdx.x == 0) cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &map, 0, 0, bar);
  wait_for_box(bar, sizeof(tile), threadIdx.x == 0);
  unsigned sum = 0;
  for (int c = 0; c < 32; ++c) sum += tile[threadIdx.x * 32 + c];  // column c: 32-way
  sums[threadIdx.x] = sum;
}
