// Parallel SMs (issue 31 item 1): SMs tick on several threads, each with its own executor; global
// stores and atomics wait in the executor until the end of the cycle and reach memory then, SM by
// SM in index order, as do the observer events, the accesses handed to a consumer and the CTAs the
// sampler logs. So every result is the same for every thread count, which is what these tests
// check: on every kernel of the suite, on a timeline, on a sampled run, and on global atomics
// that many SMs make in the same cycles (no update may be lost). The threshold below which a cycle
// stays on one thread is set to 1 here, so that every cycle of these runs is ticked in parallel.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <sstream>

#include "smemsim/error.hpp"
#include "smemsim/timing.hpp"
#include "smemsim/workloads.hpp"
#include "timing_same.hpp"
#include "timing_test_util.hpp"

namespace smemsim::test {
namespace {

// Every WarpAccess, in the order it arrived, folded into one number (FNV-1a).
class HashingConsumer final : public exec::AccessConsumer {
 public:
  void on_access(const WarpAccess& wa) override {
    mix(std::uint64_t(wa.op));
    mix(wa.warp);
    mix(wa.pc);
    mix(wa.active);
    for (int l = 0; l < wa.lanes; ++l)
      if ((wa.active >> l) & 1) mix(wa.addr[std::size_t(l)]);
    ++count;
  }
  std::uint64_t hash = 1469598103934665603ull, count = 0;

 private:
  void mix(std::uint64_t v) {
    hash ^= v;
    hash *= 1099511628211ull;
  }
};

// Every observer event of every SM, as text, in the order it arrived; stages of every third SM.
class TextObserver final : public timing::Observer {
 public:
  void on_issue(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                std::uint64_t cycle) override {
    out << "I " << sm << ' ' << warp << ' ' << index << ' ' << int(micro) << ' ' << cycle << '\n';
  }
  void on_complete(std::uint32_t sm, std::uint32_t warp, std::uint32_t index, std::uint8_t micro,
                   std::uint64_t issued, std::uint64_t cycle) override {
    out << "C " << sm << ' ' << warp << ' ' << index << ' ' << int(micro) << ' ' << issued << ' '
        << cycle << '\n';
  }
  void on_stall(std::uint32_t sm, timing::Stall why, std::uint64_t cycle) override {
    out << "S " << sm << ' ' << int(why) << ' ' << cycle << '\n';
  }
  bool wants_stages(std::uint32_t sm) const override { return sm % 3 == 0; }
  void on_stages(std::uint32_t sm, std::uint64_t cycle,
                 const std::vector<timing::StageCell>& c) override {
    out << "P " << sm << ' ' << cycle;
    for (const timing::StageCell& x : c) out << ' ' << x.warp << ':' << x.index;
    out << '\n';
  }
  std::ostringstream out;
};

// Per launch (a multi-launch builtin has several), with the accesses' and events' digests.
struct SimRun : SuiteRun {
  std::uint64_t accesses = 0, access_hash = 0;
  std::string events;
};

timing::TimingOptions parallel_options(std::uint32_t threads) {
  timing::TimingOptions o;
  o.threads = threads;
  o.parallel_min_sms = 1;
  return o;
}

// The builtin's launches in order on one memory, as `smemsim sim` runs them.
SimRun run_builtin(const std::string& name, const Arch& arch, timing::TimingOptions o,
                   bool observe = false) {
  HashingConsumer consumer;
  TextObserver observer;
  o.consumer = &consumer;
  o.per_instruction = true;
  if (observe) o.observer = &observer;
  SimRun r;
  static_cast<SuiteRun&>(r) = run_suite_kernel(name, arch, o);
  r.accesses = consumer.count;
  r.access_hash = consumer.hash;
  r.events = observer.out.str();
  return r;
}

void expect_same(const SimRun& a, const SimRun& b) {
  ASSERT_EQ(a.stats.size(), b.stats.size());
  for (std::size_t i = 0; i < a.stats.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "launch " << i);
    expect_same_stats(a.stats[i], b.stats[i]);
    EXPECT_EQ(a.exec[i].warp_instructions, b.exec[i].warp_instructions);
    EXPECT_EQ(a.exec[i].shared_accesses, b.exec[i].shared_accesses);
    EXPECT_EQ(a.exec[i].ctas, b.exec[i].ctas);
  }
  EXPECT_EQ(a.buffers, b.buffers);  // outputs, byte for byte
  EXPECT_EQ(a.accesses, b.accesses);
  EXPECT_EQ(a.access_hash, b.access_hash);  // the consumer saw the same accesses in the same order
  EXPECT_EQ(a.events, b.events);
}

// The threads a run may use here: 3 asked, at most the cores (oneTBB's limit).
std::uint32_t usable(std::uint32_t asked) {
  return std::min<std::uint32_t>(asked, std::uint32_t(tbb::this_task_arena::max_concurrency()));
}

// Every kernel of the suite on volta-v100 (80 SMs of four sub-cores): one thread and three give
// the same cycles, per-SM and per-instruction statistics, outputs and access stream.
TEST(TimingParallel, EverySuiteKernelIsTheSameOnAnyThreadCount) {
  const Arch& volta = find_preset("volta-v100");
  for (const std::string& name : exec::builtin_names()) {
    SCOPED_TRACE(name);
    const SimRun one = run_builtin(name, volta, parallel_options(1));
    const SimRun three = run_builtin(name, volta, parallel_options(3));
    EXPECT_EQ(one.stats.at(0).threads, 1u);
    EXPECT_EQ(three.stats.at(0).threads, usable(3));
    EXPECT_GT(one.stats.at(0).cycles, 0u);
    expect_same(one, three);
  }
}

// The timeline's events (issues, completions, stalls, stage contents) arrive in the same order:
// a trace written from them is the same file.
TEST(TimingParallel, ObserverEventsArriveInTheSameOrder) {
  for (const char* name : {"reduction", "histogram", "transpose"}) {
    SCOPED_TRACE(name);
    const Arch& a = find_preset("hopper-h100");
    const SimRun one = run_builtin(name, a, parallel_options(1), true);
    const SimRun two = run_builtin(name, a, parallel_options(2), true);
    EXPECT_GT(one.events.size(), 1000u);
    expect_same(one, two);
  }
}

// --sample-ctas estimates from the CTAs in the order they retired (SM order within a cycle).
TEST(TimingParallel, SampledRunsAreTheSame) {
  timing::TimingOptions o1 = parallel_options(1), o2 = parallel_options(2);
  o1.sample_ctas = o2.sample_ctas = 2;
  Arch a = find_preset("volta-v100");
  a.sm.count = 8;
  validate(a);
  const SimRun one = run_builtin("aes", a, o1), two = run_builtin("aes", a, o2);
  const timing::SamplingStats &s1 = one.stats.at(0).sampling, &s2 = two.stats.at(0).sampling;
  ASSERT_TRUE(s1.on);
  EXPECT_LT(s1.ctas_timed, s1.ctas_total);
  EXPECT_EQ(s1.cycles_estimate, s2.cycles_estimate);
  ASSERT_EQ(s1.timed.size(), s2.timed.size());
  for (std::size_t i = 0; i < s1.timed.size(); ++i) {
    EXPECT_EQ(s1.timed[i].cta, s2.timed[i].cta) << i;
    EXPECT_EQ(s1.timed[i].end, s2.timed[i].end) << i;
  }
  expect_same(one, two);
}

// Every thread of 64 CTAs takes a ticket with one global atomicAdd on word 0 and writes it to its
// own word: the 64 CTAs start on 64 SMs in the same cycle and reach the atomic together. An
// atomic deferred to the end of the cycle must still see the ones applied before it (SM order,
// then lane order): the tickets are 0..4095, each once, the counter ends at 4096, and the same
// thread gets the same ticket on any thread count.
const char* kTicket = R"(
.visible .entry ticket(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  atom.global.add.u32 %r5, [%rd1], 1;
  add.u32 %r6, %r4, 1;
  mul.wide.u32 %rd2, %r6, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

// 0, 1, ..., n - 1.
std::vector<std::uint32_t> first_numbers(std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(TimingParallel, GlobalAtomicsOfManySmsLoseNoUpdate) {
  std::vector<std::vector<std::uint32_t>> outs;
  for (const std::uint32_t threads : {1u, 2u, 3u}) {
    TimedKernel k(kTicket, 64, 1 + 64 * 64, 64);
    k.run(find_preset("volta-v100"), nullptr, false, threads);
    outs.push_back(k.out());
  }
  const std::vector<std::uint32_t>& v = outs[0];
  EXPECT_EQ(v[0], 4096u);
  EXPECT_EQ(sorted({v.begin() + 1, v.end()}), first_numbers(4096));
  // Lanes of one warp take consecutive tickets, lowest lane first (one warp-wide atomic).
  EXPECT_EQ(v[2], v[1] + 1);
  EXPECT_EQ(outs[1], outs[0]);
  EXPECT_EQ(outs[2], outs[0]);
}

// A module-scope variable (`__device__ unsigned counter;`) is one for the whole GPU, not one per
// SM's executor: 64 CTAs on 64 SMs take tickets 0..63 from it, each once.
const char* kModuleCounter = R"(
.global .align 4 .u32 counter;
.visible .entry counted(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u64 %rd4, counter;
  atom.global.add.u32 %r5, [%rd4], 1;
  mov.u32 %r2, %ctaid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
DONE:
  ret;
}
)";

TEST(TimingParallel, AModuleVariableIsOneForAllSms) {
  for (const std::uint32_t threads : {1u, 2u}) {
    TimedKernel k(kModuleCounter, 32, 64, 64);
    k.run(find_preset("volta-v100"), nullptr, false, threads);
    EXPECT_EQ(sorted(k.out()), first_numbers(64)) << threads << " threads";
  }
}

// Blocks 0..62 spin on a global flag that block 63 sets after counting to 3,000: the store reaches
// memory at the end of its cycle, the spinning warps see it in the next one, and spin detection
// (whose count of memory writes the executors share at each commit) does not call it stuck. Same
// cycles on one and two threads.
const char* kFlag = R"(
.visible .entry flag(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p2, %r2, 63;
  @%p2 bra WAIT;
  mov.u32 %r3, 0;
COUNT:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 3000;
  @%p1 bra COUNT;
  st.global.u32 [%rd1], 1;
  ret;
WAIT:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra WAIT;
  ret;
}
)";

TEST(TimingParallel, AFlagSetByAnotherSmEndsTheSpin) {
  std::vector<std::uint64_t> cycles;
  for (const std::uint32_t threads : {1u, 2u}) {
    TimedKernel k(kFlag, 32, 1, 64);
    cycles.push_back(k.run(find_preset("volta-v100"), nullptr, false, threads).cycles);
    EXPECT_EQ(k.out()[0], 1u);
  }
  EXPECT_GT(cycles[0], 3000u);  // block 63 counts 3,000 iterations first
  EXPECT_EQ(cycles[1], cycles[0]);
}

// The executor's half of it: with deferred global writes a store and an atomic change nothing
// until commit_global(), and the atomic's old value reaches its register then (a later store of
// that register writes it).
const char* kDeferred = R"(
.visible .entry deferred(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  atom.global.add.u32 %r1, [%rd1], 5;
  st.global.u32 [%rd1+4], 7;
  st.global.u32 [%rd1+8], %r1;
  ret;
}
)";

TEST(ExecDeferredGlobal, WritesWaitForCommitInOrder) {
  TimedKernel k(kDeferred, 1, 4);
  k.input(0, {10, 0, 0, 0});
  const Arch a = fig4_arch();
  exec::Executor ex(k.module, k.module.kernels.at(0), a, k.launch, k.mem);
  ex.set_defer_global(true);
  ex.start_cta(0, 0);
  auto word = [&](int i) {
    std::uint32_t v;
    std::memcpy(&v, k.mem.buffers.back().bytes.data() + 4 * i, 4);
    return v;
  };
  ex.issue(0, 0);  // ld.param
  ex.issue(0, 0);  // atom
  EXPECT_EQ(word(0), 10u);
  ex.issue(0, 0);  // st 7
  EXPECT_EQ(word(1), 0u);
  const std::uint64_t writes = ex.memory_writes();
  ex.commit_global();
  EXPECT_EQ(word(0), 15u);
  EXPECT_EQ(word(1), 7u);
  EXPECT_GT(ex.memory_writes(), writes);  // the atomic changed a word: spin checks see it
  ex.issue(0, 0);                         // st %r1: the old value, 10
  EXPECT_EQ(word(2), 0u);
  ex.set_defer_global(false);  // commits what is left
  EXPECT_EQ(word(2), 10u);
}

// Blocks 37 and 41 store out of bounds in the same cycle, on SMs 37 and 41: the error is SM 37's,
// the one a single thread meets first, on every thread count.
const char* kOutOfBounds = R"(
.visible .entry oob(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  setp.eq.u32 %p1, %r1, 37;
  setp.eq.u32 %p0, %r1, 41;
  or.pred %p1, %p1, %p0;
  selp.u32 %r2, 100000, 0, %p1;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

TEST(TimingParallel, AnErrorIsTheLowestSmsOnAnyThreadCount) {
  const Arch& volta = find_preset("volta-v100");
  std::vector<std::string> messages;
  for (const std::uint32_t threads : {1u, 3u}) {
    TimedKernel k(kOutOfBounds, 32, 64, 64);
    try {
      k.run(volta, nullptr, false, threads);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      messages.push_back(e.what());
    }
  }
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].find("block (37,0,0)"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[0], messages[1]);
}

TEST(TimingParallel, ThreadCountOutsideItsRangeIsAnInputError) {
  TimedKernel k(kChain, 32);
  for (const std::uint32_t bad : {0u, 100000u}) {
    timing::TimingOptions o;
    o.threads = bad;
    EXPECT_THROW(timing::GpuSim(k.module, k.module.kernels.at(0), fig4_arch(), k.launch, k.mem, o),
                 InputError)
        << bad;
  }
}

}  // namespace
}  // namespace smemsim::test
