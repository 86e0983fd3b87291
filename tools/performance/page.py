"""The page: its introduction, a section's tables and sources as Markdown, and joining pages
that each ran some sections (--assemble)."""

import re
import statistics
import sys
from typing import Dict, List, Tuple

from .runner import Section


MAX_COLUMNS = 100  # the docs' line limit; longer commands are broken with a backslash


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
    found = re.search(r"Generated by\s.*?\.(?=\n\n|\Z)", head, re.S)
    origin = " ".join(found.group(0).split()) if found else ""
    return origin, [(chunk.split("\n", 1)[0], "## " + chunk.rstrip("\n") + "\n")
                    for chunk in chunks]


def join_origins(origins: List[str]) -> str:
    """Origin sentences as one ("Generated by ... on DATE and DATE (machines of one run); (of
    another)."), so that a page joined from runs on several machines and days names each day and
    each machine once, and a joined page joined again reads the same. Days whose runs were on the
    same machines share a sentence."""
    pattern = re.compile(r"Generated by `tools/performance_tables.py` on (\S+(?:(?:,| and) \S+)*)"
                         r" \((.*)\)\.$")
    by_date: Dict[str, List[str]] = {}
    others: List[str] = []
    # A joined origin may hold several sentences (days on different machines): one at a time.
    sentences = [sentence for origin in origins
                 for sentence in re.split(r"(?<=\.) (?=Generated by )", origin)]
    for origin in sentences:
        found = pattern.match(origin)
        if found is None:
            if origin not in others:
                others.append(origin)
            continue
        # An already joined origin lists its days separated by "," or "and", and its runs'
        # machines separated by "); (".
        for date in re.split(r",? and |, ", found.group(1)):
            for machines in found.group(2).split("); ("):
                if machines not in by_date.setdefault(date, []):
                    by_date[date].append(machines)
    by_machines: Dict[Tuple[str, ...], List[str]] = {}
    for date in sorted(by_date):
        by_machines.setdefault(tuple(by_date[date]), []).append(date)
    joined = []
    for machines, dates in by_machines.items():
        days = dates[0] if len(dates) == 1 else ", ".join(dates[:-1]) + " and " + dates[-1]
        joined.append(f"Generated by `tools/performance_tables.py` on {days} ("
                      + "); (".join(machines) + ").")
    return " ".join(joined + others)


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
    origin = "This page joins separate runs (`--assemble`). " + join_origins(origins)
    intro = page_intro(origin)
    with open(out_path, "w") as out:
        out.write((intro + "\n" + "\n".join(chosen[t] for t in order)).rstrip("\n") + "\n")
    print(f"wrote {out_path}: {len(order)} sections from {len(pages)} pages")
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
