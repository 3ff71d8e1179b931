// CTA barriers (issue 15, PTX ISA "bar, barrier"): 16 per CTA. `bar.sync a{, b}` arrives at
// barrier a and waits; `bar.arrive a, b` arrives without waiting (producer/consumer warps);
// `bar.red.{popc,and,or} d, a{, b}, {!}c` waits and gives every participating thread the
// reduction of c (__syncthreads_count/_and/_or). The thread count b is a multiple of the warp size
// and each arriving warp counts warp-size threads, as the hardware counts; without b the barrier
// waits for every live warp of the CTA (warps that exited do not count), the executor's reading
// of bar.sync 0. A barrier completes when its count is reached, releases its waiting warps and is
// ready for the next phase.
#include <fmt/format.h>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

// The value of operand i, which must be the same in every executing lane.
std::uint64_t uniform(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m, std::size_t i,
                      const char* what) {
  const std::uint64_t* v = im.row(w, im.xcode[pc].row[i]);
  const int first = std::countr_zero(m);
  const std::uint64_t value = v[first] & 0xffffffffu;
  each_lane(m, [&](int l) {
    if ((v[l] & 0xffffffffu) != value)
      im.fail(cta, w, l, pc,
              fmt::format("the {} differs across the warp: {} in lane {}, {} in lane {}", what,
                          value, first, v[l] & 0xffffffffu, l));
  });
  return value;
}

bool complete(const Barrier& b, const Cta& cta) {
  return b.arrived && b.arrived >= (b.expected ? b.expected : cta.live_warps);
}

// Releases the warps waiting at barrier `id`: bar.red's destinations get the reduction.
void release(Impl& im, Cta& cta, std::uint8_t id) {
  Barrier& b = cta.bars[id];
  for (Warp& w : cta.warps) {
    if (w.state != WarpState::AtBarrier || w.bar_id != id) continue;
    w.state = WarpState::Ready;
    if (im.race) [[unlikely]]
      race_released(im, cta, w, id);
    if (w.bar_red_pc == kNoRow) continue;
    const ptx::Instruction& ins = im.kernel.code[w.bar_red_pc];
    std::uint64_t* d = im.row(w, im.xcode[w.bar_red_pc].row[0]);
    const std::uint64_t v = ins.atom == ptx::AtomOp::Add   ? b.popc
                            : ins.atom == ptx::AtomOp::And ? (b.all ? 1 : 0)
                                                           : (b.any ? 1 : 0);
    each_lane(w.bar_lanes, [&](int l) { d[l] = v; });
    w.bar_red_pc = kNoRow;
  }
  b = Barrier{};
  if (im.race) [[unlikely]]
    race_reset_barrier(im, cta, id);
}

}  // namespace

void exec_barrier(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const bool red = ins.has(ptx::kBarRed);
  const std::size_t first = red ? 1 : 0;  // bar.red: d, a {, b}, c
  const std::size_t counts = ins.num_ops - first - (red ? 1 : 0);
  const std::uint64_t id = uniform(im, cta, w, pc, m, first, "barrier number");
  const int lane = std::countr_zero(m);
  if (id >= kBarriers)
    im.fail(cta, w, lane, pc,
            fmt::format("barrier {} does not exist (a CTA has barriers 0..15)", id));
  Barrier& b = cta.bars[id];
  std::uint32_t expected = 0, threads = 0;
  if (counts == 2) {
    threads = static_cast<std::uint32_t>(uniform(im, cta, w, pc, m, first + 1, "thread count"));
    const std::uint32_t ws = im.lanes;
    if (threads == 0 || threads % ws)
      im.fail(cta, w, lane, pc,
              fmt::format("thread count {} of barrier {} is not a positive multiple of the warp "
                          "size ({}): each arriving warp counts {} threads",
                          threads, id, ws, ws));
    expected = threads / ws;
    if (expected > im.warps)
      im.fail(cta, w, lane, pc,
              fmt::format("barrier {} waits for {} threads, but the block has {} warps ({} "
                          "threads): it can never complete",
                          id, threads, im.warps, im.threads));
  }
  if (b.arrived && (b.expected != expected))
    im.fail(cta, w, lane, pc,
            fmt::format("barrier {} is used with {} here, but an earlier warp of this phase "
                        "arrived with {}",
                        id, threads ? fmt::format("{} threads", threads) : "no thread count",
                        b.threads ? fmt::format("{} threads", b.threads) : "no thread count"));
  b.expected = expected;
  b.threads = threads;
  ++b.arrived;
  if (im.race) [[unlikely]]
    race_arrive(im, cta, w, static_cast<std::uint8_t>(id));
  if (red) {
    const XInst& x = im.xcode[pc];
    const std::uint64_t* c = im.row(w, x.row[ins.num_ops - 1]);
    const std::uint64_t neg = x.negated(ins.num_ops - 1u);
    each_lane(m, [&](int l) {
      const bool p = ((c[l] ^ neg) & 1) != 0;
      b.popc += p ? 1 : 0;
      b.all &= p;
      b.any |= p;
    });
    w.bar_red_pc = pc;
    w.bar_lanes = m;
  }
  if (!ins.has(ptx::kArrive)) {
    w.state = WarpState::AtBarrier;
    w.bar_id = static_cast<std::uint8_t>(id);
  }
  if (complete(b, cta)) release(im, cta, static_cast<std::uint8_t>(id));
}

void release_barriers(Impl& im, Cta& cta) {
  for (std::uint8_t id = 0; id < kBarriers; ++id)
    if (!cta.bars[id].expected && complete(cta.bars[id], cta)) release(im, cta, id);
}

std::string describe_barrier(const Impl&, const Cta& cta, const Warp& w) {
  const Barrier& b = cta.bars[w.bar_id];
  const std::uint32_t want = b.expected ? b.expected : cta.live_warps;
  return fmt::format("barrier {} ({}{} of {} warps arrived)", w.bar_id,
                     b.threads ? fmt::format("{} threads: ", b.threads) : "", b.arrived, want);
}

}  // namespace smemsim::exec::detail
