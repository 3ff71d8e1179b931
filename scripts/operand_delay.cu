// scripts/operand_delay.cu: dependent chains that tell apart where a latency goes (issue 42,
// docs/gpu-runs.md "Measured on an H200 and an H100", docs/timing.md "Operand delay"): a shared
// load or a MUFU fed by a variable-latency result (another load, another MUFU) or by a
// fixed-latency one (IADD3, FFMA, IMAD), and a fixed-latency op fed by a load or a MUFU; division
// and square root on their own results (the sequences of sm.lower's divide); and FP64: DADD, DMUL,
// DFMA, the f32/f64 conversions, independent DFMAs (an H200's figures:
// calibration/runs/h200-2026-11-28; dfma_x2, dfma_x8 and div_f32_zero, a division's slow path, were
// added after that run and wait for a GPU); and branches: loops and forward branches (added after
// it too). Each chain is inline PTX of one thread, `zero` and
// `one` come from the launch so that ptxas cannot fold them, and the figure is %clock around 1,024
// steps over the steps, the median of five after a warm-up. The SASS of each kernel (cuobjdump)
// shows what ran.
//   nvcc -O2 -arch=sm_90 -o operand_delay scripts/operand_delay.cu && ./operand_delay
#include "calibrate_common.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) check((x), #x)

constexpr int kSteps = 1024;

// The chains' timed loop: 16 untimed steps, then kSteps between two %clock reads; clk[0] the
// cycles, clk[1] the chain's values (`kept`) so that nothing is optimized away.
#define TIMED_STEPS(body, kept)                                            \
  unsigned t0 = 0, t1 = 0;                                                 \
  for (int i = -16; i < kSteps; ++i) {                                     \
    if (i == 0) asm volatile("mov.u32 %0, %%clock;" : "=r"(t0)::"memory"); \
    body                                                                   \
  }                                                                        \
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t1)::"memory");               \
  clk[0] = t1 - t0;                                                        \
  clk[1] = kept;

// s[i] holds its own shared address (a word that points to itself): every chain stays at s[0].
#define SELF_POINTING_WORDS                                                 \
  __shared__ unsigned s[64];                                                \
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s)); \
  if (threadIdx.x == 0)                                                     \
    for (int i = 0; i < 64; ++i) s[i] = base + 4u * i;                      \
  __syncthreads();
#define CHAIN_KERNEL(name, body)                                  \
  __global__ void name(unsigned* clk, unsigned zero, float one) { \
    SELF_POINTING_WORDS                                           \
    unsigned p = base;                                            \
    float f = one;                                                \
    TIMED_STEPS(body, p + __float_as_uint(f))                     \
  }

// A load on its own result.
CHAIN_KERNEL(lds_lds, asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");)
// A load, then an integer add of a zero: IADD3 feeds the next load.
CHAIN_KERNEL(lds_iadd, asm volatile("ld.shared.u32 %0, [%0];\n\tadd.u32 %0, %0, %1;"
                                    : "+r"(p)
                                    : "r"(zero)
                                    : "memory");)
// A load, then two adds: the second add's producer is fixed-latency too.
CHAIN_KERNEL(lds_iadd2, asm volatile("ld.shared.u32 %0, [%0];\n\tadd.u32 %0, %0, %1;\n\t"
                                     "add.u32 %0, %0, %1;"
                                     : "+r"(p)
                                     : "r"(zero)
                                     : "memory");)
// A load, then an integer multiply-add (p * 1 + 0: IMAD).
CHAIN_KERNEL(lds_imad, asm volatile("ld.shared.u32 %0, [%0];\n\tmad.lo.u32 %0, %0, %1, %2;"
                                    : "+r"(p)
                                    : "r"(zero + 1), "r"(zero)
                                    : "memory");)
// MUFU on its own result, and MUFU then an FFMA (x * one + 0) then the MUFU.
CHAIN_KERNEL(mufu_mufu, asm volatile("sqrt.approx.ftz.f32 %0, %0;" : "+f"(f)::"memory");)
CHAIN_KERNEL(mufu_ffma,
             asm volatile("sqrt.approx.ftz.f32 %0, %0;\n\tfma.rn.f32 %0, %0, %1, 0f00000000;"
                          : "+f"(f)
                          : "f"(one)
                          : "memory");)
// FFMA on its own result (the fixed pipe's own latency), for reference.
CHAIN_KERNEL(ffma_ffma, asm volatile("fma.rn.f32 %0, %0, %1, 0f00000000;"
                                     : "+f"(f)
                                     : "f"(one)
                                     : "memory");)

// Divisions on their own results (sm.lower's divide, src/timing/expand.cpp): by a divisor from
// the launch that keeps the value (1 for a quotient, the largest value for a remainder), so that
// ptxas emits its general sequence.
CHAIN_KERNEL(div_u32, asm volatile("div.u32 %0, %0, %1;" : "+r"(p) : "r"(zero + 1) : "memory");)
CHAIN_KERNEL(rem_u32, asm volatile("rem.u32 %0, %0, %1;" : "+r"(p) : "r"(zero - 1) : "memory");)
CHAIN_KERNEL(div_s32, asm volatile("div.s32 %0, %0, %1;" : "+r"(p) : "r"(zero + 1) : "memory");)
CHAIN_KERNEL(rem_s32, asm volatile("rem.s32 %0, %0, %1;"
                                   : "+r"(p)
                                   : "r"(zero + 0x7fffffffu)
                                   : "memory");)
CHAIN_KERNEL(div_f32, asm volatile("div.rn.f32 %0, %0, %1;" : "+f"(f) : "f"(one) : "memory");)
CHAIN_KERNEL(sqrt_f32, asm volatile("sqrt.rn.f32 %0, %0;" : "+f"(f)::"memory");)
// The divisor on the chain, so that nothing can be hoisted: 0xffffffff / p alternates 65535 and
// 65537 (p starts at 65535), and 1 / f alternates 2 and 0.5.
#define DIVISOR_CHAIN_KERNEL(name, body)                          \
  __global__ void name(unsigned* clk, unsigned zero, float one) { \
    unsigned p = zero + 65535u;                                   \
    float f = one + one;                                          \
    TIMED_STEPS(body, p + __float_as_uint(f))                     \
  }
DIVISOR_CHAIN_KERNEL(div_u32_by_chain, asm volatile("div.u32 %0, %1, %0;"
                                                    : "+r"(p)
                                                    : "r"(zero - 1u)
                                                    : "memory");)
DIVISOR_CHAIN_KERNEL(div_s32_by_chain, asm volatile("div.s32 %0, %1, %0;"
                                                    : "+r"(p)
                                                    : "r"(zero + 0x7fffffffu)
                                                    : "memory");)
DIVISOR_CHAIN_KERNEL(div_f32_by_chain, asm volatile("div.rn.f32 %0, %1, %0;"
                                                    : "+f"(f)
                                                    : "f"(one)
                                                    : "memory");)

// FP64 on its own results (lavamd's doubles, issue 42): DADD, DMUL and DFMA chains, the two
// conversions F2F.F32.F64 and F2F.F64.F32 in turn (cvt.rn.f32.f64 then cvt.f64.f32), the same
// pair with a DADD after it (the pair's share and the DADD's add up, or show an operand delay),
// and four independent DFMA chains in one thread: the cycles a step over four is how often one
// warp can issue a DFMA (the FP64 pipe's interval for one warp). `one` as a double is 1.0 and
// `zero` 0.0, from the launch.
#define F64_CHAIN_KERNEL(name, body)                                \
  __global__ void name(unsigned* clk, unsigned zero, float one) {   \
    const double dz = double(zero), d1 = double(one);               \
    double d = d1 + d1, e = d + d1, g = e + d1, h = g + d1;         \
    float c = one;                                                  \
    (void)dz;                                                       \
    (void)d1;                                                       \
    TIMED_STEPS(body, unsigned(d + e + g + h) + __float_as_uint(c)) \
  }
F64_CHAIN_KERNEL(dadd_dadd, asm volatile("add.rn.f64 %0, %0, %1;" : "+d"(d) : "d"(dz) : "memory");)
F64_CHAIN_KERNEL(dmul_dmul, asm volatile("mul.rn.f64 %0, %0, %1;" : "+d"(d) : "d"(d1) : "memory");)
F64_CHAIN_KERNEL(dfma_dfma, asm volatile("fma.rn.f64 %0, %0, %1, %2;"
                                         : "+d"(d)
                                         : "d"(d1), "d"(dz)
                                         : "memory");)
F64_CHAIN_KERNEL(f2f_pair, asm volatile("cvt.rn.f32.f64 %1, %0;\n\tcvt.f64.f32 %0, %1;"
                                        : "+d"(d), "+f"(c)::"memory");)
F64_CHAIN_KERNEL(f2f_pair_dadd, asm volatile("cvt.rn.f32.f64 %1, %0;\n\tcvt.f64.f32 %0, %1;\n\t"
                                             "add.rn.f64 %0, %0, %2;"
                                             : "+d"(d), "+f"(c)
                                             : "d"(dz)
                                             : "memory");)
F64_CHAIN_KERNEL(dfma_x4,
                 asm volatile("fma.rn.f64 %0, %0, %4, %5;\n\tfma.rn.f64 %1, %1, %4, %5;\n\t"
                              "fma.rn.f64 %2, %2, %4, %5;\n\tfma.rn.f64 %3, %3, %4, %5;"
                              : "+d"(d), "+d"(e), "+d"(g), "+d"(h)
                              : "d"(d1), "d"(dz)
                              : "memory");)
// Two and eight independent DFMA chains (with dfma_x4: the interval of one warp's DFMAs).
F64_CHAIN_KERNEL(dfma_x2, asm volatile("fma.rn.f64 %0, %0, %2, %3;\n\tfma.rn.f64 %1, %1, %2, %3;"
                                       : "+d"(d), "+d"(e)
                                       : "d"(d1), "d"(dz)
                                       : "memory");)
F64_CHAIN_KERNEL(dfma_x8,
                 asm volatile("fma.rn.f64 %0, %0, %4, %5;\n\tfma.rn.f64 %1, %1, %4, %5;\n\t"
                              "fma.rn.f64 %2, %2, %4, %5;\n\tfma.rn.f64 %3, %3, %4, %5;\n\t"
                              "fma.rn.f64 %0, %0, %4, %5;\n\tfma.rn.f64 %1, %1, %4, %5;\n\t"
                              "fma.rn.f64 %2, %2, %4, %5;\n\tfma.rn.f64 %3, %3, %4, %5;"
                              : "+d"(d), "+d"(e), "+d"(g), "+d"(h)
                              : "d"(d1), "d"(dz)
                              : "memory");)
// div.rn.f32 of a zero by the chain (0 / 1, then 0 / 0 = NaN on): FCHK sends ptxas's sequence to
// its slow path, the subroutine fft's divisions call (the H200's CALL and FCHK counts of fft).
CHAIN_KERNEL(div_f32_zero, asm volatile("div.rn.f32 %0, %1, %0;"
                                        : "+f"(f)
                                        : "f"(one - one)
                                        : "memory");)

// Branches (issue 42: grid3d and atomic_bench spend 0.6-1.0 warps per issue in branch_resolving
// on the H200, stalls.csv; the model's sm.lat_branch is assumed). Labels inside { } are local to
// the braces, so each copy of a step has its own. Each thread's `t` is its index ANDed with
// `zero` (0, which ptxas cannot know), so that a trip count or a compared value is the thread's
// own as far as ptxas can tell: it brackets each branch with BSSY/BSYNC, as grid3d's test of
// d2 < w2, and cannot fold it. `.pragma "nounroll"` keeps a loop a loop.
//   bra_loop1: a loop run once a step (its backward branch not taken), an add on p inside;
//   bra_loop4: the same loop run four times a step: (bra_loop4 - bra_loop1) / 3 is one
//              iteration with its backward branch taken (IADD, ISETP, BRA);
//   bra_skip:  a shared load on p (s[] points to itself), then a forward branch on the loaded
//              value, taken over 32 adds, then an add on p: lds_iadd's chain and the branch
//              (ptxas makes the 32 adds 16 IADD3s; round eight it predicates them instead:
//              ptxas 11.8's SASS for sm_90);
//   bra_fall:  the same branch not taken: the 32 adds run.
#define BRANCH_KERNEL(name, body)                                 \
  __global__ void name(unsigned* clk, unsigned zero, float one) { \
    SELF_POINTING_WORDS                                           \
    const unsigned t = threadIdx.x & zero;                        \
    unsigned p = base + t;                                        \
    (void)one;                                                    \
    TIMED_STEPS(body, p)                                          \
  }
#define BRANCH_LOOP(trips)                                                                      \
  asm volatile("{\n\t.reg .pred q;\n\t.reg .u32 n;\n\tadd.u32 n, %1, " #trips                   \
               ";\n"                                                                            \
               "LOOP:\n\t.pragma \"nounroll\";\n\tadd.u32 %0, %0, %1;\n\tadd.u32 n, n, -1;\n\t" \
               "setp.ne.u32 q, n, 0;\n\t@q bra LOOP;\n\t}"                                      \
               : "+r"(p)                                                                        \
               : "r"(t)                                                                         \
               : "memory");
BRANCH_KERNEL(bra_loop1, BRANCH_LOOP(1))
BRANCH_KERNEL(bra_loop4, BRANCH_LOOP(4))
// Adds of t (0) to p: they change nothing, but ptxas cannot know it, so the two ways past the
// branch stay different.
#define EIGHT_ADDS                                                                               \
  "add.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %1;\n\t" \
  "add.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %1;\n"
// `op` compares the loaded p (a 4-aligned shared address) with t + 1 = 1: ne takes the branch.
#define BRANCH_OVER(op)                                                                \
  asm volatile(                                                                        \
      "{\n\t.reg .pred q;\n\t.reg .u32 k;\n\tld.shared.u32 %0, [%0];\n\t"              \
      "add.u32 k, %1, 1;\n\tsetp." op                                                  \
      ".u32 q, %0, k;\n\t@q bra SKIP;\n\t" EIGHT_ADDS EIGHT_ADDS EIGHT_ADDS EIGHT_ADDS \
      "SKIP:\n\tadd.u32 %0, %0, %1;\n\t}"                                              \
      : "+r"(p)                                                                        \
      : "r"(t)                                                                         \
      : "memory");
BRANCH_KERNEL(bra_skip, BRANCH_OVER("ne"))
BRANCH_KERNEL(bra_fall, BRANCH_OVER("eq"))

template <typename K>
double run(K kernel, unsigned* clk) {
  return median_of_five([&] {
    kernel<<<1, 32>>>(clk, 0u, 1.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned h[2];
    CHECK(cudaMemcpy(h, clk, sizeof h, cudaMemcpyDeviceToHost));
    return double(h[0]) / kSteps;
  });
}

int main() {
  check_program = "operand_delay";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  unsigned* clk;
  CHECK(cudaMalloc(&clk, 16));
  std::printf("# scripts/operand_delay on %s (sm_%d%d): cycles a step, median of 5\n", prop.name,
              prop.major, prop.minor);
  std::printf("lds_lds %.2f\n", run(lds_lds, clk));
  std::printf("lds_iadd %.2f\n", run(lds_iadd, clk));
  std::printf("lds_iadd2 %.2f\n", run(lds_iadd2, clk));
  std::printf("lds_imad %.2f\n", run(lds_imad, clk));
  std::printf("mufu_mufu %.2f\n", run(mufu_mufu, clk));
  std::printf("mufu_ffma %.2f\n", run(mufu_ffma, clk));
  std::printf("ffma_ffma %.2f\n", run(ffma_ffma, clk));
  std::printf("div_u32 %.2f\n", run(div_u32, clk));
  std::printf("rem_u32 %.2f\n", run(rem_u32, clk));
  std::printf("div_s32 %.2f\n", run(div_s32, clk));
  std::printf("rem_s32 %.2f\n", run(rem_s32, clk));
  std::printf("div_f32 %.2f\n", run(div_f32, clk));
  std::printf("sqrt_f32 %.2f\n", run(sqrt_f32, clk));
  std::printf("div_u32_by_chain %.2f\n", run(div_u32_by_chain, clk));
  std::printf("div_s32_by_chain %.2f\n", run(div_s32_by_chain, clk));
  std::printf("div_f32_by_chain %.2f\n", run(div_f32_by_chain, clk));
  std::printf("dadd_dadd %.2f\n", run(dadd_dadd, clk));
  std::printf("dmul_dmul %.2f\n", run(dmul_dmul, clk));
  std::printf("dfma_dfma %.2f\n", run(dfma_dfma, clk));
  std::printf("f2f_pair %.2f\n", run(f2f_pair, clk));
  std::printf("f2f_pair_dadd %.2f\n", run(f2f_pair_dadd, clk));
  std::printf("dfma_x4 %.2f\n", run(dfma_x4, clk));
  std::printf("dfma_x2 %.2f\n", run(dfma_x2, clk));
  std::printf("dfma_x8 %.2f\n", run(dfma_x8, clk));
  std::printf("div_f32_zero %.2f\n", run(div_f32_zero, clk));
  std::printf("bra_loop1 %.2f\n", run(bra_loop1, clk));
  std::printf("bra_loop4 %.2f\n", run(bra_loop4, clk));
  std::printf("bra_skip %.2f\n", run(bra_skip, clk));
  std::printf("bra_fall %.2f\n", run(bra_fall, clk));
  return 0;
}
