#!/usr/bin/env bash
# Several devices and copies on the one-GPU machine, in one call after `source
# .device-kit/env.sh`: build, the whole suite on CUDA and on NVIDIA's OpenCL (the multi-device
# suite sees the GPU through both backends and PoCL's CPU devices), bandwidth --cross from the
# CUDA and from the OpenCL view of the GPU, launch_cost on both, then the stream benchmark
# (tools/gpu-stream.sh). Logs in
# $OUT/multi.tar.gz and $OUT/stream/; tables on stdout.
set -uo pipefail
source "$(dirname "$0")/gpu-common.sh"
build_all
bin=$build/bin
TAIL=5 run ctest-cuda env DUALRT_BACKEND=cuda ctest --test-dir "$build" --output-on-failure -j4
TAIL=5 run ctest-opencl env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia \
  ctest --test-dir "$build" --output-on-failure -j4
TAIL=12 run multi-device-all env -u POCL_DEVICES "$bin/dualrt_multi_device"
TAIL=12 run cross-cuda env -u POCL_DEVICES DUALRT_BACKEND=cuda "$bin/bandwidth" --no-progress \
  --size 256M --repetitions 10 --cross
TAIL=12 run cross-opencl env -u POCL_DEVICES DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia \
  "$bin/bandwidth" --no-progress --size 256M --repetitions 10 --cross
TAIL=14 run launch_cost-cuda env DUALRT_BACKEND=cuda "$bin/launch_cost" --no-progress
TAIL=14 run launch_cost-opencl env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia \
  "$bin/launch_cost" --no-progress
mkdir -p /tmp/multi && mv "$out"/*.log /tmp/multi/ 2>/dev/null
tar -czf "$out/multi.tar.gz" -C /tmp/multi .
RUN_TIMEOUT=150 bash "$(dirname "$0")/gpu-stream.sh" --reps 3 || status=1
exit $status
