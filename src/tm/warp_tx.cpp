// The transactional SIMT masks of a warp (seed 003 §3.1, Table 1).
#include "smemsim/tm.hpp"

namespace smemsim::tm {

std::string_view mode_name(Mode m) {
  switch (m) {
    case Mode::Normal:
      return "NORMAL";
    case Mode::Tx:
      return "TX";
    case Mode::WavefrontSerial:
      return "WF Serial.";
    case Mode::WorkgroupSerial:
      return "WG Serial.";
  }
  return "?";
}

LaneMask WarpTx::begin(LaneMask exec) {
  ++attempts;
  if (!retrying) {  // the first attempt: every lane on the path runs
    mode = Mode::Tx;
    tcm = 0;
    tcm_old = 0;
    entry = exec;
    attempts = 1;
    return exec;
  }
  // A retry: `tcm` is the mask TX.Commit copied into EXEC. "Whenever two consecutive
  // re-executions of a transaction finish with the same TCM mask" the next attempt serializes the
  // wavefront; "in case a transaction ends in the wavefront serialization mode and the TCM mask has
  // not changed since the last execution", the work-group (003 §3.1). Table 1 shows the comparison
  // at TX.Begin: the mode changes in the row of line 2, TCM OLD takes the carried TCM there.
  retrying = false;
  const LaneMask carried = tcm;
  if (carried == tcm_old)
    mode = mode == Mode::Tx ? Mode::WavefrontSerial : Mode::WorkgroupSerial;
  else
    mode = Mode::Tx;
  tcm_old = carried;
  // "Instead of clearing the TCM at the beginning of the next retry, only one of its active bits is
  // reset": the lowest lane runs (Table 1: TCM 0011 -> 0001 with WI0 leftmost).
  tcm = mode == Mode::Tx ? 0 : (carried & (carried - 1));
  return carried & ~tcm;
}

bool WarpTx::commit() {
  if (tcm == 0) {
    mode = Mode::Normal;
    retrying = false;
    return true;
  }
  retrying = true;  // EXEC = TCM; back to TX.Begin
  return false;
}

}  // namespace smemsim::tm
