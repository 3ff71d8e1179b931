// CUB's block radix sort (issue 45): cub::BlockRadixSort from the CUDA toolkit's CUB, on 256
// threads x 4 keys per block. nvcc 13 lowers libcu++'s cuda::bitmask, which the radix sort's digit
// extraction uses, to `bmsk`: this kernel is what made smemsim run it. Written by us over the
// toolkit's headers; the PTX ships in kernels/ptx/cub_sort.ptx (scripts/gen-ptx.sh cub_sort).
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

// Each block sorts its 1,024 unsigned keys ascending, in place.
extern "C" __global__ void cub_block_sort(unsigned* keys) {
  using Sort = cub::BlockRadixSort<unsigned, 256, 4>;
  __shared__ typename Sort::TempStorage temp;
  unsigned k[4];
  unsigned* tile = keys + blockIdx.x * 1024;
  cub::LoadDirectBlocked(threadIdx.x, tile, k);
  Sort(temp).Sort(k);
  cub::StoreDirectBlocked(threadIdx.x, tile, k);
}

// The same with (key, value) pairs: values follow their keys (a stable sort).
extern "C" __global__ void cub_block_sort_pairs(unsigned* keys, int* values) {
  using Sort = cub::BlockRadixSort<unsigned, 256, 4, int>;
  __shared__ typename Sort::TempStorage temp;
  unsigned k[4];
  int v[4];
  cub::LoadDirectBlocked(threadIdx.x, keys + blockIdx.x * 1024, k);
  cub::LoadDirectBlocked(threadIdx.x, values + blockIdx.x * 1024, v);
  Sort(temp).Sort(k, v);
  cub::StoreDirectBlocked(threadIdx.x, keys + blockIdx.x * 1024, k);
  cub::StoreDirectBlocked(threadIdx.x, values + blockIdx.x * 1024, v);
}
