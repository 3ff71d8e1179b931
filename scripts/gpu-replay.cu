// scripts/gpu-replay: runs packages written by `smemsim run ... --export-gpu DIR` on this
// machine's GPU (docs/exec.md "Replaying a launch on a GPU"). For each DIR it JIT-compiles the
// same PTX the executor ran (the driver's PTX compiler, as a CUDA program shipping PTX would),
// uploads each buffer's bytes, runs the launches in order, and compares every buffer with the
// bytes the executor left (exact, or for a kernel the suite compares with a tolerance, the largest
// float difference). Then it times the whole pipeline: five runs after a warm-up, each on fresh
// inputs, the median of the CUDA events' milliseconds. --once runs each package once (for ncu).
// A tensor map (the TMA's, issue 46) is encoded here with cuTensorMapEncodeTiled over the buffer's
// device address and placed in the parameters where the executor put its own image.
//
//   nvcc -O2 -o gpu-replay scripts/gpu-replay.cu -lcuda
//   ./gpu-replay [--once] DIR...     one line per package: name, outputs, median ms
#include <cuda.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A failed call ends the package (the next one still runs; a failed launch can leave the context
// unusable, and then every later package reports the same error).
struct Failed {
  std::string what;
};
void check(CUresult r, const char* what, const std::string& dir) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  throw Failed{dir + ": " + what + ": " + (s ? s : "?")};
}

std::vector<unsigned char> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Failed{"cannot read " + path};
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}

struct Reloc {
  std::size_t at, buffer;
  long long offset;
};
struct Step {
  std::string kernel;
  unsigned g[3], b[3], dyn;
  std::vector<unsigned char> params;
  std::vector<Reloc> relocs;
  std::vector<std::pair<std::size_t, std::size_t>> maps;  // parameter offset, tensor map
  CUfunction f = nullptr;
};
// A tensor map of the launch spec (smemsim's `tensormap` line), encoded here with the driver's
// cuTensorMapEncodeTiled (or cuTensorMapEncodeIm2col, an im2col map) over the buffer's device
// address.
struct TMap {
  std::size_t buffer = 0;
  unsigned long long offset = 0;
  std::string type;
  unsigned rank = 0;
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {}, estrides[5] = {};
  int swizzle = 0, l2 = 0, nan = 0;
  bool im2col = false;
  int lower[3] = {}, upper[3] = {};
  cuuint32_t channels = 0, pixels = 0;
};
struct Buf {
  std::size_t bytes;
  std::string type, name;
  std::vector<unsigned char> in, out;
  CUdeviceptr d = 0;
};
struct Symbol {
  std::string name;
  std::vector<unsigned char> bytes;
};
struct Package {
  std::string dir, name, tolerance;
  std::vector<Symbol> symbols;
  std::vector<Buf> bufs;
  std::vector<Step> steps;
  std::vector<TMap> maps;
};

Package load(const std::string& dir) {
  Package p;
  p.dir = dir;
  std::ifstream f(dir + "/replay.txt");
  if (!f) throw Failed{dir + "/replay.txt: missing (not a complete package)"};
  std::string line, word;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    in >> word;
    if (word == "name") in >> p.name;
    if (word == "tolerance") in >> p.tolerance;
    if (word == "buffer") {
      std::size_t i;
      Buf b;
      in >> i >> b.bytes >> b.type >> b.name;
      b.in = read_all(dir + "/buf" + std::to_string(i) + ".in");
      b.out = read_all(dir + "/buf" + std::to_string(i) + ".out");
      p.bufs.push_back(std::move(b));
    }
    if (word == "launch") {
      Step s;
      std::string hex;
      in >> s.kernel >> s.g[0] >> s.g[1] >> s.g[2] >> s.b[0] >> s.b[1] >> s.b[2] >> s.dyn >> hex;
      if (hex != "-")
        for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
          s.params.push_back(static_cast<unsigned char>(std::stoul(hex.substr(i, 2), nullptr, 16)));
      p.steps.push_back(std::move(s));
    }
    if (word == "symbol") {
      Symbol y;
      std::string hex;
      in >> y.name >> hex;
      for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        y.bytes.push_back(static_cast<unsigned char>(std::stoul(hex.substr(i, 2), nullptr, 16)));
      p.symbols.push_back(std::move(y));
    }
    if (word == "tensormap") {
      TMap t;
      std::size_t i;
      in >> i >> t.buffer >> t.offset >> t.type >> t.rank;
      if (!in || t.rank < 1 || t.rank > 5 || t.buffer >= p.bufs.size() || i != p.maps.size())
        throw Failed{dir + "/replay.txt: a malformed tensormap line"};
      for (unsigned d = 0; d < t.rank; ++d) in >> t.dims[d];
      for (unsigned d = 1; d < t.rank; ++d) in >> t.strides[d - 1];
      for (unsigned d = 0; d < t.rank; ++d) in >> t.box[d];
      for (unsigned d = 0; d < t.rank; ++d) in >> t.estrides[d];
      in >> t.swizzle >> t.l2 >> t.nan;
      std::string mode;
      if (in >> mode) {
        if (mode != "im2col" || t.rank < 3)
          throw Failed{dir + "/replay.txt: a malformed tensormap line"};
        t.im2col = true;
        for (unsigned d = 0; d + 2 < t.rank; ++d) in >> t.lower[d];
        for (unsigned d = 0; d + 2 < t.rank; ++d) in >> t.upper[d];
        in >> t.channels >> t.pixels;
      } else {
        in.clear();
      }
      if (!in) throw Failed{dir + "/replay.txt: a malformed tensormap line"};
      p.maps.push_back(t);
    }
    if (word == "tmap") {
      std::size_t at, map;
      in >> at >> map;
      if (p.steps.empty() || !in || map >= p.maps.size() || at + 128 > p.steps.back().params.size())
        throw Failed{dir + "/replay.txt: a tmap line outside its launch's parameters"};
      p.steps.back().maps.push_back({at, map});
    }
    if (word == "reloc") {
      Reloc r;
      in >> r.at >> r.buffer >> r.offset;
      if (p.steps.empty() || !in || r.buffer >= p.bufs.size() ||
          r.at + 8 > p.steps.back().params.size())
        throw Failed{dir + "/replay.txt: a reloc line outside its launch's parameters"};
      p.steps.back().relocs.push_back(r);
    }
  }
  return p;
}

// The CUtensorMap of `t` over its buffer's device memory.
CUtensorMap encode(const Package& p, const TMap& t) {
  const std::string& y = t.type;
  const CUtensorMapDataType type = y == "u8"     ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : y == "u16"  ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : y == "u32"  ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                   : y == "s32"  ? CU_TENSOR_MAP_DATA_TYPE_INT32
                                   : y == "u64"  ? CU_TENSOR_MAP_DATA_TYPE_UINT64
                                   : y == "s64"  ? CU_TENSOR_MAP_DATA_TYPE_INT64
                                   : y == "f16"  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : y == "f64"  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64
                                   : y == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : y == "tf32" ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  const CUtensorMapSwizzle swizzle = t.swizzle == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
                                     : t.swizzle == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : t.swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                                        : CU_TENSOR_MAP_SWIZZLE_NONE;
  const CUtensorMapL2promotion l2 = t.l2 == 1   ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
                                    : t.l2 == 2 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                    : t.l2 == 3 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                                                : CU_TENSOR_MAP_L2_PROMOTION_NONE;
  CUtensorMap m;
  if (t.im2col) {
    check(cuTensorMapEncodeIm2col(&m, type, t.rank,
                                  reinterpret_cast<void*>(p.bufs[t.buffer].d + t.offset), t.dims,
                                  t.strides, t.lower, t.upper, t.channels, t.pixels, t.estrides,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2,
                                  t.nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                        : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
          "cuTensorMapEncodeIm2col", p.dir);
    return m;
  }
  check(cuTensorMapEncodeTiled(
            &m, type, t.rank, reinterpret_cast<void*>(p.bufs[t.buffer].d + t.offset), t.dims,
            t.strides, t.box, t.estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2,
            t.nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                  : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled", p.dir);
  return m;
}

double as_double(const unsigned char* p, const std::string& t) {
  if (t == "f32") {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  if (t == "f64") {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  __half h;
  std::memcpy(&h, p, 2);
  return __half2float(h);
}

// "same" or what differs.
std::string compare(const Buf& b, const std::vector<unsigned char>& got) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < got.size(); ++i) bytes += got[i] != b.out[i];
  if (!bytes) return "same";
  const bool fl = b.type == "f32" || b.type == "f64" || b.type == "f16";
  char line[256];
  if (!fl) {
    std::snprintf(line, sizeof line, "%s: %zu of %zu bytes differ", b.name.c_str(), bytes,
                  got.size());
    return line;
  }
  const std::size_t w = b.type == "f64" ? 8 : b.type == "f32" ? 4 : 2;
  double worst = 0, worst_rel = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i + w <= got.size(); i += w) {
    const double x = as_double(&got[i], b.type), y = as_double(&b.out[i], b.type);
    if (std::memcmp(&got[i], &b.out[i], w) == 0) continue;
    ++n;
    const double d = std::fabs(x - y);
    worst = std::max(worst, d);
    worst_rel = std::max(worst_rel, d / std::max(1e-30, std::fabs(y)));
  }
  std::snprintf(line, sizeof line,
                "%s: %zu of %zu elements differ, largest by %.3g (%.3g relative)", b.name.c_str(),
                n, got.size() / w, worst, worst_rel);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  bool once = false;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--once") == 0)
      once = true;
    else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::puts("usage: gpu-replay [--once] DIR...   (packages of smemsim run --export-gpu)");
      return 0;
    } else
      dirs.push_back(argv[i]);
  }
  CUdevice dev;
  CUcontext ctx;
  try {
    check(cuInit(0), "cuInit", "gpu-replay");
    check(cuDeviceGet(&dev, 0), "no CUDA device", "gpu-replay");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "context", "gpu-replay");
    check(cuCtxSetCurrent(ctx), "context", "gpu-replay");
  } catch (const Failed& f) {
    std::fprintf(stderr, "%s\n", f.what.c_str());
    return 2;
  }
  int failed = 0;
  for (const std::string& dir : dirs) try {
      Package p = load(dir);
      std::vector<unsigned char> ptx = read_all(dir + "/kernel.ptx");
      ptx.push_back(0);
      CUmodule mod;
      check(cuModuleLoadData(&mod, ptx.data()), "loading the PTX", dir);
      for (Step& s : p.steps) {
        check(cuModuleGetFunction(&s.f, mod, s.kernel.c_str()), s.kernel.c_str(), dir);
        if (s.dyn > 48 * 1024)
          check(cuFuncSetAttribute(s.f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, s.dyn),
                "dynamic shared memory", dir);
      }
      for (Buf& b : p.bufs)
        check(cuMemAlloc(&b.d, std::max<std::size_t>(b.bytes, 256)), "alloc", dir);
      CUevent e0, e1;
      check(cuEventCreate(&e0, 0), "event", dir);
      check(cuEventCreate(&e1, 0), "event", dir);
      std::vector<float> ms;
      std::string verdict = "same";
      const int runs = once ? 1 : 6;
      for (int run = 0; run < runs; ++run) {
        for (Buf& b : p.bufs)
          if (b.bytes) check(cuMemcpyHtoD(b.d, b.in.data(), b.bytes), "upload", dir);
        for (const Symbol& y : p.symbols) {
          CUdeviceptr a;
          std::size_t n = 0;
          check(cuModuleGetGlobal(&a, &n, mod, y.name.c_str()), y.name.c_str(), dir);
          check(cuMemcpyHtoD(a, y.bytes.data(), std::min(n, y.bytes.size())), y.name.c_str(), dir);
        }
        check(cuCtxSynchronize(), "upload", dir);
        check(cuEventRecord(e0, nullptr), "event", dir);
        for (Step& s : p.steps) {
          std::vector<unsigned char> params = s.params;
          for (const Reloc& r : s.relocs) {
            const unsigned long long a = p.bufs[r.buffer].d + r.offset;
            std::memcpy(&params[r.at], &a, 8);
          }
          for (const auto& [at, map] : s.maps) {
            const CUtensorMap m = encode(p, p.maps[map]);
            std::memcpy(&params[at], &m, sizeof m);
          }
          std::size_t size = params.size();
          void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params.data(),
                           CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
          check(cuLaunchKernel(s.f, s.g[0], s.g[1], s.g[2], s.b[0], s.b[1], s.b[2], s.dyn, nullptr,
                               nullptr, size ? extra : nullptr),
                s.kernel.c_str(), dir);
        }
        check(cuEventRecord(e1, nullptr), "event", dir);
        check(cuCtxSynchronize(), "the launch", dir);
        float t = 0;
        check(cuEventElapsedTime(&t, e0, e1), "event", dir);
        if (run > 0 || once) ms.push_back(t);
        if (run == 0) {
          for (Buf& b : p.bufs) {
            std::vector<unsigned char> got(b.bytes);
            if (b.bytes) check(cuMemcpyDtoH(got.data(), b.d, b.bytes), "download", dir);
            const std::string c = compare(b, got);
            if (c != "same") verdict = verdict == "same" ? c : verdict + "; " + c;
          }
        }
      }
      std::sort(ms.begin(), ms.end());
      const std::string base = dir.substr(dir.find_last_of('/') + 1);
      std::printf("%-22s %-24s %s  %.4f ms\n", base.c_str(), p.name.c_str(),
                  verdict == "same" ? "outputs identical to the executor's" : verdict.c_str(),
                  ms[ms.size() / 2]);
      if (verdict != "same") ++failed;
      for (Buf& b : p.bufs) cuMemFree(b.d);
      cuModuleUnload(mod);
      cuEventDestroy(e0);
      cuEventDestroy(e1);
    } catch (const Failed& f) {
      std::printf("%-40s FAILED: %s\n", dir.c_str(), f.what.c_str());
      ++failed;
    } catch (const std::exception& e) {  // a malformed number in replay.txt
      std::printf("%-40s FAILED: %s/replay.txt is malformed (%s)\n", dir.c_str(), dir.c_str(),
                  e.what());
      ++failed;
    }
  return failed ? 1 : 0;
}
