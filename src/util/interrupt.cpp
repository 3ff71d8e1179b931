#include "smemsim/interrupt.hpp"

#include <atomic>

namespace smemsim {
namespace {
std::atomic<InterruptHook> g_hook{nullptr};
}  // namespace

void set_interrupt_hook(InterruptHook hook) {
  g_hook.store(hook, std::memory_order_release);
}

void poll_interrupt() {
  if (const InterruptHook h = g_hook.load(std::memory_order_acquire)) h();
}

}  // namespace smemsim
