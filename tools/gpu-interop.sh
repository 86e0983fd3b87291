#!/usr/bin/env bash
# Interop on the GPU machine, in one device call: interop (wrap_device/queue/buffer/event) and the
# vendor BLAS on dualrt buffers, on CUDA and on NVIDIA's OpenCL.
#   1. builds what it runs (warnings as errors) in build-gpu
#   2. the interop and vendor-BLAS cases of the conformance suite on CUDA and on NVIDIA OpenCL
#      (DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia), and the device-free interop cases
#   3. compute-sanitizer memcheck (with the leak check) over those cases on CUDA
#   4. bench/vendor_blas on both: cuBLAS / CLBlast SGEMM beside the matmul ladder's best rung,
#      and --borrowed-cost: launches and copies on a borrowed queue beside dualrt's own (target:
#      a slowdown of 1.02 or less)
# and ends with a summary table. Logs: $OUT/interop-logs.tar.gz (the device tool brings back at
# most 8 files), the summary also on stdout.
#
# Before: CLBlast is not on the GPU machine. On your own machine, from the checkout's root:
#   EXTRA_DEBS="libclblast-dev libclblast1" bash ../shared/device/fetch-debs.sh
# (with the other EXTRA_DEBS the kit needs), send .device-kit along, and there:
#   source .device-kit/env.sh && bash tools/gpu-interop.sh
# Without CLBlast the OpenCL half of the vendor BLAS reports itself skipped, with the reason.
set -uo pipefail
source "$(dirname "$0")/gpu-common.sh"
bin=$build/bin
logs=$out/interop
mkdir -p "$logs"
summary=$logs/summary.txt
: >"$summary"

# row STEP RESULT DETAIL: one line of the summary table.
row() { printf '%-34s %-8s %s\n' "$1" "$2" "$3" >>"$summary"; }

# step NAME COMMAND...: runs a command with its output in $logs/NAME.log; returns its status.
step() {
  local name=$1
  shift
  echo "== $name: $*"
  "$@" >"$logs/$name.log" 2>&1
  local code=$?
  tail -n "${TAIL:-3}" "$logs/$name.log"
  return $code
}

# doctest NAME COMMAND...: a doctest run, summarised by its counts and SKIPPED messages.
doctest_step() {
  local name=$1
  shift
  local code=0
  step "$name" "$@" || code=$?
  local counts skipped
  counts=$(grep -E '^\[doctest\] test cases:' "$logs/$name.log" | tail -1 | sed 's/\[doctest\] //')
  skipped=$(grep -c 'SKIPPED' "$logs/$name.log")
  if [ $code -eq 0 ]; then row "$name" "passed" "$counts; $skipped skip messages"
  else row "$name" "FAILED" "exit $code; $counts"; status=1; fi
}

# vendor NAME ENV...: the vendor_blas sample; its SGEMM rows and the borrowed-queue rows.
vendor() {
  local name=$1
  shift
  local code=0
  TAIL=16 step "$name" env "$@" "$bin/vendor_blas" --no-progress --m 4096 --n 4096 --k 4096 \
    --warmup 3 --repetitions 20 --borrowed-cost --launches 10000 --copy-size 256M \
    --csv "$logs/$name.csv" || code=$?
  local log=$logs/$name.log
  if [ $code -eq 77 ]; then
    row "$name" "skipped" "$(grep -m1 SKIPPED "$log")"
    return
  fi
  if [ $code -eq 0 ]; then row "$name" "ok" ""; else row "$name" "FAILED" "exit $code"; status=1; fi
  # The SGEMM rows: "NAME  backend  median ms  GFLOP/s  % of vendor ...".
  grep -E 'SGEMM|float4' "$log" | while read -r line; do row "" "" "$line"; done
  # The cost rows end with the slowdown; above 1.02 misses the target.
  grep -E '^(launch|4 KiB|pinned)' "$log" | while read -r line; do
    slowdown=${line##* }
    verdict=$(awk -v s="$slowdown" 'BEGIN { print (s <= 1.02 ? "<= 1.02" : "ABOVE 1.02") }')
    row "" "$verdict" "$line"
  done
}

echo "== configure + build"
if ! { cmake -S . -B "$build" -DDUALRT_WERROR=ON &&
       cmake --build "$build" -j "$(nproc)" --target dualrt_cuda dualrt_opencl dualrt-info \
         dualrt_conformance dualrt_selection vendor_blas; } >"$logs/build.log" 2>&1; then
  tail -40 "$logs/build.log"
  row build FAILED "see build.log"
  tar -czf "$out/interop-logs.tar.gz" -C "$logs" .
  exit 1
fi
if grep -q 'vendor_blas: no clblast_c.h' "$logs/build.log"; then
  row build ok "no clblast_c.h: CLBlast half not built (EXTRA_DEBS above)"
else
  row build ok ""
fi
"$bin/dualrt-info" >"$logs/dualrt-info.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$logs/dualrt-info.txt" 2>&1

cases="interop*,vendor BLAS*"
doctest_step interop-fake "$bin/dualrt_selection" --test-case="interop*"
doctest_step interop-cuda env DUALRT_BACKEND=cuda "$bin/dualrt_conformance" --test-case="$cases"
doctest_step interop-opencl-nvidia env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia \
  "$bin/dualrt_conformance" --test-case="$cases"
# Two cases make a failing driver call on purpose (the address range of a freed adopted buffer,
# elapsed time of an untimed event): memcheck reports memory errors and leaks, not API errors.
doctest_step memcheck-cuda env DUALRT_BACKEND=cuda compute-sanitizer --tool memcheck \
  --report-api-errors no --leak-check full --error-exitcode 1 "$bin/dualrt_conformance" \
  --test-case="$cases"
grep -E '^========= (ERROR SUMMARY|LEAK SUMMARY)' "$logs/memcheck-cuda.log" |
  while read -r line; do row "" "" "$line"; done

vendor vendor_blas-cuda DUALRT_BACKEND=cuda
vendor vendor_blas-opencl-nvidia DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia

echo
echo "== summary (interop, vendor BLAS)"
cat "$summary"
# Every log in one archive: the device tool brings back at most 8 files.
tar -czf "$out/interop-logs.tar.gz" -C "$logs" .
cp "$summary" "$out/interop-summary.txt"
rm -rf "$logs"
exit "$status"
