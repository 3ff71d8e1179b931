// Issue 48, item 9: what a message or a source view shows of its input. A NUL byte in an echoed
// token cut the message short (what() is a C string); an escape sequence in a CUDA file drove the
// terminal of the text profile, and its NUL bytes went into the HTML page; a mutated 3 MB token was
// echoed whole; toml++ named its limit by its macro.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(Messages, ControlBytesAreEscapedAndTheRestIsKept) {
  // Each control byte but a line break or a tab becomes its \xNN text; UTF-8 stays as it is.
  EXPECT_EQ(message_text(std::string("a\0b\x1b[31mc\x7f", 10)), "a\\x00b\\x1b[31mc\\x7f");
  EXPECT_EQ(message_text("seed 001 §2.1\tx\ny"), "seed 001 §2.1\tx\ny");
  // The exception carries all of it: before, what() stopped at the NUL.
  const InputError e(std::string("kernel 'fa\0il' not found", 24));
  EXPECT_STREQ(e.what(), "kernel 'fa\\x00il' not found");
}

TEST(Messages, ARunOfMoreThan200BytesIsCutTo80) {
  const std::string token(3'000'000, 'x');
  const std::string m = message_text("no kernel named '" + token + "' (kernels: k)");
  // 80 bytes of the run ("'" and 79 x), then the count of the rest (2,999,921 x and the "'").
  EXPECT_EQ(m, "no kernel named '" + std::string(79, 'x') + "...(2999922 more bytes) (kernels: k)");
  // 200 bytes are kept whole (a long path is not a token to cut).
  const std::string path(200, 'p');
  EXPECT_EQ(message_text("cannot open " + path), "cannot open " + path);
  // The cut does not split a UTF-8 character: 79 ASCII bytes then "§" (2 bytes) would end at
  // byte 81; it ends before the character instead.
  const std::string run = std::string(79, 'a') + "§" + std::string(300, 'b');
  EXPECT_EQ(message_text(run), std::string(79, 'a') + "...(302 more bytes)");
}

TEST(Messages, SourceLinesAreShownWithoutControlBytesAndCut) {
  EXPECT_EQ(exec::source_display("x = 1; // \x1b[31mred"), "x = 1; // \\x1b[31mred");
  EXPECT_EQ(exec::source_display(std::string(600, 'y')),
            std::string(500, 'y') + "...(100 more bytes)");
}

// The CLI end to end: a TOML limit without toml++'s macro, and a CUDA file with an escape
// sequence and a NUL byte, profiled to the terminal and to HTML.
TEST(Messages, TheCliShowsNoLibraryNamesAndNoRawControlBytes) {
  const std::string dir = ::testing::TempDir() + "smemsim_messages_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/deep.toml")
      << "a = " << std::string(300, '[') << "1" << std::string(300, ']') << "\n";
  std::ofstream(dir + "/k.ptx") << R"(.version 7.0
.target sm_75
.address_size 64
.file 1 "k.cu"

.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .shared .align 4 .b8 sh[4096];
  .loc 1 3 0
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 7;
  mov.u32 %r3, sh;
  add.u32 %r4, %r3, %r2;
  .loc 1 4 0
  ld.shared.u32 %r5, [%r4];
  ret;
}
)";
  static const char kCu[] =
      "// a kernel\n__global__ void k(unsigned* out) {\n"
      "  unsigned t = threadIdx.x * 32; // \x1b[31mred\x1b[0m\n"
      "  __shared__ unsigned sh[1024]; unsigned v = sh[t]; /* \0 */\n}\n";
  std::ofstream(dir + "/k.cu", std::ios::binary) << std::string(kCu, sizeof kCu - 1);
  std::ofstream(dir + "/k.toml") << "args = [\"out\"]\ngrid = 1\nblock = 32\n[buffers.out]\n"
                                    "type = \"u32\"\ncount = 1\n";
  const CliResult deep = cli("run " + dir + "/k.ptx --launch " + dir + "/deep.toml");
  EXPECT_EQ(deep.exit_code, 2) << deep.out;
  EXPECT_NE(deep.out.find("exceeded maximum nested value depth of 256"), std::string::npos)
      << deep.out;
  EXPECT_EQ(deep.out.find("TOML_"), std::string::npos) << deep.out;
  const CliResult p =
      cli("profile " + dir + "/k.ptx --launch " + dir + "/k.toml --html " + dir + "/k.html");
  ASSERT_EQ(p.exit_code, 0) << p.out;
  EXPECT_NE(p.out.find("sh[t]; /* \\x00 */"), std::string::npos) << p.out;  // line 4, shown
  EXPECT_EQ(p.out.find('\0'), std::string::npos);
  const std::string html = slurp(dir + "/k.html");
  EXPECT_NE(html.find("// \\x1b[31mred\\x1b[0m"), std::string::npos);  // line 3, in the page
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  EXPECT_EQ(html.find('\0'), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace smemsim::test
