// Transactions over shared memory: GPU-LocalTM's TX.Begin / TX.Commit (seed 003 §3) for CUDA
// kernels, with a fallback that runs the same source on a real GPU (docs/tm.md).
//
//   __global__ void k(...) {
//     TX_INIT();            // once, at the top of the kernel, before any transaction
//     ...
//     TX_BEGIN();
//     ... shared-memory reads and writes ...
//     TX_COMMIT();
//   }
//
// Compiled with -DSMEMSIM_TM (the kernel suite's build does this), TX_BEGIN() and TX_COMMIT()
// become the inline PTX markers `tx.begin;` and `tx.commit;`, which smemsim's PTX front end reads
// as GPU-LocalTM's instructions: every shared access between them is transactional, conflicting
// lanes roll back and retry, and `smemsim sim` times it all. Without the macro (a build for a
// GPU), TX_BEGIN() takes a block-wide spin lock in shared memory and TX_COMMIT() releases it: the
// transactions run one thread at a time, as TX. Serialization does. The spin lock needs
// independent thread scheduling (compute capability 7.0 or later).
//
// Rules (003 §3): TX_BEGIN and TX_COMMIT pair up in the same block scope, reached by the lanes of a
// warp together; no __syncthreads() and no return between them; nested pairs are flattened.
// Registers written inside a transaction are restored when it retries.
#pragma once

#ifdef SMEMSIM_TM
#define TX_INIT() \
  do {            \
  } while (0)
#define TX_BEGIN() asm volatile("tx.begin;" ::: "memory")
#define TX_COMMIT() asm volatile("tx.commit;" ::: "memory")
#else
#define TX_INIT()                                                  \
  __shared__ int smemsim_tx_lock;                                  \
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) smemsim_tx_lock = 0; \
  __syncthreads()
#define TX_BEGIN()                                                  \
  do {                                                              \
    while (atomicCAS(&smemsim_tx_lock, 0, 1) != 0) {                \
    }                                                               \
    __threadfence_block();                                          \
  } while (0)
#define TX_COMMIT()                  \
  do {                               \
    __threadfence_block();           \
    atomicExch(&smemsim_tx_lock, 0); \
  } while (0)
#endif
