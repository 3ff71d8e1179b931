// What a kernel author debugs with (issue 45, docs/exec.md "printf, assert and racecheck"): the
// output of the kernels' printf calls, and the shared-memory hazards the race checker finds.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace smemsim::exec {

// printf output of the launches run on one GlobalMemory. Each call of a thread is one record,
// written whole (no interleaving within a call). Records are ordered by the clock of the issue
// (the cycle model's cycle, or the functional run's warp-instructions), then the SM, then the
// order of the calls on that SM (lanes ascending): the same on any number of simulator threads.
//
// The GPU's buffer (cudaLimitPrintfFifoSize, 1 MiB by default) is circular: "if more output is
// produced during kernel execution than can fit in the buffer, older output is overwritten"
// (CUDA C++ Programming Guide, "Formatted Output"). So is this one: take() keeps the newest records
// whose text fits in `limit` bytes. The GPU's buffer holds each call's arguments, not its text, so
// the point at which output is lost differs (documented).
class PrintfLog {
 public:
  PrintfLog() = default;
  // A copy of a GlobalMemory (a variant run by `fix`) starts with no output of its own.
  PrintfLog(const PrintfLog&) {}
  PrintfLog& operator=(const PrintfLog&) { return *this; }

  // One call's text, issued at `clock` on SM `sm`, under a buffer of `limit` bytes.
  void add(std::uint64_t clock, std::uint32_t sm, std::string text, std::uint64_t limit);

  struct Taken {
    std::string text;           // the records kept, in order
    std::uint64_t records = 0;  // calls kept
    std::uint64_t dropped = 0;  // calls overwritten (older than what was kept)
    std::uint64_t limit = 0;    // the buffer's bytes
  };
  // The output so far; the log is empty after.
  Taken take();
  bool empty() const;

 private:
  struct Record {
    std::uint64_t clock = 0, seq = 0;
    std::uint32_t sm = 0;
    std::string text;
  };
  struct PerSm {
    std::deque<Record> records;
    std::uint64_t bytes = 0, seq = 0, dropped = 0;
  };
  mutable std::mutex m_;
  std::map<std::uint32_t, PerSm> sms_;
  std::uint64_t limit_ = 1u << 20;
};

// One kind of shared-memory hazard between two instructions of different warps of one block with
// no barrier between them (compute-sanitizer racecheck's terms): a read of what another warp wrote
// (read after write), a write over what another warp read (write after read) or wrote (write after
// write). `first` is the instruction of the earlier access, `second` of the later one (indices
// into Kernel::code); the counts are byte-level hazards found and the blocks they were found in.
struct RaceHazard {
  enum class Kind : std::uint8_t { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };
  Kind kind = Kind::ReadAfterWrite;
  std::uint32_t first = 0, second = 0;
  std::string kernel;  // the kernel's name (a pipeline's launches have several; set by the caller)
  std::string array;   // the shared array of the first byte found ("" when in none)
  std::uint64_t count = 0, blocks = 0;
  std::uint64_t first_block = 0;  // CTA-linear index of the first block it was found in
};

const char* to_string(RaceHazard::Kind k);  // "read after write" ...

}  // namespace smemsim::exec
