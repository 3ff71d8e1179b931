// The commands run in-process by an embedding program (the Python module, issue 30): a command line
// is parsed and run as `smemsim` would run it, but its JSON document, its notes and the workload's
// buffers are handed to the caller instead of being printed or written. One embedded command runs
// at a time (run_embedded holds a lock).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "smemsim/workloads.hpp"

namespace smemsim::cli {

// Every command of smemsim on `app` (main.cpp and run_embedded).
void add_commands(CLI::App& app);

struct Embedding {
  std::vector<std::string> args;  // the command line without "smemsim" ("run", "FILE.ptx", ...)
  // The launch spec's text when it is not a file (a Python dict); --launch then names its origin,
  // the name its messages give ("launch dict:3: ...").
  std::string spec_text;
  // Called with the prepared workload before it runs (buffers given by the caller go in), and
  // after it ran (they come out). Either may be empty.
  std::function<void(exec::Workload&)> prepared;
  std::function<void(const exec::Workload&)> finished;

  // Out: the document the command printed under --json (null when it printed none), and the notes
  // it would have printed on stderr ("the pipeline reads __constant__ 'c', ...").
  nlohmann::json document;
  std::vector<std::string> notes;
};

// Runs e.args. Bad input is an InputError with the CLI's message (a CLI11 parse error in smemsim's
// words); a reference mismatch is no error here: the document says it.
void run_embedded(Embedding& e);
// The embedding running now, or nullptr (the smemsim binary).
Embedding* embedding();

// A note: "smemsim: note: TEXT" on stderr, or into the embedding's notes.
void note(const std::string& text);

}  // namespace smemsim::cli
