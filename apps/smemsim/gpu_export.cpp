// `run --export-gpu DIR`: the launch as a package a real GPU replays (scripts/gpu-replay.cu): the
// PTX the executor ran, each buffer before and after the run, and every launch's parameters packed
// as the executor packs them, with the 8-byte slots that hold a buffer's address marked. The GPU
// then runs the same PTX on the same bytes, so its outputs can be compared with the executor's and
// its cycles with the cycle model's (docs/exec.md "Replaying a launch on a GPU").
#include "gpu_export.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "smemsim/error.hpp"
#include "smemsim/tensor_map.hpp"

namespace smemsim::cli {
namespace {

namespace fs = std::filesystem;

struct Packed {
  std::vector<std::uint8_t> image;
  std::vector<exec::Arg::Reloc> relocs;  // buffer addresses (texture is never set)
  // Tensor maps (issue 46): the parameter's offset and the map (GlobalMemory::tensor_maps); the
  // replay encodes a real CUtensorMap there with cuTensorMapEncodeTiled.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> maps;
};

std::uint64_t param_align(const ptx::Symbol& s) {
  return s.align ? s.align : std::uint64_t(std::max(1, ptx::type_bits(s.type) / 8));
}

// The executor's packing (src/exec/prepare.cpp) for the argument kinds a replay supports.
Packed pack(const ptx::Kernel& k, const exec::Launch& l, const exec::GlobalMemory& mem) {
  Packed p;
  if (l.args.size() != k.params.size())
    throw InputError(
        fmt::format("--export-gpu: kernel '{}' takes {} parameters, the launch gives {}", k.name,
                    k.params.size(), l.args.size()));
  std::uint64_t off = 0;
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ptx::Symbol& s = k.symbols[k.params[i]];
    const exec::Arg& a = l.args[i];
    off = (off + param_align(s) - 1) / param_align(s) * param_align(s);
    p.image.resize(off + s.size_bytes(), 0);
    std::uint8_t* dst = p.image.data() + off;
    std::uint64_t v = 0;
    const int bits = ptx::type_bits(s.type);
    switch (a.kind) {
      case exec::Arg::Kind::Buffer:
        p.relocs.push_back({std::uint32_t(off), false, a.buffer, a.i});
        break;
      case exec::Arg::Kind::Int:
        if (s.type == ptx::Type::F32)
          v = std::bit_cast<std::uint32_t>(static_cast<float>(a.i));
        else if (s.type == ptx::Type::F64)
          v = std::bit_cast<std::uint64_t>(static_cast<double>(a.i));
        else
          v = static_cast<std::uint64_t>(a.i);
        std::memcpy(dst, &v, std::min<std::uint64_t>(8, s.size_bytes()));
        break;
      case exec::Arg::Kind::Float:
        if (s.type == ptx::Type::F32)
          v = std::bit_cast<std::uint32_t>(static_cast<float>(a.f));
        else
          v = std::bit_cast<std::uint64_t>(a.f);
        std::memcpy(dst, &v, std::min<std::uint64_t>(8, s.size_bytes()));
        break;
      case exec::Arg::Kind::Bytes:
        std::memcpy(dst, a.bytes.data(), std::min<std::size_t>(a.bytes.size(), s.size_bytes()));
        for (const exec::Arg::Reloc& r : a.relocs) {
          if (r.texture)
            throw InputError(fmt::format(
                "--export-gpu: kernel '{}' parameter {} holds a texture: not replayable yet",
                k.name, i + 1));
          p.relocs.push_back({std::uint32_t(off + r.at), false, r.index, r.offset});
        }
        break;
      case exec::Arg::Kind::TensorMap:
        if (s.size_bytes() < exec::kTensorMapBytes)
          throw InputError(
              fmt::format("--export-gpu: kernel '{}' parameter {} takes a tensor map in {} bytes",
                          k.name, i + 1, s.size_bytes()));
        p.maps.push_back({off, a.buffer});
        break;
      case exec::Arg::Kind::Texture:
        throw InputError(
            fmt::format("--export-gpu: kernel '{}' parameter {} is a texture: not replayable yet",
                        k.name, i + 1));
    }
    (void)bits;
    if (a.kind != exec::Arg::Kind::Bytes && a.kind != exec::Arg::Kind::Buffer && bits > 64)
      throw InputError(
          fmt::format("--export-gpu: kernel '{}' parameter {}: unsupported width", k.name, i + 1));
    for (const exec::Arg::Reloc& r : p.relocs)
      if (r.index >= mem.buffers.size())
        throw InputError(fmt::format("--export-gpu: kernel '{}': no buffer {}", k.name, r.index));
    off += s.size_bytes();
  }
  return p;
}

void write_file(const fs::path& path, const void* data, std::size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char*>(data), std::streamsize(n));
  if (!f) throw InputError(fmt::format("--export-gpu: cannot write {}", path.string()));
}

std::string hex(const std::vector<std::uint8_t>& b) {
  std::string s;
  s.reserve(2 * b.size());
  for (std::uint8_t c : b) s += fmt::format("{:02x}", c);
  return s;
}

}  // namespace

GpuExport::GpuExport(std::string dir, const exec::Workload& w) : dir_(std::move(dir)) {
  if (w.memory.textures.size())
    throw InputError("--export-gpu: launches with textures are not replayable yet");
  if (!w.symbol_inits.empty())
    throw InputError(
        "--export-gpu: launches that initialise module variables ([symbols]) are not replayable "
        "yet");
  std::ifstream ptx(w.module.filename, std::ios::binary);
  if (!ptx)
    throw InputError(fmt::format("--export-gpu: cannot read the PTX {}", w.module.filename));
  std::stringstream text;
  text << ptx.rdbuf();
  const std::string t = text.str();
  if (t.find("tx.begin") != std::string::npos)
    throw InputError(fmt::format(
        "--export-gpu: {} uses smemsim's transaction markers (tx.begin), which no GPU runs; "
        "compile the kernel without -DSMEMSIM_TM for a GPU (docs/tm.md)",
        w.module.filename));
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw InputError(fmt::format("--export-gpu {}: exists and is not a directory", dir_));
  fs::create_directories(dir_, ec);
  if (ec)
    throw InputError(fmt::format("--export-gpu {}: cannot create it ({})", dir_, ec.message()));
  write_file(fs::path(dir_) / "kernel.ptx", t.data(), t.size());

  std::vector<exec::Workload::Step> steps = w.pipeline;
  if (steps.empty()) steps.push_back({w.kernel, w.launch, ""});
  std::string& m = manifest_;
  m = fmt::format("smemsim-replay 1\nname {}\nptx kernel.ptx\ntolerance {}\n", w.name,
                  w.tolerance.empty() ? "exact" : "float");
  // Module variables (__constant__ and __device__) as the run sees them: a builtin may have set
  // one (conv's filter); the rest as the PTX initialises them, or zeros. The replay writes them
  // before every run.
  for (const ptx::Symbol& g : w.module.globals) {
    if (g.space != ptx::Space::Global && g.space != ptx::Space::Const) continue;
    std::vector<std::uint8_t> bytes = g.init;
    bytes.resize(g.size_bytes(), 0);
    if (!bytes.empty()) m += fmt::format("symbol {} {}\n", g.name, hex(bytes));
  }
  for (std::size_t i = 0; i < w.memory.buffers.size(); ++i) {
    const exec::Buffer& b = w.memory.buffers[i];
    write_file(fs::path(dir_) / fmt::format("buf{}.in", i), b.bytes.data(), b.bytes.size());
    m += fmt::format("buffer {} {} {} {}\n", i, b.bytes.size(), exec::elem_name(b.type), b.name);
  }
  // A tensor map: its buffer, the byte offset of its globalAddress, the element type, the rank,
  // then globalDim (rank), globalStrides (rank - 1, bytes), boxDim and elementStrides (rank each),
  // the swizzle's bytes, the L2 promotion (0 none, 1 64B, 2 128B, 3 256B) and the NaN fill (1);
  // an im2col map then has `im2col`, its lower and upper corners (rank - 2 each, W first), its
  // channels per pixel and its pixels per column (its boxes are unused).
  for (std::size_t i = 0; i < w.memory.tensor_maps.size(); ++i) {
    const exec::TensorMap& t = w.memory.tensor_maps[i];
    m += fmt::format("tensormap {} {} {} {} {}", i, t.buffer, t.offset, t.type, int(t.rank));
    for (int d = 0; d < t.rank; ++d) m += fmt::format(" {}", t.dims[std::size_t(d)]);
    for (int d = 1; d < t.rank; ++d) m += fmt::format(" {}", t.strides[std::size_t(d)]);
    for (int d = 0; d < t.rank; ++d) m += fmt::format(" {}", t.box[std::size_t(d)]);
    for (int d = 0; d < t.rank; ++d) m += fmt::format(" {}", t.estrides[std::size_t(d)]);
    m += fmt::format(" {} {} {}", int(t.swizzle), int(t.l2_promotion), t.oob_nan ? 1 : 0);
    if (t.im2col) {
      m += " im2col";
      for (int d = 0; d + 2 < t.rank; ++d) m += fmt::format(" {}", t.lower[std::size_t(d)]);
      for (int d = 0; d + 2 < t.rank; ++d) m += fmt::format(" {}", t.upper[std::size_t(d)]);
      m += fmt::format(" {} {}", t.channels, t.pixels);
    }
    m += '\n';
  }
  for (const exec::Workload::Step& st : steps) {
    const ptx::Kernel& k = exec::find_kernel(w.module, st.kernel);
    const Packed p = pack(k, st.launch, w.memory);
    const exec::Launch& l = st.launch;
    m += fmt::format("launch {} {} {} {} {} {} {} {} {}\n", k.name, l.grid.x, l.grid.y, l.grid.z,
                     l.block.x, l.block.y, l.block.z, l.dynamic_shared_bytes,
                     p.image.empty() ? "-" : hex(p.image));
    for (const exec::Arg::Reloc& r : p.relocs)
      m += fmt::format("reloc {} {} {}\n", r.at, r.index, r.offset);
    for (const auto& [at, map] : p.maps) m += fmt::format("tmap {} {}\n", at, map);
  }
}

void GpuExport::finish(const exec::Workload& w) {
  for (std::size_t i = 0; i < w.memory.buffers.size(); ++i) {
    const exec::Buffer& b = w.memory.buffers[i];
    write_file(fs::path(dir_) / fmt::format("buf{}.out", i), b.bytes.data(), b.bytes.size());
  }
  write_file(fs::path(dir_) / "replay.txt", manifest_.data(), manifest_.size());
}

}  // namespace smemsim::cli
