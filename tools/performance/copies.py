"""The copy sections: bandwidth against the native copies, and staged copies against the
host's limit."""

from typing import Dict, List

from .runner import Row, Runner, Section, collect, number, size_text
from .targets import Target


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
        "a perfectly overlapped staged copy where the host's memory serves both); a relay "
        "(the host copies into one pinned buffer while the DMA moves the other, which the host "
        "filled the round before, or the reverse for device to host, the best of memcpy and "
        "streaming stores: where the DMA reads what the host wrote as it wrote it); and the "
        "driver's own pageable copy (`cuMemcpy*Async` / `clEnqueue*Buffer` on the "
        "`std::vector`). Above 1 against the driver, staging pays; against any of the limits, 1 is "
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
                          "host_limit_relay": "the host's relay with the DMA",
                          "sweep": "the driver's pageable copy"}.get(r.get("table"))
                if anchor is None or r["host_memory"] != "pageable":
                    continue
                what = f"{r['direction']} {size_text(int(r['bytes']))}, against {anchor}"
                collect(rows, (int(r["bytes"]), r["direction"], anchor, target.backend),
                        lambda: Row(what, target.label(), key), number(r["dualrt_gbps"]),
                        number(r["native_gbps"]), number(r["ratio"]))
    section.rows = [rows[k] for k in sorted(rows)]
    return section
