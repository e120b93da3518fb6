"""Benchmark: ``to_yaml()`` next to PyYAML's emitters, and proof that the bytes are the same.

Run: ``python -m benchmarks.bench_yaml [--count N] [--repeats N]``

``count`` stamped PodGroups and the Workload of the widest tree are emitted with ``to_yaml()``.
Baselines: ``yaml.dump`` of the same dicts with the pure-Python ``yaml.SafeDumper`` and with
the C emitter ``yaml.CSafeDumper`` (when PyYAML was built with libyaml). Every document must
be byte-identical to the pure-Python emitter's.
"""

from __future__ import annotations

from typing import Any

import yaml

from benchmarks._harness import Case, Row, arguments, measure, print_table
from benchmarks.bench_core import OPTIONS, wide_tree
from benchmarks.bench_stamp import WORKLOAD, builder
from workloadbuilder import Builder
from workloadbuilder import generate_pod_group_name as pod_group_name


def dump(doc: dict[str, Any], dumper: type[Any]) -> str:
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False)


def main() -> None:
    args = arguments(__doc__.split("\n\n")[0], count=1000)
    built = builder()
    objects: list[Any] = [
        built.new_pod_group(pod_group_name(WORKLOAD, f"run-{i}"), "workers")
        for i in range(args.count)
    ]
    objects.append(Builder(wide_tree(), OPTIONS).build_workload())
    docs = [o.to_dict() for o in objects]
    pure = [dump(d, yaml.SafeDumper) for d in docs]
    assert [o.to_yaml() for o in objects] == pure, "to_yaml() differs from yaml.safe_dump"
    cases = [
        Case("pure", lambda: [dump(d, yaml.SafeDumper) for d in docs]),
        Case("sdk", lambda: [o.to_yaml() for o in objects]),
    ]
    if hasattr(yaml, "CSafeDumper"):
        assert [dump(d, yaml.CSafeDumper) for d in docs] == pure, "the C emitter differs"
        cases.append(Case("c", lambda: [dump(d, yaml.CSafeDumper) for d in docs]))
    times = measure(cases, repeats=args.repeats)
    what = f"to_yaml() of {args.count:,} PodGroups and a 585-template Workload"
    rows = [Row(what, "yaml.dump, pure-Python SafeDumper", times["pure"], times["sdk"])]
    if "c" in times:
        rows.append(Row(what, "yaml.dump, C emitter CSafeDumper", times["c"], times["sdk"]))
    print_table(
        "YAML",
        rows,
        note=f"libyaml available: {hasattr(yaml, 'CSafeDumper')};"
        " every document byte-identical to the pure-Python emitter's",
    )


if __name__ == "__main__":
    main()
