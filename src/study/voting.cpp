// Shared by the voting studies (histogram, hough): their images, replication factors, hashes, and
// the claims table each report opens with (docs/studies.md).
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "studies.hpp"
#include "util/rng.hpp"

namespace smemsim::study {

std::vector<images::Gray12> resolve_images(const StudyConfig& cfg, int gen_w, int gen_h) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::vector<images::Gray12> out;
  const auto items = cfg.strings("images");
  const std::int64_t max_images = cfg.integer("max_images");
  if (max_images < 1)
    throw InputError(fmt::format("study parameter 'max_images': {} must be >= 1", max_images));
  const auto add_folder = [&](const std::string& dir) {
    const auto found = images::list_images(dir);
    if (found.empty())
      throw InputError(fmt::format(
          "study parameter 'images': no photographs in {} (run scripts/fetch-images.sh, or use "
          "--set images=generated)",
          dir));
    files.insert(files.end(), found.begin(), found.end());
  };
  for (const std::string& item : items) {
    if (item == "generated") {
      for (std::size_t k = 0; k < images::generated_kinds().size(); ++k)
        out.push_back(images::generate(images::generated_kinds()[k], gen_w, gen_h,
                                       Rng::derive(cfg.seed, 1000 + k)));
    } else if (item.rfind("generated:", 0) == 0) {
      out.push_back(images::generate(item.substr(10), gen_w, gen_h, Rng::derive(cfg.seed, 1000)));
    } else if (item.rfind("cache/", 0) == 0) {
      // One file of the cache, or a folder of it (cache/mate-nature).
      const std::string path = images::default_image_dir() + item.substr(5);
      if (fs::is_directory(path))
        add_folder(path);
      else if (fs::exists(path))
        files.push_back(path);
      else
        throw InputError(
            fmt::format("study parameter 'images': {} is not in the photograph cache (run "
                        "scripts/fetch-images.sh, or use --set images=generated)",
                        path));
    } else if (item == "cache" || fs::is_directory(item)) {
      add_folder(item == "cache" ? images::default_image_dir() : item);
    } else {
      files.push_back(item);
    }
  }
  for (const auto& f : files) {
    if (static_cast<std::int64_t>(out.size()) >= max_images) break;
    out.push_back(images::load_gray12(f));
  }
  if (out.empty()) throw InputError("study parameter 'images': no images");
  if (static_cast<std::int64_t>(out.size()) > max_images)
    out.resize(static_cast<std::size_t>(max_images));
  return out;
}

std::string images_digest(const std::vector<images::Gray12>& imgs) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  for (const auto& im : imgs) {
    mix(im.name.data(), im.name.size());
    mix(&im.width, sizeof im.width);
    mix(&im.height, sizeof im.height);
    mix(im.px.data(), im.px.size() * sizeof(std::uint16_t));
  }
  return fmt::format("{:016x}", h);
}

std::vector<std::uint32_t> replication_list(const StudyConfig& cfg, std::uint64_t space,
                                            std::uint64_t pad, Layout layout, std::uint32_t cap,
                                            const std::string& what) {
  std::vector<std::uint32_t> rs;
  const std::uint64_t words = cfg.arch.memory_words();
  if (cfg.params.at("r") == "auto") {
    for (std::uint32_t r = 1; r <= cap; r *= 2)
      if (vote_footprint(layout, space, r, pad) <= words) rs.push_back(r);
    return rs;
  }
  for (std::int64_t r : cfg.integers("r")) {
    if (r < 1) throw InputError(fmt::format("study parameter 'r': {} must be >= 1", r));
    const std::uint64_t need = vote_footprint(layout, space, static_cast<std::uint64_t>(r), pad);
    if (need > words)
      throw InputError(fmt::format(
          "replication R = {} of {} does not fit the shared memory: {} words x 4 B = {} B > {} B",
          r, what, need, need * 4, words * 4));
    rs.push_back(static_cast<std::uint32_t>(r));
  }
  return rs;
}

Arch with_hash(const Arch& a, const HashVariant& v) {
  Arch b = a;
  b.bank_hash = v.hash;
  if (b.locks != 0) {
    b.lock_hash = v.hash;  // 000 §IV: the same function for banks and for locks
    if (v.whole_lock) b.lock_hash_bits = "all";
  }
  validate(b);
  return b;
}

std::vector<std::size_t> variant_aliases(const std::vector<Arch>& archs) {
  std::vector<std::size_t> alias(archs.size());
  for (std::size_t v = 0; v < archs.size(); ++v) {
    alias[v] = v;
    for (std::size_t k = 0; k < v && alias[v] == v; ++k)
      if (archs[k].bank_hash == archs[v].bank_hash && archs[k].lock_hash == archs[v].lock_hash &&
          archs[k].lock_hash_bits == archs[v].lock_hash_bits)
        alias[v] = k;
  }
  return alias;
}

std::string lock_reading_label(const Arch& a) {
  if (a.locks == 0) return "one lock per word: the lock hash does not apply";
  return a.lock_hash_bits == "in-bank"
             ? "in-bank (word bits above the locks fold into the lock-within-bank bits; seed 000's "
               "reading)"
             : "all (word bits above the locks fold into every lock bit)";
}

std::string reproduce_command(const StudyConfig& cfg, const std::string& name) {
  const StudyInfo& info = find_study(name);
  std::string cmd = fmt::format("smemsim study run {}", name);
  if (cfg.quick) cmd += " --quick";
  if (cfg.arch.name != info.arch) cmd += fmt::format(" --arch {}", cfg.arch.name);
  for (const auto& p : info.params) {
    const std::string& v = cfg.params.at(p.key);
    if (v != (cfg.quick ? p.quick : p.full)) cmd += fmt::format(" --set {}={}", p.key, v);
  }
  // Arch keys changed from the preset ("memory.banks=16, timing.t_bank=40").
  std::string_view d = cfg.arch.derived;
  while (!d.empty()) {
    const auto comma = d.find(", ");
    cmd += fmt::format(" --set {}", d.substr(0, comma));
    d = comma == std::string_view::npos ? std::string_view{} : d.substr(comma + 2);
  }
  return cmd;
}

Spread spread_of(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {v.front(), median, v.back()};
}

std::string versus_paper(double ours, double paper) {
  const double ratio = ours / paper;
  if (ratio >= 0.9 && ratio <= 1.1) return "matches (within 10 %)";
  return fmt::format("{} ({:.0f} % of the paper's)", ratio < 1 ? "lower" : "higher", 100 * ratio);
}

void add_claims(Report& rep, const std::vector<Claim>& rows, const StudyConfig& cfg,
                const std::string& study) {
  const std::string command = reproduce_command(cfg, study);
  std::vector<std::vector<std::string>> cells;
  for (const Claim& c : rows) {
    cells.push_back(
        {c.claim, c.paper, c.ours, c.ours_all, fmt::format("`{}`", command), c.verdict});
    rep.summary["claims"].push_back({{"claim", c.claim},
                                     {"paper", c.paper},
                                     {"ours", c.ours},
                                     {"ours_all", c.ours_all},
                                     {"verdict", c.verdict}});
  }
  rep.markdown += fmt::format(
      "### Claims of the seed, ours beside them\n\nOurs under the lock-hash reading of the arch, "
      "{}, and under `all` (atomics.lock_hash_bits; docs/models.md); the verdict is on the "
      "first.\n\n",
      lock_reading_label(cfg.arch));
  rep.markdown += md_table(
      {"claim (seed §)", "paper", "ours (arch's reading)", "ours (all)", "reproduce", "verdict"},
      cells);
  rep.markdown += "\n";
}

}  // namespace smemsim::study
