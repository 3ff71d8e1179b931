// Measurement files (issue 42, docs/calibration.md): figures a GPU was measured at, each with its
// source, the method that measured it and the replica microbenchmark (kernels/ubench_replicas.cu)
// that runs the same instruction sequence, timed the same way, in the cycle model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "smemsim/arch.hpp"

namespace smemsim::calibrate {

// How the figure was measured, as its source describes it.
struct Method {
  std::string step;   // the per-step instruction sequence ("p = s[p] on a u64 array")
  std::string clock;  // "clock() around the loop, thread 0" ...
  std::uint32_t block = 0, grid = 0;
  std::uint64_t iterations = 0;
};

struct Figure {
  std::string id;         // unique in the file
  std::string benchmark;  // the replica that reproduces it
  double value = 0;
  std::string unit;   // one of units()
  std::string where;  // its place in the source: "output.file:112", "Table 3.1"
  std::string note;
  Method method;
  std::uint64_t line = 0;  // of the figure's [[figure]] header in the file
};

// An arch key the measured GPU has other than its preset ([gpu.keys]: "sm.l2_slices" = 48), applied
// over the base arch before any replica runs.
struct GpuKey {
  std::string key, value;  // value as --set takes it
  std::uint64_t line = 0;
  bool text = false;  // a string (quoted in TOML)
};

struct Measurements {
  std::string path;  // the file read (messages)
  // [gpu]
  std::string gpu, chip, preset;
  std::vector<GpuKey> keys;
  std::uint32_t compute_capability = 0;
  double sm_clock_mhz = 0;  // 0: not stated
  // [source]
  std::string source_kind;  // measured | published
  std::string title, repository, source_path, commit, citation;
  std::vector<Figure> figures;
};

// The units a figure may have.
const std::vector<std::string_view>& units();

// Parses a measurement file's text; InputError "FILE:LINE: figure 'ID': field 'unit': ..." on any
// fault (syntax, an unknown or missing field, a wrong type, an unknown unit, a duplicate id, a
// benchmark no replica has, a unit the replica does not measure in).
Measurements parse_measurements(std::string_view text, const std::string& path);
Measurements load_measurements(const std::string& path);
// `base` with the file's [gpu.keys] set; InputError "FILE:LINE: [gpu.keys] 'KEY': ..." where one
// is out of its range or contradicts the others (validate).
Arch measured_gpu(const Measurements& m, const Arch& base);

}  // namespace smemsim::calibrate
