// Built-in drivers that live in their own files (builtins.cpp registers them by name): each fills
// a Workload with seeded inputs, the kernel's launch and a CPU reference check (docs/exec.md).
#pragma once

#include "smemsim/workloads.hpp"

namespace smemsim::exec {

// kernels/aes_tbox.cu: AES-128 encryption and decryption with T-box lookups in shared memory (seed
// 004 §2 Fig. 2, Table 4). driver_aes.cpp.
void aes_driver(Workload& w, const BuiltinOptions& o);

// kernels/dct8x8.cu: 8x8 DCT and IDCT, float and 16-bit, conflicting and padded shared layouts
// (seed 004 Table 4). driver_dct.cpp.
void dct_driver(Workload& w, const BuiltinOptions& o);

// kernels/tm_hashtable.cu: GPU-LocalTM's Hash Table (seed 003 §5.1.1), transactional or serialized.
// driver_tm.cpp.
void hashtable_driver(Workload& w, const BuiltinOptions& o);
// kernels/tm_kmeans.cu and tm_genetic.cu: K-Means and the Genetic Algorithm (003 §5.1.2-5.1.3).
void tm_kmeans_driver(Workload& w, const BuiltinOptions& o);
void tm_genetic_driver(Workload& w, const BuiltinOptions& o);

// Seed 002 §7's benchmarks (Table 5), written from the algorithms with a _sw variant each (the
// software hash of §7.2): kernels/convolution.cu, haar.cu, fft.cu, scan.cu (driver_sdk.cpp);
// gridding.cu, lud.cu, nw.cu, lavamd.cu (driver_apps.cpp).
void conv_driver(Workload& w, const BuiltinOptions& o);
void haar_driver(Workload& w, const BuiltinOptions& o);
void fft_driver(Workload& w, const BuiltinOptions& o);
void scan_matrix_driver(Workload& w, const BuiltinOptions& o);
void scan_blelloch_driver(Workload& w, const BuiltinOptions& o);
void grid3d_driver(Workload& w, const BuiltinOptions& o);
void lud_driver(Workload& w, const BuiltinOptions& o);
void nw_driver(Workload& w, const BuiltinOptions& o);
void lavamd_driver(Workload& w, const BuiltinOptions& o);
// The five conflict-free benchmarks of 002 §7.1 (kernels/conflict_free.cu; driver_cfree.cpp).
void scalar_prod_driver(Workload& w, const BuiltinOptions& o);
void matmul_driver(Workload& w, const BuiltinOptions& o);
void srad_driver(Workload& w, const BuiltinOptions& o);
void hotspot_driver(Workload& w, const BuiltinOptions& o);
void backprop_driver(Workload& w, const BuiltinOptions& o);

// Tensor-core kernels (issue 16; driver_tc.cpp): kernels/gemm_tc.cu (cp.async -> shared ->
// ldmatrix -> mma.sync, two tile shapes, row-major or swizzled) and kernels/attention_tc.cu.
void gemm_tc_driver(Workload& w, const BuiltinOptions& o);
void attention_tc_driver(Workload& w, const BuiltinOptions& o);

}  // namespace smemsim::exec
