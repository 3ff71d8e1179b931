// `smemsim launch init`'s two halves: the skeleton's text (launch_init.cpp) and the trial runs
// that choose its block and grid (launch_init_trial.cpp).
#pragma once

#include <string>

#include "smemsim/ptx.hpp"

namespace smemsim::exec {

// The grid and block lines of a skeleton and their comments ("grid = [1, 4]", "guessed: ...").
struct LaunchShape {
  std::string grid, grid_note, block, block_note;
};

// The skeleton with the shape given, or (nullptr) the one its parameter use suggests.
std::string skeleton_text(const ptx::Module& m, const ptx::Kernel& k, const std::string& ptx_path,
                          const std::string& spec_path, const LaunchShape* shape);

}  // namespace smemsim::exec
