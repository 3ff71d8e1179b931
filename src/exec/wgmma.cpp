// wgmma.mma_async in the executor (issue 46; PTX ISA "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate Instructions", sm_90a). A warpgroup's four warps (warps 4i..4i+3 of the
// CTA) compute D (64 x N) = A (64 x K) B (K x N) + D together; warp `rank` = its index % 4 holds
// rows 16 rank .. 16 rank + 15 of D (and of A, from registers), so each warp's share depends only
// on its own rows of A and on the whole of B: the executor forms each warp's share when that warp
// issues, exactly. The product is formed at issue; the PTX ISA leaves D undefined until a
// wgmma.wait_group covers it, so a program that reads it earlier is wrong on a GPU whatever it
// reads here (the timing model holds the warp at the wait: src/timing/sm_waits.cpp).
//
// A (from shared memory) and B are read through 64-bit matrix descriptors (PTX ISA "Matrix
// WgDesc Format"): bits 0-13 the start address >> 4, 16-29 the leading dimension byte offset
// (LBO) >> 4, 32-45 the stride dimension byte offset (SBO) >> 4, 49-51 the base offset, 62-63
// the swizzle (0 none, 1 128B, 2 64B, 3 32B). The canonical layouts (PTX ISA "Shared Memory
// Matrix Layout"), in elements with T = 16 bytes / element size, a matrix being MN rows of K:
//   K-major, no swizzle:   ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))   8 x 16-byte core matrices
//   K-major, W-byte swizzle (W = 32, 64, 128): ((8,m),(T,2k)) : ((W/16 T,SBO),(1,T))
//   MN-major, no swizzle:  ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
//   MN-major, W swizzle:   ((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16 T,SBO))
// then the swizzle: address bits [4, 4 + log2(W/16)) ^= bits [7, ...), on the CTA's shared
// address itself, as the TMA writes a swizzled box (tma_swizzle), so that a tile the TMA wrote
// with a mode is read right through a descriptor of the same mode. The base offset is accepted
// and not used (it is needed only when the swizzle is computed from the start address, not the
// address itself). K-major is the layout without transpose; the transposes (16-bit types only)
// make A M-major and B N-major.
//
// The shared reads are handed to the timing as the hardware's tensor core takes them, one core
// matrix (eight 16-byte rows) a pass: the warp's own rows of A, and B's core matrices dealt out
// to the warpgroup's four warps in turn (B is read once for the four sub-cores' tensor cores).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "exec/exec_internal.hpp"
#include "exec/mma_layout.hpp"
#include "smemsim/tensor_map.hpp"
#include "util/thread_scratch.hpp"

namespace smemsim::exec::detail {
namespace {

using ptx::Type;

struct WgDesc {
  std::uint32_t start = 0, lbo = 0, sbo = 0;
  int swizzle = 0;  // bytes: 0, 32, 64, 128
};

WgDesc wg_descriptor(std::uint64_t d) {
  WgDesc r;
  r.start = std::uint32_t(d & 0x3fff) << 4;
  r.lbo = std::uint32_t((d >> 16) & 0x3fff) << 4;
  r.sbo = std::uint32_t((d >> 32) & 0x3fff) << 4;
  static constexpr int kModes[] = {0, 128, 64, 32};
  r.swizzle = kModes[(d >> 62) & 3];
  return r;
}

TmaSwizzle wg_swizzle(int bytes) {
  return bytes == 32    ? TmaSwizzle::B32
         : bytes == 64  ? TmaSwizzle::B64
         : bytes == 128 ? TmaSwizzle::B128
                        : TmaSwizzle::None;
}

// The shared address of the 16-byte chunk that holds element (mn, kk) of an operand, and the
// element's place in it (in elements), `eb` bytes each.
struct WgChunk {
  std::uint32_t addr = 0;
  int at = 0;
};
WgChunk wg_chunk(const WgDesc& d, bool mn_major, int eb, int mn, int kk) {
  const int t = 16 / eb;  // elements per 16-byte chunk
  std::uint64_t off = 0;
  int at = 0;
  if (!mn_major) {
    at = kk % t;
    off = d.swizzle == 0 ? std::uint64_t(mn % 8) * 16 + std::uint64_t(mn / 8) * d.sbo +
                               std::uint64_t(kk / t) * d.lbo
                         : std::uint64_t(mn % 8) * std::uint64_t(d.swizzle) +
                               std::uint64_t(mn / 8) * d.sbo + std::uint64_t(kk / t) * 16;
  } else {
    at = mn % t;
    if (d.swizzle == 0) {
      off = std::uint64_t(mn / t) * d.sbo + std::uint64_t(kk % 8) * 16 +
            std::uint64_t(kk / 8) * d.lbo;
    } else {
      const int chunks = d.swizzle / 16;  // along MN in one swizzle row
      off = std::uint64_t((mn / t) % chunks) * 16 + std::uint64_t((mn / t) / chunks) * d.lbo +
            std::uint64_t(kk % 8) * std::uint64_t(d.swizzle) + std::uint64_t(kk / 8) * d.sbo;
    }
  }
  const std::uint64_t a = d.start + off;
  return {tma_swizzle(std::uint32_t(a), wg_swizzle(d.swizzle)), at};
}

// The value of the element at byte p of a shared operand of type t.
double wg_element(const std::uint8_t* p, Type t) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, std::size_t(ptx::type_bits(t) / 8));
  return element(v, 0, t);
}

constexpr int kMaxN = 256, kWgK = 32;
// One warpgroup's A and B in double (per thread, not on the stack: 68 KB).
struct WgmmaScratch {
  double a[16][kWgK], b[kWgK][kMaxN];
};

// Reads matrix `which` (0: A's rows of warp `rank`, 1: B) through descriptor `d` into `out`
// (rows x K for A, K x N for B), and notes the core matrices the warp's pass reads in `cores`.
void wg_read(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, int which, std::uint64_t raw,
             bool mn_major, Type t, int rows, int row0, int k, double* out,
             std::vector<std::uint32_t>& cores, int rank) {
  const WgDesc d = wg_descriptor(raw);
  const int eb = ptx::type_bits(t) / 8, per = 16 / eb;
  LaneMask unused = 0;
  // Core matrices are 8 rows (MN-major: 8 K rows) of one 16-byte chunk; enumerate them in order,
  // B's dealt to the warps in turn.
  int core = 0;
  const int mn_groups = mn_major ? rows / per : rows / 8, k_groups = mn_major ? k / 8 : k / per;
  for (int gk = 0; gk < k_groups; ++gk)
    for (int gm = 0; gm < mn_groups; ++gm, ++core) {
      const bool mine = which == 0 || core % 4 == rank;
      for (int i = 0; i < 8; ++i) {
        const int mn = row0 + (mn_major ? gm * per : gm * 8 + i),
                  kk = mn_major ? gk * 8 + i : gk * per;
        const WgChunk c = wg_chunk(d, mn_major, eb, mn, kk);
        const std::uint8_t* p =
            lane_pointer(im, cta, w, pc, 0, ptx::Space::Shared, c.addr, 16, false, unused, 16);
        if (mine) cores.push_back(c.addr);
        for (int e = 0; e < per; ++e) {
          const int m2 = mn_major ? mn + e : mn, k2 = mn_major ? kk : kk + e;
          const double v = wg_element(p + e * eb, t);
          if (which == 0)
            out[(m2 - row0) * kWgK + k2] = v;
          else
            out[k2 * kMaxN + m2] = v;
        }
      }
    }
}

}  // namespace

void exec_wgmma(Impl& im, Cta& cta, Warp& w, std::uint32_t pc) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  if (ptx::WgmmaOp(ins.comp & ptx::kWgmmaOpMask) != ptx::WgmmaOp::Mma) return;
  const int n = 8 * ins.vec, k = ptx::mma_shape_dims(ins.shape).k;
  const int rank = int(w.index % 4);
  // The warpgroup is four whole warps (PTX ISA: four contiguous warps, the first's rank a
  // multiple of 4), all of which execute the instruction.
  if ((w.index / 4 + 1) * 4 > cta.warps.size() || im.lanes != 32)
    im.fail(
        cta, w, 0, pc,
        fmt::format("wgmma.mma_async needs the warpgroup's four warps of 32 threads: warp {} is "
                    "in warpgroup {}, and the block has {} warp{}",
                    w.index, w.index / 4, cta.warps.size(), cta.warps.size() == 1 ? "" : "s"));
  WgmmaScratch& scratch = util::thread_scratch<WgmmaScratch>();
  auto& a = scratch.a;
  auto& b = scratch.b;
  static thread_local std::vector<std::uint32_t> cores;  // kept: no allocation an instruction
  cores.clear();
  const auto lane0 = [&](const ptx::Operand& o) { return im.row(w, im.reg_row(o.reg))[0]; };
  // Every lane names the same descriptors.
  for (int i = 1; i <= 2; ++i) {
    const ptx::Operand& o = ins.ops[std::size_t(i)];
    if (o.kind != ptx::OperandKind::Reg) continue;
    const std::uint64_t* v = im.row(w, im.reg_row(o.reg));
    for (int l = 1; l < 32; ++l)
      if (v[l] != v[0])
        im.fail(cta, w, l, pc,
                fmt::format("the warpgroup's {} descriptor differs between lanes ({:#x} in lane 0, "
                            "{:#x} here)",
                            i == 1 ? "A" : "B", v[0], v[l]));
  }
  const bool a_desc = ins.comp & ptx::kWgmmaADesc;
  if (a_desc) {
    wg_read(im, cta, w, pc, 0, lane0(ins.ops[1]), ins.comp & ptx::kWgmmaTransA, ins.type2, 16,
            16 * rank, k, &a[0][0], cores, rank);
  } else {
    FragSlots s;
    for (int lane = 0; lane < 32; ++lane) {
      const int cnt = wgmma_fragment(ins.shape, 0, ins.type2, n, rank, lane, s);
      for (int i = 0; i < cnt; ++i) {
        const FragSlot& e = s[std::size_t(i)];
        const std::uint64_t reg = im.row(w, im.reg_row(im.kernel.vec(ins.ops[1], e.reg)))[lane];
        a[e.row - 16 * rank][e.col] = element(reg, e.sub, ins.type2);
      }
    }
  }
  wg_read(im, cta, w, pc, 1, lane0(ins.ops[2]), ins.comp & ptx::kWgmmaTransB, ins.type4, n, 0, k,
          &b[0][0], cores, rank);
  // The traffic: one pass of eight 16-byte rows per core matrix.
  for (std::size_t c = 0; c < cores.size(); c += 8) {
    for (int i = 0; i < 8; ++i) im.addr[std::size_t(i)] = cores[c + std::size_t(i)];
    emit_shared(im, w, cta, pc, Op::Load, lanes_mask(8), 4);
  }
  const double sa = ins.comp & ptx::kWgmmaNegA ? -1 : 1, sb = ins.comp & ptx::kWgmmaNegB ? -1 : 1;
  // scale-d: each lane's own predicate (or the immediate) keeps its part of D or drops it.
  const ptx::Operand& sd = ins.ops[3];
  const std::uint64_t* sdv =
      sd.kind == ptx::OperandKind::Reg ? im.row(w, im.reg_row(sd.reg)) : nullptr;
  FragSlots s;
  const bool sat = ins.has(ptx::kSatfinite);
  for (int lane = 0; lane < 32; ++lane) {
    const bool keep = sdv ? ((sdv[lane] & 1) != 0) != sd.negate : sd.imm() != 0;
    const int cnt = wgmma_fragment(ins.shape, 2, ins.type, n, rank, lane, s);
    // Every element of a register is computed before the register is written (f16 pairs).
    for (int i = 0; i < cnt; ++i) {
      const FragSlot& e = s[std::size_t(i)];
      std::uint64_t& reg = im.row(w, im.reg_row(im.kernel.vec(ins.ops[0], e.reg)))[lane];
      const int r = e.row - 16 * rank, c = e.col;
      double acc = 0;
      for (int kk = 0; kk < k; ++kk) acc += a[r][kk] * b[kk][c];
      acc = sa * sb * acc + (keep ? element(reg, e.sub, ins.type) : 0.0);
      store_element(reg, e.sub, ins.type, acc, sat);
    }
  }
}

}  // namespace smemsim::exec::detail
