// Internal state shared by the PTX module parser (parser.cpp) and the instruction decoder
// (decode.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/lexer.hpp"
#include "smemsim/ptx.hpp"

namespace smemsim::ptx {

// A cursor over the tokens of one PTX text; every error names `filename:line`. It lexes as the
// parser reads, and holds the tokens from the last forget() on (issue 48), in chunks that never
// move (a reference to a token stays valid while later ones are lexed): the parser calls forget()
// between a body's statements, where it keeps no reference to an earlier token.
class Cursor {
 public:
  Cursor(std::string_view text, std::string filename)
      : filename_(std::move(filename)), lexer_(text, filename_) {}
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  const Token& peek(std::size_t ahead = 0) const {
    const std::size_t i = pos_ + ahead;
    if (i < end_) [[likely]]
      return at(i);
    return lex_to(i);
  }
  const Token& next() {
    const Token& t = peek();
    if (t.kind != TokKind::End) ++pos_;
    return t;
  }
  bool at_end() const { return peek().kind == TokKind::End; }
  // Drops the chunks of tokens read so far (references to them die).
  void forget() {
    while (pos_ - first_ >= kChunk) {
      chunks_.erase(chunks_.begin());
      first_ += kChunk;
    }
  }
  // The ';' ahead at this brace depth, up to the '}' that closes it: an upper bound of the
  // instructions of a body just opened (its code vector is reserved once, not grown by doubling,
  // which held the old and the new array at once: issue 48, a 4 M-line PTX took 3.25 GB). The
  // tokens already lexed, then the characters after them (Lexer::statements_ahead).
  std::size_t statements_ahead() const {
    std::size_t n = 0;
    int depth = 0;
    for (std::size_t i = pos_; i < end_; ++i) {
      const Token& t = at(i);
      if (t.is('{')) ++depth;
      if ((t.is('}') && depth-- == 0) || t.kind == TokKind::End) return n;
      if (t.is(';') && depth == 0) ++n;
    }
    return lexer_.statements_ahead(depth, n);
  }
  bool accept(char c) {
    if (!peek().is(c)) return false;
    next();
    return true;
  }
  void expect(char c, std::string_view context);
  std::string_view expect_word(std::string_view what);
  std::uint64_t expect_uint(std::string_view what);
  [[noreturn]] void fail(const Token& at, const std::string& message) const;
  [[noreturn]] void fail(std::uint32_t line, const std::string& message) const;
  const std::string& filename() const { return filename_; }

 private:
  static constexpr std::size_t kChunk = 1024;  // tokens
  const Token& at(std::size_t i) const {
    const std::size_t k = i - first_;
    return chunks_[k / kChunk][k % kChunk];
  }
  const Token& lex_to(std::size_t i) const;  // lexes up to token i (or End), returns it

  std::string filename_;
  mutable Lexer lexer_;
  mutable std::vector<std::unique_ptr<Token[]>> chunks_;
  mutable std::size_t first_ = 0;  // the index of chunks_[0][0]
  mutable std::size_t end_ = 0;    // one past the last token lexed
  mutable bool ended_ = false;     // End lexed
  std::size_t pos_ = 0;
};

// Describes a token for messages: `'x'` or "end of input".
std::string describe(const Token& t);

// Integer literal (decimal, 0x hex, 0b binary, 0 octal, optional U suffix). False if malformed.
bool parse_int_literal(std::string_view text, std::uint64_t& value);
// Float literal: 0f (8 hex digits, f32 bits), 0d (16 hex digits, f64 bits) or decimal. False if not
// one.
bool parse_float_literal(std::string_view text, double& value);
bool is_float_literal(std::string_view text);

// The inlining contexts of a kernel's instructions: chains[c] lists a .loc's call sites, innermost
// first (chains[0] is none), and ins_chain[i] is the chain of code[i]. Resolved once the .file
// table is known (nvcc writes it after the kernels): resolve_inline_sites.
struct InlineChains {
  std::vector<std::vector<SourceLoc>> chains{{}};
  // Until then an instruction's `site` indexes `pending`: the .loc it follows and its chain.
  struct Pending {
    SourceLoc loc, inlined_at;
    std::uint32_t chain = 0;
  };
  std::vector<Pending> pending;
  std::vector<std::uint32_t> unsupported_chain;  // per Kernel::unsupported entry
};

// Name scopes and forward references of the kernel being parsed.
struct KernelBuilder {
  KernelBuilder(Kernel& k, const Module& m) : kernel(k), module(m) {}
  Kernel& kernel;
  const Module& module;
  std::vector<std::unordered_map<std::string, std::uint32_t>> reg_scopes;
  std::unordered_map<std::string, std::uint32_t> symbols;  // name -> index in kernel.symbols
  // Labels are scoped by { } blocks as registers are (PTX ISA "Scope": inline asm's `{ ... L: ...
  // bra L; }` may be pasted many times into one kernel): "scope:name" -> instruction index, the
  // scope a number per block (0: the body), `label_scopes` the blocks open now, innermost last.
  std::unordered_map<std::string, std::uint32_t> labels;
  std::vector<std::uint32_t> label_scopes{0};
  std::uint32_t next_label_scope = 1;
  static std::string label_key(std::uint32_t scope, std::string_view name) {
    return std::to_string(scope) + ":" + std::string(name);
  }
  struct Fixup {
    std::uint32_t instruction;
    std::uint32_t operand;
    std::string label;
    std::uint32_t line;
    std::vector<std::uint32_t> scopes;  // label_scopes at the branch: searched innermost first
  };
  std::vector<Fixup> fixups;
  SourceLoc loc;         // current .loc
  SourceLoc inlined_at;  // current .loc's inlined_at
  // Inlining contexts (InlineChains); loc_chain gives the chain of the latest .loc at (file, line,
  // column), so that a .loc inlined at it extends it; `chain` is the current .loc's.
  InlineChains inlining;
  std::map<std::array<std::uint32_t, 3>, std::uint32_t> loc_chain;
  std::uint32_t chain = 0;
  std::uint32_t site = kNone;  // the current .loc's entry in inlining.pending (kNone: none yet)

  std::uint32_t find_reg(std::string_view name) const;  // kNone if undeclared
  // Index of `name` among the kernel's symbols; a module variable is added on first use. kNone if
  // none.
  std::uint32_t find_symbol(std::string_view name);
};

// Thrown by the decoder for valid PTX the executor does not implement (an unknown mnemonic or
// modifier). The parser records it in Kernel::unsupported and goes on: only a launch of that kernel
// fails (issue 15), so one instruction does not reject the module's other kernels.
struct UnsupportedInstruction {
  std::uint32_t line;
  std::string message;
  int open_braces = 0;  // thrown inside a vector operand's { }: the parser skips its '}' too
};

// Sets each instruction's inlined_at to the innermost frame of its inlining chain that is not in a
// header (a kernel's line rather than cuda_runtime's or texture_indirect_functions.h's), or the
// outermost frame when every one is.
// Each instruction's site becomes an index into m.sites (`index` finds those already there).
void resolve_inline_sites(Kernel& k, const InlineChains& c, Module& m,
                          std::map<SourceSite, std::uint32_t>& index);

// Decodes one instruction: the mnemonic token has been consumed; reads operands up to and including
// ';'.
Instruction decode_instruction(Cursor& cur, KernelBuilder& kb, const Token& mnemonic);
// tex and tld4 (decode_tex.cpp), called by decode_instruction for those mnemonics.
Instruction decode_texture(Cursor& cur, KernelBuilder& kb, const Token& mnemonic);

// Modifier spellings indexed by enum value (index 0 is None, spelled ""): the decoder reads them,
// the printer writes them.
inline constexpr std::string_view kCmpNames[] = {"",    "eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                                 "lo",  "ls",  "hi",  "hs",  "equ", "neu", "ltu",
                                                 "leu", "gtu", "geu", "num", "nan"};
inline constexpr std::string_view kBoolNames[] = {"", "and", "or", "xor"};
inline constexpr std::string_view kAtomNames[] = {"",    "add", "min", "max",  "inc", "dec",
                                                  "and", "or",  "xor", "exch", "cas"};
inline constexpr std::string_view kRoundNames[] = {"",    "rn",  "rz",  "rm",  "rp",
                                                   "rna", "rni", "rzi", "rmi", "rpi"};
inline constexpr std::string_view kModeNames[] = {"", "lo", "hi", "wide"};

// Maps a special register name ("%tid.x") to its enum; false if it is not one.
bool special_from_name(std::string_view name, Special& out);

// Maps a type modifier ("u32") to a Type; Type::None if it is not one.
Type type_from_name(std::string_view name);

}  // namespace smemsim::ptx
