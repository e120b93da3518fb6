"""The measuring harness of every benchmark: interleaved samples, medians, ratios, a table.

A benchmark defines ``Case``s (a label, a function, calls per sample), measures them together
with ``measure()`` and prints ``Row``s with ``print_table()``. Rules that make ratios honest:

* every case is warmed up first, then the cases take turns (the order rotates every repeat),
  so a slow phase of the machine hits all of them alike;
* before each sample the garbage collector runs, and it stays off during the sample, for every
  case the same way;
* a ratio is always ours / a baseline measured in the same process, in the same loop.
"""

from __future__ import annotations

import argparse
import gc
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

__all__ = ["AsyncCase", "Case", "Row", "arguments", "measure", "measure_async", "print_table"]


@dataclass(frozen=True)
class Case:
    """One thing to time: ``func`` called ``number`` times per sample."""

    label: str
    func: Callable[[], object]
    number: int = 1


def measure(cases: Sequence[Case], *, repeats: int, warmup: int = 1) -> dict[str, float]:
    """The median seconds per call of each case, over ``repeats`` interleaved samples."""
    for case in cases:
        for _ in range(warmup):
            case.func()
    samples: dict[str, list[float]] = {case.label: [] for case in cases}
    for repeat in range(repeats):
        shift = repeat % len(cases)
        for case in [*cases[shift:], *cases[:shift]]:
            samples[case.label].append(_sample(case))
    return {label: statistics.median(values) for label, values in samples.items()}


def _sample(case: Case) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(case.number):
            case.func()
        return (time.perf_counter() - start) / case.number
    finally:
        gc.enable()


@dataclass(frozen=True)
class AsyncCase:
    """One coroutine to time: ``func()`` awaited ``number`` times per sample."""

    label: str
    func: Callable[[], Awaitable[object]]
    number: int = 1


async def measure_async(
    cases: Sequence[AsyncCase], *, repeats: int, warmup: int = 1
) -> dict[str, float]:
    """``measure()`` for coroutines, on the running event loop, with the same rules."""
    for case in cases:
        for _ in range(warmup):
            await case.func()
    samples: dict[str, list[float]] = {case.label: [] for case in cases}
    for repeat in range(repeats):
        shift = repeat % len(cases)
        for case in [*cases[shift:], *cases[:shift]]:
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                for _ in range(case.number):
                    await case.func()
                samples[case.label].append((time.perf_counter() - start) / case.number)
            finally:
                gc.enable()
    return {label: statistics.median(values) for label, values in samples.items()}


@dataclass(frozen=True)
class Row:
    """One line of a table: our figure next to its baseline's, and the target ratio if any."""

    path: str
    baseline: str
    baseline_value: float
    value: float
    unit: str = "ms"
    target: float | None = None
    scale: float = 1e3

    @property
    def ratio(self) -> float:
        return self.value / self.baseline_value

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "met" if self.ratio <= self.target else "MISSED"


def arguments(description: str, **defaults: int) -> argparse.Namespace:
    """Every benchmark's command line: ``--repeats`` and its own sizes, ``--smoke`` for tiny ones.

    ``--smoke`` replaces every default by 1 (or 3 repeats): a run that only proves the benchmark
    still works, as the test suite does.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: check it runs")
    parser.add_argument("--repeats", type=int, default=None, help="samples per case")
    for name, value in defaults.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=None, help=f"{value}")
    args = parser.parse_args()
    for name, value in {"repeats": 7, **defaults}.items():
        if getattr(args, name) is None:
            smoke = 3 if name == "repeats" else max(1, min(value, 2))
            setattr(args, name, smoke if args.smoke else value)
    return args


def print_table(title: str, rows: Sequence[Row], *, note: str = "") -> None:
    """A Markdown table of ``rows`` with the machine and the command that reproduces it."""
    print(f"\n### {title}\n")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {platform.system()};"
        f" {_cpus()}"
    )
    if note:
        print(note)
    print()
    print("| path | baseline | baseline value | ours | ratio | target | verdict |")
    print("|---|---|---:|---:|---:|---:|---|")
    for row in rows:
        target = f"<= {row.target:g}x" if row.target is not None else ""
        print(
            f"| {row.path} | {row.baseline} | {row.baseline_value * row.scale:.3f} {row.unit}"
            f" | {row.value * row.scale:.3f} {row.unit} | {row.ratio:.2f}x | {target}"
            f" | {row.verdict} |"
        )
    print(f"\nreproduce: {_command()}")


def _cpus() -> str:
    import os

    return f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"


def _command() -> str:
    module = sys.modules["__main__"].__spec__
    name = module.name if module is not None else sys.argv[0]
    return shlex.join(["python", "-m", name, *sys.argv[1:]])
