// The kernel suite (kernels/*.cu) compiled to PTX by nvcc at build time parses, and its IR has the
// facts the sources promise. Skipped when the build found no nvcc.
#include <filesystem>
#include <fstream>
#include <string>

#include <algorithm>

#include <gtest/gtest.h>

#include "kernel_test_util.hpp"

#include "smemsim/ptx.hpp"

namespace smemsim {
namespace {

namespace fs = std::filesystem;
using ptx::Opcode;
using ptx::Space;

ptx::Module load(const std::string& stem) {
  return ptx::parse_file(std::string(SMEMSIM_PTX_DIR) + "/" + stem + ".ptx");
}

const ptx::Kernel& kernel(const ptx::Module& m, const std::string& name) {
  const ptx::Kernel* k = m.find_kernel(name);
  if (!k) throw std::runtime_error("no kernel " + name);
  return *k;
}

int count(const ptx::Kernel& k, Opcode op, Space space) {
  int n = 0;
  for (const auto& i : k.code) n += i.op == op && i.space == space;
  return n;
}

using test::source_line;

// The CUDA line an instruction comes from in the kernel's own .cu file: the .loc itself, or for
// code inlined from a CUDA header (atomicAdd, ...) its inlined_at call site.
std::uint32_t cu_line(const ptx::Module& m, const ptx::Instruction& i, const std::string& cu) {
  auto in_cu = [&](const ptx::SourceLoc& l) { return m.file_name(l.file).ends_with("/" + cu); };
  const ptx::SourceSite& s = m.site(i);
  if (in_cu(s.loc)) return s.loc.line;
  if (in_cu(s.inlined_at)) return s.inlined_at.line;
  return 0;
}

TEST(PtxSuite, EveryKernelSourceParsesWithConsistentIr) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(std::string(SMEMSIM_SOURCE_DIR) + "/kernels")) {
    if (e.path().extension() != ".cu") continue;
    ++files;
    const std::string stem = e.path().stem().string();
    SCOPED_TRACE(stem);
    ptx::Module m = load(stem);  // throws (fails) on anything unsupported
    EXPECT_EQ(m.address_size, 64u);
    ASSERT_FALSE(m.kernels.empty());
    ASSERT_GT(m.files.size(), 1u);
    EXPECT_TRUE(m.files[1].ends_with("/" + stem + ".cu")) << m.files[1];
    for (const ptx::Kernel& k : m.kernels) {
      ASSERT_FALSE(k.code.empty());
      // Control never falls off the end: the last instruction returns or branches (nvcc may put a
      // block after the ret, ending in bra.uni: wgmma_layouts).
      const ptx::Instruction& last = k.code.back();
      EXPECT_TRUE(last.op == Opcode::Ret || last.op == Opcode::Exit ||
                  (last.op == Opcode::Bra && last.guard == ptx::kNone))
          << k.name;
      for (const ptx::Instruction& i : k.code) {
        if (i.guard != ptx::kNone) EXPECT_EQ(k.regs.at(i.guard).type, ptx::Type::Pred);
        if (i.op == Opcode::Bra) EXPECT_LE(i.ops[0].target, k.code.size());
        ASSERT_LT(i.site, m.sites.size());
        EXPECT_LT(m.site(i).loc.file, m.files.size());
        for (std::uint8_t o = 0; o < i.num_ops; ++o) {
          const ptx::Operand& op = i.ops[o];
          if (op.kind == ptx::OperandKind::Reg) EXPECT_LT(op.reg, k.regs.size());
          if (op.kind == ptx::OperandKind::Memory && op.reg == ptx::kNone)
            EXPECT_LT(op.sym, k.symbols.size());
        }
      }
    }
  }
  EXPECT_GE(files, 8);
}

TEST(PtxSuite, AtomicBenchmarkEq1) {
  const ptx::Module m = load("atomic_bench");
  const ptx::Kernel& k = kernel(m, "atomic_bench");
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.symbols[k.params[0]].type, ptx::Type::U64);  // out
  EXPECT_EQ(k.symbols[k.params[1]].type, ptx::Type::U64);  // cycles
  EXPECT_EQ(k.symbols[k.params[2]].type, ptx::Type::U32);  // conflicts
  // The counters array (8192 words) and the sink of the clock() measurement (1024 words).
  std::vector<std::uint64_t> shared_sizes;
  for (const auto& s : k.symbols)
    if (s.space == Space::Shared) shared_sizes.push_back(s.size_bytes());
  std::sort(shared_sizes.begin(), shared_sizes.end());
  EXPECT_EQ(shared_sizes, (std::vector<std::uint64_t>{1024u * 4u, 8192u * 4u}));
  // Every atomic is a shared 32-bit add, from the atomicAdd line of the source.
  const std::uint32_t line = source_line("atomic_bench.cu", "atomicAdd(p, 1u)");
  ASSERT_NE(line, 0u);
  const int atoms = count(k, Opcode::Atom, Space::Shared);
  EXPECT_GE(atoms, 1);
  int checked = 0;
  for (const auto& i : k.code) {
    if (i.op != Opcode::Atom) continue;
    EXPECT_EQ(i.atom, ptx::AtomOp::Add);
    EXPECT_EQ(i.type, ptx::Type::U32);
    EXPECT_EQ(cu_line(m, i, "atomic_bench.cu"), line);
    ++checked;
  }
  EXPECT_EQ(checked, atoms);
  // Loops: at least one backward branch.
  bool backward = false;
  for (std::size_t pc = 0; pc < k.code.size(); ++pc)
    if (k.code[pc].op == Opcode::Bra && k.code[pc].ops[0].target <= pc) backward = true;
  EXPECT_TRUE(backward);
}

TEST(PtxSuite, GenIndexChasesThroughSharedMemory) {
  const ptx::Module m = load("genindex");
  const ptx::Kernel& k = kernel(m, "genindex");
  EXPECT_GE(count(k, Opcode::Ld, Space::Shared), 1);
  EXPECT_GE(count(k, Opcode::Bar, Space::None), 1);
  const std::uint32_t line = source_line("genindex.cu", "index = scratchpad[index]");
  bool found = false;
  for (const auto& i : k.code)
    if (i.op == Opcode::Ld && i.space == Space::Shared)
      found |= cu_line(m, i, "genindex.cu") == line;
  EXPECT_TRUE(found);
}

TEST(PtxSuite, TransposeTilesNaiveAndPadded) {
  const ptx::Module m = load("transpose");
  auto tile_bytes = [&](const std::string& name) {
    const ptx::Kernel& k = kernel(m, name);
    std::uint64_t bytes = 0;
    for (const auto& s : k.symbols)
      if (s.space == Space::Shared) bytes += s.size_bytes();
    return bytes;
  };
  EXPECT_EQ(tile_bytes("transpose_naive"), 16u * 16u * 4u);
  EXPECT_EQ(tile_bytes("transpose_padded"), 16u * 17u * 4u);
  EXPECT_GE(count(kernel(m, "transpose_naive"), Opcode::St, Space::Shared), 1);
  EXPECT_GE(count(kernel(m, "transpose_naive"), Opcode::Ld, Space::Shared), 1);
}

TEST(PtxSuite, VotingKernelsUseDynamicSharedMemoryAndSharedAtomics) {
  struct Case {
    const char* file;
    const char* kernel;
    const char* array;
  };
  for (const Case c :
       {Case{"histogram", "histogram", "sub_hist"}, Case{"kmeans", "kmeans_update", "votes"},
        Case{"hough", "hough_vote", "vote_space"}}) {
    SCOPED_TRACE(c.file);
    const ptx::Module m = load(c.file);
    const ptx::Kernel& k = kernel(m, c.kernel);
    const std::uint32_t s = k.find_symbol(c.array);
    ASSERT_NE(s, ptx::kNone);
    EXPECT_TRUE(k.symbols[s].is_extern);
    EXPECT_EQ(k.symbols[s].elements, 0u);
    EXPECT_EQ(k.symbols[s].space, Space::Shared);
    EXPECT_GE(count(k, Opcode::Atom, Space::Shared), 1);
  }
  // k-means: integer counters and floating-point component sums (seed 001 §4.1.1).
  const ptx::Module km = load("kmeans");
  bool int_add = false, float_add = false;
  for (const auto& i : kernel(km, "kmeans_update").code) {
    if (i.op != Opcode::Atom || i.space != Space::Shared) continue;
    int_add |= i.type == ptx::Type::U32;
    float_add |= i.type == ptx::Type::F32;
  }
  EXPECT_TRUE(int_add);
  EXPECT_TRUE(float_add);
  // Hough: sin/cos approximations and round-to-nearest conversion to a bin.
  const ptx::Module h = load("hough");
  int sin = 0, cos = 0, rni = 0;
  for (const auto& i : kernel(h, "hough_vote").code) {
    sin += i.op == Opcode::Sin && i.has(ptx::kApprox);
    cos += i.op == Opcode::Cos && i.has(ptx::kApprox);
    rni += i.op == Opcode::Cvt && i.rounding == ptx::Rounding::Rni;
  }
  EXPECT_EQ(sin, 1);
  EXPECT_EQ(cos, 1);
  EXPECT_GE(rni, 1);
}

TEST(PtxSuite, ReductionAndFwt) {
  const ptx::Module r = load("reduction");
  ASSERT_NE(r.find_kernel("reduce_interleaved"), nullptr);
  ASSERT_NE(r.find_kernel("reduce_sequential"), nullptr);
  for (const auto& k : r.kernels) {
    EXPECT_GE(count(k, Opcode::Bar, Space::None), 2) << k.name;
    EXPECT_GE(count(k, Opcode::Ld, Space::Shared), 2) << k.name;
  }
  const ptx::Module f = load("fwt");
  const ptx::Kernel& k = kernel(f, "fwt");
  EXPECT_GE(count(k, Opcode::Ld, Space::Shared), 4);  // the four butterfly inputs
  EXPECT_GE(count(k, Opcode::St, Space::Shared), 4);
  const std::uint32_t line = source_line("fwt.cu", "float d0 = S(i0)");
  bool found = false;
  for (const auto& i : k.code)
    if (i.op == Opcode::Ld && i.space == Space::Shared) found |= cu_line(f, i, "fwt.cu") == line;
  EXPECT_TRUE(found);
}

TEST(PtxSuite, IsaMixCoversEveryAtomicOperation) {
  const ptx::Module m = load("isa_mix");
  unsigned seen = 0;
  for (const auto& i : kernel(m, "isa_mix").code)
    if (i.op == Opcode::Atom && i.space == Space::Shared)
      seen |= 1u << static_cast<unsigned>(i.atom);
  for (ptx::AtomOp a :
       {ptx::AtomOp::Add, ptx::AtomOp::Min, ptx::AtomOp::Max, ptx::AtomOp::Inc, ptx::AtomOp::Dec,
        ptx::AtomOp::And, ptx::AtomOp::Or, ptx::AtomOp::Xor, ptx::AtomOp::Exch, ptx::AtomOp::Cas})
    EXPECT_TRUE(seen & (1u << static_cast<unsigned>(a))) << static_cast<int>(a);
}

}  // namespace
}  // namespace smemsim
