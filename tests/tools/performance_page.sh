#!/usr/bin/env bash
# The generator of docs/performance.md end to end at tiny sizes: every section in two parts, as
# the GPU machine runs it, then the parts joined by --assemble. Fails where a part measured
# nothing for some row it expected, or the joined page lacks a section.
#   performance_page.sh SOURCE_DIR BIN_DIR WORK_DIR
set -euo pipefail
source_dir=$1 bin=$2 work=$3
tables=(python3 "$source_dir/tools/performance_tables.py" --quick --bin "$bin")
# The programs' leak checks belong to their own tests (bench.*, mpi.*): this one is about the
# generator, and LeakSanitizer's tracer has crashed at the exit of programs started by mpirun
# here (google/sanitizers#1353) with no leak to report. AddressSanitizer and UBSan still run.
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
rm -rf "$work"
mkdir -p "$work"

part() {
  local name=$1 sections=$2
  "${tables[@]}" --sections "$sections" --out "$work/$name.md" --work "$work/runs-$name" \
    | tee "$work/$name.log"
  grep -q "; 0 measurements missing;" "$work/$name.log" && return
  # The failed commands' whole output, not just its last lines: the cause (a sanitizer's report,
  # say) is seldom at the end.
  sed -n 's/^   FAILED ([^)]*); output in \(.*\.txt\), last lines:$/\1/p' "$work/$name.log" |
    while read -r output; do
      echo "---- $output"
      cat "$output"
    done
  echo "FAIL: $name: some measurement is missing (logs in $work/runs-$name)"
  exit 1
}
part part1 copies,staged,launch,replay,overlap,stream
part part2 stencil,ladders,multi_device,mpi,program_cache
python3 "$source_dir/tools/performance_tables.py" \
  --assemble "$work/part1.md" "$work/part2.md" --out "$work/performance.md"

for title in "Copies" "Copies from pageable memory against the host's limit" "Launch cost" \
             "Record and replay" "Overlap:" "Stream:" "Stencil:" "Kernel ladders" \
             "Several devices" "MPI" "OpenCL program cache"; do
  grep -q "^## $title" "$work/performance.md" ||
    { echo "FAIL: the joined page has no section '$title'"; exit 1; }
done
echo "performance page: every section measured and joined"
