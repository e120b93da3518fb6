"""Shared setup of the tests of ``workloadbuilder.aio``'s apply, resize, delete and reconcile."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

for _dir in (Path(__file__).resolve().parents[2], Path(__file__).resolve().parent):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))


@pytest.fixture(autouse=True)
def _namespaces(request: pytest.FixtureRequest) -> None:
    """The ``fake_apiserver`` fixture holds the tests' namespaces."""
    if "fake_apiserver" in request.fixturenames:
        from apply_support import with_namespaces

        with_namespaces(request.getfixturevalue("fake_apiserver"))
