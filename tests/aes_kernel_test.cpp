// builtin:aes (kernels/aes_tbox.cu, seed 004 §2 Fig. 2): the byte-oriented CPU reference against
// FIPS-197's worked example, the T-box kernel against the reference, and its bank conflicts.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/profile.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "util/rng.hpp"
#include "workloads/aes_ref.hpp"

namespace smemsim::exec {
namespace {

aes::Block hex(const char* s) {
  aes::Block b{};
  for (std::size_t i = 0; i < 16; ++i)
    b[i] = std::uint8_t(std::stoi(std::string(s + 2 * i, 2), nullptr, 16));
  return b;
}

// FIPS-197 Appendix C.1 (AES-128): key 000102..0f, plaintext 00112233..ff.
TEST(Aes, ReferenceReproducesFips197AppendixC1) {
  const aes::Block key = hex("000102030405060708090a0b0c0d0e0f");
  const aes::Schedule w = aes::expand_key(key);
  // C.1's round[10].k_sch = 13111d7f e3944a17 f307a78b 4d2b30c5: word 43's bytes 4d 2b 30 c5.
  EXPECT_EQ(w[40], 0x7f1d1113u);
  EXPECT_EQ(w[43], 0xc5302b4du);
  const aes::Block c = aes::encrypt(w, hex("00112233445566778899aabbccddeeff"));
  EXPECT_EQ(c, hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
  EXPECT_EQ(aes::decrypt(w, c), hex("00112233445566778899aabbccddeeff"));
  EXPECT_EQ(aes::sbox(0x53), 0xed);  // FIPS-197 §5.1.1's example
  EXPECT_EQ(aes::inv_sbox(0xed), 0x53);
}

std::string run_builtin(const BuiltinOptions& o) {
  Workload w = make_builtin("aes", o, SMEMSIM_PTX_DIR);
  Executor ex(w.module, find_kernel(w.module, w.kernel), default_arch(), w.launch, w.memory);
  ex.run();
  return w.check(w.memory);
}

// Both directions on a partial last CTA (100 blocks: 2 CTAs, the second with 36) and on 2 full
// CTAs, with different keys.
TEST(Aes, KernelMatchesTheReferenceOnTwoShapes) {
  for (const std::string v : {"encrypt", "decrypt"})
    for (const std::uint32_t n : {100u, 128u}) {
      BuiltinOptions o;
      o.variant = v;
      o.size = n;
      o.seed = n;
      EXPECT_EQ(run_builtin(o), "") << v << " " << n;
    }
}

// Round trip on the kernels alone: the encryption kernel's output, fed to the decryption kernel
// (same seed, so the same key), gives back the encryption's input, 100 blocks (a partial CTA).
TEST(Aes, DecryptionKernelInvertsTheEncryptionKernel) {
  BuiltinOptions o;
  o.size = 100;
  o.seed = 11;
  Workload e = make_builtin("aes", o, SMEMSIM_PTX_DIR);
  Executor(e.module, find_kernel(e.module, e.kernel), default_arch(), e.launch, e.memory).run();
  o.variant = "decrypt";
  Workload d = make_builtin("aes", o, SMEMSIM_PTX_DIR);
  const std::vector<std::uint8_t> plain = e.memory.get("in").bytes,
                                  cipher = e.memory.get("out").bytes;
  ASSERT_EQ(cipher.size(), 1600u);
  EXPECT_NE(cipher, plain);
  d.memory.get("in").bytes = cipher;
  Executor(d.module, find_kernel(d.module, d.kernel), default_arch(), d.launch, d.memory).run();
  EXPECT_EQ(d.memory.get("out").bytes, plain);
}

// The bytes that index the T-boxes are uniform (random plaintext and key), so a gather by the 8
// lanes of a cf11 subwarp (one transaction) puts 8 uniform words of a 256-word table into 8 banks;
// its passes are the most distinct words one bank receives (equal words are a broadcast).
// g = E[passes] by Monte Carlo (about 2.5). The stage accesses are conflict-free: a transaction's
// 8 lanes are threads 8j..8j+7 (two AES blocks), phase I lane l reads word 8j + (l & ~3) + ((l + k)
// & 3) for a fixed shift k, a permutation of the 8 consecutive words 8j..8j+7, which lie in 8
// distinct banks (word mod 8); the phase IV store and the table copies write word 8j + l. The
// round-key load reads rk[4r + (l & 3)]: 4 distinct words, each a broadcast to 2 lanes, in 4
// banks. A round has 10 shared accesses: 4 stage loads, 4 gathers, 1 round-key load, 1 stage
// store, so the kernel's average per transaction is close to (6 + 4 g) / 10 (the table loads at
// the start and the last round shift it a little).
TEST(Aes, TBoxGathersConflictAndTheStageAccessesDoNot) {
  Rng rng(7);
  double g = 0;
  const int trials = 200000;
  for (int t = 0; t < trials; ++t) {
    std::map<int, std::set<int>> bank;
    for (int l = 0; l < 8; ++l) {
      const int word = int(rng.below(256));
      bank[word % 8].insert(word);
    }
    std::size_t d = 0;
    for (const auto& [b, s] : bank) d = std::max(d, s.size());
    g += double(d) / trials;
  }
  BuiltinOptions o;
  o.size = 2048;
  Workload w = make_builtin("aes", o, SMEMSIM_PTX_DIR);
  const Arch& cf11 = find_preset("cf11");
  timing::GpuSim sim(w.module, find_kernel(w.module, w.kernel), cf11, w.launch, w.memory, {});
  const timing::TimingStats& s = sim.run();
  EXPECT_EQ(w.check(w.memory), "");
  const double degree = double(s.units.smem_passes) / double(s.units.smem_accesses);
  EXPECT_NEAR(degree, (6 + 4 * g) / 10, 0.05) << "g = " << g;

  auto at = [](const char* needle, int nth = 1) {
    return "aes_tbox.cu:" + std::to_string(test::source_line("aes_tbox.cu", needle, nth));
  };
  const std::string gather = at("t0[a0 & 0xff]"), store = at("stage[r & 1][tid] = v"),
                    stage_load = at("= src[tid], a1 = src[c1]"),
                    last_load = at("= src[tid], a1 = src[c1]", 2);
  for (const std::string v : {"encrypt", "decrypt"}) {
    o.variant = v;
    Workload p = make_builtin("aes", o, SMEMSIM_PTX_DIR);
    const ptx::Kernel& k = find_kernel(p.module, p.kernel);
    Executor ex(p.module, k, cf11, p.launch, p.memory);
    Profiler prof(p.module, k, cf11);
    ex.set_consumer(&prof);
    ex.run();
    EXPECT_EQ(p.check(p.memory), "") << v;
    Totals gathers, stage;
    for (const ProfileRow& r : prof.rows()) {
      if (r.cuda == gather && r.op == Op::Load) gathers.merge(r.totals);
      if ((r.cuda == stage_load || r.cuda == last_load) && r.op == Op::Load) stage.merge(r.totals);
      if (r.cuda == store) stage.merge(r.totals);  // the stage store and the round-key load
    }
    // 9 rounds x 4 gathers, and 9 x 4 + 4 stage loads + 9 stores + 9 key loads, per warp.
    const std::uint64_t warps = 8 * p.launch.grid.count();
    EXPECT_EQ(gathers.accesses, 36 * warps) << v;
    EXPECT_EQ(stage.accesses, 58 * warps) << v;
    const double gd = 1 + double(gathers.bank_conflicts) / double(gathers.transactions);
    EXPECT_NEAR(gd, g, 0.05) << v;
    EXPECT_GT(gathers.max_bank_degree, 2) << v;
    EXPECT_EQ(stage.bank_conflicts, 0) << v;
    EXPECT_EQ(stage.max_bank_degree, 1) << v;
  }
}

}  // namespace
}  // namespace smemsim::exec
