#!/usr/bin/env bash
# The two-GPU runs, on a two-GPU machine (`nvidia-h100-x2` or `nvidia-h200-x2`), after `source
# .device-kit/env.sh` (the kit with Open MPI, docs/mpi.md). Two GPUs spend device time twice as
# fast, so the work comes in two phases, each one call on the same warm machine (the build is
# kept between calls):
#   tools/gpu-two.sh bench    builds with MPI (warnings as errors), then
#     - bandwidth --cross from cuda 0: CUDA peer copies beside the hand-written cuMemcpyPeerAsync,
#       staged copies to the OpenCL views and PoCL; from opencl 0: staged OpenCL copies between
#       the two GPUs, shared memory between the two views of GPU 0;
#     - multi_device on the two GPUs (CUDA, then NVIDIA OpenCL; pageable and pinned host memory),
#       each GPU alone and both together, beside the native streams and the native two-device
#       split of the same run;
#     - mpi_stencil on 2 ranks, one GPU each (CUDA, NVIDIA OpenCL), against one rank on one GPU
#       (the sample runs both), on a grid that fills both GPUs.
#   tools/gpu-two.sh suites   the whole suite on CUDA and on NVIDIA's OpenCL with both GPUs
#     present, the multi-device suite over every device (two GPUs through CUDA, the same two
#     through NVIDIA's OpenCL, PoCL's CPU), and mpi_bandwidth between the two GPUs.
# Logs: one tarball per phase, $OUT/two-PHASE.tar.gz, replaced after each step (only 8 files
# come back from the machine); tables on stdout.
# At --size 1G for bandwidth --cross the bench phase outlasts a call's 600 s; at 256M it should
# take about 8 minutes on two H100s (imports into NVIDIA's OpenCL above 256 MiB, which crash
# its driver, are refused).
set -uo pipefail
phase=${1:-}
[ "$phase" = bench ] || [ "$phase" = suites ] || { echo "usage: $0 bench|suites"; exit 2; }
results=${OUT:-/tmp/dualrt-gpu}
export OUT=/tmp/dualrt-two-$phase
source "$(dirname "$0")/gpu-common.sh"
[ -n "${mpirun:-}" ] || { echo "no Open MPI in the device kit (docs/mpi.md)"; exit 1; }
# NVLink multicast stays off on these machines (KINDS.md); dualrt never asks for it.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
bin=$build/bin
pack() { tar -czf "$results/two-$phase.tar.gz" -C "$out" . 2>/dev/null; }

# step NAME SECONDS COMMAND...: `run` under a time limit, then the tarball refreshed.
step() {
  local name=$1 seconds=$2
  shift 2
  run "$name" timeout "$seconds" "$@"
  pack
}

if [ "$phase" = bench ]; then
  echo "== $(git rev-parse --short HEAD 2>/dev/null || echo 'commit unknown')"
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv,noheader
  nvidia-smi topo -m >"$out/topology.log" 2>&1
  head -4 "$out/topology.log"
  build_all
  pack
  TAIL=16 step cross-cuda 120 env DUALRT_BACKEND=cuda "$bin/bandwidth" --no-progress --size 256M \
    --repetitions 7 --cross
  TAIL=16 step cross-opencl 120 env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia "$bin/bandwidth" \
    --no-progress --size 256M --repetitions 7 --cross
  for pair in cuda:0,cuda:1 opencl:0,opencl:1; do
    for host in pinned pageable; do
      TAIL=14 step "multi_device-${pair//[:,]/-}-$host" 100 env -u POCL_DEVICES \
        "$bin/multi_device" --no-progress --devices "$pair" --host "$host" --size 2G \
        --repetitions 7
    done
  done
  np2=("$mpirun" -np 2 --bind-to none)
  grid=(--width 32768 --height 32768 --steps 100 --repetitions 5)
  TAIL=16 step stencil-cuda 150 "${np2[@]}" -x DUALRT_BACKEND=cuda "$bin/mpi_stencil" "${grid[@]}"
  TAIL=16 step stencil-opencl 150 "${np2[@]}" -x DUALRT_BACKEND=opencl "$bin/mpi_stencil" \
    "${grid[@]}"
else
  [ -f "$build/CMakeCache.txt" ] || build_all
  TAIL=5 step ctest-cuda 200 env DUALRT_BACKEND=cuda ctest --test-dir "$build" \
    --output-on-failure -j8 -E out_of_memory
  TAIL=5 step ctest-opencl 200 env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia ctest \
    --test-dir "$build" --output-on-failure -j8 -E out_of_memory
  TAIL=8 step multi-device-all 120 env -u POCL_DEVICES "$bin/dualrt_multi_device"
  TAIL=12 step mpi-bandwidth-cuda 60 "$mpirun" -np 2 --bind-to none -x DUALRT_BACKEND=cuda \
    "$bin/mpi_bandwidth" --sizes 1M,16M,256M,1G --repetitions 5
fi
echo "== logs: $results/two-$phase.tar.gz"
exit $status
