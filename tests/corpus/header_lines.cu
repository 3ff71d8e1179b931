// smemsim-arch: sm_80
// A kernel whose refused instructions come from a CUDA header (issue 27 item 7): integer wmma, which
// nvcc inlines from the toolkit's mma.hpp. smemsim's refusal must name this file's line (the
// load_matrix_sync call), not the header's. Written for smemsim's tests.
#include <mma.h>
using namespace nvcuda;

__global__ void imma16(const signed char* a, const signed char* b, int* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16);  // line 13
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
