"""The Pipeline sections: overlap, stream and stencil, each against a hand-written schedule."""

import os
import statistics
from typing import Dict, List

from .runner import Row, Runner, Section, collect, number, size_text
from .targets import Target


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
        "with one input of (a, b) pairs (`pipeline-pairs`), with two inputs replaying its "
        "recorded runs (`pipeline-replay`, PipelineOptions::replay) and with automatic chunking "
        "(`pipeline-auto`), against the same blocks hand-written on dualrt's queues "
        "(`pinned-view`, two queues alternating blocks), host clock, the median of `--reps` "
        "runs, the variants in turns (one run of each per round). The ratio is GB/s over the "
        "hand-written stream's (above 1: the Pipeline is faster); `pipeline-replay` also over "
        "the same blocks written in native CUDA / OpenCL (`native pinned`, which enqueues every "
        "command every run); auto is the median of its rows over the best fixed chunk size of "
        "`pipeline`.",
        ["Pipeline GB/s", "by hand GB/s", "Pipeline / by hand"], [2, 2, 3])
    rows: Dict[tuple, Row] = {}
    # A 16 MiB stream: at 64 KiB blocks the host's enqueues set the pace, at 16 MiB one block
    # is the whole run, so every fixed cost of a Pipeline run shows; replays run below 256 KiB.
    blocks = "64K,256K" if quick else "64K,128K,256K,1M,4M,16M"
    args = ["--size", "16M", "--blocks", blocks, "--variants",
            "pinned-view,pipeline,pipeline-pairs,pipeline-replay,pipeline-auto", "--reps",
            "1" if quick else "21"]
    for target in targets:
        key, results = run.run(section, "stream", args, target)
        for result in results:
            base = {r["block_bytes"]: number(r["gbps"]) for r in result
                    if r["variant"] == "pinned-view"}
            native = {r["block_bytes"]: number(r["gbps"]) for r in result
                      if r["variant"] == "native pinned"}
            fixed = {}
            auto = []
            for r in result:
                gbps = number(r["gbps"])
                chunks = size_text(int(r["block_bytes"]))
                if (r["variant"] in ("pipeline", "pipeline-pairs", "pipeline-replay")
                        and base.get(r["block_bytes"])):
                    what = f"{r['variant']}, {chunks} chunks"
                    collect(rows, (what, target.backend),
                            lambda: Row(what, target.label(), key), gbps, base[r["block_bytes"]],
                            gbps / base[r["block_bytes"]])
                if r["variant"] == "pipeline-replay" and native.get(r["block_bytes"]):
                    what = f"pipeline-replay over native pinned, {chunks} chunks"
                    collect(rows, (what, target.backend),
                            lambda: Row(what, target.label(), key), gbps,
                            native[r["block_bytes"]], gbps / native[r["block_bytes"]])
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
