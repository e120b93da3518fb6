"""Benchmark: the memory that stamped PodGroup models hold, next to the same JSON as dicts.

Run: ``python -m benchmarks.bench_memory [--count N] [--repeats N]``

``count`` PodGroups stamped from one template (as ``benchmarks.bench_stamp`` stamps them) are
kept alive in a list; ``tracemalloc`` measures the bytes allocated and still held, for the
models and, separately, for the hand-written dicts of the same objects. Stamped models keep
the input they were stamped from until first used (``docs/models.md``); the second row uses
each once, so that every model holds its validated fields. Each figure is the median of
interleaved repeats.
"""

from __future__ import annotations

import gc
import statistics
import tracemalloc
from collections.abc import Callable

from benchmarks._harness import Row, arguments, print_table
from benchmarks.bench_stamp import WORKLOAD, builder, dicts
from workloadbuilder import generate_pod_group_name as pod_group_name


def held_bytes(make: Callable[[], object]) -> int:
    """Bytes still allocated once ``make()``'s result exists (the result kept alive)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = make()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del result
    return held


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], count=10_000)
    built = builder()
    count = args.count
    names = [pod_group_name(WORKLOAD, f"run-{i}") for i in range(count)]

    def models() -> object:
        return [built.new_pod_group(name, "workers") for name in names]

    def used_models() -> object:
        stamped = [built.new_pod_group(name, "workers") for name in names]
        for obj in stamped:
            obj.spec  # noqa: B018  (the first use validates the object)
        return stamped

    def plain() -> object:
        return dicts(count, names)

    models()  # warm up: every cache filled
    samples: dict[str, list[int]] = {"models": [], "used": [], "dicts": []}
    for repeat in range(args.repeats):
        order = [("models", models), ("used", used_models), ("dicts", plain)]
        for label, make in order if repeat % 2 == 0 else order[::-1]:
            samples[label].append(held_bytes(make))
    held = {label: statistics.median(values) for label, values in samples.items()}
    # Both sides hold the same name strings, made before measuring.
    print_table(
        "memory held",
        [
            Row(
                f"{count:,} PodGroup models held in memory",
                "the same objects as dicts",
                held["dicts"] / count,
                held["models"] / count,
                unit="bytes per object",
                target=1.5,
                scale=1,
            ),
            Row(
                f"{count:,} PodGroup models held in memory, each used once (validated)",
                "the same objects as dicts",
                held["dicts"] / count,
                held["used"] / count,
                unit="bytes per object",
                target=1.5,
                scale=1,
            ),
        ],
    )


if __name__ == "__main__":
    main()
