// Interruption at the simulators' safe points (issue 48: a long `smemsim.run` from Python ignored
// Ctrl-C). An embedding host installs a hook; run() polls it every 2^20 warp-instructions and the
// cycle model every 65,536 cycles, on the thread that drives the launch, where nothing is half
// done. The hook throws Interrupted to stop; the CLI installs none (Ctrl-C ends the process).
#pragma once

#include <exception>

namespace smemsim {

struct Interrupted : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

using InterruptHook = void (*)();
void set_interrupt_hook(InterruptHook hook);  // nullptr: none
void poll_interrupt();                        // runs the hook, if there is one

}  // namespace smemsim
