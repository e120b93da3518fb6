"""``aio.new_client()`` without a proxy or a netrc file configured: no per-request lookups.

kubernetes-asyncio's session trusts the environment, for which aiohttp looks up the proxy
settings and the netrc file in the event loop's default executor on every request. The test
watches that executor's threads: a client from ``kubernetes_asyncio``'s own
loader starts them, the SDK's client made in the same environment does not, and one made where
a proxy or a netrc file is configured keeps trusting the environment.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from apply_support import NS, gang_pod_groups

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

_PROXY_VARIABLES = [f"{scheme}_proxy" for scheme in ("http", "https", "ws", "wss", "all", "no")] + [
    f"{scheme.upper()}_PROXY" for scheme in ("http", "https", "ws", "wss", "all", "no")
]


@pytest.fixture
def plain_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No proxy variable, no ``$NETRC``, a home without a netrc file."""
    for name in [*_PROXY_VARIABLES, "NETRC"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


async def _apply_watching_threads(client: object, namespace: str) -> int:
    """How many executor threads ran while ``client`` applied 20 PodGroups."""
    prefix = f"lookup-watch-{namespace}-{id(client)}"
    executor = ThreadPoolExecutor(thread_name_prefix=prefix)
    asyncio.get_running_loop().set_default_executor(executor)
    await aio.apply(client, gang_pod_groups(20, namespace), field_manager="env-test")
    started = sum(t.name.startswith(prefix) for t in threading.enumerate())
    executor.shutdown(wait=True)
    return started


async def test_the_sdk_client_makes_no_lookups_the_plain_client_does(
    fake_apiserver: FakeAPIServer, plain_environment: Path
) -> None:
    from kubernetes_asyncio import config

    async with await aio.new_client(config_file=fake_apiserver.kubeconfig_path) as ours:
        assert ours.rest_client.pool_manager.trust_env is False
        assert await _apply_watching_threads(ours, NS) == 0
    stored = fake_apiserver.list_objects("scheduling.k8s.io", "v1beta1", "podgroups", NS)
    assert len(stored) == 20
    # The same requests through kubernetes-asyncio's own client: the lookups happen.
    path = str(fake_apiserver.kubeconfig_path)
    async with await config.new_client_from_config(config_file=path) as theirs:
        assert theirs.rest_client.pool_manager.trust_env is True
        assert await _apply_watching_threads(theirs, NS) > 0


@pytest.mark.parametrize("configured", ["HTTPS_PROXY", "https_proxy", "NETRC", "~/.netrc"])
async def test_a_configured_proxy_or_netrc_keeps_the_environment_trusted(
    fake_apiserver: FakeAPIServer,
    plain_environment: Path,
    monkeypatch: pytest.MonkeyPatch,
    configured: str,
) -> None:
    netrc = plain_environment / ".netrc"
    if configured == "~/.netrc":
        netrc.write_text("machine 127.0.0.1 login user password secret\n")
    elif configured == "NETRC":
        monkeypatch.setenv("NETRC", str(plain_environment / "elsewhere"))
    else:
        monkeypatch.setenv(configured, "http://127.0.0.1:9")
    async with await aio.new_client(config_file=fake_apiserver.kubeconfig_path) as client:
        assert client.rest_client.pool_manager.trust_env is True
