// A small, fully specified random generator so that every seeded result is bit-identical on every
// platform and standard library (std::uniform_int_distribution is implementation-defined).
// xoshiro256** (Blackman & Vigna), seeded through splitmix64; bounded draws by Lemire's
// multiply-and-reject method, which is unbiased.
#pragma once

#include <bit>
#include <cstdint>

namespace smemsim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : s_) s = splitmix(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, bound), bound >= 1.
  std::uint64_t below(std::uint64_t bound) {
    if (bound <= 1) return 0;
    if (bound <= 0xffffffffu) {
      const std::uint32_t b = static_cast<std::uint32_t>(bound);
      std::uint64_t m = std::uint64_t(std::uint32_t(next() >> 32)) * b;
      std::uint32_t low = std::uint32_t(m);
      if (low < b) {
        const std::uint32_t threshold = std::uint32_t(-b) % b;
        while (low < threshold) {
          m = std::uint64_t(std::uint32_t(next() >> 32)) * b;
          low = std::uint32_t(m);
        }
      }
      return m >> 32;
    }
    // Wide bounds: rejection on the smallest enclosing power of two.
    const int bits = std::bit_width(bound - 1);
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << bits) - 1);
    for (;;) {
      const std::uint64_t v = next() & mask;
      if (v < bound) return v;
    }
  }
  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

  // A seed for stream `index` derived from `seed`: points of a sweep get independent streams.
  static std::uint64_t derive(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t x = seed ^ (0x9e3779b97f4a7c15ull * (index + 1));
    return splitmix(x);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t s_[4];
};

}  // namespace smemsim
