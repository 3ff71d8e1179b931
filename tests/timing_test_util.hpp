// Helpers of the timing-model tests: a small configurable GPU, hand-written PTX kernels run through
// timing::GpuSim, and an observer that records issues, stalls and stage contents per cycle.
#pragma once

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/timing.hpp"

namespace smemsim::test {

inline const char* kTimingHeader = R"(.version 7.0
.target sm_75
.address_size 64
.file 1 "/src/t.cu"
)";

// One SM of the 004 Fig. 4 pipeline: 2 front-end stages (IF, ID), one EXE stage, 2 memory stages
// (MEM0, MEM1), writeback; every latency is therefore 2 + 1 + 2 + 1 = 6 cycles; 32 lanes pass in
// one cycle; a bank pass takes one cycle and a conflict holds MEM0 (t_bank = 1).
inline Arch fig4_arch(const std::string& pipeline = "unified") {
  Arch a = default_arch();
  a.sm.count = 1;
  a.sm.frontend_stages = 2;
  a.sm.mem_stages = 2;
  a.sm.simd_width = 32;
  for (std::uint32_t* lat : {&a.sm.lat_alu, &a.sm.lat_sfu, &a.sm.lat_branch, &a.sm.lat_shared_ld,
                             &a.sm.lat_shared_st, &a.sm.lat_const})
    *lat = 6;
  a.timing.fsm_read = a.timing.fsm_update = a.timing.fsm_write = a.timing.fsm_branch = 6;
  a.timing.t_bank = 1;
  a.sm.pipeline = pipeline;
  a.sm.scheduler = "lrr";
  a.sm.barrel = "relaxed";
  validate(a);
  return a;
}

// The window of seed 004 Fig. 4: i9 is a shared load W_i, i10..i14 are independent ALU
// instructions W_i+1..W_i+5, i15 ret. Lanes 0-15 read words 0-15 and lanes 16-31 words
// (l - 16) + SHIFT_WORDS: with shl 7 (32 words) bank b holds two words of the warp, a 2-way
// conflict; with shl 6 (16 words) every lane has its own bank. i8 waits for the address so that the
// window issues back to back.
// i0 mov; i1..i3 each depends on the one before; i4 ret.
inline const char* kChain = R"(
.visible .entry chain(.param .u64 out)
{
  .reg .b32 %r<8>;
  mov.u32 %r1, 1;
  add.u32 %r2, %r1, 1;
  add.u32 %r3, %r2, 1;
  add.u32 %r4, %r3, 1;
  ret;
}
)";

inline std::string fig4_kernel(int shift) {
  return R"(
.visible .entry fig4(.param .u64 out)
{
  .reg .b32 %r<20>;
  .shared .align 4 .b8 sh[8192];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 15;
  shr.u32 %r3, %r1, 4;
  shl.b32 %r4, %r2, 2;
  shl.b32 %r5, %r3, )" +
         std::to_string(shift) + R"(;
  add.u32 %r6, %r4, %r5;
  mov.u32 %r7, sh;
  add.u32 %r8, %r7, %r6;
  mov.u32 %r9, %r8;
  ld.shared.u32 %r10, [%r8];
  add.u32 %r11, %r1, 1;
  add.u32 %r12, %r1, 2;
  add.u32 %r13, %r1, 3;
  add.u32 %r14, %r1, 4;
  add.u32 %r15, %r1, 5;
  ret;
}
)";
}

struct Event {
  std::uint32_t warp, index;
  std::uint8_t micro;
  std::uint64_t cycle;
};

// Records everything the simulator reports for SM 0.
class Recorder final : public timing::Observer {
 public:
  std::vector<Event> issues, completions;
  std::map<std::uint64_t, timing::Stall> stalls;
  std::vector<std::vector<timing::StageCell>> cells;  // per cycle
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                std::uint64_t cycle) override {
    if (sm == 0) issues.push_back({warp, index, micro, cycle});
  }
  void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                   std::uint64_t, std::uint64_t cycle) override {
    if (sm == 0) completions.push_back({warp, index, micro, cycle});
  }
  void on_stall(std::uint32_t sm, timing::Stall why, std::uint64_t cycle) override {
    if (sm == 0) stalls[cycle] = why;
  }
  bool wants_stages(std::uint32_t sm) const override { return sm == 0; }
  void on_stages(std::uint32_t, std::uint64_t cycle,
                 const std::vector<timing::StageCell>& c) override {
    if (cells.size() <= cycle) cells.resize(cycle + 1);
    cells[cycle] = c;
  }
  // Cycle the n-th issue (0-based, in issue order) of instruction `index` by `warp`.
  std::uint64_t issued(std::uint32_t warp, std::uint32_t index, int nth = 0) const {
    for (const Event& e : issues)
      if (e.warp == warp && e.index == index && e.micro == 0 && nth-- == 0) return e.cycle;
    ADD_FAILURE() << "no issue of instruction " << index << " by warp " << warp;
    return 0;
  }
  std::uint64_t completed(std::uint32_t warp, std::uint32_t index) const {
    for (const Event& e : completions)
      if (e.warp == warp && e.index == index && e.micro == 0) return e.cycle;
    ADD_FAILURE() << "no completion of instruction " << index << " by warp " << warp;
    return 0;
  }
};

// A hand-written kernel with a u32 output buffer `out` of `words` words.
struct TimedKernel {
  ptx::Module module;
  exec::GlobalMemory mem;
  exec::Launch launch;
  bool warm_l2 = false;  // TimingOptions::warm_l2

  TimedKernel(const std::string& body, std::uint32_t threads, std::uint32_t words = 64,
              std::uint32_t blocks = 1) {
    module = ptx::parse(std::string(kTimingHeader) + body, "t.ptx");
    launch.grid = {blocks, 1, 1};
    launch.block = {threads, 1, 1};
    const auto& k = module.kernels.at(0);
    exec::Buffer out{"out", exec::ElemType::U32, std::vector<std::uint8_t>(words * 4u)};
    const std::uint32_t b = mem.add(std::move(out));
    for (std::size_t i = 0; i < k.params.size(); ++i) launch.args.push_back(exec::Arg::buf(b));
  }
  // Adds a u32 input buffer and makes it argument `arg`.
  void input(std::size_t arg, const std::vector<std::uint32_t>& v) {
    exec::Buffer in{"in" + std::to_string(arg), exec::ElemType::U32,
                    std::vector<std::uint8_t>(v.size() * 4)};
    std::memcpy(in.bytes.data(), v.data(), in.bytes.size());
    launch.args.at(arg) = exec::Arg::buf(mem.add(std::move(in)));
  }
  // By default on two threads, every cycle in parallel (issue 31): the exact-cycle cases on GPUs
  // of several SMs hold there too (results do not depend on the thread count; one SM stays on one
  // thread).
  timing::TimingStats run(const Arch& arch, timing::Observer* obs = nullptr,
                          bool per_instruction = false, std::uint32_t threads = 2) {
    timing::TimingOptions o;
    o.observer = obs;
    o.per_instruction = per_instruction;
    o.threads = threads;
    o.parallel_min_sms = 1;
    o.warm_l2 = warm_l2;
    timing::GpuSim sim(module, module.kernels.at(0), arch, launch, mem, o);
    return sim.run();
  }
  std::vector<std::uint32_t> out() const {
    const exec::Buffer& b = *mem.find("out");
    std::vector<std::uint32_t> v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  }
};

// hopper-h100 on one SM with sm.lower = "none": the PTX timed as written.
inline Arch hopper_plain() {
  Arch a = find_preset("hopper-h100");
  a.sm.count = 1;
  a.sm.lower = "none";
  return a;
}

// A kernel `name(.param .u64 out)` that times `body` on clock: `decls` (.reg/.shared lines) and
// `setup` first, then a bar.sync and %r390 = %clock, the body, %r391 = %clock; out[0] = the cycles
// (%rd2 is out's global address), then `store` (the chain's value to out[1]). The body keeps
// clear of %r390..%r392 and %rd1..%rd2. For chains of dependent links, timed as 24 links less 8.
inline std::string clock_timed(const std::string& name, const std::string& decls,
                               const std::string& setup, const std::string& body,
                               const std::string& store) {
  return ".visible .entry " + name + "(.param .u64 out)\n{\n" + decls + setup +
         "  bar.sync 0;\n  mov.u32 %r390, %clock;\n" + body +
         "  mov.u32 %r391, %clock;\n  sub.s32 %r392, %r391, %r390;\n  ld.param.u64 %rd1, "
         "[out];\n  cvta.to.global.u64 %rd2, %rd1;\n  st.global.u32 [%rd2], %r392;\n  " +
         store + "\n  ret;\n}\n";
}

}  // namespace smemsim::test
