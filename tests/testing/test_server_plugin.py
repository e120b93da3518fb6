"""The pytest plugin: fixtures, the configuration marker, strict mode."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from server_helpers import bounded

from workloadbuilder.testing import FakeAPIServer


@bounded()
async def test_fake_apiserver_is_started(fake_apiserver: FakeAPIServer) -> None:
    assert fake_apiserver.url.startswith("http://127.0.0.1:")
    assert fake_apiserver.kubeconfig_path.exists()
    assert "GenericWorkload" in fake_apiserver.gates


@pytest.mark.fake_apiserver(feature_gates={"GenericWorkload": False}, event_history=5)
@bounded()
async def test_marker_configures_the_server(fake_apiserver: FakeAPIServer) -> None:
    assert "GenericWorkload" not in fake_apiserver.gates
    assert not fake_apiserver.serves("scheduling.k8s.io", "v1beta1", "podgroups")


@bounded()
async def test_gang_simulator_fixture(
    gang_simulator: object, fake_apiserver: FakeAPIServer
) -> None:
    from workloadbuilder.testing.sim import GangSimulator

    assert isinstance(gang_simulator, GangSimulator)
    await gang_simulator.step()


def test_kubeconfig_is_removed_on_exit() -> None:
    import asyncio

    async def scenario() -> Path:
        async with FakeAPIServer() as server:
            return server.kubeconfig_path

    assert not asyncio.run(scenario()).exists()
    with pytest.raises(RuntimeError, match="not started"):
        _ = FakeAPIServer().url


def test_fixtures_work_in_strict_mode(tmp_path: Path) -> None:
    (tmp_path / "test_strict.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.asyncio\n"
        "async def test_it(fake_apiserver):\n"
        "    assert fake_apiserver.get_object('', 'v1', 'namespaces', None, 'default')\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_mode=strict",
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
