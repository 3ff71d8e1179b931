// Hash Table, the first GPU-LocalTM benchmark (seed 003 §5.1.1), written from the paper's
// description: each thread of a block inserts its id into a shared hash table of `buckets`
// buckets. The bucket is id % buckets ("a simple hash function"); each bucket has room for every
// id it receives (ceil(threads / buckets) slots), and a thread probes its bucket's slots in order
// for an empty one. One probe is a transaction: "reading a location, checking if it is empty and
// inserting the corresponding value (a read-modify-write set of operations on a single memory
// address)". Few buckets (HT2) conflict a lot; 256 buckets for 256 threads never do.
//
// ht_tx: the probes as transactions (TX_BEGIN/TX_COMMIT, kernels/smemsim_tm.cuh).
// ht_serial: TX. Serialization, the paper's baseline: the threads take turns, one insert at a time,
//   a barrier between turns.
// Both write the table to out[block * slots .. ]: an id per slot, 0xffffffff where empty.
#include "smemsim_tm.cuh"

#define HT_EMPTY 0xffffffffu
#define HT_MAX_SLOTS 512  // 256 threads into 2..256 buckets: at most 256 + 255 slots

extern "C" __global__ void ht_tx(unsigned* out, int buckets) {
  __shared__ unsigned table[HT_MAX_SLOTS];
  TX_INIT();
  const unsigned tid = threadIdx.x, n = blockDim.x;
  const unsigned cap = (n + buckets - 1) / buckets;
  const unsigned slots = cap * buckets;
  for (unsigned i = tid; i < slots; i += n) table[i] = HT_EMPTY;
  __syncthreads();
  unsigned* bucket = table + (tid % buckets) * cap;
  unsigned slot = 0;
  bool done = false;
  while (!done && slot < cap) {
    TX_BEGIN();
    if (bucket[slot] == HT_EMPTY) {
      bucket[slot] = tid;
      done = true;
    }
    TX_COMMIT();
    ++slot;
  }
  __syncthreads();
  for (unsigned i = tid; i < slots; i += n) out[blockIdx.x * slots + i] = table[i];
}

extern "C" __global__ void ht_serial(unsigned* out, int buckets) {
  __shared__ unsigned table[HT_MAX_SLOTS];
  const unsigned tid = threadIdx.x, n = blockDim.x;
  const unsigned cap = (n + buckets - 1) / buckets;
  const unsigned slots = cap * buckets;
  for (unsigned i = tid; i < slots; i += n) table[i] = HT_EMPTY;
  __syncthreads();
  unsigned* bucket = table + (tid % buckets) * cap;
  for (unsigned turn = 0; turn < n; ++turn) {
    if (turn == tid) {
      unsigned slot = 0;
      while (slot < cap && bucket[slot] != HT_EMPTY) ++slot;
      if (slot < cap) bucket[slot] = tid;
    }
    __syncthreads();
  }
  for (unsigned i = tid; i < slots; i += n) out[blockIdx.x * slots + i] = table[i];
}
