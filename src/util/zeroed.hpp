// An array that starts all zero without being written (issue 49). calloc hands a large block's
// pages over from the system untouched: each is zero and faults in when first used, so the parts
// a run never reaches cost it nothing. A std::vector's value-initialisation writes every byte: an
// H100's L1 and L2 tags are tens of megabytes, of which a small launch touches a few pages.
// T must be trivially copyable and all-zero must be its starting state.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace smemsim::util {

template <typename T>
class Zeroed {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  Zeroed() = default;
  explicit Zeroed(std::size_t n) { reset(n); }
  void reset(std::size_t n) {
    p_.reset(n ? static_cast<T*>(std::calloc(n, sizeof(T))) : nullptr);
    if (n && !p_) throw std::bad_alloc();
    n_ = n;
  }
  T* data() const { return p_.get(); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> p_;
  std::size_t n_ = 0;
};

}  // namespace smemsim::util
