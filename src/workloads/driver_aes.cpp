// builtin:aes (kernels/aes_tbox.cu): AES-128 ECB over seeded blocks with a seeded key; the CPU
// reference (aes_ref.hpp) is the byte-oriented cipher of FIPS-197.
#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "util/rng.hpp"
#include "workloads/aes_ref.hpp"
#include "workloads/builtin_drivers.hpp"
#include "workloads/builtin_util.hpp"

namespace smemsim::exec {
namespace aes {
namespace {

std::uint8_t xtime(std::uint8_t x) {
  return static_cast<std::uint8_t>((x << 1) ^ ((x & 0x80) ? 0x1b : 0));
}
std::uint8_t mul(std::uint8_t a, std::uint8_t b) {  // GF(2^8) product (§4.2)
  std::uint8_t p = 0;
  for (; b; b >>= 1, a = xtime(a))
    if (b & 1) p ^= a;
  return p;
}
std::uint8_t inverse(std::uint8_t x) {  // x^254 = x^-1 (0 -> 0)
  std::uint8_t r = 1;
  for (int k = 0; k < 254; ++k) r = mul(r, x);
  return x ? r : 0;
}
std::uint8_t rotl8(std::uint8_t x, int n) {
  return static_cast<std::uint8_t>((x << n) | (x >> (8 - n)));
}

struct Boxes {
  std::array<std::uint8_t, 256> s{}, si{};
  Boxes() {
    for (int x = 0; x < 256; ++x) {
      const std::uint8_t b = inverse(std::uint8_t(x));
      s[std::size_t(x)] = static_cast<std::uint8_t>(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^
                                                    rotl8(b, 4) ^ 0x63);
    }
    for (int x = 0; x < 256; ++x) si[s[std::size_t(x)]] = std::uint8_t(x);
  }
};
const Boxes& boxes() {
  static const Boxes b;
  return b;
}

using State = std::array<std::array<std::uint8_t, 4>, 4>;  // [row][column]

State load(const Block& in) {
  State s{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) s[r][c] = in[std::size_t(r + 4 * c)];
  return s;
}
Block store(const State& s) {
  Block out{};
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) out[std::size_t(r + 4 * c)] = s[r][c];
  return out;
}
void add_round_key(State& s, const Schedule& w, int round) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r)
      s[r][c] ^= static_cast<std::uint8_t>(w[std::size_t(4 * round + c)] >> (8 * r));
}
void sub_bytes(State& s, const std::array<std::uint8_t, 256>& box) {
  for (auto& row : s)
    for (auto& b : row) b = box[b];
}
void shift_rows(State& s, int dir) {  // row r rotated left by r (dir 1) or right (dir -1)
  for (int r = 1; r < 4; ++r) {
    std::array<std::uint8_t, 4> t{};
    for (int c = 0; c < 4; ++c) t[std::size_t(c)] = s[r][std::size_t((c + dir * r + 8) % 4)];
    s[r] = t;
  }
}
// mul(m, x) for every m below 16 (the MixColumns constants are 1-3 and 9-14), built once: the
// reference runs 9 MixColumns a block, and the bit-serial product was 7 % of `sim builtin:aes`.
const std::array<std::array<std::uint8_t, 256>, 16>& small_products() {
  static const auto t = [] {
    std::array<std::array<std::uint8_t, 256>, 16> p{};
    for (int m = 0; m < 16; ++m)
      for (int x = 0; x < 256; ++x)
        p[std::size_t(m)][std::size_t(x)] = mul(std::uint8_t(m), std::uint8_t(x));
    return p;
  }();
  return t;
}
void mix_columns(State& s, const std::uint8_t (&m)[4]) {  // circulant matrix with first row m
  const auto& prod = small_products();
  for (int c = 0; c < 4; ++c) {
    std::uint8_t a[4], out[4];
    for (int r = 0; r < 4; ++r) a[r] = s[r][c];
    for (int r = 0; r < 4; ++r) {
      out[r] = 0;
      for (int k = 0; k < 4; ++k) out[r] ^= prod[m[(k - r + 4) % 4]][a[k]];
    }
    for (int r = 0; r < 4; ++r) s[r][c] = out[r];
  }
}
constexpr std::uint8_t kMix[4] = {2, 3, 1, 1}, kInvMix[4] = {14, 11, 13, 9};

}  // namespace

std::uint8_t sbox(std::uint8_t x) {
  return boxes().s[x];
}
std::uint8_t inv_sbox(std::uint8_t x) {
  return boxes().si[x];
}

Schedule expand_key(const std::array<std::uint8_t, 16>& key) {
  Schedule w{};
  for (int i = 0; i < 4; ++i)
    w[std::size_t(i)] = key[std::size_t(4 * i)] | (key[std::size_t(4 * i + 1)] << 8) |
                        (key[std::size_t(4 * i + 2)] << 16) |
                        (std::uint32_t(key[std::size_t(4 * i + 3)]) << 24);
  std::uint8_t rcon = 1;
  for (int i = 4; i < 44; ++i) {
    std::uint32_t t = w[std::size_t(i - 1)];
    if (i % 4 == 0) {
      t = (t >> 8) | (t << 24);  // RotWord: byte 1 becomes byte 0
      t = sbox(std::uint8_t(t)) | (sbox(std::uint8_t(t >> 8)) << 8) |
          (sbox(std::uint8_t(t >> 16)) << 16) | (std::uint32_t(sbox(std::uint8_t(t >> 24))) << 24);
      t ^= rcon;
      rcon = xtime(rcon);
    }
    w[std::size_t(i)] = w[std::size_t(i - 4)] ^ t;
  }
  return w;
}

Block encrypt(const Schedule& w, const Block& in) {
  State s = load(in);
  add_round_key(s, w, 0);
  for (int round = 1; round <= 10; ++round) {
    sub_bytes(s, boxes().s);
    shift_rows(s, 1);
    if (round < 10) mix_columns(s, kMix);
    add_round_key(s, w, round);
  }
  return store(s);
}

Block decrypt(const Schedule& w, const Block& in) {  // the inverse cipher, §5.3
  State s = load(in);
  add_round_key(s, w, 10);
  for (int round = 9; round >= 0; --round) {
    shift_rows(s, -1);
    sub_bytes(s, boxes().si);
    add_round_key(s, w, round);
    if (round > 0) mix_columns(s, kInvMix);
  }
  return store(s);
}

std::array<std::uint32_t, 1280> kernel_tables(bool decrypt) {
  // Column r of MixColumns (InvMixColumns) times the S-box (inverse S-box) output, packed
  // little-endian: T0[x] = (m0 s, m1 s, m2 s, m3 s) for the first column; T1..T3 rotate it.
  const auto& box = decrypt ? boxes().si : boxes().s;
  const std::uint8_t* m = decrypt ? kInvMix : kMix;
  std::array<std::uint32_t, 1280> t{};
  for (int x = 0; x < 256; ++x) {
    const std::uint8_t s = box[std::size_t(x)];
    const std::uint32_t t0 = mul(m[0], s) | (mul(m[3], s) << 8) | (mul(m[2], s) << 16) |
                             (std::uint32_t(mul(m[1], s)) << 24);
    for (int k = 0; k < 4; ++k)
      t[std::size_t(256 * k + x)] = k ? (t0 << (8 * k)) | (t0 >> (32 - 8 * k)) : t0;
    t[std::size_t(1024 + x)] = s;
  }
  return t;
}

Schedule kernel_keys(const Schedule& w, bool decrypt) {
  if (!decrypt) return w;
  Schedule d{};
  for (int round = 0; round <= 10; ++round) {
    State s{};
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r)
        s[r][c] = static_cast<std::uint8_t>(w[std::size_t(4 * (10 - round) + c)] >> (8 * r));
    if (round > 0 && round < 10) mix_columns(s, kInvMix);
    for (int c = 0; c < 4; ++c)
      d[std::size_t(4 * round + c)] =
          s[0][c] | (s[1][c] << 8) | (s[2][c] << 16) | (std::uint32_t(s[3][c]) << 24);
  }
  return d;
}

}  // namespace aes

void aes_driver(Workload& w, const BuiltinOptions& o) {
  const std::string v = o.variant.empty() ? "encrypt" : o.variant;
  if (v != "encrypt" && v != "decrypt")
    throw InputError("builtin:aes: --variant must be encrypt or decrypt");
  const bool dec = v == "decrypt";
  w.kernel = dec ? "aes_decrypt" : "aes_encrypt";
  const std::uint32_t blocks = or_default(o.size, 257 * 64);
  if (blocks > (1u << 24)) throw InputError("builtin:aes: --size is at most 16777216 blocks");
  w.launch.block = shape_or(o.block, {256, 1, 1});
  if (w.launch.block.x != 256 || w.launch.block.y != 1 || w.launch.block.z != 1)
    throw InputError("builtin:aes: the kernel needs --block 256");
  w.launch.grid = shape_or(o.grid, {(blocks + 63) / 64, 1, 1});
  if (w.launch.grid.count() * 64 < blocks)
    throw InputError(fmt::format("builtin:aes: {} blocks need --grid {} (64 per CTA)", blocks,
                                 (blocks + 63) / 64));
  Rng rng(o.seed);
  std::array<std::uint8_t, 16> key{};
  for (auto& b : key) b = static_cast<std::uint8_t>(rng.below(256));
  const aes::Schedule sched = aes::expand_key(key);
  std::vector<aes::Block> plain(blocks);
  for (auto& p : plain)
    for (auto& b : p) b = static_cast<std::uint8_t>(rng.below(256));
  std::vector<aes::Block> input = plain, want(blocks);
  for (std::uint32_t i = 0; i < blocks; ++i) {
    if (dec) input[i] = aes::encrypt(sched, plain[i]);
    want[i] = dec ? plain[i] : aes::encrypt(sched, plain[i]);
  }
  auto words = [](const std::vector<aes::Block>& v) {
    std::vector<std::uint32_t> out(v.size() * 4);
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t k = 0; k < 16; ++k)
        out[i * 4 + k / 4] |= std::uint32_t(v[i][k]) << (8 * (k % 4));
    return out;
  };
  const auto tables = aes::kernel_tables(dec);
  const auto keys = aes::kernel_keys(sched, dec);
  const auto ib = w.memory.add(make_buffer("in", ElemType::U32, words(input)));
  const auto ob = w.memory.add(
      make_buffer("out", ElemType::U32, std::vector<std::uint32_t>(std::size_t(blocks) * 4, 0)));
  const auto tb = w.memory.add(make_buffer(
      "tables", ElemType::U32, std::vector<std::uint32_t>(tables.begin(), tables.end())));
  const auto kb = w.memory.add(
      make_buffer("keys", ElemType::U32, std::vector<std::uint32_t>(keys.begin(), keys.end())));
  w.launch.args = {Arg::buf(ib), Arg::buf(ob), Arg::buf(tb), Arg::buf(kb),
                   Arg::integer(std::int64_t(blocks) * 4)};
  w.description = fmt::format("AES-128 {} of {} blocks (T-boxes in shared memory, seed 004 Fig. 2)",
                              dec ? "decryption" : "encryption", blocks);
  const std::vector<std::uint32_t> expect = words(want);
  w.check = [expect](const GlobalMemory& m) {
    return compare_exact("out", read_buffer<std::uint32_t>(m, "out"), expect);
  };
}

}  // namespace smemsim::exec
