#include <bit>
#include <charconv>

#include "smemsim/trace.hpp"

namespace smemsim {

TraceWriter::TraceWriter(std::ostream& out, std::uint32_t warp_size, AddrUnit unit)
    : out_(out), unit_(unit) {
  out_ << "smemsim-trace v1 unit=" << (unit == AddrUnit::Byte ? "byte" : "word")
       << " warp=" << warp_size << "\n";
}

void TraceWriter::write(const WarpAccess& wa) {
  line_.clear();
  line_ += op_name(wa.op);
  char num[24];
  auto append = [&](std::uint64_t v) {
    auto [p, ec] = std::to_chars(num, num + sizeof num, v);
    line_.append(num, p);
  };
  if (wa.pc) {
    line_ += " pc=";
    append(wa.pc);
  }
  if (wa.warp) {
    line_ += " warp=";
    append(wa.warp);
  }
  // Trailing inactive lanes are omitted (the reader treats missing lanes as inactive).
  int last = 63 - std::countl_zero(wa.active);
  if (last < 0) line_ += " -";  // an access with no active lane keeps one placeholder
  for (int l = 0; l <= last; ++l) {
    line_ += ' ';
    if (wa.is_active(l))
      append(unit_ == AddrUnit::Byte ? std::uint64_t{wa.addr[l]} * 4 : wa.addr[l]);
    else
      line_ += '-';
  }
  line_ += '\n';
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  ++written_;
}

}  // namespace smemsim
