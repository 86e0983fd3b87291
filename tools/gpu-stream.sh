#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after `source .device-kit/env.sh`: the
# stream benchmark (bench/stream) on CUDA and on the same GPU through NVIDIA's OpenCL
# (DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia), each beside its hand-written native stream in the
# same run, every variant of the build (the Pipeline rows included; for those across stream
# sizes, with their own summary, see tools/gpu-pipeline.sh stream). Builds what it needs in
# build-gpu first: quick after tools/gpu-check.sh, minutes on a fresh machine (then give the
# build a command of its own, so the runs keep their time).
# Writes under $OUT/stream (else /tmp/dualrt-gpu/stream), five files in all: build.log, and per
# backend the sample's output (stream-<backend>.txt) and rows (stream-<backend>.csv). Ends with
# one table on stdout: dualrt / native pinned GB/s by backend, variant and block size.
# Usage: tools/gpu-stream.sh [stream options...]   e.g. --size 1G, --reps 9, --blocks 1M,4M
# Environment: OPENCL_DEVICE (default nvidia), RUN_TIMEOUT seconds per backend (default 270, so
# both backends and the summary fit in one 10-minute command).
set -uo pipefail
out=${OUT:-/tmp/dualrt-gpu}/stream
mkdir -p "$out"
rm -f "$out"/stream-*.csv "$out"/stream-*.txt  # the summary reads every stream-*.csv there
build="build-gpu"
opencl_device=${OPENCL_DEVICE:-nvidia}
run_timeout=${RUN_TIMEOUT:-270}
status=0

echo "== $(git rev-parse --short HEAD 2>/dev/null || echo 'commit unknown');" \
  "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# The sample, the backend modules and (through dualrt_bench) the native baseline modules.
echo "== build: stream, dualrt_cuda, dualrt_opencl in $build"
{ { [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DDUALRT_WERROR=ON; } &&
  cmake --build "$build" -j "$(nproc)" --target stream dualrt_cuda dualrt_opencl; } \
  >"$out/build.log" 2>&1 || { echo "   build FAILED:"; tail -40 "$out/build.log"; exit 1; }

# stream_on TAG ENV...: runs the sample with the environment given, its output in
# $out/stream-TAG.txt and its rows in $out/stream-TAG.csv; on failure shows the end of the output.
stream_on() {
  local tag=$1
  shift
  echo "== stream on $tag ($*)"
  env "$@" timeout "$run_timeout" "$build/bin/stream" --no-progress --csv "$out/stream-$tag.csv" \
    "${sample_args[@]}" >"$out/stream-$tag.txt" 2>&1
  local code=$?
  if [ $code -ne 0 ]; then
    status=1
    echo "   FAILED (exit $code$([ $code -eq 124 ] && echo ": over ${run_timeout}s")):"
    tail -n 8 "$out/stream-$tag.txt"
  fi
}

sample_args=("$@")
stream_on cuda DUALRT_BACKEND=cuda
stream_on "opencl-$opencl_device" DUALRT_BACKEND=opencl DUALRT_DEVICE="$opencl_device"

# The summary from the CSV rows: one line per backend and variant, one column per block size.
# Cells: dualrt GB/s over native pinned GB/s (host clock), '*' below the target, WRONG
# for a wrong output; native rows give their GB/s.
echo
echo "== summary: dualrt / native pinned GB/s (host clock; * below target; native rows: GB/s)"
csvs=("$out"/stream-*.csv)
if [ ! -e "${csvs[0]}" ]; then
  echo "   no rows: every run failed before measuring"
  exit 1
fi
awk -F, '
  function size(bytes) {
    if (bytes >= 1048576 && bytes % 1048576 == 0) return bytes / 1048576 "M"
    if (bytes >= 1024 && bytes % 1024 == 0) return bytes / 1024 "K"
    return bytes "B"
  }
  FNR == 1 { next }  # the header of each file
  {
    # Fields: 1 variant, 2 side, 5 block_bytes, 9 gbps, 12 vs_native_pinned, 15 met,
    # 16 verified, 18 backend (the device, last, may be quoted).
    row = $18 " " $1
    if (!(row in seen)) { seen[row] = 1; rows[++nrows] = row; backend[row] = $18; name[row] = $1 }
    if (!($5 in known)) { known[$5] = 1; blocks[++nblocks] = $5 }
    cell = $2 == "native" ? sprintf("%.1f", $9) : ($12 == "" ? "-" : sprintf("%.2f", $12))
    if ($15 == "no") cell = cell "*"
    if ($16 != "yes") cell = "WRONG"
    value[row, $5] = cell
  }
  END {
    printf "%-8s %-18s", "backend", "variant"
    for (b = 1; b <= nblocks; ++b) printf " %7s", size(blocks[b])
    printf "\n"
    for (r = 1; r <= nrows; ++r) {
      printf "%-8s %-18s", backend[rows[r]], name[rows[r]]
      for (b = 1; b <= nblocks; ++b) {
        cell = (rows[r], blocks[b]) in value ? value[rows[r], blocks[b]] : ""
        printf " %7s", cell
      }
      printf "\n"
    }
  }' "${csvs[@]}"
exit $status
