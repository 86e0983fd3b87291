#!/usr/bin/env python3
"""Writes docs/performance.md from fresh runs of dualrt's benchmark programs.

Runs each program of build/bin (bandwidth, launch_cost, replay_cost, overlap, stream, stencil,
multi_device, program_cache, the kernel ladders, and mpi_stencil / mpi_bandwidth where MPI and
two devices are there, with mpi_collectives and NVIDIA's nccl-tests (--nccl-tests) on CUDA) on
CUDA and on an OpenCL device, each command --repetitions times, reads the rows each one writes
with --csv (the MPI programs print tables only: those are read from their output), and writes one Markdown page: per feature a table of medians, each ratio's
spread (min-max over the repeated runs), and the device, driver, date and exact command of
every figure. Python 3 standard library only.

  tools/performance_tables.py [--bin build-gpu/bin] [--out FILE] [--repetitions N] [--quick]

tools/gpu-performance.sh builds and calls it on the GPU machine; --quick (tiny sizes, one
repetition, OpenCL only where CUDA is missing) checks the script anywhere, PoCL included.
"""

import argparse
import csv
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

MAX_COLUMNS = 100  # the docs' line limit; longer commands are broken with a backslash


# ----------------------------------------------------------------------------------------------
# Targets (backend + device) and what the machine is


@dataclass
class Target:
    backend: str  # "cuda" or "opencl"
    device: str  # DUALRT_DEVICE ("" for the backend's default)
    name: str = ""  # the device's name, from dualrt-info
    driver: str = ""  # its driver version, from dualrt-info
    platform: str = ""

    def env(self) -> Dict[str, str]:
        env = {"DUALRT_BACKEND": self.backend}
        if self.device:
            env["DUALRT_DEVICE"] = self.device
        return env

    def label(self) -> str:
        return "CUDA" if self.backend == "cuda" else "OpenCL"


def dualrt_info(bin_dir: str, env: Optional[Dict[str, str]] = None) -> dict:
    """`dualrt-info --json` with `env` added; {} when it cannot run."""
    program = os.path.join(bin_dir, "dualrt-info")
    try:
        done = subprocess.run([program, "--json"], env={**os.environ, **(env or {})},
                              capture_output=True, text=True, timeout=120)
        return json.loads(done.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}


def describe_target(bin_dir: str, target: Target) -> bool:
    """Fills in the selected device's name and driver; False when nothing is selected."""
    info = dualrt_info(bin_dir, target.env())
    selected = (info.get("selection") or {}).get("selected")
    if not selected:
        return False
    for device in info.get("devices", []):
        if device.get("backend") == selected.get("backend") and \
                device.get("index") == selected.get("index"):
            target.name = device.get("name", "")
            target.driver = device.get("driver_version", "")
            target.platform = device.get("platform", "")
            return True
    target.name = selected.get("name", "")
    return True


def nvidia_smi() -> str:
    """'NVIDIA H200, 580.159.04' per GPU, or '' without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return ""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                               "--format=csv,noheader"], capture_output=True, text=True,
                              timeout=60)
        return "; ".join(line.strip() for line in done.stdout.splitlines() if line.strip())
    except (OSError, subprocess.TimeoutExpired):
        return ""


def choose_targets(bin_dir: str, opencl_device: str, quick: bool) -> List[Target]:
    """CUDA where it has a device; OpenCL on `opencl_device` ('auto': an NVIDIA device where
    there is one, else the backend's default). --quick: OpenCL only where CUDA is missing."""
    info = dualrt_info(bin_dir)
    backends = {b.get("name"): b for b in info.get("backends", [])}
    devices = info.get("devices", [])
    targets = []
    cuda = backends.get("cuda", {})
    if cuda.get("available") and cuda.get("device_count", 0) > 0:
        targets.append(Target("cuda", ""))
    opencl = backends.get("opencl", {})
    if opencl.get("available") and opencl.get("device_count", 0) > 0 and \
            not (quick and targets):
        device = opencl_device
        if device == "auto":
            nvidia = any(d.get("backend") == "opencl" and "nvidia" in
                         (d.get("name", "") + d.get("vendor", "")).lower() for d in devices)
            device = "nvidia" if nvidia else ""
        targets.append(Target("opencl", device))
    return [t for t in targets if describe_target(bin_dir, t)]


# ----------------------------------------------------------------------------------------------
# Running the programs


@dataclass
class Source:
    """One command, run `runs` times: where a table's figures come from."""
    key: str
    device: str
    command: str
    runs: int = 0


@dataclass
class Row:
    measure: str
    backend: str
    source: str
    dualrt: List[float] = field(default_factory=list)
    native: List[float] = field(default_factory=list)
    ratio: List[float] = field(default_factory=list)


@dataclass
class Section:
    anchor: str
    title: str
    text: str  # what is measured and how to read the ratio
    labels: List[str]  # dualrt, native and ratio column names
    decimals: List[int]  # of the dualrt, native and ratio columns
    rows: List[Row] = field(default_factory=list)
    sources: List[Source] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)  # what could not run, and why


class Runner:
    def __init__(self, args, date: str, smi: str):
        self.bin = args.bin
        self.work = args.work
        self.repetitions = args.repetitions
        self.timeout = args.timeout
        self.date = date
        self.smi = smi
        self.count = 0
        self.seconds: Dict[str, float] = {}  # per section, so that a refresh can be planned
        os.makedirs(self.work, exist_ok=True)

    def device_text(self, target: Optional[Target], name: str = "") -> str:
        if target is None:
            return name
        driver = target.driver or "driver not reported"
        return f"{target.name} ({target.label()}, driver {driver})"

    def program(self, name: str) -> str:
        return os.path.join(self.bin, name)

    def available(self, name: str) -> bool:
        return os.access(self.program(name), os.X_OK)

    def run(self, section: Section, name: str, args: List[str], target: Optional[Target],
            csv_file: bool = True, env: Optional[Dict[str, str]] = None, progress: bool = True,
            prefix: Optional[List[str]] = None, device: str = ""):
        """Runs bin/NAME ARGS `repetitions` times; yields (source key, csv rows or output text)
        per run that ended well. The source is added to `section`."""
        env = {**(target.env() if target else {}), **(env or {})}
        shown_env = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = " ".join(filter(None, [shown_env, " ".join(prefix or []),
                                         self.program(name), " ".join(map(shlex.quote, args))]))
        key = "abcdefghijklmnopqrstuvwxyz"[len(section.sources) % 26]
        source = Source(key, device or self.device_text(target), command)
        results = []
        for _ in range(self.repetitions):
            self.count += 1
            stem = os.path.join(self.work, f"{self.count:03d}-{os.path.basename(name)}")
            extra = (["--no-progress"] if progress else []) + \
                (["--csv", stem + ".csv"] if csv_file else [])
            argv = (prefix or []) + [self.program(name)] + args + extra
            print(f"== {command}", flush=True)
            began = time.monotonic()
            try:
                with open(stem + ".txt", "w") as log:
                    done = subprocess.run(argv, env={**os.environ, **env}, stdout=log,
                                          stderr=subprocess.STDOUT, timeout=self.timeout)
                code = done.returncode
            except subprocess.TimeoutExpired:
                code = "timed out"
            except OSError as error:
                code = str(error)
            seconds = time.monotonic() - began
            self.seconds[section.anchor] = self.seconds.get(section.anchor, 0.0) + seconds
            print(f"   {seconds:.1f} s", flush=True)
            with open(stem + ".txt") as log:
                text = log.read()
            if code != 0:
                print(f"   FAILED ({code}); output in {stem}.txt, last lines:\n" + "\n".join(
                    text.splitlines()[-5:]), flush=True)
                continue
            if csv_file:
                with open(stem + ".csv", newline="") as rows:
                    results.append(list(csv.DictReader(rows)))
            else:
                results.append(text)
        source.runs = len(results)
        if results:
            section.sources.append(source)
        else:
            section.missing.append(f"`{command}` failed in every run (logs: {self.work})")
        return key, results


def number(text: str) -> Optional[float]:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def collect(rows: Dict[tuple, Row], key: tuple, make, dualrt=None, native=None, ratio=None):
    """Adds one run's figures to the row of `key` (made by `make()` the first time)."""
    row = rows.get(key)
    if row is None:
        row = rows[key] = make()
    for values, value in ((row.dualrt, dualrt), (row.native, native), (row.ratio, ratio)):
        if value is not None:
            values.append(value)


def size_text(nbytes: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


# ----------------------------------------------------------------------------------------------
# The sections: what each runs, and how its rows are read


def copies(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "copies", "Copies",
        "`bandwidth`: one copy of `--size` bytes, event-timed, the median of `--repetitions` "
        "after two warm-up copies, every copy checked byte for byte; the native baseline is "
        "`cuMemcpy*Async` / `clEnqueue*Buffer` on the same device, in the same process. Pinned "
        "means `Device::alloc_host` (native: `cuMemHostAlloc` / a mapped "
        "`CL_MEM_ALLOC_HOST_PTR` buffer); pageable, a `std::vector`, which dualrt stages "
        "through its pinned pool and the native side hands to the driver. Then `stream`: "
        "c = a + s*b streamed in blocks through two queues, host memory held the ways users "
        "hold it, host clock, against the native stream from pinned memory in the same run.",
        ["dualrt GB/s", "native GB/s", "dualrt / native"], [2, 2, 3])
    rows: Dict[tuple, Row] = {}
    size = "4M" if quick else "256M"
    reps = "3" if quick else "20"
    for target in targets:
        key, results = run.run(section, "bandwidth", ["--size", size, "--repetitions", reps],
                               target)
        for result in results:
            for r in result:
                if r.get("table") != "main":
                    continue
                host = "" if r["host_memory"] == "-" else " " + r["host_memory"]
                what = f"{r['direction']}{host}, {size_text(int(r['bytes']))}"
                collect(rows, (what, target.backend),
                        lambda: Row(what, target.label(), key), number(r["dualrt_gbps"]),
                        number(r["native_gbps"]), number(r["ratio"]))
    variants = "pinned-view,pinned-pointer,registered,pageable"
    blocks = "64K,256K" if quick else "1M,16M"
    stream_args = ["--size", "16M" if quick else "256M", "--blocks", blocks,
                   "--variants", variants, "--reps", "1" if quick else "5"]
    for target in targets:
        key, results = run.run(section, "stream", stream_args, target)
        for result in results:
            native = {(r["block_bytes"]): number(r["gbps"]) for r in result
                      if r["variant"] == "native pinned"}
            for r in result:
                if r["side"] != "dualrt":
                    continue
                what = f"stream, {r['variant']}, {size_text(int(r['block_bytes']))} blocks"
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        number(r["gbps"]), native.get(r["block_bytes"]),
                        number(r["vs_native_pinned"]))
    section.rows = list(rows.values())
    return section


def staged(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "staged", "Copies from pageable memory against the host's limit",
        "`bandwidth --sweep`: dualrt's copy between a `std::vector` and a device buffer, "
        "staged through its pinned pool, at each size of the sweep, beside anchors measured "
        "in the same run: the host's limit (its best memcpy between pageable and pinned memory, "
        "the best of 1, 2, 4, ... threads up to its cores, median of `--repetitions`), which a "
        "staged copy cannot pass however well it overlaps the DMA; the same memcpy while the DMA "
        "moves as many bytes the same way (the slower of the two, each timed alone: the pace of "
        "a perfectly overlapped staged copy where the host's memory serves both); and the "
        "driver's own pageable copy (`cuMemcpy*Async` / `clEnqueue*Buffer` on the "
        "`std::vector`). Above 1 against the driver, staging pays; against either limit, 1 is "
        "the most it can reach.",
        ["staged GB/s", "anchor GB/s", "staged / anchor"], [2, 2, 3])
    rows: Dict[tuple, Row] = {}
    size = "4M" if quick else "1G"
    reps = "3" if quick else "10"
    for target in targets:
        key, results = run.run(section, "bandwidth",
                               ["--size", size, "--repetitions", reps, "--sweep"], target)
        for result in results:
            for r in result:
                anchor = {"host_limit": "the host's limit",
                          "host_limit_beside_dma": "the host's limit beside the DMA",
                          "sweep": "the driver's pageable copy"}.get(r.get("table"))
                if anchor is None or r["host_memory"] != "pageable":
                    continue
                what = f"{r['direction']} {size_text(int(r['bytes']))}, against {anchor}"
                collect(rows, (int(r["bytes"]), r["direction"], anchor, target.backend),
                        lambda: Row(what, target.label(), key), number(r["dualrt_gbps"]),
                        number(r["native_gbps"]), number(r["ratio"]))
    section.rows = [rows[k] for k in sorted(rows)]
    return section


LAUNCH_NAMES = {"enqueue, events discarded": "events discarded",
                "enqueue, events kept": "events kept",
                "enqueue, events kept, queue without timing": "events kept, untimed queue",
                "round trip (launch + wait)": "round trip",
                "fill launch on a buffer view": "launch on a view"}
QUEUE_NAMES = {"plain": "native: plain queue", "profiling": "native: profiling queue",
               "plain, own events kept": "native: plain, own events",
               "profiling, own events kept": "native: profiling, own events",
               "dualrt, whole buffer": "dualrt: whole buffer"}


def launch_cost(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "launch-cost", "Launch cost",
        "`launch_cost`: host time per enqueue of the built-in `empty` kernel over one "
        "work-item, in bursts of `--launches`, the median of `--repetitions` bursts, dualrt and "
        "the native launches in turns (a burst of each per round, the order swapped every "
        "round). The ratio is dualrt's time over native's: below 1, dualrt is faster. The "
        "native queue column of the sample says which native queue each row compares with "
        "(OpenCL: plain or profiling); the view row compares two dualrt launches.",
        ["dualrt µs", "native µs", "dualrt / native"], [3, 3, 3])
    rows: Dict[tuple, Row] = {}
    args = ["--launches", "200", "--repetitions", "3"] if quick else []
    for target in targets:
        key, results = run.run(section, "launch_cost", args, target)
        for result in results:
            for r in result:
                what = f"{LAUNCH_NAMES.get(r['measure'], r['measure'])} " \
                    f"({QUEUE_NAMES.get(r['native_queue'], r['native_queue'])})"
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        number(r["dualrt_us"]), number(r["native_us"]), number(r["ratio"]))
    section.rows = list(rows.values())
    return section


def replay_cost(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "replay", "Record and replay",
        "`replay_cost`: host time per command from the first enqueue until the queue has run "
        "them, the median of `--repetitions` rounds, dualrt and native in turns, on a queue "
        "without profiling: `--launches` launches of `empty`, and `--steps` Jacobi sweeps "
        "(the grids compared bit for bit). Native replays with a CUDA graph, or an OpenCL "
        "command buffer where the device has one; on NVIDIA's OpenCL, which has none, the "
        "rows against native plain launches are the comparison. The ratio is dualrt's time "
        "over native's: below 1, dualrt is faster.",
        ["dualrt µs", "native µs", "dualrt / native"], [3, 3, 3])
    rows: Dict[tuple, Row] = {}
    args = ["--launches", "50", "--repetitions", "3", "--steps", "4", "--grid", "64"] \
        if quick else ["--launches", "1000", "--repetitions", "20"]
    wanted = {"replay, until run": "replay, until run",
              "dualrt replay against native plain, enqueue":
                  "replay against native plain, enqueue",
              "dualrt replay against native plain, until run":
                  "replay against native plain, until run",
              "jacobi: replay, until run": "jacobi: replay, until run",
              "jacobi: dualrt replay against native plain, until run":
                  "jacobi: replay vs native plain, until run"}
    for target in targets:
        key, results = run.run(section, "replay_cost", args, target)
        for result in results:
            for r in result:
                if r["measure"] not in wanted or number(r["ratio"]) is None:
                    continue
                what = wanted[r["measure"]]
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        number(r["dualrt_us"]), number(r["native_us"]), number(r["ratio"]))
    section.rows = list(rows.values())
    return section


def overlap(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "overlap", "Overlap: the Pipeline against hand-written native pipelines",
        "`overlap`: a balanced upload / compute / download job from pinned memory (the `busy` "
        "kernel calibrated to take as long as the upload), run by dualrt's Pipeline in each "
        "mode and by a hand-written native pipeline at the same chunk counts (lanes beside "
        "native three queues), the median of `--repetitions` device-timed runs, outputs "
        "checked. The ratio is native time over dualrt's (above 1: dualrt is faster); for "
        "auto, dualrt's automatic speedup over serial against the best native speedup of the "
        "run.",
        ["dualrt ms", "native ms", "native / dualrt"], [3, 3, 3])
    rows: Dict[tuple, Row] = {}
    args = ["--size", "4M", "--chunks", "2,8", "--repetitions", "2"] if quick else []
    for target in targets:
        tag = f"{run.count + 1:03d}-{target.backend}"
        trace = ["--trace", os.path.join(run.work, f"overlap-{tag}.json"),
                 "--svg", os.path.join(run.work, f"overlap-{tag}.svg")]
        key, results = run.run(section, "overlap", args + trace, target)
        for result in results:
            counts = [int(r["chunks"]) for r in result
                      if r["mode"] in ("two queues", "three queues", "lanes")]
            largest = max(counts) if counts else 0
            best_native = max((number(r["native_speedup"]) or 0.0) for r in result)
            for r in result:
                dualrt_ms, native_ms = number(r["dualrt_ms"]), number(r["native_ms"])
                if r["mode"] in ("two queues", "three queues", "lanes") and \
                        int(r["chunks"]) == largest and native_ms:
                    what = f"{r['mode']}, {largest} chunks"
                    collect(rows, (what, target.backend),
                            lambda: Row(what, target.label(), key), dualrt_ms, native_ms,
                            native_ms / dualrt_ms)
                elif r["mode"].endswith(", auto") and best_native > 0:
                    what = "auto: speedup / best native speedup"
                    collect(rows, (what, target.backend),
                            lambda: Row(what, target.label(), key), dualrt_ms, None,
                            number(r["dualrt_speedup"]) / best_native)
    section.rows = list(rows.values())
    return section


def stream(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "stream", "Stream: the Pipeline against the same stream hand-written",
        "`stream`: c = a + s*b from pinned memory; the Pipeline with two inputs (`pipeline`), "
        "with one input of (a, b) pairs (`pipeline-pairs`) and with automatic chunking "
        "(`pipeline-auto`), against the same blocks hand-written on dualrt's queues "
        "(`pinned-view`, two queues alternating blocks), host clock, the median of `--reps` "
        "runs, the variants in turns (one run of each per round). The ratio is GB/s over the hand-written stream's (above 1: the Pipeline is "
        "faster); auto is the median of its rows over the best fixed chunk size of "
        "`pipeline`.",
        ["Pipeline GB/s", "by hand GB/s", "Pipeline / by hand"], [2, 2, 3])
    rows: Dict[tuple, Row] = {}
    blocks = "64K,256K" if quick else "1M,4M,16M"
    args = ["--size", "16M" if quick else "256M", "--blocks", blocks, "--variants",
            "pinned-view,pipeline,pipeline-pairs,pipeline-auto", "--reps", "1" if quick else "5"]
    for target in targets:
        key, results = run.run(section, "stream", args, target)
        for result in results:
            base = {r["block_bytes"]: number(r["gbps"]) for r in result
                    if r["variant"] == "pinned-view"}
            fixed = {}
            auto = []
            for r in result:
                gbps = number(r["gbps"])
                if r["variant"] in ("pipeline", "pipeline-pairs") and base.get(r["block_bytes"]):
                    what = f"{r['variant']}, {size_text(int(r['block_bytes']))} chunks"
                    collect(rows, (what, target.backend),
                            lambda: Row(what, target.label(), key), gbps, base[r["block_bytes"]],
                            gbps / base[r["block_bytes"]])
                if r["variant"] == "pipeline":
                    fixed[r["block_bytes"]] = gbps
                if r["variant"] == "pipeline-auto":
                    auto.append(gbps)
            if auto and fixed:
                best = max(fixed.values())
                what = "pipeline-auto / the best fixed chunk size"
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        statistics.median(auto), best, statistics.median(auto) / best)
    section.rows = list(rows.values())
    return section


def stencil(run: Runner, targets: List[Target], quick: bool) -> Section:
    section = Section(
        "stencil", "Stencil: a halo Pipeline against the native one",
        "`stencil`: a 3x3 blur streamed over an image in row blocks with a one-row halo, "
        "dualrt's Pipeline against the same blocks hand-written on native lanes (pinned "
        "buffers filled by `memcpy`), the median of `--repetitions` runs, every image "
        "checked bit for bit. From pageable memory dualrt stages with its copy threads, the "
        "native code with one `memcpy` per block. The ratio is native time over dualrt's "
        "(above 1: dualrt is faster); auto against the best native row count.",
        ["dualrt ms", "native ms", "native / dualrt"], [3, 3, 3])
    rows: Dict[tuple, Row] = {}
    size = ["--width", "512", "--height", "256", "--rows", "16,64", "--repetitions", "1"] \
        if quick else ["--rows", "32,128,512"]
    for host in ("pinned", "pageable"):
        for target in targets:
            key, results = run.run(section, "stencil", ["--host", host] + size, target)
            for result in results:
                natives = [number(r["native_ms"]) for r in result if number(r["native_ms"])]
                for r in result:
                    image = f"{r['width']}x{r['height']}"
                    dualrt_ms = number(r["dualrt_ms"])
                    if r["chunking"] == "auto":
                        if not natives:
                            continue
                        best = min(natives)
                        what = f"{host} {image}, auto vs the best native"
                        collect(rows, (what, target.backend),
                                lambda: Row(what, target.label(), key), dualrt_ms, best,
                                best / dualrt_ms)
                    elif number(r["native_over_dualrt"]):
                        what = f"{host} {image}, {r['chunking']}"
                        collect(rows, (what, target.backend),
                                lambda: Row(what, target.label(), key), dualrt_ms,
                                number(r["native_ms"]), number(r["native_over_dualrt"]))
    section.rows = list(rows.values())
    return section


LADDERS = [  # sample, its arguments (full, quick)
    ("reduce", [], ["--elements", "65536", "--type", "f32"]),
    ("transpose", [], ["--rows", "256", "--cols", "256", "--rectangular", "128x512"]),
    ("matmul", ["--size", "4096"], ["--size", "128"]),
    ("coalescing", [], ["--size", "256K"]),
    ("occupancy", [], ["--elements", "65536", "--fma-elements", "65536", "--iterations", "16"]),
]


def ladders(run: Runner, targets: List[Target], quick: bool, device: str) -> Section:
    section = Section(
        "ladders", "Kernel ladders",
        "The ladder samples ([ladders.md](ladders.md)) time every rung of each family on CUDA "
        "and OpenCL in one process (`--device` picks both views of one GPU), with device "
        "events, the median of `--repetitions` after `--warmup` runs, every rung checked "
        "against the CPU. The baseline is the family's yardstick measured in the same run: "
        "CUB for reduce, a copy kernel of the same shape for transpose, cuBLAS (strict fp32) "
        "for matmul. The ratio is the best rung's rate over the yardstick's (above 1: the rung "
        "is faster); the last row of each family is the largest OpenCL/CUDA time ratio of any "
        "rung (1: the twins take the same time).",
        ["best rung", "yardstick", "ratio"], [1, 1, 3])
    rows: Dict[tuple, Row] = {}
    backends = {t.backend for t in targets}
    label = {"cuda": "CUDA", "opencl": "OpenCL"}
    names = " and ".join(f"{t.name} ({t.label()}, driver {t.driver or 'not reported'})"
                         for t in targets)
    for name, full, small in LADDERS:
        if not run.available(name):
            section.missing.append(f"`{name}` is not built")
            continue
        args = (small + ["--warmup", "1", "--repetitions", "2"]) if quick else full
        selection = ["--device", device] if device else []
        if len(backends) == 1:
            selection += ["--backend", next(iter(backends))]
        key, results = run.run(section, name, selection + args, None, device=names)
        for result in results:
            for family in dict.fromkeys(r["family"] for r in result):
                if name in ("coalescing", "occupancy"):
                    break
                mine = [r for r in result if r["family"] == family]
                # The yardstick: the vendor library's row (CUDA only) where there is one,
                # else the copy kernel of the same backend.
                vendor = [r for r in mine if not r["rung"][:1].isdigit() and r["rung"] != "copy"]
                for backend in sorted(backends):
                    rungs = [r for r in mine if r["backend"] == backend and r["rung"][:1].isdigit()]
                    copy = [r for r in mine if r["backend"] == backend and r["rung"] == "copy"]
                    yardstick = (vendor or copy or [None])[0]
                    if not rungs or yardstick is None or not number(yardstick["rate"]):
                        continue
                    best = max(rungs, key=lambda r: number(r["rate"]) or 0.0)
                    short = yardstick["rung"].split()[0]
                    what = f"{family} ({best['unit']}): best rung vs {short}"
                    collect(rows, (what, backend), lambda: Row(what, label[backend], key),
                            number(best["rate"]), number(yardstick["rate"]),
                            number(best["rate"]) / number(yardstick["rate"]))
            ratios = [number(r["opencl_over_cuda"]) for r in result
                      if number(r["opencl_over_cuda"])]
            if ratios:
                what = f"{name}: largest OpenCL/CUDA time of any rung"
                collect(rows, (what, "both"), lambda: Row(what, "both", key), None, None,
                        max(ratios))
    section.rows = list(rows.values())
    return section


PAIR_NAMES = {"cuda:0,opencl:portable": "CUDA + PoCL",
              "opencl:nvidia,opencl:portable": "OpenCL + PoCL",
              "cuda:0,cuda:1": "2 GPUs, CUDA", "all": "every device"}


def multi_device(run: Runner, targets: List[Target], quick: bool, info: dict) -> Section:
    section = Section(
        "multi-device", "Several devices",
        "`multi_device`: c = a + s*b over arrays of `--size` bytes, one Pipeline per device "
        "alone, then one over the devices together whose runs take turns with a Pipeline of "
        "the fastest device alone and with the native streams side by side on a fixed split; "
        "the median of `--repetitions` runs after an untimed one (over the devices together, "
        "of the runs that went the way most did: the Pipeline measures the fastest alone now "
        "and then), every output checked. Each device alone is compared with its hand-written "
        "native stream (native / dualrt: above 1, dualrt is faster); the devices together with "
        "the fastest alone in turns (alone / together: above 1, together is faster) and with "
        "the native split in turns (native / dualrt).",
        ["dualrt ms", "compared ms", "ratio"], [3, 3, 3])
    rows: Dict[tuple, Row] = {}
    devices = info.get("devices", [])
    cpu = [d for d in devices if d.get("backend") == "opencl" and d.get("type") == "cpu"]
    cuda = [d for d in devices if d.get("backend") == "cuda"]
    runs = []  # (devices option, host)
    size = "1M" if quick else "1G"
    reps = "2" if quick else "21"
    if quick:
        runs.append(("all", "pageable"))
    else:
        if cpu and any(t.backend == "cuda" for t in targets):
            runs += [("cuda:0,opencl:portable", "pageable"), ("cuda:0,opencl:portable", "pinned")]
        if cpu and any(t.device == "nvidia" for t in targets):
            runs.append(("opencl:nvidia,opencl:portable", "pageable"))
        if len(cuda) >= 2:
            runs.append(("cuda:0,cuda:1", "pinned"))
    if not runs:
        section.missing.append("no pair of devices to run together on this machine")
    for selection, host in runs:
        two_gpus = selection == "cuda:0,cuda:1"
        args = ["--devices", selection, "--host", host, "--size", "2G" if two_gpus else size,
                "--repetitions", "5" if two_gpus else reps]
        names = ", ".join(f"{d.get('backend')} {d.get('index')} '{d.get('name')}'"
                          for d in devices) if selection == "all" else selection
        short = PAIR_NAMES.get(selection, selection)
        key, results = run.run(section, "multi_device", args, None,
                               device=f"{names}; {run.smi or 'no nvidia-smi'}")
        for result in results:
            turns = {r["run"]: number(r["dualrt_ms"]) for r in result
                     if r["run"].endswith(", in turns")}
            for r in result:
                dualrt_ms = number(r["dualrt_ms"])
                if r["run"].endswith(", in turns"):
                    continue
                if int(r["devices"]) > 1:
                    alone = next(iter(turns.values()), None)
                    what = f"{r['run']}, {host}: together / alone in turns"
                    collect(rows, (what, selection), lambda: Row(what, short, key),
                            dualrt_ms, alone, number(r["over_fastest_alone"]))
                if number(r["native_over_dualrt"]):
                    what = f"{r['run']}, {host}: against native"
                    collect(rows, (what + "n", selection), lambda: Row(what, short, key),
                            dualrt_ms, number(r["native_ms"]), number(r["native_over_dualrt"]))
    section.rows = list(rows.values())
    return section


def parse_table(text: str, first_header: str) -> List[List[str]]:
    """The rows of the table printed under a header line starting with `first_header`: columns
    from the dashes of the rule line under it."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith(first_header) and lines[i + 1].startswith("-"):
            spans = [m.span() for m in re.finditer(r"-+", lines[i + 1])]
            rows = []
            for body in lines[i + 2:]:
                # A table row is blank at every column's left gap; the text after it is not.
                gaps = [body[start - 2:start] for start, _ in spans[1:]]
                if not body.strip() or any(gap.strip() for gap in gaps):
                    break
                cells = []
                for j, (start, end) in enumerate(spans):
                    stop = spans[j + 1][0] if j + 1 < len(spans) else len(body)
                    cells.append(body[start:stop].strip())
                rows.append(cells)
            return rows
    return []


def nccl_tests_busbw(text: str) -> Dict[int, float]:
    """Out-of-place bus bandwidth (GB/s) by size in bytes, from an nccl-tests program's output:
    size, count, type, redop, root, time, algbw, busbw, ..."""
    rates = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0].isdigit() and fields[1].isdigit():
            rate = number(fields[7])
            if rate is not None:
                rates[int(fields[0])] = rate
    return rates


def size_bytes(text: str) -> Optional[int]:
    """"16 MiB" -> 16777216, as the benchmarks print sizes."""
    match = re.fullmatch(r"([0-9.]+) (B|KiB|MiB|GiB)", text.strip())
    if not match:
        return None
    scale = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[match.group(2)]
    return int(float(match.group(1)) * scale)


def nccl_anchored(run: Runner, section: Section, rows: Dict[tuple, Row], target: Target,
                  mpirun: str, nccl_tests: str, ranks: int) -> None:
    """CUDA ranks, one GPU each, move device buffers through NCCL: mpi_bandwidth (2 ranks) and
    mpi_collectives (2 and `ranks` ranks) beside NVIDIA's nccl-tests of the same sizes and GPU
    count, run in between."""
    sizes = "16M,64M,256M,1G"
    # nccl-tests times `iterations` operations enqueued back to back; mpi_bandwidth starts as
    # many transfers before waiting for any, so both pay a launch's latency once per sample.
    iterations = "20"
    anchor_args = ["-b", "16M", "-e", "1G", "-f", "4", "-w", "5", "-n", iterations]
    nvls = {"NCCL_NVLS_ENABLE": "0"}  # NVLink multicast stays off on shared machines
    for count in sorted({2, ranks}):
        visible = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(count))}
        env = {**target.env(), **nvls, **visible}
        prefix = [mpirun, "-np", str(count), "--bind-to", "none"] + \
            [x for k in env for x in ("-x", k)]
        device = run.device_text(target) + f", {count} ranks"
        anchors = {}
        for test in ["sendrecv_perf", "all_reduce_perf", "broadcast_perf"]:
            if test == "sendrecv_perf" and count != 2:
                continue
            key, results = run.run(section, os.path.join(nccl_tests, test),
                                   anchor_args + ["-g", str(count)], None, csv_file=False,
                                   progress=False, env={**nvls, **visible}, device=device)
            anchors[test] = (key, [nccl_tests_busbw(text) for text in results])
        measured = [("mpi_bandwidth", ["--sizes", sizes, "--repetitions", "7",
                                       "--back-to-back", iterations], "bytes",
                     [(4, "sendrecv_perf", "send/recv")])] if count == 2 else []
        measured.append(("mpi_collectives", ["--sizes", sizes], "bytes",
                         [(1, "broadcast_perf", "broadcast"), (2, "all_reduce_perf",
                                                               "allreduce")]))
        for program, args, header, columns in measured:
            key, results = run.run(section, program, args, None, csv_file=False,
                                   progress=False, env=env, prefix=prefix, device=device)
            for text in results:
                for cells in parse_table(text, header):
                    nbytes = size_bytes(cells[0])
                    for column, test, what in columns:
                        runs = anchors.get(test, ("", []))[1]
                        anchor = [r[nbytes] for r in runs if nbytes in r]
                        mine = number(cells[column].split()[0]) if len(cells) > column else None
                        if nbytes is None or mine is None or not anchor:
                            continue
                        theirs = statistics.median(anchor)
                        label = (f"{program} {what}, {count} ranks, {cells[0]}: bus GB/s "
                                 f"against nccl-tests {test} ({anchors[test][0]})")
                        collect(rows, (label, target.backend),
                                lambda: Row(label, target.label(), key), mine, theirs,
                                mine / theirs)


def mpi(run: Runner, targets: List[Target], quick: bool, info: dict, mpirun: str,
        nccl_tests: str = "") -> Section:
    section = Section(
        "mpi", "MPI",
        "`mpi_stencil`: a Jacobi grid in row blocks over 2 ranks, one device each, halo rows "
        "exchanged every step while the interior is computed, beside one rank on the whole "
        "grid (ms per step, the median of `--repetitions` batches of `--steps`; the grids "
        "compared bit for bit). Strong scaling is one rank's time over two ranks' (ideal: 2); "
        "the hidden share is the part of the exchange's own time that the overlapped step "
        "does not add. `mpi_bandwidth`: a device buffer from rank 0 to rank 1 through "
        "`dualrt::mpi`, against MPI's own rate between pinned host buffers in the same run; "
        "where CUDA ranks move data through NCCL, it (20 transfers back to back per sample, as "
        "nccl-tests times 20 iterations) and `mpi_collectives` (broadcast and allreduce over "
        "every rank) against NVIDIA's nccl-tests of the same sizes and GPU count, run in the "
        "same call (out-of-place bus bandwidth). On 2 GPUs `sendrecv_perf` moves data both ways "
        "at once, each GPU sending to the other; `mpi_bandwidth` moves it one way.",
        ["dualrt", "baseline", "ratio"], [4, 4, 3])
    rows: Dict[tuple, Row] = {}
    devices = info.get("devices", [])
    if not (run.available("mpi_stencil") and run.available("mpi_bandwidth")):
        section.missing.append("`mpi_stencil` and `mpi_bandwidth` are not built (no MPI)")
        return section
    if not shutil.which(mpirun) and not os.access(mpirun, os.X_OK):
        section.missing.append(f"no `{mpirun}` on this machine")
        return section
    for target in targets:
        count = sum(1 for d in devices if d.get("backend") == target.backend)
        share = count < 2
        if share and not quick:
            section.missing.append(f"{target.label()}: one device, and the ranks would share "
                                   "it (two GPUs needed)")
            continue
        target_env = {"DUALRT_BACKEND": target.backend}  # every rank picks its own device
        prefix = [mpirun, "-np", "2", "--bind-to", "none"] + \
            [x for k in target_env for x in ("-x", k)]
        stencil_args = ["--width", "256", "--height", "256", "--steps", "4", "--repetitions",
                        "1"] if quick else ["--width", "32768", "--height", "32768", "--steps",
                                            "100", "--repetitions", "5"]
        if share:
            stencil_args.append("--share-devices")
        key, results = run.run(section, "mpi_stencil", stencil_args, None, csv_file=False,
                               env=target_env, prefix=prefix,
                               device=run.device_text(target) + ", 2 ranks")
        for text in results:
            table = {cells[0]: cells for cells in parse_table(text, "run")}
            single = number((table.get("1 rank, whole grid") or [None, None])[1])
            two = number((table.get("2 ranks, overlapped") or [None, None])[1])
            if single and two:
                what = "mpi_stencil: strong scaling (ms per step)"
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        two, single, single / two)
            hidden = re.search(r"exchange hidden behind the interior: ([0-9.]+)%", text)
            if hidden:
                what = "mpi_stencil: share of the exchange hidden"
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        None, None, float(hidden.group(1)) / 100.0)
        bandwidth_args = ["--sizes", "1M", "--repetitions", "2"] if quick else \
            ["--sizes", "1M,16M,256M", "--repetitions", "5"]
        if share:
            bandwidth_args.append("--share-devices")
        key, results = run.run(section, "mpi_bandwidth", bandwidth_args, None, csv_file=False,
                               progress=False, env=target_env, prefix=prefix,
                               device=run.device_text(target) + ", 2 ranks")
        for text in results:
            for cells in parse_table(text, "bytes"):
                if len(cells) < 7:
                    continue
                what = f"mpi_bandwidth {cells[0]}: GB/s against MPI host to host"
                dualrt_rate = number(cells[4].split()[0]) if cells[4] else None
                collect(rows, (what, target.backend), lambda: Row(what, target.label(), key),
                        dualrt_rate, number(cells[3]), number(cells[6]))
        if target.backend == "cuda" and not share and not quick:
            if nccl_tests and run.available(os.path.join(nccl_tests, "sendrecv_perf")):
                nccl_anchored(run, section, rows, target, mpirun, nccl_tests, min(count, 4))
            else:
                section.missing.append("CUDA through NCCL against nccl-tests: no nccl-tests "
                                       "(--nccl-tests DIR, its build folder)")
    section.rows = list(rows.values())
    return section


def program_cache(run: Runner, targets: List[Target], quick: bool, pocl: bool) -> Section:
    section = Section(
        "program-cache", "OpenCL program cache",
        "`program_cache`: the build of every built-in OpenCL program in a fresh child "
        "process, cold (an empty `DUALRT_CACHE_DIR`) and cached (the same folder again), the "
        "median of `--repetitions`, each in a new folder; the drivers' own caches off "
        "(`CUDA_CACHE_DISABLE=1`, `POCL_KERNEL_CACHE=0`) unless `--keep-driver-cache`. No "
        "native baseline: the ratio is cold time over cached ([program-cache.md]"
        "(program-cache.md)).",
        ["cached ms", "cold ms", "cold / cached"], [1, 1, 1])
    rows: Dict[tuple, Row] = {}
    devices = [t for t in targets if t.backend == "opencl"]
    # PoCL beside the GPU's OpenCL; --quick measures one OpenCL device, PoCL only where CUDA
    # took the only target.
    if pocl and not any(t.device == "pocl" for t in devices) and not (quick and devices):
        devices.append(Target("opencl", "pocl"))
    if not devices:
        section.missing.append("no OpenCL device")
    for target in devices:
        if not target.name:
            describe_target(run.bin, target)
        for keep in ([], ["--keep-driver-cache"]):
            args = ["--backend", "opencl", "--repetitions", "1" if quick else "5"] + keep
            key, results = run.run(section, "program_cache", args, target, progress=False)
            for result in results:
                for r in result:
                    what = f"{target.name}, driver cache {r['driver_cache']}"
                    collect(rows, (what, target.backend), lambda: Row(what, "OpenCL", key),
                            number(r["cached_ms"]), number(r["cold_ms"]), number(r["speedup"]))
    section.rows = list(rows.values())
    return section


# ----------------------------------------------------------------------------------------------
# The page


INTRO = """\
# Performance

Every figure on this page is a ratio against a native baseline measured **in the same run**, on
the same device: plain CUDA driver calls or plain OpenCL calls written by hand in `bench/`, which
the benchmark programs load at run time into the same process. Device work is timed with device
events (host clock where the sample says so), after warm-up runs, and each figure is the median
of the program's own repetitions. Where a command ran several times, a row shows the median of
those runs and its spread, the lowest and highest ratio among them: a difference smaller than
the spread means nothing. Every program checks its results (byte for byte, bit for bit, or
against a CPU reference) and fails when one is wrong; every figure here comes from a run that
passed.

Each table names where its figures come from: the source key of a row (`src`) is listed under
the table with the device, its driver, the date and the exact command (each run also got
`--no-progress --csv FILE`). {origin}

To refresh the page, on the GPU machine (after `source .device-kit/env.sh`):

```sh
tools/gpu-performance.sh                       # writes $OUT/performance.md
```

The whole page takes longer than one call to the GPU machine may run, so it is usually made in
parts and joined:

```sh
tools/gpu-performance.sh --sections copies,staged,launch,replay --out part1.md
tools/gpu-performance.sh --no-build --sections overlap,stream,stencil --out part2.md   # ...
python3 tools/performance_tables.py --assemble part1.md part2.md --out docs/performance.md
```

[testing-on-gpu.md](testing-on-gpu.md) says how the GPU machine is used.
"""


def cell(values: List[float], decimals: int) -> str:
    return f"{statistics.median(values):.{decimals}f}" if values else "-"


def spread(values: List[float], decimals: int) -> str:
    if len(values) < 2:
        return "one run"
    return f"{min(values):.{decimals}f}-{max(values):.{decimals}f}"


def wrap(command: str) -> List[str]:
    """The command as shell lines of at most MAX_COLUMNS, broken with backslashes."""
    lines, line = [], ""
    for word in command.split(" "):
        if line and len(line) + 1 + len(word) + 2 > MAX_COLUMNS:
            lines.append(line + " \\")
            line = "  " + word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


def render(section: Section, date: str) -> str:
    out = [f"## {section.title}", ""] + wrap_text(section.text) + [""]
    if section.rows:
        labels, decimals = section.labels, section.decimals
        for group in dict.fromkeys(row.backend for row in section.rows):
            out += [f"**{group}**", ""]
            out.append(f"| measure | {' | '.join(labels)} | spread | src |")
            out.append("|---|---|---|---|---|---|")
            for row in (r for r in section.rows if r.backend == group):
                out.append(f"| {row.measure} | {cell(row.dualrt, decimals[0])} | "
                           f"{cell(row.native, decimals[1])} | {cell(row.ratio, decimals[2])} "
                           f"| {spread(row.ratio, decimals[2])} | {row.source} |")
            out.append("")
        runs = sorted({s.runs for s in section.sources})
        widest = max(((max(r.ratio) - min(r.ratio)) / statistics.median(r.ratio)
                      for r in section.rows if len(r.ratio) > 1 and statistics.median(r.ratio)),
                     default=None)
        if widest is None:
            text = "Spread: one run per command, so none to show."
        else:
            text = (f"Spread: the lowest and highest ratio over {'/'.join(map(str, runs))} runs "
                    f"of each command; the widest here is {100 * widest:.1f}% of its median.")
        out += wrap_text(text) + [""]
    for missing in section.missing:
        out += wrap_text(f"Not measured: {missing}.") + [""]
    if section.sources:
        out.append("```sh")
        for source in section.sources:
            runs = "once" if source.runs == 1 else f"{source.runs} times"
            out += comment_lines(f"# {source.key}: {source.device}; {date}; run {runs}")
            out += wrap(source.command)
        out += ["```", ""]
    return "\n".join(out)


def page_intro(origin: str) -> str:
    """The page's opening text with `origin` (where its figures come from), wrapped to the docs'
    line limit."""
    intro = INTRO.format(origin=origin)
    return "\n".join(line for chunk in intro.split("\n") for line in
                     (wrap_text(chunk) if len(chunk) > MAX_COLUMNS else [chunk]))


def split_page(text: str) -> Tuple[str, List[Tuple[str, str]]]:
    """A generated page's origin sentence ("Generated by ... on DATE (...).") and its sections,
    each (title, text from its "## " line on)."""
    head, *chunks = re.split(r"(?m)^## ", text)
    found = re.search(r"Generated by .*?\.(?=\n\n|\Z)", head, re.S)
    origin = " ".join(found.group(0).split()) if found else ""
    return origin, [(chunk.split("\n", 1)[0], "## " + chunk.rstrip("\n") + "\n")
                    for chunk in chunks]


def assemble(pages: List[str], out_path: str) -> int:
    """One page from pages that each ran some sections (--sections): a section keeps the place
    of its first appearance and the text of its last, so a later part can redo one."""
    order: List[str] = []
    chosen: Dict[str, str] = {}
    origins: List[str] = []
    for path in pages:
        with open(path) as page:
            origin, sections = split_page(page.read())
        if not sections:
            print(f"{path}: no section (expected a page tools/performance_tables.py wrote)",
                  file=sys.stderr)
            return 2
        if origin and origin not in origins:  # parts made on one machine on one day say it once
            origins.append(origin)
        for title, text in sections:
            if title not in chosen:
                order.append(title)
            chosen[title] = text
    # A page may itself be joined, so the number of runs behind it is not known here: the
    # sources under each table say which run made it.
    origin = "This page joins separate runs (`--assemble`). " + " ".join(origins)
    intro = page_intro(origin)
    with open(out_path, "w") as out:
        out.write((intro + "\n" + "\n".join(chosen[t] for t in order)).rstrip("\n") + "\n")
    print(f"wrote {out_path}: {len(order)} sections from {len(pages)} pages")
    return 0


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

    targets = choose_targets(args.bin, args.opencl_device, args.quick)
    if not targets:
        print(f"no device to measure on ({args.bin}/dualrt-info selects none)", file=sys.stderr)
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


def comment_lines(comment: str) -> List[str]:
    """A shell comment broken into lines of at most MAX_COLUMNS, continued with "#    "."""
    return wrap_text(comment, continued="#    ")


def wrap_text(text: str, continued: str = "") -> List[str]:
    """`text` broken at spaces into lines of at most MAX_COLUMNS (a longer word keeps a line of
    its own); lines after the first start with `continued`."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > MAX_COLUMNS:
            lines.append(line)
            line = continued + word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


if __name__ == "__main__":
    sys.exit(main())
