// Issue 28 item 6: every message is smemsim's own sentence naming the thing. CLI11's and toml++'s
// phrasings ("The following argument was not expected", "A subcommand is required", "At Most 1
// required but received 2", "Value 300 not in range", "1 required UINT missing", "Error while
// parsing") are rewritten naming the command and option; a count that is too large says so.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace smemsim::test {
namespace {

TEST(CliWording, ParseErrorsInSmemsimsWords) {
  const std::pair<std::string, std::string> cases[] = {
      {"analyze --nosuch", "unknown option '--nosuch' for smemsim analyze"},
      {"arch show --bogus x", "unknown option '--bogus' for smemsim arch show"},
      {"run builtin:reduction extra1 extra2", "unexpected argument 'extra1' for smemsim run"},
      {"arch", "smemsim arch needs a command: list, show, import"},
      {"study", "smemsim study needs a command:"},
      {"analyze --pattern 0..31 --pattern 1", "--pattern is given 2 times; it takes one value"},
      {"sim builtin:reduction --regs 300", "--regs: 300 is not between 0 and 255"},
      {"sim builtin:reduction --sample-ctas ''",
       "--sample-ctas: '' is not a number (give one between 1 and 1000000)"},
      {"sim builtin:reduction --sample-ctas abc", "--sample-ctas: 'abc' is not a number"},
      {"gen random --count", "--count needs a value"},
      {"sim builtin:lud --pipeview 10",
       "--pipeview and --timeline show one launch; builtin:lud has 10 launches"},
      // A flag given a value (CLI11 would take --stats=3 as true).
      {"sim builtin:reduction --stats=3", "--stats is a flag and takes no value"},
      {"analyze --pattern 0,1 --json=0", "--json is a flag and takes no value"},
  };
  for (const auto& [args, words] : cases) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
    EXPECT_NE(r.out.find(words), std::string::npos) << args << ": " << r.out;
    for (const char* lib :
         {"was not expected", "were not expected", "A subcommand is required", "At Most",
          "not in range", "required", "Error while parsing", "flag override"})
      EXPECT_EQ(r.out.find(lib), std::string::npos) << args << ": " << r.out;
  }
}

TEST(CliWording, SpecCountsAndTomlSyntax) {
  const std::string ptx = temp_file("wording.ptx", R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p)
{
  ret;
}
)");
  auto spec_error = [&](const std::string& count) {
    const std::string spec = temp_file(
        "wording.toml", "args = [\"p\"]\n[buffers.p]\ntype = \"u32\"\ncount = " + count + "\n");
    const CliResult r = cli("run " + ptx + " --launch " + spec + " --grid 1 --block 32");
    EXPECT_EQ(r.exit_code, 2) << count << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    return r.out;
  };
  // 2^63 - 1 is an integer, too large rather than negative.
  EXPECT_NE(spec_error("9223372036854775807")
                .find("'count' 9223372036854775807 is above the largest count, 2^36 = "
                      "68719476736"),
            std::string::npos);
  EXPECT_NE(spec_error("1e9").find("'count' must be an integer (1000000000 is a float in TOML: "
                                   "write the digits"),
            std::string::npos);
  EXPECT_NE(spec_error("-3").find("'count' must be a non-negative integer"), std::string::npos);
  const std::string big = spec_error("99999999999999999999");
  EXPECT_NE(big.find("wording.toml:4: TOML syntax error in a decimal integer"), std::string::npos)
      << big;
  EXPECT_EQ(big.find("Error while parsing"), std::string::npos) << big;
}

}  // namespace
}  // namespace smemsim::test
