// `smemsim calibrate` (issue 42): the keys a measurement file's figures constrain, solved by
// running the replicas in the cycle model. One key at a time, in the replicas' order; where several
// figures bear on one key, the integer value with the least sum of squared relative errors. A
// figure whose replica names a mechanism the model lacks is reported, never fitted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/measurements.hpp"
#include "smemsim/arch.hpp"

namespace smemsim::calibrate {

struct Row {
  std::string id, benchmark, unit, key;  // key: the one its figure solved ("" when none)
  double measured = 0, before = 0, after = 0;
  std::string status;  // "fitted", "checked" or "not fitted: ..."
  double error() const { return measured ? (after - measured) / measured : 0; }
};

struct KeyFit {
  std::string key;
  std::int64_t before = 0, after = 0;
  std::vector<std::string> figures;  // the ids it was solved from
  double residual = 0;               // the largest |relative error| among them, after
};

struct Fit {
  Arch arch;  // base with the solved keys
  std::vector<Row> rows;
  std::vector<KeyFit> keys;
};

struct FitOptions {
  std::string ptx_dir;        // the replicas' PTX ("": exec::suite_ptx_dir())
  bool check = false;         // run each replica on the base only: no key moves (after = before)
  std::uint32_t threads = 1;  // host threads the replicas run on, several at once, and a whole-GPU
                              // replica's SMs tick on (results do not change)
};
Fit fit(const Measurements& m, const Arch& base, const FitOptions& opt = {});

// The residual table for people: figure, unit, measured, model before, after, error, status.
std::string residual_table(const Fit& f);
// An arch file of the fitted keys over `f.arch`'s preset, each with "calibrated to SOURCE, residual
// X %" (load it with --arch-file).
std::string fitted_toml(const Fit& f, const Measurements& m);

}  // namespace smemsim::calibrate
