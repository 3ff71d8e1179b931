// Issue 28 item 5: a builtin option given to a builtin that does not read it is an error naming
// it. The table of what each driver reads (exec::builtin_options) is checked against the drivers
// themselves: every option left out of a builtin's list, set to another value, leaves what the
// driver makes (kernel, launch, arguments, every buffer's bytes, description) unchanged, or (for
// --grid and --block) is refused by the driver. So the table cannot refuse an option that matters.
// Item 3: a builtin's sizes are checked against --max-memory before anything is allocated.
#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/workloads.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

using exec::BuiltinOptions;

struct Perturbation {
  std::string name;
  std::function<void(BuiltinOptions&)> set;
};

const std::vector<Perturbation>& perturbations() {
  static const std::vector<Perturbation> p = {
      {"bins", [](BuiltinOptions& o) { o.bins = 7; }},
      {"replication", [](BuiltinOptions& o) { o.replication = 3; }},
      {"mapping", [](BuiltinOptions& o) { o.mapping = "block"; }},
      {"padding", [](BuiltinOptions& o) { o.padding = 1; }},
      {"image", [](BuiltinOptions& o) { o.image = "noise"; }},
      {"width", [](BuiltinOptions& o) { o.width = 96; }},
      {"height", [](BuiltinOptions& o) { o.height = 80; }},
      {"size", [](BuiltinOptions& o) { o.size = 1000; }},
      {"variant", [](BuiltinOptions& o) { o.variant = "other"; }},
      {"log2n", [](BuiltinOptions& o) { o.log2n = 5; }},
      {"k", [](BuiltinOptions& o) { o.k = 3; }},
      {"dims", [](BuiltinOptions& o) { o.dims = 3; }},
      {"conflicts", [](BuiltinOptions& o) { o.conflicts = 5; }},
      {"stride", [](BuiltinOptions& o) { o.stride = 3; }},
      {"iterations", [](BuiltinOptions& o) { o.iterations = 2; }},
      {"way", [](BuiltinOptions& o) { o.way = 7; }},
      {"repeat", [](BuiltinOptions& o) { o.repeat = 2; }},
      {"buckets", [](BuiltinOptions& o) { o.buckets = 7; }},
      {"seed", [](BuiltinOptions& o) { o.seed = 99; }},
      {"grid",
       [](BuiltinOptions& o) {
         o.grid = exec::Dim3{3, 1, 1};
       }},
      {"block",
       [](BuiltinOptions& o) {
         o.block = exec::Dim3{64, 1, 1};
       }},
  };
  return p;
}

// Everything a driver makes that a run could see.
std::string fingerprint(const exec::Workload& w) {
  std::string s = w.kernel + "|" + w.description + "|";
  const exec::Launch& l = w.launch;
  s += fmt::format("{},{},{} {},{},{} {}|", l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y,
                   l.block.z, l.dynamic_shared_bytes);
  for (const exec::Arg& a : l.args)
    s += fmt::format("{}:{}:{}:{};", int(a.kind), a.buffer, a.i, a.f);
  for (const exec::Buffer& b : w.memory.buffers)
    s += b.name + "=" + std::string(b.bytes.begin(), b.bytes.end()) + ";";
  s += std::to_string(w.pipeline.size());
  return s;
}

TEST(BuiltinOptions, EveryListedOptionIsADriverOption) {
  std::set<std::string> names;
  for (const Perturbation& p : perturbations()) names.insert(p.name);
  for (const std::string& b : exec::builtin_names()) {
    EXPECT_FALSE(exec::builtin_options(b).empty()) << b;
    for (const std::string& o : exec::builtin_options(b))
      EXPECT_TRUE(names.count(o)) << b << " lists '" << o << "'";
  }
  EXPECT_TRUE(exec::builtin_options("nosuch").empty());
}

TEST(BuiltinOptions, AnOptionLeftOutOfTheTableChangesNothing) {
  for (const std::string& b : exec::builtin_names()) {
    const std::vector<std::string>& reads = exec::builtin_options(b);
    const std::string base = fingerprint(exec::make_builtin(b, {}));
    for (const Perturbation& p : perturbations()) {
      if (std::find(reads.begin(), reads.end(), p.name) != reads.end()) continue;
      BuiltinOptions o;
      p.set(o);
      try {
        EXPECT_EQ(fingerprint(exec::make_builtin(b, o)), base)
            << "builtin:" << b << " reads --" << p.name << ", which its table leaves out";
      } catch (const InputError& e) {
        // A driver may refuse a launch shape it fixes itself; any other option it would read.
        EXPECT_TRUE(p.name == "grid" || p.name == "block")
            << "builtin:" << b << " --" << p.name << ": " << e.what();
      }
    }
  }
}

TEST(BuiltinOptions, TheCliRefusesWhatDoesNotApply) {
  const std::pair<std::string, std::string> cases[] = {
      {"run builtin:histogram --k 3",
       "--k does not apply to builtin:histogram (its options: "
       "--bins, --replication, --mapping, --padding, --image,"},
      {"run builtin:transpose --bins 8", "--bins does not apply to builtin:transpose"},
      {"sim builtin:lud --grid 4",
       "--grid does not apply to builtin:lud (its options: --size, "
       "--seed)"},
      {"profile builtin:reduction --dims 2", "--dims does not apply to builtin:reduction"},
      {"fix builtin:histogram --buckets 4", "--buckets does not apply to builtin:histogram"},
  };
  for (const auto& [args, words] : cases) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
  }
  // A PTX file takes its sizes from its launch spec.
  const std::string ptx = temp_file("bo.ptx", R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  ret;
}
)");
  const std::string spec =
      temp_file("bo.toml", "args = [\"p\"]\n[buffers.p]\ntype = \"u32\"\ncount = 1\n");
  const CliResult r = cli("run " + ptx + " --launch " + spec + " --grid 1 --block 32 --bins 4");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--bins applies to builtins, not to a PTX file"), std::string::npos)
      << r.out;
  // What applies still runs.
  EXPECT_EQ(cli("run builtin:histogram --bins 16 --width 64 --height 64 --seed 3").exit_code, 0);
}

// Sizes whose inputs would not fit are refused at once, naming the sizes and the budget. Worked
// out: a 100000 x 100000 gradient is 10^10 pixels at 3 bytes (pixels, buffer, reference) = 27.9
// GiB; k-means with 4096 objects of 100000 dims holds 12 x 4096 x 100001 + 20 x 8 x 100000 bytes
// = 4.6 GiB.
TEST(BuiltinOptions, SizesAboveTheBudgetAreRefusedBeforeAllocating) {
  const std::pair<std::string, std::string> cases[] = {
      {"run builtin:histogram --width 100000 --height 100000",
       "builtin:histogram: about 27.9 GiB for a 100000x100000 image (inputs, their buffers and "
       "the reference), above the 4 GiB --max-memory allows: lower --width/--height, or raise "
       "--max-memory"},
      {"run builtin:kmeans --dims 100000",
       "builtin:kmeans: about 4.6 GiB for 4096 objects of 100000 dims and 8 clusters"},
      {"sim builtin:reduction --size 4000000000", "builtin:reduction: about 44.8 GiB"},
      {"run builtin:atomic_bench --grid 2147483647", "builtin:atomic_bench: about 768.0 GiB"},
      {"run builtin:histogram --width 4096 --height 4096 --max-memory 16M",
       "about 48 MiB for a 4096x4096 image"},
  };
  for (const auto& [args, words] : cases) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
  }
  EXPECT_EQ(cli("run builtin:histogram --width 4096 --height 4096 --max-memory 64M").exit_code, 0);
}

}  // namespace
}  // namespace smemsim::test
