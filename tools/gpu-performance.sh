#!/usr/bin/env bash
# Regenerates docs/performance.md: runs every benchmark program beside its native baseline on
# CUDA and on NVIDIA's OpenCL (DUALRT_BACKEND=cuda; DUALRT_BACKEND=opencl DUALRT_DEVICE=nvidia),
# each command a few times, and writes the page with the device, driver, date, exact commands,
# median ratios and their spread (tools/performance_tables.py does the runs and the writing).
#
# On the GPU machine, after `source .device-kit/env.sh`:
#   tools/gpu-performance.sh [options]       builds build-gpu (tools/gpu-common.sh), then runs
#   OUT=dir                                  where the page and the runs' CSV and logs go
#                                            (default /tmp/dualrt-gpu): $OUT/performance.md,
#                                            $OUT/performance-runs/
# Anywhere (PoCL included), to check the script and the page's form:
#   tools/gpu-performance.sh --quick         no build: build/bin as it is, tiny sizes, one run,
#                                            OpenCL only where CUDA is missing
# Options (passed on to the generator): --repetitions N (runs of each command, default 3),
# --sections copies,launch,... (default all), --opencl-device NAME, --out FILE, --bin DIR,
# --nccl-tests DIR (the build folder of NVIDIA's nccl-tests, the anchor of the NCCL rows on a
# machine of several GPUs; tools/gpu-nccl.sh builds it), --no-build (use build-gpu as it is).
# The whole page takes about 25-40 minutes on one GPU (the run ends with the seconds each section
# took); where one command may run 10 minutes at most, run it in parts (--sections, with --out per
# part) and join them: tools/performance_tables.py --assemble part1.md part2.md ... --out FILE.
# Then copy $OUT/performance.md (or the joined page) over docs/performance.md and commit it.
set -uo pipefail
cd "$(dirname "$0")/.."

quick=0
build=1
pass=()
for arg in "$@"; do
  case $arg in
    --quick) quick=1 pass+=("$arg") ;;
    --no-build) build=0 ;;
    *) pass+=("$arg") ;;
  esac
done

if [ "$quick" = 1 ]; then
  # As CTest runs the MPI samples: as root where that is who runs, and more ranks than cores.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
  exec python3 tools/performance_tables.py --bin build/bin "${pass[@]}"
fi

source tools/gpu-common.sh
[ "$build" = 1 ] && build_all
export MPIRUN=${mpirun:-mpirun}
python3 tools/performance_tables.py --bin "$build/bin" "${pass[@]}"
