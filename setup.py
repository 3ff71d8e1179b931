"""pip's build of the smemsim package (pyproject.toml): the compiled core (_core, the CMake target
smemsim_python) is built by CMake, in SMEMSIM_BUILD_DIR when set (an existing build folder: only
what changed is rebuilt) or in build/pip, and copied beside python/smemsim's files.

    pip install --no-build-isolation .                      # builds, then installs for this python
    SMEMSIM_BUILD_DIR=build/release pip install --no-build-isolation .   # reuses a build
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    text = open(os.path.join(HERE, "CMakeLists.txt"), encoding="utf-8").read()
    return re.search(r"project\(smemsim VERSION ([0-9.]+)", text).group(1)


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        build = os.path.abspath(os.environ.get("SMEMSIM_BUILD_DIR") or os.path.join(HERE, "build", "pip"))
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", HERE, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DSMEMSIM_BUILD_TESTS=OFF", "-DSMEMSIM_BUILD_BENCH=OFF",
                                   f"-DPython_EXECUTABLE={sys.executable}"])
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", build, "--target", "smemsim_python", "-j", jobs])
        built = glob.glob(os.path.join(build, "python", "smemsim", "_core*.so"))
        if not built:
            sys.exit(f"smemsim: no _core module in {build}/python/smemsim: is pybind11 installed "
                     "(scripts/install-deps.sh --test)?")
        target = os.path.join(self.build_lib, "smemsim")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(built[0], target)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # the wheel holds a compiled module: platform-specific
        return True


setup(
    name="smemsim",
    version=version(),
    description="GPU shared-memory simulator and optimizer (Python module)",
    packages=["smemsim"],
    package_dir={"": "python"},
    package_data={"smemsim": ["*.pyi", "py.typed"]},
    python_requires=">=3.9",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    zip_safe=False,
)
