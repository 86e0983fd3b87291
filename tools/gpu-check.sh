#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after `source .device-kit/env.sh`:
# builds with the carried Debian packages (warnings as errors, g++ 13 / CMake 4 there), prints
# what dualrt sees, and runs the suite on every OpenCL platform selected with DUALRT_DEVICE.
# Logs go to $OUT (or /tmp/dualrt-gpu). Usage: tools/gpu-check.sh [device-substring...]
set -uo pipefail
out=${OUT:-/tmp/dualrt-gpu}
mkdir -p "$out"
build=build-gpu
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(nvidia pocl)

echo "== configure + build"
{ cmake -S . -B "$build" -DDUALRT_WERROR=ON && cmake --build "$build" -j "$(nproc)"; } \
  >"$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
grep -E "warning|error" "$out/build.log" | head -20

echo "== what the machine has"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
clinfo -l
"$build/bin/dualrt-info" 2>&1 | tee "$out/dualrt-info.txt"

status=0
for device in "${targets[@]}"; do
  echo "== OpenCL on '$device'"
  DUALRT_BACKEND=opencl DUALRT_DEVICE=$device "$build/bin/saxpy" || status=1
  (cd "$build" && DUALRT_DEVICE=$device ctest -L opencl --output-on-failure) \
    >"$out/ctest-opencl-$device.log" 2>&1 || status=1
  tail -6 "$out/ctest-opencl-$device.log"
done
echo "== device-free tests and the CUDA entries"
(cd "$build" && ctest -LE opencl --output-on-failure) >"$out/ctest-rest.log" 2>&1 || status=1
tail -8 "$out/ctest-rest.log"
exit $status
