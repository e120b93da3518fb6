"""Shared fixtures of the core tests.

Every Workload, PodGroup and CompositePodGroup a Builder returns during these tests is checked
against the upstream 1.37 strict JSON schema and the official 1.37 client models
(``oracles.assert_conforms``), whichever test built it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

for _dir in (Path(__file__).resolve().parents[1], Path(__file__).resolve().parent):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))

from oracles import assert_conforms  # noqa: E402

from workloadbuilder.builder import Builder  # noqa: E402


def _checked(method: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: Builder, *args: Any, **kwargs: Any) -> Any:
        result = method(self, *args, **kwargs)
        assert_conforms(result)
        return result

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


@pytest.fixture(autouse=True)
def every_built_object_conforms(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Wrap the Builder so that everything it returns is checked by both oracles."""
    for name in ("build_workload", "new_pod_group", "new_composite_pod_group"):
        monkeypatch.setattr(Builder, name, _checked(getattr(Builder, name)))
    yield
