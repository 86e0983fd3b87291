#!/usr/bin/env bash
# dualrt under MPI on the one-GPU machine, in one call after `source .device-kit/env.sh` (the kit
# must carry Open MPI: docs/mpi.md says which EXTRA_DEBS). Builds with MPI, then:
#   - the MPI tests and samples of CTest (label mpi; here DUALRT_BACKEND=opencl gives rank 0 the
#     GPU through NVIDIA's OpenCL and rank 1 PoCL's CPU),
#   - the MPI tests with 2 ranks sharing the GPU, on CUDA and on NVIDIA's OpenCL, and with rank 0
#     on the GPU (CUDA) beside rank 1 on PoCL,
#   - mpi_bandwidth and mpi_stencil in those three placements.
# Logs in $OUT/mpi/, tables on stdout.
set -uo pipefail
source "$(dirname "$0")/gpu-common.sh"
[ -n "${mpirun:-}" ] || { echo "no Open MPI in the device kit (docs/mpi.md)"; exit 1; }
build_all
bin=$build/bin
np2=("$mpirun" -np 2)
cuda=(-x DUALRT_BACKEND=cuda)
nvocl=(-x DUALRT_BACKEND=opencl -x DUALRT_DEVICE=nvidia)
pocl=(-x DUALRT_BACKEND=opencl -x DUALRT_DEVICE=pocl)
share=(-x DUALRT_MPI_TESTS_SHARE_DEVICES=1)

TAIL=12 run ctest-mpi env DUALRT_BACKEND=opencl ctest --test-dir "$build" -L mpi \
  --output-on-failure
TAIL=6 run tests-cuda-shared "${np2[@]}" "${cuda[@]}" "${share[@]}" "$bin/dualrt_mpi_tests"
TAIL=6 run tests-opencl-shared "${np2[@]}" "${nvocl[@]}" "${share[@]}" "$bin/dualrt_mpi_tests"
TAIL=6 run tests-cuda-pocl "$mpirun" -np 1 "${cuda[@]}" "$bin/dualrt_mpi_tests" : \
  -np 1 "${pocl[@]}" "$bin/dualrt_mpi_tests"

sizes=1M,4M,16M,64M,256M,1G
TAIL=12 run bandwidth-cuda-shared "${np2[@]}" "${cuda[@]}" "$bin/mpi_bandwidth" --share-devices \
  --sizes $sizes --repetitions 5
TAIL=12 run bandwidth-cuda-shared-16M "${np2[@]}" "${cuda[@]}" "$bin/mpi_bandwidth" \
  --share-devices --sizes 16M,256M,1G --repetitions 5 --piece 16M --in-flight 4
TAIL=12 run bandwidth-opencl-shared "${np2[@]}" "${nvocl[@]}" "$bin/mpi_bandwidth" \
  --share-devices --sizes $sizes --repetitions 5
TAIL=12 run bandwidth-cuda-pocl "$mpirun" -np 1 "${cuda[@]}" "$bin/mpi_bandwidth" \
  --sizes 1M,16M,256M --repetitions 3 : -np 1 "${pocl[@]}" "$bin/mpi_bandwidth" \
  --sizes 1M,16M,256M --repetitions 3

grid=(--width 16384 --height 16384 --steps 100 --repetitions 5)
TAIL=14 run stencil-cuda-shared "${np2[@]}" "${cuda[@]}" "$bin/mpi_stencil" --share-devices \
  "${grid[@]}"
TAIL=14 run stencil-opencl-shared "${np2[@]}" "${nvocl[@]}" "$bin/mpi_stencil" --share-devices \
  "${grid[@]}"
small=(--width 4096 --height 2048 --steps 20)
TAIL=14 run stencil-cuda-pocl "$mpirun" -np 1 "${cuda[@]}" "$bin/mpi_stencil" "${small[@]}" : \
  -np 1 "${pocl[@]}" "$bin/mpi_stencil" "${small[@]}"

# Diagnostics of the shared GPU: two processes on one GPU time-slice it (a context at a time), so
# a rank's halo copies wait for the other rank's kernels. With CUDA MPS both run at once, as two
# GPUs would. MPS is a user-level daemon (no GPU setting changes); it is stopped at the end.
if command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    TAIL=14 run stencil-cuda-shared-mps "${np2[@]}" "${cuda[@]}" -x CUDA_MPS_PIPE_DIRECTORY \
      "$bin/mpi_stencil" --share-devices "${grid[@]}"
    TAIL=12 run bandwidth-cuda-shared-mps "${np2[@]}" "${cuda[@]}" -x CUDA_MPS_PIPE_DIRECTORY \
      "$bin/mpi_bandwidth" --share-devices --sizes 1M,16M,256M --repetitions 5
    TAIL=14 run stencil-opencl-shared-mps "${np2[@]}" "${nvocl[@]}" -x CUDA_MPS_PIPE_DIRECTORY \
      "$bin/mpi_stencil" --share-devices "${grid[@]}"
    echo quit | nvidia-cuda-mps-control
  else
    echo "MPS did not start"
  fi
else
  echo "no nvidia-cuda-mps-control on this machine"
fi
# MPI's own link: Open MPI's shared-memory transport with and without its single copy (CMA).
for copy in cma none; do
  TAIL=8 run bandwidth-cuda-shared-vader-$copy "${np2[@]}" "${cuda[@]}" \
    -x OMPI_MCA_btl_vader_single_copy_mechanism=$copy "$bin/mpi_bandwidth" --share-devices \
    --sizes 1M,16M,256M --repetitions 5
done
mkdir -p "$out/mpi" && mv "$out"/*.log "$out/mpi/" 2>/dev/null
exit $status
