// Launch-spec keys that do not apply are errors, integers are exact to their type's range, and an
// access just before a buffer is named by that buffer (issue 27 item 6). Each case runs the CLI.
#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

// copy: out[t] = in[t] (u64). before_in / before_out: thread 0 reads the 8 bytes just before `in`
// (the first buffer) or just before `out`.
const char* kPtx = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry copy(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u64 %rd6, [%rd4];
  st.global.u64 [%rd5], %rd6;
  ret;
}
.visible .entry before_in(.param .u64 in, .param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [in];
  ld.global.u64 %rd2, [%rd1+-8];
  ret;
}
.visible .entry before_out(.param .u64 in, .param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.global.u64 %rd2, [%rd1+-4];
  ret;
}
)";

// Files of the running test only (ctest runs the tests of this file in parallel processes).
std::string mine(const std::string& name) {
  return std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" + name;
}

struct SpecRun {
  CliResult r;
  std::string out_file;
};

// Runs `kernel` with a spec whose `in` buffer table is `in_table` (the lines after its header).
SpecRun run(const std::string& kernel, const std::string& in_table) {
  const std::string ptx = temp_file(mine("spec_keys.ptx"), kPtx);
  const std::string out = ::testing::TempDir() + mine("spec_keys_out.bin");
  std::remove(out.c_str());
  const std::string spec = temp_file(
      mine("spec_keys_" + kernel + ".toml"),
      "kernel = \"" + kernel +
          "\"\ngrid = [1]\nblock = [2]\nargs = [\"in\", \"out\"]\n"
          "[buffers.in]\n" +
          in_table + "\n[buffers.out]\ntype = \"u64\"\ncount = 2\nwrite = \"" + out + "\"\n");
  return {cli("run " + ptx + " --launch " + spec), out};
}

void expect_error(const SpecRun& x, const std::string& needle) {
  EXPECT_EQ(x.r.exit_code, 2) << x.r.out;
  EXPECT_EQ(std::count(x.r.out.begin(), x.r.out.end(), '\n'), 1) << x.r.out;
  EXPECT_NE(x.r.out.find(needle), std::string::npos) << x.r.out;
}

std::vector<std::uint64_t> words(const std::string& path) {
  const std::string bytes = slurp(path);
  std::vector<std::uint64_t> v(bytes.size() / 8);
  std::memcpy(v.data(), bytes.data(), v.size() * 8);
  return v;
}

TEST(SpecKeys, AKeyAnotherInitReadsIsAnError) {
  // values without init = "values": the default init is zeros, which reads no values.
  expect_error(run("copy", "type = \"u64\"\ncount = 2\nvalues = [1, 2]"),
               "'values' is read by init = \"values\", not by init = \"zeros\" (the default): add "
               "init = \"values\"");
  expect_error(run("copy", "type = \"u64\"\ncount = 2\ninit = \"fill\"\nvalue = 3\nvalues = [1]"),
               "'values' is read by init = \"values\", not by init = \"fill\"");
  expect_error(run("copy", "type = \"u64\"\ncount = 2\ninit = \"random\"\nvalue = 3"),
               "'value' is read by init = \"fill\", not by init = \"random\"");
  expect_error(run("copy", "type = \"u64\"\ncount = 2\ninit = \"fill\"\nseed = 4"),
               "'seed' is read by init = \"random\", not by init = \"fill\"");
  // A texture key on a buffer.
  expect_error(run("copy", "type = \"u64\"\ncount = 2\nfilter = \"linear\""),
               "unknown key 'filter'");
  // What applies still runs.
  const SpecRun ok = run("copy", "type = \"u64\"\ninit = \"values\"\nvalues = [5, 6]");
  EXPECT_EQ(ok.r.exit_code, 0) << ok.r.out;
  EXPECT_EQ(words(ok.out_file), (std::vector<std::uint64_t>{5, 6}));
}

// 2^53 + 1 = 9007199254740993 has no double: read as one it became 2^53. And the largest s64,
// 2^63 - 1, and -1 in a u64 (all ones) are TOML integers the buffer takes exactly.
TEST(SpecKeys, IntegersAreExactToTheirTypesRange) {
  const SpecRun v =
      run("copy", "type = \"u64\"\ninit = \"values\"\nvalues = [9007199254740993, -1]");
  ASSERT_EQ(v.r.exit_code, 0) << v.r.out;
  EXPECT_EQ(words(v.out_file), (std::vector<std::uint64_t>{9007199254740993ull, ~0ull}));
  const SpecRun f =
      run("copy", "type = \"s64\"\ncount = 2\ninit = \"fill\"\nvalue = 9223372036854775807");
  ASSERT_EQ(f.r.exit_code, 0) << f.r.out;
  EXPECT_EQ(words(f.out_file), (std::vector<std::uint64_t>(2, 9223372036854775807ull)));
  const SpecRun i =
      run("copy", "type = \"u64\"\ncount = 2\ninit = \"iota\"\nstart = 9007199254740993\nstep = 2");
  ASSERT_EQ(i.r.exit_code, 0) << i.r.out;
  EXPECT_EQ(words(i.out_file),
            (std::vector<std::uint64_t>{9007199254740993ull, 9007199254740995ull}));
  // A fraction in an integer buffer is an error, not a truncation.
  expect_error(run("copy", "type = \"u64\"\ncount = 2\ninit = \"fill\"\nvalue = 1.5"),
               "'value' = 1.5 is not a whole number");
  expect_error(run("copy", "type = \"s32\"\ninit = \"values\"\nvalues = [1, 2.5]"),
               "values[1] = 2.5 is not a whole number");
}

// in[-1] and out[-1/2]: the address is named by the buffer it precedes, not as an offset near 2^40
// into the buffer below it.
TEST(SpecKeys, AnAccessJustBeforeABufferNamesThatBuffer) {
  expect_error(run("before_in", "type = \"u64\"\ncount = 2"),
               "out-of-bounds global load of 8 bytes at 8 bytes before buffer 'in' (16 bytes)");
  expect_error(run("before_out", "type = \"u64\"\ncount = 2"),
               "out-of-bounds global load of 8 bytes at 4 bytes before buffer 'out' (16 bytes)");
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// kernel<<<1, 2>>>(in + 1, out): out[t] = in[t + 1]. The same as { buffer = "in", offset_bytes = 8
// } and { buffer = "in", offset = 1 }; an offset past the buffer's end, or before it, is refused.
TEST(SpecKeys, APointerArgumentWithAnOffset) {
  const std::string ptx = temp_file(mine("spec_keys.ptx"), kPtx);
  const std::string out = ::testing::TempDir() + mine("spec_keys_ptr.bin");
  const auto spec_with = [&](const std::string& arg) {
    std::remove(out.c_str());
    return temp_file(mine("spec_keys_ptr.toml"),
                     "kernel = \"copy\"\ngrid = [1]\nblock = [2]\nargs = [" + arg +
                         ", \"out\"]\n[buffers.in]\ntype = \"u64\"\ninit = \"values\"\nvalues = "
                         "[10, 11, 12]\n[buffers.out]\ntype = \"u64\"\ncount = 2\nwrite = \"" +
                         out + "\"\n");
  };
  for (const std::string arg : {"\"in+1\"", "\"in + 1\"", "{ buffer = \"in\", offset_bytes = 8 }",
                                "{ buffer = \"in\", offset = 1 }"}) {
    const auto r = cli("run " + ptx + " --launch " + spec_with(arg));
    ASSERT_EQ(r.exit_code, 0) << arg << "\n" << r.out;
    EXPECT_EQ(words(out), (std::vector<std::uint64_t>{11, 12})) << arg;
  }
  const auto past = cli("run " + ptx + " --launch " + spec_with("\"in+4\""));
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.out.find("argument 1: offset 4 elements is outside buffer 'in' (3 elements of "
                          "u64, 24 bytes)"),
            std::string::npos)
      << past.out;
  const auto neg =
      cli("run " + ptx + " --launch " + spec_with("{ buffer = \"in\", offset_bytes = -8 }"));
  EXPECT_EQ(neg.exit_code, 2);
  EXPECT_NE(neg.out.find("offset -8 bytes is outside buffer 'in'"), std::string::npos) << neg.out;
  const auto huge = cli("run " + ptx + " --launch " + spec_with("\"in+100000000000000000000\""));
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.out.find("offset 100000000000000000000 elements is outside buffer 'in'"),
            std::string::npos)
      << huge.out;
  const auto bad = cli("run " + ptx + " --launch " + spec_with("\"in+x\""));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("is not NAME+ELEMENTS"), std::string::npos) << bad.out;
  // in + 2 is one element from the end: thread 1 reads past it, named as such.
  const auto edge = cli("run " + ptx + " --launch " + spec_with("\"in+2\""));
  EXPECT_EQ(edge.exit_code, 2);
  EXPECT_NE(edge.out.find("at byte offset 24 of buffer 'in' (24 bytes)"), std::string::npos)
      << edge.out;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// CUDA takes wrap and mirror only with normalized coordinates, and a GPU clamps otherwise: the
// spec's texture clamps too and a note says so (it was refused).
TEST(SpecKeys, WrapWithUnnormalizedCoordinatesClampsWithANote) {
  const std::string ptx = temp_file(mine("spec_keys.ptx"), kPtx);
  const std::string spec = temp_file(
      mine("spec_keys_tex.toml"),
      "kernel = \"copy\"\ngrid = [1]\nblock = [2]\nargs = [\"in\", \"out\"]\n[buffers.in]\ntype = "
      "\"u64\"\ncount = 2\n[buffers.out]\ntype = \"u64\"\ncount = 2\n[buffers.texels]\ntype = "
      "\"f32\"\ncount = 16\n[textures.img]\nbuffer = \"texels\"\nsize = [4, 4]\naddress = "
      "[\"clamp\", \"wrap\"]\n");
  const auto r = cli("run " + ptx + " --launch " + spec);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("smemsim: note: " + spec +
                       ":17: texture 'img': address = \"wrap\" with unnormalized coordinates "
                       "reads as \"clamp\" in dimension 1"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// Two outputs to one file (issue 28 item 5): the second silently overwrote the first. Two buffers'
// `write`, --csv and --emit-trace (also spelled ./same), --timeline and a buffer's write: each
// refused before the run, naming both.
TEST(SpecKeys, TwoOutputsToOneFileAreRefused) {
  const std::string dir = ::testing::TempDir() + mine("outs");
  std::filesystem::create_directories(dir);
  const std::string ptx = temp_file(mine("spec_keys.ptx"), kPtx);
  const auto spec = [&](const std::string& a_write, const std::string& b_write) {
    return temp_file(mine("outs.toml"),
                     "kernel = \"copy\"\ngrid = [1]\nblock = [2]\nargs = [\"a\", \"b\"]\n"
                     "[buffers.a]\ntype = \"u64\"\ncount = 2\n" +
                         (a_write.empty() ? "" : "write = \"" + a_write + "\"\n") +
                         "[buffers.b]\ntype = \"u64\"\ncount = 2\n" +
                         (b_write.empty() ? "" : "write = \"" + b_write + "\"\n"));
  };
  const auto two = cli("run " + ptx + " --launch " + spec(dir + "/x.bin", dir + "/./x.bin"));
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.out.find("buffer 'b': write = '" + dir + "/./x.bin' is also buffer 'a''s output"),
            std::string::npos)
      << two.out;
  const auto prof = cli("profile builtin:transpose --csv " + dir + "/same.txt --emit-trace " + dir +
                        "/./same.txt");
  EXPECT_EQ(prof.exit_code, 2);
  EXPECT_NE(prof.out.find("--csv and --emit-trace both write"), std::string::npos) << prof.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/same.txt"));  // refused before any work
  const auto tl = cli("sim " + ptx + " --launch " + spec(dir + "/t.json", "") + " --timeline " +
                      dir + "/t.json");
  EXPECT_EQ(tl.exit_code, 2);
  EXPECT_NE(tl.out.find("--timeline and buffer 'a''s write both write"), std::string::npos)
      << tl.out;
  const auto ok = cli("run " + ptx + " --launch " + spec(dir + "/x.bin", dir + "/y.bin"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

}  // namespace
}  // namespace smemsim::test

namespace smemsim::test {
namespace {

// sim of a [[launch]] pipeline (issue 27 item 5). Derivation: the launches run one after the other
// on one GPU, each starting on an empty GPU when the one before has ended; the copy kernel's timing
// does not depend on the data, so two launches of it take exactly twice the cycles of one, and the
// second copies what the first wrote (out2 = in).
TEST(SpecKeys, SimTimesEachLaunchOfAPipelineInOrder) {
  const std::string ptx = temp_file(mine("spec_keys.ptx"), kPtx);
  const std::string out = ::testing::TempDir() + mine("out2.bin");
  const std::string buffers =
      "[buffers.in]\ntype = \"u64\"\ninit = \"values\"\nvalues = [7, 9]\n[buffers.mid]\ntype = "
      "\"u64\"\ncount = 2\n[buffers.out2]\ntype = \"u64\"\ncount = 2\nwrite = \"" +
      out + "\"\n";
  const std::string one =
      temp_file(mine("one.toml"), buffers +
                                      "[[launch]]\nkernel = \"copy\"\ngrid = 1\nblock = 2\nargs = "
                                      "[\"in\", \"mid\"]\n");
  const std::string two = temp_file(
      mine("two.toml"), buffers +
                            "[[launch]]\nkernel = \"copy\"\ngrid = 1\nblock = 2\nargs = [\"in\", "
                            "\"mid\"]\n[[launch]]\nkernel = \"copy\"\ngrid = 1\nblock = 2\nargs = "
                            "[\"mid\", \"out2\"]\n");
  const auto cycles = [&](const std::string& spec) {
    const auto r = cli("sim " + ptx + " --launch " + spec + " --arch volta-v100 --json");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return nlohmann::json::parse(r.out)["timing"]["cycles"].get<std::int64_t>();
  };
  const std::int64_t c1 = cycles(one), c2 = cycles(two);
  EXPECT_GT(c1, 0);
  EXPECT_EQ(c2, 2 * c1);
  EXPECT_EQ(words(out), (std::vector<std::uint64_t>{7, 9}));
  const auto text = cli("sim " + ptx + " --launch " + two + " --arch volta-v100");
  EXPECT_NE(text.out.find("launch 2 of 2 (copy): " + std::to_string(c1) + " cycles"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("cycles: " + std::to_string(c2) + " in all"), std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace smemsim::test
