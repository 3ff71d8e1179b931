// Linking device functions into the kernels that call them (issue 15): each .func a kernel reaches
// through `call` is appended once to the kernel's code, registers and symbols, so the executor and
// every later stage see one self-contained kernel. The .param slots of calls (the caller's argument
// and return slots, the function's parameters and return values) become per-thread .local
// variables, and ld.param/st.param on them ld.local/st.local: a call copies between them, and a
// recursive call saves and restores the function's slots and registers (docs/exec.md).
#include <fmt/format.h>

#include <unordered_map>

#include "smemsim/ptx.hpp"

namespace smemsim::ptx {
namespace {

bool is_call_slot(const Symbol& s) {
  return s.space == Space::Param && !s.module_level;
}

// A kernel's own call slots (.param variables of its body) become .local; ld/st on them follow.
void localize_slots(Kernel& k, std::uint32_t first_symbol, std::uint32_t first_instruction,
                    bool params_too) {
  for (std::uint32_t i = first_symbol; i < k.symbols.size(); ++i) {
    Symbol& s = k.symbols[i];
    if (!is_call_slot(s) || (s.kind == SymbolKind::Param && !params_too)) continue;
    s.kind = SymbolKind::Variable;
    s.space = Space::Local;
  }
  for (std::uint32_t pc = first_instruction; pc < k.code.size(); ++pc) {
    Instruction& ins = k.code[pc];
    if ((ins.op != Opcode::Ld && ins.op != Opcode::St) || ins.space != Space::Param) continue;
    const Operand& a = ins.ops[ins.op == Opcode::Ld ? 1 : 0];
    if (a.kind == OperandKind::Memory && a.reg == kNone && a.sym != kNone &&
        k.symbols[a.sym].space == Space::Local)
      ins.space = Space::Local;
  }
}

class Linker {
 public:
  Linker(const Module& m, Kernel& k) : m_(m), k_(k) {}

  void run() {
    localize_slots(k_, 0, 0, false);
    // Call sites are resolved in order; appending a function appends its call sites too, so the
    // loop reaches every function the kernel calls, directly or not.
    for (std::size_t c = 0; c < k_.calls.size(); ++c) {
      // append() adds to k_.calls: index it again after, never hold a reference across.
      const std::string callee = k_.calls[c].callee;
      const std::uint32_t line = k_.calls[c].line;
      std::uint32_t fn = kNone;
      if (const auto at = linked_.find(callee); at != linked_.end()) {
        fn = at->second;
      } else {
        const Kernel* f = nullptr;
        for (const Kernel& g : m_.functions)
          if (g.name == callee) f = &g;
        if (!f) {
          if (const Builtin b = builtin_of(callee); b != Builtin::None) {
            check_builtin(c, b);
            continue;
          }
          k_.unsupported.push_back(
              {line,
               fmt::format("call to '{}', which has no body in the module (a library "
                           "function: of those only vprintf, printf's, and __assertfail, "
                           "assert's, are built in)",
                           callee),
               {},
               {}});
          continue;
        }
        fn = append(*f, line);
        linked_.emplace(callee, fn);
      }
      k_.calls[c].function = fn;
      const LinkedFunction& lf = k_.functions[fn];
      const CallSite& site = k_.calls[c];
      if (site.rets.size() > lf.nret || site.args.size() != lf.params.size() - lf.nret)
        k_.unsupported.push_back(
            {line,
             fmt::format("call to '{}' with {} argument{} and {} return value{}; it takes "
                         "{} and returns {}",
                         callee, site.args.size(), site.args.size() == 1 ? "" : "s",
                         site.rets.size(), site.rets.size() == 1 ? "" : "s",
                         lf.params.size() - lf.nret, lf.nret),
             {},
             {}});
    }
    mark_recursive();
  }

 private:
  // A function is recursive when a walk of the call graph from it comes back to it.
  void mark_recursive() {
    for (std::size_t f = 0; f < k_.functions.size(); ++f) {
      std::vector<bool> seen(k_.functions.size(), false);
      std::vector<std::uint32_t> todo{static_cast<std::uint32_t>(f)};
      while (!todo.empty() && !k_.functions[f].recursive) {
        const LinkedFunction& g = k_.functions[todo.back()];
        todo.pop_back();
        for (std::uint32_t c = g.calls_begin; c < g.calls_end; ++c) {
          const std::uint32_t callee = k_.calls[c].function;
          if (callee == kNone) continue;
          if (callee == f) k_.functions[f].recursive = true;
          if (!seen[callee]) {
            seen[callee] = true;
            todo.push_back(callee);
          }
        }
      }
    }
  }

  // printf and assert (issue 45): the executor runs them (exec/builtin.cpp) when the call has
  // the arguments nvcc passes.
  static Builtin builtin_of(const std::string& name) {
    if (name == "vprintf") return Builtin::Printf;
    if (name == "__assertfail") return Builtin::AssertFail;
    return Builtin::None;
  }
  void check_builtin(std::size_t c, Builtin b) {
    CallSite& site = k_.calls[c];
    const std::size_t nargs = b == Builtin::Printf ? 2 : 5, nrets = b == Builtin::Printf ? 1 : 0;
    if (site.args.size() != nargs || site.rets.size() > nrets) {
      k_.unsupported.push_back(
          {site.line,
           fmt::format("call to '{}' with {} argument{}: nvcc's {} takes {} and returns {}",
                       site.callee, site.args.size(), site.args.size() == 1 ? "" : "s", site.callee,
                       nargs, nrets),
           {},
           {}});
      return;
    }
    site.builtin = b;
  }

  const Module& m_;
  Kernel& k_;
  std::unordered_map<std::string, std::uint32_t> linked_;

  std::uint32_t append(const Kernel& f, std::uint32_t call_line) {
    LinkedFunction lf;
    lf.name = f.name;
    lf.nret = f.nret;
    lf.entry = static_cast<std::uint32_t>(k_.code.size());
    lf.reg_begin = static_cast<std::uint32_t>(k_.regs.size());
    const std::uint32_t first_symbol = static_cast<std::uint32_t>(k_.symbols.size());
    // Symbols: module variables are shared with the kernel (one copy of each), the rest appended.
    std::vector<std::uint32_t> sym(f.symbols.size());
    for (std::size_t i = 0; i < f.symbols.size(); ++i) {
      const Symbol& s = f.symbols[i];
      if (s.module_level) {
        const std::uint32_t have = k_.find_symbol(s.name);
        if (have != kNone && k_.symbols[have].module_level) {
          sym[i] = have;
          continue;
        }
      }
      sym[i] = static_cast<std::uint32_t>(k_.symbols.size());
      k_.symbols.push_back(s);
    }
    for (const Register& r : f.regs) k_.regs.push_back(r);
    const std::uint32_t reg_off = lf.reg_begin;
    const std::uint32_t call_off = static_cast<std::uint32_t>(k_.calls.size());
    for (Instruction ins : f.code) {
      if (ins.guard != kNone) ins.guard += reg_off;
      for (Operand& o : ins.ops) {
        if (o.kind == OperandKind::Reg || o.kind == OperandKind::Memory)
          if (o.reg != kNone) o.reg += reg_off;
        if ((o.kind == OperandKind::Memory || o.kind == OperandKind::Symbol) && o.sym != kNone)
          o.sym = sym[o.sym];
        if (o.kind == OperandKind::Vector) {  // its elements (and immediates) move too
          const std::uint32_t from = o.target;
          const std::size_t words =
              o.count + 2 * std::size_t(std::count_if(
                                f.vec_elems.begin() + from, f.vec_elems.begin() + from + o.count,
                                [](std::uint32_t e) { return is_vec_imm(e); }));
          o.target = static_cast<std::uint32_t>(k_.vec_elems.size());
          for (std::size_t w = 0; w < words; ++w) {
            const std::uint32_t e = f.vec_elems[from + w];
            k_.vec_elems.push_back(w < o.count && !is_vec_imm(e) ? e + reg_off : e);
          }
        }
        if (o.kind == OperandKind::Label) o.target += lf.entry;
      }
      if (ins.op == Opcode::Call) ins.ops[0].set_imm(ins.ops[0].imm() + call_off);
      k_.code.push_back(ins);
    }
    lf.calls_begin = call_off;
    lf.calls_end = call_off + static_cast<std::uint32_t>(f.calls.size());
    for (CallSite c : f.calls) {  // the function's own calls, resolved by the loop in run()
      for (std::uint32_t& s : c.rets) s = sym[s];
      for (std::uint32_t& s : c.args) s = sym[s];
      c.function = kNone;
      k_.calls.push_back(std::move(c));
    }
    for (const Kernel::Unsupported& u : f.unsupported)
      k_.unsupported.push_back(
          {u.line,
           fmt::format("{} (in function '{}', called at line {})", u.message, f.name, call_line),
           u.loc, u.inlined_at});
    lf.end = static_cast<std::uint32_t>(k_.code.size());
    lf.reg_end = static_cast<std::uint32_t>(k_.regs.size());
    for (std::uint32_t p : f.params) lf.params.push_back(sym[p]);
    localize_slots(k_, first_symbol, lf.entry, true);
    for (std::uint32_t i = first_symbol; i < k_.symbols.size(); ++i)
      if (k_.symbols[i].space == Space::Local) lf.locals.push_back(i);
    k_.functions.push_back(std::move(lf));
    return static_cast<std::uint32_t>(k_.functions.size() - 1);
  }
};

}  // namespace

void link_calls(Module& m) {
  for (Kernel& k : m.kernels)
    if (!k.calls.empty()) Linker(m, k).run();
}

}  // namespace smemsim::ptx
