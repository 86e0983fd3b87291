"""The OpenCL program cache section: cold and cached builds in fresh processes."""

from typing import Dict, List

from .runner import Row, Runner, Section, collect, number
from .targets import Target, describe_target


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
