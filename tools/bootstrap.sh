#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks (with apt), then configures and builds dualrt in
# build/. Idempotent: a second run only rebuilds what changed. With CI=true, warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."

# libopenmpi-dev, openmpi-bin: MPI for the optional dualrt_mpi component, its tests (mpirun -np 2
# on PoCL) and the mpi_stencil and mpi_bandwidth benchmarks; libdualrt never links it.
# libclblast-dev: CLBlast, the OpenCL BLAS that bench/vendor_blas and tests/test_vendor_blas.cpp
# load at run time (libclblast.so.1) on dualrt's buffers; libdualrt never links it.
# libcli11-dev: CLI11 (header-only), the option parser of the programs in bench/ and tools/info.
# python3: tools/performance_tables.py, which writes docs/performance.md (CTest
# tools.performance_page runs it at tiny sizes).
packages=(cmake g++ make ocl-icd-opencl-dev opencl-clhpp-headers libspdlog-dev doctest-dev
          nlohmann-json3-dev libtinyxml2-dev libxxhash-dev libcli11-dev doxygen pkgconf
          pocl-opencl-icd clinfo libclblast-dev libopenmpi-dev openmpi-bin python3)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

preset=default
[ "${CI:-}" = true ] && preset=ci
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"

# What this build finds on this machine, and why any backend is unavailable. A machine with no
# usable device at all still counts as a successful build.
build/bin/dualrt-info || true
