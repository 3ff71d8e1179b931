// PTX module parser: module directives, variables, kernels (.entry), their parameters, register
// declarations, labels, .loc line info; instructions are decoded by decode.cpp, and the cursor and
// literal helpers both use are in cursor.cpp.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "ptx/parse_state.hpp"
#include "smemsim/error.hpp"
#include "util/file.hpp"

namespace smemsim::ptx {

namespace {

constexpr std::uint64_t kMaxRegsPerKernel = 1u << 20;
constexpr std::uint64_t kMaxSymbolBytes = std::uint64_t{1} << 32;

Space space_from_directive(std::string_view d) {
  if (d == ".param") return Space::Param;
  if (d == ".global") return Space::Global;
  if (d == ".shared") return Space::Shared;
  if (d == ".local") return Space::Local;
  if (d == ".const") return Space::Const;
  return Space::None;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& filename) : cur_(text, filename) {
    mod_.filename = filename;
  }

  Module run() {
    while (!cur_.at_end()) module_statement();
    if (nounroll_module_) {
      for (Kernel& k : mod_.kernels) k.nounroll_all = true;
      for (Kernel& f : mod_.functions) f.nounroll_all = true;
    }
    std::map<SourceSite, std::uint32_t> index{{SourceSite{}, 0}};
    for (std::size_t i = 0; i < mod_.kernels.size(); ++i)
      resolve_inline_sites(mod_.kernels[i], kernel_chains_[i], mod_, index);
    for (std::size_t i = 0; i < mod_.functions.size(); ++i)
      resolve_inline_sites(mod_.functions[i], function_chains_[i], mod_, index);
    return std::move(mod_);
  }

 private:
  Cursor cur_;
  Module mod_;
  bool nounroll_module_ = false;                  // a module-scope .pragma "nounroll"
  std::unordered_set<std::string> kernel_names_;  // duplicate check in O(1) (issue 11)
  // The inlining chains of each kernel and function, resolved at the end of the module.
  std::vector<InlineChains> kernel_chains_, function_chains_;

  [[noreturn]] void unsupported_directive(const Token& t) {
    cur_.fail(t, fmt::format("unsupported PTX directive '{}'", t.text));
  }

  void module_statement() {
    const Token& t = cur_.peek();
    if (t.kind != TokKind::Word)
      cur_.fail(t, fmt::format("unexpected {} at module level", describe(t)));
    if (t.text == ".version") {
      cur_.next();
      if (cur_.peek().kind != TokKind::Number)
        cur_.fail(cur_.peek(), "expected a version number after .version");
      mod_.version = std::string(cur_.next().text);
    } else if (t.text == ".target") {
      cur_.next();
      mod_.target = std::string(cur_.expect_word("a target name after .target"));
      while (cur_.accept(',')) cur_.expect_word("a target option");
    } else if (t.text == ".address_size") {
      const Token& at = cur_.next();
      const std::uint64_t v = cur_.expect_uint("the address size");
      if (v != 32 && v != 64)
        cur_.fail(at, fmt::format(".address_size must be 32 or 64, not {}", v));
      mod_.address_size = static_cast<std::uint32_t>(v);
    } else if (t.text == ".file") {
      file_directive();
    } else if (t.text == ".section") {
      skip_section();
    } else if (t.text == ".pragma") {
      // At module scope "nounroll" holds for every loop of the module, those before it too.
      nounroll_module_ |= pragma();
    } else if (t.text == ".visible" || t.text == ".weak" || t.text == ".extern" ||
               t.text == ".entry" || t.text == ".func" || t.text == ".global" ||
               t.text == ".shared" || t.text == ".const") {
      declaration();
    } else {
      unsupported_directive(t);
    }
  }

  void file_directive() {
    cur_.next();
    const Token& at = cur_.peek();
    const std::uint64_t index = cur_.expect_uint("a file index after .file");
    if (cur_.peek().kind != TokKind::String)
      cur_.fail(cur_.peek(), "expected a file name string after .file index");
    std::string path(cur_.next().text);
    while (cur_.accept(',')) cur_.expect_uint("a .file timestamp or size");
    if (index == 0 || index > 65535) cur_.fail(at, fmt::format("bad .file index {}", index));
    if (mod_.files.size() <= index) mod_.files.resize(index + 1);
    mod_.files[index] = std::move(path);
  }

  // Debug sections (.section .debug_str { ... }) carry DWARF bytes only; they are skipped as a
  // whole.
  void skip_section() {
    cur_.next();
    cur_.expect_word("a section name");
    const Token& open = cur_.peek();
    cur_.expect('{', "after the .section name");
    int depth = 1;
    while (depth > 0) {
      if (cur_.at_end()) cur_.fail(open, "unterminated .section block");
      const Token& t = cur_.next();
      if (t.is('{')) ++depth;
      if (t.is('}')) --depth;
    }
  }

  // `.pragma "s1", "s2";`: returns whether one of the strings is "nounroll" (PTX ISA, "Pragma
  // Strings"); the others are hints the executor and the timing have no use for.
  bool pragma() {
    cur_.next();
    bool nounroll = false;
    do {
      if (cur_.peek().kind != TokKind::String)
        cur_.fail(cur_.peek(), "expected a string after .pragma");
      nounroll |= cur_.next().text == "nounroll";
    } while (cur_.accept(','));
    cur_.expect(';', "after .pragma");
    return nounroll;
  }

  // [.visible|.weak|.extern] (.entry kernel | .func | variable)
  void declaration() {
    bool visible = false, is_extern = false;
    for (;;) {
      const Token& t = cur_.peek();
      if (t.is_word(".visible") || t.is_word(".weak")) {
        visible = true;
      } else if (t.is_word(".extern")) {
        is_extern = true;
      } else {
        break;
      }
      cur_.next();
    }
    const Token& t = cur_.peek();
    if (t.is_word(".entry")) {
      kernel(visible);
    } else if (t.is_word(".func")) {
      function();
    } else if (t.kind == TokKind::Word && space_from_directive(t.text) != Space::None &&
               space_from_directive(t.text) != Space::Param &&
               space_from_directive(t.text) != Space::Local) {
      Symbol s = variable(is_extern, true);
      s.module_level = true;
      for (const Symbol& g : mod_.globals)
        if (g.name == s.name) cur_.fail(t, fmt::format("duplicate variable '{}'", s.name));
      mod_.globals.push_back(std::move(s));
    } else {
      cur_.fail(t, fmt::format("expected .entry or a variable declaration, found {}", describe(t)));
    }
  }

  // .space [.align N] [.ptr ...] .type name[N]... [= init] ;   (also parameter declarations)
  Symbol variable(bool is_extern, bool needs_semicolon) {
    Symbol s;
    const Token& d = cur_.next();
    s.space = space_from_directive(d.text);
    s.is_extern = is_extern;
    s.module_level = false;
    for (;;) {
      const Token& t = cur_.peek();
      if (t.is_word(".align")) {
        cur_.next();
        const std::uint64_t a = cur_.expect_uint("an alignment after .align");
        if (a == 0 || a > 4096 || (a & (a - 1)) != 0)
          cur_.fail(t, fmt::format("bad alignment {}", a));
        s.align = static_cast<std::uint32_t>(a);
      } else if (t.is_word(".ptr") || t.is_word(".global") || t.is_word(".shared") ||
                 t.is_word(".const") || t.is_word(".local")) {
        cur_.next();  // pointer attributes of a kernel parameter: informational only
      } else {
        break;
      }
    }
    const Token& tt = cur_.peek();
    if (tt.kind != TokKind::Word || tt.text.empty() || tt.text[0] != '.' ||
        (s.type = type_from_name(tt.text.substr(1))) == Type::None || s.type == Type::Pred) {
      if (tt.is_word(".v2") || tt.is_word(".v4")) cur_.fail(tt, "unsupported PTX vector variable");
      cur_.fail(tt, fmt::format("expected a variable type, found {}", describe(tt)));
    }
    cur_.next();
    const Token& nt = cur_.peek();
    s.name = std::string(cur_.expect_word("a variable name"));
    if (s.name[0] == '.' || s.name[0] == '%')
      cur_.fail(nt, fmt::format("bad variable name '{}'", s.name));
    s.elements = 1;
    while (cur_.accept('[')) {
      if (cur_.accept(']')) {  // unsized: only as .extern (dynamic shared memory)
        if (!s.is_extern) cur_.fail(nt, fmt::format("array '{}' has no size", s.name));
        s.elements = 0;
        continue;
      }
      const std::uint64_t n = cur_.expect_uint("an array size");
      cur_.expect(']', "after the array size");
      if (n == 0 || n > kMaxSymbolBytes || s.elements * n > kMaxSymbolBytes)
        cur_.fail(nt, fmt::format("bad array size for '{}'", s.name));
      s.elements *= n;
    }
    if (s.size_bytes() > kMaxSymbolBytes)
      cur_.fail(nt, fmt::format("variable '{}' is too large", s.name));
    if (cur_.accept('=')) initializer(s, nt);
    if (needs_semicolon) cur_.expect(';', fmt::format("after the declaration of '{}'", s.name));
    return s;
  }

  void initializer(Symbol& s, const Token& at) {
    const int bytes = type_bytes(s.type);
    auto value = [&] {
      const bool neg = cur_.accept('-');
      const Token& v = cur_.peek();
      if (v.kind != TokKind::Number)
        cur_.fail(v, fmt::format("unsupported initializer {} for '{}'", describe(v), s.name));
      cur_.next();
      std::uint64_t bits = 0;
      double f = 0;
      if (is_float_literal(v.text)) {
        if (!parse_float_literal(v.text, f))
          cur_.fail(v, fmt::format("malformed number '{}'", v.text));
        if (neg) f = -f;
        if (s.type == Type::F32)
          bits = std::bit_cast<std::uint32_t>(static_cast<float>(f));
        else if (s.type == Type::F64)
          bits = std::bit_cast<std::uint64_t>(f);
        else
          cur_.fail(v, fmt::format("float initializer for non-float variable '{}'", s.name));
      } else {
        if (!parse_int_literal(v.text, bits))
          cur_.fail(v, fmt::format("malformed number '{}'", v.text));
        if (neg) bits = ~bits + 1;
        if (s.type == Type::F32)
          bits = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int64_t>(bits)));
        else if (s.type == Type::F64)
          bits = std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<std::int64_t>(bits)));
      }
      if (s.init.size() + static_cast<std::size_t>(bytes) > s.size_bytes())
        cur_.fail(v, fmt::format("too many initializers for '{}'", s.name));
      for (int b = 0; b < bytes; ++b) s.init.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
    };
    if (s.elements == 0)
      cur_.fail(at, fmt::format("unsized array '{}' cannot be initialized", s.name));
    if (cur_.peek().is('{')) {
      int depth = 0;
      do {
        if (cur_.accept('{')) {
          ++depth;
          continue;
        }
        if (cur_.accept('}')) {
          --depth;
          if (depth > 0) cur_.accept(',');
          continue;
        }
        value();
        if (!cur_.peek().is('}')) cur_.expect(',', "between initializers");
      } while (depth > 0);
    } else {
      value();
    }
    s.init.resize(s.size_bytes(), 0);
  }

  // .entry name ( params ) [performance directives] { body }
  void kernel(bool visible) {
    const Token& entry = cur_.next();
    Kernel k;
    k.visible = visible;
    k.ptx_line = entry.line;
    k.name = std::string(cur_.expect_word("a kernel name after .entry"));
    if (!kernel_names_.insert(k.name).second)
      cur_.fail(entry, fmt::format("duplicate kernel '{}'", k.name));
    KernelBuilder kb(k, mod_);
    if (cur_.accept('(')) parameters(kb, "after the kernel parameters");
    performance_directives(k);
    body_with_labels(kb, "kernel");
    mod_.kernels.push_back(std::move(k));
    kernel_chains_.push_back(std::move(kb.inlining));
  }

  // .func [(return params)] name [(params)] [.noreturn] (';' | { body }): a device function. A
  // declaration (.extern, or no body: vprintf, __assertfail) is skipped; a definition is parsed
  // into Module::functions.
  void function() {
    const Token& fn = cur_.next();
    Kernel f;
    f.ptx_line = fn.line;
    KernelBuilder kb(f, mod_);
    if (cur_.accept('(')) parameters(kb, "after the return parameters");
    f.nret = static_cast<std::uint32_t>(f.params.size());
    f.name = std::string(cur_.expect_word("a function name after .func"));
    if (cur_.accept('(')) parameters(kb, "after the function parameters");
    performance_directives(f);
    if (cur_.accept(';')) return;  // a declaration
    body_with_labels(kb, "function");
    mod_.functions.push_back(std::move(f));
    function_chains_.push_back(std::move(kb.inlining));
  }

  // `.param` declarations up to and including ')' (the '(' has been read).
  void parameters(KernelBuilder& kb, std::string_view after) {
    if (cur_.accept(')')) return;
    do {
      const Token& pt = cur_.peek();
      if (!pt.is_word(".param"))
        cur_.fail(pt, fmt::format("expected .param, found {}", describe(pt)));
      Symbol p = variable(false, false);
      p.kind = SymbolKind::Param;
      add_symbol(kb, std::move(p), pt);
      kb.kernel.params.push_back(static_cast<std::uint32_t>(kb.kernel.symbols.size() - 1));
    } while (cur_.accept(','));
    cur_.expect(')', after);
  }

  // { body }, then the branch targets resolved.
  void body_with_labels(KernelBuilder& kb, std::string_view what) {
    const Token open = cur_.peek();  // a copy: body() forgets the tokens it has read
    cur_.expect('{', fmt::format("to open the body of {} '{}'", what, kb.kernel.name));
    kb.reg_scopes.emplace_back();
    kb.kernel.code.reserve(cur_.statements_ahead());
    body(kb, open);
    for (const auto& f : kb.fixups) {
      auto it = kb.labels.end();
      for (auto s = f.scopes.rbegin(); s != f.scopes.rend() && it == kb.labels.end(); ++s)
        it = kb.labels.find(KernelBuilder::label_key(*s, f.label));
      if (it == kb.labels.end()) cur_.fail(f.line, fmt::format("undefined label '{}'", f.label));
      kb.kernel.code[f.instruction].ops[f.operand].target = it->second;
    }
  }

  void performance_directives(Kernel& k) {
    for (;;) {
      const Token& t = cur_.peek();
      if (t.is_word(".maxntid") || t.is_word(".reqntid")) {
        cur_.next();
        for (std::size_t i = 0; i < 3; ++i) {
          if (i > 0 && !cur_.accept(',')) break;
          const std::uint64_t v = cur_.expect_uint("a thread count");
          k.reqntid[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 1u << 30));
        }
      } else if (t.is_word(".explicitcluster")) {  // __cluster_dims__ (issue 46)
        cur_.next();
        k.explicit_cluster = true;
      } else if (t.is_word(".reqnctapercluster")) {
        cur_.next();
        for (std::size_t i = 0; i < 3; ++i) {
          if (i > 0 && !cur_.accept(',')) break;
          const std::uint64_t v = cur_.expect_uint("a CTA count");
          k.cluster[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 1u << 30));
        }
      } else if (t.is_word(".maxclusterrank")) {
        cur_.next();
        k.max_cluster_rank = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(cur_.expect_uint("a count"), 1u << 30));
      } else if (t.is_word(".minnctapersm") || t.is_word(".maxnreg") ||
                 t.is_word(".maxnctapersm")) {
        cur_.next();
        cur_.expect_uint("a count");
      } else if (t.is_word(".noreturn")) {
        cur_.next();
      } else if (t.is_word(".pragma")) {  // entry-function scope: every loop of the kernel
        k.nounroll_all |= pragma();
      } else {
        return;
      }
    }
  }

  void add_symbol(KernelBuilder& kb, Symbol s, const Token& at) {
    if (kb.symbols.count(s.name)) cur_.fail(at, fmt::format("duplicate symbol '{}'", s.name));
    kb.symbols.emplace(s.name, static_cast<std::uint32_t>(kb.kernel.symbols.size()));
    kb.kernel.symbols.push_back(std::move(s));
  }

  void body(KernelBuilder& kb, const Token open) {
    int depth = 1;
    for (;;) {
      cur_.forget();  // between statements: no reference to a token read so far is kept
      const Token& t = cur_.peek();
      if (t.kind == TokKind::End)
        cur_.fail(open, fmt::format("unterminated body of kernel '{}'", kb.kernel.name));
      if (t.is('{')) {
        cur_.next();
        ++depth;
        kb.reg_scopes.emplace_back();
        kb.label_scopes.push_back(kb.next_label_scope++);
      } else if (t.is('}')) {
        cur_.next();
        kb.reg_scopes.pop_back();
        if (--depth == 0) return;
        kb.label_scopes.pop_back();
      } else if (t.is('@')) {
        guarded_instruction(kb);
      } else if (t.kind != TokKind::Word) {
        cur_.fail(t, fmt::format("unexpected {} in kernel body", describe(t)));
      } else if (cur_.peek(1).is(':') && t.text[0] != '.' && t.text[0] != '%') {
        cur_.next();
        cur_.next();
        if (!kb.labels
                 .emplace(KernelBuilder::label_key(kb.label_scopes.back(), t.text),
                          static_cast<std::uint32_t>(kb.kernel.code.size()))
                 .second)
          cur_.fail(t, fmt::format("duplicate label '{}'", t.text));
      } else if (t.is_word(".reg")) {
        reg_declaration(kb);
      } else if (t.is_word(".loc")) {
        loc_directive(kb);
      } else if (t.is_word(".pragma")) {
        // A statement's "nounroll" holds for the loop whose header block it is in (PTX ISA).
        if (pragma())
          kb.kernel.nounroll.push_back(static_cast<std::uint32_t>(kb.kernel.code.size()));
      } else if (t.is_word(".shared") || t.is_word(".local") || t.is_word(".global") ||
                 t.is_word(".const")) {
        add_symbol(kb, variable(false, true), t);
      } else if (t.is_word(".param")) {
        // The argument and return slots of a call (`.param .b32 param0;` in a { } block around
        // call.uni; ptx/link.cpp makes them per-thread .local slots). Each { } block of nvcc's call
        // sequences declares its own param0 (.b32 in one, .b64 in the next): a declaration again
        // makes a new slot, and the name means the latest.
        Symbol p = variable(false, true);
        kb.symbols[p.name] = static_cast<std::uint32_t>(kb.kernel.symbols.size());
        kb.kernel.symbols.push_back(std::move(p));
      } else if (t.text[0] == '.') {
        unsupported_directive(t);
      } else {
        instruction(kb, kNone, false);
      }
    }
  }

  void guarded_instruction(KernelBuilder& kb) {
    cur_.next();  // '@'
    const bool negated = cur_.accept('!');
    const Token& p = cur_.peek();
    const std::string_view name = cur_.expect_word("a predicate register after '@'");
    const std::uint32_t r = kb.find_reg(name);
    if (r == kNone) cur_.fail(p, fmt::format("unknown register '{}'", name));
    if (kb.kernel.regs[r].type != Type::Pred)
      cur_.fail(p, fmt::format("guard '{}' is not a predicate register", name));
    if (cur_.peek().kind != TokKind::Word || cur_.peek().text[0] == '.')
      cur_.fail(cur_.peek(), fmt::format("expected an instruction after the guard, found {}",
                                         describe(cur_.peek())));
    instruction(kb, r, negated);
  }

  // call[.uni] [(ret, ...),] func [, (arg, ...)];  the slots are .param variables of the body.
  // An indirect call (through a register, with a prototype) is unsupported.
  Instruction call(KernelBuilder& kb, const Token& m) {
    Instruction ins;
    ins.op = Opcode::Call;
    if (m.text != "call" && m.text != "call.uni")
      throw UnsupportedInstruction{m.line, fmt::format("unsupported PTX instruction '{}'", m.text)};
    if (m.text == "call.uni") ins.flags |= kUni;
    CallSite site;
    site.line = m.line;
    const auto slots = [&](std::vector<std::uint32_t>& out) {
      if (cur_.accept(')')) return;
      do {
        const Token& t = cur_.peek();
        const std::string_view name = cur_.expect_word("a .param name");
        const std::uint32_t s = kb.find_symbol(name);
        if (s == kNone || kb.kernel.symbols[s].space != Space::Param)
          cur_.fail(t, fmt::format("'{}' is not a .param of the caller", name));
        out.push_back(s);
      } while (cur_.accept(','));
      cur_.expect(')', "after the call's parameters");
    };
    if (cur_.accept('(')) {
      slots(site.rets);
      cur_.expect(',', "after the call's return parameters");
    }
    const Token& f = cur_.peek();
    site.callee = std::string(cur_.expect_word("the function a call calls"));
    if (site.callee[0] == '%')
      throw UnsupportedInstruction{m.line,
                                   "unsupported PTX: an indirect call (through a register)"};
    if (cur_.accept(',')) {
      cur_.expect('(', "before the call's arguments");
      slots(site.args);
      if (cur_.accept(','))
        throw UnsupportedInstruction{m.line, "unsupported PTX: a call with a prototype"};
    }
    (void)f;
    cur_.expect(';', "after the call");
    ins.num_ops = 0;
    ins.ops[0].kind = OperandKind::ImmInt;
    ins.ops[0].set_imm(static_cast<std::int64_t>(kb.kernel.calls.size()));
    kb.kernel.calls.push_back(std::move(site));
    return ins;
  }

  void instruction(KernelBuilder& kb, std::uint32_t guard, bool negated) {
    const Token& m = cur_.next();
    Instruction ins;
    try {
      if (m.text == "call" || m.text.starts_with("call."))
        ins = call(kb, m);
      else
        ins = decode_instruction(cur_, kb, m);
    } catch (const UnsupportedInstruction& u) {
      // Skip to its ';' (vector operands such as tex's {%r1, %r2} nest braces).
      for (int depth = u.open_braces; !cur_.at_end() && !(depth == 0 && cur_.peek().is(';'));) {
        if (cur_.peek().is('{')) ++depth;
        if (cur_.peek().is('}') && --depth < 0) break;
        cur_.next();
      }
      cur_.expect(';', fmt::format("after '{}'", m.text));
      kb.kernel.unsupported.push_back({u.line, u.message, kb.loc, kb.inlined_at});
      kb.inlining.unsupported_chain.push_back(kb.chain);
      return;
    }
    if (guard != kNone && (ins.op == Opcode::TxBegin || ins.op == Opcode::TxCommit))
      cur_.fail(m, fmt::format("'{}' cannot be predicated: a transaction begins and commits for "
                               "the whole warp (seed 003 §3)",
                               m.text));
    ins.guard = guard;
    ins.guard_negated = negated;
    ins.ptx_line = m.line;
    if (kb.site == kNone) {
      kb.site = static_cast<std::uint32_t>(kb.inlining.pending.size());
      kb.inlining.pending.push_back({kb.loc, kb.inlined_at, kb.chain});
    }
    ins.site = kb.site;
    kb.kernel.code.push_back(ins);
  }

  // .reg .type %a, %b<N>, ... ;
  void reg_declaration(KernelBuilder& kb) {
    cur_.next();
    const Token& tt = cur_.peek();
    const std::string_view tn = cur_.expect_word("a register type after .reg");
    const Type type = tn.size() > 1 && tn[0] == '.' ? type_from_name(tn.substr(1)) : Type::None;
    if (type == Type::None) {
      if (tn == ".v2" || tn == ".v4") cur_.fail(tt, "unsupported PTX vector register declaration");
      cur_.fail(tt, fmt::format("expected a register type after .reg, found '{}'", tn));
    }
    do {
      const Token& nt = cur_.peek();
      const std::string_view name = cur_.expect_word("a register name");
      // nvcc names most registers %r..., and a few without the % (temp_param_reg in call blocks).
      if (name.empty() || name[0] == '.' || (name[0] == '%' && name.size() < 2) ||
          name.find('.') != std::string_view::npos)
        cur_.fail(nt, fmt::format("bad register name '{}'", name));
      if (cur_.accept('<')) {
        const std::uint64_t n = cur_.expect_uint("a register count");
        cur_.expect('>', "after the register count");
        if (n > kMaxRegsPerKernel || kb.kernel.regs.size() + n > kMaxRegsPerKernel)
          cur_.fail(nt, "too many registers");
        for (std::uint64_t i = 0; i < n; ++i)
          declare_reg(kb, fmt::format("{}{}", name, i), type, nt);
      } else {
        if (kb.kernel.regs.size() + 1 > kMaxRegsPerKernel) cur_.fail(nt, "too many registers");
        declare_reg(kb, std::string(name), type, nt);
      }
    } while (cur_.accept(','));
    cur_.expect(';', "after the register declaration");
  }

  void declare_reg(KernelBuilder& kb, std::string name, Type type, const Token& at) {
    Special sp;
    if (special_from_name(name, sp)) cur_.fail(at, fmt::format("'{}' is a special register", name));
    const auto id = static_cast<std::uint32_t>(kb.kernel.regs.size());
    if (!kb.reg_scopes.back().emplace(name, id).second)
      cur_.fail(at, fmt::format("duplicate register '{}'", name));
    kb.kernel.regs.push_back({std::move(name), type});
  }

  // .loc file line column [, function_name label [+ off], inlined_at file line column]
  void loc_directive(KernelBuilder& kb) {
    const Token& t = cur_.next();
    auto three = [&] {
      SourceLoc l;
      l.file = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(cur_.expect_uint(".loc file index"), kNone - 1));
      l.line = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(cur_.expect_uint(".loc line"), kNone - 1));
      l.column = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(cur_.expect_uint(".loc column"), kNone - 1));
      return l;
    };
    SourceLoc loc = three();
    SourceLoc inlined;
    while (cur_.accept(',')) {
      const Token& kw = cur_.peek();
      const std::string_view key = cur_.expect_word(".loc attribute");
      if (key == "function_name") {
        cur_.expect_word("a function name label");
        if (cur_.accept('+')) cur_.expect_uint("an offset");
      } else if (key == "inlined_at") {
        inlined = three();
      } else {
        cur_.fail(kw, fmt::format("unsupported .loc attribute '{}'", key));
      }
    }
    if (loc.file == 0) cur_.fail(t, ".loc file index must be positive");
    kb.loc = loc;
    kb.inlined_at = inlined;
    kb.chain = 0;
    kb.site = kNone;
    if (inlined.file != 0) {  // this .loc's call sites: inlined_at, then that site's own
      std::vector<SourceLoc> sites{inlined};
      const auto parent = kb.loc_chain.find({inlined.file, inlined.line, inlined.column});
      std::vector<std::vector<SourceLoc>>& chains = kb.inlining.chains;
      if (parent != kb.loc_chain.end() && chains[parent->second].size() < 64) {
        const std::vector<SourceLoc>& up = chains[parent->second];
        sites.insert(sites.end(), up.begin(), up.end());
      }
      kb.chain = static_cast<std::uint32_t>(chains.size());
      chains.push_back(std::move(sites));
    }
    kb.loc_chain[{loc.file, loc.line, loc.column}] = kb.chain;
  }
};

}  // namespace

namespace {

// The innermost frame of `sites` outside a header, else the outermost (resolve_inline_sites).
void resolve_site(const std::vector<SourceLoc>& sites, const SourceLoc& loc, SourceLoc& inlined_at,
                  const Module& m) {
  if (sites.empty() || !is_header_path(m.file_name(loc.file))) return;
  inlined_at = sites.back();
  for (const SourceLoc& s : sites)
    if (!is_header_path(m.file_name(s.file))) {
      inlined_at = s;
      break;
    }
}

}  // namespace

void resolve_inline_sites(Kernel& k, const InlineChains& c, Module& m,
                          std::map<SourceSite, std::uint32_t>& index) {
  std::vector<std::uint32_t> final_site(c.pending.size());
  for (std::size_t j = 0; j < c.pending.size(); ++j) {
    const InlineChains::Pending& p = c.pending[j];
    SourceSite s{p.loc, p.inlined_at, {}};
    const std::vector<SourceLoc>& sites = c.chains[p.chain];
    if (!sites.empty()) s.call_site = sites.front();
    resolve_site(sites, s.loc, s.inlined_at, m);
    const auto [it, added] = index.try_emplace(s, static_cast<std::uint32_t>(m.sites.size()));
    if (added) m.sites.push_back(s);
    final_site[j] = it->second;
  }
  for (Instruction& ins : k.code) ins.site = final_site[ins.site];
  for (std::size_t i = 0; i < k.unsupported.size() && i < c.unsupported_chain.size(); ++i)
    resolve_site(c.chains[c.unsupported_chain[i]], k.unsupported[i].loc,
                 k.unsupported[i].inlined_at, m);
}

Module parse(std::string_view text, const std::string& filename) {
  Parser p(text, filename);
  Module m = p.run();
  link_calls(m);
  return m;
}

Module parse_file(const std::string& path) {
  return parse(read_file(path, "PTX file"), path);
}

}  // namespace smemsim::ptx
