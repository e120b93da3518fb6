"""pytest plugin of workloadbuilder: the ``kube_cluster``, ``fake_apiserver`` and
``gang_simulator`` fixtures.

``fake_apiserver`` is a started :class:`~workloadbuilder.testing.FakeAPIServer`, stopped after
the test. Configure it per test with the marker
``@pytest.mark.fake_apiserver(feature_gates={"GenericWorkload": False})`` (any keyword of
``FakeAPIServer``, ``preset="default-1.37"`` among them); ``--fake-apiserver-preset NAME``
(or the ini option ``fake_apiserver_preset``) sets the preset of every test that does not
name one. ``gang_simulator`` is a ``GangSimulator`` on that server; give it nodes
with ``@pytest.mark.gang_simulator(nodes=[SimNode("n0", {"cpu": "2"})])``.

``kube_cluster`` is a :class:`KubeCluster`: a namespace of its own and an open
kubernetes-asyncio client, on a ``FakeAPIServer`` by default, or on an existing cluster when
``--kube-cluster KUBECONFIG`` (or ``WORKLOADBUILDER_TEST_KUBECONFIG``) names one, with
``--kube-context`` (or ``WORKLOADBUILDER_TEST_CONTEXT``) choosing its context, as envtest's
``USE_EXISTING_CLUSTER``. The namespace is deleted after the test. There, the simulator-only
fixtures (``fake_apiserver``, ``gang_simulator``, and so fault injection) skip, saying why.

Async tests that use these fixtures run on pytest-asyncio without ``asyncio_mode = "auto"``:
the plugin marks them ``asyncio`` itself.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import AsyncIterator, Generator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from workloadbuilder._extras import missing_message
from workloadbuilder.testing.common.gates import PRESETS

if TYPE_CHECKING:
    from workloadbuilder.testing.server import FakeAPIServer
    from workloadbuilder.testing.sim import GangSimulator

MARKER = "fake_apiserver"
SIMULATOR_MARKER = "gang_simulator"
KUBECONFIG_ENV = "WORKLOADBUILDER_TEST_KUBECONFIG"
CONTEXT_ENV = "WORKLOADBUILDER_TEST_CONTEXT"
FIXTURES = frozenset({"kube_cluster", "fake_apiserver", "gang_simulator"})
PRESET_OPTION = "fake_apiserver_preset"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--kube-cluster`` and ``--kube-context``: run ``kube_cluster`` on an existing cluster."""
    group = parser.getgroup("workloadbuilder")
    group.addoption(
        "--kube-cluster",
        metavar="KUBECONFIG",
        default=None,
        help="run the kube_cluster fixture on the cluster of this kubeconfig"
        f" (also ${KUBECONFIG_ENV}); the simulator-only fixtures skip",
    )
    group.addoption(
        "--kube-context",
        metavar="NAME",
        default=None,
        help=f"the kubeconfig context for --kube-cluster (also ${CONTEXT_ENV}; default: current)",
    )
    group.addoption(
        "--fake-apiserver-preset",
        dest=PRESET_OPTION,
        choices=sorted(PRESETS),
        default=None,
        help="the FakeAPIServer preset of the tests whose marker names none (default: all;"
        " default-1.37 is a 1.37 cluster without flags)",
    )
    parser.addini(PRESET_OPTION, "the FakeAPIServer preset of the tests whose marker names none")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``fake_apiserver`` marker."""
    config.addinivalue_line(
        "markers", f"{MARKER}(**kwargs): keyword arguments for the fake_apiserver fixture"
    )
    config.addinivalue_line(
        "markers", f"{SIMULATOR_MARKER}(nodes=[...]): the SimNodes of the gang_simulator fixture"
    )


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_pycollect_makeitem(
    collector: pytest.Collector, name: str, obj: object
) -> Generator[None, Any, None]:
    """Mark the async tests that use the fixtures ``asyncio`` (before pytest-asyncio looks),
    so that they run in its default strict mode too."""
    outcome = yield
    items = outcome.get_result()
    for item in items if isinstance(items, list) else [items]:
        if (
            isinstance(item, pytest.Function)
            and _is_async(item.obj)
            and FIXTURES.intersection(item.fixturenames)
            and item.get_closest_marker("asyncio") is None
        ):
            item.add_marker(pytest.mark.asyncio)


def _is_async(obj: object) -> bool:
    return inspect.iscoroutinefunction(obj) or inspect.isasyncgenfunction(obj)


def _server_kwargs(request: pytest.FixtureRequest) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    preset = request.config.getoption(PRESET_OPTION) or request.config.getini(PRESET_OPTION)
    if preset:
        if preset not in PRESETS:
            raise pytest.UsageError(
                f"{PRESET_OPTION} = {preset!r}: use one of {', '.join(PRESETS)}"
            )
        kwargs["preset"] = preset
    for marker in reversed(list(request.node.iter_markers(MARKER))):
        if marker.args:
            raise pytest.UsageError(
                f"@pytest.mark.{MARKER} takes keyword arguments only (those of FakeAPIServer)"
            )
        kwargs.update(marker.kwargs)
    return kwargs


@dataclass(frozen=True)
class ExistingCluster:
    """The cluster the tests were told to use: a kubeconfig file and a context."""

    kubeconfig: Path
    context: str | None

    def __str__(self) -> str:
        context = f", context {self.context}" if self.context else ""
        return f"the cluster of {self.kubeconfig}{context}"


def existing_cluster(config: pytest.Config) -> ExistingCluster | None:
    """The existing cluster from ``--kube-cluster`` or ``$WORKLOADBUILDER_TEST_KUBECONFIG``."""
    path = config.getoption("kube_cluster") or os.environ.get(KUBECONFIG_ENV)
    if not path:
        return None
    context = config.getoption("kube_context") or os.environ.get(CONTEXT_ENV) or None
    return ExistingCluster(Path(path).expanduser(), context)


@dataclass(frozen=True)
class KubeCluster:
    """What a test gets from ``kube_cluster``: its own ``namespace``, an open kubernetes-asyncio
    ``api`` client (closed after the test), the ``kubeconfig_path`` and ``context`` for other
    clients, and the ``server`` when it is a FakeAPIServer (``None`` on an existing cluster)."""

    namespace: str
    api: Any
    kubeconfig_path: Path
    context: str | None
    server: FakeAPIServer | None


def _namespace_prefix(request: pytest.FixtureRequest) -> str:
    """``wbt-<test name>-``: a DNS label prefix; the API server appends 5 characters."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    return f"wbt-{slug}"[:50].rstrip("-") + "-"


def _needs_testing_extra(fixture: str) -> None:
    missing = missing_message("testing", f"the {fixture} fixture")
    if missing is not None:
        pytest.fail(missing, pytrace=False)


_NEEDS = "install pytest-asyncio (pip install pytest-asyncio) to use the async fixtures"

if TYPE_CHECKING or find_spec("pytest_asyncio") is not None:
    import pytest_asyncio

    def _simulator_only(request: pytest.FixtureRequest, fixture: str) -> None:
        cluster = existing_cluster(request.config)
        if cluster is not None:
            pytest.skip(
                "fake_apiserver and gang_simulator (the simulator, fault injection, in-process"
                f" access) are simulator-only: the tests run on {cluster}"
                f" (--kube-cluster or ${KUBECONFIG_ENV})"
            )
        _needs_testing_extra(fixture)

    @pytest_asyncio.fixture
    async def fake_apiserver(request: pytest.FixtureRequest) -> AsyncIterator[FakeAPIServer]:
        """A started FakeAPIServer, stopped after the test."""
        _simulator_only(request, "fake_apiserver")
        from workloadbuilder.testing.server import FakeAPIServer

        async with FakeAPIServer(**_server_kwargs(request)) as server:
            yield server

    @pytest_asyncio.fixture
    async def gang_simulator(
        request: pytest.FixtureRequest, fake_apiserver: FakeAPIServer
    ) -> GangSimulator:
        """A ``GangSimulator`` driving the test's ``fake_apiserver`` (nodes: the marker's)."""
        _simulator_only(request, "gang_simulator")
        from workloadbuilder.testing.sim import GangSimulator

        marker = request.node.get_closest_marker(SIMULATOR_MARKER)
        return GangSimulator(fake_apiserver, marker.kwargs.get("nodes") if marker else None)

    @pytest_asyncio.fixture
    async def kube_cluster(request: pytest.FixtureRequest) -> AsyncIterator[KubeCluster]:
        """A namespace of the test's own, on a FakeAPIServer or the existing cluster."""
        _needs_testing_extra("kube_cluster")
        from kubernetes_asyncio import config

        cluster = existing_cluster(request.config)
        if cluster is None:
            from workloadbuilder.testing.server import FakeAPIServer

            async with (
                FakeAPIServer(**_server_kwargs(request)) as server,
                server.api_client() as api,
            ):
                async for made in _in_namespace(request, api):
                    yield KubeCluster(made, api, server.kubeconfig_path, None, server)
            return
        if not cluster.kubeconfig.is_file():
            pytest.fail(f"no kubeconfig at {cluster.kubeconfig} ({KUBECONFIG_ENV})", pytrace=False)
        api = await config.new_client_from_config(
            config_file=str(cluster.kubeconfig), context=cluster.context
        )
        async with api:
            async for made in _in_namespace(request, api):
                yield KubeCluster(made, api, cluster.kubeconfig, cluster.context, None)

    async def _in_namespace(request: pytest.FixtureRequest, api: Any) -> AsyncIterator[str]:
        """A new namespace for the test, deleted afterwards."""
        from kubernetes_asyncio import client

        core = client.CoreV1Api(api)
        body = client.V1Namespace(
            metadata=client.V1ObjectMeta(generate_name=_namespace_prefix(request))
        )
        created = await core.create_namespace(body)
        name = str(created.metadata.name)
        try:
            yield name
        finally:
            await core.delete_namespace(name)

else:  # pragma: no cover - only without pytest-asyncio

    @pytest.fixture
    def fake_apiserver() -> None:
        """Needs pytest-asyncio."""
        raise pytest.UsageError(f"fake_apiserver is an async fixture: {_NEEDS}")

    @pytest.fixture
    def gang_simulator() -> None:
        """Needs pytest-asyncio."""
        raise pytest.UsageError(f"gang_simulator is an async fixture: {_NEEDS}")

    @pytest.fixture
    def kube_cluster() -> None:
        """Needs pytest-asyncio."""
        raise pytest.UsageError(f"kube_cluster is an async fixture: {_NEEDS}")
