// Grayscale images for the voting studies (docs/studies.md). Photographs are loaded with stb_image
// (PNG, JPEG, ...) and converted to 12-bit grayscale as seed 000 §V.B did ("converted from 24 bit
// RGB to 12 bit grayscale"): Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601 luma), scaled from 8 to
// 12 bits. Tests use generated images (gradient, noise, blocks) and need no download.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace smemsim::images {

struct Gray12 {
  std::string name;
  int width = 0, height = 0;
  std::vector<std::uint16_t> px;  // row-major, values 0..4095
  std::uint16_t at(int x, int y) const {
    return px[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
              static_cast<std::size_t>(x)];
  }
};

// Throws InputError naming the file when it cannot be read or is not an image.
Gray12 load_gray12(const std::string& path);

// BT.601 luma of 8-bit RGB in 12 bits, integer arithmetic (bit-exact everywhere).
std::uint16_t luma12(int r, int g, int b);

// Generated test images: "gradient" (horizontal ramp), "noise" (seeded uniform 12-bit),
// "blocks" (16x16 constant tiles of seeded levels), "photo" (a smooth seeded scene with sensor
// noise, a photograph's bin statistics; images.cpp). Throws InputError on an unknown kind.
Gray12 generate(const std::string& kind, int width, int height, std::uint64_t seed);
const std::vector<std::string>& generated_kinds();

// The default photograph folder: $SMEMSIM_IMAGE_DIR, else
// ${XDG_CACHE_HOME:-~/.cache}/smemsim/images.
std::string default_image_dir();
// The image files (by extension: png, jpg, jpeg, bmp, tga, pgm, ppm, gif) of a folder, sorted.
std::vector<std::string> list_images(const std::string& dir);

// Nearest-neighbour resampling to width x height (used to bring a photograph to 640x480 for the
// Hough study, seed 000 §V.C).
Gray12 resize_nearest(const Gray12& in, int width, int height);

// Brings an image to exactly width x height as a photograph is brought to seed 000 §V.B's 1,536 x
// 1,024: the largest centred region of the target's aspect ratio is cut out, then each output
// pixel is the rounded mean of the source pixels it covers (area averaging: a downscale keeps the
// image's levels and texture statistics instead of picking single pixels). An image already of
// that size is returned unchanged; an upscale repeats pixels (each output pixel covers at least
// one source pixel). Integer arithmetic: the same result on every platform.
Gray12 fit(const Gray12& in, int width, int height);

// Edge pixels (x, y) in raster order: Sobel gradient magnitude over the 8-bit range (12-bit >> 4)
// at or above `threshold`; border pixels are skipped.
struct EdgePixel {
  int x, y;
};
std::vector<EdgePixel> sobel_edges(const Gray12& img, int threshold);

}  // namespace smemsim::images
