// Mapped zero blocks, and the freed ones kept for reuse (zeroed.hpp).
#include "util/zeroed.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#define SMEMSIM_ZEROED_MMAP 1
#endif

namespace smemsim::util::detail {

#ifdef SMEMSIM_ZEROED_MMAP
namespace {

// Freed blocks kept, at most this many bytes of them (their untouched pages cost nothing).
constexpr std::size_t kKeepBytes = std::size_t(256) << 20;

struct Kept {
  void* p;
  std::size_t bytes;
};
struct Pool {
  std::mutex mu;
  std::vector<Kept> blocks;
  std::size_t bytes = 0;
};
Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: blocks may be freed during static destruction
  return *p;
}

bool zero(const unsigned char* p, std::size_t n) {
  std::uint64_t any = 0;
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    any |= w;
  }
  for (std::size_t i = n & ~std::size_t(7); i < n; ++i) any |= p[i];
  return any == 0;
}

// Zeroes a kept block. Pages in memory are cleared in place where they are not zero already (a
// page only read maps the system's zero page: writing it would fault). The others read zero when
// next touched, unless the system has swap: a page swapped out would come back with its data, so
// those are dropped.
void clear(void* p, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t pages = (bytes + page - 1) / page;
  std::vector<unsigned char> in(pages);
  auto* base = static_cast<unsigned char*>(p);
  struct sysinfo si {};
  if (::mincore(p, bytes, in.data()) != 0 || ::sysinfo(&si) != 0) {
    std::memset(p, 0, bytes);
    return;
  }
  const bool swap = si.totalswap != 0;
  for (std::size_t i = 0; i < pages;) {
    const bool resident = in[i] & 1;
    std::size_t j = i + 1;
    while (j < pages && bool(in[j] & 1) == resident) ++j;
    if (resident) {
      for (std::size_t k = i; k < j; ++k) {
        unsigned char* at = base + k * page;
        const std::size_t len = std::min((k + 1) * page, bytes) - k * page;
        if (!zero(at, len)) std::memset(at, 0, len);
      }
    } else if (swap) {
      const std::size_t len = std::min(j * page, bytes) - i * page;
      if (::madvise(base + i * page, len, MADV_DONTNEED) != 0) std::memset(base + i * page, 0, len);
    }
    i = j;
  }
}

}  // namespace

void* map_zeroed(std::size_t bytes) {
  void* p = nullptr;
  {
    Pool& k = pool();
    const std::lock_guard lock(k.mu);
    const auto it = std::find_if(k.blocks.begin(), k.blocks.end(),
                                 [&](const Kept& b) { return b.bytes == bytes; });
    if (it != k.blocks.end()) {
      p = it->p;
      k.bytes -= bytes;
      k.blocks.erase(it);
    }
  }
  if (p) {
    try {
      clear(p, bytes);
      return p;
    } catch (...) {  // no memory for the page map: a fresh block instead
      ::munmap(p, bytes);
    }
  }
  p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap_zeroed(void* p, std::size_t bytes) noexcept {
  {
    Pool& k = pool();
    const std::lock_guard lock(k.mu);
    if (k.bytes + bytes <= kKeepBytes) {
      try {
        k.blocks.push_back({p, bytes});
        k.bytes += bytes;
        return;
      } catch (...) {  // no room to note it: give it back
      }
    }
  }
  ::munmap(p, bytes);
}
#else
void* map_zeroed(std::size_t) {
  return nullptr;
}
void unmap_zeroed(void*, std::size_t) noexcept {}
#endif

}  // namespace smemsim::util::detail
