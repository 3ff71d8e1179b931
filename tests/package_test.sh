#!/usr/bin/env bash
# The installs a user makes (issue 47, item 7): `cmake --install` into an empty prefix P, then the
# CLI from P/bin and `import smemsim` with only P's site folder on PYTHONPATH; and the Debian
# package of CPack, unpacked with dpkg-deb -x into an empty folder, used the same way, with the
# shared libraries it needs in its Depends. Run from an empty folder so that nothing of the source
# or build tree is found by accident. Exit 77 (CTest: skipped) where cpack or dpkg-deb is missing.
#
# usage: tests/package_test.sh BUILD_DIR [PYTHON]   (PYTHON: the module's interpreter; "" for none)
set -uo pipefail
build=$(realpath "$1")
python=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
fail() {
  echo "FAILED: $*"
  exit 1
}
for t in cpack dpkg-deb; do
  command -v "$t" >/dev/null || { echo "SKIPPED: '$t' not found"; exit 77; }
done
tmp=$(mktemp -d /tmp/smemsim-package.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || fail "cd $tmp"
site=lib/python3/dist-packages

# cmake --install into an empty prefix.
cmake --install "$build" --prefix "$tmp/p" > install.log 2>&1 || { cat install.log; fail "cmake --install"; }
"$tmp/p/bin/smemsim" --version | grep -q '^smemsim ' || fail "P/bin/smemsim --version"
[[ -f $tmp/p/share/smemsim/ptx/histogram.ptx ]] || fail "the suite's PTX is not installed"
if [[ -n $python ]]; then
  grep -q "PYTHONPATH=$tmp/p/$site" install.log || { cat install.log; fail "the install does not say where the Python package is"; }
  out=$(env -i PATH=/usr/bin:/bin PYTHONPATH="$tmp/p/$site" "$python" -c \
    'import smemsim; print(smemsim.__file__); print(smemsim.arch("volta-v100")["memory.banks"])') ||
    fail "import smemsim from P"
  [[ $out == "$tmp/p/$site/smemsim/__init__.py"$'\n'32 ]] || fail "import smemsim from P gave: $out"
  for f in __init__.pyi _core.pyi py.typed; do
    [[ -f $tmp/p/$site/smemsim/$f ]] || fail "the type stub $f is not installed"
  done
fi

# The Debian package.
cpack -G DEB -B "$tmp/deb" --config "$build/CPackConfig.cmake" > cpack.log 2>&1 || { cat cpack.log; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/deb/smemsim_*.deb 2>/dev/null | head -1)
[[ -n $deb ]] || { cat cpack.log; fail "no smemsim_*.deb"; }
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libfmt libtbb python3-numpy; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
dpkg-deb -x "$deb" "$tmp/x" || fail "dpkg-deb -x"
"$tmp/x/usr/bin/smemsim" --version | grep -q '^smemsim ' || fail "the .deb's smemsim --version"
[[ -f $tmp/x/usr/include/smemsim/arch.hpp ]] || fail "the .deb has no headers"
if [[ -n $python ]]; then
  env -i PATH=/usr/bin:/bin PYTHONPATH="$tmp/x/usr/$site" "$python" -c \
    'import smemsim; assert smemsim.presets()' || fail "import smemsim from the .deb"
fi
# pip, with Debian's setuptools and no network, reusing this build (SMEMSIM_BUILD_DIR) so that only
# the module's target is checked, not rebuilt.
if [[ -n $python ]] && "$python" -m pip --version >/dev/null 2>&1 &&
  "$python" -c 'import setuptools, wheel' 2>/dev/null; then
  SMEMSIM_BUILD_DIR="$build" "$python" -m pip install --no-build-isolation --no-deps --no-index \
    --target "$tmp/pip" "$src" > pip.log 2>&1 || { cat pip.log; fail "pip install --no-build-isolation"; }
  env -i PATH=/usr/bin:/bin PYTHONPATH="$tmp/pip" "$python" -c \
    'import smemsim, os; assert smemsim.__file__.startswith(os.environ["PYTHONPATH"]); assert smemsim.presets()' ||
    fail "import smemsim after pip install"
  [[ -f $tmp/pip/smemsim/_core.pyi ]] || fail "pip did not install the type stubs"
else
  echo "note: pip, setuptools or wheel missing for $python: pip install not tried"
fi
echo "package: $(basename "$deb") ($(du -h "$deb" | cut -f1)); Depends: $depends"
