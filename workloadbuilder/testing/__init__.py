"""Test support: a local Kubernetes API server and a gang-scheduling simulator.

The names are loaded on first use, so that the pytest plugin costs nothing in test sessions
that do not use the fixtures. They need the ``[testing]`` extra
(``pip install 'workloadbuilder[testing]'``); without it, using one raises
``ModuleNotFoundError`` naming the extra. ``fixtures`` and the pytest plugin need only the
core package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from workloadbuilder._extras import require

if TYPE_CHECKING:
    from workloadbuilder.testing.server import (
        GATES,
        PRESETS,
        APIStatusError,
        FakeAPIServer,
        Fault,
        RecordedRequest,
    )
    from workloadbuilder.testing.sim import GangSimulator, SimNode

_HOME = {
    "APIStatusError": "server",
    "FakeAPIServer": "server",
    "Fault": "server",
    "RecordedRequest": "server",
    "GATES": "server",
    "PRESETS": "server",
    "GangSimulator": "sim",
    "SimNode": "sim",
}

__all__ = [
    "GATES",
    "PRESETS",
    "APIStatusError",
    "FakeAPIServer",
    "Fault",
    "GangSimulator",
    "RecordedRequest",
    "SimNode",
]


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    require("testing", f"workloadbuilder.testing.{name}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
