// The CPU references of kernels/dct8x8.cu (src/workloads/driver_dct.cpp), written from the
// definition of the 8x8 DCT: separable, in double precision, and in the kernels' fixed point
// (Cq = round(4096 C), each 1-D pass (sum + 2048) >> 12 kept as a short).
#pragma once

#include <cstdint>
#include <vector>

namespace smemsim::exec::dct_ref {

double coef(int u, int x);  // orthonormal DCT-II: c(u) cos((2x + 1) u pi / 16)
int coef_q(int u, int x);   // round(4096 coef)
// Each 8x8 block of a W x H image, rows then columns; `inverse` for the IDCT.
std::vector<double> dct_double(const std::vector<double>& img, std::uint32_t W, std::uint32_t H,
                               bool inverse);
std::vector<int> dct_fixed(const std::vector<int>& img, std::uint32_t W, std::uint32_t H,
                           bool inverse);

}  // namespace smemsim::exec::dct_ref
