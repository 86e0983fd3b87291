#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after tools/gpu-check.sh has built build-gpu:
# the measuring samples (bandwidth, launch_cost, overlap) on CUDA and on each OpenCL device
# named, each beside its native baseline in the same run, and program_cache (cold vs cached
# OpenCL builds) on each OpenCL device. Tables go to stdout, CSV/JSON/SVG to
# $OUT/bench. Usage: tools/gpu-bench.sh [opencl-device-substring...]
set -uo pipefail
out=${OUT:-/tmp/dualrt-gpu}/bench
mkdir -p "$out"
bin=build-gpu/bin
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(nvidia)
status=0

# sample NAME BACKEND DEVICE ARGS...: runs bin/NAME, its table on stdout and in $out.
sample() {
  local name=$1 backend=$2 device=$3
  shift 3
  local tag="$name-$backend${device:+-$device}"
  echo "== $tag $*"
  env DUALRT_BACKEND="$backend" DUALRT_DEVICE="$device" "$bin/$name" --csv "$out/$tag.csv" "$@" \
    2>&1 | tee "$out/$tag.txt" || { echo "   FAILED"; status=1; }
}

for backend_device in "cuda:" "${targets[@]/#/opencl:}"; do
  backend=${backend_device%%:*}
  device=${backend_device#*:}
  tag="$backend${device:+-$device}"
  sample bandwidth "$backend" "$device" --sweep --zero-copy
  sample launch_cost "$backend" "$device"
  sample overlap "$backend" "$device" --trace "$out/overlap-$tag.json" --svg "$out/overlap-$tag.svg"
done
for device in "${targets[@]}"; do
  sample program_cache opencl "$device"
done
exit $status
