// Small value types of the executor: Dim3, element types, global memory, source locations.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "smemsim/error.hpp"
#include "smemsim/exec.hpp"
#include "smemsim/workloads.hpp"
#include "util/escape.hpp"

namespace smemsim::exec {

void ExecStats::add(const ExecStats& o) {
  warp_instructions += o.warp_instructions;
  thread_instructions += o.thread_instructions;
  shared_accesses += o.shared_accesses;
  ctas += o.ctas;
  tm.add(o.tm);
  for (const auto& [pc, t] : o.tm_sites) {
    auto at = std::lower_bound(tm_sites.begin(), tm_sites.end(), pc,
                               [](const auto& site, std::uint32_t p) { return site.first < p; });
    if (at == tm_sites.end() || at->first != pc) at = tm_sites.insert(at, {pc, {}});
    at->second.add(t);
  }
  for (const TmaReads& r : o.tma_reads) {
    auto at = std::lower_bound(tma_reads.begin(), tma_reads.end(), r.ptx_line,
                               [](const TmaReads& x, std::uint32_t l) { return x.ptx_line < l; });
    if (at == tma_reads.end() || at->ptx_line != r.ptx_line) {
      tma_reads.insert(at, r);
      continue;
    }
    at->accesses += r.accesses;
    for (std::size_t m = 0; m < 4; ++m) {
      at->passes[m] += r.passes[m];
      at->possible[m] = at->possible[m] && r.possible[m];
    }
  }
}

Dim3 parse_dim3(const std::string& text, const std::string& what) {
  std::uint32_t v[3] = {1, 1, 1};
  std::size_t pos = 0;
  int n = 0;
  while (true) {
    if (n == 3) throw InputError(fmt::format("{}: '{}' has more than 3 dimensions", what, text));
    const std::size_t comma = text.find(',', pos);
    const std::string part = text.substr(pos, comma == std::string::npos ? comma : comma - pos);
    std::uint64_t x = 0;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() || x == 0 ||
        x > 0xffffffffull)
      throw InputError(fmt::format("{}: '{}' is not X[,Y[,Z]] with positive integers", what, text));
    v[n++] = static_cast<std::uint32_t>(x);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return {v[0], v[1], v[2]};
}

std::string to_string(const Dim3& d) {
  return fmt::format("{},{},{}", d.x, d.y, d.z);
}

namespace {
struct ElemInfo {
  std::string_view name;
  int bytes;
  bool is_float, is_signed;
};
constexpr ElemInfo kElems[] = {
    {"u8", 1, false, false},  {"s8", 1, false, true},   {"u16", 2, false, false},
    {"s16", 2, false, true},  {"u32", 4, false, false}, {"s32", 4, false, true},
    {"u64", 8, false, false}, {"s64", 8, false, true},  {"f32", 4, true, true},
    {"f64", 8, true, true},   {"f16", 2, true, true},   {"bf16", 2, true, true}};
const ElemInfo& info(ElemType t) {
  return kElems[static_cast<int>(t)];
}
}  // namespace

int elem_bytes(ElemType t) {
  return info(t).bytes;
}
bool elem_is_float(ElemType t) {
  return info(t).is_float;
}
bool elem_is_signed(ElemType t) {
  return info(t).is_signed;
}
std::string_view elem_name(ElemType t) {
  return info(t).name;
}

ElemType parse_elem_type(std::string_view name, const std::string& where) {
  for (std::size_t i = 0; i < std::size(kElems); ++i)
    if (kElems[i].name == name) return static_cast<ElemType>(i);
  // Common C spellings.
  if (name == "int") return ElemType::S32;
  if (name == "uint") return ElemType::U32;
  if (name == "float") return ElemType::F32;
  if (name == "double") return ElemType::F64;
  if (name == "half") return ElemType::F16;
  throw InputError(
      fmt::format("{}: unknown element type '{}' (u8 s8 u16 s16 u32 s32 u64 s64 f32 f64 f16 bf16)",
                  where, name));
}

std::uint32_t GlobalMemory::add(Buffer b) {
  buffers.push_back(std::move(b));
  return static_cast<std::uint32_t>(buffers.size() - 1);
}

const Buffer* GlobalMemory::find(const std::string& name) const {
  for (const Buffer& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

Buffer& GlobalMemory::get(const std::string& name) {
  for (Buffer& b : buffers)
    if (b.name == name) return b;
  throw InputError(fmt::format("no buffer named '{}'", name));
}

std::string cuda_location(const ptx::Module& module, const ptx::Instruction& ins) {
  return cuda_location(module, module.site(ins));
}

std::string cuda_location(const ptx::Module& module, const ptx::SourceSite& ins) {
  auto base = [](const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  std::uint32_t line = 0;
  const std::string file = cuda_file(module, ins, line);
  if (file.empty()) return {};
  return fmt::format("{}:{}", base(file), line);
}

std::string cuda_file(const ptx::Module& module, const ptx::Instruction& ins, std::uint32_t& line) {
  return cuda_file(module, module.site(ins), line);
}

std::string cuda_file(const ptx::Module& module, const ptx::SourceSite& ins, std::uint32_t& line) {
  if (ins.loc.file == 0 || ins.loc.line == 0) return {};
  std::string file = module.file_name(ins.loc.file);
  line = ins.loc.line;
  if (ptx::is_header_path(file) && ins.inlined_at.file != 0) {
    file = module.file_name(ins.inlined_at.file);
    line = ins.inlined_at.line;
  }
  return file;
}

std::string cuda_source_path(const ptx::Module& module, const std::string& file) {
  std::filesystem::path path(file);
  if (path.is_relative() && !std::filesystem::exists(path))
    path = std::filesystem::path(module.filename).parent_path() / path;
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path.string() : std::string();
}

std::string cuda_source_text(const ptx::Module& module, const ptx::Instruction& ins) {
  return cuda_source_text(module, module.site(ins));
}

std::string cuda_source_text(const ptx::Module& module, const ptx::SourceSite& ins) {
  std::uint32_t line = 0;
  const std::string file = cuda_file(module, ins, line);
  if (file.empty()) return {};
  const std::string path = cuda_source_path(module, file);
  if (path.empty()) return {};
  std::ifstream in(path);
  std::string text;
  for (std::uint32_t n = 1; n <= line && std::getline(in, text); ++n) {
  }
  if (!in) return {};
  const std::size_t b = text.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : source_display(std::string_view(text).substr(b));
}

std::string source_display(std::string_view line) {
  constexpr std::size_t kMost = 500;
  std::size_t stop = std::min(line.size(), kMost);
  while (stop < line.size() && stop > 0 && (static_cast<unsigned char>(line[stop]) & 0xc0) == 0x80)
    --stop;  // not inside a UTF-8 character
  std::string out;
  for (std::size_t i = 0; i < stop; ++i) append_escaped(out, line[i], false);
  if (stop < line.size()) out += fmt::format("...({} more bytes)", line.size() - stop);
  return out;
}

std::string cuda_call_site(const ptx::Module& module, const ptx::Instruction& ins,
                           std::string* text) {
  const ptx::SourceSite& site = module.site(ins);
  if (site.call_site.file == 0) return {};
  const ptx::SourceSite at{site.call_site, {}, {}};
  if (text) *text = cuda_source_text(module, at);
  return cuda_location(module, at);
}

}  // namespace smemsim::exec

namespace smemsim::exec {

std::string target_warning(const ptx::Module& m, const Arch& arch) {
  if (!m.target.starts_with("sm_") || arch.compute_capability == 0) return {};
  unsigned target = 0;
  for (std::size_t i = 3;
       i < m.target.size() && std::isdigit(static_cast<unsigned char>(m.target[i])); ++i)
    target = target * 10 + unsigned(m.target[i] - '0');
  if (target <= arch.compute_capability) return {};
  std::string suggest;
  for (const Arch& p : arch_presets())
    if (p.compute_capability && p.compute_capability <= target &&
        (suggest.empty() || p.compute_capability >= find_preset(suggest).compute_capability))
      suggest = p.name;
  return fmt::format(
      "smemsim: warning: {} targets {}, newer than arch '{}' (sm_{}): banks, shared-memory "
      "size and atomics are those of the older GPU; choose --arch {}",
      m.filename, m.target, arch.name, arch.compute_capability, suggest);
}

}  // namespace smemsim::exec
