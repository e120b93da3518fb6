"""``validate()`` with its remembered helpers (block paths, snake-case names) reports exactly
what it reported computing them afresh each time: same errors, same order, same messages.

The reference runs the same ``validate()`` with the helpers' original, uncached functions
(``__wrapped__``); the cached side keeps its caches warm across every generated tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_core_properties import OPTIONS, trees

import workloadbuilder._declarative as declarative
import workloadbuilder.item as item_module
from workloadbuilder import Builder, BuildOptions, WorkloadItem


def _report(root: WorkloadItem | None, old: WorkloadItem | None, options: BuildOptions) -> Any:
    return [
        (e.type, e.field, repr(e.bad_value), e.detail, str(e))
        for e in Builder(root, options).validate(old_root=old)
    ]


@pytest.fixture()
def uncached() -> Iterator[Any]:
    def run(root: WorkloadItem | None, old: WorkloadItem | None, options: BuildOptions) -> Any:
        saved = item_module._below_path, declarative.to_snake
        item_module._below_path = item_module._below_path.__wrapped__  # type: ignore[attr-defined]
        declarative.to_snake = declarative.to_snake.__wrapped__  # type: ignore[attr-defined]
        try:
            return _report(root, old, options)
        finally:
            item_module._below_path, declarative.to_snake = saved

    yield run


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)
@given(root=st.one_of(st.none(), trees()), old=st.one_of(st.none(), trees()), options=OPTIONS)
def test_validate_reports_what_it_reported_before(
    uncached: Any, root: WorkloadItem | None, old: WorkloadItem | None, options: BuildOptions
) -> None:
    assert _report(root, old, options) == uncached(root, old, options)
