// smemsim-arch: sm_80
// Cooperative groups' multi-warp tiles (issue 45): block_tile_memory keeps their scratch in the
// shared memory the driver reserves per block (%reserved_smem_offset_1), and the warps of a
// 64-thread tile wait for each other in a loop on it. Each tile sums its thread indices with
// cg::reduce; out[t] = that sum + 1000 x the tile's rank. Written by us over the toolkit's
// headers; the PTX ships in kernels/ptx/cg_tiles.ptx (scripts/gen-ptx.sh cg_tiles).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_sums(int* out) {
  __shared__ cg::block_tile_memory<256> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<64>(block);
  const int sum = cg::reduce(tile, int(block.thread_rank()), cg::plus<int>());
  out[blockIdx.x * 256 + block.thread_rank()] = sum + 1000 * int(tile.meta_group_rank());
}
