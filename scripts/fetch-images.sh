#!/usr/bin/env bash
# Fetches real photographs for the histogram and Hough studies (docs/studies.md) from Debian
# packages: scikit-image's sample data (python3-skimage) and OpenCV's example data (opencv-doc).
# The packages are downloaded with `apt-get download` (no root, nothing installed) and unpacked with
# `dpkg-deb -x` into a temporary folder; only the chosen photographs are kept, in a cache folder
# outside git:
#   ${SMEMSIM_IMAGE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smemsim/images}
# Usage: scripts/fetch-images.sh [DEST]
set -euo pipefail

dest="${1:-${SMEMSIM_IMAGE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smemsim/images}}"
mkdir -p "$dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# package | path inside the package | photographs (file names)
skimage_pkg=python3-skimage
skimage_dir=usr/lib/python3/dist-packages/skimage/data
skimage_files=(camera.png moon.png coins.png coffee.png astronaut.png chelsea.png rocket.jpg)
opencv_pkg=opencv-doc
opencv_dir=usr/share/doc/opencv-doc/examples/data
opencv_files=(building.jpg sudoku.png fruits.jpg baboon.jpg)

fetch() {  # fetch PKG DIR FILES...
  local pkg="$1" dir="$2"
  shift 2
  local missing=()
  for f in "$@"; do [[ -s "$dest/$f" ]] || missing+=("$f"); done
  if ((${#missing[@]} == 0)); then
    echo "fetch-images: $pkg: all ${#@} photographs already in $dest"
    return
  fi
  echo "fetch-images: downloading $pkg (apt-get download)"
  (cd "$work" && apt-get download "$pkg" >/dev/null)
  local deb
  deb="$(ls "$work"/"${pkg}"_*.deb | head -n1)"
  mkdir -p "$work/$pkg"
  dpkg-deb -x "$deb" "$work/$pkg"
  for f in "${missing[@]}"; do
    if [[ -s "$work/$pkg/$dir/$f" ]]; then
      cp "$work/$pkg/$dir/$f" "$dest/$f"
      echo "fetch-images: $f"
    else
      echo "fetch-images: warning: $f not found in $pkg ($dir)" >&2
    fi
  done
  rm -rf "$work/$pkg" "$deb"
}

fetch "$skimage_pkg" "$skimage_dir" "${skimage_files[@]}"
fetch "$opencv_pkg" "$opencv_dir" "${opencv_files[@]}"
echo "fetch-images: $(ls "$dest" | wc -l) photographs in $dest"
