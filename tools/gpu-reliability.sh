#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after `source .device-kit/env.sh`: the
# reliability checks that need a GPU and are too slow or too destructive for gpu-check.sh.
#   - the fault suite (a kernel fault and real memory exhaustion) on CUDA and NVIDIA's OpenCL;
#   - the stress suite on NVIDIA's OpenCL, repeated (STRESS_RUNS, default 6; the first two with
#     STRESS_SEED when given), since a crash there may be intermittent;
#   - the CUDA and NVIDIA OpenCL conformance suites built with ASan+UBSan (the sanitize preset's
#     options; protect_shadow_gap=0 because the CUDA driver maps memory where ASan's shadow gap
#     would be).
# Logs go to $OUT (or /tmp/dualrt-gpu). Extra programs to run against the build can be passed as
# EXTRA_PROGRAM=file.cpp (compiled and run on both backends, output in $out/extra-*.txt).
set -uo pipefail
source "$(dirname "$0")/gpu-common.sh"

build_all

if [ -n "${EXTRA_PROGRAM:-}" ]; then
  g++ -std=c++17 -I core/include -I "$build/core/include" "$EXTRA_PROGRAM" -L "$build/lib" \
    -ldualrt -Wl,-rpath,"$PWD/$build/lib" -o "$build/extra_program" &&
    for backend in cuda opencl; do
      DUALRT_BACKEND=$backend DUALRT_DEVICE=nvidia "$build/extra_program" \
        >"$out/extra-$backend.txt" 2>&1
      echo "== extra program on $backend: exit $?"
    done
fi

TAIL=6 run faults-cuda env DUALRT_BACKEND=cuda ctest --test-dir "$build" -R '^fault\..*cuda' \
  --output-on-failure
TAIL=6 run faults-opencl env DUALRT_DEVICE=nvidia ctest --test-dir "$build" \
  -R '^fault\..*opencl' --output-on-failure

for i in $(seq 1 "${STRESS_RUNS:-6}"); do
  seed_env=()
  [ -n "${STRESS_SEED:-}" ] && [ "$i" -le 2 ] && seed_env=(DUALRT_STRESS_SEED="$STRESS_SEED")
  TAIL=3 run "stress-opencl-$i" env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia "${seed_env[@]}" \
    "$build/bin/dualrt_stress"
done

echo "== sanitize build"
{ cmake -S . -B build-gpu-sanitize -DDUALRT_SANITIZERS=ON -DCMAKE_BUILD_TYPE=Debug &&
  cmake --build build-gpu-sanitize -j "$(nproc)" --target dualrt_conformance dualrt_opencl \
    dualrt_cuda; } >"$out/sanitize-build.log" 2>&1 || { tail -40 "$out/sanitize-build.log"; exit 1; }
asan="protect_shadow_gap=0:detect_leaks=1:fast_unwind_on_malloc=0:halt_on_error=1"
asan+=":abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1"
lsan="suppressions=$PWD/tools/sanitizers/lsan.supp:print_suppressions=1"
for backend in cuda opencl; do
  TAIL=6 run "asan-$backend" env DUALRT_BACKEND=$backend DUALRT_DEVICE=nvidia \
    ASAN_OPTIONS="$asan" LSAN_OPTIONS="$lsan" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1" \
    build-gpu-sanitize/bin/dualrt_conformance
done
exit $status
