"""``aio.Manager`` against the test server: controller-runtime's manager.

What is expected is ``pkg/manager``'s contract: probes, metrics and the cache run on every
replica, controllers and leader-only runnables only while this replica holds the Lease; a stop
fails readiness at once, drains the reconciles within the graceful shutdown timeout (cancelling
a hung one), then releases the Lease (client-go's release: an empty holder). The metrics served
are those the parts recorded; the Lease and the objects are read back from the test server.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import ssl
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.registry import Collector
from test_controller import NS, SCHEDULING, eventually, pod_group, server
from test_metrics import leading
from test_webhooks import UID, make_pair, review, validate_min_workers

from workloadbuilder import aio
from workloadbuilder.testing import FakeAPIServer

LOCAL = dict(metrics_bind_address="127.0.0.1:0", health_probe_bind_address="127.0.0.1:0")
TIMES = dict(lease_duration=1.0, renew_deadline=0.6, retry_period=0.1)


@asynccontextmanager
async def running(manager: aio.Manager) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.get_running_loop().create_task(manager.run())
    await eventually(lambda: manager.health_url is not None or task.done())
    try:
        yield task
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as resp:
        return resp.status, resp.headers["Content-Type"], await resp.text()


def holder(srv: FakeAPIServer, name: str) -> str:
    lease = srv.get_object("coordination.k8s.io", "v1", "leases", NS, name) or {}
    return str((lease.get("spec") or {}).get("holderIdentity") or "")


async def test_controllers_metrics_and_probes_in_one_process() -> None:
    registry = CollectorRegistry()
    reconciled: list[str] = []
    ran: list[str] = []

    async def reconcile(obj: dict[str, Any]) -> None:
        reconciled.append(obj["metadata"]["name"])

    async def everywhere() -> None:
        ran.append("everywhere")
        await asyncio.Event().wait()

    async def leader_only() -> None:
        ran.append("leader")
        await asyncio.Event().wait()

    async with server() as srv, srv.api_client() as api:
        for i in range(3):
            srv.create_object(*SCHEDULING, pod_group(f"pg-{i}"))
        manager = aio.Manager(api, namespace=NS, registry=registry, **LOCAL)
        controller = manager.add_controller("PodGroup", reconcile, name="one-process", workers=2)
        assert isinstance(controller, aio.Controller) and controller.cache is manager.cache
        manager.add(everywhere, needs_leader=False)
        manager.add(leader_only)
        assert manager.metrics_url is None  # not listening before run()
        async with running(manager):
            await eventually(lambda: len(reconciled) == 3)
            assert sorted(ran) == ["everywhere", "leader"]
            assert manager.leading
            assert manager.metrics_url is not None and manager.health_url is not None
            assert manager.metrics_url.startswith("http://127.0.0.1:")
            status, kind, text = await fetch(f"{manager.metrics_url}/metrics")
            assert status == 200 and kind.startswith("text/plain; version=0.0.4")
            line = 'controller_runtime_reconcile_total{controller="one-process",result="success"}'
            assert f"{line} 3.0" in text.splitlines()
            status, kind, text = await fetch(
                f"{manager.metrics_url}/metrics",
                {"Accept": "application/openmetrics-text; version=1.0.0"},
            )
            assert kind.startswith("application/openmetrics-text") and text.endswith("# EOF\n")
            assert await fetch(f"{manager.health_url}/readyz?verbose") == (
                200,
                "text/plain; charset=utf-8",
                "[+]ping ok\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check passed\n",
            )
            assert (await fetch(f"{manager.health_url}/healthz"))[::2] == (200, "ok")
        assert manager.metrics_url is None and manager.health_url is None
        assert not manager.leading


async def test_readiness_waits_until_the_cache_has_listed() -> None:
    async with server() as srv, srv.api_client() as api:
        srv.faults.delay(1.0, method="GET", path="*/podgroups")
        manager = aio.Manager(api, namespace=NS, **LOCAL)
        manager.add_controller("PodGroup", lambda obj: asyncio.sleep(0))
        async with running(manager):
            status, _, text = await fetch(f"{manager.health_url}/readyz")
            assert status == 500
            assert "[-]informer-sync failed: reason withheld\n" in text
            status, _, text = await fetch(f"{manager.health_url}/readyz/informer-sync")
            assert (status, text) == (500, "internal server error: not synced yet: PodGroup\n")
            await asyncio.sleep(1.2)
            assert (await fetch(f"{manager.health_url}/readyz"))[::2] == (200, "ok")


async def test_only_the_leader_reconciles_and_a_stop_hands_the_lease_over() -> None:
    calls: dict[str, list[str]] = {"a": [], "b": []}
    everywhere: list[str] = []

    def manager_of(api: Any, who: str) -> aio.Manager:
        election = aio.LeaderElection(api, "handover", NS, who, **TIMES)
        manager = aio.Manager(api, namespace=NS, leader_election=election, **LOCAL)

        async def reconcile(obj: dict[str, Any]) -> None:
            calls[who].append(obj["metadata"]["name"])

        async def runs_everywhere() -> None:
            everywhere.append(who)
            await asyncio.Event().wait()

        manager.add_controller("PodGroup", reconcile, name=f"handover-{who}")
        manager.add(runs_everywhere, needs_leader=False)
        return manager

    async with server() as srv, srv.api_client() as api_a, srv.api_client() as api_b:
        for i in range(3):
            srv.create_object(*SCHEDULING, pod_group(f"pg-{i}"))
        a, b = manager_of(api_a, "a"), manager_of(api_b, "b")
        async with running(a) as run_a:
            await eventually(lambda: len(calls["a"]) == 3)
            async with running(b):
                await eventually(lambda: sorted(everywhere) == ["a", "b"])
                await eventually(
                    lambda: b.leader_election is not None and b.leader_election.leader == "a"
                )
                assert not b.leading and calls["b"] == []
                # the standby is ready too: its cache is synced, its probes answer
                assert (await fetch(f"{b.health_url}/readyz"))[::2] == (200, "ok")
                run_a.cancel()
                with suppress(asyncio.CancelledError):
                    await run_a
                assert holder(srv, "handover") in ("", "b")  # released, not left to expire
                await eventually(lambda: len(calls["b"]) == 3, 5)
                assert holder(srv, "handover") == "b"
        assert holder(srv, "handover") == ""


async def test_a_hung_reconcile_is_cancelled_logged_once_and_the_lease_still_released(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="workloadbuilder.aio")
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def hangs(obj: dict[str, Any]) -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async with server() as srv, srv.api_client() as api:
        srv.create_object(*SCHEDULING, pod_group("stuck"))
        election = aio.LeaderElection(api, "hung", NS, "me", **TIMES)
        manager = aio.Manager(
            api, namespace=NS, leader_election=election, graceful_shutdown_timeout=0.5, **LOCAL
        )
        manager.add_controller("PodGroup", hangs, name="hung")
        task = asyncio.get_running_loop().create_task(manager.run())
        await started.wait()
        assert holder(srv, "hung") == "me"
        health = manager.health_url
        loop = asyncio.get_running_loop()
        stop_began = loop.time()
        task.cancel()
        await asyncio.sleep(0.05)
        status, _, text = await fetch(f"{health}/readyz")  # not ready at once
        assert status == 500 and "[-]shutdown failed: reason withheld\n" in text
        assert not cancelled  # still draining
        with suppress(asyncio.CancelledError):
            await task
        took = loop.time() - stop_began
        assert cancelled == [True]
        assert 0.5 <= took < 3.0
        said = [r.getMessage() for r in caplog.records if "still running" in r.getMessage()]
        assert said == ["controller hung: 1 reconcile(s) still running after 0.5s were cancelled"]
        assert holder(srv, "hung") == ""  # released after the drain


async def test_a_scrape_during_a_storm_of_reconciles_never_blocks_a_worker() -> None:
    class Slow(Collector):
        """A registry that takes half a second to collect (a very large one)."""

        def collect(self) -> Iterator[Any]:
            time.sleep(0.5)
            return iter(())

    registry = CollectorRegistry()
    registry.register(Slow())
    done = 0

    async def storm(obj: dict[str, Any]) -> aio.Result:
        nonlocal done
        done += 1
        return aio.Result(requeue_after=0.001)

    async with server() as srv, srv.api_client() as api:
        for i in range(20):
            srv.create_object(*SCHEDULING, pod_group(f"pg-{i}"))
        manager = aio.Manager(api, namespace=NS, registry=registry, **LOCAL)
        manager.add_controller("PodGroup", storm, name="storm", workers=4)
        async with running(manager):
            await eventually(lambda: done > 100)
            before = done
            began = time.perf_counter()
            status, _, text = await fetch(f"{manager.metrics_url}/metrics")
            took = time.perf_counter() - began
            during = done - before
        assert status == 200 and 'controller_runtime_reconcile_total{controller="storm"' in text
        assert took >= 0.5
        assert during > 50  # the workers went on while the registry was collected


async def test_a_runnable_that_raises_stops_the_manager_with_its_error() -> None:
    async def fails() -> None:
        await asyncio.sleep(0.1)
        raise RuntimeError("the runnable failed")

    async with server() as srv, srv.api_client() as api:
        manager = aio.Manager(api, namespace=NS, **LOCAL)
        manager.add(fails, needs_leader=False)
        with pytest.raises(RuntimeError, match="the runnable failed"):
            await manager.run()
        assert manager.health_url is None and not manager.cache.started


async def test_a_leader_only_runnable_that_raises_stops_every_server() -> None:
    async def fails() -> None:
        await asyncio.sleep(0.1)
        raise RuntimeError("the leader's runnable failed")

    async with server() as srv, srv.api_client() as api:
        election = aio.LeaderElection(api, "raising", NS, "me", **TIMES)
        manager = aio.Manager(api, namespace=NS, leader_election=election, **LOCAL)
        manager.add(fails)
        with pytest.raises(RuntimeError, match="the leader's runnable failed"):
            await manager.run()
        assert manager.health_url is None and manager.metrics_url is None
        assert holder(srv, "raising") == ""  # released on the way out


async def test_liveness_fails_once_the_lease_went_unrenewed_while_believed_held() -> None:
    async with server() as srv, srv.api_client() as api:
        election = aio.LeaderElection(api, "stalled", NS, "me", **TIMES)
        task = await leading(election)
        assert election.check(0.2) is None
        srv.faults.delay(10.0, method="PUT", path="*/leases/stalled", times=100)
        srv.faults.delay(10.0, method="GET", path="*/leases/stalled", times=100)
        await eventually(lambda: not election.is_leader, 5)  # the renew deadline passed
        assert election.leader == "me"  # the record it last saw still names it
        loop = asyncio.get_running_loop()
        began = loop.time()
        await eventually(lambda: election.check(0.2) is not None, 5)
        assert election.check(0.2) == "failed election to renew leadership on lease stalled"
        assert loop.time() - began > 0.2  # not before lease_duration + the timeout
        other = aio.LeaderElection(api, "stalled", NS, "other", **TIMES)
        assert other.check(0.0) is None  # a replica that never held it is healthy
        task.cancel()
        srv.faults.clear()
        await asyncio.gather(task, return_exceptions=True)


def test_what_a_manager_refuses() -> None:
    with pytest.raises(ValueError, match="webhook_cert_dir is required"):
        aio.Manager(object(), webhook_bind_address="127.0.0.1:0")
    with pytest.raises(
        ValueError, match="metrics_bind_address: bind address '8080' is not host:port"
    ):
        aio.Manager(object(), metrics_bind_address="8080")
    with pytest.raises(ValueError, match="graceful_shutdown_timeout must not be negative"):
        aio.Manager(object(), graceful_shutdown_timeout=-1)
    manager = aio.Manager(object(), metrics_bind_address=None, health_probe_bind_address=None)
    assert manager.metrics_url is manager.health_url is manager.webhook_url is None
    manager.add_controller("PodGroup", lambda obj: asyncio.sleep(0))
    with pytest.raises(ValueError, match="a controller named 'podgroup' is already added"):
        manager.add_controller("PodGroup", lambda obj: asyncio.sleep(0))
    with pytest.raises(TypeError, match="add_controller\\(\\) takes no cache"):
        manager.add_controller("Job", lambda obj: asyncio.sleep(0), cache=None)
    with pytest.raises(ValueError, match="no webhook server"):
        manager.add_validating_webhook("/validate", lambda review: None)


SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from workloadbuilder import aio

    manager = aio.Manager(
        object(), metrics_bind_address="127.0.0.1:0", health_probe_bind_address="127.0.0.1:0"
    )

    async def until_stopped() -> None:
        print("running", manager.health_url, flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            print("stopped", flush=True)

    manager.add(until_stopped, needs_leader=False)
    asyncio.run(manager.run_until_signal())
    print("exited", manager.health_url, flush=True)
    """
)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_run_until_signal_stops_gracefully(signum: int, tmp_path: Path) -> None:
    script = tmp_path / "main.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env
    ) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline().split()
        assert first[0] == "running" and first[1].startswith("http://127.0.0.1:")
        proc.send_signal(signum)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert out.splitlines() == ["stopped", "exited None"]


async def test_webhooks_are_served_by_the_manager_and_part_of_readiness(tmp_path: Path) -> None:
    registry = CollectorRegistry()
    certs = make_pair(tmp_path / "certs")
    manager = aio.Manager(
        object(),
        webhook_bind_address="127.0.0.1:0",
        webhook_cert_dir=certs,
        registry=registry,
        **LOCAL,
    )
    manager.add_validating_webhook("/validate", validate_min_workers)
    assert manager.webhook_url is None  # not listening before run()
    async with running(manager):
        await eventually(lambda: manager.webhook_url is not None)  # it starts after the probes
        assert str(manager.webhook_url).startswith("https://127.0.0.1:")
        status, _, text = await fetch(f"{manager.health_url}/readyz?verbose")
        assert status == 200 and "[+]webhook ok\n" in text
        code, answer = await post_review(manager, certs)
        assert code == 200 and answer["response"]["uid"] == UID
        _, _, text = await fetch(f"{manager.metrics_url}/metrics")
        line = 'controller_runtime_webhook_requests_total{code="200",webhook="/validate"} 1.0'
        assert line in text.splitlines()


async def post_review(manager: aio.Manager, certs: Path) -> tuple[int, Any]:
    context = ssl.create_default_context(cafile=str(certs / "tls.crt"))
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{manager.webhook_url}/validate", json=review(), ssl=context) as resp,
    ):
        return resp.status, await resp.json()
