# SPDX-License-Identifier: Apache-2.0
# `cpack -G DEB` in a build directory (README, "A Debian package"): one .deb
# of what `cmake --install` puts in place (the tools, libebpf-gpu, its
# headers, the pkg-config file, the CMake package, the systemd unit) under
# /usr, stripped as Debian's own packages are, its Depends worked out by
# dpkg-shlibdeps from the Debian packages whose libraries the binaries link
# (libllvm19, libbpf1, DPDK's drivers' libraries, ...): a build with the
# compiler depends on LLVM, one without (EBPF_GPU_WITH_COMPILER=OFF) does not.
# The CUDA driver is not among them: it is opened at run time, and a host
# without a GPU still runs the host back end.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ebpf-gpu)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "ebpf-gpu maintainers <maintainers@users.noreply.a-seed-b3e7f27d.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "XDP programs verified and run on NVIDIA GPUs and the host CPU over DPDK")
set(CPACK_PACKAGE_DESCRIPTION
  "ebpf-gpu verifies unmodified XDP eBPF objects, compiles them to NVIDIA PTX and a host JIT, and "
  "runs them over packets from DPDK ports (ebpf-gpu-cc, ebpf-gpu-loader and its daemon) or from a "
  "C program through libebpf-gpu.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libebpf-gpu.so.0 is the package's own: not looked for in other packages.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/api)
# A shlibs file, so that packages linking libebpf-gpu get their Depends on
# this one, and ldconfig run after install.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
