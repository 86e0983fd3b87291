"""The MPI section: mpi_stencil and mpi_bandwidth, and where CUDA ranks move data through NCCL,
mpi_bandwidth and mpi_collectives against NVIDIA's nccl-tests."""

import os
import re
import shutil
import statistics
from typing import Dict, List, Optional

from .runner import Row, Runner, Section, collect, number
from .targets import Target


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
