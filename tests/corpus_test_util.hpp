// Helpers of the real-kernel corpus tests (tests/corpus/*.cu compiled by nvcc at build time):
// seeded inputs and a launcher that runs one kernel of a corpus module on given buffers.
#pragma once

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"

#ifndef SMEMSIM_CORPUS_PTX_DIR
#define SMEMSIM_CORPUS_PTX_DIR ""
#endif

namespace smemsim::exec::corpus {

using Ints = std::vector<std::int32_t>;

inline Ints random_ints(std::size_t n, int lo, int hi, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  Ints v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// One launch of `kernel` from corpus/<file>.ptx: buffers (name, contents) and integer arguments in
// parameter order; returns the buffers after the run.
struct Launcher {
  ptx::Module module;
  GlobalMemory mem;
  Launch launch;
  explicit Launcher(const std::string& file)
      : module(ptx::parse_file(std::string(SMEMSIM_CORPUS_PTX_DIR) + "/" + file + ".ptx")) {}
  Launcher& buffer(const std::string& name, const Ints& v) {
    std::vector<std::uint8_t> bytes(v.size() * 4);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    launch.args.push_back(Arg::buf(mem.add({name, ElemType::S32, std::move(bytes)})));
    return *this;
  }
  template <typename T>
  Launcher& raw(const std::string& name, const std::vector<T>& v, ElemType type) {
    std::vector<std::uint8_t> bytes(v.size() * sizeof(T));
    std::memcpy(bytes.data(), v.data(), bytes.size());
    launch.args.push_back(Arg::buf(mem.add({name, type, std::move(bytes)})));
    return *this;
  }
  // A texture object over a new buffer holding `texels` (t's shape and sampling), passed as the
  // next argument.
  template <typename T>
  Launcher& texture(const std::string& name, const std::vector<T>& texels, ElemType type,
                    Texture t) {
    std::vector<std::uint8_t> bytes(texels.size() * sizeof(T));
    std::memcpy(bytes.data(), texels.data(), bytes.size());
    t.name = name;
    t.buffer = mem.add({name + "_texels", type, std::move(bytes)});
    mem.textures.push_back(t);
    launch.args.push_back(Arg::texture(static_cast<std::uint32_t>(mem.textures.size() - 1)));
    return *this;
  }
  Launcher& value(std::int64_t v) {
    launch.args.push_back(Arg::integer(v));
    return *this;
  }
  void run(const std::string& kernel, std::uint32_t grid, std::uint32_t block) {
    run(kernel, Dim3{grid, 1, 1}, Dim3{block, 1, 1});
  }
  void run(const std::string& kernel, Dim3 grid, Dim3 block, std::uint32_t dynamic = 0) {
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared_bytes = dynamic;
    Executor ex(module, find_kernel(module, kernel), default_arch(), launch, mem);
    ex.run();
  }
  template <typename T>
  std::vector<T> got(const std::string& name) {
    const Buffer& b = mem.get(name);
    std::vector<T> v(b.bytes.size() / sizeof(T));
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  }
  Ints get(const std::string& name) {
    const Buffer& b = mem.get(name);
    Ints v(b.bytes.size() / 4);
    std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
    return v;
  }
};

}  // namespace smemsim::exec::corpus
