#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after `source .device-kit/env.sh`:
# builds with the carried Debian packages (warnings as errors, g++ 13 / CMake 4 there), prints
# what dualrt sees, runs the whole CTest suite with DUALRT_BACKEND=cuda and with
# DUALRT_BACKEND=opencl on each OpenCL device named, runs the CUDA suite under
# compute-sanitizer's memcheck, racecheck and synccheck, and DUALRT_SYNC=1 runs of both backends.
# Logs go to $OUT (or /tmp/dualrt-gpu). Usage: tools/gpu-check.sh [opencl-device-substring...]
set -uo pipefail
source "$(dirname "$0")/gpu-common.sh"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(nvidia pocl)

build_all
grep -E "warning|error" "$out/build.log" | head -20

echo "== what the machine has"
nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv,noheader
clinfo -l
"$build/bin/dualrt-info" 2>&1 | tee "$out/dualrt-info.txt"

TAIL=3 run saxpy-cuda env DUALRT_BACKEND=cuda "$build/bin/saxpy"
TAIL=3 run conformance-cuda env DUALRT_BACKEND=cuda "$build/bin/dualrt_conformance"
TAIL=3 run cross-backend "$build/bin/dualrt_cross_backend"
TAIL=8 run ctest-cuda env DUALRT_BACKEND=cuda ctest --test-dir "$build" --output-on-failure
for device in "${targets[@]}"; do
  TAIL=3 run "saxpy-opencl-$device" env DUALRT_BACKEND=opencl DUALRT_DEVICE="$device" \
    "$build/bin/saxpy"
  TAIL=3 run "conformance-opencl-$device" env DUALRT_BACKEND=opencl DUALRT_DEVICE="$device" \
    "$build/bin/dualrt_conformance"
done
# The whole suite with DUALRT_DEVICE naming the first OpenCL device (a name the CUDA backend
# also has, "nvidia"); the OpenCL entries alone on the others.
TAIL=8 run "ctest-opencl-${targets[0]}" env DUALRT_BACKEND=opencl DUALRT_DEVICE="${targets[0]}" \
  ctest --test-dir "$build" --output-on-failure
for device in "${targets[@]:1}"; do
  TAIL=4 run "ctest-opencl-$device" env DUALRT_DEVICE="$device" \
    ctest --test-dir "$build" --output-on-failure -L opencl
done
TAIL=3 run sync-cuda env DUALRT_SYNC=1 DUALRT_BACKEND=cuda "$build/bin/dualrt_conformance"
TAIL=3 run sync-opencl env DUALRT_SYNC=1 DUALRT_BACKEND=opencl DUALRT_DEVICE="${targets[0]}" \
  "$build/bin/dualrt_conformance"
# memcheck also reports every driver call that returns an error. The out-of-memory case provokes
# one on purpose, so it runs on its own with API errors not reported; everything else must be
# free of both.
oom='errors: out of device memory*'
TAIL=6 run memcheck-cuda env DUALRT_BACKEND=cuda compute-sanitizer --tool memcheck \
  --error-exitcode 1 --leak-check full "$build/bin/dualrt_conformance" --test-case-exclude="$oom"
TAIL=6 run memcheck-cuda-oom env DUALRT_BACKEND=cuda compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 1 --leak-check full "$build/bin/dualrt_conformance" \
  --test-case="$oom"
# racecheck (shared-memory hazards) and synccheck (barrier misuse) over the CUDA suite, except the
# out-of-memory case, which provokes a failing driver call on purpose.
TAIL=4 run racecheck-cuda env DUALRT_BACKEND=cuda compute-sanitizer --tool racecheck \
  --racecheck-report hazard --error-exitcode 1 "$build/bin/dualrt_conformance" \
  --test-case-exclude="$oom"
TAIL=4 run synccheck-cuda env DUALRT_BACKEND=cuda compute-sanitizer --tool synccheck \
  --error-exitcode 1 "$build/bin/dualrt_conformance" --test-case-exclude="$oom"
exit $status
