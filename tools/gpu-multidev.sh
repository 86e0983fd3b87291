#!/usr/bin/env bash
# A Pipeline over several devices on the one-GPU machine, in one call after
# `source .device-kit/env.sh`: the H200 through CUDA, the same H200 through NVIDIA's OpenCL, and
# the CPU through PoCL (three devices). Builds what it needs in build-gpu (warnings as errors),
# runs the multi-device suite and the multi_device sample's CTest entries serially, then the
# sample on 1 GiB streams: CUDA alone, PoCL alone and both together; NVIDIA OpenCL alone, PoCL
# alone and both together (pageable host memory); the CUDA pair again from pinned memory. Each
# device alone runs beside its hand-written native stream (bench/), and the devices together
# beside the native streams on a fixed split, in the same run. 21 timed runs after one untimed:
# a Pipeline over several devices measures its first planned runs with every device and the
# fastest alone in turns, twice each, then keeps the better; its median is the way it settles
# on, and 21 runs resolve 2% where pageable runs spread by 20% (nine do not). About
# 6 minutes on a fresh machine.
# Writes under $OUT/multidev (else /tmp/dualrt-gpu/multidev): build.log, one log per step, the
# sample's tables (multi_device-*.txt) and rows (multi_device-*.csv), and the together runs'
# timelines (multi_device-*.json, for ui.perfetto.dev). Tables on stdout.
# Usage: tools/gpu-multidev.sh [multi_device options...]   e.g. --size 512M, --every-chunk
# Environment: RUN_TIMEOUT seconds per sample run (default 200); BUILD_ONLY=1 stops after the
# build (on a fresh machine, give the build a command of its own so the runs keep their time).
set -uo pipefail
out=${OUT:-/tmp/dualrt-gpu}/multidev
mkdir -p "$out"
rm -f "$out"/multi_device-*
build=build-gpu
bin=$build/bin
run_timeout=${RUN_TIMEOUT:-200}
sample_args=("$@")
status=0

echo "== $(git rev-parse --short HEAD 2>/dev/null || echo 'commit unknown');" \
  "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# The sample, the suite, the backend modules and (through dualrt_bench) the native baselines.
echo "== build: multi_device, dualrt_multi_device, dualrt_cuda, dualrt_opencl in $build"
{ { [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DDUALRT_WERROR=ON; } &&
  cmake --build "$build" -j "$(nproc)" --target multi_device dualrt_multi_device dualrt_cuda \
    dualrt_opencl; } >"$out/build.log" 2>&1 ||
  { echo "   build FAILED:"; tail -40 "$out/build.log"; exit 1; }
[ "${BUILD_ONLY:-0}" = 1 ] && { echo "== built (BUILD_ONLY=1)"; exit 0; }

# step NAME COMMAND...: its output in $out/NAME.log, the last ${TAIL:-4} lines shown.
step() {
  local name=$1
  shift
  echo "== $name: $*"
  "$@" >"$out/$name.log" 2>&1 || { echo "   FAILED (exit $?)"; status=1; }
  tail -n "${TAIL:-4}" "$out/$name.log"
}

# The suite on every device present (the GPU twice and PoCL's CPU), then the CTest entries
# serially (they set POCL_DEVICES themselves): one GPU, so nothing runs beside them.
TAIL=8 step suite env -u POCL_DEVICES timeout 300 "$bin/dualrt_multi_device"
TAIL=8 step ctest ctest --test-dir "$build" -R '^multi_device$|^sample\.multi_device' \
  --output-on-failure -j1

# sample TAG DEVICES [options...]: the sample on DEVICES, its table on stdout.
sample() {
  local tag=$1 devices=$2
  shift 2
  echo "== multi_device $tag (--devices $devices $*)"
  env -u POCL_DEVICES timeout "$run_timeout" "$bin/multi_device" --no-progress --size 1G \
    --repetitions 21 --devices "$devices" --csv "$out/multi_device-$tag.csv" \
    --trace "$out/multi_device-$tag.json" "$@" "${sample_args[@]}" \
    >"$out/multi_device-$tag.txt" 2>&1
  local code=$?
  if [ $code -ne 0 ]; then
    echo "   FAILED (exit $code):"
    tail -20 "$out/multi_device-$tag.txt"
    status=1
    return
  fi
  # The devices, the table, and the together run's per-device lines and scaling.
  grep -v '^  [0-9]*: ' "$out/multi_device-$tag.txt"
}
sample cuda-pocl cuda:0,opencl:portable
sample opencl-pocl opencl:nvidia,opencl:portable
sample cuda-pocl-pinned cuda:0,opencl:portable --host pinned
exit $status
