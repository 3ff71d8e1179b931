// smemsim gen KIND: write a smemsim-trace v1 of generated warp accesses.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <unistd.h>

#include "cli_common.hpp"
#include "smemsim/error.hpp"
#include "smemsim/patterns.hpp"
#include "smemsim/trace.hpp"

namespace smemsim::cli {
namespace {

struct GenOptions {
  ArchOptions arch;
  std::string op = "ld";
  std::uint64_t count = 1;
  std::uint32_t lanes = 0;  // 0: the arch's warp size
  std::string out = "-";
  std::uint64_t stride = 1, offset = 0, space = 32, seed = 1;
  std::uint32_t conflicts = 1;
  std::vector<std::int64_t> matrix{0, 1, 1, 0}, block_offset{0, 0};
  std::int64_t cols = 16, block_x = 16;
};

void common_options(CLI::App* c, GenOptions& g) {
  c->add_option("--op", g.op, "operation written on each line: ld, st or atom")
      ->capture_default_str();
  c->add_option("--count", g.count, "number of warp accesses")
      ->check(positive())
      ->capture_default_str();
  c->add_option("--lanes", g.lanes, "lanes per warp (default: the arch's warp size)")
      ->check(positive());
  c->add_option("-o,--out", g.out, "output file ('-' = standard output)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& s) { return s == "-" ? std::string() : non_empty_path()(s); }, "FILE"));
  add_arch_options(c, g.arch, false);
}

// Holds the first `hold` bytes back and passes everything through once that much is written:
// standard output sees nothing of a trace that fails early (a bad address in its first warps),
// yet a long trace streams.
class HoldBackBuf final : public std::streambuf {
 public:
  HoldBackBuf(std::streambuf* sink, std::size_t hold) : sink_(sink), hold_(hold) {}
  // Passes what is held on (at the end of a successful run).
  bool release() {
    if (!held_.empty() &&
        sink_->sputn(held_.data(), std::streamsize(held_.size())) != std::streamsize(held_.size()))
      return false;
    held_.clear();
    passing_ = true;
    return sink_->pubsync() == 0;
  }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (passing_) return sink_->sputn(s, n);
    held_.append(s, std::size_t(n));
    if (held_.size() >= hold_ && !release()) return 0;
    return n;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  int sync() override { return passing_ ? sink_->pubsync() : 0; }

 private:
  std::streambuf* sink_;
  std::size_t hold_;
  std::string held_;
  bool passing_ = false;
};

void run(const GenOptions& g, const std::function<void(const GenCommon&, const AccessSink&)>& gen) {
  const Arch a = resolve_arch(g.arch);
  GenCommon c;
  const auto op = parse_op(g.op);
  if (!op) throw InputError(fmt::format("--op: '{}' is not ld, st or atom", g.op));
  c.op = *op;
  c.count = g.count;
  c.lanes = g.lanes ? g.lanes : a.warp_size;
  if (c.lanes > a.warp_size)
    throw InputError(
        fmt::format("--lanes {} exceeds the warp size {} of {}", c.lanes, a.warp_size, a.name));
  c.memory_words = a.memory_words();
  // The trace streams out as it is generated (issue 11: a full dry run came first). A file is
  // written under a temporary name and renamed when complete, so an address outside the memory,
  // found midway, leaves no partial trace behind; on standard output the error follows what was
  // written.
  std::unique_ptr<OutputFile> file;
  HoldBackBuf held(std::cout.rdbuf(), 1 << 20);
  std::ostream held_out(&held);
  std::ostream* out = &held_out;
  if (g.out != "-") {
    file = std::make_unique<OutputFile>(g.out, "-o");
    out = &file->stream();
  }
  TraceWriter writer(*out, c.lanes);
  gen(c, [&](const WarpAccess& wa) { writer.write(wa); });
  if (file) return file->commit();
  out->flush();
  if (!held.release()) out->setstate(std::ios::badbit);
  if (!*out)
    throw InputError(fmt::format("standard output: write failed{}",
                                 errno ? fmt::format(" ({})", std::strerror(errno)) : ""));
}

}  // namespace

void add_gen_command(CLI::App& app) {
  auto* gen = app.add_subcommand("gen", "generate access-pattern traces (smemsim-trace v1)");
  gen->require_subcommand(1);
  gen->footer(
      "Examples:\n"
      "  smemsim gen stride --stride 33 --count 4 -o s33.trace\n"
      "  smemsim gen random --space 1024 --count 1000000 --seed 7 --op atom -o r.trace\n"
      "  smemsim gen eq1 --conflicts 8 --stride 256 --op atom | smemsim analyze --trace -\n"
      "  smemsim gen block --matrix 0,1,16,0 --cols 16 --block-x 16   # transpose read (002 "
      "§3.2.2)");
  auto g = std::make_shared<GenOptions>();

  auto* linear = gen->add_subcommand("linear", "offset + tid (002 Eq. 5)");
  linear->add_option("--offset", g->offset, "first word address")
      ->check(non_negative())
      ->capture_default_str();
  common_options(linear, *g);
  linear->callback([g] { run(*g, [&](auto& c, auto& s) { gen_linear(c, g->offset, s); }); });

  auto* stride = gen->add_subcommand("stride", "offset + stride * tid (002 Eq. 1, 6)");
  stride->add_option("--stride", g->stride, "distance between consecutive threads (words)")
      ->check(non_negative())
      ->required();
  stride->add_option("--offset", g->offset, "added to every address")
      ->check(non_negative())
      ->capture_default_str();
  common_options(stride, *g);
  stride->callback(
      [g] { run(*g, [&](auto& c, auto& s) { gen_stride(c, g->stride, g->offset, s); }); });

  auto* block = gen->add_subcommand(
      "block", "(S1*ty + S2*tx + o0)*cols + S3*ty + S4*tx + o1, tx = tid % block-x (002 Eq. 4, 7)");
  block->add_option("--matrix", g->matrix, "S1,S2,S3,S4")
      ->delimiter(',')
      ->expected(4)
      ->capture_default_str();
  block->add_option("--block-offset", g->block_offset, "o0,o1")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  block->add_option("--cols", g->cols, "row length of the 2D array (words)")->capture_default_str();
  block->add_option("--block-x", g->block_x, "thread-block x dimension")->capture_default_str();
  common_options(block, *g);
  block->callback([g] {
    BlockParams p;
    for (int i = 0; i < 4; ++i) p.m[i] = g->matrix[i];
    p.o = {g->block_offset[0], g->block_offset[1]};
    p.cols = g->cols;
    p.block_x = g->block_x;
    run(*g, [&](auto& c, auto& s) { gen_block(c, p, s); });
  });

  auto* random =
      gen->add_subcommand("random", "uniform random word addresses in [offset, offset+space)");
  random->add_option("--space", g->space, "number of distinct words (vote-space size)")
      ->check(positive())
      ->required();
  random->add_option("--offset", g->offset, "added to every address")
      ->check(non_negative())
      ->capture_default_str();
  random->add_option("--seed", g->seed, "random seed (same seed, same trace)")
      ->check(non_negative())
      ->capture_default_str();
  common_options(random, *g);
  random->callback(
      [g] { run(*g, [&](auto& c, auto& s) { gen_random(c, g->space, g->offset, g->seed, s); }); });

  auto add_eq1 = [&](const char* name, const char* what, const char* count_name) {
    auto* e = gen->add_subcommand(name, what);
    e->add_option(count_name, g->conflicts, "lanes 0..C-1 access id*stride, the rest access id")
        ->check(non_negative())
        ->required();
    e->add_option("--stride", g->stride, "stride between the conflicting lanes (words)")
        ->check(non_negative())
        ->required();
    common_options(e, *g);
    e->callback(
        [g] { run(*g, [&](auto& c, auto& s) { gen_eq1(c, g->conflicts, g->stride, s); }); });
  };
  add_eq1("eq1", "seed 000 Eq. 1: index(id) = id*stride if id < conflicts else id", "--conflicts");
  add_eq1("genindex", "seed 002 §2 GenIndex(tid, way, stride): same formula as eq1", "--way");
}

}  // namespace smemsim::cli
