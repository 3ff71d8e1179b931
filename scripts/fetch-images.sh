#!/usr/bin/env bash
# Fetches real photographs for the histogram and Hough studies (docs/studies.md) from Debian
# packages: scikit-image's sample data (python3-skimage) and OpenCV's example data (opencv-doc),
# about 512 x 512 and partly grayscale; and the nature photographs of the MATE desktop backgrounds
# (mate-backgrounds: 24-bit RGB camera photographs of 1,600 x 1,050 to 2,560 x 1,920 pixels), the
# histogram study's default input: seed 000 §V.B used 1,536 x 1,024 24-bit RGB photographs, and
# these are the largest real RGB photographs Debian packages (the study converts them to 12-bit gray
# and brings them to 1,536 x 1,024). GreenMeadow.jpg (1,280 x 1,024) is left out: it would have to
# be enlarged.
# The packages are downloaded with `apt-get download` (no root, nothing installed) and unpacked with
# `dpkg-deb -x` into a temporary folder; only the chosen photographs are kept, in a cache folder
# outside git:
#   ${SMEMSIM_IMAGE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smemsim/images}       (the small ones)
#   ${SMEMSIM_IMAGE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smemsim/images}/mate-nature
# Usage: scripts/fetch-images.sh [--quiet] [DEST]
#   --quiet: one line in all (what the setup of the README's commands prints); errors still go to
#   stderr, one line each, and the exit status is 1 when a package could not be downloaded.
set -euo pipefail

quiet=0
if [ "${1:-}" = "--quiet" ]; then quiet=1; shift; fi
dest="${1:-${SMEMSIM_IMAGE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/smemsim/images}}"
say() { ((quiet)) || echo "$@"; }
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
mate_pkg=mate-backgrounds
mate_dir=usr/share/backgrounds/mate/nature
mate_files=(Aqua.jpg Blinds.jpg Dune.jpg FreshFlower.jpg Garden.jpg LadyBird.jpg RainDrops.jpg
  Storm.jpg TwoWings.jpg Wood.jpg YellowFlower.jpg)

fetch() {  # fetch PKG DIR SUBFOLDER FILES... (SUBFOLDER of the cache: . for the cache itself)
  local pkg="$1" dir="$2" to="$dest/$3"
  shift 3
  mkdir -p "$to"
  local missing=()
  for f in "$@"; do [[ -s "$to/$f" ]] || missing+=("$f"); done
  if ((${#missing[@]} == 0)); then
    say "fetch-images: $pkg: all ${#@} photographs already in $to"
    return
  fi
  say "fetch-images: downloading $pkg (apt-get download)"
  if ! (cd "$work" && apt-get download "$pkg" >/dev/null 2>"$work/apt.err"); then
    echo "fetch-images: error: cannot download the Debian package $pkg (apt-get download:" \
      "$(grep -m1 -E '^E:' "$work/apt.err" | cut -c4- || true)); no package source has it" >&2
    failed=1
    return
  fi
  local deb members=()
  deb="$(ls "$work"/"${pkg}"_*.deb | head -n1)"
  for f in "${missing[@]}"; do members+=("./$dir/$f"); done
  mkdir -p "$work/$pkg"
  # Only the chosen photographs are unpacked (opencv-doc holds 270 MB).
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/$pkg" "${members[@]}" 2>/dev/null || true
  for f in "${missing[@]}"; do
    if [[ -s "$work/$pkg/$dir/$f" ]]; then
      cp "$work/$pkg/$dir/$f" "$to/$f"
      say "fetch-images: $f"
      got=$((got + 1))
    else
      echo "fetch-images: error: $f is not in the Debian package $pkg ($dir)" >&2
      failed=1
    fi
  done
  rm -rf "$work/$pkg" "$deb"
}

failed=0
got=0
((quiet)) && [ -t 1 ] && printf 'smemsim: photographs for the studies (%s) ...' "$dest"
fetch "$skimage_pkg" "$skimage_dir" . "${skimage_files[@]}"
fetch "$opencv_pkg" "$opencv_dir" . "${opencv_files[@]}"
fetch "$mate_pkg" "$mate_dir" mate-nature "${mate_files[@]}"
total="$(find "$dest" -maxdepth 1 -type f | wc -l) in $dest, $(find "$dest/mate-nature" -maxdepth 1 -type f | wc -l) in $dest/mate-nature"
if ((quiet)); then
  [ -t 1 ] && printf '\r'
  if ((failed)); then echo "smemsim: photographs for the studies: incomplete, fetched $got; $total"
  elif ((got)); then echo "smemsim: photographs for the studies: fetched $got; $total"
  else echo "smemsim: photographs for the studies: all present ($total)"; fi
else
  echo "fetch-images: $total"
fi
exit "$failed"
