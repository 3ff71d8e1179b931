// Reference sets of a trace: one per shared-memory transaction, deduplicated, bit-sliced.
#include <algorithm>
#include <filesystem>

#include <fcntl.h>
#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "analysis/lane_sort.hpp"
#include "smemsim/classify.hpp"
#include "smemsim/error.hpp"
#include "smemsim/hash_search.hpp"

namespace smemsim {

IndexGeometry target_geometry(const Arch& arch, HashTarget target) {
  if (target == HashTarget::Bank) return {arch.bank_bits(), arch.bank_addr_bits()};
  if (arch.locks == 0)
    throw InputError(
        fmt::format("--target lock: arch '{}' has one lock per word (native atomics); "
                    "set atomics.locks",
                    arch.name));
  return {arch.lock_bits(), arch.word_addr_bits()};
}

ReferenceSets::ReferenceSets(const Arch& arch, HashTarget target, IndexGeometry g)
    : target_(target),
      g_(g),
      transaction_lanes_(static_cast<int>(arch.transaction_lanes)),
      unit_shift_(target == HashTarget::Bank ? std::countr_zero(arch.words_per_bank_unit()) : 0),
      network_(g.addr_bits <= 16 && arch.transaction_lanes <= 32 ? detail::lane_sort_best()
                                                                 : nullptr) {
  if (g.addr_bits < 1 || g.addr_bits > kMaxAddrBits)
    throw InputError(
        fmt::format("{} address bits is out of range [1, {}]", g.addr_bits, kMaxAddrBits));
  if (g.out_bits < 1 || g.out_bits > g.addr_bits || g.out_bits > kMaxIndexBits)
    throw InputError(fmt::format("an index of {} bits cannot be taken from {} address bits",
                                 g.out_bits, g.addr_bits));
}

void ReferenceSets::add(const WarpAccess& wa) {
  ++accesses_;
  if (all_strided_) {
    // 002 §5.1: the pruning needs every access linear or strided; S = S0 * 2^k and
    // MSB = floor(log2((t - 1) * S)) with t the threads of the warp.
    const Classification c = classify_access(wa);
    if (c.cls == AccessClass::Linear || c.cls == AccessClass::Stride) {
      const int k = stride_k(c.stride);
      if (k < 32) ks_ |= 1u << k;
      max_msb_ = std::max(max_msb_, stride_msb(c.stride, wa.lanes));
    } else {
      all_strided_ = false;
    }
  }
  const int tl = transaction_lanes_;
  const std::uint64_t limit = std::uint64_t{1} << g_.addr_bits;
  std::array<std::uint32_t, kMaxLanes> elems;
  alignas(64) std::array<std::uint16_t, 32> keys;
  for (int first = 0; first < wa.lanes; first += tl) {
    const int count = std::min(tl, wa.lanes - first);
    LaneMask m = (wa.active >> first) & lanes_mask(count);
    if (!m) continue;
    ++transactions_;
    int c = 0;
    for (; m; m &= m - 1) {
      const std::uint32_t a = wa.addr[std::size_t(first + std::countr_zero(m))] >> unit_shift_;
      if (a >= limit)
        throw InputError(
            fmt::format("address {} does not fit in the {} address bits of the search "
                        "(raise --addr-bits)",
                        a, g_.addr_bits));
      elems[std::size_t(c++)] = a;
    }
    // Banks: distinct bank-unit addresses (a broadcast is no conflict); locks: every lane.
    const bool distinct = target_ == HashTarget::Bank;
    if (network_) {
      for (int i = 0; i < 32; ++i)
        keys[std::size_t(i)] = i < c ? std::uint16_t(elems[std::size_t(i)]) : std::uint16_t(0xFFFF);
      std::uint32_t keep = network_->sort_keys(keys.data());
      keep = (distinct ? keep : ~0u) & (c == 32 ? ~0u : (1u << c) - 1);
      c = 0;
      for (; keep; keep &= keep - 1)
        elems[std::size_t(c++)] = keys[std::size_t(std::countr_zero(keep))];
    } else {
      std::sort(elems.begin(), elems.begin() + c);
      if (distinct) c = int(std::unique(elems.begin(), elems.begin() + c) - elems.begin());
    }
    add_set(elems.data(), c);
  }
}

namespace {

// slice[i] bit p = bit i of elems[p]: the set seen one address bit at a time (seed 002 §5's
// evaluation works on these). SSE2: each address bit of four elements is one shift and one
// movemask.
void bit_slices(const std::uint32_t* elems, int count, int n, std::uint64_t* slice) {
#if defined(__SSE2__)
  if (count <= 32) {
    alignas(16) std::uint32_t buf[32] = {};
    std::copy(elems, elems + count, buf);
    const int vecs = (count + 3) / 4;
    __m128i v[8];
    for (int q = 0; q < vecs; ++q) v[q] = _mm_load_si128(reinterpret_cast<const __m128i*>(buf) + q);
    for (int i = 0; i < n; ++i) {
      const __m128i shift = _mm_cvtsi32_si128(31 - i);  // bit i to the sign bit
      std::uint64_t s = 0;
      for (int q = 0; q < vecs; ++q)
        s |= std::uint64_t(unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_sll_epi32(v[q], shift)))))
             << (4 * q);
      slice[i] = s;
    }
    return;
  }
#endif
  for (int p = 0; p < count; ++p)
    for (std::uint32_t e = elems[p]; e; e &= e - 1)
      slice[std::size_t(std::countr_zero(e))] |= std::uint64_t{1} << p;
}

}  // namespace

void ReferenceSets::add_set(std::uint32_t* elems, int count) {
  const int n = g_.addr_bits;
  std::array<std::uint64_t, kMaxAddrBits> slice{};
  bit_slices(elems, count, n, slice.data());
  const std::uint64_t all = lanes_mask(count);
  // FNV-1a over the slices identifies the sorted element list.
  std::uint64_t h = 1469598103934665603ull ^ all;
  for (int i = 0; i < n; ++i) h = (h ^ slice[std::size_t(i)]) * 1099511628211ull;
  h ^= h >> 29;
  const bool narrow = count <= 32;
  const std::size_t mask = table_.size() - 1;
  for (std::size_t at = h & mask; table_[at].id != kEmpty; at = (at + 1) & mask) {
    if (table_[at].hash != h) continue;
    const std::uint64_t id = table_[at].id;
    if (narrow && !(id >> 63)) {
      const std::uint32_t* blk = live_block(id / kBlock);
      const std::size_t l = id % kBlock;
      if (blk[std::size_t(n) * kBlock + l] != std::uint32_t(all)) continue;
      bool same = true;
      for (int i = 0; i < n && same; ++i)
        same = blk[std::size_t(i) * kBlock + l] == slice[std::size_t(i)];
      if (same) {
        ++live_.pages[id / kBlock / kPageBlocks].weights[id % (kBlock * kPageBlocks)];
        return;
      }
    } else if (!narrow && (id >> 63)) {
      WideSet& w = live_.wide[id & ~(std::uint64_t{1} << 63)];
      if (w.all == all && w.slice == slice) {
        ++w.weight;
        return;
      }
    }
  }
  reserve_one(narrow);
  if (narrow) {
    const std::size_t id = live_.narrow_count++;
    if (id % (kBlock * kPageBlocks) == 0) live_.pages.push_back(new_page());
    std::uint32_t* blk = live_block(id / kBlock);
    const std::size_t l = id % kBlock;
    for (int i = 0; i < n; ++i)
      blk[std::size_t(i) * kBlock + l] = std::uint32_t(slice[std::size_t(i)]);
    blk[std::size_t(n) * kBlock + l] = std::uint32_t(all);
    live_.pages.back().weights[id % (kBlock * kPageBlocks)] = 1;
    table_insert(h, id);
  } else {
    WideSet w;
    w.slice = slice;
    w.all = all;
    w.weight = 1;
    table_insert(h, std::uint64_t(live_.wide.size()) | (std::uint64_t{1} << 63));
    live_.wide.push_back(w);
  }
  note_peak(live_bytes());
}

ReferenceSets::Page ReferenceSets::new_page() const {
  Page p;
  p.narrow.assign(kPageBlocks * block_stride(), 0);
  p.weights.assign(kPageBlocks * kBlock, 0);
  return p;
}

void ReferenceSets::reserve_one(bool narrow) {
  // Bytes the insertion allocates: a new page, a bigger wide-set vector or table (the old one
  // still held while it is copied).
  std::uint64_t extra = 0;
  if (narrow && live_.narrow_count % (kBlock * kPageBlocks) == 0)
    extra += page_bytes();
  else if (!narrow && live_.wide.size() == live_.wide.capacity())
    extra += std::max<std::size_t>(1, 2 * live_.wide.capacity()) * sizeof(WideSet);
  if (2 * (table_used_ + 1) > table_.size()) extra += 2 * table_.size() * sizeof(Slot);
  if (budget_ && live_bytes() + extra > budget_ / 2 &&
      (live_.narrow_count || !live_.wide.empty())) {
    spill();
    return;
  }
  note_peak(live_bytes() + extra);
  if (!narrow && live_.wide.size() == live_.wide.capacity())
    live_.wide.reserve(std::max<std::size_t>(1, 2 * live_.wide.capacity()));
}

void ReferenceSets::spill() {
  if (!spill_file_) {
    // An unnamed file in TMPDIR (or /tmp), removed as soon as it is open.
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    std::string name = (dir / "smemsim-sets-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
      throw InputError(fmt::format(
          "hash search: the sets pass the memory budget ({} MiB) and no spill file can be "
          "created in {} (set TMPDIR, or raise --max-memory)",
          budget_ >> 20, dir.string()));
    ::unlink(name.c_str());
    spill_file_.reset(::fdopen(fd, "w+b"), [](std::FILE* f) {
      if (f) std::fclose(f);
    });
    if (!spill_file_) {
      ::close(fd);
      throw InputError("hash search: cannot open the spill file");
    }
  }
  std::FILE* f = spill_file_.get();
  const auto put = [&](const void* p, std::size_t bytes) {
    if (bytes && std::fwrite(p, 1, bytes, f) != bytes)
      throw InputError(
          fmt::format("hash search: cannot write {} MiB of sets to the spill file in TMPDIR (disk "
                      "full?); raise --max-memory or free space",
                      (spill_end_ + bytes) >> 20));
  };
  if (std::fseek(f, long(spill_end_), SEEK_SET) != 0)
    throw InputError("hash search: cannot seek in the spill file");
  Spilled rec{spill_end_, live_.narrow_count, live_.wide.size()};
  // Whole pages (the unused tail of the last one included: a page is read back whole).
  for (const Page& p : live_.pages) {
    put(p.narrow.data(), p.narrow.size() * 4);
    put(p.weights.data(), p.weights.size() * 8);
  }
  put(live_.wide.data(), live_.wide.size() * sizeof(WideSet));
  spill_end_ += live_.pages.size() * page_bytes() + live_.wide.size() * sizeof(WideSet);
  spilled_.push_back(rec);
  spilled_sets_ += live_.narrow_count + live_.wide.size();
  live_ = Store{};
  table_ = std::vector<Slot>(kFirstSlots);
  table_used_ = 0;
}

std::size_t ReferenceSets::unique_sets() const {
  return spilled_sets_ + live_.narrow_count + live_.wide.size();
}

void ReferenceSets::select_segment(std::size_t i) const {
  if (i + 1 >= segments()) {
    loaded_active_ = false;
    return;
  }
  const Spilled& rec = spilled_[i];
  std::FILE* f = spill_file_.get();
  const std::size_t pages = (rec.narrow_count + kBlock * kPageBlocks - 1) / (kBlock * kPageBlocks);
  if (loaded_.pages.size() > pages) loaded_.pages.resize(pages);
  while (loaded_.pages.size() < pages) loaded_.pages.push_back(new_page());
  loaded_.wide.resize(rec.wide_count);
  loaded_.narrow_count = rec.narrow_count;
  note_peak(live_bytes() + store_bytes(loaded_));
  const auto get = [&](void* p, std::size_t bytes) {
    if (bytes && std::fread(p, 1, bytes, f) != bytes)
      throw InputError("hash search: cannot read the spill file back (was TMPDIR cleaned?)");
  };
  if (std::fseek(f, long(rec.offset), SEEK_SET) != 0)
    throw InputError("hash search: cannot seek in the spill file");
  for (Page& p : loaded_.pages) {
    get(p.narrow.data(), p.narrow.size() * 4);
    get(p.weights.data(), p.weights.size() * 8);
  }
  get(loaded_.wide.data(), loaded_.wide.size() * sizeof(WideSet));
  loaded_active_ = true;
}

void ReferenceSets::table_insert(std::uint64_t hash, std::uint64_t id) {
  if (2 * (table_used_ + 1) > table_.size()) {  // grow: rehash every slot into a table twice as big
    std::vector<Slot> old(table_.size() * 2);
    old.swap(table_);
    table_used_ = 0;
    for (const Slot& s : old)
      if (s.id != kEmpty) table_insert(s.hash, s.id);
  }
  const std::size_t mask = table_.size() - 1;
  std::size_t at = hash & mask;
  while (table_[at].id != kEmpty) at = (at + 1) & mask;
  table_[at] = {hash, id};
  ++table_used_;
}

}  // namespace smemsim
