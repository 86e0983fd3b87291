#!/usr/bin/env bash
# Runs on the GPU machine through the device tool, after `source .device-kit/env.sh`: builds what
# Pipeline needs in build-gpu (warnings as errors), runs the Pipeline test cases and the Pipeline
# soak on CUDA and on the OpenCL device named, then the `stencil` sample (3x3 blur streamed over a
# pageable and a pinned image, dualrt's Pipeline beside hand-written native CUDA / OpenCL), the
# `overlap` sample (the balanced job over chunk counts, and a second sweep down to 64 KiB chunks)
# and the `stream` sample's Pipeline rows (c = a + s*b over 16 MiB, 256 MiB and 1 GiB, blocks of
# 64 KiB to 16 MiB: Pipeline with two inputs and with pairs, auto, the hand-written schedule on
# dualrt's queues and native) on both backends.
#
# Usage: tools/gpu-pipeline.sh [STEP...]   STEP: build tests stream stencil overlap (default: all)
#   The measurements alone (stream stencil overlap) take about 6-9 minutes on one H100 or H200
#   (the stream step alone about 6: 16 MiB to 1 GiB on both backends); give the build (and
#   tests) a command of their own, and the stream step one too where a command may run for 10
#   minutes at most.
#   OUT=dir         where results go (default /tmp/dualrt-gpu): only two files,
#                   pipeline-summary.txt and pipeline-results.tar.gz (every log, table, CSV,
#                   trace and SVG), rewritten after every step, so a run cut short still leaves
#                   what it did
#   OPENCL_DEVICE   DUALRT_DEVICE for the OpenCL runs (default nvidia: the same GPU through
#                   NVIDIA's OpenCL)
#   QUICK=1         small sizes and few repetitions: checks the script, not the GPU
# Exit status: 1 when any step failed (a wrong result, a crash, a failed build), else 0. The last
# lines printed are the summary table. Where one command may run for 10 minutes at most, run it
# in two: `tools/gpu-pipeline.sh build tests`, then `tools/gpu-pipeline.sh stencil overlap`
# (build-gpu stays between the two while the machine is held).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=tools/gpu-common.sh
source tools/gpu-common.sh
results=$out
work=$(mktemp -d "${TMPDIR:-/tmp}/dualrt-pipeline.XXXXXX")
out=$work  # gpu-common's run() writes its logs here; pack() turns them into two files
opencl_device=${OPENCL_DEVICE:-nvidia}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build tests stream stencil overlap)
summary=$work/summary.tsv
printf 'step\tbackend\tresult\n' >"$summary"
quick=${QUICK:-0}

# note STEP BACKEND RESULT: one row of the summary table.
note() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$summary"; }

print_summary() {
  column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"
}

# The results: the summary as text and everything else in one tarball, replaced after each step.
pack() {
  mkdir -p "$results"
  print_summary >"$results/pipeline-summary.txt"
  tar -czf "$results/pipeline-results.tar.gz.part" -C "$work" . 2>/dev/null &&
    mv "$results/pipeline-results.tar.gz.part" "$results/pipeline-results.tar.gz"
}
# shellcheck disable=SC2317  # called from the EXIT trap
finish() {
  pack
  echo
  echo "== results: $results/pipeline-summary.txt, $results/pipeline-results.tar.gz"
  print_summary
}
trap finish EXIT  # on every exit, the normal one included
trap 'echo "interrupted"; exit 1' INT TERM

has_step() {
  local step
  for step in "${steps[@]}"; do [ "$step" = "$1" ] && return 0; done
  return 1
}

# backends: "cuda:" and "opencl:<device>", the backends every run step covers.
backends=("cuda:" "opencl:$opencl_device")
backend_env() {  # backend_env cuda: | opencl:nvidia -> the env assignments for that backend
  local backend=${1%%:*} device=${1#*:}
  echo "DUALRT_BACKEND=$backend${device:+ DUALRT_DEVICE=$device}"
}
tag_of() { local backend=${1%%:*} device=${1#*:}; echo "$backend${device:+-$device}"; }

# value_after FILE TEXT: the first number after TEXT on the first line of FILE holding TEXT
# ("-" when there is none).
value_after() {
  awk -v text="$2" 'index($0, text) {
      rest = substr($0, index($0, text) + length(text))
      if (match(rest, /[0-9]+(\.[0-9]+)?/)) { print substr(rest, RSTART, RLENGTH); found = 1; exit }
    } END { if (!found) print "-" }' "$1" 2>/dev/null || echo "-"
}

if has_step build; then
  echo "== configure + build (build-gpu, warnings as errors)"
  if { cmake -S . -B "$build" -DDUALRT_WERROR=ON &&
       cmake --build "$build" -j "$(nproc)" --target dualrt dualrt_cuda dualrt_opencl \
         dualrt_native_cuda dualrt_native_opencl stencil overlap stream dualrt_conformance \
         dualrt_selection dualrt_stress dualrt-info; } >"$work/build.log" 2>&1; then
    note build - ok
  else
    tail -40 "$work/build.log"
    note build - "FAILED (see build.log)"
    status=1
    exit 1
  fi
  grep -E "warning|error" "$work/build.log" | head -20
  "$build/bin/dualrt-info" >"$work/dualrt-info.txt" 2>&1 || true
  nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv,noheader \
    >>"$work/dualrt-info.txt" 2>&1 || true
  pack
fi

# test_result LOG: doctest's count line, the reason of a skip, or that there was neither.
test_result() {
  local counts skipped
  counts=$(grep -E "test cases:" "$1" | tail -1 | tr -s ' ' | sed 's/^\[doctest\] //')
  skipped=$(grep -m1 -E "SKIPPED" "$1" | cut -c1-100)
  if [ -n "$skipped" ]; then echo "$skipped"; else echo "${counts:-no result (crashed?)}"; fi
}

if has_step tests; then
  # The planner, the model and the counting backend's event counts: no device needed.
  TAIL=3 run "tests-device-free" "$build/bin/dualrt_selection" --test-case='pipeline*'
  note "pipeline tests, device-free" - "$(test_result "$work/tests-device-free.log")"
  for b in "${backends[@]}"; do
    tag=$(tag_of "$b")
    # shellcheck disable=SC2046  # backend_env prints separate assignments on purpose
    TAIL=3 run "tests-$tag" env $(backend_env "$b") "$build/bin/dualrt_conformance" \
      --test-case='pipeline*'
    note "pipeline tests" "$tag" "$(test_result "$work/tests-$tag.log")"
    seconds=20
    [ "$quick" = 1 ] && seconds=3
    # shellcheck disable=SC2046
    TAIL=3 run "soak-$tag" env $(backend_env "$b") DUALRT_STRESS_SECONDS=$seconds \
      "$build/bin/dualrt_stress" --test-case='*pipeline*'
    note "pipeline soak ${seconds}s" "$tag" "$(test_result "$work/soak-$tag.log")"
    pack
  done
fi

# stream_run SIZE BACKEND ARGS...: the stream sample's Pipeline rows on one array size, with its
# summary row: Pipeline / the hand-written schedule at each block size, auto / the best fixed.
stream_run() {
  local size=$1 b=$2
  shift 2
  local tag name
  tag=$(tag_of "$b")
  name=stream-$size
  # 1 GiB streams on NVIDIA's OpenCL can run past 150 s (64 KiB blocks).
  local limit=150
  [ "$size" = 1G ] && limit=300
  # shellcheck disable=SC2046
  TAIL=14 run "$name-$tag" env $(backend_env "$b") timeout "${STREAM_TIMEOUT:-$limit}" \
    "$build/bin/stream" --no-progress --size "$size" \
    --variants pinned-view,pipeline,pipeline-pairs,pipeline-replay,pipeline-auto \
    --csv "$work/$name-$tag.csv" "$@"
  local log=$work/$name-$tag.log
  if grep -q "^pipeline-auto / the best fixed" "$log" && ! grep -q "WRONG" "$log"; then
    # The rows of the Pipeline / pinned-view table, then auto's line.
    local ratios
    # (The table's rows are padded: "pipeline-auto  "; its lines after it are not.)
    ratios=$(awk '/^Pipeline \/ pinned-view/ { on = 1; next }
      /^pipeline-auto[: ]/ && !/^pipeline-auto  / { exit }
      on && /^---/ { next } on && NF == 0 { exit }
      on && /^pipeline/ { $1 = $1; printf "%s%s", sep, $0; sep = "; " }' "$log")
    # "best fixed 74.10 GB/s at 4 MiB: 1.012 (target 1.00 met)"
    local auto
    auto=$(grep -m1 "^pipeline-auto / the best" "$log" | sed 's/^[^(]*(\(.*\)): /best fixed \1: /')
    note "$name" "$tag" "Pipeline / hand-written: $ratios; auto vs $auto"
  else
    note "$name" "$tag" "FAILED: $(grep -m1 -E 'error|WRONG' "$log" | cut -c1-120)"
  fi
  pack
}

if has_step stream; then
  step_began=$SECONDS
  for b in "${backends[@]}"; do
    if [ "$quick" = 1 ]; then
      stream_run 16M "$b" --blocks 64K,1M --reps 2
    else
      stream_run 16M "$b" --blocks 64K,256K,1M,4M,16M --reps 7
      stream_run 256M "$b" --blocks 64K,256K,1M,4M,16M --reps 5
      stream_run 1G "$b" --blocks 64K,256K,1M,4M,16M --reps 3
    fi
  done
  note "stream step" - "$((SECONDS - step_began)) s"
fi

# stencil_run NAME BACKEND HOST ARGS...: the stencil sample, with its summary row.
stencil_run() {
  local b=$2 host=$3
  local name=$1-$host
  shift 3
  local tag
  tag=$(tag_of "$b")
  # shellcheck disable=SC2046
  TAIL=12 run "$name-$tag" env $(backend_env "$b") "$build/bin/stencil" --no-progress \
    --host "$host" --csv "$work/$name-$tag.csv" "$@"
  local log=$work/$name-$tag.log
  if grep -q "bit for bit" "$log"; then
    # The fixed chunkings' native/dualrt (same rows per chunk), and auto against the best native.
    local fixed
    fixed=$(awk -F, 'NR > 1 && $10 != "" { printf "%s%s rows %.3f", sep, $6 + 0, $10; sep = ", " }' \
      "$work/$name-$tag.csv")
    note "$name" "$tag" \
      "correct; native/dualrt: $fixed; auto vs best native $(value_after "$log" 'chunking: native/dualrt')"
  else
    note "$name" "$tag" "FAILED: $(grep -m1 -E 'error|wrong' "$log" | cut -c1-120)"
  fi
  pack
}

if has_step stencil; then
  step_began=$SECONDS
  for b in "${backends[@]}"; do
    if [ "$quick" = 1 ]; then
      stencil_run stencil "$b" pageable --width 2048 --height 1024 --rows 16,64 --repetitions 2
      stencil_run stencil "$b" pinned --width 2048 --height 1024 --rows 16,64 --repetitions 2
    else
      # 256 MiB and 1 GiB images (8192 and 16384 floats a row: 32 to 512 rows are 1 to 32 MiB).
      stencil_run stencil "$b" pageable --width 8192 --height 8192 --rows 32,128,512
      stencil_run stencil "$b" pinned --width 8192 --height 8192 --rows 32,128,512
      stencil_run stencil-1g "$b" pageable --width 16384 --height 16384 --rows 16,64,256 \
        --repetitions 3
    fi
  done
  note "stencil step" - "$((SECONDS - step_began)) s"
fi

# overlap_run NAME BACKEND ARGS...: the overlap sample, with its summary row.
overlap_run() {
  local name=$1 b=$2
  shift 2
  local tag
  tag=$(tag_of "$b")
  # shellcheck disable=SC2046
  TAIL=14 run "$name-$tag" env $(backend_env "$b") "$build/bin/overlap" --no-progress \
    --csv "$work/$name-$tag.csv" --trace "$work/$name-$tag.json" --svg "$work/$name-$tag.svg" "$@"
  local log=$work/$name-$tag.log
  if grep -q "^timeline:" "$log"; then
    # Per mode at the largest chunk count: native/dualrt (the per-chunk tax shows there).
    local most
    # (Rows whose mode holds a comma are quoted and shift the fields: the auto rows, which have
    # no native time; they are skipped by the first test.)
    most=$(awk -F, 'NR > 1 && $3 !~ /"/ && $6 + 0 > 0 { if ($4 + 0 >= max) max = $4 + 0 }
      END { print max }' \
      "$work/$name-$tag.csv")
    local tax
    tax=$(awk -F, -v most="$most" 'NR > 1 && $3 !~ /"/ && $4 + 0 == most && $6 + 0 > 0 {
        printf "%s%s %.3f", sep, $3, $6 / $5; sep = ", " }' "$work/$name-$tag.csv")
    note "$name" "$tag" "auto vs best native $(value_after "$log" ': ratio'); native/dualrt at $most chunks: $tax"
  else
    note "$name" "$tag" "FAILED: $(grep -m1 -E 'error|wrong' "$log" | cut -c1-120)"
  fi
  pack
}

if has_step overlap; then
  step_began=$SECONDS
  for b in "${backends[@]}"; do
    if [ "$quick" = 1 ]; then
      overlap_run overlap "$b" --size 16M --chunks 4,16 --repetitions 2
    else
      overlap_run overlap "$b"
      # 64 MiB in 64, 256 and 1024 chunks: 1 MiB, 256 KiB and 64 KiB.
      overlap_run overlap-small-chunks "$b" --size 64M --chunks 64,256,1024
    fi
  done
  note "overlap step" - "$((SECONDS - step_began)) s"
fi

exit "$status"
