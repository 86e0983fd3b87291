#!/usr/bin/env bash
# Copies and enqueues on the GPU machine, in one call: build, the whole suite on CUDA and on
# NVIDIA's OpenCL, compute-sanitizer over the host-memory and launch cases, then launch_cost and
# bandwidth (a size sweep, and large staged copies with 8 and 16 memcpy threads) beside their
# native baselines.
# Logs in $OUT/logs-PART.tar.gz; tables on stdout. Usage: tools/gpu-copies.sh [tests|bench|all]
# (two parts, so that each fits in one device call; the second reuses the first's build).
set -uo pipefail
part=${1:-all}
source "$(dirname "$0")/gpu-common.sh"
build_all
bin=$build/bin
if [ "$part" != bench ]; then
TAIL=6 run ctest-cuda env DUALRT_BACKEND=cuda ctest --test-dir "$build" --output-on-failure -j4
TAIL=6 run ctest-opencl env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia \
  ctest --test-dir "$build" --output-on-failure -j4
TAIL=4 run memcheck-cuda env DUALRT_BACKEND=cuda compute-sanitizer --tool memcheck \
  --error-exitcode 1 --leak-check full "$bin/dualrt_conformance" \
  --test-case="host memory*,kernels*,views*"
fi
[ "$part" = tests ] && target_list="" || target_list="cuda opencl:nvidia"
for target in $target_list; do
  backend=${target%%:*}
  device=${target#*:}
  [ "$device" = "$target" ] && device=
  TAIL=14 run "launch_cost-$backend" env DUALRT_BACKEND="$backend" DUALRT_DEVICE="$device" \
    "$bin/launch_cost" --no-progress --csv "$out/launch_cost-$backend.csv"
  TAIL=40 run "bandwidth-$backend" env DUALRT_BACKEND="$backend" DUALRT_DEVICE="$device" \
    "$bin/bandwidth" --no-progress --sweep --size 1G --repetitions 10 \
    --csv "$out/bandwidth-$backend.csv"
  TAIL=12 run "bandwidth16-$backend" env DUALRT_COPY_THREADS=16 DUALRT_BACKEND="$backend" \
    DUALRT_DEVICE="$device" "$bin/bandwidth" --no-progress --size 256M --repetitions 10
done
tar -czf "/tmp/logs-$part.tar.gz" -C "$out" . 2>/dev/null
find "$out" -maxdepth 1 -type f -delete
mv "/tmp/logs-$part.tar.gz" "$out/"
exit $status
