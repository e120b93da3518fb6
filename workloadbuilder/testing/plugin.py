"""pytest plugin of workloadbuilder: the ``fake_apiserver`` and ``gang_simulator`` fixtures.

``fake_apiserver`` is a started :class:`~workloadbuilder.testing.FakeAPIServer`, stopped after
the test. Configure it per test with the marker
``@pytest.mark.fake_apiserver(feature_gates={"GenericWorkload": False})`` (any keyword of
``FakeAPIServer``). ``gang_simulator`` is a ``GangSimulator`` on that server; give it nodes
with ``@pytest.mark.gang_simulator(nodes=[SimNode("n0", {"cpu": "2"})])``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from workloadbuilder.testing.server import FakeAPIServer
    from workloadbuilder.testing.sim import GangSimulator

MARKER = "fake_apiserver"
SIMULATOR_MARKER = "gang_simulator"


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fake_apiserver`` marker."""
    config.addinivalue_line(
        "markers", f"{MARKER}(**kwargs): keyword arguments for the fake_apiserver fixture"
    )
    config.addinivalue_line(
        "markers", f"{SIMULATOR_MARKER}(nodes=[...]): the SimNodes of the gang_simulator fixture"
    )


def _server_kwargs(request: pytest.FixtureRequest) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        if marker.args:
            raise pytest.UsageError(
                f"@pytest.mark.{MARKER} takes keyword arguments only (those of FakeAPIServer)"
            )
        kwargs.update(marker.kwargs)
    return kwargs


_NEEDS = "install pytest-asyncio (pip install pytest-asyncio) to use the async fixtures"

if TYPE_CHECKING or find_spec("pytest_asyncio") is not None:
    import pytest_asyncio

    @pytest_asyncio.fixture
    async def fake_apiserver(request: pytest.FixtureRequest) -> AsyncIterator[FakeAPIServer]:
        """A started FakeAPIServer, stopped after the test."""
        from workloadbuilder.testing.server import FakeAPIServer

        async with FakeAPIServer(**_server_kwargs(request)) as server:
            yield server

    @pytest_asyncio.fixture
    async def gang_simulator(
        fake_apiserver: FakeAPIServer, request: pytest.FixtureRequest
    ) -> GangSimulator:
        """A ``GangSimulator`` driving the test's ``fake_apiserver`` (nodes: the marker's)."""
        from workloadbuilder.testing.sim import GangSimulator

        marker = request.node.get_closest_marker(SIMULATOR_MARKER)
        return GangSimulator(fake_apiserver, marker.kwargs.get("nodes") if marker else None)

else:  # pragma: no cover - only without pytest-asyncio

    @pytest.fixture
    def fake_apiserver() -> None:
        """Needs pytest-asyncio."""
        raise pytest.UsageError(f"fake_apiserver is an async fixture: {_NEEDS}")

    @pytest.fixture
    def gang_simulator() -> None:
        """Needs pytest-asyncio."""
        raise pytest.UsageError(f"gang_simulator is an async fixture: {_NEEDS}")
