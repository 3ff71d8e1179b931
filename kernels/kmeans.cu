// Centroid update step of k-means clustering with replicated vote spaces (seed 001 §4.1).
//
// After the assignment step every object i has a cluster membership[i] in [0, k). The update step
// is a voting process: one vote space counts the objects per cluster and one vote space per object
// component accumulates the coordinates. Each vote space is replicated R times with cyclic mapping
// (copy = tid % R, seed 001 Eq. 1) or, with block_mapping = 1, block mapping (copy = (tid /
// floor(N / R)) % R, Eq. 2); as in seed 001 §4.1.1 all copies of the counter come first, then all
// copies of the first component, and so on:
//     counter copy r:      words [r * k, (r + 1) * k)
//     component d copy r:  words [(R * (1 + d) + r) * k, ...)
// Counters use integer atomicAdd, components floating-point atomicAdd on shared memory.
//
// Launch: kmeans_update<<<blocks, threads, R * k * (1 + dims) * 4>>>(objects, membership, n, dims,
// k, R, block_mapping, counts, sums). objects is n x dims (row-major), counts (k words) and sums (k
// x dims) must be zeroed by the caller; the new centroid is sums[c][d] / counts[c].

extern "C" __global__ void kmeans_update(const float* objects, const int* membership, int n,
                                         int dims, int k, int replication, int block_mapping,
                                         unsigned int* counts, float* sums) {
  extern __shared__ unsigned int votes[];
  unsigned int* count_space = votes;
  float* sum_space = reinterpret_cast<float*>(votes + replication * k);
  const int tid = threadIdx.x;
  const int total_words = replication * k * (1 + dims);
  for (int w = tid; w < total_words; w += blockDim.x) votes[w] = 0;
  __syncthreads();

  int copy = tid % replication;
  if (block_mapping) {
    const int per_copy = blockDim.x / replication;
    copy = (tid / (per_copy > 0 ? per_copy : 1)) % replication;
  }
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) {
    const int c = membership[i];
    atomicAdd(&count_space[copy * k + c], 1u);
    for (int d = 0; d < dims; ++d)
      atomicAdd(&sum_space[(d * replication + copy) * k + c], objects[i * dims + d]);
  }
  __syncthreads();

  for (int c = tid; c < k; c += blockDim.x) {
    unsigned int count = 0;
    for (int r = 0; r < replication; ++r) count += count_space[r * k + c];
    atomicAdd(&counts[c], count);
    for (int d = 0; d < dims; ++d) {
      float sum = 0.0f;
      for (int r = 0; r < replication; ++r) sum += sum_space[(d * replication + r) * k + c];
      atomicAdd(&sums[c * dims + d], sum);
    }
  }
}
