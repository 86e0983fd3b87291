#!/usr/bin/env bash
# dualrt::mpi through NCCL on a machine of several GPUs (`nvidia-h100-x4`, `nvidia-h100-x2`),
# after `source .device-kit/env.sh` (the kit with Open MPI, docs/mpi.md). In one call:
#   - the MPI suite on 2 ranks (2 GPUs) and on 4 (4 GPUs), where the transport is NCCL; on 2
#     ranks sharing one GPU, where NCCL refuses and every rank falls back to staging;
#   - mpi_bandwidth (2 ranks) and mpi_collectives (2 and 4 ranks) beside NVIDIA's nccl-tests,
#     built from its sources (NCCL_TESTS, a checkout of github.com/NVIDIA/nccl-tests carried with
#     the call) in the same call: sendrecv_perf, all_reduce_perf and broadcast_perf;
#   - mpi_stencil on 4 ranks.
# docs/mpi.md ("Measured") and docs/performance.md ("MPI") hold the figures. NVLink multicast
# stays off (NCCL_NVLS_ENABLE=0): the GPUs of these machines are shared. Logs: $OUT/nccl.tar.gz.
set -uo pipefail
results=${OUT:-/tmp/dualrt-gpu}
export OUT=/tmp/dualrt-nccl
source "$(dirname "$0")/gpu-common.sh"
[ -n "${mpirun:-}" ] || { echo "no Open MPI in the device kit (docs/mpi.md)"; exit 1; }
nccl_tests=${NCCL_TESTS:-}
[ -d "$nccl_tests/src" ] || { echo "NCCL_TESTS must name a checkout of nccl-tests"; exit 2; }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
pack() { tar -czf "$results/nccl.tar.gz" -C "$out" . 2>/dev/null; }
step() { local name=$1 seconds=$2; shift 2; run "$name" timeout "$seconds" "$@"; pack; }

echo "== $(git rev-parse --short HEAD 2>/dev/null || echo 'commit unknown') $(date -u +%F)"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
# nccl-tests builds beside dualrt (sm_90: H100 and H200).
( make -C "$nccl_tests" -j 32 MPI=0 CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" >"$out/nccl-tests-build.log" 2>&1 ) &
tests_build=$!
{ cmake -S . -B "$build" -DDUALRT_WERROR=ON "${mpi_args[@]}" &&
  cmake --build "$build" -j "$(nproc)" --target dualrt_mpi_tests mpi_bandwidth mpi_collectives \
    mpi_stencil dualrt_cuda; } >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
wait $tests_build || { tail -20 "$out/nccl-tests-build.log"; exit 1; }
bin=$build/bin
nt=$nccl_tests/build
cuda=(-x DUALRT_BACKEND=cuda -x NCCL_NVLS_ENABLE=0)
m=("$mpirun" --bind-to none)
two=(-x CUDA_VISIBLE_DEVICES=0,1)
TAIL=3 step tests-2 100 "${m[@]}" -np 2 "${cuda[@]}" "${two[@]}" "$bin/dualrt_mpi_tests"
TAIL=3 step tests-4 100 "${m[@]}" -np 4 "${cuda[@]}" "$bin/dualrt_mpi_tests"
TAIL=3 step tests-shared 100 "${m[@]}" -np 2 "${cuda[@]}" -x CUDA_VISIBLE_DEVICES=0 \
  -x DUALRT_MPI_TESTS_SHARE_DEVICES=1 "$bin/dualrt_mpi_tests"
TAIL=10 step bandwidth-2 90 "${m[@]}" -np 2 "${cuda[@]}" "${two[@]}" "$bin/mpi_bandwidth" \
  --sizes 4M,16M,64M,256M,1G --repetitions 7
TAIL=9 step sendrecv_perf-2 60 env CUDA_VISIBLE_DEVICES=0,1 "$nt/sendrecv_perf" -b 4M -e 1G \
  -f 4 -g 2 -w 5 -n 20
for ranks in 2 4; do
  visible=0,1
  [ "$ranks" = 4 ] && visible=0,1,2,3
  TAIL=9 step "collectives-$ranks" 90 "${m[@]}" -np "$ranks" "${cuda[@]}" \
    -x CUDA_VISIBLE_DEVICES=$visible "$bin/mpi_collectives" --sizes 16M,64M,256M,1G
  for test in all_reduce_perf broadcast_perf; do
    TAIL=9 step "$test-$ranks" 60 env CUDA_VISIBLE_DEVICES=$visible "$nt/$test" -b 16M -e 1G \
      -f 4 -g "$ranks" -w 5 -n 20
  done
done
TAIL=12 step stencil-4 100 "${m[@]}" -np 4 "${cuda[@]}" "$bin/mpi_stencil" --width 16384 \
  --height 16384 --steps 100 --repetitions 3
echo "== logs: $results/nccl.tar.gz"
exit $status
