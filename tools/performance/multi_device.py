"""The several-devices section: multi_device, one Pipeline over devices against the fastest alone
and against the native split."""

from typing import Dict, List

from .runner import Row, Runner, Section, collect, number
from .targets import Target


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
