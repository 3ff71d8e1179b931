// smemsim-arch: sm_80
// A kernel whose refused instruction comes from a CUDA header (issue 27 item 7): a surface read,
// which nvcc inlines from the toolkit's surface_indirect_functions.h. smemsim's refusal must name
// this file's line (the surf2Dread call), not the header's. (Integer wmma, from mma.hpp, was the
// example until smemsim ran it.) Written for smemsim's tests.
__global__ void surface_read(cudaSurfaceObject_t s, int* out) {
  int v = 0;
  surf2Dread(&v, s, int(threadIdx.x) * 4, 0);  // line 8
  out[threadIdx.x] = v;
}
