// Seed 002 Table 1: the number of hash functions per class for n address bits and m index bits.
#include <cmath>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "smemsim/hash_search.hpp"

namespace smemsim {
namespace {

// Binomial coefficient by the multiplicative formula (each partial product is itself a binomial).
double binomial(double n, int k) {
  long double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return double(std::round(r));
}

}  // namespace

HashCount hash_count(int n, int m) {
  if (n < 1 || n > kMaxAddrBits)
    throw InputError(fmt::format("--addr-bits {} is out of range [1, {}]", n, kMaxAddrBits));
  if (m < 1 || m > n)
    throw InputError(
        fmt::format("--bank-bits {} is out of range [1, {}] (at most the address bits)", m, n));
  HashCount c;
  // (2^m)^(2^n) functions map n to m bits (002 §4, [2]): log10 = 2^n * m * log10(2).
  c.all_functions_log10 = std::ldexp(1.0, n) * m * std::log10(2.0);
  c.xor_based = std::ldexp(1.0, n * m);  // 2^(nm) XOR-based functions (002 §4)
  // Eq. 9: N(n, m) = prod_{i=1..m} (2^(n-i+1) - 1) / (2^(m-i+1) - 1).
  long double u = 1;
  for (int i = 1; i <= m; ++i)
    u *= (std::ldexp(1.0L, n - i + 1) - 1) / (std::ldexp(1.0L, m - i + 1) - 1);
  c.unique_xor = double(std::round(u));
  c.bitvector_permutation = n - m + 1;                           // 002 §4.1
  c.bitvector_xor = double(n - m + 1) * n * std::ldexp(1.0, m);  // 002 §4.2
  c.bitwise_permutation = binomial(n, m);                        // 002 §4.3
  c.bitwise_xor = binomial(double(n) * (n + 1) / 2, m);          // 002 §4.4, Table 3
  return c;
}

}  // namespace smemsim
