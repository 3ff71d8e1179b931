// Rendering a study Figure with gnuplot (src/study/plot.cpp).
#pragma once

#include <ostream>
#include <string>

#include "smemsim/study.hpp"

namespace smemsim::study {

// Writes DIR/NAME.dat and DIR/NAME.gp and runs gnuplot; returns the PNG path, or "" (with a warning
// on `log`) when gnuplot is missing or fails.
std::string render_figure(const Figure& f, const std::string& dir, std::ostream* log);

}  // namespace smemsim::study
