#include "embed.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <mutex>

#include "cli_common.hpp"
#include "smemsim/error.hpp"

namespace smemsim::cli {
namespace {

Embedding* g_embedding = nullptr;
std::mutex g_embed_lock;

}  // namespace

void add_commands(CLI::App& app) {
  app.require_subcommand(1);
  // A flag takes no value: `--stats=3` is an error, not a true (the subcommands inherit this).
  app.option_defaults()->disable_flag_override();
  app.set_version_flag("--version", "smemsim 0.1.0");
  add_analyze_command(app);
  add_gen_command(app);
  add_arch_command(app);
  add_model_command(app);
  add_study_command(app);
  add_hash_command(app);
  add_classify_command(app);
  add_run_command(app);
  add_racecheck_command(app);
  add_profile_command(app);
  add_sim_command(app);
  add_fix_command(app);
  add_launch_command(app);
  add_calibrate_command(app);
  check_numeric_options(app);
}

Embedding* embedding() {
  return g_embedding;
}

void note(const std::string& text) {
  if (g_embedding)
    g_embedding->notes.push_back(text);
  else
    fmt::print(stderr, "smemsim: note: {}\n", text);
}

void run_embedded(Embedding& e) {
  const std::lock_guard<std::mutex> hold(g_embed_lock);
  struct Reset {
    ~Reset() { g_embedding = nullptr; }
  } reset;
  g_embedding = &e;
  e.document = nullptr;
  e.notes.clear();
  CLI::App app{"smemsim", "smemsim"};
  add_commands(app);
  // CLI11 parses the arguments in reverse order from a vector.
  std::vector<std::string> args(e.args.rbegin(), e.args.rend());
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    throw InputError("--help is the command line's: see `smemsim " +
                     (e.args.empty() ? std::string() : e.args.front()) + " --help`");
  } catch (const CLI::CallForAllHelp&) {
    throw InputError("--help-all is the command line's");
  } catch (const CLI::CallForVersion&) {
    throw InputError("--version is the command line's");
  } catch (const CLI::ParseError& p) {
    throw InputError(explain_parse_error(p.what(), app));
  }
}

}  // namespace smemsim::cli
