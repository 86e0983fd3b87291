#!/usr/bin/env python3
"""Writes docs/performance.md from fresh runs of dualrt's benchmark programs.

Runs each program of build/bin (bandwidth, launch_cost, replay_cost, overlap, stream, stencil,
multi_device, program_cache, the kernel ladders, and mpi_stencil / mpi_bandwidth where MPI and
two devices are there, with mpi_collectives and NVIDIA's nccl-tests (--nccl-tests) on CUDA) on
CUDA and on an OpenCL device, each command --repetitions times, reads the rows each one writes
with --csv (the MPI programs print tables only: those are read from their output), and writes
one Markdown page: per feature a table of medians, each ratio's spread (min-max over the
repeated runs), and the device, driver, date and exact command of every figure. Python 3
standard library only. Each section's runs and reading are in performance/ (one module per
kind of benchmark), the page's text in performance/page.py.

  tools/performance_tables.py [--bin build-gpu/bin] [--out FILE] [--repetitions N] [--quick]

tools/gpu-performance.sh builds and calls it on the GPU machine; --quick (tiny sizes, one
repetition, OpenCL only where CUDA is missing) checks the script anywhere, PoCL included.
"""

import argparse
import datetime
import os
import sys

from performance.copies import copies, staged
from performance.ladders import ladders
from performance.launches import launch_cost, replay_cost
from performance.mpi import mpi
from performance.multi_device import multi_device
from performance.page import assemble, page_intro, render
from performance.pipelines import overlap, stencil, stream
from performance.program_cache import program_cache
from performance.runner import Runner
from performance.targets import choose_targets, dualrt_info, nvidia_smi


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default="build/bin", help="the programs (default build/bin)")
    default_out = os.path.join(os.environ.get("OUT", "/tmp/dualrt-gpu"), "performance.md")
    parser.add_argument("--out", default=default_out, help=f"the page (default {default_out})")
    parser.add_argument("--work", help="CSV files and logs (default: beside --out)")
    parser.add_argument("--repetitions", type=int, help="runs of each command (default 3; "
                        "--quick: 1)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one run, OpenCL only where CUDA is missing")
    parser.add_argument("--opencl-device", default="auto",
                        help="DUALRT_DEVICE of the OpenCL runs (default: nvidia where there is "
                             "such a device, else the default device)")
    parser.add_argument("--sections", default="all",
                        help="comma-separated: copies,staged,launch,replay,overlap,stream,stencil,"
                             "ladders,multi_device,mpi,program_cache (default all)")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per command")
    parser.add_argument("--mpirun", default=os.environ.get("MPIRUN", "mpirun"))
    parser.add_argument("--nccl-tests", default=os.environ.get("NCCL_TESTS_BIN", ""),
                        help="the build folder of NVIDIA's nccl-tests, the anchor of the NCCL "
                             "rows (default $NCCL_TESTS_BIN)")
    parser.add_argument("--assemble", nargs="+", metavar="PAGE",
                        help="measure nothing: join pages written by runs of some --sections "
                             "each into one page at --out (a section that several pages have "
                             "is taken from the last)")
    args = parser.parse_args()
    if args.assemble:
        return assemble(args.assemble, args.out)
    if args.repetitions is None:
        args.repetitions = 1 if args.quick else 3
    if args.work is None:
        args.work = os.path.join(os.path.dirname(os.path.abspath(args.out)), "performance-runs")

    info_program = os.path.join(args.bin, "dualrt-info")
    if not os.access(info_program, os.X_OK):
        # Every section picks its devices through it, whichever programs the sections run.
        print(f"{info_program} is missing: build it (cmake --build ... --target dualrt-info) "
              f"beside the programs the sections run", file=sys.stderr)
        return 1
    targets = choose_targets(args.bin, args.opencl_device, args.quick)
    if not targets:
        print(f"no device to measure on ({info_program} selects none)", file=sys.stderr)
        return 1
    date = datetime.date.today().isoformat()
    smi = nvidia_smi()
    info = dualrt_info(args.bin)
    run = Runner(args, date, smi)
    for target in targets:
        print(f"target: {run.device_text(target)}", flush=True)
    opencl = [t for t in targets if t.backend == "opencl"]
    ladder_device = "nvidia" if any(t.device == "nvidia" for t in opencl) else \
        (opencl[0].device if opencl else "")
    pocl = any(d.get("backend") == "opencl" and d.get("type") == "cpu"
               for d in info.get("devices", []))
    makers = {
        "copies": lambda: copies(run, targets, args.quick),
        "staged": lambda: staged(run, targets, args.quick),
        "launch": lambda: launch_cost(run, targets, args.quick),
        "replay": lambda: replay_cost(run, targets, args.quick),
        "overlap": lambda: overlap(run, targets, args.quick),
        "stream": lambda: stream(run, targets, args.quick),
        "stencil": lambda: stencil(run, targets, args.quick),
        "ladders": lambda: ladders(run, targets, args.quick, ladder_device),
        "multi_device": lambda: multi_device(run, targets, args.quick, info),
        "mpi": lambda: mpi(run, targets, args.quick, info, args.mpirun, args.nccl_tests),
        "program_cache": lambda: program_cache(run, targets, args.quick, pocl),
    }
    chosen = list(makers) if args.sections == "all" else args.sections.split(",")
    unknown = [name for name in chosen if name not in makers]
    if unknown:
        print(f"unknown sections: {', '.join(unknown)} (known: {', '.join(makers)})",
              file=sys.stderr)
        return 2
    sections = [makers[name]() for name in chosen]

    machine = "; ".join(run.device_text(t) for t in targets)
    origin = (f"Generated by `tools/performance_tables.py` on {date} "
              f"({'quick mode: tiny sizes, not figures to quote; ' if args.quick else ''}"
              f"{machine}{'; nvidia-smi: ' + smi if smi else ''}).")
    intro = page_intro(origin)
    page = intro + "\n" + "\n".join(render(s, date) for s in sections)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        out.write(page.rstrip("\n") + "\n")
    failed = sum(len(s.missing) for s in sections)
    print(f"wrote {args.out} ({sum(len(s.rows) for s in sections)} rows; "
          f"{failed} measurements missing; logs and CSV in {args.work})")
    print("seconds per section: " + ", ".join(f"{name} {seconds:.1f}"
                                              for name, seconds in run.seconds.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
