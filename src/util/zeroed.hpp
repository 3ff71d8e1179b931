// An array that starts all zero without being written (issue 49), so that the parts a run never
// reaches cost it nothing: on this project's development VM each page first touched costs about
// 10 microseconds.
// - Blocks of 128 KiB or more come from calloc, which maps them from the system: their pages are
//   zero and fault in when first used. (A std::vector's value-initialisation writes every byte:
//   an H100's L2 tags are tens of megabytes, of which a small launch touches a few pages.)
// - Below that, calloc clears a block from its heap with memset, faulting in every page: an SM's
//   64 KB fill ring and its L1 records were a quarter of a small launch's time on volta-v100.
//   Blocks from 16 KiB are mapped here instead, and a freed one is kept for the next block of its
//   size (the same launch again: a study's sweep, a benchmark's loop), cleared by zeroing only
//   the pages its last user touched (zeroed.cpp).
// - Smaller blocks come from calloc.
// T must be trivially copyable and all-zero must be its starting state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace smemsim::util {

namespace detail {
// `bytes` of zero bytes, page-aligned, or nullptr where the system maps nothing (then calloc).
void* map_zeroed(std::size_t bytes);
// Gives back a block map_zeroed returned, of that size.
void unmap_zeroed(void* p, std::size_t bytes) noexcept;
}  // namespace detail

// ZeroedSource::Mapped: a block from kMapBytes up is mapped here whatever its size. For tables a
// run makes many of at once and reaches only in part, each above kCallocBytes: an SM's per-register
// tables (warps x registers x 8 bytes: AES's 172 KB, three an SM on volta-v100, 80 SMs) came from
// calloc's heap once glibc's threshold had risen, which cleared every page of them at the SM's
// construction though a launch touches the rows of the warps it runs (issue 49). glibc never sees
// these blocks, so its threshold moves as before.
enum class ZeroedSource { Default, Mapped };

template <typename T>
class Zeroed {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  // Mapped here: blocks from 16 KiB up to glibc's first mmap threshold. calloc maps larger ones
  // itself until it raises that threshold as they are freed; then they come from its heap and it
  // clears what it reuses, as before issue 49's fourth pass. That rise is wanted: it lets the
  // large vectors of the next launch in the process (a CTA's registers and shared memory) come
  // from the heap, not from fresh pages. Mapping every large block here kept the threshold low,
  // and a benchmark's loop then faulted those vectors in at every launch.
  static constexpr std::size_t kMapBytes = std::size_t(16) << 10;
  static constexpr std::size_t kCallocBytes = std::size_t(128) << 10;

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

  void reset(std::size_t n, ZeroedSource source = ZeroedSource::Default) {
    release();
    if (n == 0) return;
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= kMapBytes && (bytes < kCallocBytes || source == ZeroedSource::Mapped)) {
      if (void* p = detail::map_zeroed(bytes)) {
        p_ = static_cast<T*>(p);
        n_ = n;
        mapped_ = true;
        return;
      }
    }
    p_ = static_cast<T*>(std::calloc(n, sizeof(T)));
    if (!p_) throw std::bad_alloc();
    n_ = n;
  }
  T* data() const { return p_; }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](std::size_t i) const { return p_[i]; }

 private:
  void swap(Zeroed& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(mapped_, o.mapped_);
  }
  void release() noexcept {
    if (mapped_)
      detail::unmap_zeroed(p_, n_ * sizeof(T));
    else
      std::free(p_);
    p_ = nullptr;
    n_ = 0;
    mapped_ = false;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
  bool mapped_ = false;
};

}  // namespace smemsim::util
