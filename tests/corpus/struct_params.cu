// smemsim-arch: sm_80
// Kernels that take structs and arrays by value (issue 27 item 3), for
// tests/struct_params_test.cpp: a parameters struct with a float, an int, two pointers, an int
// array and a bool (C layout: 0, 4, 8, 16, 24..35, 36; 40 bytes aligned to 8), a 4-byte struct
// aligned to 2, and an array of coefficients wrapped in a struct. Written for smemsim's tests.
struct Params {
  float scale;
  int n;
  const float* in;
  float* out;
  int dims[3];
  bool flag;
};

__global__ void saxpy_struct(Params p, float bias) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = p.scale * p.in[i] + bias + (p.flag ? float(p.dims[i % 3]) : 0.0f);
}

struct Small {
  short a;
  char b;
};

__global__ void small_struct(Small s, int* out) {
  out[threadIdx.x] = s.a * 100 + s.b + int(threadIdx.x);
}

struct Coeffs {
  float c[5];
};

// out[i] = sum_j c[j] * in[i + j], i < n (in holds n + 4 values).
__global__ void stencil5(Coeffs k, const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int j = 0; j < 5; ++j) s += k.c[j] * in[i + j];
  out[i] = s;
}
