"""Running the benchmark programs, and the page's figures: a Section of Rows, each Row a
measure's values over the repeated runs of the command its Source names."""

import csv
import os
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .targets import Target


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
