// Device function calls (issue 15; ptx/link.cpp appends each called .func to the kernel). A call
// pushes a stack entry for the calling lanes at the function's entry, above the continuation at the
// instruction after the call, so the SIMT reconvergence stack runs the function like any divergent
// path. `ret` removes its lanes down to that entry; when none is left the call is over: the return
// values are copied to the caller's slots, and for a recursive function its registers and slots
// are restored to what they held before the call, which gives each recursive call its own (a
// function that cannot reach itself needs no copy: nothing of it is live across its calls).
#include <fmt/format.h>

#include <cstring>

#include "exec/exec_internal.hpp"

namespace smemsim::exec::detail {
namespace {

// Thread `lane`'s local memory, or nullptr past the CTA's threads (a partial last warp).
std::uint8_t* thread_local_base(const Impl& im, Cta& cta, const Warp& w, int lane) {
  const std::uint64_t t = std::uint64_t(w.index) * im.lanes + std::uint64_t(lane);
  return t < im.threads ? cta.local.data() + t * im.local_bytes : nullptr;
}

void finish_frame(Impl& im, Cta& cta, Warp& w) {
  CallFrame f = std::move(w.frames.back());
  w.frames.pop_back();
  const CallInfo& ci = im.calls[f.call];
  const LaneMask back = f.lanes & w.live;
  if (!ci.save) {  // nothing to restore: the return values go straight to the caller's slots
    each_lane(back, [&](int l) {
      std::uint8_t* base = thread_local_base(im, cta, w, l);
      for (const CallInfo::Copy& r : ci.rets) std::memmove(base + r.dst, base + r.src, r.bytes);
    });
    w.stack.resize(f.base);
    return;
  }
  // Recursive: the return values first into a buffer, since restoring the function's slots below
  // overwrites them when the caller is the same function.
  std::vector<std::uint8_t> values;
  each_lane(back, [&](int l) {
    const std::uint8_t* base = thread_local_base(im, cta, w, l);
    for (const CallInfo::Copy& r : ci.rets)
      values.insert(values.end(), base + r.src, base + r.src + r.bytes);
  });
  const std::size_t rows = ci.reg_end - ci.reg_begin;
  if (rows) std::memcpy(im.row(w, im.reg_row(ci.reg_begin)), f.regs.data(), rows * im.lanes * 8);
  const std::uint64_t span = ci.local_end - ci.local_begin;
  for (std::uint32_t l = 0, at = 0; l < im.lanes && span; ++l) {
    std::uint8_t* base = thread_local_base(im, cta, w, int(l));
    if (!base) continue;
    std::memcpy(base + ci.local_begin, f.local.data() + at * span, span);
    ++at;
  }
  std::size_t at = 0;
  each_lane(back, [&](int l) {
    std::uint8_t* base = thread_local_base(im, cta, w, l);
    for (const CallInfo::Copy& r : ci.rets) {
      std::memcpy(base + r.dst, values.data() + at, r.bytes);
      at += r.bytes;
    }
  });
  w.stack.resize(f.base);
}

}  // namespace

std::uint16_t exec_call(Impl& im, Cta& cta, Warp& w, std::uint32_t pc, LaneMask m) {
  const ptx::Instruction& ins = im.kernel.code[pc];
  const std::size_t c = std::size_t(ins.ops[0].imm());
  const CallInfo& ci = im.calls[c];
  if (ci.builtin != ptx::Builtin::None) {
    const std::uint16_t sectors = exec_builtin(im, cta, w, pc, m, ci);
    ++w.stack.back().pc;
    return sectors;
  }
  if (w.frames.size() >= kMaxCallDepth)
    im.fail(cta, w, std::countr_zero(m), pc,
            fmt::format("call depth above {} (unbounded recursion?) calling '{}'", kMaxCallDepth,
                        im.kernel.calls[c].callee));
  CallFrame f;
  f.lanes = m;
  f.call = static_cast<std::uint32_t>(c);
  if (ci.save) {  // a recursive function: keep what this level will need back
    const std::size_t rows = ci.reg_end - ci.reg_begin;
    const std::uint64_t* r = im.row(w, im.reg_row(ci.reg_begin));
    if (rows) f.regs.assign(r, r + rows * im.lanes);
    const std::uint64_t span = ci.local_end - ci.local_begin;
    for (std::uint32_t l = 0; l < im.lanes && span; ++l)
      if (const std::uint8_t* base = thread_local_base(im, cta, w, int(l)))
        f.local.insert(f.local.end(), base + ci.local_begin, base + ci.local_end);
  }
  each_lane(m, [&](int l) {
    std::uint8_t* base = thread_local_base(im, cta, w, l);
    for (const CallInfo::Copy& a : ci.args) std::memmove(base + a.dst, base + a.src, a.bytes);
  });
  w.stack.back().pc = pc + 1;  // the continuation, for every active lane
  w.stack.push_back({ci.entry, kNoRow, m});
  f.base = w.stack.size() - 1;
  w.frames.push_back(std::move(f));
  return 0;
}

void exec_function_return(Impl& im, Cta& cta, Warp& w, LaneMask m) {
  const std::size_t base = w.frames.back().base;
  for (std::size_t i = base; i < w.stack.size(); ++i) w.stack[i].mask &= ~m;
  if (w.stack[base].mask == 0)
    finish_frame(im, cta, w);
  else if (w.stack.back().mask)
    ++w.stack.back().pc;  // the lanes whose guard was false go on
}

void finish_exited_frames(Impl& im, Cta& cta, Warp& w) {
  while (!w.frames.empty()) {
    const std::size_t base = w.frames.back().base;
    if (base < w.stack.size() && w.stack[base].mask) break;
    finish_frame(im, cta, w);
  }
}

}  // namespace smemsim::exec::detail
