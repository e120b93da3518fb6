"""The benchmark measures what it claims: valid trees whose objects equal the hand-written JSON."""

from __future__ import annotations

from core_support import rendered

from benchmarks import bench_core
from workloadbuilder import Builder, composite, leaf


def test_release_case_matches_the_hand_written_dicts() -> None:
    assert bench_core._same_json(
        bench_core.sdk_to_dict(bench_core.release_tree), bench_core.release_dicts()
    )


def test_wide_case_is_the_widest_accepted_shape_and_matches() -> None:
    tree = bench_core.wide_tree()
    assert Builder(tree, bench_core.OPTIONS).validate() == []
    objects = bench_core.sdk_to_dict(bench_core.wide_tree)
    assert [o["kind"] for o in objects].count("CompositePodGroup") == 73
    assert [o["kind"] for o in objects].count("PodGroup") == 512
    assert bench_core._same_json(objects, bench_core.wide_dicts())
    # One more level of composites, or a ninth child, is rejected.
    deeper = composite("top", [tree])
    assert rendered(Builder(deeper, bench_core.OPTIONS).validate())[0].endswith(
        "maximum template hierarchy depth is 4"
    )
    wider = composite("root", [*tree.children, composite("g8", [leaf("g8-w")])])
    assert rendered(Builder(wider, bench_core.OPTIONS).validate()) == [
        "spec.compositePodGroupTemplates[0]: Too many: 9: must have at most 8 items"
    ]
