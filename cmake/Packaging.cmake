# A Debian package of the CLI, the library (static libraries, headers, CMake package), the kernel
# suite's PTX, the calibration files and the Python module (issue 47): `cpack -G DEB` in a build
# folder writes smemsim_VERSION_ARCH.deb; `sudo apt install ./smemsim_*.deb` installs it under
# /usr, where /usr/bin/python3 imports smemsim without PYTHONPATH.
set(CPACK_PACKAGE_NAME smemsim)
set(CPACK_PACKAGE_VENDOR "smemsim")
set(CPACK_PACKAGE_CONTACT "smemsim maintainers <maintainers@smemsim.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU shared-memory simulator and optimizer: bank, position and lock conflicts, atomics, "
    "hashes, cycle-level SMs")
set(CPACK_PACKAGE_DESCRIPTION
    "smemsim models a warp's shared-memory access (bank, position and lock conflicts, the latency "
    "of atomics), searches XOR/ADD hashes, runs CUDA kernels from their PTX on a SIMT executor "
    "and a cycle-level GPU, and checks the fixes it proposes by running them.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # smemsim_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The shared libraries (fmt, oneTBB, toml++, libstdc++) by dpkg-shlibdeps; the Python module's
# interpreter and NumPy by hand (they are no linked libraries).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.11), python3-numpy")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-pandas, gnuplot-nox, chromium")
include(CPack)

# The test of both installs (tests/package_test.sh), with the Python module where it is built.
if(SMEMSIM_BUILD_TESTS AND TARGET smemsim_python)
  add_test(NAME package COMMAND bash ${PROJECT_SOURCE_DIR}/tests/package_test.sh
                                ${CMAKE_BINARY_DIR} ${SMEMSIM_PYTHON_EXECUTABLE})
elseif(SMEMSIM_BUILD_TESTS)
  add_test(NAME package COMMAND bash ${PROJECT_SOURCE_DIR}/tests/package_test.sh
                                ${CMAKE_BINARY_DIR})
endif()
if(TEST package)
  set_tests_properties(package PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
