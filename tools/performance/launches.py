"""The launch sections: launch_cost, and replay_cost (record and replay)."""

from typing import Dict, List

from .runner import Row, Runner, Section, collect, number
from .targets import Target


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
