#include "smemsim/images.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "smemsim/error.hpp"
#include "util/rng.hpp"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO_WARNING
#include <stb_image.h>

namespace smemsim::images {

std::uint16_t luma12(int r, int g, int b) {
  // Y8 = 0.299 R + 0.587 G + 0.114 B in thousandths; Y12 = round(Y8 * 4095 / 255) (seed 000 §V.B).
  const std::int64_t y1000 = 299 * r + 587 * g + 114 * b;  // 0 .. 255000
  const std::int64_t num = y1000 * 4095;
  const std::int64_t den = 255 * 1000;
  return static_cast<std::uint16_t>((num + den / 2) / den);
}

// Takes ownership of stb's pixels (nullptr: the load failed) and converts them to 12-bit gray.
template <class T, class Luma>
void fill_gray(Gray12& g, T* pixels, const std::string& path, int w, int h, int n, Luma luma) {
  std::unique_ptr<T, void (*)(void*)> p(pixels, stbi_image_free);
  if (!p)
    throw InputError(fmt::format("{}: not a readable image ({})", path, stbi_failure_reason()));
  g.width = w;
  g.height = h;
  g.px.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
  for (std::size_t i = 0; i < g.px.size(); ++i) g.px[i] = luma(p.get() + i * std::size_t(n), n);
}

Gray12 load_gray12(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(fmt::format("{}: cannot read image (no such file)", path));
  int w = 0, h = 0, n = 0;
  Gray12 g;
  g.name = fs::path(path).stem().string();
  // Luma of pixel q (n channels) on 12 bits: 16-bit files in 16 bits then the top 12, 8-bit files
  // through luma12.
  const auto luma16 = [](const stbi_us* q, int n) {
    const std::int64_t y = n >= 3 ? (299 * q[0] + 587 * q[1] + 114 * q[2] + 500) / 1000 : q[0];
    return static_cast<std::uint16_t>(std::min<std::int64_t>(y, 65535) >> 4);
  };
  const auto luma8 = [](const stbi_uc* q, int n) {
    return n >= 3 ? luma12(q[0], q[1], q[2]) : luma12(q[0], q[0], q[0]);
  };
  // (Load first: w, h and n are set by the load and passed by value.)
  if (stbi_is_16_bit(path.c_str())) {
    stbi_us* px = stbi_load_16(path.c_str(), &w, &h, &n, 0);
    fill_gray(g, px, path, w, h, n, luma16);
  } else {
    stbi_uc* px = stbi_load(path.c_str(), &w, &h, &n, 0);
    fill_gray(g, px, path, w, h, n, luma8);
  }
  return g;
}

const std::vector<std::string>& generated_kinds() {
  static const std::vector<std::string> k{"gradient", "noise", "blocks", "photo"};
  return k;
}

namespace {

// Value noise: seeded levels 0..amp on a grid of `cell` pixels, bilinear between grid points.
std::vector<std::int64_t> value_noise(int w, int h, int cell, std::int64_t amp, Rng& rng) {
  const int gw = w / cell + 2, gh = h / cell + 2;
  std::vector<std::int64_t> grid(static_cast<std::size_t>(gw) * static_cast<std::size_t>(gh));
  for (auto& v : grid)
    v = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(amp) + 1));
  const auto at = [&](int gx, int gy) { return grid[static_cast<std::size_t>(gy * gw + gx)]; };
  const std::int64_t c = cell, c2 = c * c;
  std::vector<std::int64_t> out(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int gx = x / cell, gy = y / cell;
      const std::int64_t fx = x % cell, fy = y % cell;
      const std::int64_t num = at(gx, gy) * (c - fx) * (c - fy) + at(gx + 1, gy) * fx * (c - fy) +
                               at(gx, gy + 1) * (c - fx) * fy + at(gx + 1, gy + 1) * fx * fy;
      out[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] =
          (num + c2 / 2) / c2;
    }
  return out;
}

// "photo": a seeded scene with a photograph's statistics at the voting studies' scale. Smooth
// shading: 2048 plus value noise on grids of 256, 64 and 16 pixels (amplitudes 2400, 600, 150,
// centred); texture: value noise on a 2-pixel grid (amplitude 800, centred) in the regions where a
// 128-pixel mask exceeds 0.6 (ramping to full strength at 1); sensor noise: uniform +-6 levels;
// clamped to 0..4095. At 1,536 x 1,024 the absolute difference of horizontal neighbours has median
// 7, 90th percentile 39 and mean 15, and in a warp of 32 consecutive pixels the most common bin
// holds 23, 18, 9 and 4 pixels at 32, 64, 256 and 1,024 bins on average; the eleven mate-nature
// photographs of scripts/fetch-images.sh, brought to that size, give medians 0-31 (typically 8-16),
// 90th percentiles 24-147 (typically 30-50), means 12-52 (typically 20), and 16-27, 11-23, 5-12
// and 3-10 pixels (docs/studies.md).
void fill_photo(Gray12& g, Rng& rng) {
  const int w = g.width, h = g.height;
  std::vector<std::int64_t> acc(g.px.size(), 2048);
  for (const auto& [cell, amp] : {std::pair{256, 2400}, {64, 600}, {16, 150}}) {
    const auto v = value_noise(w, h, cell, amp, rng);
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += v[i] - amp / 2;
  }
  const auto mask = value_noise(w, h, 128, 1000, rng);
  const auto texture = value_noise(w, h, 2, 800, rng);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const std::int64_t m = std::clamp<std::int64_t>((mask[i] - 600) * 1000 / 400, 0, 1000);
    acc[i] += (texture[i] - 400) * m / 1000;
  }
  for (std::size_t i = 0; i < g.px.size(); ++i) {
    const std::int64_t v = acc[i] + static_cast<std::int64_t>(rng.below(13)) - 6;
    g.px[i] = static_cast<std::uint16_t>(std::clamp<std::int64_t>(v, 0, 4095));
  }
}

}  // namespace

Gray12 generate(const std::string& kind, int width, int height, std::uint64_t seed) {
  Gray12 g;
  g.name = kind;
  g.width = width;
  g.height = height;
  g.px.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  Rng rng(seed);
  if (kind == "gradient") {
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        g.px[static_cast<std::size_t>(y * width + x)] =
            static_cast<std::uint16_t>((std::int64_t(x) * 4095) / std::max(1, width - 1));
  } else if (kind == "noise") {
    for (auto& v : g.px) v = static_cast<std::uint16_t>(rng.below(4096));
  } else if (kind == "blocks") {
    const int bw = (width + 15) / 16, bh = (height + 15) / 16;
    std::vector<std::uint16_t> level(static_cast<std::size_t>(bw * bh));
    for (auto& v : level) v = static_cast<std::uint16_t>(rng.below(4096));
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        g.px[static_cast<std::size_t>(y * width + x)] =
            level[static_cast<std::size_t>((y / 16) * bw + x / 16)];
  } else if (kind == "photo") {
    fill_photo(g, rng);
  } else {
    throw InputError(
        fmt::format("unknown generated image '{}' (known: gradient, noise, blocks, photo)", kind));
  }
  return g;
}

std::string default_image_dir() {
  if (const char* d = std::getenv("SMEMSIM_IMAGE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::string(x) + "/smemsim/images";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/.cache/smemsim/images";
}

std::vector<std::string> list_images(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp" || ext == ".tga" ||
        ext == ".pgm" || ext == ".ppm" || ext == ".gif")
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Gray12 resize_nearest(const Gray12& in, int width, int height) {
  Gray12 g;
  g.name = in.name;
  g.width = width;
  g.height = height;
  g.px.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) {
    const int sy = static_cast<int>((std::int64_t(y) * in.height) / height);
    for (int x = 0; x < width; ++x) {
      const int sx = static_cast<int>((std::int64_t(x) * in.width) / width);
      g.px[static_cast<std::size_t>(y * width + x)] = in.at(sx, sy);
    }
  }
  return g;
}

Gray12 fit(const Gray12& in, int width, int height) {
  if (in.width == width && in.height == height) return in;
  // The centred crop of aspect width:height: cw / ch = width / height, as large as fits.
  std::int64_t cw = in.width, ch = in.height;
  if (cw * height > ch * width)
    cw = ch * width / height;
  else
    ch = cw * height / width;
  cw = std::max<std::int64_t>(cw, 1);
  ch = std::max<std::int64_t>(ch, 1);
  const std::int64_t ox = (in.width - cw) / 2, oy = (in.height - ch) / 2;
  Gray12 g;
  g.name = in.name;
  g.width = width;
  g.height = height;
  g.px.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  // Output pixel x covers source columns [x cw / width, (x + 1) cw / width), at least one.
  const auto span = [](std::int64_t i, std::int64_t n, std::int64_t src) {
    const std::int64_t a = i * src / n;
    return std::pair{a, std::max(a + 1, (i + 1) * src / n)};
  };
  for (int y = 0; y < height; ++y) {
    const auto [y0, y1] = span(y, height, ch);
    for (int x = 0; x < width; ++x) {
      const auto [x0, x1] = span(x, width, cw);
      std::int64_t sum = 0;
      for (std::int64_t sy = y0; sy < y1; ++sy)
        for (std::int64_t sx = x0; sx < x1; ++sx)
          sum += in.at(static_cast<int>(ox + sx), static_cast<int>(oy + sy));
      const std::int64_t n = (y1 - y0) * (x1 - x0);
      g.px[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
           static_cast<std::size_t>(x)] = static_cast<std::uint16_t>((sum + n / 2) / n);
    }
  }
  return g;
}

std::vector<EdgePixel> sobel_edges(const Gray12& img, int threshold) {
  std::vector<EdgePixel> out;
  auto p = [&](int x, int y) { return static_cast<int>(img.at(x, y) >> 4); };
  for (int y = 1; y + 1 < img.height; ++y)
    for (int x = 1; x + 1 < img.width; ++x) {
      const int gx = -p(x - 1, y - 1) - 2 * p(x - 1, y) - p(x - 1, y + 1) + p(x + 1, y - 1) +
                     2 * p(x + 1, y) + p(x + 1, y + 1);
      const int gy = -p(x - 1, y - 1) - 2 * p(x, y - 1) - p(x + 1, y - 1) + p(x - 1, y + 1) +
                     2 * p(x, y + 1) + p(x + 1, y + 1);
      // |gx| + |gy| (the L1 magnitude: integer, platform-independent).
      if (std::abs(gx) + std::abs(gy) >= threshold) out.push_back({x, y});
    }
  return out;
}

}  // namespace smemsim::images
