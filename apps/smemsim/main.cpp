// smemsim: GPU shared-memory conflict analysis, latency models and (later) hashing and simulation.
// Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input (DESIGN.md CLI conventions).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <system_error>

#include <CLI/CLI.hpp>

#include "cli_common.hpp"
#include "embed.hpp"
#include "smemsim/error.hpp"

int main(int argc, char** argv) {
  smemsim::ignore_file_size_signal();  // `ulimit -f`: a clear "File too large", not a core dump
  CLI::App app{
      "smemsim: simulator and optimizer for GPU shared (scratchpad) memory: bank, position and\n"
      "lock conflicts, atomic latency models and access-pattern generators.\n\n"
      "Examples:\n"
      "  smemsim analyze --pattern 0,1024,2..31 --op atom      # 260 cycles on Fermi (seed 001)\n"
      "  smemsim gen random --space 4096 --count 1000 -o r.trace\n"
      "  smemsim analyze --trace r.trace --bank-hash xor --json\n"
      "  smemsim arch list",
      "smemsim"};
  smemsim::cli::add_commands(app);
  // A first word that is no command: name it (CLI11 would only say a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known |= sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "smemsim: error: unknown command '" << smemsim::printable(argv[1])
                << "' (commands: " << names << ")\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "smemsim: error: " << smemsim::cli::explain_parse_error(e.what(), app)
              << " (see --help)\n";
    return 2;
  } catch (const smemsim::InputError& e) {
    std::cout.flush();
    std::cerr << "smemsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {  // a budget checked before allocating cannot see everything
    std::cout.flush();
    const std::string& what = smemsim::cli::activity();
    std::cerr << "smemsim: error: out of memory (this machine's, or the process's limit)"
              << (what.empty() ? "" : " while " + what) << "\n";
    return 2;
  } catch (const std::system_error& e) {  // fmt::print to a full disk or a closed descriptor
    std::cerr << "smemsim: error: cannot write the output (" << e.code().message() << ")\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "smemsim: error: " << e.what() << "\n";
    return 1;
  }
  // Output that could not be written (standard output on a full disk) is an error, not exit 0.
  std::cout.flush();
  const bool cout_failed = !std::cout;
  const int cout_errno = errno;
  errno = 0;
  if (cout_failed || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno ? errno : cout_errno;
    std::cerr << "smemsim: error: cannot write the output to standard output ("
              << (err ? std::strerror(err) : "write error") << ")\n";
    return 1;
  }
  return 0;
}
