// Running a prepared workload and reporting it (launch_options.hpp): the launch's progress line,
// run_workload over a pipeline's launches, the buffer writes after it, and the human report.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include <unistd.h>

#include "cli_common.hpp"
#include "embed.hpp"
#include "launch_options.hpp"
#include "smemsim/timing.hpp"
#include "text_table.hpp"

namespace smemsim::cli {

void finish_workload(const exec::Workload& w) {
  exec::write_outputs(w);
  if (const Embedding* e = embedding(); e && e->finished) e->finished(w);
}

LaunchProgress::LaunchProgress()
    : terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

LaunchProgress::~LaunchProgress() {
  if (drawn_) std::fprintf(stderr, "\r%60s\r", "");
}

void LaunchProgress::operator()(std::uint64_t done, std::uint64_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - start_).count() < 1.0 ||
      std::chrono::duration<double>(now - last_).count() < 0.1)
    return;
  last_ = now;
  drawn_ = true;
  std::fprintf(stderr, "\rblock %llu of %llu (%.1f%%)   ", static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total),
               total ? 100.0 * double(done) / double(total) : 100.0);
  std::fflush(stderr);
}

std::function<void(std::uint64_t, std::uint64_t)> LaunchProgress::callback() {
  if (!terminal_) return nullptr;
  return [this](std::uint64_t d, std::uint64_t t) { (*this)(d, t); };
}

namespace {
std::FILE* g_printf_stream = stdout;
}  // namespace

void set_printf_stream(std::FILE* f) {
  g_printf_stream = f;
}

void emit_printf(exec::Workload& w, RunSummary* s) {
  if (w.memory.printf_log.empty()) return;
  const exec::PrintfLog::Taken t = w.memory.printf_log.take();
  std::fflush(stdout);
  std::fwrite(t.text.data(), 1, t.text.size(), g_printf_stream);
  std::fflush(g_printf_stream);
  if (t.dropped)
    fmt::print(stderr,
               "printf: the oldest {} call{} of output were lost: they did not fit in the {}-byte "
               "printf buffer, which keeps the newest output as the GPU's does (raise "
               "printf_buffer in the launch spec, cudaLimitPrintfFifoSize)\n",
               t.dropped, t.dropped == 1 ? "" : "s", t.limit);
  if (s) {
    s->printf_output += t.text;
    s->printf_dropped += t.dropped;
  }
}

RunSummary run_workload(exec::Workload& w, const Arch& arch, exec::AccessConsumer* consumer,
                        std::uint64_t max_steps, bool racecheck) {
  return run_workload(
      w, arch, [consumer](std::size_t) { return consumer; }, max_steps, racecheck);
}

RunSummary run_workload(exec::Workload& w, const Arch& arch,
                        const std::function<exec::AccessConsumer*(std::size_t)>& consumer_for,
                        std::uint64_t max_steps, bool racecheck) {
  RunSummary s;
  set_activity(
      fmt::format("running {}: try a smaller launch (fewer blocks, smaller buffers)", w.name));
  std::vector<exec::Workload::Step> steps = w.pipeline;
  if (steps.empty()) steps.push_back({w.kernel, w.launch, ""});
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    exec::Executor ex(w.module, exec::find_kernel(w.module, steps[i].kernel), arch, steps[i].launch,
                      w.memory);
    ex.set_consumer(consumer_for(i));
    ex.set_max_steps(max_steps);
    LaunchProgress progress;
    ex.set_progress(progress.callback());
    ex.set_racecheck(racecheck);
    try {
      ex.run();
    } catch (...) {
      emit_printf(w, &s);  // what the failing launch printed before it failed
      throw;
    }
    emit_printf(w, &s);
    s.racecheck = racecheck;
    for (exec::RaceHazard& h : ex.race_hazards()) {
      h.kernel = steps[i].kernel;
      s.hazards.push_back(std::move(h));
    }
    const exec::ExecStats& st = ex.stats();
    s.stats.add(st);
    s.shared = ex.shared_layout();
    if (!w.pipeline.empty())
      s.steps.push_back({steps[i].kernel, steps[i].launch, st, ex.shared_layout()});
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (w.check) {
    s.checked = true;
    s.mismatch = w.check(w.memory);
  }
  finish_workload(w);
  return s;
}

void print_run_header(const exec::Workload& w, const RunSummary& s, std::size_t width) {
  fmt::print("{}", wrap(fmt::format("{}: {}", w.name, w.description), width));
  const auto kernel_line = [&](const std::string& prefix, const std::string& kernel,
                               const exec::Launch& l, const exec::SharedLayout& sh) {
    fmt::print("{}", wrap(fmt::format("{}kernel {}: grid {} x block {}, shared memory {} bytes per "
                                      "block ({} static + {} dynamic)",
                                      prefix, ptx::demangle(kernel), exec::to_string(l.grid),
                                      exec::to_string(l.block), sh.total_bytes, sh.static_bytes,
                                      l.dynamic_shared_bytes),
                          width));
  };
  if (s.steps.empty()) kernel_line("", w.kernel, w.launch, s.shared);
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const RunSummary::Step& st = s.steps[i];
    kernel_line(fmt::format("launch {}: ", i + 1), st.kernel, st.launch, st.shared);
    fmt::print(
        "{}", wrap(fmt::format("  {} warp-instructions in {} blocks; {} shared-memory warp "
                               "accesses",
                               st.stats.warp_instructions, st.stats.ctas, st.stats.shared_accesses),
                   width));
  }
  fmt::print(
      "{}",
      wrap(fmt::format("executed {} warp-instructions ({} thread-instructions) in {} "
                       "blocks; {} shared-memory warp accesses{}",
                       s.stats.warp_instructions, s.stats.thread_instructions, s.stats.ctas,
                       s.stats.shared_accesses,
                       s.steps.empty() ? "" : fmt::format(" (all {} launches)", s.steps.size())),
           width));
  if (s.stats.tm.attempts) fmt::print("{}", wrap(timing::tm_summary(s.stats.tm), width));
  for (const exec::Output& o : w.outputs) fmt::print("wrote buffer '{}' to {}\n", o.buffer, o.path);
}

void print_verdict(const exec::Workload& w, const RunSummary& s) {
  if (w.report) fmt::print("{}\n", w.report(w.memory));
  if (!s.checked) return;
  if (s.mismatch.empty())
    fmt::print("result: matches the CPU reference ({})\n",
               w.tolerance.empty() ? "bit-exact" : w.tolerance);
  else
    fmt::print("result: MISMATCH against the CPU reference: {}\n", s.mismatch);
}

void print_speed(const RunSummary& s) {
  const double t = s.seconds > 0 ? s.seconds : 1e-9;
  std::fflush(stdout);
  fmt::print(stderr,
             "executed in {:.3f} s: {:.2f} M thread-instructions/s, {:.3f} M warp-instructions/s\n",
             s.seconds, double(s.stats.thread_instructions) / t / 1e6,
             double(s.stats.warp_instructions) / t / 1e6);
}

void print_hazards(const exec::Workload& w, const RunSummary& s) {
  if (!s.racecheck) return;
  if (s.hazards.empty()) {
    fmt::print(
        "racecheck: no shared-memory hazard between warps ({} shared warp accesses "
        "checked)\n",
        s.stats.shared_accesses);
    return;
  }
  fmt::print(
      "racecheck: {} shared-memory hazard{} between warps of a block with no barrier "
      "between the two accesses:\n",
      s.hazards.size(), s.hazards.size() == 1 ? "" : "s");
  for (const exec::RaceHazard& h : s.hazards) {
    const ptx::Kernel& k = exec::find_kernel(w.module, h.kernel);
    const auto line = [&](std::uint32_t pc) {
      const ptx::Instruction& ins = k.code[pc];
      const std::string cu = exec::cuda_location(w.module, ins);
      const std::string text = exec::cuda_source_text(w.module, ins);
      return fmt::format("{}{} `{}`{}", cu.empty() ? "" : cu + " ",
                         fmt::format("(PTX line {})", ins.ptx_line), ptx::to_string(k, ins),
                         text.empty() ? "" : "  " + text);
    };
    const bool read_first = h.kind == exec::RaceHazard::Kind::WriteAfterRead;
    const bool read_second = h.kind == exec::RaceHazard::Kind::ReadAfterWrite;
    fmt::print("  {} on {}:\n", exec::to_string(h.kind),
               h.array.empty() ? "shared memory" : fmt::format("shared array '{}'", h.array));
    fmt::print("    {} by one warp:    {}\n", read_first ? "read " : "write", line(h.first));
    fmt::print("    then {} by another: {}\n", read_second ? "read " : "write", line(h.second));
    const exec::Dim3& g = w.launch.grid;
    const std::uint64_t b = h.first_block;
    fmt::print(
        "    {} warp access{} in {} block{} (first in block ({},{},{})); a __syncthreads() "
        "between the two orders them\n",
        h.count, h.count == 1 ? "" : "es", h.blocks, h.blocks == 1 ? "" : "s", b % g.x,
        (b / g.x) % g.y, b / (std::uint64_t(g.x) * g.y));
  }
}

void fail_on_mismatch(const RunSummary& s) {
  if (!s.mismatch.empty() && !embedding())
    throw std::runtime_error("the result does not match the CPU reference");
  if (!s.hazards.empty() && !embedding())
    throw std::runtime_error(fmt::format("racecheck found {} shared-memory hazard{}",
                                         s.hazards.size(), s.hazards.size() == 1 ? "" : "s"));
}

}  // namespace smemsim::cli
