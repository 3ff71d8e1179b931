// An array that starts all zero without being written (issue 49). A block of 16 KiB or more is
// mapped from the system (anonymous mmap): its pages are zero and fault in when first used, so the
// parts a run never reaches cost it nothing. calloc does this only above glibc's mmap threshold
// (128 KiB, raised at run time as blocks are freed); below it, calloc clears the block with
// memset, faulting in every page: an SM's 64 KB fill ring and 56 KB of L1 tags were a quarter of
// a small launch's time on volta-v100, most of it page faults. A std::vector's
// value-initialisation writes every byte too: an H100's L1 and L2 tags are tens of megabytes, of
// which a small launch touches a few pages. Smaller blocks come from calloc.
// T must be trivially copyable and all-zero must be its starting state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#define SMEMSIM_ZEROED_MMAP 1
#endif

namespace smemsim::util {

template <typename T>
class Zeroed {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  static constexpr std::size_t kMapBytes = std::size_t(16) << 10;

  Zeroed() = default;
  explicit Zeroed(std::size_t n) { reset(n); }
  Zeroed(const Zeroed&) = delete;
  Zeroed& operator=(const Zeroed&) = delete;
  Zeroed(Zeroed&& o) noexcept { swap(o); }
  Zeroed& operator=(Zeroed&& o) noexcept {
    Zeroed(std::move(o)).swap(*this);
    return *this;
  }
  ~Zeroed() { release(); }

  void reset(std::size_t n) {
    release();
    if (n == 0) return;
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
#ifdef SMEMSIM_ZEROED_MMAP
    if (bytes >= kMapBytes) {
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      p_ = static_cast<T*>(p);
      n_ = n;
      mapped_ = true;
      return;
    }
#endif
    p_ = static_cast<T*>(std::calloc(n, sizeof(T)));
    if (!p_) throw std::bad_alloc();
    n_ = n;
  }
  T* data() const {
    return p_;
  }
  std::size_t size() const {
    return n_;
  }
  T& operator[](std::size_t i) const {
    return p_[i];
  }

 private:
  void swap(Zeroed& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(mapped_, o.mapped_);
  }
  void release() noexcept {
#ifdef SMEMSIM_ZEROED_MMAP
    if (mapped_) ::munmap(p_, n_ * sizeof(T));
#endif
    if (!mapped_) std::free(p_);
    p_ = nullptr;
    n_ = 0;
    mapped_ = false;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
  bool mapped_ = false;
};

}  // namespace smemsim::util
