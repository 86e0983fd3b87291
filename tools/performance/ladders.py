"""The kernel ladders: each family's best rung against its yardstick (CUB, a copy kernel, cuBLAS),
and how far the OpenCL and CUDA twins of a rung differ."""

from typing import Dict, List

from .runner import Row, Runner, Section, collect, number
from .targets import Target


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
