// smemsim's Python module, the compiled part (issue 30 item 2; docs/python.md): arch presets and
// keys, the conflicts and latency of warp accesses given as NumPy arrays, and the bank-hash search
// on them. The pure-Python part
// (python/smemsim/__init__.py) builds on it: layouts, studies as DataFrames. Errors in input raise
// smemsim.Error (a ValueError) with the CLI's one-line message; long loops release the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smemsim/arch.hpp"
#include "smemsim/emit.hpp"
#include "smemsim/error.hpp"
#include "smemsim/evaluate.hpp"
#include "smemsim/hash_search.hpp"
#include "smemsim/interrupt.hpp"
#include "smemsim/json.hpp"
#include "smemsim/warp_access.hpp"
#include "smemsim/workloads.hpp"

#include "embed.hpp"

namespace py = pybind11;
using namespace smemsim;

namespace {

// Ctrl-C during a run (issue 48: it was ignored until the run ended). Python's C-level handler only
// sets a flag; PyErr_CheckSignals, with the GIL, runs the Python handler (KeyboardInterrupt by
// default). The simulators call this at their safe points; it acts on the interpreter's main
// thread only (the only one Python delivers signals to) and leaves the exception set for
// command() to raise once the run has unwound.
unsigned long g_main_thread = 0;  // threading.main_thread().ident
void check_python_signals() {
  if (PyThread_get_thread_ident() != g_main_thread) return;
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw Interrupted();
}

// An arch from a preset name or another Arch, with `key=value` overrides (keys as in the TOML).
Arch make_arch(const std::string& name, const py::dict& overrides) {
  Arch a = find_preset(name);
  const Arch base = a;
  for (const auto& [k, v] : overrides) {
    std::string value = py::str(v);
    if (py::isinstance<py::bool_>(v)) value = v.cast<bool>() ? "true" : "false";
    try {
      apply_override(a, fmt::format("{}={}", py::str(k).cast<std::string>(), value));
    } catch (const InputError& e) {  // the CLI's message names its flag: "--set KEY: ..."
      std::string msg = e.what();
      if (msg.starts_with("--set: "))
        msg = "arch: " + msg.substr(7);
      else if (msg.starts_with("--set "))
        msg = "arch key " + msg.substr(6);
      throw InputError(msg);
    }
  }
  validate(a);
  mark_derived(a, base);
  return a;
}

py::dict arch_dict(const Arch& a) {
  py::dict d;
  visit_arch(a, [&](std::string_view key, const ArchValue& v) {
    const py::str k{std::string(key)};
    if (const auto* i = std::get_if<std::int64_t>(&v))
      d[k] = *i;
    else if (const auto* b = std::get_if<bool>(&v))
      d[k] = *b;
    else
      d[k] = std::get<std::string>(v);
  });
  return d;
}

// The rows of `addr` (n x lanes word addresses, negative: inactive) as warp accesses, to `f`;
// an address outside the arch's memory is an error naming the row and lane.
template <typename F>
// `shift`: 0 for word addresses, 2 for byte addresses (the word is the byte address / 4, read here
// rather than in a NumPy copy of the whole array: issue 48, a 768 MB array peaked at 2.4 GB).
void each_access(const Arch& arch, const py::array_t<std::int64_t, py::array::c_style>& addr, Op op,
                 F&& f, int shift = 0) {
  if (addr.ndim() != 2)
    throw InputError(
        fmt::format("addresses must be a 2-D array (accesses x lanes), not {}-D", addr.ndim()));
  const auto n = static_cast<std::size_t>(addr.shape(0));
  const auto lanes = static_cast<std::size_t>(addr.shape(1));
  if (lanes == 0 || lanes > arch.warp_size)
    throw InputError(fmt::format("addresses have {} lanes per access; {} takes 1 to {}", lanes,
                                 arch.name, arch.warp_size));
  const std::int64_t* a = addr.data();
  const std::uint64_t words = arch.memory_words();
  WarpAccess wa;
  wa.op = op;
  wa.lanes = static_cast<std::uint8_t>(lanes);
  for (std::size_t i = 0; i < n; ++i) {
    wa.active = 0;
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::int64_t v = a[i * lanes + l];
      if (v < 0) continue;
      if (std::uint64_t(v >> shift) >= words)
        throw InputError(
            fmt::format("access {}, lane {}: {} {} is outside {}'s {} words of shared memory", i, l,
                        shift ? "byte" : "word", v, arch.name, words));
      wa.set(int(l), WordAddr(v >> shift));
    }
    f(i, wa);
  }
}

// The bank hash with the fewest conflicts for these accesses (smemsim hash search, issue 3): its
// spec (usable as memory.bank_hash), the conflicts before and after, and its CUDA and CuTe text.
py::dict hash_search(const Arch& arch, py::array_t<std::int64_t, py::array::c_style> addr,
                     const std::string& family, const std::string& heuristic) {
  std::string text;  // the CLI's JSON of the result (json::to_json, the one writer of its fields)
  {
    py::gil_scoped_release release;
    ReferenceSets sets(arch, HashTarget::Bank, target_geometry(arch, HashTarget::Bank));
    each_access(arch, addr, Op::Load, [&](std::size_t, const WarpAccess& wa) { sets.add(wa); });
    // Emitting needs a software hash that loses no data: bijective candidates only.
    const SearchResult r = search_hash(sets, SearchOptions{family, heuristic, true});
    const Emission cuda = emit_cuda(r.matrix, r.spec), cute = emit_cute(r.matrix, r.spec);
    nlohmann::json j = json::to_json(r, sets);
    j["cuda"] = cuda.ok ? nlohmann::json(cuda.code) : nlohmann::json(nullptr);
    j["cute"] = cute.ok ? nlohmann::json(cute.code) : nlohmann::json(nullptr);
    j["cute_reason"] = cute.ok ? std::string() : cute.reason;
    text = j.dump();
  }
  return py::module_::import("json").attr("loads")(text).cast<py::dict>();
}

// The degrees and latency of each row of `addr` (n x lanes word addresses; a negative entry is an
// inactive lane), as AccessEvaluator gives them (smemsim analyze's numbers).
py::dict conflicts(const Arch& arch, py::array_t<std::int64_t, py::array::c_style> addr,
                   const std::string& op_name, bool per_lane, const std::string& unit) {
  if (unit != "word" && unit != "byte")
    throw InputError(fmt::format("unit '{}' is not byte or word", unit));
  const std::optional<Op> op = parse_op(op_name);
  if (!op) throw InputError(fmt::format("op '{}' is not ld, st or atom", op_name));
  const auto n = addr.ndim() == 2 ? static_cast<py::ssize_t>(addr.shape(0)) : 0;
  py::array_t<std::int32_t> bank(n), position(n), lock(n), transactions(n);
  py::array_t<std::int64_t> bank_conflicts(n), latency(n);
  auto* pb = bank.mutable_data();
  auto* pp = position.mutable_data();
  auto* pl = lock.mutable_data();
  auto* pt = transactions.mutable_data();
  auto* pc = bank_conflicts.mutable_data();
  auto* pd = latency.mutable_data();
  // Per lane: the degree of the bank the lane falls in, within its transaction (0: inactive).
  const auto lanes = addr.ndim() == 2 ? static_cast<py::ssize_t>(addr.shape(1)) : 0;
  py::array_t<std::int32_t> lane_degree(per_lane ? std::vector<py::ssize_t>{n, lanes}
                                                 : std::vector<py::ssize_t>{0, 0});
  std::int32_t* pld = lane_degree.mutable_data();
  if (per_lane) std::fill(pld, pld + n * lanes, 0);
  {
    py::gil_scoped_release release;
    AccessEvaluator ev(arch);
    ConflictAnalyzer lane_an(arch);
    const int step = int(std::max<std::uint32_t>(1, arch.transaction_lanes));
    each_access(
        arch, addr, *op,
        [&](std::size_t i, const WarpAccess& wa) {
          if (per_lane)
            for (int first = 0; first < int(lanes); first += step) {
              const int count = std::min(step, int(lanes) - first);
              lane_an.load(wa, first, count);
              for (std::uint32_t b = 0; b < arch.banks; ++b) {
                const LaneMask m = lane_an.bank_lanes(b);
                if (!m) continue;
                const int d = lane_an.bank_degree(m);
                for (int l = 0; l < count; ++l)
                  if ((m >> l) & 1) pld[i * std::size_t(lanes) + std::size_t(first + l)] = d;
              }
            }
          const AccessResult r = ev.evaluate(wa);
          pb[i] = r.degrees.bank;
          pp[i] = r.degrees.position;
          pl[i] = r.degrees.lock;
          pt[i] = r.transactions;
          pc[i] = r.bank_conflicts;
          pd[i] = r.latency;
        },
        unit == "byte" ? 2 : 0);
  }
  py::dict out;
  out["bank_degree"] = bank;
  out["position_degree"] = position;
  out["lock_degree"] = lock;
  out["transactions"] = transactions;
  out["bank_conflicts"] = bank_conflicts;
  out["latency"] = latency;
  if (per_lane) out["lane_bank_degree"] = lane_degree;
  return out;
}

// The element type a NumPy dtype holds ('u', 2 -> u16); none for any other dtype.
std::optional<exec::ElemType> elem_of(char kind, py::ssize_t size) {
  using exec::ElemType;
  if (kind == 'u' || kind == 'i') {
    const bool s = kind == 'i';
    switch (size) {
      case 1:
        return s ? ElemType::S8 : ElemType::U8;
      case 2:
        return s ? ElemType::S16 : ElemType::U16;
      case 4:
        return s ? ElemType::S32 : ElemType::U32;
      case 8:
        return s ? ElemType::S64 : ElemType::U64;
      default:
        return std::nullopt;
    }
  }
  if (kind == 'f') {
    if (size == 2) return ElemType::F16;
    if (size == 4) return ElemType::F32;
    if (size == 8) return ElemType::F64;
  }
  return std::nullopt;
}

// The NumPy dtype of a buffer's elements; bf16, which NumPy lacks, as its bits (uint16).
py::dtype dtype_of(exec::ElemType t) {
  using exec::ElemType;
  switch (t) {
    case ElemType::U8:
      return py::dtype("uint8");
    case ElemType::S8:
      return py::dtype("int8");
    case ElemType::U16:
      return py::dtype("uint16");
    case ElemType::S16:
      return py::dtype("int16");
    case ElemType::U32:
      return py::dtype("uint32");
    case ElemType::S32:
      return py::dtype("int32");
    case ElemType::U64:
      return py::dtype("uint64");
    case ElemType::S64:
      return py::dtype("int64");
    case ElemType::F32:
      return py::dtype("float32");
    case ElemType::F64:
      return py::dtype("float64");
    case ElemType::F16:
      return py::dtype("float16");
    case ElemType::BF16:
      return py::dtype("uint16");
  }
  return py::dtype("uint8");
}

// An array given for a buffer: its bytes (copied with the GIL held) and element type.
// An array given for a buffer: held, not copied (issue 48: a 1 GiB array peaked at 4 GB); its
// bytes go straight into the buffer. `inferred`: its buffer's type came from the array's dtype
// (a dict spec that declares none), so it is checked against the kernel's C++ signature.
struct ArrayIn {
  std::string name;
  std::optional<exec::ElemType> type;
  std::string dtype;
  std::uint64_t elements = 0;
  py::array array;
  const std::uint8_t* data = nullptr;
  std::size_t nbytes = 0;
  bool inferred = false;
};

ArrayIn array_in(const std::string& name, const py::handle& value) {
  py::array a = py::module_::import("numpy").attr("ascontiguousarray")(value);
  const py::dtype dt = a.dtype();
  ArrayIn in{name, elem_of(dt.kind(), dt.itemsize()), std::string(py::str(py::handle(dt))),
             std::uint64_t(a.size()), a};
  if (dt.byteorder() == '>')
    throw InputError(fmt::format("buffers['{}']: a big-endian array ({}); give it as {}", name,
                                 in.dtype, in.dtype.substr(1)));
  if (!in.type)
    throw InputError(fmt::format(
        "buffers['{}']: dtype {} is no buffer type (integers of 8 to 64 bits, float16, float32, "
        "float64)",
        name, in.dtype));
  in.data = static_cast<const std::uint8_t*>(a.data());
  in.nbytes = std::size_t(a.nbytes());
  return in;
}

// NumPy's name of a spec type.
const char* numpy_name(const std::string& spec) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"u8", "uint8"},    {"s8", "int8"},     {"u16", "uint16"},  {"s16", "int16"},
      {"u32", "uint32"},  {"s32", "int32"},   {"u64", "uint64"},  {"s64", "int64"},
      {"f16", "float16"}, {"bf16", "uint16"}, {"f32", "float32"}, {"f64", "float64"}};
  for (const auto& [s, n] : kNames)
    if (spec == s) return n;
  return "?";
}

// An array whose dtype made its buffer's type, passed to a pointer parameter of another element
// type (issue 48: NumPy's default float64 into a `float*` ran on the doubles' bytes and returned
// garbage): an error naming the parameter and the conversion.
void check_pointee(const ArrayIn& a, const exec::Buffer& b, const exec::Workload& w) {
  for (std::size_t i = 0; i < w.launch.args.size(); ++i) {
    const exec::Arg& arg = w.launch.args[i];
    if (arg.kind != exec::Arg::Kind::Buffer || &w.memory.buffers[arg.buffer] != &b) continue;
    const exec::PointeeType want = exec::pointer_parameter_type(w.kernel, i);
    const bool bits = want.spec == "bf16" && b.type == exec::ElemType::U16;
    if (want.spec.empty() || want.spec == exec::elem_name(b.type) || bits) continue;
    throw InputError(fmt::format(
        "buffers['{}']: a {} array for parameter {} ({}) of {}: give it as "
        "{}.astype(np.{}) (or declare the buffer's type in the launch spec)",
        a.name, a.dtype, i + 1, want.cpp, ptx::demangle(w.kernel), a.name, numpy_name(want.spec)));
  }
}

// Puts the arrays into the prepared workload's buffers of the same names, checking each.
void put_arrays(const std::vector<ArrayIn>& arrays, exec::Workload& w) {
  for (const ArrayIn& a : arrays) {
    exec::Buffer* b = nullptr;
    for (exec::Buffer& x : w.memory.buffers)
      if (x.name == a.name) b = &x;
    if (!b) {
      std::string names;
      for (const exec::Buffer& x : w.memory.buffers) names += (names.empty() ? "" : ", ") + x.name;
      throw InputError(fmt::format("buffers['{}']: the launch has no buffer '{}' (its buffers: {})",
                                   a.name, a.name, names.empty() ? "none" : names));
    }
    const bool bits = b->type == exec::ElemType::BF16 && *a.type == exec::ElemType::U16;
    if (*a.type != b->type && !bits)
      throw InputError(fmt::format("buffers['{}']: the launch spec makes it {}; the array is {}",
                                   a.name, exec::elem_name(b->type), a.dtype));
    if (a.nbytes != b->bytes.size())
      throw InputError(
          fmt::format("buffers['{}']: the launch spec gives it {} elements; the "
                      "array has {}",
                      a.name, b->elements(), a.elements));
    if (a.inferred) check_pointee(a, *b, w);
    std::copy(a.data, a.data + a.nbytes, b->bytes.begin());
  }
}

// smemsim.run, profile and sim: the command line `args` run in-process as the CLI runs it
// (apps/smemsim/embed.hpp), `spec_text` as the launch spec when not empty, the arrays of
// `buffers` in the buffers of those names. Returns (the JSON document's text, the notes, every
// buffer after the run as {name: array}).
py::tuple command(std::vector<std::string> args, std::string spec_text, const py::dict& buffers,
                  const std::vector<std::string>& inferred) {
  std::vector<ArrayIn> arrays;
  for (const auto& [k, v] : buffers) {
    arrays.push_back(array_in(py::str(k), v));
    arrays.back().inferred =
        std::find(inferred.begin(), inferred.end(), arrays.back().name) != inferred.end();
  }
  std::vector<exec::Buffer> after;
  cli::Embedding e;
  e.args = std::move(args);
  e.spec_text = std::move(spec_text);
  e.prepared = [&](exec::Workload& w) { put_arrays(arrays, w); };
  e.finished = [&](const exec::Workload& w) { after = w.memory.buffers; };
  try {
    py::gil_scoped_release release;
    cli::run_embedded(e);
  } catch (const Interrupted&) {
    throw py::error_already_set();  // the KeyboardInterrupt (or what the handler raised)
  }
  if (e.document.is_null())
    throw InputError(fmt::format("smemsim {} gave no JSON document",
                                 e.args.empty() ? std::string() : e.args.front()));
  py::dict out;
  for (exec::Buffer& b : after) {  // each array owns its buffer's bytes: no copy
    const auto elements = py::ssize_t(b.elements());
    auto* bytes = new std::vector<std::uint8_t>(std::move(b.bytes));
    py::capsule owner(bytes, [](void* p) { delete static_cast<std::vector<std::uint8_t>*>(p); });
    out[py::str(b.name)] =
        py::array(dtype_of(b.type), std::vector<py::ssize_t>{elements}, bytes->data(), owner);
  }
  return py::make_tuple(e.document.dump(), e.notes, out);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "smemsim's compiled core (use the smemsim package)";
  static py::exception<InputError> error(m, "Error", PyExc_ValueError);
  g_main_thread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  set_interrupt_hook(&check_python_signals);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  py::class_<Arch>(m, "Arch", "A GPU's shared memory and SM: a preset, possibly with overrides")
      .def_property_readonly("name", [](const Arch& a) { return a.name; })
      .def_property_readonly("description", [](const Arch& a) { return a.description; })
      .def_property_readonly("derived", [](const Arch& a) { return a.derived; })
      .def_property_readonly("keys", &arch_dict, "every key and its value, as in the TOML")
      .def("__getitem__",
           [](const Arch& a, const std::string& key) -> py::object {
             py::dict d = arch_dict(a);
             if (!d.contains(key)) throw py::key_error(fmt::format("no arch key '{}'", key));
             return d[py::str(key)];
           })
      .def("to_toml", [](const Arch& a) { return to_toml(a, true); })
      .def("__repr__", [](const Arch& a) {
        return fmt::format("smemsim.Arch('{}'{})", a.name,
                           a.derived.empty() ? "" : ", changed: " + a.derived);
      });
  m.def("arch", &make_arch, py::arg("name"), py::arg("overrides") = py::dict(),
        "A preset by name (smemsim arch list), with {key: value} overrides");
  m.def("presets", [] {
    std::vector<std::string> out;
    for (const Arch& a : arch_presets()) out.push_back(a.name);
    return out;
  });
  m.def("arch_keys", [] {
    std::vector<py::tuple> out;
    for (const ArchKeyInfo& k : arch_key_info())
      out.push_back(py::make_tuple(std::string(k.name), std::string(k.doc), k.min, k.max));
    return out;
  });
  m.def("conflicts", &conflicts, py::arg("arch"), py::arg("words"), py::arg("op") = "ld",
        py::arg("per_lane") = false, py::arg("unit") = "word");
  m.def("command", &command, py::arg("args"), py::arg("spec_text"), py::arg("buffers"),
        py::arg("inferred") = std::vector<std::string>());
  m.def("hash_search", &hash_search, py::arg("arch"), py::arg("words"), py::arg("family") = "bvxor",
        py::arg("heuristic") = "");
}
