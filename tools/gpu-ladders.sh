#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after `source .device-kit/env.sh` and a build
# in build-gpu (tools/gpu-check.sh makes one): the kernel-ladder samples, each timing every rung
# on CUDA and on the OpenCL device named (default nvidia: one GPU seen through both backends)
# beside its yardstick (copy kernel, CUB, cuBLAS). Tables go to stdout and $OUT/ladders/*.txt,
# CSV to $OUT/ladders/*.csv. Usage: tools/gpu-ladders.sh [device-substring]
set -uo pipefail
out=${OUT:-/tmp/dualrt-gpu}/ladders
mkdir -p "$out"
bin=build-gpu/bin
device=${1:-nvidia}
status=0

ladder() {
  local name=$1
  shift
  echo "== $name $*"
  "$bin/$name" --device "$device" --no-progress --csv "$out/$name.csv" "$@" 2>&1 |
    tee "$out/$name.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "   FAILED"; status=1; }
}

ladder reduce
ladder transpose
ladder matmul --size 4096
ladder coalescing
[ -x "$bin/occupancy" ] && ladder occupancy
exit $status
