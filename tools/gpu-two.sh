#!/usr/bin/env bash
# Issue 19 on the two-GPU machine (`nvidia-h200-x2`), in one call after `source
# .device-kit/env.sh` (the kit with Open MPI, docs/mpi.md). Not run yet: that kind was not lent
# in sessions 8 and 9. Builds with MPI, then:
#   - the whole suite on CUDA and on NVIDIA's OpenCL, and the multi-device suite over every
#     device (two H200s through CUDA, the same two through NVIDIA's OpenCL, PoCL's CPU);
#   - bandwidth --cross from cuda 0 and from opencl 0 (CUDA peer copies, staged OpenCL copies
#     between the GPUs, shared memory between the two views of each GPU);
#   - multi_device on the two GPUs (CUDA, then NVIDIA OpenCL), each alone and both together,
#     beside the native two-device CUDA pipeline;
#   - mpi_stencil on 2 ranks, one GPU each (CUDA, NVIDIA OpenCL), against one rank on one GPU,
#     on a grid that fills both, and mpi_bandwidth between the two GPUs.
# Two GPUs spend device time twice as fast: everything runs in this one script (about 8
# minutes). Logs in $OUT/two/, tables on stdout.
# Still missing for the issue's targets: a native cuMemcpyPeerAsync baseline in bench/ (the CUDA
# peer rows compare with pinned copies only).
set -uo pipefail
source "$(dirname "$0")/gpu-common.sh"
[ -n "${mpirun:-}" ] || { echo "no Open MPI in the device kit (docs/mpi.md)"; exit 1; }
build_all
bin=$build/bin
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader
TAIL=5 run ctest-cuda env DUALRT_BACKEND=cuda ctest --test-dir "$build" --output-on-failure -j4 \
  -E out_of_memory
TAIL=5 run ctest-opencl env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia \
  ctest --test-dir "$build" --output-on-failure -j4 -E out_of_memory
TAIL=8 run multi-device-all env -u POCL_DEVICES "$bin/dualrt_multi_device"
TAIL=24 run cross-cuda env DUALRT_BACKEND=cuda "$bin/bandwidth" --no-progress --size 1G \
  --repetitions 10 --cross
TAIL=24 run cross-opencl env DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia "$bin/bandwidth" \
  --no-progress --size 1G --repetitions 10 --cross
for pair in cuda:0,cuda:1 opencl:0,opencl:1; do
  TAIL=12 run "multi_device-${pair//[:,]/-}" env -u POCL_DEVICES "$bin/multi_device" \
    --no-progress --devices "$pair" --size 1G --repetitions 5
done
np2=("$mpirun" -np 2)
grid=(--width 32768 --height 32768 --steps 100 --repetitions 5)
TAIL=14 run stencil-cuda "${np2[@]}" -x DUALRT_BACKEND=cuda "$bin/mpi_stencil" "${grid[@]}"
TAIL=14 run stencil-opencl "${np2[@]}" -x DUALRT_BACKEND=opencl "$bin/mpi_stencil" "${grid[@]}"
TAIL=12 run mpi-bandwidth-cuda "${np2[@]}" -x DUALRT_BACKEND=cuda "$bin/mpi_bandwidth" \
  --sizes 1M,16M,256M,1G --repetitions 5
mkdir -p "$out/two" && mv "$out"/*.log "$out/two/" 2>/dev/null
exit $status
