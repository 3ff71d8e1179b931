// `smemsim launch init`: a commented launch spec skeleton for a kernel (issue 15, docs/exec.md).
// Pointer parameters become buffers whose element type is read from the demangled C++ signature
// (float* -> f32, const int* -> s32, ...); each parameter is commented with its C++ type. Defaults
// come from how the kernel uses its parameters (param_use.hpp, issue 24): a buffer only written is
// zero-filled, an integer compared with a thread index (i < n) or multiplying one (row * n) is a
// size of 1,024 elements (32 x 32 for a 2D kernel, which gets 2D blocks), and the buffers hold
// twice that (room for a stencil's halo: in[i + r] for i < n); each such value says "guessed". The
// block and grid are then chosen by trial runs (launch_init_trial.cpp). The skeleton says what to
// check.
#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "smemsim/exec.hpp"
#include "smemsim/ptx.hpp"
#include "smemsim/workloads.hpp"
#include "workloads/launch_init.hpp"
#include "workloads/param_use.hpp"

namespace smemsim::exec {
namespace {

// The parameter types of a demangled signature "f(float*, int const*, int)", split at the commas
// outside <> and (); empty when `sig` is not a C++ signature.
std::vector<std::string> parameter_types(const std::string& sig) {
  std::vector<std::string> out;
  int angle = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (sig[i] == '<') ++angle;
    if (sig[i] == '>') --angle;
    if (sig[i] == '(' && angle == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos || sig.back() != ')') return out;
  int depth = 0;
  std::string cur;
  for (std::size_t i = open + 1; i + 1 < sig.size(); ++i) {
    const char c = sig[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    if (!(cur.empty() && c == ' ')) cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The spec element type of a C++ type without its '*' and qualifiers; "" when unknown.
std::string elem_of(std::string t) {
  for (const char* q : {"const", "volatile", "__restrict__", "__restrict"})
    for (std::size_t at; (at = t.find(q)) != std::string::npos;) t.erase(at, std::string(q).size());
  std::string s;
  for (char c : t)
    if (c != ' ' || (!s.empty() && s.back() != ' ')) s += c;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  static const std::pair<const char*, const char*> kTypes[] = {{"float", "f32"},
                                                               {"double", "f64"},
                                                               {"int", "s32"},
                                                               {"unsigned int", "u32"},
                                                               {"char", "s8"},
                                                               {"signed char", "s8"},
                                                               {"unsigned char", "u8"},
                                                               {"short", "s16"},
                                                               {"unsigned short", "u16"},
                                                               {"long", "s64"},
                                                               {"unsigned long", "u64"},
                                                               {"long long", "s64"},
                                                               {"unsigned long long", "u64"},
                                                               {"bool", "u8"},
                                                               {"float2", "f32"},
                                                               {"float4", "f32"},
                                                               {"int2", "s32"},
                                                               {"int4", "s32"},
                                                               {"uint2", "u32"},
                                                               {"uint4", "u32"},
                                                               {"uchar4", "u8"},
                                                               {"double2", "f64"},
                                                               {"__half", "f16"},
                                                               {"__half2", "f16"},
                                                               {"__nv_bfloat16", "bf16"},
                                                               {"__nv_bfloat162", "bf16"}};
  for (const auto& [cpp, spec] : kTypes)
    if (s == cpp) return spec;
  return "";
}

// The kernel's parameter names as its CUDA source spells them (issue 47: buffers were p0, p1),
// where -lineinfo names the file and it is found: the parameter list after `__global__ ...
// NAME(`, its last identifier per parameter. Empty unless there is one name per PTX parameter,
// each a distinct identifier.
std::vector<std::string> source_parameter_names(const ptx::Module& m, const ptx::Kernel& k) {
  std::string file;
  for (const ptx::Instruction& ins : k.code)
    if (m.site(ins).loc.file != 0) {
      std::uint32_t line = 0;
      file = cuda_file(m, ins, line);
      if (!file.empty()) break;
    }
  const std::string path = file.empty() ? std::string() : cuda_source_path(m, file);
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  std::string text(std::size_t{16} << 20, '\0');  // a source file's first 16 MiB
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(std::size_t(in.gcount()));
  // The short name: "ns::transpose<32>(float*, int)" -> "transpose".
  std::string name = ptx::demangle(k.name);
  name = name.substr(0, name.find('('));
  if (const auto lt = name.find('<'); lt != std::string::npos) name.resize(lt);
  if (const auto colons = name.rfind("::"); colons != std::string::npos) name.erase(0, colons + 2);
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); !name.empty() && at != std::string::npos;
       at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && ident(text[at - 1])) || end >= text.size() || ident(text[end])) continue;
    const std::size_t before = at > 400 ? at - 400 : 0;
    const std::size_t global = text.rfind("__global__", at);
    if (global == std::string::npos || global < before) continue;
    std::size_t open = end;
    while (open < text.size() && std::isspace(static_cast<unsigned char>(text[open]))) ++open;
    if (open >= text.size() || text[open] != '(') continue;
    std::vector<std::string> names;
    std::string cur;
    int depth = 0;
    std::size_t i = open + 1;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '(' || c == '<' || c == '[') ++depth;
      if ((c == ')' || c == '>' || c == ']') && depth > 0) {
        --depth;
        cur += c;
        continue;
      }
      if ((c == ',' || c == ')') && depth == 0) {
        // The parameter's name: the last identifier before a default value or array bounds.
        std::string p = cur.substr(0, std::min(cur.find('='), cur.find('[')));
        while (!p.empty() && !ident(p.back())) p.pop_back();
        std::size_t b = p.size();
        while (b > 0 && ident(p[b - 1])) --b;
        names.push_back(p.substr(b));
        cur.clear();
        if (c == ')') break;
        continue;
      }
      cur += c;
    }
    if (names.size() == 1 && names[0].empty()) names.clear();  // f() or f(void)
    if (names.size() == 1 && names[0] == "void") names.clear();
    std::set<std::string> seen;
    bool ok = names.size() == k.params.size();
    for (const std::string& n : names)
      ok &= !n.empty() && !std::isdigit(static_cast<unsigned char>(n[0])) && seen.insert(n).second;
    if (ok) return names;
  }
  return {};
}

bool is_float_param(ptx::Type t) {
  return t == ptx::Type::F32 || t == ptx::Type::F64;
}

// How a parameter is used as a texture object (cudaTextureObject_t): the first tex/tld4 whose
// texture operand was loaded from it (`ld.param.u64 %rd1, [param]; ... tex.2d ... [%rd1, ...]`),
// or none.
struct TextureUse {
  ptx::TexGeom geom = ptx::TexGeom::None;
  bool float_result = true;
};

std::vector<TextureUse> texture_params(const ptx::Kernel& k) {
  std::vector<TextureUse> out(k.params.size());
  for (const ptx::Instruction& t : k.code) {
    if (t.op != ptx::Opcode::Tex && t.op != ptx::Opcode::Tld4) continue;
    const std::uint32_t handle = t.ops[1].reg;
    for (const ptx::Instruction& ld : k.code) {
      if (ld.op != ptx::Opcode::Ld || ld.space != ptx::Space::Param || ld.ops[0].reg != handle)
        continue;
      for (std::size_t p = 0; p < k.params.size(); ++p)
        if (ld.ops[1].sym == k.params[p] && out[p].geom == ptx::TexGeom::None)
          out[p] = {t.geom, t.type == ptx::Type::F32};
    }
  }
  return out;
}

// [buffers.NAME_texels] and [textures.NAME] for a texture parameter, sized for its geometry.
std::string texture_skeleton(
    const std::string& name, std::size_t index, const TextureUse& u, const std::string& cpp_type,
    const std::function<std::string(const std::string&, const std::string&)>& line) {
  const bool layered = u.geom == ptx::TexGeom::A1d || u.geom == ptx::TexGeom::A2d;
  const int dims = u.geom == ptx::TexGeom::D3                                  ? 3
                   : u.geom == ptx::TexGeom::D2 || u.geom == ptx::TexGeom::A2d ? 2
                                                                               : 1;
  const std::uint32_t side = dims == 1 ? 1024 : dims == 2 ? 64 : 16;
  std::uint64_t count = 1;
  std::string size;
  for (int d = 0; d < dims; ++d) {
    count *= side;
    size += fmt::format("{}{}", d ? ", " : "", side);
  }
  if (layered) count *= 4;
  static constexpr const char* kGeom[] = {"", "1d", "2d", "3d", "a1d", "a2d"};
  std::string s = "\n";
  s += line(fmt::format("[buffers.{}_texels]", name),
            fmt::format("the texels of texture {}, x fastest", name));
  s += line(fmt::format("type = \"{}\"", u.float_result ? "f32" : "s32"),
            "u8 s8 u16 s16 u32 s32 f32");
  s += line(fmt::format("count = {}", count), "texels x channels (x layers)");
  s += line("init = \"random\"", "");
  s += '\n';
  s += line(fmt::format("[textures.{}]", name),
            fmt::format("parameter {}: {} used as a texture object (tex.{})", index + 1, cpp_type,
                        kGeom[std::size_t(u.geom)]));
  s += line(fmt::format("buffer = \"{}_texels\"", name), "");
  s += line(fmt::format("size = [{}]", size), "texels: [width], [width, height] or [w, h, depth]");
  if (layered) s += line("layers = 4", "a layered texture: the number of layers");
  s += line("channels = 1", "elements per texel: 1, 2 or 4 (float4, uchar4: 4)");
  s += line("filter = \"point\"", "point | linear (float results only)");
  s += line("address = \"clamp\"", "clamp | border | wrap | mirror (the last two: normalized)");
  s += line("normalized = false", "true: coordinates in [0, 1)");
  s += line("read = \"element\"", "element | normalized (8/16-bit integers read as floats)");
  return s;
}

}  // namespace

PointeeType pointer_parameter_type(const std::string& kernel_name, std::size_t index) {
  const std::vector<std::string> types = parameter_types(ptx::demangle(kernel_name));
  if (index >= types.size()) return {};
  const std::string& t = types[index];
  const std::size_t star = t.rfind('*');
  if (star == std::string::npos || t.find('*') != star) return {};  // no pointer, or to a pointer
  const std::string spec = elem_of(t.substr(0, star));
  return spec.empty() ? PointeeType{} : PointeeType{spec, t};
}

std::string skeleton_text(const ptx::Module& m, const ptx::Kernel& k, const std::string& ptx_path,
                          const std::string& spec_path, const LaunchShape* shape) {
  // "code   # comment", comments in one column.
  const auto line = [](const std::string& code, const std::string& comment) {
    return comment.empty() ? code + "\n" : fmt::format("{:<32}# {}\n", code, comment);
  };
  const std::string sig = ptx::demangle(k.name);
  const std::vector<std::string> cpp = parameter_types(sig);
  const bool typed = cpp.size() == k.params.size();
  // Sensible defaults from how the kernel uses its parameters (param_use.hpp): 1,024-element
  // buffers, covered by the grid; a 2D kernel (%tid.y, %ctaid.y) as 32 x 32 in 16 x 16 blocks.
  const KernelUse use = param_uses(k);
  const std::uint64_t count = 1024, room = 2 * count;
  const std::uint32_t side = use.two_dimensional ? 32 : 0;
  std::string out = fmt::format(
      "# Launch spec for kernel {}\n"
      "# of {}, written by `smemsim launch init` (docs/exec.md, \"Launch spec\").\n"
      "# Values marked \"guessed\" were read from how the kernel uses its parameters: check\n"
      "# grid and block first (a kernel written for 32 x 8 threads runs past its data on a\n"
      "# guessed 16 x 16 block), then the sizes (count, the scalars), the inputs (init) and\n"
      "# what to keep (write), then:\n"
      "#   smemsim profile {} --launch {}\n",
      sig, ptx_path, ptx_path, spec_path);
  out += line(fmt::format("kernel = \"{}\"", k.name), sig == k.name ? "" : sig);
  std::uint64_t threads = 256;
  std::string block = "block = [256]",
              block_note = "guessed: threads per block, [x] or [x, y, z]: check it";
  if (k.reqntid[0]) {
    block = fmt::format("block = [{}, {}, {}]", k.reqntid[0], std::max(1u, k.reqntid[1]),
                        std::max(1u, k.reqntid[2]));
    block_note = "the kernel's .reqntid/.maxntid";
    threads = std::uint64_t{k.reqntid[0]} * std::max(1u, k.reqntid[1]) * std::max(1u, k.reqntid[2]);
  } else if (use.two_dimensional) {
    block = "block = [16, 16]";
    block_note = "guessed: the kernel reads %tid.y or %ctaid.y (2D): check it";
  }
  // A kernel with clusters (issue 46) takes a whole number of them: the guess is rounded up.
  const std::uint64_t cx = std::max(1u, k.cluster[0]), cy = std::max(1u, k.cluster[1]),
                      cz = std::max(1u, k.cluster[2]);
  const auto up = [](std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; };
  const std::string clusters =
      cx * cy * cz > 1
          ? fmt::format("; a whole number of the kernel's {} x {} x {} clusters", cx, cy, cz)
          : "";
  if (shape) {  // chosen by trial runs (launch_init_trial.cpp)
    block = shape->block;
    block_note = shape->block_note;
    out += line(shape->grid, shape->grid_note + clusters);
  } else if ((use.two_dimensional && !k.reqntid[0]) || cy > 1 || cz > 1)
    out += line(cz > 1 ? fmt::format("grid = [{}, {}, {}]", up(2, cx), up(2, cy), cz)
                       : fmt::format("grid = [{}, {}]", up(2, cx), up(2, cy)),
                "guessed: 32 x 32 threads, one per element of 1,024" + clusters);
  else
    out += line(fmt::format("grid = [{}]",
                            up(std::max<std::uint64_t>(1, (count + threads - 1) / threads), cx)),
                "guessed: a thread per element of 1,024 (blocks: [x] or [x, y, z])" + clusters);
  out += line(block, block_note);
  bool dynamic = false;
  for (const ptx::Symbol& s : k.symbols)
    dynamic |= s.kind == ptx::SymbolKind::Variable && s.space == ptx::Space::Shared && s.is_extern;
  if (dynamic) out += line("dynamic_shared = 4096", "bytes of extern __shared__ memory per block");
  std::string args, buffers;
  const std::vector<TextureUse> textures = texture_params(k);
  const std::vector<std::string> source_names = source_parameter_names(m, k);
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    const ptx::Symbol& p = k.symbols[k.params[i]];
    const std::string cpp_type = typed ? cpp[i] : std::string(ptx::type_name(p.type));
    const ParamUse& u = use.params[i];
    std::string value, note = cpp_type;
    if (p.elements != 1 && p.size_bytes() == 128 && typed &&
        cpp_type.find("CUtensorMap") != std::string::npos) {
      // A tensor map (issue 46): a [tensor_maps] entry over a buffer of its own.
      const std::string name = source_names.empty() ? fmt::format("map{}", i) : source_names[i];
      value = fmt::format("\"{}\"", name);
      note += ": a tensor map, [tensor_maps." + name + "]";
      buffers += '\n';
      buffers += line(fmt::format("[buffers.{}_data]", name),
                      fmt::format("the tensor behind tensor map {}", name));
      buffers += line("type = \"f32\"", "guessed: the tensor's element type");
      // A kernel whose tensor copies use the im2col mode: an im2col map of that copy's rank.
      int im2col_rank = 0;
      for (const ptx::Instruction& ins : k.code)
        if (ins.op == ptx::Opcode::CpBulk && ins.has(ptx::kIm2col) && !im2col_rank)
          im2col_rank = ins.vec;
      static const char* kDims[] = {"[64, 64]",        "", "", "[64, 16, 2]", "[64, 16, 16, 2]",
                                    "[64, 8, 8, 8, 2]"};
      static const char* kCounts[] = {"4096", "", "", "2048", "32768", "65536"};
      buffers += line(fmt::format("count = {}", kCounts[im2col_rank]),
                      fmt::format("elements: {}", kDims[im2col_rank]));
      buffers += line("init = \"random\"", "zeros | iota | fill | random | values | file");
      buffers += '\n';
      if (im2col_rank) {
        static const char* kCorners[] = {"", "", "", "[-1]", "[-1, -1]", "[-1, -1, -1]"};
        buffers += line(fmt::format("[tensor_maps.{}]", name),
                        fmt::format("parameter {}: cuTensorMapEncodeIm2col's arguments (the "
                                    "kernel's copies use .im2col)",
                                    i + 1));
        buffers += line(fmt::format("buffer = \"{}_data\"", name), "");
        buffers += line(fmt::format("dims = {}", kDims[im2col_rank]),
                        "guessed: C, W, (H, (D,)) N: the sizes, innermost first");
        buffers += line("mode = \"im2col\"", "");
        buffers += line(fmt::format("pixel_box_lower_corner = {}", kCorners[im2col_rank]),
                        "guessed: W first; -padding for a convolution");
        buffers += line(fmt::format("pixel_box_upper_corner = {}", kCorners[im2col_rank]),
                        "guessed: padding - (filter - 1) x dilation");
        buffers += line("channels_per_pixel = 64", "guessed: the channels one pixel's row holds");
        buffers += line("pixels_per_column = 64", "guessed: the pixels (rows) one copy moves");
      } else {
        buffers += line(fmt::format("[tensor_maps.{}]", name),
                        fmt::format("parameter {}: cuTensorMapEncodeTiled's arguments", i + 1));
        buffers += line(fmt::format("buffer = \"{}_data\"", name), "");
        buffers += line("dims = [64, 64]", "guessed: the tensor's sizes, innermost first");
        buffers += line("box = [32, 8]", "guessed: the elements one copy moves per dimension");
      }
      buffers += line("swizzle = \"none\"", "none | 32B | 64B | 128B (the shared layout)");
    } else if (p.elements != 1) {
      // A struct or array by value: its bytes, zero; the note says how to give its members.
      const std::uint64_t size = p.size_bytes();
      const std::uint64_t align = p.align ? p.align : std::uint64_t(ptx::type_bytes(p.type));
      value = "{ bytes = [";
      for (std::uint64_t b = 0; b < size; ++b) value += b ? ", 0" : "0";
      value += "] }";
      note += fmt::format(
          ": a struct or array of {} bytes aligned to {}, passed by value; zeros here: give its "
          "members in order, {{ fields = [{{ type = \"s32\", value = 4 }}, {{ buffer = \"d\" }}, "
          "...] }}, or its bytes",
          size, align);
    } else if (textures[i].geom != ptx::TexGeom::None) {
      const std::string name = source_names.empty() ? fmt::format("tex{}", i) : source_names[i];
      value = fmt::format("\"{}\"", name);
      note += ": a texture object, [textures." + name + "]";
      buffers += texture_skeleton(name, i, textures[i], cpp_type, line);
    } else if (typed ? cpp_type.find('*') != std::string::npos
                     : ptx::type_bits(p.type) == 64 && !is_float_param(p.type)) {
      // Named as the CUDA source names the parameter where it was found, else p0, p1, ...
      const std::string name = source_names.empty() ? fmt::format("p{}", i) : source_names[i];
      std::string elem = typed ? elem_of(cpp_type.substr(0, cpp_type.rfind('*'))) : "";
      const bool known = !elem.empty();
      if (!known) elem = "u32";
      // Written and never read: an output, zero-filled (an accumulating histogram must start at
      // 0); read: an input, random.
      const bool output = u.stored && !u.loaded;
      value = fmt::format("\"{}\"", name);
      note += output     ? ": written by the kernel (output)"
              : u.stored ? ": read and written by the kernel"
              : u.loaded ? ": read by the kernel (input)"
                         : "";
      buffers += '\n';
      buffers +=
          line(fmt::format("[buffers.{}]", name), fmt::format("parameter {}: {}", i + 1, cpp_type));
      buffers += line(fmt::format("type = \"{}\"", elem),
                      known ? "" : "the pointee type could not be read: set it");
      buffers += line(fmt::format("count = {}", room),
                      "elements: guessed, twice the size (room for a stencil's halo)");
      buffers += line(output ? "init = \"zeros\"" : "init = \"random\"",
                      output ? "guessed: an output (zeros | iota | fill | random | values | file)"
                             : "zeros | iota | fill | random | values | file");
      buffers += line(fmt::format("# write = \"{}.txt\"", name), "write the buffer after the run");
    } else if (is_float_param(p.type)) {
      value = "1.0";
      note += ": guessed";
    } else if (u.bound || u.stride) {
      // A size: compared with an index (i < n) or a row length (row * n + col).
      value = fmt::format("{}", side ? side : count);
      note += fmt::format(": guessed, a size: {} a thread index{}",
                          u.bound ? "compared with" : "multiplies",
                          side ? " (2D: 32 x 32 = 1,024 elements)" : " (1,024 elements)");
    } else {
      value = "0";
    }
    args += line(fmt::format("  {},", value), fmt::format("{}: {}", i + 1, note));
  }
  out += "# one entry per parameter: a buffer or texture name, a number, or a struct's fields\n";
  out += args.empty() ? "args = []\n" : "args = [\n" + args + "]\n";
  out += buffers;
  for (const ptx::Symbol& s : k.symbols) {
    if (!s.module_level || (s.space != ptx::Space::Const && s.space != ptx::Space::Global))
      continue;
    const std::string name = ptx::demangle(s.name);
    out += '\n';
    out += line(
        fmt::format("# [symbols.{}]", name),
        fmt::format(
            "the kernel reads {} {} ({} bytes){}",
            s.space == ptx::Space::Const ? "__constant__" : "__device__", name, s.size_bytes(),
            s.init.empty() ? ": set it as cudaMemcpyToSymbol would" : ", initialized in the PTX"));
    const bool bytes = s.type == ptx::Type::B8 || s.type == ptx::Type::U8;
    out += line(fmt::format("# type = \"{}\"", bytes ? "u32" : ptx::type_name(s.type)),
                bytes ? "the PTX declares bytes: set the element type" : "");
    out += line("# init = \"fill\"", "or \"values\" with values = [...]");
    out += line("# value = 0", "");
  }
  return out;
}

}  // namespace smemsim::exec
