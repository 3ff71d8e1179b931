// Per-thread scratch space of type T, made on the thread's first use of it (issue 49). A large
// `static thread_local` object is part of every thread's TLS block, which the loader clears when
// the thread starts whether or not the thread runs the code that uses it: the executor's matrix
// and wgmma scratch made every process and every worker thread clear 410 KB (a hundred pages,
// about a millisecond on this project's development VM) before doing anything. Each use site
// names its own T (a struct of what it needs), so two sites never share one; the instantiations of
// one function template share its T, which is safe as long as the function does not re-enter
// itself (matrix_exec.cpp's multiply does not).
#pragma once

#include <memory>

namespace smemsim::util {

template <typename T>
T& thread_scratch() {
  static thread_local std::unique_ptr<T> p;
  if (!p) [[unlikely]]
    p = std::make_unique<T>();
  return *p;
}

}  // namespace smemsim::util
