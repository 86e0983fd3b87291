# Sourced by the GPU-machine scripts (tools/gpu-check.sh, tools/gpu-reliability.sh): where logs
# go, a step runner that keeps going after a failure, and the build they all start from.
# Sets: out (logs: $OUT, else /tmp/dualrt-gpu), build (build-gpu), status (1 once a step failed).
out=${OUT:-/tmp/dualrt-gpu}
mkdir -p "$out"
build=build-gpu
status=0

# run NAME COMMAND...: runs a step with its output in $out/NAME.log, prints the log's last
# ${TAIL:-4} lines, and records a failure in $status.
run() {
  local name=$1
  shift
  echo "== $name: $*"
  "$@" >"$out/$name.log" 2>&1 || { echo "   FAILED (exit $?)"; status=1; }
  tail -n "${TAIL:-4}" "$out/$name.log"
}

# Open MPI from the device kit (EXTRA_DEBS, docs/mpi.md): unpacked under /tmp/deps by env.sh, it
# finds its own files through OPAL_PREFIX; Debian's alternatives (mpirun, mpicxx) are not made
# by dpkg -x, so CMake is pointed at the .openmpi names.
mpi_args=()
if [ -x /tmp/deps/usr/bin/mpicxx.openmpi ]; then
  export OPAL_PREFIX=/tmp/deps/usr
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_rmaps_base_oversubscribe=1
  mpirun=/tmp/deps/usr/bin/mpirun.openmpi
  mpi_args=(-DMPI_CXX_COMPILER=/tmp/deps/usr/bin/mpicxx.openmpi -DMPIEXEC_EXECUTABLE="$mpirun")
fi

# Configures and builds every target in $build with warnings as errors; exits on failure.
build_all() {
  echo "== configure + build"
  { cmake -S . -B "$build" -DDUALRT_WERROR=ON "${mpi_args[@]}" &&
    cmake --build "$build" -j "$(nproc)"; } \
    >"$out/build.log" 2>&1 || { tail -60 "$out/build.log"; exit 1; }
}
